/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a folder takes on disk, and its removal, for folders others wrote
 * (a series' build folder, a kernel work tree): both walk by descriptor
 * (openat() with O_NOFOLLOW, fstatat() with AT_SYMLINK_NOFOLLOW,
 * unlinkat()), never follow a symbolic link (a link is counted and
 * removed as the link it is) and never cross into another file system (a
 * mount below is neither counted nor entered). A path that is a link is
 * not followed either. Thread-safe.
 */
#ifndef LAB_DISK_USAGE_H
#define LAB_DISK_USAGE_H

#include "util.h"

#include <time.h>

/* Deeper than this, a folder is not entered (counted, removal fails with ELOOP). */
#define DISK_USAGE_MAX_DEPTH 256

struct disk_usage {
	unsigned long long bytes;	/* allocated (st_blocks * 512); a file of n names, 1/n per name */
	time_t newest;			/* newest modification time of anything in it */
	unsigned long files;		/* entries counted, the top included */
};

/*
 * Add what @path takes (a file, a link or a whole folder) to @du. 0, or
 * -1 with errno when @path itself cannot be looked at (ENOENT: it is not
 * there); what cannot be read below it is left out.
 */
LAB_MUST_CHECK
int disk_usage(const char *path, struct disk_usage *du);

/*
 * Remove @path and everything below it, by unlinkat(); a missing @path is
 * no error. 0, or -1 with errno (the first failure; what could go, went).
 */
LAB_MUST_CHECK
int disk_remove(const char *path);

#endif
