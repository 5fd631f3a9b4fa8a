// SPDX-License-Identifier: GPL-2.0
/*
 * report_analyze() on a session whose blocks ran on several hosts: per-host
 * results, the pooled verdict, the heterogeneity warning on a primary, and
 * nothing of it where the runs came from one host (a one-host session, or
 * a workload that ran on one host of several).
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

#include "fixtures_report.h"
#include "report.h"
#include "report_priv.h"
#include "stats.h"
#include "util.h"

/*
 * 16 ABBA blocks of workload "w" (primary "p", secondary "s"), block b on
 * host hosts[b % nhosts] (NULL: records without a host); host i is 1.3^i
 * times faster, and the patched runs of host @slow are 20 % slower (-1:
 * none). Workload "v" (metric "x") runs on the first host only.
 */
static json_t *session(const char *const *hosts, int nhosts, int slow)
{
	json_t *runs = json_array(), *run;
	int seq = 0;

	for (int b = 0; b < 16; b++) {
		int h = b % nhosts;

		for (int i = 0; i < 4; i++) {
			int k = i == 1 || i == 2;
			double noise = 1 + 0.01 * sin(7.0 * b + 3.0 * i);
			double f = pow(1.3, h) * noise * (k && h == slow ? 0.8 : 1);

			run = json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f, s:f}}", "seq", ++seq,
				"block", b, "kernel", k ? "patched" : "base", "workload", "w",
				"status", "ok", "metrics", "p", 1000 * f, "s", 50 * noise);
			if (hosts[h]) {
				json_object_set_new(run, "host", json_string(hosts[h]));
				json_object_set_new(run, "slot", json_integer(0));
			}
			json_array_append_new(runs, run);
			if (h)
				continue;
			run = json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f}}", "seq", ++seq,
				"block", b, "kernel", k ? "patched" : "base", "workload", "v",
				"status", "ok", "metrics", "x", 10 * noise);
			if (hosts[h])
				json_object_set_new(run, "host", json_string(hosts[h]));
			json_array_append_new(runs, run);
		}
	}
	return fixture_wv_session(runs);
}

static int has_warning(const json_t *warnings, const char *kind)
{
	const json_t *w;
	size_t i;

	json_array_foreach(warnings, i, w)
		if (!strcmp(jget_str(w, "kind", ""), kind))
			return 1;
	return 0;
}

static void test_hosts_disagree(void **state)
{
	static const char *const hosts[] = { "a", "b" };
	json_t *r = fixture_analyze_owned(session(hosts, 2, 1));
	const json_t *p = fixture_result(r, "p"), *h = json_object_get(p, "hosts");
	const json_t *pooled = json_object_get(p, "pooled"), *het = json_object_get(p, "heterogeneity");
	(void)state;

	assert_int_equal(json_array_size(h), 2);
	assert_string_equal(jget_str(json_array_get(h, 1), "host", ""), "b");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(json_array_get(h, 0), "n"), 0)), 16);
	assert_true(fabs(jget_num(json_array_get(h, 0), "delta_pct")) < 2);
	assert_true(fabs(jget_num(json_array_get(h, 1), "delta_pct") + 20) < 2);
	assert_true(json_is_true(json_object_get(het, "heterogeneous")));
	assert_true(jget_num(het, "p") < STATS_HET_ALPHA);
	assert_string_equal(jget_str(pooled, "basis", ""), "pooled");
	/* One primary: its p is van Elteren's, and the reason quotes the pooled interval. */
	assert_true(jget_num(p, "p_used") == jget_num(pooled, "p"));
	assert_true(has_warning(json_object_get(p, "warnings"), "host-heterogeneity"));
	assert_true(has_warning(json_object_get(r, "warnings"), "host-heterogeneity"));
	/* The secondary "s" is the same on both hosts: per host, no warning. */
	assert_int_equal(json_array_size(json_object_get(fixture_result(r, "s"), "hosts")), 2);
	assert_false(json_is_true(jpath(fixture_result(r, "s"), "heterogeneity.heterogeneous")));
	assert_false(has_warning(json_object_get(fixture_result(r, "s"), "warnings"), "host-heterogeneity"));
	/* "v" ran on host a only: analysed as in a one-host session. */
	assert_null(json_object_get(fixture_result(r, "x"), "hosts"));
	assert_null(json_object_get(fixture_result(r, "x"), "pooled"));
	json_decref(r);
}

/*
 * Both hosts 20 % slower: they agree, no warning; the pooled interval is
 * narrower than the all-runs one, which counts host b's speed as noise.
 */
static void test_hosts_agree(void **state)
{
	static const char *const hosts[] = { "a", "b" };
	json_t *s = session(hosts, 2, -1), *run, *r;
	const json_t *p, *pci, *cci;
	size_t i;
	(void)state;

	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (!strcmp(jget_str(run, "kernel", ""), "patched") &&
		    !strcmp(jget_str(run, "workload", ""), "w"))
			json_object_set_new(json_object_get(run, "metrics"), "p",
				json_real(0.8 * jget_num(json_object_get(run, "metrics"), "p")));
	r = fixture_analyze_owned(s);
	p = fixture_result(r, "p");
	assert_false(json_is_true(jpath(p, "heterogeneity.heterogeneous")));
	assert_false(has_warning(json_object_get(r, "warnings"), "host-heterogeneity"));
	assert_string_equal(jget_str(p, "verdict", ""), "regression");
	pci = jpath(p, "pooled.ci");
	cci = jpath(p, "comparison.ci");
	assert_true(jget_num(pci, "hi") - jget_num(pci, "lo") < jget_num(cci, "hi") - jget_num(cci, "lo"));
	assert_true(fabs(jget_num(json_object_get(p, "pooled"), "delta_pct") + 20) < 1);
	json_decref(r);
}

/* One host, named "local" or not named at all: the results of before hosts. */
static void test_one_host_unchanged(void **state)
{
	static const char *const none[] = { NULL }, *const local[] = { "local" }, *const a[] = { "a" };
	json_t *r0 = fixture_analyze_owned(session(none, 1, -1)), *r1 = fixture_analyze_owned(session(local, 1, -1));
	json_t *r2 = fixture_analyze_owned(session(a, 1, -1));
	static const char *const keys[] = { "results", "counter_results", "geomean", "warnings",
					    "summary" };
	(void)state;

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		assert_true(json_equal(json_object_get(r0, keys[k]), json_object_get(r1, keys[k])));
		assert_true(json_equal(json_object_get(r0, keys[k]), json_object_get(r2, keys[k])));
	}
	assert_null(json_object_get(fixture_result(r0, "p"), "hosts"));
	json_decref(r0);
	json_decref(r1);
	json_decref(r2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts_disagree),
		cmocka_unit_test(test_hosts_agree),
		cmocka_unit_test(test_one_host_unchanged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
