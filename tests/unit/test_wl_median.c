// SPDX-License-Identifier: GPL-2.0
/*
 * workloads/lib/median.c: the median a guest program reports for its inner
 * repetitions. It must agree with the lab's own stats_median() (the
 * report's statistics use that one), and leave its input alone (the
 * programs emit the values as a series after taking their median).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "stats.h"
#include "rng.h"
/* The guest library is not part of mglrulab: the Makefile links median.o in. */
#include "../../workloads/lib/median.h"

static void test_small(void **state)
{
	static const double one[] = { 7.5 };
	static const double odd[] = { 5, 1, 4 };
	static const double even[] = { 10, 2, 8, 4 };
	static const double dup[] = { 3, 3, 1, 3, 9 };
	static const double neg[] = { -2, -8 };

	(void)state;
	assert_true(isnan(wl_median(one, 0)));
	assert_true(wl_median(one, 1) == 7.5);
	assert_true(wl_median(odd, 3) == 4);
	assert_true(wl_median(even, 4) == 6);	/* (4 + 8) / 2 */
	assert_true(wl_median(dup, 5) == 3);
	assert_true(wl_median(neg, 2) == -5);
}

/* One slow window out of five does not move the median; it moves the mean. */
static void test_burst(void **state)
{
	static const double w[] = { 250e3, 259e3, 249e3, 223e3, 26e3 };

	(void)state;
	assert_true(wl_median(w, 5) == 249e3);
}

static void test_input_kept(void **state)
{
	double x[] = { 9, 1, 5, 3, 7, 2 }, copy[6];

	(void)state;
	memcpy(copy, x, sizeof(x));
	assert_true(wl_median(x, 6) == 4);
	assert_memory_equal(x, copy, sizeof(x));
}

static void test_agrees_with_lab(void **state)
{
	struct rng r;
	double x[201];

	(void)state;
	rng_seed(&r, 42);
	for (size_t n = 1; n <= 201; n += 7) {
		for (size_t i = 0; i < n; i++)
			/* Ties too: a coarse grid of values. */
			x[i] = (double)(rng_next(&r) % 50) * 1.25 - 20;
		assert_true(wl_median(x, n) == stats_median(x, n));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_burst),
		cmocka_unit_test(test_input_kept),
		cmocka_unit_test(test_agrees_with_lab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
