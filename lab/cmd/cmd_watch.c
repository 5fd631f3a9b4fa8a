// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab watch: a list archive's series into a durable queue
 * (docs/watch.md). `scan` reads what is new and assembles series; `status`
 * lists the queue. Every string shown came from the list: filtered.
 */
#include "cmd.h"
#include "config.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "lockfile.h"
#include "subreaper.h"
#include "watch_archive.h"
#include "watch_db.h"
#include "watch_disk.h"
#include "watch_index.h"
#include "watch_send.h"
#include "watch_trailers.h"
#include "watch_series.h"
#include "watch_work.h"
#include "xjson.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct watch_opts {
	const char *config;
	const char *archive;
	const char *state;
	const char *sendmail;
	int json;
	int once;
	long mbox;	/* (status) print this series' mbox */
	int dry_run;
};

static const struct lab_option watch_options[] = {
	CMD_OPT_CONFIG(struct watch_opts, config),
	LAB_OPT_STRING("archive", 0, struct watch_opts, archive, "DIR",
		       "(scan) the archive: a maildir or a public-inbox v2\n"
		       "folder (default: [watch] archive)"),
	LAB_OPT_STRING("state", 0, struct watch_opts, state, "DIR",
		       "the watch's folder, with its queue " WATCH_DB_FILE "\n"
		       "(default: [lab] state_dir/watch)"),
	LAB_OPT_BOOL("json", 0, struct watch_opts, json, "(status) the queue as JSON"),
	LAB_OPT_LONG("mbox", 0, struct watch_opts, mbox, 1, LONG_MAX, "ID",
		     "(status) print series ID's mails as git am reads\n"
		     "them (its series.mbox), nothing else"),
	LAB_OPT_BOOL("once", 0, struct watch_opts, once,
		     "(run) one scan, then every series queued, then exit"),
	LAB_OPT_BOOL("dry-run", 0, struct watch_opts, dry_run,
		     "(prune) only say what would be removed"),
	LAB_OPT_STRING("sendmail", 0, struct watch_opts, sendmail, "CMD",
		       "(run) hand each new reply to CMD on its stdin\n"
		       "(\"sendmail -t\"; split at blanks, no shell)"),
	LAB_OPT_END
};

static const char *const watch_synopsis[] = {
	"mglrulab watch scan   [-c FILE] [--archive DIR] [--state DIR]",
	"mglrulab watch run    [-c FILE] [--archive DIR] [--state DIR] [--once]\n"
	"                             [--sendmail CMD]",
	"mglrulab watch status [-c FILE] [--state DIR] [--json | --mbox ID]",
	"mglrulab watch prune  [-c FILE] [--state DIR] [--dry-run]",
	NULL
};

const struct lab_usage watch_usage = {
	.synopsis = watch_synopsis,
	.description =
		"scan    Read the mails of the archive the queue has not seen (a maildir's\n"
		"        new/ and cur/, or a public-inbox v2 folder's git/N.git epochs), file\n"
		"        them, and assemble series: a cover letter and its [PATCH vN k/n]\n"
		"        replies, complete when all n are in. A complete series that touches\n"
		"        [watch] paths is queued; others are skipped with the reason\n"
		"        (superseded by vN+1, incomplete after [watch] grace, no path of\n"
		"        interest, more than [watch] max_patches, on the list before the watch\n"
		"        began: [watch] history). Safe to kill at any point.\n"
		"run     Scan, then measure each queued series: its kernel built on [watch]\n"
		"        baseline (default: [run] kernels' first), a decisive session of the\n"
		"        baseline against it within [watch] budget, its reply mail\n"
		"        (series/ID/reply.eml, ready to send) and the index page (index.html).\n"
		"        A series that does not apply or build gets a reply that says so.\n"
		"        --sendmail CMD hands each reply to CMD once (replies of series that\n"
		"        ended before --sendmail was first given are not sent).\n"
		"        Then scan again every [watch] interval (default 5m), until SIGINT or\n"
		"        SIGTERM; with --once, exit when the queue is empty. Killed at any\n"
		"        point (even kill -9), the next run goes on where it was.\n"
		"status  List every series with its state and reason, and the disk the\n"
		"        watch's series take against [watch] disk_budget.\n"
		"prune   What run does at the start of each pass and after each series:\n"
		"        when the series' reports, kernels and base-commit trees take more\n"
		"        than [watch] disk_budget (default 40G), remove the least recently\n"
		"        used until they fit; never the baseline's, a series' being\n"
		"        measured, or what another process holds. --dry-run: only say.\n",
	.options = watch_options,
};

