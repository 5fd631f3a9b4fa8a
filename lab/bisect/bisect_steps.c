// SPDX-License-Identifier: GPL-2.0
/*
 * A bisection's steps, each one session of two kernels: their results
 * (bisect_step_results()), the step found, added, run or resumed in
 * bisect.json, and the prefix kernels NAME@K built for them.
 */
#include "bisect_priv.h"
#include "bisect_doc.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild.h"
#include "report_result.h"
#include "report_view.h"
#include "session.h"
#include "stats.h"
#include "xjson.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

json_t *bisect_report_results(const char *session_dir, struct sdoc_array *out,
			      struct strbuf *err)
{
	char *path = xasprintf("%s/report.json", session_dir);
	json_error_t jerr;
	json_t *rep = json_load_file(path, 0, &jerr), *res = NULL;

	*out = (struct sdoc_array){ 0 };
	if (!json_is_object(rep))
		sb_addf(err, "%s: %s", path, rep ? "not a JSON object" : jerr.text);
	else
		res = bisect_step_results(rep);
	/* bisect_step_results() writes what the table reads: a failure is the lab's own */
	if (res && bisect_doc_results(res, out)) {
		sb_addf(err, "%s: its results are not bisect.json's", path);
		json_decref(res);
		res = NULL;
	}
	json_decref(rep);
	free(path);
	return res;
}

/* improvement or regression: the step says the two kernels differ. */
int bisect_decisive(const struct step_result *r)
{
	return r && (r->verdict == VERDICT_IMPROVEMENT || r->verdict == VERDICT_REGRESSION);
}

/* The primaries, or every metric when there are none: what a step decides on. */
int bisect_any_primary(const struct step_results *rs)
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
const char *bisect_invalid_metric(const struct sdoc_array *results)
{
	struct step_results rs;
	const char *bad = NULL;
	int primaries;

	step_results_of(results, &rs);
	primaries = bisect_any_primary(&rs);
	for (size_t i = 0; i < rs.n && !bad; i++)
		if ((!primaries || rs.v[i].primary) && rs.v[i].verdict == VERDICT_INVALID)
			bad = rs.v[i].metric;
	step_results_release(&rs);
	return bad;
}

/* --- steps: one session each --- */

long bisect_step_index(const struct bisect *bs, const char *a, const char *b)
{
	const struct bisect_doc_step *v = bs->doc.steps.v;

	for (size_t i = 0; i < bs->doc.steps.n; i++)
		if (!strcmp(v[i].a, a) && !strcmp(v[i].b, b))
			return (long)i;
	return -1;
}

const struct bisect_doc_step *bisect_find_step(const struct bisect *bs, const char *a,
					       const char *b)
{
	long i = bisect_step_index(bs, a, b);

	return i < 0 ? NULL : (const struct bisect_doc_step *)bs->doc.steps.v + i;
}

static int session_started(const char *reports_dir)
{
	char *p = xasprintf("%s/latest/session.json", reports_dir);
	int ok = is_regular_file(p);

	free(p);
	return ok;
}

size_t bisect_add_step(struct bisect *bs, const char *purpose, const char *a, const char *b)
{
	size_t nr = bs->doc.steps.n + 1, i;
	char *rel = xasprintf("steps/%02zu-%s", nr, purpose);
	struct bisect_doc_step new;

	sdoc_fields_init(bisect_doc_step_fields, &new);
	new.step = (long long)nr;
	new.purpose = purpose;
	new.a = a;
	new.b = b;
	new.dir = rel;
	new.state = "running";
	i = bisect_doc_add_step(&bs->doc, &new);
	free(rel);
	return i;
}

/*
 * Step @st's report.json, found relative to the bisection's folder (a
 * bisection moved elsewhere still finds it); NULL with why in @err.
 */
