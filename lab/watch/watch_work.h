/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Measuring a queued series: its patches as an mbox (series/ID/series.mbox,
 * from the mails as filed), its kernel built on the baseline ("watch-ID",
 * every series in the one build folder "watch", so each build is
 * incremental; on the baseline at the series' base-commit, "watch-ID-base",
 * when the baseline is a git source that has it), then a decisive session
 * (`--until decided`, [watch] budget) of that base against it in
 * series/ID/reports, its summary
 * (summary.json) and its reply mail (reply.eml). A series that does not
 * apply or does not build gets a reply saying so, naming the patch and the
 * hunk. States: queued -> building -> running -> decided, or failed; a
 * series of several patches whose session found a primary regression goes
 * running -> bisecting -> decided ([watch] bisect): `mglrulab bisect` in
 * series/ID/reports with the session as its confirm step, the culprit in
 * the series' note and in the reply.
 *
 * Crash-safe by construction: a state is entered (committed) before its
 * work starts, so a kill -9 leaves the series in building or running; the
 * next `watch run` takes such a series first and does its step again (a
 * build from where the cache and the build folder are, a session resumed
 * from its runs on disk, a bisection resumed). A signal (SIGINT, SIGTERM) stops the step the
 * same way, state left as it was.
 */
#ifndef LAB_WATCH_WORK_H
#define LAB_WATCH_WORK_H

#include "config.h"
#include "watch_db.h"

struct watch_work_opts {
	const char *config;		/* lab.conf: sessions read it again */
	const char *dir;		/* the watch's folder */
	const struct lab_config *cfg;
};

#define WATCH_BUDGET_DEFAULT_S	(20 * 60.0)
/* sessions of one series that may fail as a whole before it is failed (watch_work.c) */
#define WATCH_LAB_ATTEMPTS	3

/*
 * Work on the next series: one left in building or running first, else
 * the oldest queued. Returns 1 when a series was worked on (whatever its
 * end), 0 when there was none, or a LAB_E* status (negated) when the lab
 * could not go on (a database error, a lab failure, a signal): then the
 * series stays in its state for the next run.
 */
int watch_work_next(struct watch_db *w, const struct watch_work_opts *o);

#endif