static char *state_dir(const struct lab_config *cfg, const struct watch_opts *o)
{
	return o->state ? xstrdup(o->state) : xasprintf("%s/watch", cfg->state_dir);
}

static int open_queue(const struct lab_config *cfg, const struct watch_opts *o,
		      struct watch_db *w)
{
	struct strbuf err = STRBUF_INIT;
	char *dir = state_dir(cfg, o), *path = xasprintf("%s/%s", dir, WATCH_DB_FILE);
	int r = 0;

	if (mkdir_p(dir, 0755))
		r = lab_error("watch: cannot create %s: %s", dir, strerror(errno));
	else if (watch_db_open(path, w, &err))
		r = lab_error("watch: %s", sb_str(&err));
	sb_release(&err);
	free(dir);
	free(path);
	return r;
}

/* Read the archive and assemble: a status. */
static int scan(const struct lab_config *cfg, const struct watch_opts *o, struct watch_db *w)
{
	const char *archive = o->archive ? o->archive : cfg->watch.archive;
	struct strvec defaults = STRVEC_INIT;
	struct watch_scan_stats stats = { 0 };
	struct watch_assembly as;
	struct strbuf err = STRBUF_INIT;
	time_t now = time(NULL);
	int r;

	if (!archive)
		return user_error("watch: no archive: give --archive DIR or [watch] archive "
				  "in %s", cfg->path);
	char *copy = xstrdup(WATCH_PATHS_DEFAULT);
	for (char *tok = strtok(copy, " "); tok; tok = strtok(NULL, " "))
		strvec_push(&defaults, tok);
	free(copy);
	const struct strvec *paths = cfg->watch.paths.n ? &cfg->watch.paths : &defaults;
	struct watch_rules rules = {
		.paths = (const char *const *)paths->v, .npaths = paths->n,
		.grace_s = cfg->watch.grace_s > 0 ? cfg->watch.grace_s : WATCH_GRACE_DEFAULT_S,
		.max_patches = cfg->watch.max_patches > 0 ? cfg->watch.max_patches :
			       WATCH_MAX_PATCHES_DEFAULT,
		.history_measure = cfg->watch.history == WATCH_HISTORY_MEASURE,
	};
	r = watch_archive_scan(w, archive, rules.max_patches, now, &stats, &err);
	if (!r)
		r = watch_assemble(w, &rules, now, &as, &err);
	if (r) {
		r = lab_error("watch: %s", sb_str(&err));
	} else {
		printf("watch: %ld mail%s filed, %ld seen before, %ld refused; %ld patch%s put in "
		       "series, %ld not a series' own; %ld series changed state\n",
		       stats.read, stats.read == 1 ? "" : "s", stats.duplicates, stats.rejected,
		       as.filed, as.filed == 1 ? "" : "es", as.strays, as.changed);
		fflush(stdout);
		if (as.history)
			info("watch: the first scan: %ld series on the list before the watch began "
			     "skipped as history ([watch] history = measure measures them)",
			     as.history);
		if (stats.deferred)
			info("watch: %ld mail%s of %s could not be read now (moved since the "
			     "listing, or an I/O error): the next scan reads %s", stats.deferred,
			     stats.deferred == 1 ? "" : "s", archive,
			     stats.deferred == 1 ? "it" : "them");
	}
	strvec_clear(&defaults);
	sb_release(&err);
	return r;
}

