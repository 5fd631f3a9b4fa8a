// SPDX-License-Identifier: GPL-2.0
/*
 * report_gate.c: what CI reads of a report. Guards the gates that went
 * green by mistake: an invalid verdict (a patched kernel that crashes the
 * guest) exited 0 and was <skipped> in JUnit, errors="0" was hard-coded,
 * and the JUnit file had no timestamp, hostname, time or skipped count.
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
#include "report_gate.h"
#include "report_view.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

/* An analysed report: the view and the session it points into. */
struct analysed {
	json_t *in;
	struct report_view v;
};

static void analysed_release(struct analysed *a)
{
	report_view_release(&a->v);
	json_decref(a->in);
}

/*
 * The fixture's session, re-analysed (report_analyze_view(), as run,
 * report and compare do) after the runs of workload @wl of the kernels in
 * @kernels (base, patched, or both) failed in the guest.
 */
static void report_with_failed(struct analysed *a, const char *wl, const char *const *kernels)
{
	struct strbuf err = STRBUF_INIT;
	json_t *in = NULL, *run;
	size_t i;

	assert_int_equal(report_load(FIXTURE, &in, &err), 0);
	json_array_foreach(json_object_get(in, "runs"), i, run) {
		const char *k = json_string_value(json_object_get(run, "kernel"));

		if (strcmp(json_string_value(json_object_get(run, "workload")), wl))
			continue;
		for (const char *const *p = kernels; *p; p++) {
			if (strcmp(k, *p))
				continue;
			json_object_set_new(run, "status", json_string("failed"));
			json_object_set_new(run, "failure", json_string("kernel panic"));
			json_object_set_new(run, "metrics", json_object());
		}
	}
	a->in = in;
	assert_int_equal(report_analyze_view(in, &a->v, &err), 0);
	sb_release(&err);
}

