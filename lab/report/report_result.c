// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's one definition and its decoder (report_result.h).
 * The tables below, a row per member in the order the analysis has always
 * written them, drive result_record_encode() (report_encode.c) and
 * result_record_decode() here, through session_doc.c's table codec. The
 * keys of a result are read here and in the analysis that writes them
 * (report_model*.c), nowhere else after the analysis.
 *
 * Reading is typed and total: each member is either what the schema says,
 * absent or null (NaN, 0, NULL), or an error naming it by its path
 * ("comparison.ci.lo: expected a number or null, got a string").
 */
#include "report_result.h"
#include "escape.h"
#include "report.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Offsets within the structs the rows describe, nested anonymous ones too. */
#define REC(f) .offset = offsetof(struct result_record, f)
#define SIDE(f) .offset = offsetof(struct result_side, f)
#define IN(type, outer, f) .offset = offsetof(type, outer.f) - offsetof(type, outer)
#define MCI(f) IN(struct result_side, median_ci, f)
#define DRIFT(f) IN(struct result_side, drift, f)
#define CMP(f) .offset = offsetof(struct result_comparison, f)
#define CI(f) IN(struct result_comparison, ci, f)
#define MW(f) IN(struct result_comparison, mann_whitney, f)
#define HL(f) IN(struct result_comparison, hodges_lehmann, f)
#define PAIR(f) IN(struct result_comparison, paired, f)
#define POOL(f) .offset = offsetof(struct result_pooled, f)
#define HET(f) IN(struct result_pooled, heterogeneity, f)
#define SEQ(f) .offset = offsetof(struct result_sequential, f)

/* --- the codecs of the arrays of structs --- */

