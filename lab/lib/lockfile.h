/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe; a lock belongs to its open file, so two threads taking one
 * lock exclude each other as two processes do.
 *
 * Advisory locks on a file (flock), released by the kernel when the holder
 * dies however it dies, with a line in the file that names the holder so
 * whoever finds the lock taken can say who has it.
 */
#ifndef LAB_LOCKFILE_H
#define LAB_LOCKFILE_H

#include "util.h"
#include "strbuf.h"

enum lockfile_status {
	LOCKFILE_TAKEN,		/* *@fd holds the lock: keep it open (close() lets go) */
	LOCKFILE_HELD,		/* held elsewhere (without @wait): the holder's line in @held_by */
	LOCKFILE_FAILED,	/* errno says why (EINTR: a signal ended the wait) */
};

/*
 * Lock @path (created if needed) and write @holder into it. Without @wait,
 * a lock held elsewhere is LOCKFILE_HELD; with @wait, block until it is
 * free. *@fd is the open descriptor when LOCKFILE_TAKEN, else -1.
 */
LAB_MUST_CHECK
enum lockfile_status lockfile_take(const char *path, int wait, const char *holder,
				   struct strbuf *held_by, int *fd);

#endif