static int watch_scan(const struct lab_config *cfg, const struct watch_opts *o)
{
	struct watch_db w;
	int r;

	if (open_queue(cfg, o, &w))
		return LAB_ELAB;
	r = scan(cfg, o, &w);
	watch_db_close(&w);
	return r;
}

static int write_index(struct watch_db *w, const char *dir)
{
	struct strbuf err = STRBUF_INIT;
	int r = watch_index_write(w, dir, &err) ? lab_error("watch: %s", sb_str(&err)) : 0;

	sb_release(&err);
	return r;
}

/* Sleep @s seconds, or until a signal: whether one came. */
static int nap(double s)
{
	for (double t = 0; t < s && !interrupted(); t += 1)
		sleep(1);
	return interrupted();
}

/* --sendmail: the replies not sent yet; 0, or 1 when some could not be (said). */
static int send_replies(struct watch_db *w, const char *dir, const struct watch_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	long sent = 0;
	int r = 0;

	if (!o->sendmail)
		return 0;
	if (watch_send_replies(w, dir, o->sendmail, time(NULL), &sent, &err)) {
		lab_error("watch: a reply was not sent (the next pass tries again): %s",
			  sb_str(&err));
		r = 1;
	}
	if (sent)
		info("watch: %ld repl%s handed to %s", sent, sent == 1 ? "y" : "ies", o->sendmail);
	sb_release(&err);
	return r;
}

/*
 * The disk budget's pass (watch_disk.h): 0, or LAB_ELAB when the queue
 * could not be read (said). What could not be removed is said, and
 * counted in *@failed (NULL: not wanted): `watch run` goes on, `watch
 * prune` exits 2.
 */
static int prune(struct watch_db *w, const struct lab_config *cfg, const char *dir, int dry_run,
		 size_t *failed)
{
	struct strbuf err = STRBUF_INIT;
	struct watch_prune_result res;
	int r = 0;

	if (watch_disk_prune(w, cfg, dir, watch_disk_budget(cfg), dry_run, &res, &err))
		r = lab_error("watch: disk: %s", sb_str(&err));
	else if (failed)
		*failed = res.failed;
	sb_release(&err);
	return r;
}

static int watch_run(const struct lab_config *cfg, const struct watch_opts *o)
{
	char *dir = state_dir(cfg, o);
	struct watch_work_opts wo = { .config = cmd_config_path(o->config), .dir = dir, .cfg = cfg };
	double interval = cfg->watch.interval_s > 0 ? cfg->watch.interval_s : 300;
	char *lock = xasprintf("%s/watch.lock", dir), *who = xasprintf("pid %ld\n", (long)getpid());
	struct strbuf held_by = STRBUF_INIT;
	struct watch_db w;
	int r, lock_fd = -1, unsent = 0;
	enum lockfile_status ls;

	if (mkdir_p(dir, 0755))
		r = lab_error("watch: cannot create %s: %s", dir, strerror(errno));
	/* one watch per queue: a cron pass while the last one still measures goes away */
	else if ((ls = lockfile_take(lock, 0, who, &held_by, &lock_fd)) == LOCKFILE_HELD)
		r = user_error("watch: another watch works on %s (%s); nothing to do",
			       dir, sb_str(&held_by));
	else if (ls == LOCKFILE_FAILED)
		r = lab_error("watch: cannot lock %s: %s", lock, strerror(errno));
	else if (interrupt_catch())
		r = lab_error("cannot set up signal handling: %s", strerror(errno));
	else
		r = 0;
	free(lock);
	free(who);
	sb_release(&held_by);
	if (r) {
		if (lock_fd >= 0)
			close(lock_fd);
		free(dir);
		return r;
	}
	/* the embedded driver's QEMU and a stopped build's orphans are ours to reap */
	if (subreaper_enable())
		debug("cannot become a subreaper: %s", strerror(errno));
	if (open_queue(cfg, o, &w)) {
		close(lock_fd);
		free(dir);
		return LAB_ELAB;
	}
	for (;;) {
		r = scan(cfg, o, &w);
		/* a crash may have left replies unsent: those first */
		unsent = !r && send_replies(&w, dir, o);
		if (!r && watch_disk_budget(cfg))
			r = prune(&w, cfg, dir, 0, NULL);
		while (!r && !interrupted() && (r = watch_work_next(&w, &wo)) == 1) {
			unsent = send_replies(&w, dir, o);
			/* before the index: it shows which series' reports went */
			r = watch_disk_budget(cfg) ? prune(&w, cfg, dir, 0, NULL) : 0;
			r = write_index(&w, dir) || r;
		}
		r = r < 0 ? -r : r;
		if (!r)
			r = write_index(&w, dir);
		if (r || o->once || nap(interval))
			break;
	}
	if (!r && (interrupted() || unsent))
		r = LAB_ELAB;
	watch_db_close(&w);
	close(lock_fd);
	free(dir);
	return r;
}

