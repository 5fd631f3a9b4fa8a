// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab bisect (bisect.h): the steps as sessions, their decisions, the
 * state on disk, the summary. The search itself is bisect_search.c.
 */
#include "bisect.h"
#include "seq_state.h"
#include "bisect_search.h"
#include "config.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild.h"
#include "lockfile.h"
#include "mbox.h"
#include "report.h"
#include "report_result.h"
#include "report_view.h"
#include "session.h"
#include "stats.h"
#include "xjson.h"

#include <errno.h>
#include <stdarg.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct bisect {
	struct bisect_opts *o;
	struct lab_config cfg;
	char *dir;
	json_t *state;			/* bisect.json */
	const char *base, *series;	/* kernel names (in state) */
	long n;				/* patches in the series */
	int base_is_prefix0;		/* series@0 is the baseline's cache entry */
	/*
	 * bisect.json says the bisection ended: the walk only reads back what
	 * it recorded to print the summary, and builds nothing (the prefixes
	 * may have left the kernel cache since).
	 */
	int complete;
	int status;			/* why a step stopped the bisection */
	int lock_fd;
	int saved_stdout;		/* stdout is the summary's: builds talk on stderr */
	/*
	 * The cache entries of the prefixes built, held (kcache.h) until the
	 * bisection ends: `kernel gc` would otherwise remove them (no kernel
	 * of lab.conf resolves to NAME@K) between two steps that boot them.
	 */
	int *holds;
	size_t nr_holds;
};

static LAB_MUST_CHECK int save(struct bisect *bs)
{
	char *path = xasprintf("%s/bisect.json", bs->dir);
	int r = session_write_json(path, bs->state) ?
		lab_error("cannot write %s: %s", path, strerror(errno)) : LAB_OK;

	free(path);
	return r;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	if (lab_quiet)
		return;
	fputs("bisect: ", stderr);
	va_start(ap, fmt);
	term_vprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The kernel after the first @k patches: the baseline, NAME@K, or the series itself. */
static char *prefix_name(const struct bisect *bs, long k)
{
	if (k == 0 && bs->base_is_prefix0)
		return xstrdup(bs->base);
	if (k == bs->n)
		return xstrdup(bs->series);
	return xasprintf("%s%c%ld", bs->series, CONFIG_PREFIX_SEP, k);
}

/* --- the results of one step's session --- */

static json_t *pct_or_null(double ratio)
{
	return isfinite(ratio) ? json_real(100.0 * (ratio - 1.0)) : json_null();
}

json_t *bisect_step_results(const json_t *report)
{
	json_t *out = json_array();
	size_t i, n;
	struct result_record *res = report_result_records(report, &n, NULL);

	for (i = 0; i < n; i++) {
		/* The change the verdict rests on: the pooled one on several hosts. */
		const struct result_change *c = &res[i].change;

		if (!res[i].verdict_id)
			continue;
		json_array_append_new(out, xjson_pack("{s:o, s:o, s:b, s:s, s:o, s:o, s:o}",
			"workload", json_string_lossy(res[i].workload),
			"metric", json_string_lossy(res[i].metric),
			"primary", res[i].primary, "verdict", res[i].verdict_id,
			"delta_pct", isfinite(c->delta_pct) ? json_real(c->delta_pct) : json_null(),
			"ci_lo_pct", pct_or_null(c->lo), "ci_hi_pct", pct_or_null(c->hi)));
	}
	result_records_free(res, n);
	return out;
}

/* bisect_step_results() of <session_dir>/report.json. */
static json_t *report_results(const char *session_dir, struct strbuf *err)
{
	char *path = xasprintf("%s/report.json", session_dir);
	json_error_t jerr;
	json_t *rep = json_load_file(path, 0, &jerr), *out = NULL;

	if (!json_is_object(rep))
		sb_addf(err, "%s: %s", path, rep ? "not a JSON object" : jerr.text);
	else
		out = bisect_step_results(rep);
	json_decref(rep);
	free(path);
	return out;
}

/* improvement or regression: the step says the two kernels differ. */
static int decisive(const struct step_result *r)
{
	return r && (r->verdict == VERDICT_IMPROVEMENT || r->verdict == VERDICT_REGRESSION);
}

/* The primaries, or every metric when there are none: what a step decides on. */
static int any_primary(const struct step_results *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].primary)
			return 1;
	return 0;
}

/*
 * A metric the session could not analyse (too many failed runs: the lab,
 * not the kernels) says nothing about where a prefix is: the step fails
 * rather than count as "no difference". The primaries, or all metrics
 * when there are none.
 */
static const char *invalid_metric(const json_t *results)
{
	struct step_results rs;
	const char *bad = NULL;
	int primaries;

	step_results_decode(results, &rs);
	primaries = any_primary(&rs);
	for (size_t i = 0; i < rs.n && !bad; i++)
		if ((!primaries || rs.v[i].primary) && rs.v[i].verdict == VERDICT_INVALID)
			bad = rs.v[i].metric;
	step_results_release(&rs);
	return bad;
}

/* --- steps: one session each --- */

/* bisect.json's top, decoded now: the state grows as the bisection goes. */
static struct bisect_head head_of(const struct bisect *bs)
{
	struct bisect_head h;

	bisect_head_decode(bs->state, &h);
	return h;
}

/* The step of @a against @b (decoded into *@out), or NULL. */
static json_t *find_step(struct bisect *bs, const char *a, const char *b, struct bisect_step *out)
{
	struct bisect_head h = head_of(bs);
	json_t *s;
	size_t i;

	json_array_foreach(h.steps, i, s) {
		bisect_step_decode(s, out);
		if (out->a && out->b && !strcmp(out->a, a) && !strcmp(out->b, b))
			return s;
	}
	return NULL;
}

static int session_started(const char *reports_dir)
{
	char *p = xasprintf("%s/latest/session.json", reports_dir);
	int ok = is_regular_file(p);

	free(p);
	return ok;
}

/* A new step of @a against @b, running, at the end of steps[] (decoded into *@st). */
static json_t *add_step(struct bisect *bs, const char *purpose, const char *a, const char *b,
			struct bisect_step *st)
{
	struct bisect_head h = head_of(bs);
	size_t nr = json_array_size(h.steps) + 1;
	char *rel = xasprintf("steps/%02zu-%s", nr, purpose);
	json_t *step = xjson_pack("{s:i, s:s, s:s, s:s, s:s, s:s}", "step", (int)nr,
				  "purpose", purpose, "a", a, "b", b, "dir", rel, "state", "running");

