// SPDX-License-Identifier: GPL-2.0
/* The bisection's search with scripted outcomes: every class the oracle can answer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bisect_search.h"

/* An oracle from a script: the class of each prefix, and a log of what was asked. */
struct script {
	enum bisect_class cls[32];
	long asked[32];
	int nr_asked;
};

static enum bisect_class scripted(long k, void *data)
{
	struct script *s = data;

	assert_true(k >= 1 && k < 32);
	/* A prefix is probed once: its answer is on disk after that. */
	for (int i = 0; i < s->nr_asked; i++)
		assert_int_not_equal(s->asked[i], k);
	s->asked[s->nr_asked++] = k;
	return s->cls[k];
}

/* One culprit @c in an @n-patch series: before it the baseline, from it on the end. */
static void one_culprit(struct script *s, long n, long c)
{
	memset(s, 0, sizeof(*s));
	for (long k = 1; k < n; k++)
		s->cls[k] = k < c ? BISECT_AT_BASE : BISECT_AT_END;
}

static void test_culprit_found(void **state)
{
	struct script s;
	struct bisect_result r;
	(void)state;

	/* The integration test's series: patch 2 of 3. */
	one_culprit(&s, 3, 2);
	bisect_search(3, scripted, &s, &r);
	assert_int_equal(r.outcome, BISECT_FOUND);
	assert_int_equal(r.culprit, 2);
	assert_int_equal(r.probes, 2);
	/* Every position of a 16-patch series, in at most log2(16) probes. */
	for (long c = 1; c <= 16; c++) {
		one_culprit(&s, 16, c);
		bisect_search(16, scripted, &s, &r);
		assert_int_equal(r.outcome, BISECT_FOUND);
		assert_int_equal(r.culprit, c);
		assert_true(r.probes <= 4);
		assert_int_equal(r.first, c);
		assert_int_equal(r.last, c);
	}
}

static void test_single_patch_needs_no_probe(void **state)
{
	struct script s;
	struct bisect_result r;
	(void)state;

	memset(&s, 0, sizeof(s));
	bisect_search(1, scripted, &s, &r);
	assert_int_equal(r.outcome, BISECT_FOUND);
	assert_int_equal(r.culprit, 1);
	assert_int_equal(r.probes, 0);
}

/* Half the change in patch 2, half in patch 4: prefixes 2 and 3 differ from both ends. */
static void test_change_split_over_two_patches(void **state)
{
	struct script s;
	struct bisect_result r;
	(void)state;

	memset(&s, 0, sizeof(s));
	s.cls[1] = BISECT_AT_BASE;
	s.cls[2] = s.cls[3] = BISECT_BETWEEN;
	s.cls[4] = s.cls[5] = BISECT_AT_END;
	bisect_search(6, scripted, &s, &r);
	assert_int_equal(r.outcome, BISECT_SPREAD);
	/* Named as a range that holds both patches, never as one culprit. */
	assert_int_equal(r.culprit, 0);
	assert_true(r.first <= 2 && r.last >= 4);
	assert_true(r.split >= 2 && r.split <= 3);
}

/* git bisect skip: an unbuildable prefix is stepped around. */
static void test_unbuildable_prefix_skipped(void **state)
{
	struct script s;
	struct bisect_result r;
	(void)state;

	one_culprit(&s, 6, 5);
	s.cls[3] = BISECT_UNBUILDABLE;	/* the middle, asked first */
	bisect_search(6, scripted, &s, &r);
	assert_int_equal(s.asked[0], 3);
	assert_int_equal(s.asked[1], 2);	/* then the nearest, lower first */
	assert_int_equal(r.outcome, BISECT_FOUND);
	assert_int_equal(r.culprit, 5);

	/* Only an unbuildable prefix between the ends: either patch, said so. */
	one_culprit(&s, 3, 2);
	s.cls[1] = BISECT_UNBUILDABLE;
	s.cls[2] = BISECT_AT_END;
	bisect_search(3, scripted, &s, &r);
	assert_int_equal(r.outcome, BISECT_SKIPPED_ONLY);
	assert_int_equal(r.culprit, 0);
	assert_int_equal(r.first, 1);
	assert_int_equal(r.last, 2);
}

/* A step's budget ran out: stop with the range known so far. */
static void test_budget_runs_out(void **state)
{
	struct script s;
	struct bisect_result r;
	(void)state;

	one_culprit(&s, 8, 6);
	s.cls[4] = BISECT_AT_BASE;
	s.cls[6] = BISECT_UNDECIDED;
	bisect_search(8, scripted, &s, &r);
	assert_int_equal(r.outcome, BISECT_INCONCLUSIVE);
	assert_int_equal(r.culprit, 0);
	assert_int_equal(r.first, 5);
	assert_int_equal(r.last, 8);
	assert_int_equal(r.probes, 2);

	one_culprit(&s, 8, 6);
	s.cls[4] = BISECT_STOPPED;
	bisect_search(8, scripted, &s, &r);
	assert_int_equal(r.outcome, BISECT_INTERRUPTED);
	assert_int_equal(r.probes, 1);
}

/* A probe's two sessions into a class, one metric and several. */
static void test_classify(void **state)
{
	(void)state;
	/* One metric: the four answers. */
	assert_int_equal(bisect_classify((int[]){ 0 }, (int[]){ 1 }, 1), BISECT_AT_BASE);
	assert_int_equal(bisect_classify((int[]){ 1 }, (int[]){ 0 }, 1), BISECT_AT_END);
	assert_int_equal(bisect_classify((int[]){ 1 }, (int[]){ 1 }, 1), BISECT_BETWEEN);
	/* Not different from the baseline is no proof of being there. */
	assert_int_equal(bisect_classify((int[]){ 0 }, (int[]){ 0 }, 1), BISECT_UNDECIDED);
	/* Two metrics that agree; that disagree (moved by different patches); one undecided. */
	assert_int_equal(bisect_classify((int[]){ 1, 1 }, (int[]){ 0, 0 }, 2), BISECT_AT_END);
	assert_int_equal(bisect_classify((int[]){ 0, 1 }, (int[]){ 1, 0 }, 2), BISECT_BETWEEN);
	assert_int_equal(bisect_classify((int[]){ 1, 0 }, (int[]){ 0, 0 }, 2), BISECT_UNDECIDED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_culprit_found),
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_single_patch_needs_no_probe),
		cmocka_unit_test(test_change_split_over_two_patches),
		cmocka_unit_test(test_unbuildable_prefix_skipped),
		cmocka_unit_test(test_budget_runs_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