/* Its mails, cover letter first: [{"k": 0, "message_id": "..."}, ...]. */
static json_t *mails_json(struct watch_db *w, long id, struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;
	json_t *a = json_array();

	if (watch_series_mails(w, id, &v, err)) {
		json_decref(a);
		a = NULL;
	}
	for (size_t i = 0; a && i + 1 < v.n; i += 2) {
		json_t *m = json_object();

		json_object_set_new(m, "k", json_integer(strtol(v.v[i], NULL, 10)));
		json_object_set_new(m, "message_id", json_string(v.v[i + 1]));
		json_array_append_new(a, m);
	}
	strvec_clear(&v);
	return a;
}

/* Its review trailers: [{"trailer": "Reviewed-by: ...", "patches": [1, 2]}, ...] (0: the cover). */
static json_t *trailers_json(struct watch_db *w, long id, struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;
	json_t *a = json_array();

	if (watch_series_trailers(w, id, &v, err)) {
		json_decref(a);
		a = NULL;
	}
	for (size_t i = 0; a && i + 1 < v.n; i += 2) {
		json_t *t = json_object(), *ks = json_array();

		for (const char *p = v.v[i + 1]; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
			json_array_append_new(ks, json_integer(strtol(p, NULL, 10)));
		json_object_set_new(t, "trailer", json_string(v.v[i]));
		json_object_set_new(t, "patches", ks);
		json_array_append_new(a, t);
	}
	strvec_clear(&v);
	return a;
}

/* Under a series' line: each review trailer and what it covers, filtered for the terminal. */
static int trailer_lines(struct watch_db *w, long id, struct strbuf *err)
{
	struct strvec v = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;

	if (watch_series_trailers(w, id, &v, err))
		return -1;
	for (size_t i = 0; i + 1 < v.n; i += 2) {
		sb_adds(&sb, "       ");
		sb_add_text_safe(&sb, v.v[i]);
		sb_adds(&sb, " (");
		watch_trailer_scope(&sb, v.v[i + 1]);
		sb_adds(&sb, ")\n");
	}
	fputs(sb_str(&sb), stdout);
	sb_release(&sb);
	strvec_clear(&v);
	return 0;
}

/* When each series' reports were pruned (watch_disk.h): by id, ascending. */
struct pruned_at {
	long *id;
	time_t *at;
	size_t n, alloc;
};

static int pruned_load(struct watch_db *w, struct pruned_at *p, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT series_id, MAX(at) FROM events WHERE state = '"
					    WATCH_EVENT_PRUNED "' GROUP BY series_id ORDER BY series_id",
					    err);
	size_t alloc_at = 0;
	int step;

	memset(p, 0, sizeof(*p));
	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ALLOC_GROW(p->id, p->n + 1, p->alloc);
		ALLOC_GROW(p->at, p->n + 1, alloc_at);
		p->id[p->n] = (long)sqlite3_column_int64(st, 0);
		p->at[p->n++] = (time_t)sqlite3_column_int64(st, 1);
	}
	if (step != SQLITE_DONE)
		watch_db_error(w, err);
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : -1;
}

