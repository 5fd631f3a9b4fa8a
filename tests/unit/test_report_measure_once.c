// SPDX-License-Identifier: GPL-2.0
/*
 * One measurement, counted once (issue 50): a metric's raw value, its
 * _hostadj and its _mean are one measurement in the report's warnings
 * and its geometric means, and rss_before_mib (a precondition) is in no
 * geometric mean.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_family.h"
#include "strbuf.h"

/*
 * Six ABBA blocks of workload "w": p, p_hostadj and p_mean all trend
 * with run order (one measurement, warned of once), q does not, and
 * rss_before_mib is a size.
 */
static json_t *session(void)
{
	json_t *runs = json_array();
	int seq = 0;

	for (int b = 1; b <= 6; b++)
		for (int k = 0; k < 2; k++) {
			const char *kn = (b + k) % 2 ? "patched" : "base";
			double t, q;

			seq++;
			t = 1000 + 10 * seq;
			q = 50 + (seq % 3);

			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f, s:f, s:f, s:f, s:f}}",
				"seq", seq, "block", b, "kernel", kn, "workload", "w", "status", "ok",
				"metrics", "p", t, "p_hostadj", t * 1.01, "p_mean", t * 0.99, "q", q,
				"rss_before_mib", 256.0 + (seq % 2)));
		}
	return json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:[{s:s}, {s:s}],"
			 " s:{s:s, s:s}, s:[{s:s, s:s, s:[], s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s},"
			 " {s:s, s:s}, {s:s, s:s}]}], s:{s:f}, s:o}",
		"schema", REPORT_SCHEMA, "generator", "name", "mglrulab", "version", "test",
		"host", "accel", "kvm", "kernels", "name", "base", "name", "patched",
		"design", "baseline", "base", "patched", "patched",
		"workloads", "name", "w", "type", "none", "primary",
		"metrics", "name", "p", "better", "higher", "name", "p_hostadj", "better", "higher",
		"name", "p_mean", "better", "higher", "name", "q", "better", "higher",
		"name", "rss_before_mib", "better", "higher",
		"statistics", "threshold", 0.02, "runs", runs);
}

static json_t *analyze(void)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s = session(), *r = report_analyze(s, &err);

	if (!r)
		fail_msg("report_analyze: %s", sb_str(&err));
	sb_release(&err);
	json_decref(s);
	return r;
}

static void test_stems(void **state)
{
	(void)state;
	assert_true(metric_family_same("cs_per_sec_per_cpu_2cpu_hostadj", "cs_per_sec_per_cpu_2cpu"));
	assert_true(metric_family_same("ops_per_sec_mean", "ops_per_sec_hostadj"));
	assert_false(metric_family_same("ops_per_sec_per_task", "ops_per_sec"));
	assert_int_equal(metric_family_form("ops_per_sec"), 0);
	assert_int_equal(metric_family_form("ops_per_sec_hostadj"), 1);
	assert_int_equal(metric_family_form("ops_per_sec_mean"), 2);
	assert_false(metric_in_geomean("rss_before_mib"));
	assert_true(metric_in_geomean("rss_after_mib"));
}

/* The drift warning counts the trending measurement once, of two. */
static void test_warning_once(void **state)
{
	json_t *r = analyze(), *w;
	size_t i;
	int found = 0;

	(void)state;
	json_array_foreach(json_object_get(r, "warnings"), i, w) {
		const char *msg = json_string_value(json_object_get(w, "message"));

		if (strcmp(json_string_value(json_object_get(w, "kind")), "drift"))
			continue;
		found = 1;
		assert_non_null(strstr(msg, "1 of 3 metric(s) trend"));
		assert_null(strstr(msg, "p_hostadj"));
		assert_null(strstr(msg, "p_mean"));
	}
	assert_true(found);
	json_decref(r);
}

/* The geometric mean averages p once and q, not rss_before_mib. */
static void test_geomean_once(void **state)
{
	json_t *r = analyze(), *g = json_array_get(json_object_get(r, "geomean"), 0), *of;

	(void)state;
	assert_non_null(g);
	of = json_object_get(g, "of");
	assert_int_equal(json_array_size(of), 2);
	assert_string_equal(json_string_value(json_array_get(of, 0)), "p");
	assert_string_equal(json_string_value(json_array_get(of, 1)), "q");
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stems),
		cmocka_unit_test(test_warning_once),
		cmocka_unit_test(test_geomean_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