json_t *bisect_step_report(const struct bisect *bs, const struct bisect_doc_step *st,
			   struct strbuf *err)
{
	char *rel = bisect_step_path(st->dir, st->session, "report.json"), *path;
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
static int step_measured(const struct bisect *bs, const struct bisect_doc_step *st,
			 int attribute)
{
	struct strbuf err = STRBUF_INIT;
	json_t *rep;
	int has;

	if (strcmp(st->state, "done"))
		return 0;
	if (attribute == RUN_ATTRIBUTE_OFF || bs->complete)
		return 1;
	rep = bisect_step_report(bs, st, &err);
	has = report_attr_json(rep) != NULL;
	json_decref(rep);
	sb_release(&err);
	if (!has)
		bisect_say("step %d: its session again, for the attribution runs", (int)st->step);
	return has;
}

/*
 * The coherence runs of a step (docs/coherence.md): lab.conf's [run]
 * coherence (-1) for the whole series' confirm step and the culprit's own
 * step, as `run --ab` would run them, so a series whose effect is cache
 * lines gets the model's figures where its answer is read; none for the
 * probes, many sessions that only place the change.
 */
static int step_coherence(const char *purpose)
{
	return !strcmp(purpose, "confirm") || !strcmp(purpose, "own-effect") ? -1 :
	       RUN_ATTRIBUTE_OFF;
}

/* The session of step @i, as bisect_run_step() starts or resumes it in @dir. */
static int step_session(struct bisect *bs, size_t i, const char *dir,
			const struct seq_placements *place, int attribute)
{
	const struct bisect_doc_step *st = (const struct bisect_doc_step *)bs->doc.steps.v + i;
	struct session_opts so = {
		.config = bs->o->config, .mode = SESSION_AB, .warmups = -1,
		.fail_on = FAIL_ON_NONE, .until_decided = 1, .max_runs = bs->o->max_runs,
		.budget_s = bs->o->budget_s, .reports_dir = dir, .no_stdout_report = 1,
		.placement = place, .attribute = attribute, .series_kernel = bs->o->series_kernel,
		.coherence = step_coherence(st->purpose),
		/* A step that failed starts a new session: its failed runs are on record. */
		.resume = session_started(dir) && strcmp(st->state, "failed"),
	};
	int r;

	bisect_say("step %d (%s): %s against %s", (int)st->step, st->purpose, st->a, st->b);
	if (!so.resume) {
		strvec_push(&so.kernel_names, st->a);
		strvec_push(&so.kernel_names, st->b);
		strvec_pushv(&so.workloads, (const char *const *)bs->o->workloads.v);
	} else {
		so.budget_s = 0;	/* the step keeps its budget: a --budget would raise it */
	}
	r = session_main(&so);
	strvec_clear(&so.kernel_names);
	strvec_clear(&so.workloads);
	if (!r && interrupted())
		r = LAB_ELAB;
	return r;
}

/*
 * Step @i's session measured: its results recorded (done), or the step
 * failed (a metric invalid) and why. The step's session folder in @dir.
 */
static int step_record(struct bisect *bs, size_t i, const char *dir)
{
	const struct bisect_doc_step *st = (const struct bisect_doc_step *)bs->doc.steps.v + i;
	struct strbuf err = STRBUF_INIT;
	struct sdoc_array res = { 0 };
	char *latest = xasprintf("%s/latest", dir);
	char *real = realpath(latest, NULL);
	json_t *json = real ? bisect_report_results(real, &res, &err) : NULL;
	const char *bad = json ? bisect_invalid_metric(&res) : NULL;
	int r;

	if (!json) {
		r = lab_error("step %s against %s: no report: %s", st->a, st->b,
			      real ? sb_str(&err) : strerror(errno));
	} else if (bad) {
		r = lab_error("step %s against %s: %s is invalid (too many failed runs; see %s/logs/):"
			      " the lab is failing, not the kernels; --resume runs the step again",
			      st->a, st->b, bad, real);
		bisect_doc_step_measured(&bs->doc, i, real, NULL);
		if (bisect_save(bs))
			r = LAB_ELAB;	/* bisect_save() named the file */
	} else {
		bisect_doc_step_measured(&bs->doc, i, real, &res);
		r = bisect_save(bs);
	}
	bisect_doc_results_release(&res);
	json_decref(json);
	free(real);
	free(latest);
	sb_release(&err);
	return r;
}

/*
 * A step already measured, in this bisection or on a resume, is never run
 * again.
 */
int bisect_run_step(struct bisect *bs, const char *purpose, const char *a, const char *b,
		    const struct seq_placements *place, int attribute, struct sdoc_array *results)
{
	long i = bisect_step_index(bs, a, b);
	const struct bisect_doc_step *v = bs->doc.steps.v;
	char *dir;
	int r;

	*results = (struct sdoc_array){ 0 };
	if (i >= 0 && step_measured(bs, &v[i], attribute)) {
		*results = v[i].results;
		return LAB_OK;
	}
	if (i < 0) {
		i = (long)bisect_add_step(bs, purpose, a, b);
		r = bisect_save(bs);
		if (r)
			return r;
	}
	v = bs->doc.steps.v;
	dir = xasprintf("%s/%s", bs->dir, v[i].dir);
	if (mkdir_p(dir, 0755))
		r = lab_error("cannot create %s: %s", dir, strerror(errno));
	else
		r = step_session(bs, (size_t)i, dir, place, attribute);
	if (!r)
		r = step_record(bs, (size_t)i, dir);
	if (!r)
		*results = ((const struct bisect_doc_step *)bs->doc.steps.v)[i].results;
	free(dir);
	return r;
}

/* --- prefixes --- */

/*
 * Build prefix @k, what it came to in *@out. Returns LAB_OK, or the
 * status that stops the bisection (said): a user error (the prefix does
 * not resolve, its patches no longer apply) or the lab's.
 */
LAB_MUST_CHECK int bisect_build_prefix(struct bisect *bs, long k, enum prefix_build *out)
{
	char *name = bisect_prefix_name(bs, k);
	struct strbuf err = STRBUF_INIT;
	struct bisect_doc_prefix pre;
	struct kbuild_result res;
	int builds, r;

	/* 1 builds, 0 does not, -1 not known yet (no entry, or none said) */
	bisect_doc_prefix_at(&bs->doc, k, &pre);
	builds = pre.builds;
	sdoc_fields_init(bisect_prefix_fields, &pre);
	pre.kernel = name;
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
		bisect_say("prefix %ld (%s) does not build: skipped, as git bisect skip does", k, name);
		pre.builds = 0;
		bisect_doc_set_prefix(&bs->doc, k, &pre);
		*out = PREFIX_UNBUILDABLE;
		r = bisect_save(bs);
	} else if (!r) {
		pre.builds = 1;
		pre.key = res.key;
		pre.cache_hit = !!res.cache_hit;
		pre.seconds = res.seconds;
		bisect_doc_set_prefix(&bs->doc, k, &pre);
		r = bisect_save(bs);
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
