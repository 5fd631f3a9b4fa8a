// SPDX-License-Identifier: GPL-2.0
/*
 * A guest line as the counters read it (lab/counters/counters_line.c):
 * each member typed, and one of another type read as absent, so that a
 * hostile line can only be a problem counters_add_line() names, never a
 * wrong string or number taken for a right one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "counters.h"

static void decode(const char *text, struct counters_line *l, json_t **j)
{
	*j = json_loads(text, 0, NULL);
	assert_non_null(*j);
	counters_line_decode(*j, l);
}

static void test_snapshot(void **state)
{
	struct counters_line l;
	json_t *j;

	(void)state;
	decode("{\"type\":\"snapshot\",\"phase\":\"after\",\"source\":\"vmstat\",\"label\":\"cpus=2\","
	       "\"text\":\"pgfault 3\\n\",\"truncated\":true,\"tracepoint\":\"sched:x\"}", &l, &j);
	assert_int_equal(l.kind, COUNTERS_LINE_SNAPSHOT);
	assert_string_equal(l.phase, "after");
	assert_string_equal(l.source, "vmstat");
	assert_string_equal(l.label, "cpus=2");
	assert_string_equal(l.tracepoint, "sched:x");
	assert_ptr_equal(l.text, json_object_get(j, "text"));
	assert_true(l.truncated);
	assert_false(l.absent);
	json_decref(j);
}

static void test_info(void **state)
{
	struct counters_line l;
	json_t *j;

	(void)state;
	decode("{\"type\":\"info\",\"name\":\"counter_overhead\",\"label\":\"\",\"before_ms\":1.5,"
	       "\"after_ms\":2,\"total_ms\":\"3\"}", &l, &j);
	assert_int_equal(l.kind, COUNTERS_LINE_INFO);
	assert_string_equal(l.name, "counter_overhead");
	assert_string_equal(l.label, "main");	/* empty: the main phase */
	assert_true(l.before_ms == 1.5 && l.after_ms == 2);
	assert_true(l.total_ms == 0);		/* not a number: none */
	json_decref(j);
}

/* Members of other types read as absent; a line of another type carries no counters. */
static void test_wrong_types(void **state)
{
	struct counters_line l;
	json_t *j;

	(void)state;
	decode("{\"type\":\"snapshot\",\"phase\":1,\"source\":[],\"label\":7,\"text\":{},"
	       "\"truncated\":1,\"absent\":\"yes\",\"reason\":false}", &l, &j);
	assert_int_equal(l.kind, COUNTERS_LINE_SNAPSHOT);
	assert_null(l.phase);
	assert_null(l.source);
	assert_string_equal(l.label, "main");
	assert_null(l.text);
	assert_false(l.truncated);
	assert_false(l.absent);
	assert_null(l.reason);
	json_decref(j);
	decode("{\"type\":\"metric\",\"name\":\"x\"}", &l, &j);
	assert_int_equal(l.kind, COUNTERS_LINE_OTHER);
	json_decref(j);
	decode("{\"type\":3}", &l, &j);
	assert_int_equal(l.kind, COUNTERS_LINE_OTHER);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_wrong_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
