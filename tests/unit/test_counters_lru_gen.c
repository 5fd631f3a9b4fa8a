// SPDX-License-Identifier: GPL-2.0
/* lru_gen / lru_gen_full parser (Linux 6.12 format), cut and garbage input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "lru_gen_parse.h"
#include "test_counters_fixture.h"

static void test_full(void **state)
{
	size_t len;
	char *t = fixture("lru_gen_full.after", &len);
	struct lru_gen_snapshot s;
	const struct lru_gen_memcg *m;
	const struct lru_gen_node *n;
	const struct lru_gen_gen *g;

	(void)state;
	assert_int_equal(lru_gen_parse(t, len, &s), 0);
	assert_int_equal(s.bad_lines, 0);
	assert_false(s.truncated);
	assert_int_equal(s.nmemcgs, 3);
	m = lru_gen_find_path(&s, "/mglrulab-numa-42");
	assert_non_null(m);
	assert_int_equal(m->id, 7);
	assert_int_equal(m->nnodes, 2);
	/* A path with a space survives. */
	assert_non_null(lru_gen_find_path(&s, "/new cg"));
	n = lru_gen_find_node(m, 1);
	assert_non_null(n);
	assert_int_equal(lru_gen_max_seq(n), 6);
	assert_int_equal(lru_gen_min_seq(n), 3);
	g = lru_gen_find_seq(n, 4);
	assert_non_null(g);
	assert_int_equal(g->ntiers, 4);
	assert_int_equal(g->old[0], 1);	/* seq 4 < min_seq 5: marked 'x' */
	assert_int_equal(g->pages[0], 400);
	assert_int_equal(g->pages[1], 40);
	assert_int_equal(g->tier[2].n[0][0], 6);
	assert_int_equal(g->tier[2].flag[0][0], 'r');
	assert_true(lru_gen_mm_valid(g));
	assert_int_equal(g->nmm, 4);
	assert_int_equal(g->mm[0], 1238 * 4);
	assert_int_equal(g->mm_flag[0], 't');
	/* max_seq carries "xxxx": no valid walk stats. */
	g = lru_gen_find_seq(n, 6);
	assert_false(lru_gen_mm_valid(g));
	assert_int_equal(g->tier[0].flag[1][0], 'R');
	lru_gen_release(&s);
	free(t);
}

static void test_extra_columns(void **state)
{
	size_t len;
	char *t = fixture("lru_gen_full.5cols", &len);
	struct lru_gen_snapshot s;
	const struct lru_gen_gen *g;

	(void)state;
	assert_int_equal(lru_gen_parse(t, len, &s), 0);
	assert_int_equal(s.bad_lines, 0);
	g = lru_gen_find_seq(lru_gen_find_node(lru_gen_find_id(&s, 1), 0), 4);
	assert_non_null(g);
	assert_int_equal(g->nmm, 5);
	assert_int_equal(g->mm[4], 12);
	lru_gen_release(&s);
	free(t);
}

static void test_plain_lru_gen(void **state)
{
	/* /sys/kernel/debug/lru_gen: no tier or mm lines. */
	const char *t = "memcg     1 /\n node     0\n          3      12345          0          10 \n"
			"          4        100        512           0 \n"
			"memcg    12 /system.slice/agetest.scope\n node     0\n"
			"          3       7538     131072           0 \n";
	struct lru_gen_snapshot s;
	const struct lru_gen_memcg *m;

	(void)state;
	assert_int_equal(lru_gen_parse(t, strlen(t), &s), 0);
	assert_int_equal(s.bad_lines, 0);
	m = lru_gen_find_path(&s, "/system.slice/agetest.scope");
	assert_non_null(m);
	assert_int_equal(m->id, 12);
	assert_int_equal(lru_gen_max_seq(lru_gen_find_node(m, 0)), 3);
	assert_int_equal(lru_gen_max_seq(lru_gen_find_node(lru_gen_find_id(&s, 1), 0)), 4);
	lru_gen_release(&s);
}

static void test_truncated_every_prefix(void **state)
{
	size_t len;
	char *t = fixture("lru_gen_full.before", &len);
	struct lru_gen_snapshot s;

	(void)state;
	for (size_t n = 0; n <= len; n++) {
		assert_int_equal(lru_gen_parse(t, n, &s), 0);
		/* Whole lines are all valid: a cut only ever drops the last one. */
		assert_int_equal(s.bad_lines, 0);
		assert_int_equal(s.truncated, n && t[n - 1] != '\n');
		lru_gen_release(&s);
	}
	free(t);
}

static void test_garbage(void **state)
{
	size_t len;
	char *t = fixture("garbage.bin", &len);
	struct lru_gen_snapshot s;
	const char *bad = " node     0\n          1 2 3 4\nmemcg abc /x\nmemcg 99999999999 /y\n"
			  "memcg     3 /z\n node 99999999\n node     0\n"
			  "          1          2          3q          4 \n"
			  "          99999999999999999999999 1 2 3\n"
			  "          1          2          3           4 \n"
			  "                     0 1r 2r 3r 4r 5r 6r 7r 8r\n";

	(void)state;
	assert_int_equal(lru_gen_parse(t, len, &s), 0);
	assert_int_equal(s.nmemcgs, 0);
	lru_gen_release(&s);
	free(t);

	assert_int_equal(lru_gen_parse(bad, strlen(bad), &s), 0);
	/* Only memcg 3 / node 0 / one generation is real. */
	assert_int_equal(s.nmemcgs, 1);
	assert_int_equal(s.memcgs[0].id, 3);
	assert_int_equal(s.memcgs[0].nnodes, 1);
	assert_int_equal(s.memcgs[0].nodes[0].ngens, 1);
	assert_true(s.bad_lines >= 7);
	lru_gen_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full),
		cmocka_unit_test(test_extra_columns),
		cmocka_unit_test(test_plain_lru_gen),
		cmocka_unit_test(test_truncated_every_prefix),
		cmocka_unit_test(test_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
