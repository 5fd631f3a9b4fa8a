// SPDX-License-Identifier: GPL-2.0
/*
 * Hosts as strata: van Elteren's stratified rank-sum test, the
 * inverse-variance pooled ratio, Cochran's Q and the chi-square tail.
 * Expected values are hand calculations (python3 with the math module, no
 * scipy on the lab's machines): the exact law of T by enumerating all
 * 20 x 6 splits of the two strata, the normal z from the formulas in
 * stats.h, the pooled estimate from w = 1 / se^2 with se read from each
 * interval, and Q's p from the closed forms of the chi-square tail for
 * 1 (erfc(sqrt(Q / 2))) and 2 (exp(-Q / 2)) degrees of freedom.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "stats.h"
#include "stats_priv.h"

#define assert_close(a, b, tol)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (tol) * fmax(1.0, fabs(b_))))         \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);  \
	} while (0)

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_chi2_tail(void **state __attribute__((unused)))
{
	assert_close(stats_chi2_sf(3.841458820694124, 1), 0.05, 1e-12);
	/* 4 degrees of freedom: exp(-x/2) (1 + x/2). */
	assert_close(stats_chi2_sf(7.5, 4), 0.11170929281604326, 1e-12);
	/* 2 degrees of freedom, far tail (the continued fraction). */
	assert_close(stats_chi2_sf(60, 2), exp(-30), 1e-9);
	assert_close(stats_chi2_sf(0, 3), 1, 0);
	assert_true(isnan(stats_chi2_sf(1, 0)));
}

/* Base 1 2 3 / patched 4 5 6 on one host, 10 30 / 20 40 on another. */
static const double b1[] = { 1, 2, 3 }, p1[] = { 4, 5, 6 };
static const double b2[] = { 10, 30 }, p2[] = { 20, 40 };

static void test_van_elteren_hand(void **state __attribute__((unused)))
{
	struct stats_stratum st[] = {
		{ b1, p1, N(b1), N(p1) }, { b2, p2, N(b2), N(p2) },
	};
	const char *method;
	double z, p;

	/* T = 15/7 + 6/5; P(T >= t) = 3/120 over the 120 equally likely splits. */
	assert_int_equal(stats_van_elteren(st, 2, 1000, &z, &p, &method), 0);
	assert_string_equal(method, "exact");
	assert_close(p, 0.05, 1e-12);
	assert_close(z, 2.021702214334303, 1e-12);
	/* Normal: E T = 2.5, var T = 9/12 * 7 / 49 + 4/12 * 5 / 25. */
	assert_int_equal(stats_van_elteren(st, 2, 0, &z, &p, &method), 0);
	assert_string_equal(method, "normal");
	assert_close(p, 0.04320712498384455, 1e-9);
}

/* One stratum: van Elteren's T is W / (N + 1), so its p is Mann-Whitney's. */
static void test_van_elteren_one_stratum_is_mann_whitney(void **state __attribute__((unused)))
{
	static const double x[] = { 9.1, 8.7, 9.9, 10.2, 9.5, 9.5, 8.9 };
	static const double y[] = { 10.4, 9.5, 11.0, 10.8, 9.8, 10.9 };
	struct stats_stratum st = { x, y, N(x), N(y) };
	enum stats_mw_method mm;
	const char *method;
	double u, pmw, z, p;

	stats_mann_whitney(x, N(x), y, N(y), 1000, &u, &pmw, &mm);
	assert_int_equal(stats_van_elteren(&st, 1, 1000, &z, &p, &method), 0);
	assert_string_equal(method, "exact-ties");
	assert_close(p, pmw, 1e-12);
	assert_true(z > 0);
}

/* A stratum with one kernel only adds nothing; none with both: -1. */
static void test_van_elteren_degenerate(void **state __attribute__((unused)))
{
	static const double bad[] = { 1, NAN };
	struct stats_stratum st[] = {
		{ b1, p1, N(b1), N(p1) }, { b2, NULL, N(b2), 0 },
	};
	struct stats_stratum nan_st = { bad, p1, N(bad), N(p1) };
	const char *method;
	double z, p;

	assert_int_equal(stats_van_elteren(st, 2, 1000, &z, &p, &method), 0);
	/* 3 vs 3 with the patched runs on top: 2 / 20. */
	assert_close(p, 0.1, 1e-12);
	assert_int_equal(stats_van_elteren(st + 1, 1, 1000, &z, &p, &method), -1);
	assert_true(isnan(p));
	assert_string_equal(method, "none");
	assert_int_equal(stats_van_elteren(&nan_st, 1, 1000, &z, &p, &method), -1);
}

/* Many strata: the exact law would grow past STATS_VE_EXACT_MAX, unless
 * equal strata merge (they do: T's support stays small), so it stays exact. */