	json_array_append_new(h.steps, step);
	free(rel);
	bisect_step_decode(step, st);
	return step;
}

/*
 * Step @st's report.json, found relative to the bisection's folder (a
 * bisection moved elsewhere still finds it); NULL with why in @err.
 */
static json_t *step_report(const struct bisect *bs, const struct bisect_step *st,
			   struct strbuf *err)
{
	char *rel = bisect_step_file(st, "report.json"), *path;
	json_error_t jerr;
	json_t *rep;

	if (!rel) {
		sb_adds(err, "the step has no session yet");
		return NULL;
	}
	path = xasprintf("%s/%s", bs->dir, rel);
	rep = json_load_file(path, 0, &jerr);
	if (!rep)
		sb_addf(err, "%s:%d: %s", path, jerr.line, jerr.text);
	free(path);
	free(rel);
	return rep;
}

/*
 * Whether step @st is measured as asked: done, and attributed when
 * @attribute asks for it. A step measured before its attribution was
 * asked for (a one-patch series: the confirm step is the culprit's own)
 * is not: its session is resumed, which adds no run to a finished plan
 * and writes the reports again with the attribution runs.
 */
static int step_measured(const struct bisect *bs, const struct bisect_step *st, int attribute)
{
	struct strbuf err = STRBUF_INIT;
	json_t *rep;
	int has;

	if (strcmp(st->state, "done"))
		return 0;
	if (attribute == RUN_ATTRIBUTE_OFF || bs->complete)
		return 1;
	rep = step_report(bs, st, &err);
	has = json_object_get(rep, "attribution") != NULL;
	json_decref(rep);
	sb_release(&err);
	if (!has)
		say("step %d: its session again, for the attribution runs", (int)st->step);
	return has;
}

/*
 * Run (or resume, or read back) the session @a against @b; its results in
 * *@results (borrowed from the state). A step already measured, in this
 * bisection or on a resume, is never run again.
 */
static int run_step(struct bisect *bs, const char *purpose, const char *a, const char *b,
		    const struct seq_placements *place, int attribute, json_t **results)
{
	struct bisect_step st;
	json_t *step = find_step(bs, a, b, &st);
	struct strbuf err = STRBUF_INIT;
	int r;

	*results = NULL;
	if (step && step_measured(bs, &st, attribute)) {
		*results = (json_t *)st.results;
		return LAB_OK;
	}
	if (!step) {
		step = add_step(bs, purpose, a, b, &st);
		r = save(bs);
		if (r)
			return r;
	}
	char *dir = xasprintf("%s/%s", bs->dir, st.dir);
	if (mkdir_p(dir, 0755)) {
		r = lab_error("cannot create %s: %s", dir, strerror(errno));
		free(dir);
		return r;
	}
	say("step %d (%s): %s against %s", (int)st.step, st.purpose, a, b);
	struct session_opts so = {
		.config = bs->o->config, .mode = SESSION_AB, .warmups = -1,
		.fail_on = FAIL_ON_NONE, .until_decided = 1, .max_runs = bs->o->max_runs,
		.budget_s = bs->o->budget_s, .reports_dir = dir, .no_stdout_report = 1,
		.placement = place, .attribute = attribute, .series_kernel = bs->o->series_kernel,
		/* A step that failed starts a new session: its failed runs are on record. */
		.resume = session_started(dir) && strcmp(st.state, "failed"),
	};
	if (!so.resume) {
		strvec_push(&so.kernel_names, a);
		strvec_push(&so.kernel_names, b);
		strvec_pushv(&so.workloads, (const char *const *)bs->o->workloads.v);
	} else {
		so.budget_s = 0;	/* the step keeps its budget: a --budget would raise it */
	}
	r = session_main(&so);
	strvec_clear(&so.kernel_names);
	strvec_clear(&so.workloads);
	if (!r && interrupted())
		r = LAB_ELAB;
	if (r) {
		free(dir);
		return r;
	}
	char *latest = xasprintf("%s/latest", dir);
	char *real = realpath(latest, NULL);
	json_t *res = real ? report_results(real, &err) : NULL;
	const char *bad = res ? invalid_metric(res) : NULL;
	if (!res) {
		r = lab_error("step %s against %s: no report: %s", a, b,
			      real ? sb_str(&err) : strerror(errno));
	} else if (bad) {
		r = lab_error("step %s against %s: %s is invalid (too many failed runs; see %s/logs/):"
			      " the lab is failing, not the kernels; --resume runs the step again",
			      a, b, bad, real);
		json_object_set_new(step, "session", json_string_lossy(real));
		json_object_set_new(step, "state", json_string("failed"));
		if (save(bs))
			r = LAB_ELAB;	/* save() named the file */
		json_decref(res);
	} else {
		json_object_set_new(step, "session", json_string_lossy(real));
		json_object_set_new(step, "results", res);
		json_object_set_new(step, "state", json_string("done"));
		*results = res;
		r = save(bs);
	}
	free(real);
	free(latest);
	free(dir);
	sb_release(&err);
	return r;
}

/* --- prefixes --- */

/* What building a prefix came to, when its status is LAB_OK (build_prefix()). */
enum prefix_build {
	PREFIX_BUILT,		/* in the cache, held until the bisection ends */
	PREFIX_UNBUILDABLE,	/* its inputs make no kernel: recorded, skipped */
};

/*
 * Build prefix @k, what it came to in *@out. Returns LAB_OK, or the
 * status that stops the bisection (said): a user error (the prefix does
 * not resolve, its patches no longer apply) or the lab's.
 */
static LAB_MUST_CHECK int build_prefix(struct bisect *bs, long k, enum prefix_build *out)
{
	struct bisect_head h = head_of(bs);
	char key[24], *name = prefix_name(bs, k);
	int builds = bisect_prefix_builds(&h, k);
	struct strbuf err = STRBUF_INIT;
	struct kbuild_result res;
	int r;

	snprintf(key, sizeof(key), "%ld", k);
	*out = builds == 0 ? PREFIX_UNBUILDABLE : PREFIX_BUILT;
	if (builds == 0 || (bs->complete && builds == 1)) {
		free(name);
		return LAB_OK;
	}
	const struct kernel_cfg *kc = config_kernel_resolve(&bs->cfg, name, &err);
	if (!kc) {
		r = user_error("bisect: %s", sb_str(&err));
		goto out;
	}
	r = kbuild_kernel(&bs->cfg, kc, &res);
	if (r && res.build_failed) {
		say("prefix %ld (%s) does not build: skipped, as git bisect skip does", k, name);
		json_object_set_new(h.prefixes, key, xjson_pack("{s:s, s:b}", "kernel", name, "builds", 0));
		*out = PREFIX_UNBUILDABLE;
		r = save(bs);
	} else if (!r) {
		json_object_set_new(h.prefixes, key, xjson_pack("{s:s, s:b, s:s, s:b, s:f}", "kernel", name,
			"builds", 1, "key", res.key, "cache_hit", res.cache_hit, "seconds", res.seconds));
		r = save(bs);
		bs->holds = xrealloc(bs->holds, (bs->nr_holds + 1) * sizeof(*bs->holds));
		bs->holds[bs->nr_holds++] = res.hold_fd;
		res.hold_fd = -1;	/* the bisection's now */
	}
	kbuild_result_release(&res);
out:
	sb_release(&err);
	free(name);
	return r;
}