/* The value of attribute @name in the first element @tag of @xml, as a number. */
static long attr(const char *xml, const char *tag, const char *name)
{
	char key[64];
	const char *p = strstr(xml, tag);

	assert_non_null(p);
	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(p, key);
	assert_non_null(p);
	return strtol(p + strlen(key), NULL, 10);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/*
 * A primary with one run of each kernel and none failed (a budget stopped
 * the session): too few runs is undecided, exit 0, not the lab failing
 * (`make demo` with its 25-minute budget must not exit 2 for that).
 */
static void test_too_few_runs_is_undecided(void **state)
{
	struct result_record r = { 0 };
	struct strbuf why = STRBUF_INIT;
	(void)state;

	r.primary = 1;
	r.verdict_id = "invalid";
	r.verdict = VERDICT_INVALID;
	r.reason = "too few runs";
	r.side[0].n = 1;
	r.side[1].n = 1;
	assert_int_equal(report_gate_judge(&r, FAIL_ON_REGRESSION, &why), GATE_SKIPPED);
	assert_non_null(strstr(sb_str(&why), "too few runs"));
	/* One of them failed: that is the kernel failing, as before. */
	r.side[1].failed = 1;
	r.reason = "too many failed runs";
	sb_reset(&why);
	assert_int_equal(report_gate_judge(&r, FAIL_ON_REGRESSION, &why), GATE_KERNEL_FAILED);
	sb_release(&why);
}

/* The patched kernel fails every kbuild run; the baseline's succeed. */
static void test_patched_kernel_failed(void **state)
{
	struct analysed a;
	struct strbuf why = STRBUF_INIT, xml = STRBUF_INIT;
	(void)state;

	report_with_failed(&a, "kbuild", (const char *const[]){ "patched", NULL });
	assert_int_equal(report_gate_status_view(&a.v, FAIL_ON_REGRESSION, &why), LAB_REGRESSION);
	assert_non_null(strstr(sb_str(&why), "kbuild elapsed_s: invalid: the patched kernel failed "
					     "in the guest: 10 of 10 runs failed"));
	sb_reset(&why);
	/* invalid: the failures only; none: nothing */
	assert_int_equal(report_gate_status_view(&a.v, FAIL_ON_INVALID, &why), LAB_REGRESSION);
	assert_int_equal(report_gate_status_view(&a.v, FAIL_ON_NONE, &why), LAB_OK);

	report_gate_junit_view(&a.v, FAIL_ON_REGRESSION, &xml);
	assert_non_null(strstr(sb_str(&xml), "<failure type=\"kernel-failed\" message=\"invalid: "
					     "the patched kernel failed in the guest"));
	assert_null(strstr(sb_str(&xml), "<error"));
	/* the counts are the cases', not written by hand */
	assert_int_equal(attr(sb_str(&xml), "<testsuite ", "failures"),
			 (long)count(sb_str(&xml), "<failure "));
	assert_int_equal(attr(sb_str(&xml), "<testsuite ", "skipped"),
			 (long)count(sb_str(&xml), "<skipped "));
	assert_int_equal(attr(sb_str(&xml), "<testsuite ", "tests"),
			 (long)count(sb_str(&xml), "<testcase "));
	assert_int_equal(attr(sb_str(&xml), "<testsuite ", "errors"), 0);
	assert_true(attr(sb_str(&xml), "<testsuite ", "failures") >= 2);	/* kbuild's metrics */
	analysed_release(&a);
	sb_release(&why);
	sb_release(&xml);
}

/* Both kernels fail: the lab failed, an <error> and exit 2. */
static void test_lab_failed(void **state)
{
	struct analysed a;
	struct strbuf why = STRBUF_INIT, xml = STRBUF_INIT;
	(void)state;

	report_with_failed(&a, "kbuild", (const char *const[]){ "base", "patched", NULL });
	/* the fixture's other workloads have no regression left: 2, not 3 */
	assert_int_equal(report_gate_status_view(&a.v, FAIL_ON_REGRESSION, &why), LAB_ELAB);
	assert_non_null(strstr(sb_str(&why), "runs of both kernels failed"));
	assert_int_equal(report_gate_status_view(&a.v, FAIL_ON_NONE, &why), LAB_OK);
	report_gate_junit_view(&a.v, FAIL_ON_REGRESSION, &xml);
	assert_non_null(strstr(sb_str(&xml), "<error type=\"lab-failed\""));
	assert_int_equal(attr(sb_str(&xml), "<testsuite ", "errors"),
			 (long)count(sb_str(&xml), "<error "));
	assert_true(attr(sb_str(&xml), "<testsuite ", "errors") >= 2);
	analysed_release(&a);
	sb_release(&why);
	sb_release(&xml);
}

/* The suite says when, where and how long, from the report alone. */
static void test_junit_suite_complete(void **state)
{
	struct analysed a;
	struct strbuf xml = STRBUF_INIT, again = STRBUF_INIT;
	(void)state;

	report_with_failed(&a, "none", (const char *const[]){ NULL });
	report_gate_junit_view(&a.v, FAIL_ON_REGRESSION, &xml);
	assert_non_null(strstr(sb_str(&xml), "<testsuites "));
	assert_non_null(strstr(sb_str(&xml), " timestamp=\"2026-11-29T18:46:28\""));
	assert_non_null(strstr(sb_str(&xml), " hostname=\"ci-runner-3\""));
	/* 18:46:28 to 19:31:05 */
	assert_non_null(strstr(sb_str(&xml), " time=\"2677\""));
	assert_non_null(strstr(sb_str(&xml), "<failure type=\"regression\""));
	assert_int_equal(attr(sb_str(&xml), "<testsuite ", "failures"), 1);
	/* deterministic */
	report_gate_junit_view(&a.v, FAIL_ON_REGRESSION, &again);
	assert_string_equal(sb_str(&xml), sb_str(&again));
	assert_string_equal(fail_on_name(FAIL_ON_INVALID), "invalid");
	assert_string_equal(fail_on_name(FAIL_ON_CHANGE), "change");
	analysed_release(&a);
	sb_release(&xml);
	sb_release(&again);
}

/*
 * The --json summary's lists (report_gate_results_view()): with no
 * primaries declared (schema 1) every result is a primary; the failing
 * list holds the results that fail --fail-on, each with its gate and why.
 */
static void test_results_lists(void **state)
{
	struct analysed a;
	json_t *prim, *failing, *e;
	size_t i, kbuild = 0;
	(void)state;

	report_with_failed(&a, "kbuild", (const char *const[]){ "patched", NULL });
	prim = report_gate_results_view(&a.v, FAIL_ON_REGRESSION, 1);
	failing = report_gate_results_view(&a.v, FAIL_ON_REGRESSION, 0);
	assert_int_equal(json_array_size(prim), a.v.nresults);
	assert_true(json_array_size(failing) >= 2);
	json_array_foreach(failing, i, e) {
		const char *gate = json_string_value(json_object_get(e, "gate"));

		assert_true(!strcmp(gate, "failure") || !strcmp(gate, "error"));
		if (strcmp(json_string_value(json_object_get(e, "workload")), "kbuild"))
			continue;
		kbuild++;
		assert_string_equal(gate, "failure");
		assert_non_null(strstr(json_string_value(json_object_get(e, "why")),
				       "the patched kernel failed in the guest"));
	}
	assert_true(kbuild >= 2);	/* elapsed_s and pgpgin */
	json_decref(failing);
	/* --fail-on none: nothing fails */
	failing = report_gate_results_view(&a.v, FAIL_ON_NONE, 0);
	assert_int_equal(json_array_size(failing), 0);
	json_decref(failing);
	json_decref(prim);
	analysed_release(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_too_few_runs_is_undecided),
		cmocka_unit_test(test_patched_kernel_failed),
		cmocka_unit_test(test_lab_failed),
		cmocka_unit_test(test_junit_suite_complete),
		cmocka_unit_test(test_results_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
