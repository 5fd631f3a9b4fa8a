/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A list archive on disk, read incrementally into the watch's database: a
 * maildir (cur/ and new/; a file is known by its name up to ':', so a
 * mail a reader marked read is not read twice) or a public-inbox v2 folder
 * (git/N.git epochs, one commit per mail, the mail in the commit's blob
 * "m"; the last commit read of each epoch is the cursor). Each batch of
 * mails commits together with the cursor or names that say they were
 * read, so a kill -9 reads a batch again or not at all, and a mail filed
 * twice (by its Message-ID) stays one.
 */
#ifndef LAB_WATCH_ARCHIVE_H
#define LAB_WATCH_ARCHIVE_H

#include "watch_db.h"

#include <time.h>

struct watch_scan_stats {
	long read;		/* mails filed */
	long duplicates;	/* Message-IDs filed before */
	long rejected;		/* refused, each with a reason in `rejected` */
	long deferred;		/* not readable this time (moved, EIO): the next scan reads them */
};

/*
 * Read what @archive holds that the database has not seen, subjects' n
 * bounded by @max_n (watch_file_mail()). Returns 0, or
 * -1 with a message naming the archive in @err (neither kind, unreadable,
 * git failing).
 */
LAB_MUST_CHECK
int watch_archive_scan(struct watch_db *w, const char *archive, long max_n, time_t now,
		       struct watch_scan_stats *stats, struct strbuf *err);

/*
 * File one mail (@origin says where it came from), n above @max_n filed
 * as @max_n + 1 (watch_msg_parse(); [watch] max_patches); 1 filed, 0 a
 * duplicate, -1 refused.
 */
int watch_file_mail(struct watch_db *w, const char *source, const char *origin,
		    const char *buf, size_t len, long max_n, time_t now,
		    struct watch_scan_stats *stats, struct strbuf *err);

#endif