/* --- decisions --- */

/*
 * Which side of the change prefix @k is on, from the two sessions: the
 * baseline against it and it against the series' end. Per tracked metric,
 * "differs" is an improvement or regression verdict; a metric that
 * differs from the end only is at the baseline, from the baseline only at
 * the end, from both between (the change is spread), from neither
 * undecided. Metrics that disagree make the prefix "between" too: the
 * patches moved them at different places.
 */
static enum bisect_class classify(const json_t *tracked, const json_t *from_base,
				  const json_t *to_end)
{
	struct step_results t, fb, te;
	int *db, *de;
	enum bisect_class c;

	step_results_decode(tracked, &t);
	step_results_decode(from_base, &fb);
	step_results_decode(to_end, &te);
	db = xcalloc(t.n + 1, sizeof(int));
	de = xcalloc(t.n + 1, sizeof(int));
	for (size_t i = 0; i < t.n; i++) {
		db[i] = decisive(step_results_find(&fb, t.v[i].workload, t.v[i].metric));
		de[i] = decisive(step_results_find(&te, t.v[i].workload, t.v[i].metric));
	}
	c = bisect_classify(db, de, (int)t.n);
	free(db);
	free(de);
	step_results_release(&t);
	step_results_release(&fb);
	step_results_release(&te);
	return c;
}

/* Record prefix @k's class in bisect.json: LAB_OK, or LAB_ELAB (said) when it cannot be written. */
static int record_probe(struct bisect *bs, long k, enum bisect_class c)
{
	struct bisect_head h = head_of(bs);

	if (bisect_probe_known(&h, k))
		return LAB_OK;
	json_array_append_new(h.probes, xjson_pack("{s:I, s:s}", "prefix", (json_int_t)k,
						 "class", bisect_class_name(c)));
	return save(bs);
}

/*
 * Where each tracked metric's midpoint lies: the geometric middle of the
 * series' whole change (the confirming step's), which a probe's first
 * session places its prefix against. A metric whose change is not a
 * finite ratio other than 1 gets none.
 */
static void midpoints(const json_t *tracked, struct seq_placements *out)
{
	struct step_results t;

	memset(out, 0, sizeof(*out));
	step_results_decode(tracked, &t);
	out->v = xcalloc(t.n + 1, sizeof(*out->v));
	for (size_t i = 0; i < t.n; i++) {
		double e = 1 + t.v[i].delta_pct / 100;

		if (!(e > 0) || !isfinite(e) || e == 1)
			continue;
		out->v[out->n].workload = xstrdup(t.v[i].workload);
		out->v[out->n].metric = xstrdup(t.v[i].metric);
		out->v[out->n++].midpoint = sqrt(e);
	}
	step_results_release(&t);
}

/*
 * The midpoint rule: prefix k from its first session alone (the baseline
 * against it), each tracked metric's interval wholly on one side of its
 * midpoint. All on the baseline's side: at the baseline; all beyond: at
 * the end; some each way: between. A metric not placed (its interval
 * holds the midpoint, or it has none): BISECT_UNDECIDED, and the probe
 * goes on as before the rule, with a second session.
 */
static enum bisect_class place(const struct seq_placements *mid, const json_t *from_base)
{
	struct step_results fb;
	int base = 0, end = 0, unplaced = !mid->n;

	step_results_decode(from_base, &fb);
	for (size_t i = 0; i < mid->n; i++) {
		const struct step_result *r = step_results_find(&fb, mid->v[i].workload,
								mid->v[i].metric);
		int side = r ? stats_side_of_midpoint(1 + r->lo_pct / 100, 1 + r->hi_pct / 100,
						      mid->v[i].midpoint) : 0;

		base += side < 0;
		end += side > 0;
		unplaced += !side;
	}
	step_results_release(&fb);
	if (unplaced)
		return BISECT_UNDECIDED;
	return base && end ? BISECT_BETWEEN : base ? BISECT_AT_BASE : BISECT_AT_END;
}

static enum bisect_class stopped(struct bisect *bs, int r)
{
	bs->status = r;
	return BISECT_STOPPED;
}

/* Both sessions of a probe, classified by their verdicts (before the midpoint rule). */
static int two_sided(struct bisect *bs, const char *name, const json_t *from_base,
		     enum bisect_class *c)
{
	json_t *to_end;
	int r = run_step(bs, "probe-end", name, bs->series, NULL, RUN_ATTRIBUTE_OFF, &to_end);

	if (!r)
		*c = classify(head_of(bs).tracked, from_base, to_end);
	return r;
}

/*
 * The class bisect.json recorded for prefix @k: 1 and *@c, or 0. A
 * resumed or complete bisection follows what it recorded, whatever rule
 * placed the prefix then (one started before the midpoint rule too).
 */
static int recorded_class(struct bisect *bs, long k, enum bisect_class *c)
{
	const json_t *p;
	size_t i;

	json_array_foreach(head_of(bs).probes, i, p) {
		struct bisect_probe bp;

		bisect_probe_decode(p, &bp);
		if (bp.prefix != k || !bp.cls)
			continue;
		for (int x = BISECT_AT_BASE; x <= BISECT_UNBUILDABLE; x++)
			if (!strcmp(bp.cls, bisect_class_name((enum bisect_class)x))) {
				*c = (enum bisect_class)x;
				return 1;
			}
	}
	return 0;
}

static enum bisect_class oracle(long k, void *data)
{
	struct bisect *bs = data;
	struct seq_placements mid;
	struct bisect_step st;
	json_t *from_base;
	enum bisect_class c = BISECT_UNDECIDED;
	const char *how = "placed against the midpoint";
	enum prefix_build built;
	int r = build_prefix(bs, k, &built);