/* "2026-12-06T10:00:00Z" of series @id's pruning into @buf, or 0 when never. */
static int pruned_when(const struct pruned_at *p, long id, char *buf, size_t len)
{
	size_t lo = 0, hi = p->n;
	struct tm tm;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->id[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == p->n || p->id[lo] != id || !gmtime_r(&p->at[lo], &tm))
		return 0;
	return strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0;
}

static json_t *series_json(sqlite3_stmt *st, const struct pruned_at *p)
{
	json_t *j = json_object();
	char when[32];

	json_object_set_new(j, "id", json_integer(sqlite3_column_int64(st, 0)));
	json_object_set_new(j, "state", json_string(watch_col_text(st, 1)));
	json_object_set_new(j, "version", json_integer(sqlite3_column_int(st, 2)));
	json_object_set_new(j, "patches", json_integer(sqlite3_column_int(st, 3)));
	json_object_set_new(j, "filed", json_integer(sqlite3_column_int(st, 4)));
	json_object_set_new(j, "title", json_string(watch_col_text(st, 5)));
	json_object_set_new(j, "author", json_string(watch_col_text(st, 6)));
	json_object_set_new(j, "root", json_string(watch_col_text(st, 7)));
	if (sqlite3_column_type(st, 8) != SQLITE_NULL)
		json_object_set_new(j, "reason", json_string(watch_col_text(st, 8)));
	if (sqlite3_column_type(st, 9) != SQLITE_NULL)
		json_object_set_new(j, "base_commit", json_string(watch_col_text(st, 9)));
	json_object_set_new(j, "rfc", json_boolean(sqlite3_column_int(st, 10)));
	if (sqlite3_column_type(st, 11) != SQLITE_NULL)
		json_object_set_new(j, "verdict", json_string(watch_col_text(st, 11)));
	if (sqlite3_column_type(st, 12) != SQLITE_NULL)
		json_object_set_new(j, "note", json_string(watch_col_text(st, 12)));
	if (sqlite3_column_type(st, 13) != SQLITE_NULL)	/* a partial reroll of that series */
		json_object_set_new(j, "reroll_of", json_integer(sqlite3_column_int64(st, 13)));
	/* its reports removed for the disk budget: the verdict and the reply stay */
	if (pruned_when(p, (long)sqlite3_column_int64(st, 0), when, sizeof(when)))
		json_object_set_new(j, "pruned", json_string(when));
	return j;
}

static void series_line(sqlite3_stmt *st, const struct pruned_at *pa)
{
	char when[32];

	struct strbuf sb = STRBUF_INIT;

	sb_addf(&sb, "%4lld %-10s v%-2d %3d/%-3d ", (long long)sqlite3_column_int64(st, 0),
		watch_col_text(st, 1), sqlite3_column_int(st, 2), sqlite3_column_int(st, 4),
		sqlite3_column_int(st, 3));
	sb_add_text_safe(&sb, watch_col_text(st, 5));
	/*
	 * the verdict and the bisection's culprit, or the reason (git's
	 * words, several lines), under the title
	 */
	char *said = sqlite3_column_type(st, 11) == SQLITE_NULL ? xstrdup(watch_col_text(st, 8)) :
		     xasprintf("%s\n%s", watch_col_text(st, 11), watch_col_text(st, 12));

	for (const char *p = said; *p;) {
		size_t len = strcspn(p, "\n");
		char *l = xstrndup(p, len);

		if (len) {
			sb_adds(&sb, "\n       ");
			sb_add_text_safe(&sb, l);
		}
		free(l);
		p += len + (p[len] == '\n');
	}
	free(said);
	if (pruned_when(pa, (long)sqlite3_column_int64(st, 0), when, sizeof(when)))
		sb_addf(&sb, "\n       reports pruned %s (disk budget): verdict and reply kept",
			when);
	printf("%s\n", sb.buf);
	sb_release(&sb);
}

