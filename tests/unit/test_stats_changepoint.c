// SPDX-License-Identifier: GPL-2.0
/* The change-point detector (lab/stats/stats_changepoint.c) on seeded synthetic nights. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stats.h"

#define RUNS 10
#define MAXN 64

struct hist {
	double v[MAXN][RUNS];
	struct stats_cp_night n[MAXN];
	size_t k;
};

static double gauss(struct rng *r)
{
	double u = rng_double(r), v = rng_double(r);

	return sqrt(-2 * log(u + 1e-300)) * cos(2 * M_PI * v);
}

/*
 * @k nights of RUNS runs around 1000 with @cv noise per run and @night_sd
 * between nights; night i is multiplied by level[i] (NULL: 1).
 */
static void make(struct hist *h, size_t k, uint64_t seed, double cv, double night_sd,
		 const double *level)
{
	struct rng r;

	rng_seed(&r, seed);
	h->k = k;
	for (size_t i = 0; i < k; i++) {
		double fx = 1 + night_sd * gauss(&r), l = level ? level[i] : 1;

		for (size_t j = 0; j < RUNS; j++)
			h->v[i][j] = 1000 * l * fx * (1 + cv * gauss(&r));
		h->n[i] = (struct stats_cp_night){ h->v[i], RUNS };
	}
}

static size_t detect(const struct hist *h, size_t from, struct stats_cp **cps)
{
	struct stats_cp_settings s;

	stats_cp_settings_default(&s);
	s.seed = 42;
	return stats_changepoints(h->n, h->k, from, &s, cps);
}

static void test_no_change(void **state)
{
	struct hist h;
	size_t histories = 0;
	(void)state;

	/* alpha 0.01 per test: about 0.5 of 50 null histories may call one. */
	for (uint64_t seed = 1; seed <= 50; seed++) {
		struct stats_cp *cps;

		make(&h, 40, seed, 0.03, 0, NULL);
		histories += detect(&h, 0, &cps) > 0;
		free(cps);
	}
	assert_true(histories <= 2);
}

static void test_step_found_where_it_is(void **state)
{
	double level[40];
	struct hist h;
	struct stats_cp *cps;
	size_t n;
	(void)state;

	for (size_t i = 0; i < 40; i++)
		level[i] = i < 23 ? 1 : 0.95;
	make(&h, 40, 7, 0.03, 0, level);
	n = detect(&h, 0, &cps);
	assert_int_equal(n, 1);
	assert_int_equal(cps[0].at, 23);
	assert_false(cps[0].tentative);
	assert_true(cps[0].p <= 0.01);
	assert_true(cps[0].z > 0);	/* values went down */
	free(cps);
}

/* One night 15 % slower in the middle (a busy host) is not a change. */
static void test_outlier_night(void **state)
{
	double level[40];
	struct hist h;
	struct stats_cp *cps;
	(void)state;

	for (size_t i = 0; i < 40; i++)
		level[i] = i == 17 ? 0.85 : 1;
	make(&h, 40, 9, 0.03, 0, level);
	assert_int_equal(detect(&h, 0, &cps), 0);
	assert_null(cps);
}

/* Tonight alone may start a change: found, and marked tentative. */
static void test_tonight(void **state)
{
	double level[30];
	struct hist h;
	struct stats_cp *cps;
	(void)state;

	for (size_t i = 0; i < 30; i++)
		level[i] = i < 29 ? 1 : 0.90;
	make(&h, 30, 11, 0.03, 0, level);
	assert_int_equal(detect(&h, 0, &cps), 1);
	assert_int_equal(cps[0].at, 29);
	assert_true(cps[0].tentative);
	free(cps);
}

/*
 * Nights that differ more than their runs say (3 % between nights, 1 %
 * within): the overdispersion correction keeps the false alarms near
 * alpha, where the runs taken as exchangeable would call changes in most
 * histories.
 */
static void test_night_effects(void **state)
{
	struct hist h;
	size_t histories = 0;
	(void)state;

	for (uint64_t seed = 100; seed < 130; seed++) {
		struct stats_cp *cps;

		make(&h, 40, seed, 0.01, 0.03, NULL);
		histories += detect(&h, 0, &cps) > 0;
		free(cps);
	}
	assert_true(histories <= 3);
}

/* Same nights, same seed: the same answer; @from searches the open segment only. */
static void test_deterministic_and_incremental(void **state)
{
	double level[50];
	struct hist h;
	struct stats_cp *a, *b, *c;
	size_t na, nb, nc;
	(void)state;

	for (size_t i = 0; i < 50; i++)
		level[i] = i < 12 ? 1 : i < 35 ? 1.1 : 1.04;
	make(&h, 50, 5, 0.03, 0, level);
	na = detect(&h, 0, &a);
	nb = detect(&h, 0, &b);
	assert_int_equal(na, 2);
	assert_int_equal(nb, na);
	assert_memory_equal(a, b, na * sizeof(*a));
	assert_int_equal(a[0].at, 12);
	assert_int_equal(a[1].at, 35);
	/* From the first change on: the second is found, the first is not searched. */
	nc = detect(&h, 12, &c);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].at, 35);
	free(a);
	free(b);
	free(c);
}

/*
 * Up 4 %, then back down 15 nights later: about its one boundary, the
 * nights of each side spread as much as the other step, which hid the
 * pair in half of these histories when the spread between nights came
 * from the sides' means alone (10 of 20 found both); successive nights
 * leave the steps out of it (16 of 20).
 */
static void test_up_and_down(void **state)
{
	double level[40];
	size_t both = 0;
	(void)state;

	for (size_t i = 0; i < 40; i++)
		level[i] = i >= 10 && i < 25 ? 1.04 : 1;
	for (uint64_t seed = 1; seed <= 20; seed++) {
		struct hist h;
		struct stats_cp *cps;
		size_t n;

		make(&h, 40, seed, 0.03, 0.005, level);
		n = detect(&h, 0, &cps);
		both += n == 2 && cps[0].at == 10 && cps[1].at == 25 && cps[0].z < 0 && cps[1].z > 0;
		free(cps);
	}
	assert_true(both >= 14);
}

/* A night without values is the caller's to leave out: nothing is claimed. */
static void test_empty_night(void **state)
{
	struct hist h;
	struct stats_cp *cps;
	(void)state;

	make(&h, 10, 3, 0.03, 0, NULL);
	h.n[4].n = 0;
	assert_int_equal(detect(&h, 0, &cps), 0);
	assert_null(cps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_step_found_where_it_is),
		cmocka_unit_test(test_outlier_night),
		cmocka_unit_test(test_tonight),
		cmocka_unit_test(test_night_effects),
		cmocka_unit_test(test_deterministic_and_incremental),
		cmocka_unit_test(test_up_and_down),
		cmocka_unit_test(test_empty_night),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
