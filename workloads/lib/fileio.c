// SPDX-License-Identifier: GPL-2.0
#include "fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int wl_mkdir_under(const char *root, const char *dir, unsigned int mode)
{
	char p[4096];
	size_t rl = strlen(root);

	if (snprintf(p, sizeof(p), "%s%s", root, dir) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (char *s = p + rl + 1; ; s++) {
		if (*s && *s != '/')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, mode) && errno != EEXIST)
			return -errno;
		*s = c;
		if (!c)
			return 0;
	}
}

char *wl_read_file(const char *path, size_t max, size_t *len, int *truncated)
{
	size_t alloc = 8192, n = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (truncated)
		*truncated = 0;
	if (fd < 0)
		return NULL;
	buf = malloc(alloc + 1);
	while (buf) {
		ssize_t r;

		if (n == alloc) {
			char *nb;

			if (alloc >= max) {
				if (truncated)
					*truncated = 1;
				break;
			}
			alloc = alloc * 2 > max ? max : alloc * 2;
			nb = realloc(buf, alloc + 1);
			if (!nb) {
				free(buf);
				buf = NULL;
				errno = ENOMEM;
				break;
			}
			buf = nb;
		}
		r = read(fd, buf + n, alloc - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(buf);
			buf = NULL;
			errno = e;
			break;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (buf) {
		buf[n] = '\0';
		if (len)
			*len = n;
	}
	return buf;
}

int wl_write_file(const char *path, const char *s)
{
	size_t n = strlen(s);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd < 0)
		return -errno;
	do {
		w = write(fd, s, n);
	} while (w < 0 && errno == EINTR);
	if (w < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)w == n ? 0 : -EIO;
}

int wl_read_u64(const char *path, uint64_t *out)
{
	char *s = wl_read_file(path, 4096, NULL, NULL), *end;
	unsigned long long v;

	if (!s)
		return -errno;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (end == s || errno || (*end && *end != '\n' && *end != ' ')) {
		free(s);
		return -EINVAL;
	}
	free(s);
	*out = v;
	return 0;
}

double wl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void wl_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

unsigned long long wl_vmstat_get(const char *text, const char *key, int *found)
{
	size_t kl = strlen(key);

	if (found)
		*found = 0;
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ') {
			if (found)
				*found = 1;
			return strtoull(p + kl + 1, NULL, 10);
		}
	return 0;
}
