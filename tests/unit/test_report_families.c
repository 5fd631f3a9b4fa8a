// SPDX-License-Identifier: GPL-2.0
/*
 * report_analyze() with declared primaries: verdict families, the order of
 * the results, and sequential sessions (`run --until decided`), whose
 * primaries are judged at the level of their look.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_priv.h"
#include "stats.h"
#include "util.h"

/*
 * A session of @blocks ABBA blocks of workload "w" (primary "p", one
 * secondary "s") and of workload "v" (no primaries declared: its
 * metric "x"); the patched kernel's p is @shift times the baseline's.
 */
static json_t *session(int blocks, double shift, int sequential, size_t max_runs)
{
	json_t *runs = json_array();
	int seq = 0;

	for (int b = 1; b <= blocks; b++)
		for (int k = 0; k < 2; k++) {
			/* Noise of about 1 %, deterministic, different per run. */
			double noise = 1 + 0.01 * sin(7.0 * b + 3.0 * k);
			const char *kn = k ? "patched" : "base";

			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f, s:f}}",
				"seq", ++seq, "block", b, "kernel", kn, "workload", "w", "status", "ok",
				"metrics", "p", 1000 * noise * (k ? shift : 1), "s", 50 * noise));
			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f}}",
				"seq", ++seq, "block", b, "kernel", kn, "workload", "v", "status", "ok",
				"metrics", "x", 10 * noise));
		}
	json_t *s = json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:[{s:s}, {s:s}],"
			      " s:{s:s, s:s}, s:[{s:s, s:s, s:[s], s:[{s:s, s:s, s:b}, {s:s, s:s}]},"
			      " {s:s, s:s, s:[], s:[{s:s, s:s}]}], s:{s:f}, s:o}",
		"schema", REPORT_SCHEMA, "generator", "name", "mglrulab", "version", "test",
		"host", "accel", "kvm", "kernels", "name", "base", "name", "patched",
		"design", "baseline", "base", "patched", "patched",
		"workloads", "name", "w", "type", "none", "primary", "p",
		"metrics", "name", "p", "better", "higher", "primary", 1, "name", "s", "better", "higher",
		"name", "v", "type", "none", "primary", "metrics", "name", "x", "better", "higher",
		"statistics", "threshold", 0.02, "runs", runs);
	if (sequential) {
		struct stats_seq_plan p;

		stats_seq_plan_default(&p, max_runs);
		json_object_set_new(json_object_get(s, "design"), "sequential",
			json_pack("{s:f, s:I, s:I, s:I, s:f}", "alpha", p.alpha,
				  "min_runs", (json_int_t)p.min_runs, "max_runs", (json_int_t)p.max_runs,
				  "step", (json_int_t)p.step, "rho", p.rho));
	}
	return s;
}

static json_t *analyze(json_t *s)
{
	struct strbuf err = STRBUF_INIT;
	json_t *r = report_analyze(s, &err);

	if (!r)
		fail_msg("report_analyze: %s", sb_str(&err));
	sb_release(&err);
	json_decref(s);
	return r;
}

static const json_t *result(const json_t *r, const char *metric)
{
	const json_t *res;
	size_t i;

	json_array_foreach(json_object_get(r, "results"), i, res)
		if (!strcmp(jget_str(res, "metric", ""), metric))
			return res;
	fail_msg("no result for %s", metric);
	return NULL;
}

