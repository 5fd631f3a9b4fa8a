/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Advisory locks on a file (flock), released by the kernel when the holder
 * dies however it dies, with a line in the file that names the holder so
 * whoever finds the lock taken can say who has it.
 */
#ifndef LAB_LOCKFILE_H
#define LAB_LOCKFILE_H

#include "util.h"
#include "strbuf.h"

/*
 * Lock @path (created if needed) and write @holder into it. Without @wait,
 * a lock held elsewhere returns -2 with the holder's line in @held_by;
 * with @wait, block until it is free. Returns the open descriptor (keep it
 * open to hold the lock), or -1 with errno set.
 */
LAB_MUST_CHECK
int lockfile_take(const char *path, int wait, const char *holder, struct strbuf *held_by);

#endif
