/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch's disk budget ([watch] disk_budget, docs/watch.md "Disk"):
 * what the watch keeps on disk for the series it measured, and the
 * removal of the least recently used of it when the sum is over the
 * budget. Every series the list posts costs disk; this is what bounds it.
 *
 * What is counted (watch_disk_survey()), each an item:
 *   - a series' reports (<watch>/series/ID/reports: its session, its
 *     bisection's steps); its reply.eml, summary.json and series.mbox stay
 *     whatever happens, with its verdict, note and events in the queue;
 *   - a kernel cache entry a series' kernel was built as (<cache>/entries/
 *     KEY whose meta.json names watch-ID, watch-ID-base or watch-ID@K);
 *   - a work tree the watch made for a series' base-commit (<cache>/trees/T
 *     whose only build folder is the watch's, <cache>/build/T-watch), with
 *     that build folder, its .objects file and its build log;
 *   - the watch's build folder on the baseline's tree, where every series
 *     builds incrementally: counted, never removed.
 *
 * Never removed (the item says why): the baseline's tree and its build
 * folders; anything of a series building, running or bisecting (its
 * reports, its entries, the tree of its base-commit); a cache entry
 * held (kcache.h: a session or bisection of any process uses it); every
 * cache item while another process holds build.lock (a build, `kernel
 * gc`). The kernels of lab.conf and their entries are not the watch's:
 * not counted.
 *
 * Least recently used: by the newest modification time of anything in
 * the item (a session writes its runs, a build its objects, a cache entry
 * is written once), oldest first; on a tie the larger first (fewer
 * removals), then by path.
 */
#ifndef LAB_WATCH_DISK_H
#define LAB_WATCH_DISK_H

#include "config.h"
#include "watch_db.h"

#include <time.h>

/* [watch] disk_budget when lab.conf does not say: see docs/watch.md for why. */
#define WATCH_DISK_BUDGET_DEFAULT (40ULL << 30)

/* The event of a series whose reports were removed (its reason says what and why). */
#define WATCH_EVENT_PRUNED "pruned"
/* The file that says so in the series' folder (the index links it). */
#define WATCH_PRUNED_FILE "pruned.txt"

enum watch_disk_kind {
	WATCH_DISK_REPORTS,		/* series/ID/reports */
	WATCH_DISK_ENTRY,		/* a cache entry of a series' kernel */
	WATCH_DISK_TREE,		/* a base-commit's work tree, its build folder with it */
	WATCH_DISK_BUILD,		/* the watch's build folder on the baseline's tree */
};

struct watch_disk_item {
	enum watch_disk_kind kind;
	char *path;			/* what goes */
	struct strvec also;		/* what goes with it (a tree's build folder, log, .objects) */
	char *label;			/* "series 12 reports", "entry 3fa1... (watch-12)" */
	long series;			/* its series, 0 when none */
	unsigned long long bytes;
	time_t used;			/* last used: the newest change in it */
	const char *pinned;		/* why it stays, NULL when it may go */
};

struct watch_disk {
	struct watch_disk_item *v;
	size_t n, alloc;
	unsigned long long total;	/* of every item, pinned or not */
	int build_lock_fd;		/* build.lock, held while the survey's cache items may go; -1 */
};

/*
 * Pure: the order in which the items of @v that are not pinned go (least
 * recently used first, module comment), into @order (room for @n), and
 * how many of that order must go for @total to come to @budget or under.
 * All of them when that is not enough; 0 when @total is within @budget.
 */
size_t watch_disk_plan(const struct watch_disk_item *v, size_t n, unsigned long long total,
		       unsigned long long budget, size_t *order);

/*
 * Measure what the watch in @dir keeps, for the lab @cfg, into @d (released
 * with watch_disk_release()). With @lock, it tries build.lock without
 * waiting and keeps it in @d: held elsewhere, the cache's items are pinned.
 * 0, or -1 with @err (the queue cannot be read).
 */
LAB_MUST_CHECK
int watch_disk_survey(struct watch_db *w, const struct lab_config *cfg, const char *dir, int lock,
		      struct watch_disk *d, struct strbuf *err);
void watch_disk_release(struct watch_disk *d);

struct watch_prune_result {
	size_t removed;			/* items */
	unsigned long long freed;	/* bytes */
	unsigned long long total;	/* after */
	size_t failed;			/* items that could not go (said) */
};

/*
 * One pass: survey, then remove least recently used items until the sum
 * is within @budget (0: no budget, nothing goes), each said on stdout with
 * its size, its age and why; with @dry_run only said ("would remove").
 * A series' reports go with an event WATCH_EVENT_PRUNED and the file
 * WATCH_PRUNED_FILE in its folder. 0, or -1 with @err (the queue).
 */
LAB_MUST_CHECK
int watch_disk_prune(struct watch_db *w, const struct lab_config *cfg, const char *dir,
		     unsigned long long budget, int dry_run, struct watch_prune_result *res,
		     struct strbuf *err);

/* [watch] disk_budget, or its default; 0: off. */
unsigned long long watch_disk_budget(const struct lab_config *cfg);
/* "1.5 GiB", "340 MiB", "12 KiB", "0 B" into @buf. */
void watch_disk_format(char *buf, size_t len, unsigned long long bytes);

#endif