	if (!r && built == PREFIX_UNBUILDABLE) {
		r = record_probe(bs, k, BISECT_UNBUILDABLE);
		return r ? stopped(bs, r) : BISECT_UNBUILDABLE;
	}
	if (!r && recorded_class(bs, k, &c))
		return c;
	char *name = prefix_name(bs, k);
	midpoints(head_of(bs).tracked, &mid);
	if (!r)
		r = run_step(bs, "probe-base", bs->base, name, &mid, RUN_ATTRIBUTE_OFF, &from_base);
	/* A probe whose second session was started (before the rule, or by it) ends with it. */
	if (!r && !find_step(bs, name, bs->series, &st))
		c = place(&mid, from_base);
	if (!r && c == BISECT_UNDECIDED) {
		how = "both sides";
		r = two_sided(bs, name, from_base, &c);
	}
	seq_placements_release(&mid);
	free(name);
	if (r)
		return stopped(bs, r);
	say("prefix %ld of %ld: %s (%s)", k, bs->n, bisect_class_name(c), how);
	r = record_probe(bs, k, c);
	return r ? stopped(bs, r) : c;
}

/* The metrics the whole series moved: primaries, or all of a workload without any. */
static json_t *tracked_metrics(const json_t *results)
{
	json_t *out = json_array();
	struct step_results rs;
	int primaries;

	step_results_decode(results, &rs);
	primaries = any_primary(&rs);
	for (size_t i = 0; i < rs.n; i++) {
		if (primaries && !rs.v[i].primary)
			continue;
		/* the element as bisect.json holds it: tracked is stored as read */
		if (decisive(&rs.v[i]))
			json_array_append(out, (json_t *)rs.v[i].json);
	}
	step_results_release(&rs);
	return out;
}

/* --- the summary --- */

static void fmt_effect(struct strbuf *sb, const struct step_result *r)
{
	if (!r) {
		sb_adds(sb, "(not measured)");
		return;
	}
	if (isfinite(r->delta_pct))
		sb_addf(sb, "%+.1f %%", r->delta_pct);
	else
		sb_adds(sb, "n/a");
	if (isfinite(r->lo_pct) && isfinite(r->hi_pct))
		sb_addf(sb, " [%+.1f, %+.1f]", r->lo_pct, r->hi_pct);
	sb_addf(sb, " %s", r->verdict_id);
}

/* One line per tracked metric of @results: "  yield cs_per_sec: -64.1 % [...] regression". */
static void fmt_tracked(struct strbuf *sb, const json_t *tracked, const json_t *results)
{
	struct step_results t, rs;

	step_results_decode(tracked, &t);
	step_results_decode(results, &rs);
	for (size_t i = 0; i < t.n; i++) {
		sb_addf(sb, "    %s %s: ", t.v[i].workload, t.v[i].metric);
		fmt_effect(sb, step_results_find(&rs, t.v[i].workload, t.v[i].metric));
		sb_addc(sb, '\n');
	}
	step_results_release(&t);
	step_results_release(&rs);
}

/* patches[@k - 1] as stored: a result copies it whole. */
static const json_t *patch_at(const struct bisect *bs, long k)
{
	return json_array_get(head_of(bs).patches, (size_t)(k - 1));
}

static void fmt_patch(struct strbuf *sb, const struct bisect *bs, long k)
{
	struct bisect_head h = head_of(bs);
	struct bisect_patch p;

	bisect_patch_decode(&h, k, &p);
	sb_addf(sb, "patch %ld/%ld: ", k, bs->n);
	sb_add_text_safe(sb, p.subject ? p.subject : "(no subject)");
	if (p.message_id) {
		sb_adds(sb, "\n  Message-Id: ");
		sb_add_text_safe(sb, p.message_id);
	}
	sb_addc(sb, '\n');
}

static json_t *step_results(struct bisect *bs, const char *a, const char *b)
{
	struct bisect_step st;

	return find_step(bs, a, b, &st) ? (json_t *)st.results : NULL;
}

/* The runs of step @st's session, from its report.json: -1 each when it does not decode. */
static struct bisect_step_runs step_runs(const struct bisect *bs, const struct bisect_step *st)
{
	struct bisect_step_runs out = { -1, -1 };
	struct report_view v = { 0 };
	struct strbuf err = STRBUF_INIT;
	json_t *rep = step_report(bs, st, &err);

	if (rep && !report_view_decode(rep, &v, &err) && v.summary.runs >= 0) {
		out.ok = v.summary.runs_ok;
		out.failed = v.summary.runs_failed;
	}
	report_view_release(&v);
	json_decref(rep);
	sb_release(&err);
	return out;
}

/* bisect.html, with each step's runs read from its report: LAB_OK or the status (said). */
static LAB_MUST_CHECK int write_page(const struct bisect *bs)
{
	struct bisect_head h = head_of(bs);
	size_t n = json_array_size(h.steps), i;
	struct bisect_step_runs *runs = xcalloc(n + 1, sizeof(*runs));
	struct strbuf html = STRBUF_INIT;
	char *path = xasprintf("%s/bisect.html", bs->dir);
	const json_t *s;
	int r = LAB_OK;

	json_array_foreach(h.steps, i, s) {
		struct bisect_step st;

		bisect_step_decode(s, &st);
		runs[i] = step_runs(bs, &st);
	}
	bisect_html(&html, bs->state, runs, n);
	if (write_file_atomic(path, html.buf, html.len))
		r = lab_error("cannot write %s: %s", path, strerror(errno));
	free(path);
	free(runs);
	sb_release(&html);
	return r;
}

static int finish(struct bisect *bs, json_t *result, struct strbuf *text)
{
	json_object_set_new(bs->state, "result", result);
	json_object_set_new(bs->state, "complete", json_true());
	int r = save(bs);
	char *path = xasprintf("%s/bisect.txt", bs->dir);

	if (write_file_atomic(path, text->buf, text->len))
		r = lab_error("cannot write %s: %s", path, strerror(errno));
	int w = write_page(bs);
	if (w)
		r = w;
	if (bs->saved_stdout >= 0) {
		fflush(stdout);
		dup2(bs->saved_stdout, 1);
		close(bs->saved_stdout);
		bs->saved_stdout = -1;
	}
	/* --json - takes stdout; the summary is in bisect.txt */
	if (!bs->o->json || !user_output_is_stdout(bs->o->json))
		fputs(sb_str(text), stdout);
	fflush(stdout);
	term_printf(stderr, "\nbisection: %s/bisect.json, bisect.txt, bisect.html\n", bs->dir);
	free(path);
	return r;
}