static void test_families(void **state)
{
	json_t *r = analyze(session(8, 1.10, 0, 0));
	(void)state;

	assert_string_equal(jget_str(r, "schema", ""), REPORT_SCHEMA);
	assert_true(json_is_true(json_object_get(result(r, "p"), "primary")));
	assert_string_equal(jget_str(result(r, "p"), "family", ""), "primary");
	assert_int_equal(jget_num(result(r, "p"), "family_size"), 1);
	assert_true(json_is_false(json_object_get(result(r, "s"), "primary")));
	assert_string_equal(jget_str(result(r, "s"), "family", ""), "secondary");
	/* The secondary family holds w's s and v's x: corrected between them only. */
	assert_int_equal(jget_num(result(r, "s"), "family_size"), 2);
	/* A primary alone in its family uses its own p. */
	assert_true(jget_num(result(r, "p"), "p_used") ==
		    jget_num(jpath(result(r, "p"), "comparison.mann_whitney"), "p"));
	assert_string_equal(jget_str(result(r, "p"), "verdict", ""), "improvement");
	assert_int_equal(json_integer_value(jpath(r, "summary.primaries")), 1);
	assert_int_equal(json_integer_value(jpath(r, "summary.primary_verdicts.improvement")), 1);
	/* Grouped by workload, primaries first. */
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "results"), 0), "metric", ""), "p");
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "results"), 1), "metric", ""), "s");
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "results"), 2), "metric", ""), "x");
	assert_non_null(strstr(jget_str(jpath(r, "statistics"), "threshold_source", ""), "[stats]"));
	json_decref(r);
}

static void test_sequential_looks(void **state)
{
	struct stats_seq_plan p;
	json_t *r;
	const json_t *seq;
	(void)state;

	stats_seq_plan_default(&p, 20);
	/* Before the first look nothing can be decided, whatever the data say. */
	r = analyze(session((int)p.min_runs - 1, 1.10, 1, 20));
	assert_string_equal(jget_str(result(r, "p"), "verdict", ""), "inconclusive");
	assert_true(json_is_false(json_object_get(result(r, "p"), "final")));
	assert_non_null(strstr(jget_str(result(r, "p"), "reason", ""), "first look"));
	assert_int_equal(jget_num(jpath(result(r, "p"), "sequential"), "look"), 0);
	/* Secondary metrics keep the fixed-N analysis. */
	assert_null(json_object_get(result(r, "s"), "sequential"));
	json_decref(r);

	/* At the first look: the interval at 1 - alpha_1, the p scaled by alpha / alpha_1. */
	r = analyze(session((int)p.min_runs, 1.10, 1, 20));
	seq = jpath(result(r, "p"), "sequential");
	assert_int_equal(jget_num(seq, "look"), 1);
	assert_true(fabs(jget_num(seq, "alpha_look") - stats_seq_alpha_at(&p, 1)) < 1e-12);
	assert_true(fabs(jget_num(jpath(result(r, "p"), "comparison.ci"), "level") -
			 (1 - stats_seq_alpha_at(&p, 1))) < 1e-12);
	assert_true(fabs(jget_num(seq, "p_adjusted") -
			 fmin(1, jget_num(seq, "p") * p.alpha / stats_seq_alpha_at(&p, 1))) < 1e-12);
	assert_true(jget_num(result(r, "p"), "p_used") == jget_num(seq, "p_adjusted"));
	/* A 10 % shift at 1 % noise is decided at the first look, for good. */
	assert_string_equal(jget_str(result(r, "p"), "verdict", ""), "improvement");
	assert_true(json_is_true(json_object_get(result(r, "p"), "final")));
	json_decref(r);

	/* One block past a look is the next look: no level is spent twice. */
	r = analyze(session((int)p.min_runs + 1, 1.0, 1, 20));
	assert_int_equal(jget_num(jpath(result(r, "p"), "sequential"), "look"), 2);
	json_decref(r);

	/* A broken plan is reported, and the session analysed as fixed-N. */
	json_t *s = session((int)p.min_runs, 1.10, 1, 20);
	json_object_set_new(jpath(s, "design.sequential"), "step", json_integer(0));
	r = analyze(s);
	assert_null(json_object_get(result(r, "p"), "sequential"));
	json_t *w;
	size_t i;
	int warned = 0;
	json_array_foreach(json_object_get(r, "warnings"), i, w)
		warned |= !strcmp(jget_str(w, "kind", ""), "sequential");
	assert_true(warned);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_sequential_looks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
