// SPDX-License-Identifier: GPL-2.0
/* A folder's size and its removal, by descriptor, never through a link: disk_usage.h. */
#include "disk_usage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the walk looked at: the first failure below the top, and the device it stays on. */
struct walk {
	dev_t dev;
	int err;
};

static void count(const struct stat *st, struct disk_usage *du)
{
	du->bytes += (unsigned long long)st->st_blocks * 512;
	if (st->st_mtime > du->newest)
		du->newest = st->st_mtime;
	du->files++;
}

/* Count what is below the open folder @fd (which this closes). */
static void usage_below(int fd, struct walk *wk, int depth, struct disk_usage *du)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (st.st_dev != wk->dev)
			continue;
		if (S_ISREG(st.st_mode) && st.st_nlink > 1)
			st.st_blocks /= st.st_nlink;	/* each name its share */
		count(&st, du);
		if (!S_ISDIR(st.st_mode) || depth >= DISK_USAGE_MAX_DEPTH)
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			usage_below(sub, wk, depth + 1, du);
	}
	closedir(d);
}

int disk_usage(const char *path, struct disk_usage *du)
{
	struct walk wk = { 0 };
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return -1;
	wk.dev = st.st_dev;
	count(&st, du);
	if (!S_ISDIR(st.st_mode))
		return 0;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* there, but not to be read: its own size is all we know */
	usage_below(fd, &wk, 1, du);
	return 0;
}

/* Empty the open folder @fd (which this closes); the first failure in wk->err. */
static void remove_below(int fd, struct walk *wk, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d) {
		if (!wk->err)
			wk->err = errno;
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT && !wk->err)
				wk->err = errno;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int sub;

			/* another file system mounted here: not ours to empty */
			if (st.st_dev != wk->dev || depth >= DISK_USAGE_MAX_DEPTH) {
				if (!wk->err)
					wk->err = st.st_dev != wk->dev ? EXDEV : ELOOP;
				continue;
			}
			sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0) {
				if (!wk->err)
					wk->err = errno;
				continue;
			}
			remove_below(sub, wk, depth + 1);
			if (unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR) && errno != ENOENT && !wk->err)
				wk->err = errno;
		} else if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT && !wk->err) {
			wk->err = errno;
		}
	}
	closedir(d);
}

int disk_remove(const char *path)
{
	struct walk wk = { 0 };
	struct stat st;
	int fd;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) && errno != ENOENT ? -1 : 0;
	wk.dev = st.st_dev;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	remove_below(fd, &wk, 1);
	if (wk.err) {
		errno = wk.err;
		return -1;
	}
	return rmdir(path) && errno != ENOENT ? -1 : 0;
}
