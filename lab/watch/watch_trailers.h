/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The review trailers a series received: "Reviewed-by:", "Acked-by:",
 * "Tested-by:" lines of the replies to its patches or cover letter (or
 * to a reply to them, up to WATCH_TRAILER_DEPTH deep), as b4 attaches
 * them to the patches. Shown per series by `watch status` and on
 * index.html, with the patches each covers.
 */
#ifndef LAB_WATCH_TRAILERS_H
#define LAB_WATCH_TRAILERS_H

#include "watch_db.h"

/* How far down a thread a reply's trailers still count, and how many are kept. */
#define WATCH_TRAILER_DEPTH	8
#define WATCH_TRAILERS_MAX	50

/*
 * Series @id's review trailers into @out as pairs: the trailer line as
 * written (scrubbed UTF-8, at most 400 bytes: watch_msg.c), then the k of
 * the mails it answers, comma-separated ("0" is the cover letter: the
 * whole series), in order. Only a trailer whose address is the reply's
 * sender's counts (b4's rule without -S: anyone may write any name into a
 * reply; quoted trailers were never kept). At most WATCH_TRAILERS_MAX,
 * in the order of the patches. 0, or -1 with @err.
 */
LAB_MUST_CHECK
int watch_series_trailers(struct watch_db *w, long id, struct strvec *out, struct strbuf *err);

/* "patches 1, 3" / "patch 2" / "the cover letter (the whole series)" for a k list of @out. */
void watch_trailer_scope(struct strbuf *sb, const char *ks);

#endif
