// SPDX-License-Identifier: GPL-2.0
/*
 * What the watch keeps on disk, measured, and the least recently used of
 * it removed when over [watch] disk_budget: watch_disk.h. Everything goes
 * in one rename out of its place first (to a ".pruned." name that no
 * build, seed or index looks at), then by unlinkat() (disk_usage.h): a
 * pass stopped halfway leaves no half tree for a build to take, and the
 * next pass removes the leftover first.
 */
#include "watch_disk.h"
#include "watch_series.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk_usage.h"
#include "fsutil.h"
#include "kcache.h"
#include "ksource.h"
#include "lockfile.h"

/* What leftovers of a stopped pass are called: never a name the lab gives. */
#define PRUNED_PREFIX ".pruned."

#define BUSY_SERIES "its series is being measured (building, running or bisecting)"
#define BUSY_BASE "the base-commit of a series being measured"

struct survey {
	const struct lab_config *cfg;
	struct watch_disk *d;
	long *busy;			/* series building, running or bisecting */
	size_t nr_busy, alloc_busy;
	struct strvec busy_trees;	/* the baseline's tree, those of busy series' base-commits */
	const char *cache_pin;		/* why the cache's items stay, or NULL */
};

unsigned long long watch_disk_budget(const struct lab_config *cfg)
{
	return cfg->watch.disk_budget_set ? cfg->watch.disk_budget : WATCH_DISK_BUDGET_DEFAULT;
}

void watch_disk_format(char *buf, size_t len, unsigned long long bytes)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu B", bytes);
	else
		snprintf(buf, len, v < 10 ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static int is_busy(const struct survey *s, long id)
{
	for (size_t i = 0; i < s->nr_busy; i++)
		if (s->busy[i] == id)
			return 1;
	return 0;
}

static int in_strvec(const struct strvec *sv, const char *str)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], str))
			return 1;
	return 0;
}

static struct watch_disk_item *add_item(struct watch_disk *d, enum watch_disk_kind kind,
					char *path, char *label, long series)
{
	struct watch_disk_item *it;
	struct disk_usage du = { 0 };

	ALLOC_GROW(d->v, d->n + 1, d->alloc);
	it = &d->v[d->n++];
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->path = path;
	it->label = label;
	it->series = series;
	/* gone since it was listed: counted as nothing */
	LAB_IGNORE(disk_usage(path, &du));
	it->bytes = du.bytes;
	it->used = du.newest;
	return it;
}

/* The item's companions (measured with it). */
static void add_also(struct watch_disk_item *it, char *path)
{
	struct disk_usage du = { 0 };

	if (disk_usage(path, &du)) {
		free(path);
		return;
	}
	strvec_push(&it->also, path);
	free(path);
	it->bytes += du.bytes;
	if (du.newest > it->used)
		it->used = du.newest;
}

/* A leftover of a pass that was stopped halfway: first to go. */
static void add_leftover(struct survey *s, char *path, const char *pin)
{
	struct watch_disk_item *it = add_item(s->d, WATCH_DISK_TREE, path,
					      xasprintf("leftover %s", path_basename(path)), 0);

	it->used = 0;
	it->pinned = pin;
}

/* The series building, running or bisecting, and the trees of their base-commits. */
static int busy_series(struct watch_db *w, struct survey *s, const struct kernel_cfg *base,
		       struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT id, base_commit FROM series WHERE state IN"
					    " ('building', 'running', 'bisecting')", err);
	int step;

	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *bc = watch_col_text(st, 1);
		size_t len = strspn(bc, "0123456789abcdef");
		char *commit;

		ALLOC_GROW(s->busy, s->nr_busy + 1, s->alloc_busy);
		s->busy[s->nr_busy++] = (long)sqlite3_column_int64(st, 0);
		/* as watch_work.c takes it: a commit's hex name the baseline's git source has */
		if (!base || len < 7 || len > 64 || bc[len] || !(commit = ksource_git_commit(base->source, bc)))
			continue;
		struct ksource src;
		struct strbuf ignored = STRBUF_INIT;

		if (!ksource_identify(s->cfg->cache_dir, base->source, commit, &src, &ignored))
			strvec_push(&s->busy_trees, src.tree);
		ksource_release(&src);
		sb_release(&ignored);
		free(commit);
	}
	if (step != SQLITE_DONE)
		watch_db_error(w, err);
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : -1;
}

