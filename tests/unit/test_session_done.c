// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's run records (session_done.c): each decoded once, kept
 * as structs beside the JSON their strings point into; one that does not
 * decode stays in the JSON only, as the budget and the stopping rule
 * always left it out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "session_done.h"
#include "session_seq.h"
#include "util.h"

static json_t *record(int seq, const char *workload, double workload_s)
{
	return json_pack("{s:i, s:s, s:s, s:s, s:{}, s:{s:f}}", "seq", seq, "kernel", "base",
			 "workload", workload, "status", "ok", "metrics", "timings", "workload_s",
			 workload_s);
}

/* Read back on resume, then appended: the structs in order, the bad one in the JSON only. */
static void test_records_kept(void **state)
{
	json_t *loaded = json_array();
	struct session_done d;
	const struct run_record *r;
	char name[16];
	(void)state;

	json_array_append_new(loaded, record(1, "w0", 1.0));
	json_array_append_new(loaded, json_pack("{s:i, s:s}", "seq", 2, "status", "maybe"));
	session_done_init(&d, loaded);
	assert_int_equal(d.recs.n, 1);
	assert_int_equal(json_array_size(d.json), 2);

	/* enough to move the array: the records' strings stay their JSON's */
	for (int i = 3; i < 40; i++) {
		snprintf(name, sizeof(name), "w%d", i % 2);
		r = session_done_add(&d, record(i, name, 2.0));
		assert_non_null(r);
		assert_int_equal(r->seq, i);
		assert_string_equal(r->workload, name);
	}
	assert_null(session_done_add(&d, json_pack("{s:i, s:s}", "seq", 40, "status", "ok")));
	assert_int_equal(d.recs.n, 38);
	assert_int_equal(json_array_size(d.json), 40);
	for (size_t i = 1; i < d.recs.n; i++) {
		assert_int_equal(d.recs.v[i].seq, (long)i + 2);
		assert_ptr_equal(d.recs.v[i].json, json_array_get(d.json, i + 1));
	}
	/* w0: 1 s read back and 18 of the appended; w1: 19 */
	assert_true(session_seq_spent_s(&d.recs, "w0") == 1.0 + 18 * 2.0);
	assert_true(session_seq_spent_s(&d.recs, "w1") == 19 * 2.0);
	assert_true(session_seq_spent_s(&d.recs, NULL) == 1.0 + 37 * 2.0);
	session_done_release(&d);
	assert_null(d.json);
	assert_int_equal(d.recs.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
