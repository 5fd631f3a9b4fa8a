// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's one decoder (report_result.h). The keys of a result
 * are read here and in the analysis that writes them (report_model.c),
 * nowhere else after the analysis.
 */
#include "report_result.h"
#include "report.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A number member; null or absent is NaN, anything else an error. */
static int number_or_null(const json_t *obj, const char *key, double *out, const char *where,
			  struct strbuf *err)
{
	const json_t *v = json_object_get(obj, key);

	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v)) {
		sb_addf(err, "%s%s: expected a number or null, got %s", where, key,
			xjson_type_name(v));
		return -1;
	}
	*out = json_number_value(v);
	return 0;
}

static int required_string(const json_t *obj, const char *key, const char **out,
			   struct strbuf *err)
{
	const json_t *v = json_object_get(obj, key);

	if (!json_is_string(v)) {
		sb_addf(err, "%s: expected a string, got %s", key, v ? xjson_type_name(v) : "nothing");
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

/* "comparison" or "pooled": ratio, delta_pct and ci.lo / ci.hi. */
static int decode_change(const json_t *c, const char *where, struct result_change *out,
			 struct strbuf *err)
{
	const json_t *ci = json_object_get(c, "ci");
	char *in_ci = xasprintf("%sci.", where);
	int r = 0;

	if (ci && !json_is_null(ci) && !json_is_object(ci)) {
		sb_addf(err, "%sci: expected an object, got %s", where, xjson_type_name(ci));
		r = -1;
	}
	if (!r)
		r = number_or_null(c, "ratio", &out->ratio, where, err) ||
		    number_or_null(c, "delta_pct", &out->delta_pct, where, err) ||
		    number_or_null(ci, "lo", &out->lo, in_ci, err) ||
		    number_or_null(ci, "hi", &out->hi, in_ci, err) ? -1 : 0;
	free(in_ci);
	return r;
}

/*
 * The verdict of a session on several hosts rests on "pooled" when its
 * basis says so (too few hosts with runs: "all-runs", the comparison).
 */
static int decode_basis(const json_t *res, struct result_record *out, struct strbuf *err)
{
	const json_t *pooled = json_object_get(res, "pooled");
	const json_t *cmp = json_object_get(res, "comparison");

	out->pooled = json_is_object(pooled) && !strcmp(jget_str(pooled, "basis", ""), "pooled");
	if (out->pooled)
		return decode_change(pooled, "pooled.", &out->change, err);
	if (cmp && !json_is_null(cmp) && !json_is_object(cmp)) {
		sb_addf(err, "comparison: expected an object, got %s", xjson_type_name(cmp));
		return -1;
	}
	return decode_change(cmp, "comparison.", &out->change, err);
}

int result_record_decode(const json_t *res, struct result_record *out, struct strbuf *err)
{
	const char *verdict;
	double needed;
	enum stats_verdict v;

	memset(out, 0, sizeof(*out));
	out->json = res;
	if (!json_is_object(res)) {
		sb_addf(err, "expected an object, got %s", xjson_type_name(res));
		return -1;
	}
	if (required_string(res, "workload", &out->workload, err) ||
	    required_string(res, "metric", &out->metric, err) ||
	    required_string(res, "verdict", &verdict, err))
		return -1;
	/* An unknown verdict is never a pass (stats_verdict_from_id()). */
	v = stats_verdict_from_id(verdict);
	out->verdict = v;
	out->verdict_id = stats_verdict_id(v);
	out->unit = jget_str(res, "unit", NULL);
	out->reason = jget_str(res, "reason", NULL);
	out->primary = json_is_true(json_object_get(res, "primary"));
	out->final = json_is_true(json_object_get(res, "final"));
	if (number_or_null(res, "runs_needed", &needed, "", err))
		return -1;
	out->runs_needed = isfinite(needed) && needed > 0 && needed < 1e15 ? (long)needed : 0;
	return decode_basis(res, out, err);
}

struct result_record *report_result_records(const json_t *report, size_t *n, size_t *bad)
{
	const json_t *results = json_object_get(report, "results"), *res;
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
		if (!result_record_decode(res, &out[*n], &err))
			(*n)++;
		else if (bad)
			(*bad)++;
	}
	sb_release(&err);
	return out;
}
