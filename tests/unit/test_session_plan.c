// SPDX-License-Identifier: GPL-2.0
/* Session plans: balanced, interleaved, ABBA/BAAB pairs, reproducible from the seed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "session_plan.h"
#include "util.h"

static void test_balanced_and_interleaved(void **state)
{
	struct session_plan p;
	int count[2][3] = { { 0 } };
	(void)state;

	session_plan_make(&p, 2, 3, (int[]){ 6, 6, 6 }, 0, 42);
	assert_int_equal(p.n, 2 * 3 * 6);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_equal(p.runs[i].seq, (int)i + 1);
		count[p.runs[i].kernel][p.runs[i].workload]++;
	}
	for (int k = 0; k < 2; k++)
		for (int w = 0; w < 3; w++)
			assert_int_equal(count[k][w], 6);
	/* Every block holds one A and one B run of one workload, back to back. */
	for (size_t i = 0; i < p.n; i += 2) {
		assert_int_equal(p.runs[i].block, p.runs[i + 1].block);
		assert_int_equal(p.runs[i].workload, p.runs[i + 1].workload);
		assert_int_not_equal(p.runs[i].kernel, p.runs[i + 1].kernel);
	}
	/* Never all-A-then-all-B: within the first two blocks of a workload both orders occur. */
	for (int w = 0; w < 3; w++) {
		int firsts[6], n = 0;
		for (size_t i = 0; i < p.n; i += 2)
			if (p.runs[i].workload == w)
				firsts[n++] = p.runs[i].kernel;
		for (int b = 0; b + 1 < n; b += 2)
			assert_int_not_equal(firsts[b], firsts[b + 1]);	/* ABBA or BAAB */
	}
	assert_int_equal(strlen(p.order), strlen("ABBA ABBA ABBA"));
	session_plan_release(&p);
}

static void test_seeded(void **state)
{
	struct session_plan a, b, c;
	int differ = 0;
	(void)state;

	session_plan_make(&a, 2, 2, (int[]){ 10, 10 }, 0, 7);
	session_plan_make(&b, 2, 2, (int[]){ 10, 10 }, 0, 7);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.runs, b.runs, a.n * sizeof(*a.runs));
	assert_string_equal(a.order, b.order);
	session_plan_make(&c, 2, 2, (int[]){ 10, 10 }, 0, 8);
	for (size_t i = 0; i < a.n; i++)
		differ |= a.runs[i].kernel != c.runs[i].kernel;
	assert_true(differ);
	session_plan_release(&a);
	session_plan_release(&b);
	session_plan_release(&c);
}

static void test_warmups_and_single_kernel(void **state)
{
	struct session_plan p;
	(void)state;

	session_plan_make(&p, 2, 1, (int[]){ 3 }, 1, 1);
	assert_int_equal(p.n, 2 + 6);
	assert_true(p.runs[0].warmup && p.runs[1].warmup);
	assert_int_equal(p.runs[0].block, 0);
	assert_false(p.runs[2].warmup);
	session_plan_release(&p);

	session_plan_make(&p, 1, 2, (int[]){ 4, 4 }, 0, 1);
	assert_int_equal(p.n, 8);
	for (size_t i = 0; i < p.n; i++)
		assert_int_equal(p.runs[i].kernel, 0);
	assert_string_equal(p.order, "A");
	session_plan_release(&p);
}

/*
 * Sessions written before per-workload runs existed must plan the same
 * order (the kernel sequence below is what the plan of 3 workloads x 4
 * runs, seed 1, has always been).
 */
static void test_equal_runs_plan_unchanged(void **state)
{
	struct session_plan p;
	char seq[64] = "";
	(void)state;

	session_plan_make(&p, 2, 3, (int[]){ 4, 4, 4 }, 0, 1);
	assert_int_equal(p.n, 24);
	for (size_t i = 0; i < p.n; i++)
		seq[i] = (char)('A' + p.runs[i].kernel);
	assert_string_equal(seq, "BAABABABBABAABBABABAABAB");
	assert_string_equal(p.order, "BAAB ABBA");
	session_plan_release(&p);
}

/* A long workload with fewer runs stops early; the others keep their blocks. */
static void test_per_workload_runs(void **state)
{
	struct session_plan p;
	int count[2][3] = { { 0 } }, last_short = 0, last_run = 0;
	(void)state;

	session_plan_make(&p, 2, 3, (int[]){ 5, 3, 5 }, 0, 9);
	assert_int_equal(p.n, 2 * (5 + 3 + 5));
	for (size_t i = 0; i < p.n; i++) {
		assert_int_equal(p.runs[i].seq, (int)i + 1);
		count[p.runs[i].kernel][p.runs[i].workload]++;
		if (p.runs[i].workload == 1)
			last_short = (int)i;
		last_run = (int)i;
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(count[k][0], 5);
		assert_int_equal(count[k][1], 3);
		assert_int_equal(count[k][2], 5);
	}
	/* Still interleaved: the short workload's last block is not at the end. */
	assert_true(last_short < last_run - 4);
	/* Every block still pairs one A and one B run of one workload. */
	for (size_t i = 0; i < p.n; i += 2) {
		assert_int_equal(p.runs[i].workload, p.runs[i + 1].workload);
		assert_int_not_equal(p.runs[i].kernel, p.runs[i + 1].kernel);
	}
	/* The order shown is the longest workload's: five blocks. */
	assert_int_equal(strlen(p.order), strlen("ABBA ABBA AB"));
	session_plan_release(&p);
}