/* series/ID/reports of every series; a busy series' stay. */
static void survey_reports(struct survey *s, const char *dir)
{
	char *sdir = xasprintf("%s/series", dir);
	DIR *d = opendir(sdir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *sub = xasprintf("%s/%s", sdir, de->d_name), *rep;
		DIR *in;
		struct dirent *e;
		struct stat st;
		long id;

		if (parse_long(de->d_name, 1, LONG_MAX, &id) || lstat(sub, &st) || !S_ISDIR(st.st_mode)) {
			free(sub);
			continue;
		}
		rep = xasprintf("%s/reports", sub);
		if (!lstat(rep, &st) && S_ISDIR(st.st_mode)) {
			struct watch_disk_item *it = add_item(s->d, WATCH_DISK_REPORTS, rep,
							      xasprintf("series %ld reports", id), id);

			if (is_busy(s, id))
				it->pinned = BUSY_SERIES;
		} else {
			free(rep);
		}
		in = opendir(sub);
		while (in && (e = readdir(in)))
			if (!strncmp(e->d_name, PRUNED_PREFIX, strlen(PRUNED_PREFIX)))
				add_leftover(s, xasprintf("%s/%s", sub, e->d_name), NULL);
		if (in)
			closedir(in);
		free(sub);
	}
	if (d)
		closedir(d);
	free(sdir);
}

/* "watch-12", "watch-12-base", "watch-12@2", "watch-12-base@1": the series' id, else 0. */
static long watch_kernel_series(const char *name)
{
	const char *p;
	size_t n;
	long id;

	if (!name || strncmp(name, "watch-", 6))
		return 0;
	p = name + 6;
	n = strspn(p, "0123456789");
	if (!n || n > 18)
		return 0;
	id = strtol(p, NULL, 10);
	p += n;
	if (!strncmp(p, "-base", 5))
		p += 5;
	if (*p == '@') {
		n = strspn(++p, "0123456789");
		if (!n)
			return 0;
		p += n;
	}
	return *p ? 0 : id;
}

/* Cache entries of series' kernels; the busy series', the held ones stay. */
static void survey_entries(struct survey *s)
{
	char *edir = xasprintf("%s/entries", s->cfg->cache_dir);
	DIR *d = opendir(edir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *path = xasprintf("%s/%s", edir, de->d_name);
		struct strbuf err = STRBUF_INIT;
		struct kcache_meta m;
		struct stat st;
		long id = 0;

		/* the key is the folder's name; what meta.json says names the kernel only */
		if (strlen(de->d_name) == SHA256_HEX_LEN &&
		    strspn(de->d_name, "0123456789abcdef") == SHA256_HEX_LEN &&
		    !lstat(path, &st) && S_ISDIR(st.st_mode) && !kcache_entry_meta(path, &m, &err)) {
			id = watch_kernel_series(m.name);
			if (id) {
				struct watch_disk_item *it = add_item(s->d, WATCH_DISK_ENTRY, path,
					xasprintf("entry %.12s (%s)", de->d_name, m.name), id);

				path = NULL;
				if (s->cache_pin)
					it->pinned = s->cache_pin;
				else if (is_busy(s, id))
					it->pinned = BUSY_SERIES;
				else if (kcache_entry_remove(it->path, 1) == 1)
					it->pinned = "held: a session, bisection or build uses it";
			}
			kcache_meta_release(&m);
		}
		sb_release(&err);
		free(path);
	}
	if (d)
		closedir(d);
	free(edir);
}

