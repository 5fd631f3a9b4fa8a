// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's decoder (report_result.c): the change a verdict rests
 * on is the pooled one only when its basis says so, an unknown verdict is
 * never a pass, and a hand-edited result is an error naming the member,
 * never a crash or a silent zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "report.h"
#include "report_result.h"
#include "xjson.h"
#include "util.h"

static json_t *result(const char *basis)
{
	json_t *r = json_pack("{s:s, s:s, s:s, s:b, s:b, s:s, s:s, s:i,"
			      " s:{s:f, s:f, s:{s:f, s:f}}}",
			      "workload", "yield", "metric", "cs", "unit", "switches/s",
			      "primary", 1, "final", 0, "verdict", "regression",
			      "reason", "q < 0.05", "runs_needed", 12,
			      "comparison", "ratio", 0.97, "delta_pct", -3.0, "ci", "lo", 0.95,
			      "hi", 0.99);

	if (basis)
		json_object_set_new(r, "pooled",
				    json_pack("{s:s, s:f, s:f, s:{s:f, s:f}}", "basis", basis,
					      "ratio", 0.92, "delta_pct", -8.0, "ci", "lo", 0.90,
					      "hi", 0.94));
	return r;
}

static void test_decode_fields(void **state)
{
	json_t *r = result(NULL);
	struct result_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(result_record_decode(r, &rec, &err), 0);
	assert_string_equal(rec.workload, "yield");
	assert_string_equal(rec.metric, "cs");
	assert_string_equal(rec.unit, "switches/s");
	assert_string_equal(rec.reason, "q < 0.05");
	assert_string_equal(rec.verdict_id, "regression");
	assert_int_equal(rec.verdict, VERDICT_REGRESSION);
	assert_true(rec.primary);
	assert_false(rec.final);
	assert_int_equal(rec.runs_needed, 12);
	assert_false(rec.pooled);
	assert_true(fabs(rec.change.delta_pct + 3.0) < 1e-12);
	assert_true(fabs(rec.change.lo - 0.95) < 1e-12 && fabs(rec.change.hi - 0.99) < 1e-12);
	assert_ptr_equal(rec.json, r);
	result_record_release(&rec);
	sb_release(&err);
	json_decref(r);
}

/* The verdict of a session on several hosts rests on the pooled change. */
static void test_decode_pooled_basis(void **state)
{
	json_t *r = result("pooled");
	struct result_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(result_record_decode(r, &rec, &err), 0);
	assert_true(rec.pooled);
	assert_true(fabs(rec.change.delta_pct + 8.0) < 1e-12);
	assert_true(fabs(rec.change.lo - 0.90) < 1e-12 && fabs(rec.change.hi - 0.94) < 1e-12);
	result_record_release(&rec);
	json_decref(r);

	r = result("all-runs");
	assert_int_equal(result_record_decode(r, &rec, &err), 0);
	assert_false(rec.pooled);
	assert_true(fabs(rec.change.delta_pct + 3.0) < 1e-12);
	result_record_release(&rec);
	sb_release(&err);
	json_decref(r);
}

static void test_decode_nulls_and_unknown_verdict(void **state)
{
	json_t *r = result(NULL);
	struct result_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(r, "verdict", json_string("looks-fine"));
	json_object_set_new(r, "comparison", json_pack("{s:n, s:n}", "ratio", "delta_pct"));
	json_object_set_new(r, "runs_needed", json_real(1e300));
	json_object_del(r, "reason");
	assert_int_equal(result_record_decode(r, &rec, &err), 0);
	assert_int_equal(rec.verdict, VERDICT_INVALID);
	assert_string_equal(rec.verdict_id, "invalid");
	assert_true(isnan(rec.change.ratio) && isnan(rec.change.lo) && isnan(rec.change.hi));
	assert_int_equal(rec.runs_needed, 0);
	assert_null(rec.reason);
	result_record_release(&rec);
	sb_release(&err);
	json_decref(r);
}

/*
 * A kernel without values has no statistics: its outlier count reads 0,
 * and side[].summarized is what tells "none counted" from "no statistics".
 */
static void test_decode_summarized(void **state)
{
	json_t *r = result(NULL);
	struct result_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(r, "baseline", json_pack("{s:i, s:i, s:i, s:f, s:i}", "n", 5,
						     "failed", 0, "missing", 0, "median", 1.0,
						     "outliers", 0));
	json_object_set_new(r, "patched", json_pack("{s:i, s:i, s:i}", "n", 0, "failed", 5,
						    "missing", 0));
	assert_int_equal(result_record_decode(r, &rec, &err), 0);
	assert_true(rec.side[0].summarized);
	assert_false(rec.side[1].summarized);
	assert_int_equal(rec.side[0].outliers, 0);
	assert_int_equal(rec.side[1].outliers, 0);
	assert_int_equal(rec.side[1].failed, 5);
	result_record_release(&rec);
	sb_release(&err);
	json_decref(r);
}