/* `status --mbox ID`: what the series hands git am, for a look or a test (tests/integration/94). */
static int print_mbox(struct watch_db *w, long id)
{
	struct strbuf err = STRBUF_INIT, mbox = STRBUF_INIT;
	int r = 0;

	/* raw list mail (escape sequences and all) is for a file or a pipe, not a terminal */
	if (isatty(STDOUT_FILENO))
		return user_error("watch status --mbox: prints list mail as it came; redirect "
				  "it to a file or a pipe");
	if (watch_series_mbox(w, id, &mbox, &err))
		r = lab_error("watch status: %s", sb_str(&err));
	else if (!mbox.len)
		r = user_error("watch status: no series %ld with mails", id);
	else if (fwrite(mbox.buf, 1, mbox.len, stdout) != mbox.len || fflush(stdout))
		r = lab_error("watch status: cannot write the mbox: %s", strerror(errno));
	sb_release(&mbox);
	sb_release(&err);
	return r;
}

/* The disk the watch's series take against the budget, as status shows it. */
static json_t *disk_json(const struct watch_disk *d, unsigned long long budget)
{
	unsigned long long pinned = 0;

	for (size_t i = 0; i < d->n; i++)
		pinned += d->v[i].pinned ? d->v[i].bytes : 0;
	return xjson_pack("{s:I, s:I, s:I, s:I, s:b}", "bytes", (json_int_t)d->total,
			  "budget", (json_int_t)budget, "items", (json_int_t)d->n,
			  "pinned_bytes", (json_int_t)pinned, "over", budget && d->total > budget);
}

static void disk_line(const struct watch_disk *d, unsigned long long budget)
{
	char tot[32], bud[32];

	watch_disk_format(tot, sizeof(tot), d->total);
	watch_disk_format(bud, sizeof(bud), budget);
	if (budget)
		printf("disk: %s of %s ([watch] disk_budget) in %zu items%s\n", tot, bud, d->n,
		       d->total > budget ? ": over, the next pass of `watch run` (or `watch prune`) "
		       "removes the least recently used" : "");
	else
		printf("disk: %s in %zu items; no budget ([watch] disk_budget = off)\n", tot, d->n);
}

/* One series of `watch status`: appended to @all (--json) or printed with its trailers. */
static int status_row(struct watch_db *w, sqlite3_stmt *st, const struct pruned_at *pa,
		      json_t *all, struct strbuf *err)
{
	long id = (long)sqlite3_column_int64(st, 0);
	json_t *s, *m, *t;

	if (!all) {
		series_line(st, pa);
		return trailer_lines(w, id, err);
	}
	s = series_json(st, pa);
	m = mails_json(w, id, err);
	t = m ? trailers_json(w, id, err) : NULL;
	if (!t) {
		json_decref(m);
		json_decref(s);
		return -1;
	}
	json_object_set_new(s, "mails", m);
	json_object_set_new(s, "trailers", t);
	json_array_append_new(all, s);
	return 0;
}