/* 1 when @results says some metric of @tracked differs (improvement or regression). */
static int moves_any(const json_t *tracked, const json_t *results)
{
	struct step_results t, rs;
	int any = 0;

	step_results_decode(tracked, &t);
	step_results_decode(results, &rs);
	for (size_t i = 0; i < t.n; i++)
		any |= decisive(step_results_find(&rs, t.v[i].workload, t.v[i].metric));
	step_results_release(&t);
	step_results_release(&rs);
	return any;
}

/*
 * The culprit's own step with --attribute: where its instructions moved,
 * from the step session's report (its "attribution" member), into
 * result.attribution and a few lines of @text.
 */
static void culprit_attribution(struct bisect *bs, const char *before, const char *at,
				json_t *result, struct strbuf *text)
{
	struct bisect_step st;
	struct strbuf err = STRBUF_INIT;
	struct view_attribution va;
	int found = find_step(bs, before, at, &st) != NULL;
	json_t *report = found ? step_report(bs, &st, &err) : NULL, *a;

	a = json_object_get(report, "attribution");
	sb_adds(text, "where its instructions moved (docs/attribution.md):\n");
	if (!found) {
		sb_adds(text, "  not attributed: its step has no session\n");
	} else if (!report) {
		sb_adds(text, "  not shown: cannot read the step's report: ");
		sb_add_text_safe(text, sb_str(&err));
		sb_addc(text, '\n');
	} else if (!a) {
		/* a step measured before --attribute was asked for (an earlier step of these kernels) */
		sb_adds(text, "  not attributed: its step's report has no attribution\n");
	} else if (report_attr_decode(report, &va, &err)) {
		sb_adds(text, "  not shown: ");
		sb_add_text_safe(text, sb_str(&err));
		sb_addc(text, '\n');
		report_attr_release(&va);
	} else {
		report_attr_brief(&va, text, 0);
		report_attr_release(&va);
		json_object_set(result, "attribution", a);
	}
	json_decref(report);
	sb_release(&err);
}

/* After a culprit: its own effect, and what the patches after it do. */
static int culprit_effects(struct bisect *bs, long c, json_t *result, struct strbuf *text)
{
	const json_t *tracked = head_of(bs).tracked;
	char *before = prefix_name(bs, c - 1), *at = prefix_name(bs, c);
	json_t *own = NULL, *rest = NULL;
	enum prefix_build built;
	int r = LAB_OK;

	/* Patch 1 against the series' source: the baseline, when NAME@0 does not build. */
	if (c == 1 && !bs->base_is_prefix0) {
		r = build_prefix(bs, 0, &built);
		if (!r && built == PREFIX_UNBUILDABLE) {
			free(before);
			before = xstrdup(bs->base);
		}
	}
	if (!r)
		r = run_step(bs, "own-effect", before, at, NULL, bs->o->attribute, &own);
	if (r)
		goto out;
	sb_addf(text, "\nits own effect (%s against %s):\n", at, before);
	fmt_tracked(text, tracked, own);
	json_object_set(result, "own_effect", own);
	if (bs->o->attribute != RUN_ATTRIBUTE_OFF)
		culprit_attribution(bs, before, at, result, text);
	struct bisect_step st;

	if (c < bs->n && !(rest = step_results(bs, at, bs->series)) &&
	    !find_step(bs, at, bs->series, &st)) {
		char range[48];

		/* The probe placed c by its first session alone (the midpoint rule). */
		if (c + 1 == bs->n)
			snprintf(range, sizeof(range), "patch %ld", c + 1);
		else
			snprintf(range, sizeof(range), "patches %ld..%ld", c + 1, bs->n);
		sb_addf(text, "the remaining %s: not measured (the probe placed patch %ld with one "
			"session); mglrulab run --ab %s %s measures %s\n", range, c, at, bs->series,
			c + 1 == bs->n ? "it" : "them");
		json_object_set_new(result, "remaining", json_null());
	} else if (c < bs->n) {
		if (c + 1 == bs->n)
			sb_addf(text, "the remaining patch %ld (%s against %s):\n", c + 1, bs->series, at);
		else
			sb_addf(text, "the remaining patches %ld..%ld (%s against %s):\n", c + 1, bs->n,
				bs->series, at);
		fmt_tracked(text, tracked, rest);
		json_object_set_new(result, "remaining", rest ? json_incref(rest) : json_null());
		int adds = moves_any(tracked, rest);

		sb_addf(text, "  %s\n", adds ? "they move it further: see the verdict above" :
			"nothing the lab can resolve at this step's runs (no improvement or regression)");
	} else {
		sb_adds(text, "it is the last patch: nothing comes after it\n");
	}
out:
	free(before);
	free(at);
	return r;
}

static int search(struct bisect *bs, struct strbuf *text)
{
	struct bisect_result br;
	json_t *result;
	int r = LAB_OK;

	bisect_search(bs->n, oracle, bs, &br);
	if (br.outcome == BISECT_INTERRUPTED)
		return bs->status ? bs->status : LAB_ELAB;
	result = xjson_pack("{s:s, s:I, s:I, s:i}", "outcome", bisect_outcome_name(br.outcome),
			    "first", (json_int_t)br.first, "last", (json_int_t)br.last,
			    "probes", br.probes);
	switch (br.outcome) {
	case BISECT_FOUND: {
		const json_t *p = patch_at(bs, br.culprit);
		json_object_set_new(result, "culprit", json_integer(br.culprit));
		json_object_set(result, "patch", (json_t *)p);
		sb_adds(text, "\nculprit: ");
		fmt_patch(text, bs, br.culprit);
		r = culprit_effects(bs, br.culprit, result, text);
		if (r) {
			json_decref(result);
			return r;
		}
		break;
	}
	case BISECT_SPREAD:
		json_object_set_new(result, "split", json_integer(br.split));
		sb_addf(text, "\nno single culprit: the change is spread over patches %ld..%ld\n"
			"(prefix %ld differs from both the baseline and the series' end):\n",
			br.first, br.last, br.split);
		for (long k = br.first; k <= br.last; k++) {
			sb_adds(text, "  ");
			fmt_patch(text, bs, k);
		}
		sb_addf(text, "measure each of them with: mglrulab bisect --per-patch (up to %d patches)\n",
			BISECT_PER_PATCH_MAX);
		break;
	case BISECT_SKIPPED_ONLY:
		sb_addf(text, "\nthe change is in patches %ld..%ld; the prefixes between them do not "
			"build, so which one cannot be told:\n", br.first, br.last);
		for (long k = br.first; k <= br.last; k++) {
			sb_adds(text, "  ");
			fmt_patch(text, bs, k);
		}
		break;
	default:
		sb_addf(text, "\ninconclusive: prefix %ld could not be placed within its step's budget;"
			" the change lies in patches %ld..%ld (raise --max-runs or --budget and run"
			" again)\n", br.split, br.first, br.last);
		break;
	}
	return finish(bs, result, text);
}

