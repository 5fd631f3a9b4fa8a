// SPDX-License-Identifier: GPL-2.0
/* Two sessions as one (lab/report/report_compare.c), then the usual analysis. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

static json_t *load(const char *name)
{
	struct strbuf err = STRBUF_INIT;
	char path[256];
	json_t *j;

	snprintf(path, sizeof(path), "tests/fixtures/reports/%s", name);
	if (report_load(path, &j, &err))
		fail_msg("%s", err.buf);
	sb_release(&err);
	return j;
}

static const char *str(const json_t *o, const char *path1, const char *path2)
{
	const json_t *j = json_object_get(o, path1);

	return json_string_value(path2 ? json_object_get(j, path2) : j);
}

static void test_nightly(void **state)
{
	json_t *a = load("nightly-a.json"), *b = load("nightly-b.json"), *s, *r, *res, *run;
	struct strbuf err = STRBUF_INIT;
	size_t i, na = 0, nb = 0;
	int found = 0;
	(void)state;

	s = report_compare_session(a, b, NULL, NULL, &err);
	assert_non_null(s);
	assert_string_equal(str(s, "design", "baseline"), "A:patched");
	assert_string_equal(str(s, "design", "patched"), "B:patched");
	json_array_foreach(json_object_get(s, "runs"), i, run) {
		assert_int_equal(json_integer_value(json_object_get(run, "seq")), (json_int_t)i + 1);
		assert_null(json_object_get(run, "block"));
		na += !strcmp(str(run, "kernel", NULL), "A:patched");
		nb += !strcmp(str(run, "kernel", NULL), "B:patched");
	}
	assert_true(na > 0 && na == nb);
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	/* Night A ran the series without its effect (scale 0), night B with it. */
	json_array_foreach(json_object_get(r, "results"), i, res) {
		if (!strcmp(str(res, "workload", NULL), "yp_shared") &&
		    !strcmp(str(res, "metric", NULL), "cs_per_sec_per_cpu_2cpu")) {
			assert_string_equal(str(res, "verdict", NULL), "improvement");
			found = 1;
		}
	}
	assert_true(found);
	json_decref(r);
	json_decref(s);
	json_decref(a);
	json_decref(b);
	sb_release(&err);
}

static void test_mixed_accel_and_errors(void **state)
{
	json_t *a = load("session-ab.json"), *b = load("nightly-b.json"), *s;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	s = report_compare_session(a, b, "base", NULL, &err);
	assert_non_null(s);
	assert_string_equal(str(s, "host", "accel"), "mixed");
	assert_string_equal(str(s, "design", "baseline"), "A:base");
	json_decref(s);
	assert_null(report_compare_session(a, b, "nope", NULL, &err));
	assert_non_null(strstr(err.buf, "session A has no kernel named \"nope\""));
	json_decref(a);
	json_decref(b);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nightly),
		cmocka_unit_test(test_mixed_accel_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