/* @n longs (run numbers) as integers. */
static json_t *longs_json(const long *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

/* Numbers of @a into a new array of its size (+1: never NULL); -1 on one that is not. */
static int read_longs(const json_t *a, long **out, size_t *n, struct strbuf *why)
{
	const json_t *v;
	size_t i;

	*n = json_array_size(a);
	*out = xcalloc(*n + 1, sizeof(**out));
	json_array_foreach(a, i, v) {
		if (!json_is_number(v))
			return sb_addf(why, "expected numbers, got %s", xjson_type_name(v)), -1;
		(*out)[i] = (long)json_number_value(v);
	}
	return 0;
}

static json_t *runs_encode(const void *p)
{
	const struct result_side *s = p;

	return longs_json(s->runs, s->nvalues);
}

/* "runs" before "values": the run numbers say how many values there are. */
static int runs_decode(const json_t *j, void *p, struct strbuf *why)
{
	struct result_side *s = p;

	return read_longs(j, &s->runs, &s->nvalues, why);
}

static json_t *values_encode(const void *p)
{
	const struct result_side *s = p;
	json_t *a = json_array();

	for (size_t i = 0; i < s->nvalues; i++)
		json_array_append_new(a, jnum(s->values[i]));
	return a;
}

static int values_decode(const json_t *j, void *p, struct strbuf *why)
{
	struct result_side *s = p;
	const json_t *v;
	size_t i;

	s->values = xcalloc(s->nvalues + 1, sizeof(*s->values));
	if (json_array_size(j) != s->nvalues)
		return sb_addf(why, "expected as many values as run numbers, got %s",
			       xjson_type_name(j)), -1;
	json_array_foreach(j, i, v) {
		if (!json_is_number(v) && !json_is_null(v))
			return sb_addf(why, "expected numbers or null, got %s", xjson_type_name(v)), -1;
		s->values[i] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	return 0;
}

static json_t *outlier_runs_encode(const void *p)
{
	const struct result_side *s = p;

	return longs_json(s->outlier_runs, s->noutlier_runs);
}

static int outlier_runs_decode(const json_t *j, void *p, struct strbuf *why)
{
	struct result_side *s = p;

	return read_longs(j, &s->outlier_runs, &s->noutlier_runs, why);
}

static json_t *pair_json(double a, double b)
{
	return xjson_pack("[o, o]", jnum(a), jnum(b));
}

static json_t *hosts_encode(const void *p)
{
	const struct result_record *rec = p;
	json_t *hosts = json_array();

	for (size_t h = 0; h < rec->nhosts; h++) {
		const struct result_host *x = &rec->hosts[h];

		json_array_append_new(hosts, xjson_pack("{s:o, s:[I, I], s:o, s:o, s:o, s:o, s:b}",
			"host", json_string_lossy(x->host),
			"n", (json_int_t)x->n[0], (json_int_t)x->n[1],
			"median", pair_json(x->median[0], x->median[1]),
			"ratio", jnum(x->ratio), "delta_pct", jnum(x->delta_pct),
			"ci", pair_json(x->lo, x->hi), "pooled", x->pooled));
	}
	return hosts;
}

/* Element @i of a two-number array ("median": [baseline, patched]). */
static double pair_num(const json_t *a, size_t i)
{
	const json_t *v = json_array_get(a, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static int hosts_decode(const json_t *a, void *p, struct strbuf *why)
{
	struct result_record *out = p;
	const json_t *h;
	size_t i;

	out->nhosts = json_array_size(a);
	out->hosts = out->nhosts ? xcalloc(out->nhosts, sizeof(*out->hosts)) : NULL;
	json_array_foreach(a, i, h) {
		struct result_host *x = &out->hosts[i];
		const json_t *n = json_object_get(h, "n"), *ci = json_object_get(h, "ci");

		x->host = "";
		if (!json_is_object(h) || !json_is_string(json_object_get(h, "host")))
			return sb_addf(why, "expected objects with a host name, got %s",
				       xjson_type_name(h)), -1;
		x->host = json_string_value(json_object_get(h, "host"));
		x->n[0] = json_integer_value(json_array_get(n, 0));
		x->n[1] = json_integer_value(json_array_get(n, 1));
		x->median[0] = pair_num(json_object_get(h, "median"), 0);
		x->median[1] = pair_num(json_object_get(h, "median"), 1);
		x->lo = pair_num(ci, 0);
		x->hi = pair_num(ci, 1);
		x->ratio = json_is_number(json_object_get(h, "ratio")) ?
			   json_number_value(json_object_get(h, "ratio")) : NAN;
		x->delta_pct = json_is_number(json_object_get(h, "delta_pct")) ?
			       json_number_value(json_object_get(h, "delta_pct")) : NAN;
		x->pooled = json_is_true(json_object_get(h, "pooled"));
	}
	return 0;
}

static json_t *warnings_encode(const void *p)
{
	const struct result_record *rec = p;
	json_t *w = json_array();

	for (size_t i = 0; i < rec->nwarnings; i++)
		json_array_append_new(w, xjson_pack("{s:o, s:o}",
			"kind", json_string_lossy(rec->warnings[i].kind),
			"message", json_string_lossy(rec->warnings[i].message)));
	return w;
}

static int warnings_decode(const json_t *a, void *p, struct strbuf *why)
{
	struct result_record *out = p;
	const json_t *w;
	size_t i;

	(void)why;
	out->nwarnings = json_array_size(a);
	out->warnings = out->nwarnings ? xcalloc(out->nwarnings, sizeof(*out->warnings)) : NULL;
	json_array_foreach(a, i, w) {
		out->warnings[i].kind = jget_str(w, "kind", "");
		out->warnings[i].message = jget_str(w, "message", "");
	}
	return 0;
}

/* --- when a row is written --- */

static int is_metric(const void *p)
{
	return !((const struct result_record *)p)->is_counter;
}

static int is_counter(const void *p)
{
	return ((const struct result_record *)p)->is_counter;
}

/* A verdict (a counter's change): one kernel has none, and only its reason. */
static int has_verdict(const void *p)
{
	const struct result_record *rec = p;

	return (rec->is_counter ? rec->change_id : rec->verdict_id) != NULL;
}

static int metric_verdict(const void *p)
{
	return is_metric(p) && has_verdict(p);
}

static int counter_change(const void *p)
{
	return is_counter(p) && has_verdict(p);
}

static int summarized(const void *p)
{
	return ((const struct result_side *)p)->summarized;
}

static int pooled(const void *p)
{
	return ((const struct result_record *)p)->pool.present;
}

/* --- the tables --- */

static const struct sdoc_field median_ci_fields[] = {
	{ "lo", SK_NUMBER_OR_NULL, MCI(lo) },
	{ "hi", SK_NUMBER_OR_NULL, MCI(hi) },
	{ "lo_order", SK_LONG, MCI(lo_order) },
	{ "hi_order", SK_LONG, MCI(hi_order) },
	{ "achieved", SK_NUMBER_OR_NULL, MCI(achieved) },
	{ "ok", SK_FLAG, MCI(ok) },
	{ "reason", SK_STRING_OR_NULL, MCI(reason) },
	{ NULL },
};

static const struct sdoc_field drift_fields[] = {
	{ "valid", SK_FLAG, DRIFT(valid) },
	{ "rho", SK_NUMBER_OR_NULL, DRIFT(rho) },
	{ "p", SK_NUMBER_OR_NULL, DRIFT(p) },
	{ NULL },
};

/* A kernel's statistics are there when it has values (summarized). */
#define STAT .when = summarized
static const struct sdoc_field side_fields[] = {
	{ "n", SK_LONG, SIDE(n) },
	{ "failed", SK_LONG, SIDE(failed) },
	{ "missing", SK_LONG, SIDE(missing) },
	{ "median", SK_NUMBER_OR_NULL, SIDE(median), STAT },
	{ "median_ci", SK_OBJECT, SIDE(median_ci), .sub = median_ci_fields, STAT },
	{ "min", SK_NUMBER_OR_NULL, SIDE(min), STAT },
	{ "q1", SK_NUMBER_OR_NULL, SIDE(q1), STAT },
	{ "q3", SK_NUMBER_OR_NULL, SIDE(q3), STAT },
	{ "max", SK_NUMBER_OR_NULL, SIDE(max), STAT },
	{ "mean", SK_NUMBER_OR_NULL, SIDE(mean), STAT },
	{ "stddev", SK_NUMBER_OR_NULL, SIDE(stddev), STAT },
	{ "cv", SK_NUMBER_OR_NULL, SIDE(cv), STAT },
	{ "mad", SK_NUMBER_OR_NULL, SIDE(mad), STAT },
	{ "outliers", SK_LONG, SIDE(outliers), STAT },
	{ "drift", SK_OBJECT, SIDE(drift), .sub = drift_fields, STAT },
	{ "runs", SK_CODEC, 0, .json_type = "array", .encode = runs_encode, .decode = runs_decode },
	{ "values", SK_CODEC, 0, .json_type = "array", .encode = values_encode,
	  .decode = values_decode },
	{ "outlier_runs", SK_CODEC, 0, .json_type = "array", .encode = outlier_runs_encode,
	  .decode = outlier_runs_decode },
	{ NULL },
};

static const struct sdoc_field ci_fields[] = {
	{ "lo", SK_NUMBER_OR_NULL, CI(lo) },
	{ "hi", SK_NUMBER_OR_NULL, CI(hi) },
	{ "level", SK_NUMBER_OR_NULL, CI(level) },
	{ "method", SK_TEXT, CI(method), .if_null = "none" },
	{ "resamples", SK_LONG, CI(resamples) },
	{ NULL },
};

static const struct sdoc_field mann_whitney_fields[] = {
	{ "u", SK_NUMBER_OR_NULL, MW(u) },
	{ "p", SK_NUMBER_OR_NULL, MW(p) },
	{ "method", SK_TEXT, MW(method), .if_null = "none" },
	{ NULL },
};

static const struct sdoc_field hodges_lehmann_fields[] = {
	{ "shift", SK_NUMBER_OR_NULL, HL(shift) },
	{ "lo", SK_NUMBER_OR_NULL, HL(lo) },
	{ "hi", SK_NUMBER_OR_NULL, HL(hi) },
	{ "ratio", SK_NUMBER_OR_NULL, HL(ratio) },
	{ "ratio_lo", SK_NUMBER_OR_NULL, HL(ratio_lo) },
	{ "ratio_hi", SK_NUMBER_OR_NULL, HL(ratio_hi) },
	{ "level", SK_NUMBER_OR_NULL, HL(level) },
	{ NULL },
};

static const struct sdoc_field paired_fields[] = {
	{ "pairs", SK_LONG, PAIR(pairs) },
	{ "used", SK_LONG, PAIR(used) },
	{ "valid", SK_FLAG, PAIR(valid) },
	{ "median_ratio", SK_NUMBER_OR_NULL, PAIR(median_ratio) },
	{ "hl_ratio", SK_NUMBER_OR_NULL, PAIR(hl_ratio) },
	{ "w_plus", SK_NUMBER_OR_NULL, PAIR(w_plus) },
	{ "p", SK_NUMBER_OR_NULL, PAIR(p) },
	{ "method", SK_TEXT, PAIR(method), .if_null = "none" },
	{ NULL },
};

static const struct sdoc_field comparison_fields[] = {
	{ "ratio", SK_NUMBER_OR_NULL, CMP(ratio) },
	{ "delta_pct", SK_NUMBER_OR_NULL, CMP(delta_pct) },
	{ "all_equal", SK_FLAG, CMP(all_equal) },
	{ "ci", SK_OBJECT, CMP(ci), .sub = ci_fields },
	{ "mann_whitney", SK_OBJECT, CMP(mann_whitney), .sub = mann_whitney_fields },
	{ "hodges_lehmann", SK_OBJECT, CMP(hodges_lehmann), .sub = hodges_lehmann_fields },
	{ "mde_pct", SK_NUMBER_OR_NULL, CMP(mde_pct) },
	{ "paired", SK_OBJECT, CMP(paired), .sub = paired_fields, .has_present = 1, .or_null = 1 },
	{ "q", SK_NUMBER_OR_NULL, CMP(q) },
	{ NULL },
};

/* pooled.ci: members of struct result_pooled itself. */
static const struct sdoc_field pooled_ci_fields[] = {
	{ "lo", SK_NUMBER_OR_NULL, POOL(lo) },
	{ "hi", SK_NUMBER_OR_NULL, POOL(hi) },
	{ "level", SK_NUMBER_OR_NULL, POOL(level) },
	{ NULL },
};

static const struct sdoc_field pooled_fields[] = {
	{ "method", SK_TEXT, POOL(method), .if_null = "none" },
	{ "hosts", SK_LONG, POOL(hosts) },
	{ "ratio", SK_NUMBER_OR_NULL, POOL(ratio) },
	{ "delta_pct", SK_NUMBER_OR_NULL, POOL(delta_pct) },
	{ "ci", SK_OBJECT, 0, .sub = pooled_ci_fields },
	{ "z", SK_NUMBER_OR_NULL, POOL(z) },
	{ "p", SK_NUMBER_OR_NULL, POOL(p) },
	{ "p_method", SK_TEXT, POOL(p_method), .if_null = "none" },
	{ "basis", SK_TEXT, POOL(basis), .if_null = "none" },
	{ NULL },
};

static const struct sdoc_field heterogeneity_fields[] = {
	{ "q", SK_NUMBER_OR_NULL, HET(q) },
	{ "df", SK_LONG, HET(df) },
	{ "p", SK_NUMBER_OR_NULL, HET(p) },
	{ "i2", SK_NUMBER_OR_NULL, HET(i2) },
	{ "overlap", SK_FLAG, HET(overlap) },
	{ "alpha", SK_NUMBER_OR_NULL, HET(alpha) },
	{ "heterogeneous", SK_FLAG, HET(heterogeneous) },
	{ NULL },
};

static const struct sdoc_field sequential_fields[] = {
	{ "look", SK_LONG, SEQ(look) },
	{ "looks", SK_LONG, SEQ(looks) },
	{ "runs_at_look", SK_LONG, SEQ(runs_at_look) },
	{ "alpha_look", SK_NUMBER_OR_NULL, SEQ(alpha_look) },
	{ "p", SK_NUMBER_OR_NULL, SEQ(p) },
	{ "p_adjusted", SK_NUMBER_OR_NULL, SEQ(p_adjusted) },
	{ "lo", SK_NUMBER_OR_NULL, SEQ(lo) },
	{ "hi", SK_NUMBER_OR_NULL, SEQ(hi) },
	{ NULL },
};

/*
 * "metric" and "counter" both name the series (rec->metric); a counter's
 * change is "change", a metric's "verdict". The tail is a verdict's: a
 * one-kernel session's results have only their reason.
 */
const struct sdoc_field result_record_fields[] = {
	{ "workload", SK_STRING, REC(workload), SN_REQUIRED },
	{ "metric", SK_STRING, REC(metric), .when = is_metric },
	{ "counter", SK_STRING, REC(metric), .when = is_counter },
	{ "group", SK_TEXT, REC(group), .when = is_counter },
	{ "name", SK_TEXT, REC(name), .when = is_counter },
	{ "unit", SK_TEXT, REC(unit), .when = is_metric },
	{ "better", SK_TEXT, REC(better), .when = is_metric },
	{ "primary", SK_FLAG, REC(primary), .when = is_metric },
	{ "threshold", SK_NUMBER_OR_NULL, REC(threshold) },
	{ "band_source", SK_TEXT, REC(band_source) },
	{ "baseline", SK_OBJECT, REC(side[0]), .sub = side_fields },
	{ "patched", SK_OBJECT, REC(side[1]), .sub = side_fields },
	{ "hosts", SK_CODEC, 0, .json_type = "array", .when = pooled, .encode = hosts_encode,
	  .decode = hosts_decode },
	{ "pooled", SK_OBJECT, REC(pool), .sub = pooled_fields, .has_present = 1 },
	{ "heterogeneity", SK_OBJECT, REC(pool.heterogeneity), .sub = heterogeneity_fields,
	  .has_present = 1 },
	{ "sequential", SK_OBJECT, REC(sequential), .sub = sequential_fields, .has_present = 1 },
	{ "comparison", SK_OBJECT, REC(comparison), .sub = comparison_fields, .has_present = 1,
	  .or_null = 1 },
	{ "warnings", SK_CODEC, 0, .json_type = "array", .encode = warnings_encode,
	  .decode = warnings_decode },
	{ "family", SK_TEXT, REC(family) },
	{ "family_size", SK_LONG, REC(family_size) },
	{ "verdict", SK_STRING_OR_NULL, REC(verdict_id), .when = metric_verdict },
	{ "change", SK_STRING_OR_NULL, REC(change_id), .when = counter_change },
	{ "marker", SK_TEXT, REC(marker), .when = metric_verdict },
	{ "reason", SK_TEXT, REC(reason) },
	{ "p_used", SK_NUMBER_OR_NULL, REC(p_used), .when = has_verdict },
	{ "used_q", SK_FLAG, REC(used_q), .when = has_verdict },
	{ "runs_needed", SK_COUNT, REC(runs_needed), .when = has_verdict },
	{ "final", SK_FLAG, REC(final), .when = has_verdict },
	{ NULL },
};

/* --- the decoder: the table's, and what the table cannot say --- */

/*
 * The arrays of a side whose element had no "baseline": allocated all the
 * same (never NULL, as the analysis' and every decoded side's are).
 */
static void side_arrays(struct result_side *s)
{
	if (!s->values)
		s->values = xcalloc(s->nvalues + 1, sizeof(*s->values));
	if (!s->runs)
		s->runs = xcalloc(s->nvalues + 1, sizeof(*s->runs));
	if (!s->outlier_runs)
		s->outlier_runs = xcalloc(s->noutlier_runs + 1, sizeof(*s->outlier_runs));
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

/* The verdict as its id: an unknown one is never a pass (stats_verdict_from_id()). */
static void set_verdict(struct result_record *out)
{
	const char *verdict = out->is_counter ? out->change_id : out->verdict_id;

	out->change_id = out->is_counter ? verdict : NULL;
	out->verdict = stats_verdict_from_id(verdict);
	out->verdict_id = verdict ? stats_verdict_id(out->verdict) : NULL;
}

int result_record_decode(const json_t *res, struct result_record *out, struct strbuf *err)
{
	memset(out, 0, sizeof(*out));
	out->json = res;
	if (!json_is_object(res)) {
		sb_addf(err, "expected an object, got %s", xjson_type_name(res));
		return -1;
	}
	out->is_counter = json_object_get(res, "counter") != NULL;
	if (sdoc_fields_decode(result_record_fields, res, out, err))
		return -1;
	/* Which of "metric" and "counter" names it, the table cannot say. */
	if (!out->metric) {
		sb_addf(err, "%s: expected a string, got nothing",
			out->is_counter ? "counter" : "metric");
		return -1;
	}
	set_verdict(out);
	for (int k = 0; k < 2; k++) {
		const json_t *side = json_object_get(res, k ? "patched" : "baseline");
		const json_t *outliers = json_object_get(side, "outliers");

		/* statistics are there when outliers is (0 counted is not null) */
		out->side[k].summarized = outliers && !json_is_null(outliers);
		side_arrays(&out->side[k]);
	}
	result_record_set_basis(out);
	return 0;
}

void result_record_clear(struct result_record *rec)
{
	memset(rec, 0, sizeof(*rec));
	/* The table's none for every member, exactly what the decoder reads of an absent one. */
	sdoc_fields_init(result_record_fields, rec);
	side_arrays(&rec->side[0]);
	side_arrays(&rec->side[1]);
	/* No verdict reads as an unknown one: never a pass. */
	rec->verdict = stats_verdict_from_id(NULL);
	result_record_set_basis(rec);
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
