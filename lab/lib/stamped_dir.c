// SPDX-License-Identifier: GPL-2.0
/* A command's stamped reports folder, its "latest" link and stdout kept (stamped_dir.h). */
#include "stamped_dir.h"
#include "fsutil.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

char *stamped_dir_free(const char *parent, const char *what)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int n = 0; n < 100; n++) {
		char *d = n ? xasprintf("%s/%s-%s-%d", parent, stamp, what, n) :
			      xasprintf("%s/%s-%s", parent, stamp, what);

		if (!path_exists(d))
			return d;
		free(d);
	}
	return NULL;
}

void stamped_dir_link(const char *parent, const char *link, const char *target)
{
	char *path = xasprintf("%s/%s", parent, link);
	char *tmp = xasprintf("%s/.%s.%ld", parent, link, (long)getpid());

	unlink(tmp);
	if (symlink(target, tmp) || rename(tmp, path))
		warning("cannot point %s at %s: %s", path, target, strerror(errno));
	unlink(tmp);
	free(tmp);
	free(path);
}

int stdout_to_stderr(void)
{
	int saved;

	fflush(stdout);
	saved = dup(1);
	if (saved >= 0)
		dup2(2, 1);
	return saved;
}

void stdout_restore(int *saved)
{
	fflush(stdout);
	if (*saved >= 0) {
		dup2(*saved, 1);
		close(*saved);
		*saved = -1;
	}
}
