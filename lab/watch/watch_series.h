/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Series from the filed mails, as b4 assembles them: a cover letter
 * "[PATCH vN 0/n]" and its "[PATCH vN k/n]" replies (In-Reply-To, or the
 * chain of them with deep threading); without a cover, patch 1/n is the
 * root; a lone "[PATCH]" is a series of one. A series is complete when
 * patches 1..n are all filed. Its states:
 *
 *   incomplete  waiting for patches (up to [watch] grace after its first mail)
 *   queued      complete, touches a path of interest: to be measured
 *   building, running, decided, failed   the measurement (a session)
 *   skipped     never measured, with the reason: incomplete past the grace,
 *               superseded by a complete vN+1, no path of interest, too many
 *               patches, a resend of a series already filed, ambiguous (two
 *               different mails claim one of its patches)
 */
#ifndef LAB_WATCH_SERIES_H
#define LAB_WATCH_SERIES_H

#include "watch_db.h"

#include <time.h>

struct watch_rules {
	const char *const *paths;	/* patterns (watch_path_matches()) */
	size_t npaths;
	double grace_s;
	long max_patches;
	/*
	 * 0: the series on the list before the watch's first assembly are
	 * skipped as history (a watch pointed at lore's archive would
	 * otherwise queue years of it); 1: they are measured.
	 */
	int history_measure;
};

#define WATCH_GRACE_DEFAULT_S	(2 * 86400.0)
#define WATCH_MAX_PATCHES_DEFAULT 100
/* [watch] paths when lab.conf gives none */
#define WATCH_PATHS_DEFAULT	"mm/ include/linux/mm*.h include/linux/swap*.h " \
				"include/linux/memcontrol.h include/linux/huge_mm.h " \
				"include/linux/rmap.h include/linux/page*.h"

struct watch_assembly {
	long filed;		/* patches put into a series */
	long strays;		/* patch mails that are no series' (duplicates, mismatched) */
	long changed;		/* series whose state changed */
	long history;		/* of them, skipped as before the watch began */
};

/*
 * File the patch mails not yet in a series, then move each incomplete or
 * queued series to its state under @rules at time @now. One transaction:
 * 0, or -1 with the message in @err and nothing changed.
 */
LAB_MUST_CHECK
int watch_assemble(struct watch_db *w, const struct watch_rules *rules, time_t now,
		   struct watch_assembly *out, struct strbuf *err);

/*
 * Move series @id to @state with @reason (NULL: none), recorded in its
 * events; nothing when it is in @state already. 0, or -1 with @err.
 */
LAB_MUST_CHECK
int watch_series_set_state(struct watch_db *w, long id, const char *state, const char *reason,
			   time_t now, struct strbuf *err);

/* Record event @state (not a state: "mailed") of series @id with @reason. 0, or -1 with @err. */
LAB_MUST_CHECK
int watch_series_event(struct watch_db *w, long id, const char *state, const char *reason,
		       time_t now, struct strbuf *err);

/* Whether series @id has an event @state (a database that cannot say: no). */
int watch_series_has_event(struct watch_db *w, long id, const char *state);
/*
 * Record that the lab failed series @id (a session that could not be
 * held: a host, libvirt, the disk), as an event "lab-failure" with
 * @reason; its state does not change. The number of such events the
 * series has now (1, 2, ...), or -1 with @err.
 */
LAB_MUST_CHECK
long watch_series_lab_failure(struct watch_db *w, long id, const char *reason, time_t now,
			      struct strbuf *err);

/*
 * The id of the series `watch run` works on next: one left building,
 * running or bisecting (a crash, a signal) first, else a queued one,
 * round-robin between senders (by address), each sender's oldest first.
 * 0 when there is none, -1 with @err.
 */
LAB_MUST_CHECK
long watch_series_next(struct watch_db *w, struct strbuf *err);

/*
 * The mails of series @x (an SQL expression: "?1", "s.id") as a condition
 * on table messages: its own, and for a partial reroll (watch_reroll.h)
 * those of the series it rerolls whose k it has none of, and so on down
 * a chain of rerolls (v4 of one patch of a v3 that took v2's others), at
 * most 8 deep: for each k the newest version's mail. Every place that
 * reads a series' patches (complete?, paths, mbox, status) uses it.
 */
#define WATCH_SERIES_MAILS(x) \
	"id IN (WITH RECURSIVE chain(sid, d) AS (SELECT " x ", 0" \
	" UNION ALL SELECT s.reroll_of, chain.d + 1 FROM series s JOIN chain ON s.id = chain.sid" \
	" WHERE s.reroll_of IS NOT NULL AND chain.d < 8)" \
	" SELECT m.id FROM chain JOIN messages m ON m.series_id = chain.sid" \
	" WHERE NOT EXISTS (SELECT 1 FROM chain c2 JOIN messages m2 ON m2.series_id = c2.sid" \
	" WHERE m2.k = m.k AND c2.d < chain.d))"

/*
 * Series @id's mails as git am reads them (watch_msg_for_am()): its cover
 * letter, then patches 1..n in order, appended to @mbox: what
 * series/ID/series.mbox holds and `watch status --mbox ID` prints. 0, or
 * -1 with @err.
 */
LAB_MUST_CHECK
int watch_series_mbox(struct watch_db *w, long id, struct strbuf *mbox, struct strbuf *err);

/*
 * Series @id's mails in the order of watch_series_mbox(), as pairs pushed
 * onto @out: k ("0" the cover letter), then the Message-ID. 0, or -1 with
 * @err.
 */
LAB_MUST_CHECK
int watch_series_mails(struct watch_db *w, long id, struct strvec *out, struct strbuf *err);

/* "Name <a@b>" -> "a@b", lower-cased: one author however the name is spelt. */
char *watch_author_key(const char *from);

/* "mm: foo  bar" -> "mm: foo bar" lower-cased: how versions of a series are matched. */
char *watch_title_key(const char *title);

#endif
