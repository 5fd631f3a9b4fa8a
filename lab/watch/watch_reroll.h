/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Partial rerolls, as b4 rebuilds them: "[PATCH v3 2/2]" sent in reply to
 * v2's patch 2/2 replaces that patch only; the v3 series is v2's cover
 * letter and patches it does not replace, with v3's own. Such a series
 * keeps the series it rerolls in series.reroll_of, and WATCH_SERIES_MAILS
 * (watch_series.h) takes the borrowed mails in.
 */
#ifndef LAB_WATCH_REROLL_H
#define LAB_WATCH_REROLL_H

#include "watch_db.h"

#include <time.h>

/*
 * Whether patch @k/@n of version @version, Message-ID @msgid, from @from,
 * replying to @in_reply_to, rerolls an older version's patch: its parent
 * is a filed patch with the same k and n, an older version, the same
 * address, in a series. Then 1, with the series rerolled in @older (that
 * one, or the newest reroll of it older than @version) and the
 * root of the newer version's series in @root (the one already made by
 * another of its patches, else @msgid itself); 0 when not; -1 with @err.
 */
LAB_MUST_CHECK
int watch_reroll_root(struct watch_db *w, const char *msgid, const char *in_reply_to,
		      int version, int k, int n, const char *from, long *older, char **root,
		      struct strbuf *err);

/*
 * Series @s rerolls series @older: record it (reroll_of, @older's title,
 * an event "reroll" that says which), once. 0, or -1 with @err.
 */
LAB_MUST_CHECK
int watch_reroll_mark(struct watch_db *w, long s, long older, time_t now, struct strbuf *err);

#endif