/* --- per patch --- */

static int per_patch(struct bisect *bs, struct strbuf *text)
{
	const json_t *tracked = head_of(bs).tracked;
	json_t *steps = json_array();
	long prev = 0;
	enum prefix_build built = PREFIX_BUILT;
	int r = LAB_OK;

	if (!bs->base_is_prefix0)
		r = build_prefix(bs, 0, &built);
	/* no prefix 0 to measure patch 1 against: the lab's failure, as it always was */
	if (!r && built == PREFIX_UNBUILDABLE)
		r = LAB_ELAB;
	if (r)
		goto fail;
	sb_addf(text, "\nper patch (each prefix against the one before it):\n");
	for (long k = 1; k <= bs->n; k++) {
		json_t *res;

		built = PREFIX_BUILT;
		r = k < bs->n ? build_prefix(bs, k, &built) : LAB_OK;
		if (!r && built == PREFIX_UNBUILDABLE) {
			sb_addf(text, "  patch %ld: the prefix does not build; measured with patch %ld\n",
				k, k + 1);
			continue;
		}
		if (r)
			goto fail;
		char *a = prefix_name(bs, prev), *b = prefix_name(bs, k);
		r = run_step(bs, "per-patch", a, b, NULL, RUN_ATTRIBUTE_OFF, &res);
		if (!r) {
			json_array_append_new(steps, xjson_pack("{s:I, s:I, s:s, s:s, s:O}", "from",
				(json_int_t)prev, "to", (json_int_t)k, "a", a, "b", b, "results", res));
			if (prev + 1 == k)
				sb_adds(text, "  ");
			else
				sb_addf(text, "  patches %ld..%ld together, ", prev + 1, k);
			fmt_patch(text, bs, k);
			fmt_tracked(text, tracked, res);
		}
		free(a);
		free(b);
		if (r)
			goto fail;
		prev = k;
	}
	return finish(bs, xjson_pack("{s:s, s:o}", "outcome", "per-patch", "waterfall", steps), text);
fail:
	json_decref(steps);
	return r;
}

/* --- setup --- */

static int load_patches(struct bisect *bs, const struct kernel_cfg *k)
{
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	json_t *patches = json_array();
	int r = LAB_OK;

	for (size_t i = 0; i < k->series.n && !r; i++)
		if (mbox_split(k->series.v[i], &pl, &err))
			r = user_error("bisect: [kernel %s] series: %s", k->name, sb_str(&err));
	for (size_t i = 0; i < pl.n && !r; i++) {
		if (pl.v[i].is_cover)
			continue;
		json_array_append_new(patches, xjson_pack("{s:I, s:o, s:o, s:o}", "position",
			(json_int_t)json_array_size(patches) + 1,
			"subject", pl.v[i].subject ? json_string_lossy(pl.v[i].subject) : json_null(),
			"message_id", pl.v[i].message_id ? json_string_lossy(pl.v[i].message_id) : json_null(),
			"file", json_string_lossy(pl.v[i].file)));
	}
	if (!r)
		json_object_set_new(bs->state, "patches", patches);
	else
		json_decref(patches);
	patch_list_release(&pl);
	sb_release(&err);
	return r;
}

static int create_dir(struct bisect *bs)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int n = 0; n < 100 && !bs->dir; n++) {
		char *d = n ? xasprintf("%s/%s-bisect-%d", bs->cfg.reports_dir, stamp, n) :
			      xasprintf("%s/%s-bisect", bs->cfg.reports_dir, stamp);
		if (!path_exists(d))
			bs->dir = d;
		else
			free(d);
	}
	if (!bs->dir || mkdir_p(bs->dir, 0755))
		return lab_error("cannot create a bisection folder in %s", bs->cfg.reports_dir);
	/* <reports>/latest-bisect -> it, as reports/latest is for sessions. */
	char *link = xasprintf("%s/latest-bisect", bs->cfg.reports_dir);
	char *tmp = xasprintf("%s/.latest-bisect.%ld", bs->cfg.reports_dir, (long)getpid());
	unlink(tmp);
	if (symlink(path_basename(bs->dir), tmp) || rename(tmp, link))
		warning("cannot point %s at %s: %s", link, bs->dir, strerror(errno));
	unlink(tmp);
	free(tmp);
	free(link);
	return LAB_OK;
}

/*
 * --confirmed (`mglrulab watch`): the session that found the regression is
 * the confirm step, measured once. The step's folder links to it (a
 * relative link: the reports folder may move), so the step reads like any
 * other.
 */
static int adopt_confirmed(struct bisect *bs)
{
	struct strbuf err = STRBUF_INIT;
	struct bisect_step st;
	json_t *step = add_step(bs, "confirm", bs->base, bs->series, &st), *res = NULL;
	char *real = realpath(bs->o->confirmed, NULL);
	char *dir = xasprintf("%s/%s", bs->dir, st.dir), *link = NULL, *target = NULL;
	char *reports = realpath(bs->cfg.reports_dir, NULL);
	const char *bad;
	int r = LAB_OK;

	if (!real || !reports) {
		r = lab_error("bisect: %s: %s", real ? bs->cfg.reports_dir : bs->o->confirmed,
			      strerror(errno));
		goto out;
	}
	if (strncmp(real, reports, strlen(reports)) || real[strlen(reports)] != '/' ||
	    strchr(real + strlen(reports) + 1, '/')) {
		r = lab_error("bisect: the confirmed session %s is not in %s", real, reports);
		goto out;
	}
	res = report_results(real, &err);
	bad = res ? invalid_metric(res) : NULL;
	if (!res || bad) {
		r = lab_error("bisect: the confirmed session %s: %s", real,
			      res ? "a metric is invalid (too many failed runs)" : sb_str(&err));
		goto out;
	}
	link = xasprintf("%s/%s", dir, path_basename(real));
	target = xasprintf("../../../%s", path_basename(real));
	if (mkdir_p(dir, 0755) || (symlink(target, link) && errno != EEXIST)) {
		r = lab_error("cannot link %s to %s: %s", link, target, strerror(errno));
		goto out;
	}
	json_object_set_new(step, "session", json_string_lossy(real));
	json_object_set_new(step, "results", res);
	json_object_set_new(step, "state", json_string("done"));
	res = NULL;
	say("step %d (confirm): the session %s", (int)st.step, real);
out:
	json_decref(res);
	free(real);
	free(reports);
	free(dir);
	free(link);
	free(target);
	sb_release(&err);
	return r;
}

