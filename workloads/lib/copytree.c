// SPDX-License-Identifier: GPL-2.0
#include "copytree.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *from, *to;
static size_t from_len;
static char *err_buf;
static size_t err_len;

static int copy_file(const char *src, const char *dst, const struct stat *st)
{
	char buf[65536];
	int in, out, r = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st->st_mode & 07777);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -1;
			break;
		}
		for (ssize_t off = 0; off < n; ) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				r = -1;
				break;
			}
			off += w;
		}
		if (r)
			break;
	}
	close(in);
	if (close(out))
		r = -1;
	return r;
}

static int copy_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	char dst[PATH_MAX], target[PATH_MAX];
	struct timespec times[2] = { st->st_atim, st->st_mtim };
	const char *what = "copy";
	ssize_t n;
	int r = 0;

	(void)ftw;
	if (snprintf(dst, sizeof(dst), "%s%s", to, path + from_len) >= (int)sizeof(dst)) {
		errno = ENAMETOOLONG;
		r = -1;
	} else if (flag == FTW_D) {
		what = "mkdir";
		if (path[from_len] && mkdir(dst, st->st_mode & 07777) && errno != EEXIST)
			r = -1;
		return r ? (snprintf(err_buf, err_len, "%s %s: %s", what, dst, strerror(errno)), -1) : 0;
	} else if (flag == FTW_SL) {
		what = "symlink";
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			r = -1;
		else {
			target[n] = '\0';
			r = symlink(target, dst);
		}
		if (!r)
			r = utimensat(AT_FDCWD, dst, times, AT_SYMLINK_NOFOLLOW);
	} else if (flag == FTW_F && S_ISREG(st->st_mode)) {
		r = copy_file(path, dst, st);
		if (!r) {
			what = "utimensat";
			r = utimensat(AT_FDCWD, dst, times, 0);
		}
	} else if (flag == FTW_F) {
		return 0;	/* sockets, fifos, devices: nothing a build needs */
	} else {
		what = "read";
		errno = flag == FTW_DNR ? EACCES : ENOENT;
		r = -1;
	}
	if (r)
		snprintf(err_buf, err_len, "%s %s: %s", what, r && flag != FTW_D ? path : dst,
			 strerror(errno));
	return r;
}

int wl_copy_tree(const char *src, const char *dst, char *why, size_t whylen)
{
	from = src;
	from_len = strlen(src);
	to = dst;
	err_buf = why;
	err_len = whylen;
	why[0] = '\0';
	/* Pre-order: folders exist before their files. */
	if (nftw(src, copy_one, 64, FTW_PHYS)) {
		if (!why[0])
			snprintf(why, whylen, "walk %s: %s", src, strerror(errno));
		return -1;
	}
	return 0;
}