/* Whether some build folder of @names is the tree @t's and not the watch's. */
static int has_other_build(const struct strvec *names, const char *t)
{
	size_t tl = strlen(t);

	for (size_t i = 0; i < names->n; i++)
		if (!strncmp(names->v[i], t, tl) && names->v[i][tl] == '-' &&
		    strcmp(names->v[i] + tl + 1, "watch"))
			return 1;
	return 0;
}

static void list_names(const char *dir, struct strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strvec_push(out, de->d_name);
	if (d)
		closedir(d);
}

/*
 * The watch's work trees and build folders: a tree whose one build folder
 * is T-watch is a base-commit's the watch made; the watch's build folder
 * on any other tree (the baseline's, a tree lab.conf's kernels build in
 * too) is counted and stays.
 */
static void survey_trees(struct survey *s)
{
	const char *cache = s->cfg->cache_dir;
	char *tdir = xasprintf("%s/trees", cache), *bdir = xasprintf("%s/build", cache);
	struct strvec trees = STRVEC_INIT, builds = STRVEC_INIT;

	list_names(tdir, &trees);
	list_names(bdir, &builds);
	for (size_t i = 0; i < builds.n; i++)
		if (!strncmp(builds.v[i], PRUNED_PREFIX, strlen(PRUNED_PREFIX)))
			add_leftover(s, xasprintf("%s/%s", bdir, builds.v[i]), s->cache_pin);
	for (size_t i = 0; i < trees.n; i++) {
		const char *t = trees.v[i];
		char *tree = xasprintf("%s/%s", tdir, t), *wb = xasprintf("%s-watch", t);
		char *log = xasprintf("%s/logs/%s-watch.log", cache, t);
		struct watch_disk_item *it;
		struct stat st;

		if (!strncmp(t, PRUNED_PREFIX, strlen(PRUNED_PREFIX))) {
			add_leftover(s, tree, s->cache_pin);
			tree = NULL;
		} else if (lstat(tree, &st) || !S_ISDIR(st.st_mode) || !in_strvec(&builds, wb)) {
			/* (not a tree, or no series built on it) */
		} else if (has_other_build(&builds, t) ||
			   (s->busy_trees.n && !strcmp(s->busy_trees.v[0], tree))) {
			it = add_item(s->d, WATCH_DISK_BUILD, xasprintf("%s/%s", bdir, wb),
				      xasprintf("build folder %s", wb), 0);
			add_also(it, log);
			log = NULL;
			it->pinned = "on the baseline's tree (or one of lab.conf's kernels): series "
				     "build here, incrementally";
		} else {
			it = add_item(s->d, WATCH_DISK_TREE, tree, xasprintf("work tree %s", t), 0);
			tree = NULL;
			add_also(it, xasprintf("%s/%s", bdir, wb));
			add_also(it, xasprintf("%s/trees/%s.objects", cache, t));
			add_also(it, log);
			log = NULL;
			it->pinned = in_strvec(&s->busy_trees, it->path) ? BUSY_BASE : s->cache_pin;
		}
		free(tree);
		free(wb);
		free(log);
	}
	strvec_clear(&trees);
	strvec_clear(&builds);
	free(tdir);
	free(bdir);
}

int watch_disk_survey(struct watch_db *w, const struct lab_config *cfg, const char *dir, int lock,
		      struct watch_disk *d, struct strbuf *err)
{
	const char *bname = cfg->watch.baseline ? cfg->watch.baseline :
			    cfg->run.kernels.n ? cfg->run.kernels.v[0] : NULL;
	const struct kernel_cfg *base = bname ? config_kernel(cfg, bname) : NULL;
	struct survey s = { .cfg = cfg, .d = d, .busy_trees = STRVEC_INIT };
	int r;

