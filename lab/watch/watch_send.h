/* SPDX-License-Identifier: GPL-2.0 */
/*
 * watch run --sendmail CMD: each reply handed to the site's mail transfer
 * agent once (docs/watch.md, "Sending").
 */
#ifndef LAB_WATCH_SEND_H
#define LAB_WATCH_SEND_H

#include "strbuf.h"
#include "watch_db.h"

#include <time.h>

/*
 * Hand every reply not sent yet (series/ID/reply.eml of @dir, of a series
 * decided or failed since --sendmail was first given, events without a
 * "mailed" one) to @cmd on its stdin: @cmd split at blanks into argv,
 * never through a shell ("sendmail -t", "msmtp -t"). A reply goes once
 * @cmd exits 0, recorded as the series' "mailed" event; a crash between
 * the two sends it again (at least once, never lost). Returns 0 with
 * *@sent, or -1 with @err naming the series and @cmd's own words (the
 * rest wait for the next pass).
 */
LAB_MUST_CHECK
int watch_send_replies(struct watch_db *w, const char *dir, const char *cmd, time_t now,
		       long *sent, struct strbuf *err);

#endif
