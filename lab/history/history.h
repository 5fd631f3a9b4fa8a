/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mglrulab history: every session's report.json as one series per
 * (kernel line, workload, metric) and context, and the change points in
 * each (stats.h, "Change points").
 *
 * A series never mixes contexts: the host (hostname, CPU model and count,
 * memory, acceleration), the guest topology and the workload's type and
 * parameters are hashed into the series key, so a session on another host
 * or with another duration starts another series. The kernel line is the
 * kernel's name in lab.conf, followed by the subject of its series' first
 * patch when it carries one (with the "[PATCH v2 1/3]" prefix dropped, so
 * a re-post of the same series stays on its line); --by-name keeps one
 * line per kernel name whatever series it carries. A night is one
 * session's runs on that line: warm-ups left out, failed runs and runs
 * without a value counted.
 *
 * Incremental: the change points confirmed by an earlier run (min_nights
 * nights after them) are kept in a state file next to the reports, with
 * the sessions they were found in and a digest of their runs; when
 * tonight's history starts with those same sessions and runs, only the
 * segment after the last kept change point is searched again. Anything
 * else (a session removed or inserted in the past, a report changed,
 * other settings, --since) searches the whole series. The state and the
 * digest cache are sealed with this user's key (history_seal.h): they
 * make history faster, and never change what it says.
 */
#ifndef LAB_HISTORY_H
#define LAB_HISTORY_H

#include <jansson.h>
#include <stddef.h>

#include "report_gate.h"
#include "report_view.h"
#include "sha256.h"
#include "stats.h"
#include "strbuf.h"
#include "strmap.h"
#include "util.h"

#define HISTORY_SCHEMA "mglrulab-history/1"
#define HISTORY_STATE_SCHEMA "mglrulab-history-state/2"
#define HISTORY_STATE_FILE ".history-state.json"
#define HISTORY_CACHE_SCHEMA "mglrulab-history-cache/2"
#define HISTORY_CACHE_FILE ".history-cache"

struct history_opts {
	const char *since;		/* keep sessions created at or after this (ISO 8601 prefix) */
	int by_name;			/* kernel lines by name only */
	struct stats_cp_settings cp;
	size_t last;			/* the summary covers the last @last sessions */
};

struct history_session {
	char *id, *created, *path;	/* path: the report.json */
	char *html;			/* report.html beside it, or NULL */
	json_t *host, *kernels;		/* copies, for the differences between nights */
	/*
	 * host and kernels decoded (report_view_decode_context()): only
	 * .host and .kernels are set; the strings point into the copies.
	 */
	struct report_view ctx;
	size_t runs, failed;		/* non-warm-up runs of the session */
	size_t loaded;			/* order of loading (history_build() sorts) */
};

struct history_night {
	size_t session;			/* index into history.s (sorted by time) */
	double *v;			/* the runs that gave a value */
	size_t n, alloc;
	size_t failed, missing;		/* failed runs; ok runs without a value */
	double median, lo, hi;		/* median and its interval (NaN: none) */
};

struct history_cp {
	size_t at;			/* night index of the first night after */
	double p;
	double delta_pct, lo_pct, hi_pct;	/* Hodges-Lehmann ratio after/before */
	double before, after;		/* medians of the segments' runs */
	double gross;			/* a gross step: gap over spread (stats.h); 0: ranks */
	int tentative, kept, is_new;
	const char *kind;		/* "regression", "improvement", "change" */
	struct strvec diff;		/* what changed between the two nights */
};

/*
 * A drift (stats_cp_drifts()): change points of one direction that a line
 * over their span fits; they are reported as this, not as steps.
 */
struct history_drift {
	size_t from, to;		/* night indices: first and last of the span */
	double slope_pct;		/* per night (Theil-Sen, on the log level) */
	double total_pct;		/* from the first night to the last */
	double p;			/* Mann-Kendall, over the span */
	size_t ncp;			/* the change points it replaces */
	const char *kind;		/* "regression", "improvement", "change" */
	int is_new;			/* one of its change points starts tonight */
};