static int watch_status(const struct lab_config *cfg, const struct watch_opts *o)
{
	struct strbuf err = STRBUF_INIT;
	struct pruned_at pa = { 0 };
	struct watch_disk disk = { .build_lock_fd = -1 };
	struct watch_db w;
	sqlite3_stmt *st = NULL;
	json_t *all = json_array();
	char *dir = state_dir(cfg, o);
	int r = 0, step;

	if (open_queue(cfg, o, &w)) {
		json_decref(all);
		free(dir);
		return LAB_ELAB;
	}
	if (o->mbox) {
		r = print_mbox(&w, o->mbox);
		goto out;
	}
	/* measured without build.lock: status removes nothing */
	if (pruned_load(&w, &pa, &err) || watch_disk_survey(&w, cfg, dir, 0, &disk, &err)) {
		r = lab_error("watch status: %s", sb_str(&err));
		goto out;
	}
	st = watch_db_prepare(&w, "SELECT s.id, s.state, s.version, s.n,"
			      " (SELECT COUNT(*) FROM messages WHERE " WATCH_SERIES_MAILS("s.id")
			      " AND k > 0),"
			      " s.title, s.author, s.root, s.reason, s.base_commit, s.rfc, s.verdict,"
			      " s.note, s.reroll_of FROM series s ORDER BY s.id", &err);
	if (!st) {
		r = lab_error("watch status: %s", sb_str(&err));
		goto out;
	}
	if (!o->json)
		printf("  id state      ver  have/n  title\n");
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (status_row(&w, st, &pa, o->json ? all : NULL, &err)) {
			step = SQLITE_ERROR;
			break;
		}
	}
	if (step != SQLITE_DONE) {
		if (!err.len)
			watch_db_error(&w, &err);
		r = lab_error("watch status: %s", sb_str(&err));
	}
	sqlite3_finalize(st);
	if (!r && o->json) {
		json_t *top = xjson_pack("{s:O, s:o}", "series", all,
					 "disk", disk_json(&disk, watch_disk_budget(cfg)));

		json_dumpf(top, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(top);
	} else if (!r) {
		disk_line(&disk, watch_disk_budget(cfg));
	}
out:
	json_decref(all);
	watch_disk_release(&disk);
	free(pa.id);
	free(pa.at);
	free(dir);
	watch_db_close(&w);
	sb_release(&err);
	return r;
}

static int watch_prune(const struct lab_config *cfg, const struct watch_opts *o)
{
	char *dir = state_dir(cfg, o);
	struct watch_db w;

	if (open_queue(cfg, o, &w)) {
		free(dir);
		return LAB_ELAB;
	}
	size_t failed = 0;
	int r = prune(&w, cfg, dir, o->dry_run, &failed);

	/* the page says which series' reports went */
	if (!o->dry_run)
		r = write_index(&w, dir) || r ? LAB_ELAB : 0;
	if (!r && failed)
		r = lab_error("watch prune: %zu item%s could not be removed (see above)", failed,
			      failed == 1 ? "" : "s");
	watch_db_close(&w);
	free(dir);
	return r;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_opts o = { 0 };
	struct lab_config cfg;
	const char *sub = argc > 1 ? argv[1] : NULL;
	char what[32];
	int nargs, r;

	static const char *const subs[] = { "scan", "run", "status", "prune", NULL };
	enum { SCAN, RUN, STATUS, PRUNE } which = cmd_select(subs, sub);

	if ((int)which < 0) {
		r = lab_options_parse(&watch_usage, "watch", argc, argv, &o, &nargs);
		if (r)
			return cmd_status(r);
		if (!sub) {
			lab_usage_print(&watch_usage);
			return LAB_EUSER;
		}
		return cmd_select_error("watch", subs, sub);
	}
	snprintf(what, sizeof(what), "watch %s", sub);
	argc--, argv++;
	r = lab_options_parse(&watch_usage, what, argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	if (nargs)
		return user_error("%s: unexpected argument '%s'", what, argv[0]);
	r = config_load_or_report(cmd_config_path(o.config), &cfg);
	if (!r)
		r = which == SCAN ? watch_scan(&cfg, &o) :
		    which == RUN ? watch_run(&cfg, &o) :
		    which == PRUNE ? watch_prune(&cfg, &o) : watch_status(&cfg, &o);
	config_release(&cfg);
	return r;
}