	memset(d, 0, sizeof(*d));
	d->build_lock_fd = -1;
	if (lock) {
		char *path = xasprintf("%s/build.lock", cfg->cache_dir);
		char *who = xasprintf("pid %ld (watch: disk budget)\n", (long)getpid());
		struct strbuf held_by = STRBUF_INIT;
		enum lockfile_status ls = is_dir(cfg->cache_dir) ?
			lockfile_take(path, 0, who, &held_by, &d->build_lock_fd) : LOCKFILE_TAKEN;

		if (ls == LOCKFILE_HELD)
			s.cache_pin = "a build or `kernel gc` holds the cache's build.lock";
		else if (ls == LOCKFILE_FAILED)
			s.cache_pin = "the cache's build.lock cannot be taken";
		sb_release(&held_by);
		free(who);
		free(path);
	}
	/* the baseline's tree first (survey_trees() tells it by its place) */
	if (base) {
		struct ksource src;
		struct strbuf ignored = STRBUF_INIT;

		if (!ksource_identify(cfg->cache_dir, base->source, base->ref, &src, &ignored))
			strvec_push(&s.busy_trees, src.tree);
		else
			strvec_push(&s.busy_trees, "");
		ksource_release(&src);
		sb_release(&ignored);
	}
	r = busy_series(w, &s, base, err);
	if (!r) {
		survey_reports(&s, dir);
		survey_entries(&s);
		survey_trees(&s);
		for (size_t i = 0; i < d->n; i++)
			d->total += d->v[i].bytes;
	}
	free(s.busy);
	strvec_clear(&s.busy_trees);
	return r;
}

void watch_disk_release(struct watch_disk *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].path);
		free(d->v[i].label);
		strvec_clear(&d->v[i].also);
	}
	free(d->v);
	if (d->build_lock_fd >= 0)
		close(d->build_lock_fd);
	memset(d, 0, sizeof(*d));
	d->build_lock_fd = -1;
}

static void format_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	if (!t || !gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, len, "never");
}

/* @path out of its place in one rename, then removed: 0, or -1 with errno. */
static int remove_renamed(const char *path)
{
	char *parent = path_dirname(path);
	char *gone = xasprintf("%s/" PRUNED_PREFIX "%s.%ld", parent, path_basename(path),
			       (long)getpid());
	int r = 0;

	if (!strncmp(path_basename(path), PRUNED_PREFIX, strlen(PRUNED_PREFIX)))
		r = disk_remove(path);	/* a leftover already */
	else if (rename(path, gone))
		r = errno == ENOENT ? 0 : -1;
	else
		r = disk_remove(gone);
	free(parent);
	free(gone);
	return r;
}

/* A series' reports: the event first (the queue says so even if the pass stops), then the files. */
static int remove_reports(struct watch_db *w, const struct watch_disk_item *it, const char *why,
			  struct strbuf *err)
{
	char *dir = path_dirname(it->path), *note = xasprintf("%s/" WATCH_PRUNED_FILE, dir);
	char now[40], *text;
	int r;

	format_time(now, sizeof(now), time(NULL));
	text = xasprintf("The reports of this series (its session and any bisection) were removed "
			 "on %s to keep the watch within its disk budget: %s.\nIts verdict, "
			 "reply.eml, summary.json and series.mbox stay.\n", now, why);
	r = watch_series_event(w, it->series, WATCH_EVENT_PRUNED, why, time(NULL), err);

	if (!r && remove_renamed(it->path)) {
		sb_addf(err, "cannot remove %s: %s", it->path, strerror(errno));
		r = -1;
	}
	if (!r && write_file_atomic(note, text, strlen(text)))
		warning("watch: cannot write %s: %s", note, strerror(errno));
	free(dir);
	free(note);
	free(text);
	return r;
}

/* Remove @it: 0, 1 when it is held now (kept), -1 with @err. */
static int remove_item(struct watch_db *w, const struct watch_disk_item *it, const char *why,
		       struct strbuf *err)
{
	int r;

