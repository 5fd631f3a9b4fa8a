// SPDX-License-Identifier: GPL-2.0
#include "lockfile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

static void read_holder(int fd, struct strbuf *held_by)
{
	char buf[1024];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	sb_adds(held_by, *buf ? buf : "holder unknown");
}

enum lockfile_status lockfile_take(const char *path, int wait, const char *holder,
				   struct strbuf *held_by, int *fd_out)
{
	/* The holder is written into it: never through a planted symlink. */
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);

	*fd_out = -1;
	if (fd < 0)
		return LOCKFILE_FAILED;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		read_holder(fd, held_by);
		if (!wait) {
			close(fd);
			return LOCKFILE_HELD;
		}
		info("waiting for %s (held by %s)", path, sb_str(held_by));
		if (flock(fd, LOCK_EX)) {
			int e = errno;
			close(fd);
			errno = e;
			return LOCKFILE_FAILED;
		}
	}
	if (ftruncate(fd, 0) || pwrite(fd, holder, strlen(holder), 0) < 0)
		debug("cannot record the lock holder in %s", path);
	*fd_out = fd;
	return LOCKFILE_TAKEN;
}