static void test_van_elteren_many_strata(void **state __attribute__((unused)))
{
	double b[8][10], pt[8][10];
	struct stats_stratum st[8];
	const char *method;
	double z, p, zn, pn;

	for (int h = 0; h < 8; h++) {
		for (int i = 0; i < 10; i++) {
			b[h][i] = 100 * h + i;
			pt[h][i] = 100 * h + i + 0.5 + (i % 3);
		}
		st[h] = (struct stats_stratum){ b[h], pt[h], 10, 10 };
	}
	assert_int_equal(stats_van_elteren(st, 8, 1000, &z, &p, &method), 0);
	assert_string_equal(method, "exact");
	assert_int_equal(stats_van_elteren(st, 8, 0, &zn, &pn, &method), 0);
	assert_string_equal(method, "normal");
	/* 160 runs: the exact law is close to normal, and the tails agree. */
	assert_close(z, zn, 0);
	assert_true(fabs(p - pn) < 0.1 * pn);
	assert_true(p < 0.05 && z > 0);
}

static void test_pool_two_hosts_disagree(void **state __attribute__((unused)))
{
	double r[] = { 1.0, 0.8 }, lo[] = { 0.98, 0.78 }, hi[] = { 1.02, 0.82 };
	unsigned char used[2];
	struct stats_pooled P;

	assert_int_equal(stats_pool_ratios(r, lo, hi, 2, 0.95, &P, used), 0);
	assert_int_equal(P.k, 2);
	assert_int_equal(P.df, 1);
	assert_true(used[0] && used[1]);
	assert_close(P.ratio, 0.9166106919427911, 1e-12);
	assert_close(P.lo, 0.9024045478364974, 1e-12);
	assert_close(P.hi, 0.9310404769104399, 1e-12);
	assert_close(P.q, 186.54577828038555, 1e-10);
	assert_true(P.q_p < 1e-40);
	assert_close(P.i2, 0.9946393855212474, 1e-12);
	assert_int_equal(P.overlap, 0);
	assert_int_equal(P.heterogeneous, 1);
}

static void test_pool_hosts_agree(void **state __attribute__((unused)))
{
	double r[] = { 1.0, 1.01, 0.99 }, lo[] = { 0.97, 0.98, 0.95 }, hi[] = { 1.03, 1.04, 1.03 };
	double r2[] = { 1.0, 1.02 }, lo2[] = { 0.97, 0.98 }, hi2[] = { 1.03, 1.06 };
	struct stats_pooled P;

	assert_int_equal(stats_pool_ratios(r, lo, hi, 3, 0.95, &P, NULL), 0);
	assert_close(P.ratio, 1.001795495852987, 1e-12);
	assert_close(P.lo, 0.9832213222032384, 1e-12);
	assert_close(P.hi, 1.0207205568553392, 1e-12);
	assert_close(P.q, 0.6329747182535952, 1e-10);
	assert_close(P.q_p, 0.7287042229592487, 1e-10);
	assert_close(P.i2, 0, 0);
	assert_int_equal(P.overlap, 1);
	assert_int_equal(P.heterogeneous, 0);

	assert_int_equal(stats_pool_ratios(r2, lo2, hi2, 2, 0.95, &P, NULL), 0);
	assert_close(P.ratio, 1.0073354398440957, 1e-12);
	assert_close(P.q_p, 0.4320218279967353, 1e-10);
	assert_int_equal(P.heterogeneous, 0);
}

/* A host whose interval has no width, or no ratio, carries no weight. */
static void test_pool_skips_unusable(void **state __attribute__((unused)))
{
	double r[] = { 1.0, 1.2, NAN, 1.1 }, lo[] = { 0.98, 1.2, NAN, 0 };
	double hi[] = { 1.02, 1.2, NAN, 1.3 };
	unsigned char used[4];
	struct stats_pooled P;

	assert_int_equal(stats_pool_ratios(r, lo, hi, 4, 0.95, &P, used), 0);
	assert_int_equal(P.k, 1);
	assert_memory_equal(used, ((unsigned char[]){ 1, 0, 0, 0 }), 4);
	assert_close(P.ratio, 1.0, 1e-12);
	assert_true(isnan(P.q));
	assert_int_equal(P.heterogeneous, 0);
	assert_int_equal(stats_pool_ratios(r + 1, lo + 1, hi + 1, 3, 0.95, &P, used), -1);
	assert_int_equal(P.k, 0);
	assert_true(isnan(P.ratio));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chi2_tail),
		cmocka_unit_test(test_van_elteren_hand),
		cmocka_unit_test(test_van_elteren_one_stratum_is_mann_whitney),
		cmocka_unit_test(test_van_elteren_degenerate),
		cmocka_unit_test(test_van_elteren_many_strata),
		cmocka_unit_test(test_pool_two_hosts_disagree),
		cmocka_unit_test(test_pool_hosts_agree),
		cmocka_unit_test(test_pool_skips_unusable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
