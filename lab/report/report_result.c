// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's one decoder (report_result.h). The keys of a result
 * are read here and in the analysis that writes them (report_model*.c),
 * nowhere else after the analysis.
 *
 * Reading is typed and total: each member is either what the schema says,
 * absent or null (NaN, 0, NULL), or an error naming it. The first error is
 * kept; later members are still read so that the record is whole.
 */
#include "report_result.h"
#include "escape.h"
#include "report.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rd {
	struct strbuf *err;
	const char *where;	/* "comparison.ci." etc., or "" */
	int failed;
};

static void rd_fail(struct rd *r, const char *key, const char *want, const json_t *v)
{
	if (r->failed++)
		return;
	sb_addf(r->err, "%s%s: expected %s, got %s", r->where, key, want,
		v ? xjson_type_name(v) : "nothing");
}

/* The member, or NULL when absent or null. */
static const json_t *rd_get(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_null(v) ? NULL : v;
}

static double rd_num(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = rd_get(obj, key);

	if (!v)
		return NAN;
	if (!json_is_number(v)) {
		rd_fail(r, key, "a number or null", v);
		return NAN;
	}
	return json_number_value(v);
}

/* A count; absent or null is 0. Past what a long holds is out of range. */
static long rd_long(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = rd_get(obj, key);
	double d;

	if (!v)
		return 0;
	d = json_is_number(v) ? json_number_value(v) : NAN;
	if (!(fabs(d) < 1e15)) {
		rd_fail(r, key, "an integer or null", v);
		return 0;
	}
	return (long)d;
}

static int rd_bool(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = rd_get(obj, key);

	if (v && !json_is_boolean(v))
		rd_fail(r, key, "a boolean or null", v);
	return json_is_true(v);
}

static const char *rd_str(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = rd_get(obj, key);

	if (v && !json_is_string(v)) {
		rd_fail(r, key, "a string or null", v);
		return NULL;
	}
	return json_string_value(v);
}

/* An object member: NULL when absent or null (or not an object: said). */
static const json_t *rd_obj(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = rd_get(obj, key);

	if (v && !json_is_object(v)) {
		rd_fail(r, key, "an object", v);
		return NULL;
	}
	return v;
}

static const json_t *rd_arr(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = rd_get(obj, key);

	if (v && !json_is_array(v)) {
		rd_fail(r, key, "an array", v);
		return NULL;
	}
	return v;
}

