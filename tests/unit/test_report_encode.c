// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's encoder against its decoder, and the analysis as a
 * view against the analysis as a tree (report_encode.c): what guards that
 * moving the results out of jansson changed no byte of any output. On the
 * fixtures (counters, a one-kernel session), a session on two hosts (its
 * hosts, pooled and heterogeneity members) and a sequential one (its
 * primaries' "sequential"):
 *   encode(decode(json)) is the analysis's element, byte for byte;
 *   decode(encode(rec)) is the view's record, member for member;
 *   report_view_dump() is report_dump(report_analyze()), byte for byte.
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
#include "report_view.h"
#include "stats.h"
#include "util.h"
#include "xjson.h"

static const char *const fixtures[] = {
	"session-ab.json", "session-one.json", "session-small.json", "nightly-a.json",
};

static json_t *fixture(const char *name)
{
	char *path = xasprintf("tests/fixtures/reports/%s", name);
	struct strbuf err = STRBUF_INIT;
	json_t *s = NULL;

	if (report_load(path, &s, &err))
		fail_msg("%s: %s", path, sb_str(&err));
	free(path);
	sb_release(&err);
	return s;
}

/*
 * ABBA blocks of workload "w" (primary "p", secondary "s"), block b on
 * host b % @nhosts; the second host's patched p is 20 % slower, so the
 * hosts disagree. @sequential: a `run --until decided` plan.
 */
static json_t *session(int nhosts, int sequential)
{
	static const char *const hosts[] = { "alpha", "beta" };
	json_t *runs = json_array(), *run, *s;
	int seq = 0;

	for (int b = 1; b <= 12; b++) {
		for (int i = 0; i < 4; i++) {
			int k = i == 1 || i == 2, h = b % nhosts;
			double noise = 1 + 0.01 * sin(7.0 * b + 3.0 * i);
			double f = noise * (k && h == 1 ? 0.8 : 1);

			run = json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f, s:f}}", "seq", ++seq,
				"block", b, "kernel", k ? "patched" : "base", "workload", "w",
				"status", "ok", "metrics", "p", 1000 * f, "s", 50 * noise);
			if (nhosts > 1) {
				json_object_set_new(run, "host", json_string(hosts[h]));
				json_object_set_new(run, "slot", json_integer(0));
			}
			json_array_append_new(runs, run);
		}
	}
	s = json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:[{s:s}, {s:s}], s:{s:s, s:s},"
		      " s:[{s:s, s:s, s:[s], s:[{s:s, s:s, s:b}, {s:s, s:s}]}], s:{s:f}, s:o}",
		"schema", REPORT_SCHEMA, "generator", "name", "mglrulab", "version", "test",
		"host", "accel", "kvm", "kernels", "name", "base", "name", "patched",
		"design", "baseline", "base", "patched", "patched",
		"workloads", "name", "w", "type", "none", "primary", "p",
		"metrics", "name", "p", "better", "higher", "primary", 1, "name", "s", "better", "higher",
		"statistics", "threshold", 0.02, "runs", runs);
	if (sequential) {
		struct stats_seq_plan p;

		stats_seq_plan_default(&p, 40);
		json_object_set_new(json_object_get(s, "design"), "sequential",
			json_pack("{s:f, s:I, s:I, s:I, s:f}", "alpha", p.alpha,
				  "min_runs", (json_int_t)p.min_runs, "max_runs", (json_int_t)p.max_runs,
				  "step", (json_int_t)p.step, "rho", p.rho));
	}
	return s;
}

static char *dump(const json_t *j)
{
	char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

	assert_non_null(s);
	return s;
}

/* Doubles as the report holds them: NaN is null, equal to itself. */
static void same_num(double a, double b)
{
	if (isnan(a) || isnan(b))
		assert_true(isnan(a) && isnan(b));
	else
		assert_true(a == b);
}

static void same_str(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

static void same_side(const struct result_side *a, const struct result_side *b)
{
	assert_int_equal(a->n, b->n);
	assert_int_equal(a->failed + a->missing + a->outliers, b->failed + b->missing + b->outliers);
	same_num(a->median, b->median);
	same_num(a->mad, b->mad);
	same_num(a->median_ci.achieved, b->median_ci.achieved);
	same_str(a->median_ci.reason, b->median_ci.reason);
	same_num(a->drift.p, b->drift.p);
	assert_int_equal(a->nvalues, b->nvalues);
	assert_int_equal(a->noutlier_runs, b->noutlier_runs);
	for (size_t i = 0; i < a->nvalues; i++) {
		same_num(a->values[i], b->values[i]);
		assert_int_equal(a->runs[i], b->runs[i]);
	}
}

/* decode(encode(@a)) against @a. */
static void same_record(const struct result_record *a, const struct result_record *b)
{
	same_str(a->workload, b->workload);
	same_str(a->metric, b->metric);
	assert_int_equal(a->is_counter, b->is_counter);
	same_str(a->group, b->group);
	same_str(a->change_id, b->change_id);
	same_str(a->verdict_id, b->verdict_id);
	assert_int_equal(a->verdict, b->verdict);
	same_str(a->reason, b->reason);
	same_str(a->family, b->family);
	same_str(a->band_source, b->band_source);
	assert_int_equal(a->family_size, b->family_size);
	same_num(a->p_used, b->p_used);
	assert_int_equal(a->primary, b->primary);
	assert_int_equal(a->final, b->final);
	assert_int_equal(a->pooled, b->pooled);
	assert_int_equal(a->runs_needed, b->runs_needed);
	same_num(a->change.ratio, b->change.ratio);
	same_num(a->change.lo, b->change.lo);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(a->side[k].summarized, b->side[k].summarized);
		same_side(&a->side[k], &b->side[k]);
	}
	assert_int_equal(a->comparison.present, b->comparison.present);
	same_num(a->comparison.q, b->comparison.q);
	assert_int_equal(a->comparison.paired.present, b->comparison.paired.present);
	assert_int_equal(a->pool.present, b->pool.present);
	same_num(a->pool.heterogeneity.p, b->pool.heterogeneity.p);
	assert_int_equal(a->nhosts, b->nhosts);
	for (size_t i = 0; i < a->nhosts; i++) {
		same_str(a->hosts[i].host, b->hosts[i].host);
		same_num(a->hosts[i].ratio, b->hosts[i].ratio);
	}
	assert_int_equal(a->nwarnings, b->nwarnings);
	for (size_t i = 0; i < a->nwarnings; i++)
		same_str(a->warnings[i].message, b->warnings[i].message);
	assert_int_equal(a->sequential.present, b->sequential.present);
	same_num(a->sequential.p_adjusted, b->sequential.p_adjusted);
}