	switch (it->kind) {
	case WATCH_DISK_REPORTS:
		return remove_reports(w, it, why, err);
	case WATCH_DISK_ENTRY:
		r = kcache_entry_remove(it->path, 0);
		if (r < 0)
			sb_addf(err, "cannot remove %s: %s", it->path, strerror(errno));
		return r;
	case WATCH_DISK_TREE:
	case WATCH_DISK_BUILD:
		break;
	}
	/* the tree first: without it the build folder is no one's */
	if (remove_renamed(it->path)) {
		sb_addf(err, "cannot remove %s: %s", it->path, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < it->also.n; i++)
		if (remove_renamed(it->also.v[i])) {
			sb_addf(err, "cannot remove %s: %s", it->also.v[i], strerror(errno));
			return -1;
		}
	return 0;
}

int watch_disk_prune(struct watch_db *w, const struct lab_config *cfg, const char *dir,
		     unsigned long long budget, int dry_run, struct watch_prune_result *res,
		     struct strbuf *err)
{
	struct watch_disk d;
	char tot[32], bud[32];
	size_t *order, n = 0, k;

	memset(res, 0, sizeof(*res));
	/* a dry run removes nothing: it need not wait for a build (nor stop one) */
	if (watch_disk_survey(w, cfg, dir, !dry_run, &d, err))
		return -1;
	for (size_t i = 0; i < d.n; i++)
		n += !d.v[i].pinned;
	order = xcalloc(d.n + 1, sizeof(*order));
	k = budget ? watch_disk_plan(d.v, d.n, d.total, budget, order) : 0;
	res->total = d.total;
	watch_disk_format(tot, sizeof(tot), d.total);
	watch_disk_format(bud, sizeof(bud), budget);
	if (!budget)
		printf("watch: disk: %s in %zu items; no budget ([watch] disk_budget = off)\n", tot,
		       d.n);
	else if (!k)
		printf("watch: disk: %s of %s ([watch] disk_budget) in %zu items: within\n", tot,
		       bud, d.n);
	else
		printf("watch: disk: %s of %s ([watch] disk_budget) in %zu items: over; %s the "
		       "least recently used\n", tot, bud, d.n, dry_run ? "would remove" : "removing");
	/* what stays and why, for whoever asks before anything goes */
	for (size_t i = 0; dry_run && i < d.n; i++) {
		char size[32];

		watch_disk_format(size, sizeof(size), d.v[i].bytes);
		if (d.v[i].pinned)
			printf("watch: disk: keeps %s (%s): %s\n", d.v[i].label, size, d.v[i].pinned);
	}
	for (size_t i = 0; budget && i < n && res->total > budget; i++) {
		const struct watch_disk_item *it = &d.v[order[i]];
		char size[32], used[40], *why;
		struct strbuf e = STRBUF_INIT;
		int r = 0;

		watch_disk_format(size, sizeof(size), it->bytes);
		format_time(used, sizeof(used), it->used);
		why = xasprintf("%s, last changed %s: least recently used, over [watch] disk_budget "
				"%s", size, used, bud);
		if (!dry_run)
			r = remove_item(w, it, why, &e);
		if (r == 1) {
			printf("watch: disk: kept %s: held since the survey\n", it->label);
		} else if (r) {
			warning("watch: disk: %s", sb_str(&e));
			res->failed++;
		} else {
			printf("watch: disk: %s %s (%s)\n", dry_run ? "would remove" : "removed",
			       it->label, why);
			res->removed++;
			res->freed += it->bytes;
			res->total -= it->bytes < res->total ? it->bytes : res->total;
		}
		sb_release(&e);
		free(why);
	}
	if (budget && res->total > budget) {
		watch_disk_format(tot, sizeof(tot), res->total);
		printf("watch: disk: still %s, over %s: the rest is in use or stays (watch prune "
		       "--dry-run lists it)\n", tot, bud);
	}
	if (res->removed) {
		char freed[32];

		watch_disk_format(freed, sizeof(freed), res->freed);
		printf("watch: disk: %s %zu item%s, %s\n", dry_run ? "would remove" : "removed",
		       res->removed, res->removed == 1 ? "" : "s", freed);
	}
	fflush(stdout);
	free(order);
	watch_disk_release(&d);
	return 0;
}