/* A change point as segmentation found it (the state file keeps these). */
struct history_seg {
	size_t at;			/* night index */
	double p, gross;
	int tentative;
};

struct history_series {
	char *key, *line, *kernel, *workload, *metric, *unit;
	char ctx_id[13];
	json_t *context;		/* {host, guest, workload} */
	int better;			/* 1 higher, 0 lower, -1 undeclared */
	int primary;
	struct history_night *nights;
	size_t nn, alloc;
	struct history_cp *cps;		/* the steps (not in a drift) */
	size_t ncp;
	struct history_drift *drifts;
	size_t ndrift;
	struct history_seg *seg;	/* every change point, steps and drifts' */
	size_t nseg;
	int resumed;			/* the state file's change points were kept */
};

/* A report skipped, and why: valid UTF-8 (bytes that are not are U+FFFD). */
struct history_skip {
	char *file, *reason;
};

struct history {
	struct history_opts o;
	struct history_session *s;
	size_t ns, salloc;
	struct history_series *series;
	size_t nseries, alloc;
	struct strmap ix;		/* series key -> index in series */
	struct strmap seen;		/* realpath, and session id -> index in s */
	struct history_skip *skipped;	/* the reports skipped, in the order met */
	size_t nskipped, skipalloc;
	size_t latest;			/* the newest session, or (size_t)-1 */
	size_t before_since;		/* sessions read and left out by --since */
	size_t resumed, searched;	/* series resumed from the state; nights searched */
	json_t *contexts;		/* context id -> context (host, guest, workload) */
	/* The digest cache (history_cache_load()): NULL when not used. */
	char *cache_path;
	json_t *cache;			/* realpath -> entry, as read */
	json_t *cache_out;		/* realpath -> entry, to write */
	long long cache_mtime;		/* entries are for files older than this, ns */
	size_t cached;			/* reports taken from the cache */
	size_t cache_invalid;		/* entries not used: their MAC or digest is wrong */
	char *cache_invalid_first;
	const char *cache_invalid_why;
	int cache_dirty;
	/* The state (history_state_load()): its path, and the series it did not resume. */
	char *state_path;
	size_t state_invalid;
	char *state_invalid_first;
};

void history_opts_default(struct history_opts *o);
void history_init(struct history *h, const struct history_opts *o);
void history_release(struct history *h);

/*
 * Every report.json under @dir (not below a session folder: a folder with
 * a report.json or session.json is a session, its runs/ and logs/ are not
 * looked into; symbolic links are not followed, so reports/latest does not
 * count twice; a bisection's folder below @dir, one with a bisect.json, is
 * not looked into: its steps are not nights). Unreadable, corrupt or
 * partial reports are skipped with a warning naming the file. Returns 0,
 * or -1 when @dir cannot be read.
 */
LAB_MUST_CHECK
int history_add_dir(struct history *h, const char *dir);
/*
 * One report.json. Returns 1 when it was added, 0 when skipped (with a
 * warning and an entry in h->skipped saying why).
 */
int history_add_file(struct history *h, const char *path);

/*
 * The digest cache: what each report.json gave the series (its digest,
 * history_digest.h), by the report's real path, for the file it was
 * read from (device, inode, size, mtime and ctime in ns), so that a later
 * history reads only the reports that are new or changed. A sealed file
 * (history_seal.h): each entry carries a MAC under this user's key, so an
 * entry someone else wrote or edited is not used (it could say anything
 * about a report). What is used, then, is only ever what this history
 * itself read from that very file: an entry for another file (the report
 * replaced or changed, or changed after the cache was written) is a miss
 * and the report is read, silently (reports change); an entry that does
 * not match its MAC or does not validate is a miss with one warning
 * naming the cache and the report. Call history_cache_load() before
 * history_add_dir(), history_cache_save() after.
 */
void history_cache_load(struct history *h, const char *path);
/*
 * Says how many entries were not used (one warning), then writes the
 * cache when anything changed; 0, or -1 with errno.
 */
