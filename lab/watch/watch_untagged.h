/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Cover letters without "0/n" in their subject ("[PATCH v2] mm: topic"
 * with a diffstat and no diff), recognised as b4 recognises them: by
 * the patches that reply to them.
 */
#ifndef LAB_WATCH_UNTAGGED_H
#define LAB_WATCH_UNTAGGED_H

#include "watch_db.h"

/*
 * Make each mail that a patch not yet filed answers (In-Reply-To), or
 * that filed patches took for their series' root before it came, a cover
 * letter 0/n of that patch's series when it could be one: a "[PATCH ...]"
 * subject without k/n (filed as 1/1), not a reply, no diff but a
 * diffstat, the patch's version, sent from the patch's address. It is
 * then filed as the series' root like any 0/n cover letter. Part of the
 * caller's transaction. The number of mails made covers, or -1 with @err.
 */
LAB_MUST_CHECK
long watch_untagged_covers(struct watch_db *w, struct strbuf *err);

#endif