static int start(struct bisect *bs)
{
	struct bisect_opts *o = bs->o;
	const struct strvec *rk = &bs->cfg.run.kernels;
	const char *base = o->base ? o->base : rk->n > 0 ? rk->v[0] : NULL;
	const char *series = o->series ? o->series : rk->n > 1 ? rk->v[1] : NULL;
	struct strbuf err = STRBUF_INIT;
	int r;

	if (!base || !series)
		return user_error("bisect: name BASE and NEW, or two kernels in [run] kernels of %s",
				  bs->cfg.path);
	const struct kernel_cfg *k = config_kernel(&bs->cfg, series);
	if (!config_kernel(&bs->cfg, base) || !k)
		return user_error("bisect: no [kernel %s] in %s", config_kernel(&bs->cfg, base) ?
				  series : base, bs->cfg.path);
	if (!k->series.n)
		return user_error("bisect: [kernel %s] has no series to bisect", series);
	long n = kbuild_series_length(k, &err);
	if (n < 0) {
		r = user_error("bisect: [kernel %s] series: %s", series, sb_str(&err));
		sb_release(&err);
		return r;
	}
	sb_release(&err);
	if (n < 1)
		return user_error("bisect: the series of [kernel %s] has no patch", series);
	if (o->per_patch && n > BISECT_PER_PATCH_MAX)
		return user_error("bisect --per-patch: the series has %ld patches; per patch is for "
				  "series of up to %d (without it, the bisection probes about log2(N))",
				  n, BISECT_PER_PATCH_MAX);
	r = create_dir(bs);
	if (r)
		return r;
	json_t *wl = json_array();
	for (size_t i = 0; i < o->workloads.n; i++)
		json_array_append_new(wl, json_string(o->workloads.v[i]));
	bs->state = xjson_pack("{s:s, s:o, s:s, s:s, s:I, s:{s:I, s:f, s:b, s:o}, s:[], s:{}, s:[]}",
		"schema", BISECT_SCHEMA, "config", json_string_lossy(bs->cfg.path), "baseline", base,
		"series_kernel", series, "n", (json_int_t)n,
		"settings", "max_runs", (json_int_t)o->max_runs, "budget_s", o->budget_s,
		"per_patch", o->per_patch, "workloads", wl,
		"steps", "prefixes", "probes");
	json_object_set_new(bs->state, "complete", json_false());
	/* fixed for the bisection, like the other settings: a resume attributes as it began */
	if (o->attribute < 0)
		o->attribute = bs->cfg.run.attribute;
	json_object_set_new(json_object_get(bs->state, "settings"), "attribute",
			    json_string(config_attribute_name(o->attribute)));
	r = load_patches(bs, k);
	if (!r && (size_t)n != json_array_size(head_of(bs).patches))
		r = lab_error("bisect: the series counted %ld patches, then %zu", n,
			      json_array_size(head_of(bs).patches));
	if (!r && o->confirmed) {
		bs->base = base;
		bs->series = series;
		r = adopt_confirmed(bs);
	}
	return r ? r : save(bs);
}

static int resume(struct bisect *bs)
{
	const char *id = bs->o->resume_id;
	char *cand = !id ? xasprintf("%s/latest-bisect", bs->cfg.reports_dir) :
		     strchr(id, '/') ? xstrdup(id) : xasprintf("%s/%s", bs->cfg.reports_dir, id);
	char *path = xasprintf("%s/bisect.json", cand);
	struct strbuf err = STRBUF_INIT;
	json_t *st = bisect_state_load(path, &err);
	int r = LAB_OK;

	if (!st) {
		r = user_error("bisect --resume: %s", sb_str(&err));
		goto out;
	}
	bs->dir = realpath(cand, NULL);
	bs->state = st;
	struct bisect_head h = head_of(bs);
	bs->o->max_runs = h.settings.max_runs;
	bs->o->budget_s = h.settings.budget_s;
	bs->o->per_patch = h.settings.per_patch;
	bs->o->attribute = h.settings.attribute;
	strvec_clear(&bs->o->workloads);
	json_t *w;
	size_t i;
	json_array_foreach(h.settings.workloads, i, w)
		strvec_push(&bs->o->workloads, json_string_value(w));
	if (!bs->dir)
		r = lab_error("%s: %s", cand, strerror(errno));
	else if ((bs->complete = h.complete))
		say("%s is complete; printing its summary", bs->dir);
	else
		say("resuming %s", bs->dir);
out:
	sb_release(&err);
	free(path);
	free(cand);
	return r;
}

/* A bisection's own lock: two processes on one folder would measure steps twice. */
static int lock_dir(struct bisect *bs)
{
	char *path = xasprintf("%s/bisect.lock", bs->dir);
	char *who = xasprintf("pid %ld\n", (long)getpid());
	struct strbuf held = STRBUF_INIT;
	int r = LAB_OK;

	switch (lockfile_take(path, 0, who, &held, &bs->lock_fd)) {
	case LOCKFILE_TAKEN:
		break;
	case LOCKFILE_HELD:
		r = user_error("bisect: %s is held (%s)", path, sb_str(&held));
		break;
	case LOCKFILE_FAILED:
		r = lab_error("cannot lock %s: %s", path, strerror(errno));
		break;
	}
	sb_release(&held);
	free(who);
	free(path);
	return r;
}

/* Does NAME@0 resolve to the baseline's cache entry? Then the baseline stands for it. */
static void check_prefix0(struct bisect *bs)
{
	char kb[SHA256_HEX_LEN + 1], k0[SHA256_HEX_LEN + 1];
	struct strbuf err = STRBUF_INIT;
	char *name = xasprintf("%s%c0", bs->series, CONFIG_PREFIX_SEP);
	const struct kernel_cfg *base = config_kernel(&bs->cfg, bs->base);
	const struct kernel_cfg *p0;

	if (!kbuild_lookup(&bs->cfg, base, kb) &&
	    (p0 = config_kernel_resolve(&bs->cfg, name, &err)) && !kbuild_lookup(&bs->cfg, p0, k0))
		bs->base_is_prefix0 = !strcmp(kb, k0);
	sb_release(&err);
	free(name);
}