/* What session.json holds decodes back to the plan, names and all. */
static void test_entries_round_trip(void **state)
{
	static const char *const kernels[] = { "base", "patched" };
	static const char *const workloads[] = { "yp", "wis" };
	struct session_plan plan;
	struct plan_entry *e;
	struct strbuf err = STRBUF_INIT;
	json_t *arr = json_array();
	int runs[2] = { 3, 2 };
	size_t n;
	(void)state;

	session_plan_make(&plan, 2, 2, runs, 1, 42);
	for (size_t i = 0; i < plan.n; i++)
		json_array_append_new(arr, plan_entry_encode(&plan.runs[i],
							     kernels[plan.runs[i].kernel],
							     workloads[plan.runs[i].workload]));
	assert_int_equal(plan_entries_decode(arr, &e, &n, &err), 0);
	assert_int_equal(n, plan.n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(e[i].seq, plan.runs[i].seq);
		assert_int_equal(e[i].block, plan.runs[i].block);
		assert_int_equal(e[i].warmup, plan.runs[i].warmup);
		assert_string_equal(e[i].kernel, kernels[plan.runs[i].kernel]);
		assert_string_equal(e[i].workload, workloads[plan.runs[i].workload]);
		assert_ptr_equal(e[i].json, json_array_get(arr, i));
	}
	free(e);
	session_plan_release(&plan);
	json_decref(arr);
	sb_release(&err);
}

/* A hand-edited plan: an error naming the element and member. */
/* The element's bytes, as xjson_pack() wrote them before the run record's table did. */
static void test_entry_bytes(void **state)
{
	const struct planned_run warm = { .seq = 1, .block = 0, .kernel = 0, .workload = 0, .warmup = 1 };
	const struct planned_run run = { .seq = 12, .block = 3, .kernel = 1, .workload = 0 };
	json_t *e;
	char *s;
	(void)state;

	e = plan_entry_encode(&warm, "base", "w\u00e9");
	s = json_dumps(e, JSON_COMPACT);
	assert_string_equal(s, "{\"seq\":1,\"block\":0,\"kernel\":\"base\","
			    "\"workload\":\"w\u00e9\",\"warmup\":true}");
	free(s);
	json_decref(e);
	e = plan_entry_encode(&run, "patched", "w");
	s = json_dumps(e, JSON_COMPACT);
	assert_string_equal(s, "{\"seq\":12,\"block\":3,\"kernel\":\"patched\","
			    "\"workload\":\"w\",\"warmup\":false}");
	free(s);
	json_decref(e);
}

static void test_entries_errors(void **state)
{
	static const struct {
		const char *json, *want;
	} bad[] = {
		{ "{}", "plan: expected an array, got an object" },
		{ "[3]", "plan[0]: expected an object, got an integer" },
		{ "[{\"seq\": 0, \"block\": 1, \"kernel\": \"a\", \"workload\": \"w\"}]",
		  "plan[0].seq: expected an integer from 1, got an integer" },
		{ "[{\"seq\": 1, \"block\": 1, \"kernel\": \"a\", \"workload\": \"w\"},"
		  " {\"seq\": 2, \"block\": \"1\", \"kernel\": \"a\", \"workload\": \"w\"}]",
		  "plan[1].block: expected an integer from 0, got a string" },
		{ "[{\"seq\": 1, \"block\": 1, \"kernel\": null, \"workload\": \"w\"}]",
		  "plan[0].kernel: expected a string, got null" },
		{ "[{\"seq\": 1, \"block\": 1, \"kernel\": \"a\"}]",
		  "plan[0].workload: expected a string, got nothing" },
		{ "[{\"seq\": 1, \"block\": 1, \"kernel\": \"a\", \"workload\": \"w\","
		  " \"warmup\": 1}]", "plan[0].warmup: expected a boolean, got an integer" },
	};
	struct strbuf err = STRBUF_INIT;
	struct plan_entry *e;
	size_t n;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		json_t *j = json_loads(bad[i].json, 0, NULL);

		assert_non_null(j);
		sb_reset(&err);
		assert_int_equal(plan_entries_decode(j, &e, &n, &err), -1);
		assert_null(e);
		assert_int_equal(n, 0);
		assert_string_equal(sb_str(&err), bad[i].want);
		json_decref(j);
	}
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_balanced_and_interleaved),
		cmocka_unit_test(test_seeded),
		cmocka_unit_test(test_warmups_and_single_kernel),
		cmocka_unit_test(test_equal_runs_plan_unchanged),
		cmocka_unit_test(test_per_workload_runs),
		cmocka_unit_test(test_entries_round_trip),
		cmocka_unit_test(test_entries_errors),
		cmocka_unit_test(test_entry_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
