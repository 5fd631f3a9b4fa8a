// SPDX-License-Identifier: GPL-2.0
/*
 * Plain diagnostics (issue 50): an undecided measurement gets one line of
 * what would decide it, however many of its forms (x, x_hostadj, x_mean)
 * are undecided, and the run-order trend says what would decide it.
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
#include "report_headline.h"
#include "report_view.h"
#include "strbuf.h"

/* Ten ABBA blocks of workload "w": p, p_hostadj and p_mean, noisy and unchanged. */
static json_t *session(void)
{
	json_t *runs = json_array();
	int seq = 0;

	for (int b = 1; b <= 10; b++)
		for (int k = 0; k < 2; k++) {
			const char *kn = (b + k) % 2 ? "patched" : "base";
			double t;

			seq++;
			t = 1000 * (1 + 0.08 * sin(7.0 * seq));
			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f, s:f, s:f}}",
				"seq", seq, "block", b, "kernel", kn, "workload", "w", "status", "ok",
				"metrics", "p", t, "p_hostadj", t * 1.01, "p_mean", t * 0.99));
		}
	return json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:[{s:s}, {s:s}],"
			 " s:{s:s, s:s}, s:[{s:s, s:s, s:[], s:[{s:s, s:s}, {s:s, s:s}, {s:s, s:s}]}],"
			 " s:{s:f}, s:o}",
		"schema", REPORT_SCHEMA, "generator", "name", "mglrulab", "version", "test",
		"host", "accel", "kvm", "kernels", "name", "base", "name", "patched",
		"design", "baseline", "base", "patched", "patched",
		"workloads", "name", "w", "type", "none", "primary",
		"metrics", "name", "p", "better", "higher", "name", "p_hostadj", "better", "higher",
		"name", "p_mean", "better", "higher",
		"statistics", "threshold", 0.01, "runs", runs);
}

static void test_todo_once(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s = session(), *r = report_analyze(s, &err);
	struct report_view v;
	struct headline h;
	size_t n = 0;

	(void)state;
	if (!r || report_view_decode(r, &v, &err))
		fail_msg("%s", sb_str(&err));
	headline_build(&v, &h);
	assert_true(h.undecided >= 2);	/* the forms are undecided, each */
	for (size_t i = 0; i < h.ntodo; i++)
		n += !strncmp(h.todo[i].text, "w: p", 4);
	assert_int_equal(n, 1);
	headline_release(&h);
	report_view_release(&v);
	json_decref(r);
	json_decref(s);
	sb_release(&err);
}

/* The trend warning says what would decide it. */
static void test_trend_decides(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s = session(), *r, *w;
	size_t i;
	int found = 0;

	(void)state;
	/* A trend in every form: one measurement, one line. */
	json_array_foreach(json_object_get(s, "runs"), i, w) {
		json_t *m = json_object_get(w, "metrics");

		json_object_set_new(m, "p", json_real(1000 + (double)i));
		json_object_set_new(m, "p_hostadj", json_real(1010 + (double)i));
	}
	r = report_analyze(s, &err);
	assert_non_null(r);
	json_array_foreach(json_object_get(r, "warnings"), i, w) {
		const char *msg = json_string_value(json_object_get(w, "message"));

		if (strcmp(json_string_value(json_object_get(w, "kind")), "drift"))
			continue;
		found++;
		assert_non_null(strstr(msg, "1 of 1 metric(s)"));
		assert_non_null(strstr(msg, "a trend that a second session repeats is not chance"));
	}
	assert_int_equal(found, 1);
	json_decref(r);
	json_decref(s);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_todo_once),
		cmocka_unit_test(test_trend_decides),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