/* Every element of @tree's @member against the view's @recs, both ways. */
static void check_records(const json_t *tree, const char *member,
			  const struct result_record *recs, size_t n)
{
	const json_t *arr = json_object_get(tree, member);
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(json_array_size(arr), n);
	for (size_t i = 0; i < n; i++) {
		const json_t *j = json_array_get(arr, i);
		struct result_record dec, back;
		json_t *e1, *e2;
		char *a, *b, *c;

		assert_null(recs[i].json);	/* made by the analysis, not decoded */
		assert_int_equal(result_record_decode(j, &dec, &err), 0);
		e1 = result_record_encode(&dec);
		e2 = result_record_encode(&recs[i]);
		a = dump(j);
		b = dump(e1);
		c = dump(e2);
		assert_string_equal(a, b);	/* encode(decode(json)) */
		assert_string_equal(a, c);	/* the view's record, encoded */
		assert_int_equal(result_record_decode(e2, &back, &err), 0);
		same_record(&recs[i], &back);	/* decode(encode(rec)) */
		free(a);
		free(b);
		free(c);
		json_decref(e1);
		json_decref(e2);
		result_record_release(&dec);
		result_record_release(&back);
	}
	sb_release(&err);
}

/* @what names the session in a failure's message; @want_*: it has hosts, sequential primaries. */
static void check_session(json_t *s, const char *what, int want_hosts, int want_seq)
{
	struct strbuf err = STRBUF_INIT, d1 = STRBUF_INIT, d2 = STRBUF_INIT;
	struct report_view v;
	json_t *tree = report_analyze(s, &err);
	int hosts = 0, seq = 0;

	if (!tree)
		fail_msg("%s: %s", what, sb_str(&err));
	assert_int_equal(report_analyze_view(s, &v, &err), 0);
	check_records(tree, "results", v.results, v.nresults);
	check_records(tree, "counter_results", v.counters, v.ncounters);
	for (size_t i = 0; i < v.nresults; i++) {
		hosts |= v.results[i].nhosts > 0;
		seq |= v.results[i].sequential.present;
	}
	/* The sessions below are what they claim: the members under test are there. */
	assert_int_equal(hosts, want_hosts);
	assert_int_equal(seq, want_seq);
	report_dump(tree, &d1);
	report_view_dump(&v, &d2);
	assert_int_equal(d1.len, d2.len);
	assert_memory_equal(d1.buf, d2.buf, d1.len);
	report_view_release(&v);
	json_decref(tree);
	json_decref(s);
	sb_release(&err);
	sb_release(&d1);
	sb_release(&d2);
}

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++)
		check_session(fixture(fixtures[i]), fixtures[i], 0, 0);
}

static void test_counters_and_one_kernel(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct report_view v;
	json_t *s = fixture("session-one.json");

	(void)state;
	/* The fixtures above hold counters, and one has one kernel: no verdicts. */
	assert_int_equal(report_analyze_view(s, &v, &err), 0);
	assert_true(v.ncounters > 0);
	assert_null(v.results[0].verdict_id);
	assert_non_null(v.results[0].reason);
	report_view_release(&v);
	json_decref(s);
	s = fixture("session-ab.json");
	assert_int_equal(report_analyze_view(s, &v, &err), 0);
	assert_true(v.ncounters > 0 && v.counters[0].change_id);
	report_view_release(&v);
	json_decref(s);
	sb_release(&err);
}

static void test_two_hosts(void **state)
{
	(void)state;
	check_session(session(2, 0), "two hosts", 1, 0);
}

static void test_sequential(void **state)
{
	(void)state;
	check_session(session(1, 1), "sequential", 0, 1);
	check_session(session(2, 1), "sequential on two hosts", 1, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_counters_and_one_kernel),
		cmocka_unit_test(test_two_hosts),
		cmocka_unit_test(test_sequential),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