/* Element @i of a two-number array ("median": [baseline, patched]). */
static double pair_num(const json_t *a, size_t i)
{
	const json_t *v = json_array_get(a, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Read members of @obj under "@where@key." (the previous prefix is restored by the caller). */
static const char *enter(struct rd *r, char **buf, const char *key)
{
	const char *old = r->where;

	*buf = xasprintf("%s%s.", old, key);
	r->where = *buf;
	return old;
}

static void leave(struct rd *r, char *buf, const char *old)
{
	r->where = old;
	free(buf);
}

static void read_numbers(struct rd *r, const json_t *a, const char *key, double **vals,
			 long **ints, size_t *n)
{
	const json_t *v;
	size_t i;

	*n = json_array_size(a);
	if (vals)
		*vals = xcalloc(*n + 1, sizeof(**vals));
	if (ints)
		*ints = xcalloc(*n + 1, sizeof(**ints));
	json_array_foreach(a, i, v) {
		if (!json_is_number(v) && !(vals && json_is_null(v))) {
			rd_fail(r, key, vals ? "numbers or null" : "numbers", v);
			continue;
		}
		if (vals)
			(*vals)[i] = json_is_number(v) ? json_number_value(v) : NAN;
		if (ints)
			(*ints)[i] = json_is_number(v) ? (long)json_number_value(v) : 0;
	}
}

static void read_median_ci(struct rd *r, const json_t *ci, struct result_side *s)
{
	char *buf;
	const char *old = enter(r, &buf, "median_ci");

	s->median_ci.lo = rd_num(r, ci, "lo");
	s->median_ci.hi = rd_num(r, ci, "hi");
	s->median_ci.achieved = rd_num(r, ci, "achieved");
	s->median_ci.lo_order = rd_long(r, ci, "lo_order");
	s->median_ci.hi_order = rd_long(r, ci, "hi_order");
	s->median_ci.ok = rd_bool(r, ci, "ok");
	s->median_ci.reason = rd_str(r, ci, "reason");
	leave(r, buf, old);
}

static void read_side(struct rd *r, const json_t *res, const char *key, struct result_side *s)
{
	const json_t *j = rd_obj(r, res, key), *d;
	char *buf;
	const char *old = enter(r, &buf, key);
	size_t nruns;

	s->n = rd_long(r, j, "n");
	s->failed = rd_long(r, j, "failed");
	s->missing = rd_long(r, j, "missing");
	s->outliers = rd_long(r, j, "outliers");
	s->median = rd_num(r, j, "median");
	s->min = rd_num(r, j, "min");
	s->q1 = rd_num(r, j, "q1");
	s->q3 = rd_num(r, j, "q3");
	s->max = rd_num(r, j, "max");
	s->mean = rd_num(r, j, "mean");
	s->stddev = rd_num(r, j, "stddev");
	s->cv = rd_num(r, j, "cv");
	s->mad = rd_num(r, j, "mad");
	read_median_ci(r, rd_obj(r, j, "median_ci"), s);
	d = rd_obj(r, j, "drift");
	s->drift.valid = json_is_true(json_object_get(d, "valid"));
	s->drift.rho = json_is_number(json_object_get(d, "rho")) ?
		       json_number_value(json_object_get(d, "rho")) : NAN;
	s->drift.p = json_is_number(json_object_get(d, "p")) ?
		     json_number_value(json_object_get(d, "p")) : NAN;
	read_numbers(r, rd_arr(r, j, "values"), "values", &s->values, NULL, &s->nvalues);
	read_numbers(r, rd_arr(r, j, "runs"), "runs", NULL, &s->runs, &nruns);
	if (nruns != s->nvalues)
		rd_fail(r, "runs", "as many run numbers as values", rd_arr(r, j, "runs"));
	read_numbers(r, rd_arr(r, j, "outlier_runs"), "outlier_runs", NULL, &s->outlier_runs,
		     &s->noutlier_runs);
	leave(r, buf, old);
}

static void read_comparison(struct rd *r, const json_t *c, struct result_comparison *out)
{
	char *buf, *buf2;
	const char *old = enter(r, &buf, "comparison"), *old2;
	const json_t *ci, *mw, *hl, *pd;

	out->present = c != NULL;
	out->ratio = rd_num(r, c, "ratio");
	out->delta_pct = rd_num(r, c, "delta_pct");
	out->q = rd_num(r, c, "q");
	out->mde_pct = rd_num(r, c, "mde_pct");
	out->all_equal = rd_bool(r, c, "all_equal");
	ci = rd_obj(r, c, "ci");
	mw = rd_obj(r, c, "mann_whitney");
	hl = rd_obj(r, c, "hodges_lehmann");
	pd = rd_obj(r, c, "paired");

	old2 = enter(r, &buf2, "ci");
	out->ci.lo = rd_num(r, ci, "lo");
	out->ci.hi = rd_num(r, ci, "hi");
	out->ci.level = rd_num(r, ci, "level");
	out->ci.method = rd_str(r, ci, "method");
	out->ci.resamples = rd_long(r, ci, "resamples");
	leave(r, buf2, old2);

	old2 = enter(r, &buf2, "mann_whitney");
	out->mann_whitney.u = rd_num(r, mw, "u");
	out->mann_whitney.p = rd_num(r, mw, "p");
	out->mann_whitney.method = rd_str(r, mw, "method");
	leave(r, buf2, old2);

	old2 = enter(r, &buf2, "hodges_lehmann");
	out->hodges_lehmann.shift = rd_num(r, hl, "shift");
	out->hodges_lehmann.lo = rd_num(r, hl, "lo");
	out->hodges_lehmann.hi = rd_num(r, hl, "hi");
	out->hodges_lehmann.ratio = rd_num(r, hl, "ratio");
	out->hodges_lehmann.ratio_lo = rd_num(r, hl, "ratio_lo");
	out->hodges_lehmann.ratio_hi = rd_num(r, hl, "ratio_hi");
	out->hodges_lehmann.level = rd_num(r, hl, "level");
	leave(r, buf2, old2);

	old2 = enter(r, &buf2, "paired");
	out->paired.present = pd != NULL;
	out->paired.valid = rd_bool(r, pd, "valid");
	out->paired.pairs = rd_long(r, pd, "pairs");
	out->paired.used = rd_long(r, pd, "used");
	out->paired.median_ratio = rd_num(r, pd, "median_ratio");
	out->paired.hl_ratio = rd_num(r, pd, "hl_ratio");
	out->paired.w_plus = rd_num(r, pd, "w_plus");
	out->paired.p = rd_num(r, pd, "p");
	out->paired.method = rd_str(r, pd, "method");
	leave(r, buf2, old2);
	leave(r, buf, old);
}

static void read_pooled(struct rd *r, const json_t *res, struct result_pooled *out)
{
	const json_t *p = rd_obj(r, res, "pooled"), *h = rd_obj(r, res, "heterogeneity"), *ci;
	char *buf;
	const char *old = enter(r, &buf, "pooled");

	out->present = p != NULL;
	out->method = rd_str(r, p, "method");
	out->basis = rd_str(r, p, "basis");
	out->p_method = rd_str(r, p, "p_method");
	out->hosts = rd_long(r, p, "hosts");
	out->ratio = rd_num(r, p, "ratio");
	out->delta_pct = rd_num(r, p, "delta_pct");
	out->z = rd_num(r, p, "z");
	out->p = rd_num(r, p, "p");
	ci = rd_obj(r, p, "ci");
	out->lo = json_is_number(json_object_get(ci, "lo")) ?
		  json_number_value(json_object_get(ci, "lo")) : NAN;
	out->hi = json_is_number(json_object_get(ci, "hi")) ?
		  json_number_value(json_object_get(ci, "hi")) : NAN;
	out->level = json_is_number(json_object_get(ci, "level")) ?
		     json_number_value(json_object_get(ci, "level")) : NAN;
	leave(r, buf, old);

	old = enter(r, &buf, "heterogeneity");
	out->heterogeneity.present = h != NULL;
	out->heterogeneity.q = rd_num(r, h, "q");
	out->heterogeneity.df = rd_long(r, h, "df");
	out->heterogeneity.p = rd_num(r, h, "p");
	out->heterogeneity.i2 = rd_num(r, h, "i2");
	out->heterogeneity.alpha = rd_num(r, h, "alpha");
	out->heterogeneity.overlap = rd_bool(r, h, "overlap");
	out->heterogeneity.heterogeneous = rd_bool(r, h, "heterogeneous");
	leave(r, buf, old);
}

static void read_hosts(struct rd *r, const json_t *res, struct result_record *out)
{
	const json_t *a = rd_arr(r, res, "hosts"), *h;
	size_t i;

	out->nhosts = json_array_size(a);
	out->hosts = out->nhosts ? xcalloc(out->nhosts, sizeof(*out->hosts)) : NULL;
	json_array_foreach(a, i, h) {
		struct result_host *x = &out->hosts[i];
		const json_t *n = json_object_get(h, "n"), *med = json_object_get(h, "median");
		const json_t *ci = json_object_get(h, "ci");

		if (!json_is_object(h) || !json_is_string(json_object_get(h, "host"))) {
			rd_fail(r, "hosts", "objects with a host name", h);
			x->host = "";
			continue;
		}
		x->host = json_string_value(json_object_get(h, "host"));
		x->n[0] = json_integer_value(json_array_get(n, 0));
		x->n[1] = json_integer_value(json_array_get(n, 1));
		x->median[0] = pair_num(med, 0);
		x->median[1] = pair_num(med, 1);
		x->lo = pair_num(ci, 0);
		x->hi = pair_num(ci, 1);
		x->ratio = json_is_number(json_object_get(h, "ratio")) ?
			   json_number_value(json_object_get(h, "ratio")) : NAN;
		x->delta_pct = json_is_number(json_object_get(h, "delta_pct")) ?
			       json_number_value(json_object_get(h, "delta_pct")) : NAN;
		x->pooled = json_is_true(json_object_get(h, "pooled"));
	}
}

static void read_warnings(struct rd *r, const json_t *res, struct result_record *out)
{
	const json_t *a = rd_arr(r, res, "warnings"), *w;
	size_t i;

	out->nwarnings = json_array_size(a);
	out->warnings = out->nwarnings ? xcalloc(out->nwarnings, sizeof(*out->warnings)) : NULL;
	json_array_foreach(a, i, w) {
		out->warnings[i].kind = jget_str(w, "kind", "");
		out->warnings[i].message = jget_str(w, "message", "");
	}
}

static void read_sequential(struct rd *r, const json_t *res, struct result_sequential *out)
{
	const json_t *s = rd_obj(r, res, "sequential");
	char *buf;
	const char *old = enter(r, &buf, "sequential");

	out->present = s != NULL;
	out->look = rd_long(r, s, "look");
	out->looks = rd_long(r, s, "looks");
	out->runs_at_look = rd_long(r, s, "runs_at_look");
	out->alpha_look = rd_num(r, s, "alpha_look");
	out->p = rd_num(r, s, "p");
	out->p_adjusted = rd_num(r, s, "p_adjusted");
	out->lo = rd_num(r, s, "lo");
	out->hi = rd_num(r, s, "hi");
	leave(r, buf, old);
}

/* A string that must be there. */
static const char *rd_req_str(struct rd *r, const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_string(v)) {
		rd_fail(r, key, "a string", v);
		return NULL;
	}
	return json_string_value(v);
}

/* What names the result and its verdict: required. */
static int read_identity(struct rd *r, const json_t *res, struct result_record *out)
{
	const char *verdict;

	out->is_counter = json_object_get(res, "counter") != NULL;
	out->workload = rd_req_str(r, res, "workload");
	out->metric = rd_req_str(r, res, out->is_counter ? "counter" : "metric");
	/* A one-kernel session compares nothing: its results have no verdict. */
	verdict = rd_str(r, res, out->is_counter ? "change" : "verdict");
	if (r->failed)
		return -1;
	/* An unknown verdict is never a pass (stats_verdict_from_id()). */
	out->change_id = out->is_counter ? verdict : NULL;
	out->verdict = stats_verdict_from_id(verdict);
	out->verdict_id = verdict ? stats_verdict_id(out->verdict) : NULL;
	out->group = out->is_counter ? rd_str(r, res, "group") : NULL;
	out->name = out->is_counter ? rd_str(r, res, "name") : NULL;
	return 0;
}

/*
 * The verdict of a session on several hosts rests on "pooled" when its
 * basis says so (too few hosts with runs: "all-runs", the comparison).
 */
void result_record_set_basis(struct result_record *out)
{
	const struct result_comparison *c = &out->comparison;
	const struct result_pooled *p = &out->pool;

	out->pooled = p->present && p->basis && !strcmp(p->basis, "pooled");
	out->change = out->pooled ?
		(struct result_change){ p->ratio, p->delta_pct, p->lo, p->hi } :
		(struct result_change){ c->ratio, c->delta_pct, c->ci.lo, c->ci.hi };
	/* A sequential primary's verdict rests on its looks' intervals intersected. */
	if (out->sequential.present && isfinite(out->sequential.lo) && isfinite(out->sequential.hi)) {
		out->change.lo = out->sequential.lo;
		out->change.hi = out->sequential.hi;
	}
}

int result_record_decode(const json_t *res, struct result_record *out, struct strbuf *err)
{
	struct rd r = { .err = err, .where = "" };
	double needed;

	memset(out, 0, sizeof(*out));
	out->json = res;
	if (!json_is_object(res)) {
		sb_addf(err, "expected an object, got %s", xjson_type_name(res));
		return -1;
	}
	if (read_identity(&r, res, out))
		return -1;
	out->unit = rd_str(&r, res, "unit");
	out->better = rd_str(&r, res, "better");
	out->marker = rd_str(&r, res, "marker");
	out->reason = rd_str(&r, res, "reason");
	out->family = rd_str(&r, res, "family");
	out->band_source = rd_str(&r, res, "band_source");
	out->family_size = rd_long(&r, res, "family_size");
	out->threshold = rd_num(&r, res, "threshold");
	out->p_used = rd_num(&r, res, "p_used");
	out->used_q = rd_bool(&r, res, "used_q");
	out->primary = rd_bool(&r, res, "primary");
	out->final = rd_bool(&r, res, "final");
	needed = rd_num(&r, res, "runs_needed");
	out->runs_needed = isfinite(needed) && needed > 0 && needed < 1e15 ? (long)needed : 0;
	read_side(&r, res, "baseline", &out->side[0]);
	read_side(&r, res, "patched", &out->side[1]);
	out->summarized[0] = rd_get(rd_get(res, "baseline"), "outliers") != NULL;
	out->summarized[1] = rd_get(rd_get(res, "patched"), "outliers") != NULL;
	read_comparison(&r, rd_obj(&r, res, "comparison"), &out->comparison);
	read_pooled(&r, res, &out->pool);
	read_hosts(&r, res, out);
	read_warnings(&r, res, out);
	read_sequential(&r, res, &out->sequential);
	result_record_set_basis(out);
	return r.failed ? -1 : 0;
}

void result_record_clear(struct result_record *rec)
{
	struct strbuf err = STRBUF_INIT;
	struct rd r = { .err = &err, .where = "" };

	memset(rec, 0, sizeof(*rec));
	/* The readers of absent members: the decoder's own "none", whatever it is. */
	read_side(&r, NULL, "baseline", &rec->side[0]);
	read_side(&r, NULL, "patched", &rec->side[1]);
	read_comparison(&r, NULL, &rec->comparison);
	read_pooled(&r, NULL, &rec->pool);
	read_sequential(&r, NULL, &rec->sequential);
	rec->threshold = rd_num(&r, NULL, "threshold");
	rec->p_used = rd_num(&r, NULL, "p_used");
	/* No verdict reads as an unknown one: never a pass. */
	rec->verdict = stats_verdict_from_id(NULL);
	result_record_set_basis(rec);
	sb_release(&err);
}

const char *result_strings_add(struct result_strings *st, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	s = s ? s : "";
	sb_add_utf8_lossy(&sb, s, strlen(s));
	ALLOC_GROW(st->v, st->n + 1, st->alloc);
	st->v[st->n] = sb_detach(&sb);
	return st->v[st->n++];
}

void result_strings_release(struct result_strings *st)
{
	for (size_t i = 0; i < st->n; i++)
		free(st->v[i]);
	free(st->v);
	memset(st, 0, sizeof(*st));
}

void result_record_release(struct result_record *rec)
{
	for (int k = 0; k < 2; k++) {
		free(rec->side[k].values);
		free(rec->side[k].runs);
		free(rec->side[k].outlier_runs);
	}
	free(rec->hosts);
	free(rec->warnings);
	memset(rec, 0, sizeof(*rec));
}

struct result_record *report_records_of(const json_t *report, const char *member, size_t *n,
					size_t *bad)
{
	const json_t *results = json_object_get(report, member), *res;
	struct result_record *out;
	struct strbuf err = STRBUF_INIT;
	size_t i;

	*n = 0;
	if (bad)
		*bad = 0;
	if (!json_array_size(results))
		return NULL;
	out = xcalloc(json_array_size(results), sizeof(*out));
	json_array_foreach(results, i, res) {
		sb_reset(&err);
		if (!result_record_decode(res, &out[*n], &err)) {
			(*n)++;
			continue;
		}
		result_record_release(&out[*n]);
		if (bad)
			(*bad)++;
	}
	sb_release(&err);
	return out;
}

struct result_record *report_result_records(const json_t *report, size_t *n, size_t *bad)
{
	return report_records_of(report, "results", n, bad);
}

void result_records_free(struct result_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		result_record_release(&recs[i]);
	free(recs);
}

int result_record_has_warning(const struct result_record *rec, const char *kind)
{
	for (size_t i = 0; i < rec->nwarnings; i++)
		if (!strcmp(rec->warnings[i].kind, kind))
			return 1;
	return 0;
}