/* Each hostile member: an error naming it. */
static void test_decode_errors(void **state)
{
	static const struct {
		const char *key, *json, *want;
	} bad[] = {
		{ "workload", "3", "workload: expected a string, got an integer" },
		{ "verdict", "3", "verdict: expected a string or null, got an integer" },
		{ "comparison", "[]", "comparison: expected an object, got an array" },
		{ "comparison", "{\"ci\": 1}", "comparison.ci: expected an object, got an integer" },
		{ "comparison", "{\"ci\": {\"lo\": \"x\"}}",
		  "comparison.ci.lo: expected a number or null, got a string" },
		{ "runs_needed", "true", "runs_needed: expected a number or null, got a boolean" },
		{ "baseline", "{\"median_ci\": {\"ok\": 1}}",
		  "baseline.median_ci.ok: expected a boolean or null, got an integer" },
		{ "baseline", "{\"values\": [1, 2], \"runs\": [3]}",
		  "baseline.values: expected as many values as run numbers, got an array" },
		{ "hosts", "[{\"n\": [1, 2]}]", "hosts: expected objects with a host name, got an object" },
		/* read by the table since issue 48: typed like every member (were read leniently) */
		{ "baseline", "{\"drift\": {\"rho\": \"x\"}}",
		  "baseline.drift.rho: expected a number or null, got a string" },
		{ "pooled", "{\"ci\": {\"lo\": true}}", "pooled.ci.lo: expected a number or null, got a boolean" },
		{ "workload", NULL, "workload: missing (expected a string)" },
	};
	struct result_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		json_t *r = result(NULL);

		if (bad[i].json)
			json_object_set_new(r, bad[i].key, json_loads(bad[i].json, JSON_DECODE_ANY, NULL));
		else
			json_object_del(r, bad[i].key);
		sb_reset(&err);
		assert_int_equal(result_record_decode(r, &rec, &err), -1);
		print_message("%s\n", sb_str(&err));
		assert_string_equal(sb_str(&err), bad[i].want);
		result_record_release(&rec);
		json_decref(r);
	}
	json_t *r = result(NULL);
	json_object_del(r, "metric");
	sb_reset(&err);
	assert_int_equal(result_record_decode(r, &rec, &err), -1);
	assert_string_equal(sb_str(&err), "metric: expected a string, got nothing");
	result_record_release(&rec);
	json_decref(r);
	sb_release(&err);
}

/* A report's results: the ones that decode, the others counted. */
static void test_records_of_report(void **state)
{
	json_t *rep = json_pack("{s:[o, o, s, o]}", "results", result(NULL), result("pooled"),
				"junk", json_pack("{s:i}", "workload", 1));
	struct result_record *recs;
	size_t n, bad;
	(void)state;

	recs = report_result_records(rep, &n, &bad);
	assert_int_equal(n, 2);
	assert_int_equal(bad, 2);
	assert_false(recs[0].pooled);
	assert_true(recs[1].pooled);
	result_records_free(recs, n);
	json_decref(rep);

	rep = json_pack("{s:[]}", "results");
	assert_null(report_result_records(rep, &n, NULL));
	assert_int_equal(n, 0);
	json_decref(rep);
}

/*
 * Every result and counter result the analysis writes decodes, with the
 * numbers it wrote: the fixture sessions, one of them on two hosts.
 */
static void test_analysis_output_decodes(void **state)
{
	static const char *const files[] = { "session-ab.json", "session-small.json",
					     "session-one.json", "nightly-a.json" };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	for (size_t f = 0; f < ARRAY_SIZE(files); f++) {
		char *path = xasprintf("tests/fixtures/reports/%s", files[f]);
		json_t *session, *rep;
		struct result_record *recs;
		size_t n, bad;

		assert_int_equal(report_load(path, &session, &err), 0);
		rep = report_analyze(session, &err);
		assert_non_null(rep);
		recs = report_result_records(rep, &n, &bad);
		assert_int_equal(bad, 0);
		assert_int_equal(n, json_array_size(json_object_get(rep, "results")));
		for (size_t i = 0; i < n; i++) {
			const json_t *j = recs[i].json;

			assert_true(recs[i].side[0].nvalues ==
				    json_array_size(jpath(j, "baseline.values")));
			assert_true(recs[i].side[0].median == jget_num(jpath(j, "baseline"), "median") ||
				    isnan(recs[i].side[0].median));
			assert_int_equal(recs[i].comparison.present,
					 json_is_object(json_object_get(j, "comparison")));
		}
		result_records_free(recs, n);
		recs = report_records_of(rep, "counter_results", &n, &bad);
		assert_int_equal(bad, 0);
		for (size_t i = 0; i < n; i++) {
			assert_true(recs[i].is_counter);
			/* a one-kernel session compares nothing: no change */
			assert_int_equal(recs[i].change_id != NULL, recs[i].comparison.present);
			assert_non_null(recs[i].group);
		}
		result_records_free(recs, n);
		json_decref(rep);
		json_decref(session);
		free(path);
	}
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_fields),
		cmocka_unit_test(test_decode_pooled_basis),
		cmocka_unit_test(test_decode_nulls_and_unknown_verdict),
		cmocka_unit_test(test_decode_summarized),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_records_of_report),
		cmocka_unit_test(test_analysis_output_decodes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