/* What the confirm step came to, when its status is LAB_OK (confirm()). */
enum confirm_outcome {
	SERIES_CONFIRMED,	/* a tracked metric moved: on to the search */
	SERIES_NOT_CONFIRMED,	/* none did: the bisection is finished, said so */
};

/*
 * The whole series against the baseline, what it came to in *@out.
 * Returns LAB_OK, or the status that stops the bisection (said).
 */
static LAB_MUST_CHECK int confirm(struct bisect *bs, struct strbuf *text,
				  enum confirm_outcome *out)
{
	json_t *res, *tracked;
	int r = run_step(bs, "confirm", bs->base, bs->series, NULL, RUN_ATTRIBUTE_OFF, &res);

	*out = SERIES_NOT_CONFIRMED;
	if (r)
		return r;
	tracked = tracked_metrics(res);
	json_object_set_new(bs->state, "tracked", tracked);
	sb_addf(text, "bisect %s..%s: %ld patch%s\n", bs->base, bs->series, bs->n, bs->n == 1 ? "" : "es");
	sb_addf(text, "whole series (%s against %s):\n", bs->series, bs->base);
	if (!json_array_size(tracked)) {
		struct step_results rs;

		step_results_decode(res, &rs);
		for (size_t i = 0; i < rs.n; i++) {
			if (!rs.v[i].primary)
				continue;
			sb_addf(text, "    %s %s: ", rs.v[i].workload, rs.v[i].metric);
			fmt_effect(text, &rs.v[i]);
			sb_addc(text, '\n');
		}
		step_results_release(&rs);
		sb_adds(text, "\nthe whole-series change was not confirmed: no primary metric moved "
			"(improvement or regression); nothing to bisect");
		sb_adds(text, strstr(sb_str(text), " inconclusive\n") ?
			" (an inconclusive verdict may decide with more runs: --max-runs, --budget)\n" : "\n");
		return finish(bs, xjson_pack("{s:s}", "outcome", "not-confirmed"), text) ?
		       LAB_ELAB : LAB_OK;
	}
	*out = SERIES_CONFIRMED;
	fmt_tracked(text, tracked, res);
	return save(bs);
}

/* --json FILE: bisect_summary_json(), or an error naming the file. */
static int write_summary(const struct bisect *bs, int status)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	bisect_summary_json(bs->dir, bs->state, status, &sb);
	if (write_user_output(bs->o->json, sb.buf, sb.len))
		r = lab_error("cannot write %s: %s", user_output_name(bs->o->json),
			      user_file_strerror(errno));
	sb_release(&sb);
	return r;
}

/* `mglrulab watch`'s reports folder and series kernel (bisect_opts). */
static int callers_config(struct bisect *bs)
{
	const struct bisect_opts *o = bs->o;
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	if (o->reports_dir) {
		free(bs->cfg.reports_dir);
		bs->cfg.reports_dir = xstrdup(o->reports_dir);
	}
	if (o->series_kernel && session_series_kernel_add(&bs->cfg, o->series_kernel, &err))
		r = user_error("bisect: %s", sb_str(&err));
	sb_release(&err);
	return r;
}

int bisect_main(struct bisect_opts *o)
{
	struct bisect bs = { .o = o, .lock_fd = -1, .saved_stdout = -1 };
	struct strbuf text = STRBUF_INIT;
	enum confirm_outcome confirmed;
	int r = config_load_or_report(o->config, &bs.cfg);

	if (!r)
		r = callers_config(&bs);
	if (r)
		goto out;
	fflush(stdout);
	bs.saved_stdout = dup(1);
	if (bs.saved_stdout >= 0)
		dup2(2, 1);
	if (interrupt_catch()) {
		r = lab_error("cannot set up signal handling: %s", strerror(errno));
		goto out;
	}
	if (mkdir_p(bs.cfg.reports_dir, 0755)) {
		r = lab_error("cannot create %s: %s", bs.cfg.reports_dir, strerror(errno));
		goto out;
	}
	r = o->resume ? resume(&bs) : start(&bs);
	if (!r)
		r = lock_dir(&bs);
	if (r)
		goto out;
	/* a killed bisection's bisect.json.tmp.*: the steps' sessions sweep their own */
	if (o->resume)
		remove_atomic_leftovers(bs.dir);
	struct bisect_head h = head_of(&bs);
	bs.base = h.baseline;
	bs.series = h.series_kernel;
	bs.n = h.n;
	if (!bs.base || !bs.series || bs.n < 1 || json_array_size(h.patches) != (size_t)bs.n) {
		r = user_error("%s/bisect.json: baseline, series_kernel, n or patches missing", bs.dir);
		goto out;
	}
	if (!config_kernel(&bs.cfg, bs.base) || !config_kernel(&bs.cfg, bs.series)) {
		r = user_error("bisect: %s no longer has [kernel %s] or [kernel %s]", bs.cfg.path,
			       bs.base, bs.series);
		goto out;
	}
	check_prefix0(&bs);
	r = confirm(&bs, &text, &confirmed);
	/* not confirmed: said so, done */
	if (!r && confirmed == SERIES_CONFIRMED)
		r = o->per_patch ? per_patch(&bs, &text) : search(&bs, &text);
out:
	if (r && bs.dir && o->series_kernel)
		term_printf(stderr, "bisection %s stopped; the next watch goes on with it\n", bs.dir);
	else if (r && bs.dir)
		term_printf(stderr, "bisection stopped; continue with:\n  mglrulab bisect --resume %s -c %s\n",
			    path_basename(bs.dir), bs.cfg.path ? bs.cfg.path : o->config);
	if (bs.lock_fd >= 0)
		close(bs.lock_fd);
	for (size_t i = 0; i < bs.nr_holds; i++)
		if (bs.holds[i] >= 0)
			close(bs.holds[i]);
	free(bs.holds);
	if (bs.saved_stdout >= 0) {
		fflush(stdout);
		dup2(bs.saved_stdout, 1);
		close(bs.saved_stdout);
	}
	if (o->json && bs.dir && write_summary(&bs, r) && r == LAB_OK)
		r = LAB_ELAB;
	json_decref(bs.state);
	free(bs.dir);
	config_release(&bs.cfg);
	sb_release(&text);
	return r;
}