LAB_MUST_CHECK
int history_cache_save(const struct history *h);
/* An entry not used: @what names its report, @why says what is wrong with it. */
void history_cache_reject(struct history *h, const char *what, const char *why);
/*
 * The cache's entry for the report at @real when it is for this very file
 * (@key, history_cache_key()) and the file last changed before the cache
 * was written, its digest (still to decode, history_digest_decode()) in
 * *@digest; NULL: none that may be used.
 */
const json_t *history_cache_entry(const struct history *h, const char *real, const json_t *key,
				  const json_t **digest);
/* What identifies the file @st describes (the entry's "file"). */
struct stat;
json_t *history_cache_key(const struct stat *st);

/* Sort the sessions, then find the change points of every series. */
void history_build(struct history *h, const json_t *state);

/*
 * The state file (HISTORY_STATE_SCHEMA, history_state.c): for each series,
 * the sessions of its nights, a digest of their runs ("values") and the
 * change points confirmed in them. Sealed like the cache (history_seal.h):
 * a series whose line does not match its MAC is not resumed, and what a
 * sealed line says is used only when the reports show the same sessions
 * with the same runs (resume() in history.c). Each series not resumed for
 * a reason other than sessions removed or inserted is counted, and said
 * in one warning by history_build(). It records no user decision: nothing
 * in it can acknowledge, hide or add a change point.
 *
 * history_state_load(): NULL when absent or not usable (said why); it
 * keeps @path in @h for the warnings.
 */
LAB_MUST_CHECK
json_t *history_state_load(struct history *h, const char *path);
json_t *history_state_json(const struct history *h);
/* 0, or -1 with errno (0 without writing when there is no key). */
LAB_MUST_CHECK
int history_state_save(const struct history *h, const char *path);
/* A change point a series' line keeps: at and p as written, or -1 and NaN when not numbers. */
struct state_cp {
	long long at;
	double p;
	double gross;			/* 0: absent (found by ranks) */
};

/* A series' line of the state, typed (history_state_series()). */
struct state_series {
	struct strvec sessions;		/* the ids of its first nights, in order */
	char *values;			/* history_state_values() of those nights */
	struct state_cp *confirmed;
	size_t nconfirmed;
};

/*
 * The line of @state (history_state_load()) for series @key: 1 with @out
 * (release it), 0 when there is none, -1 with what is wrong in @why
 * ("sessions[2]: expected a session id") when it does not decode. The
 * members of each confirmed change point are checked against the nights
 * by resume() in history.c, which knows them.
 */
int history_state_series(const json_t *state, const char *key, struct state_series *out,
			 struct strbuf *why);
void state_series_release(struct state_series *s);
/* The digest of the runs of @s's first @k nights with a value. */
void history_state_values(const struct history_series *s, size_t k,
			  char hex[SHA256_HEX_LEN + 1]);
void history_state_reject(struct history *h, const struct history_series *s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Change points that the newest session starts and that are regressions,
 * and regression drifts that one of tonight's change points is part of.
 */
size_t history_new_regressions(const struct history *h);

/*
 * history's gate (history_gate.c), in report_gate.h's vocabulary, per
 * series: a change point or drift that the newest session starts is
 * GATE_REGRESSION (a regression; any kind under FAIL_ON_CHANGE); a series
 * whose night in the newest session has failed runs and no value is
 * GATE_KERNEL_FAILED when other runs of that session succeeded, else
 * GATE_LAB_FAILED. The status is report_gate_status_view()'s: 3, else 2,
 * else 0, with "  line / workload / metric: why\n" in @why for each
 * failing series.
 */
int history_gate_status(const struct history *h, enum fail_on f, struct strbuf *why);
/*
 * JUnit XML: one <testcase> per series, judged as above; the suite's
 * timestamp and hostname are the newest session's, @time_s how long the
 * command took.
 */
void history_render_junit(const struct history *h, enum fail_on f, double time_s,
			  struct strbuf *out);

void history_render_text(const struct history *h, struct strbuf *out);
void history_render_json(const struct history *h, struct strbuf *out);
/* @html_path: where the page goes, so links to the sessions are relative. */
void history_render_html(const struct history *h, const char *html_path, struct strbuf *out);

#endif
