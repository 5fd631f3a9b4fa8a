// SPDX-License-Identifier: GPL-2.0
/*
 * The sequential plan (lab/stats/stats_seq.c): look schedule and levels on
 * hand-computed examples, the union bound, the off-schedule rule, plan
 * errors, one look's verdict; then a seeded simulation showing that the
 * rule keeps the A/A false-positive rate at alpha while naive re-testing
 * at every look does not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rng.h"
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#define assert_close(a, b, tol)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (tol) * fmax(1.0, fabs(b_))))         \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);  \
	} while (0)

static void test_schedule_linear(void **state)
{
	/* Looks at 6, 8, ..., 20: A(t) = 0.05 t, so alpha_1 = 0.05 * 6/20
	 * and every later look 0.05 * 2/20. */
	struct stats_seq_plan p = { 0.05, 6, 20, 2, 1.0 };

	(void)state;
	assert_int_equal(stats_seq_looks(&p), 8);
	for (size_t k = 1; k <= 8; k++)
		assert_int_equal(stats_seq_runs_at(&p, k), 4 + 2 * k);
	assert_int_equal(stats_seq_runs_at(&p, 0), 0);
	assert_int_equal(stats_seq_runs_at(&p, 9), 0);
	assert_close(stats_seq_alpha_at(&p, 1), 0.015, 1e-15);
	for (size_t k = 2; k <= 8; k++)
		assert_close(stats_seq_alpha_at(&p, k), 0.005, 1e-14);
	assert_close(stats_seq_alpha_at(&p, 0), 0, 0);
	assert_close(stats_seq_alpha_at(&p, 9), 0, 0);

	/* A last look off the step: 6, 8, ..., 20, 21. */
	p.max_runs = 21;
	assert_int_equal(stats_seq_looks(&p), 9);
	assert_int_equal(stats_seq_runs_at(&p, 8), 20);
	assert_int_equal(stats_seq_runs_at(&p, 9), 21);
	assert_close(stats_seq_alpha_at(&p, 9), 0.05 / 21, 1e-13);
	assert_close(stats_seq_alpha_at(&p, 1), 0.05 * 6 / 21, 1e-15);

	/* One look only: the whole alpha at once, as a fixed design. */
	p.max_runs = 6;
	assert_int_equal(stats_seq_looks(&p), 1);
	assert_close(stats_seq_alpha_at(&p, 1), 0.05, 0);
}

static void test_schedule_rho(void **state)
{
	/* Looks at 8, 12, ..., 40, A(t) = 0.05 t^2: alpha_1 = 0.05 * 0.04,
	 * alpha_2 = 0.05 (0.09 - 0.04), alpha_9 = 0.05 (1 - 0.81). */
	struct stats_seq_plan p = { 0.05, 8, 40, 4, 2.0 };

	(void)state;
	assert_int_equal(stats_seq_looks(&p), 9);
	assert_close(stats_seq_alpha_at(&p, 1), 0.002, 1e-14);
	assert_close(stats_seq_alpha_at(&p, 2), 0.0025, 1e-13);
	assert_close(stats_seq_alpha_at(&p, 9), 0.0095, 1e-13);
	/* Later looks get more: the convex spending keeps alpha back. */
	for (size_t k = 2; k <= 9; k++)
		assert_true(stats_seq_alpha_at(&p, k) >
			    stats_seq_alpha_at(&p, k - 1));
}

static void test_look_of_off_schedule(void **state)
{
	struct stats_seq_plan p = { 0.05, 6, 20, 2, 1.0 };

	(void)state;
	assert_int_equal(stats_seq_look_of(&p, 0), 0);
	assert_int_equal(stats_seq_look_of(&p, 5), 0);	/* not decidable yet */
	assert_int_equal(stats_seq_look_of(&p, 6), 1);
	/* Between looks 1 and 2 (a session stopped mid-block): look 2,
	 * whose level has not been spent. */
	assert_int_equal(stats_seq_look_of(&p, 7), 2);
	assert_int_equal(stats_seq_look_of(&p, 8), 2);
	assert_int_equal(stats_seq_look_of(&p, 9), 3);
	assert_int_equal(stats_seq_look_of(&p, 19), 8);
	assert_int_equal(stats_seq_look_of(&p, 20), 8);
	assert_int_equal(stats_seq_look_of(&p, 33), 8);	/* past the plan */
	/* Every n on the schedule maps to its own look. */
	for (size_t k = 1; k <= stats_seq_looks(&p); k++)
		assert_int_equal(stats_seq_look_of(&p, stats_seq_runs_at(&p, k)),
				 k);
	/* step 1: every n is a look. */
	p.step = 1;
	assert_int_equal(stats_seq_looks(&p), 15);
	assert_int_equal(stats_seq_look_of(&p, 13), 8);
}

static void test_union_bound(void **state)
{
	(void)state;
	for (size_t min = 3; min <= 12; min += 3)
		for (size_t max = min; max <= 120; max += 7)
			for (size_t step = 1; step <= 5; step++)
				for (double rho = 0.5; rho <= 4; rho += 0.5) {
					struct stats_seq_plan p = {
						0.05, min, max, step, rho
					};
					size_t k = stats_seq_looks(&p);
					double sum = 0;

					for (size_t j = 1; j <= k; j++) {
						double a = stats_seq_alpha_at(&p, j);

						assert_true(a > 0);
						sum += a;
					}
					/* Telescoping: A(1) = alpha, up to
					 * rounding of the differences. */
					assert_true(sum <= 0.05 * (1 + 1e-12));
					assert_close(sum, 0.05, 1e-12);
					assert_int_equal(stats_seq_runs_at(&p, k),
							 max);
				}
}

static void test_p_adjust(void **state)
{
	struct stats_seq_plan p = { 0.05, 6, 20, 2, 1.0 };

	(void)state;
	/* alpha_1 = 0.015: p 0.001 -> 0.001 * 0.05 / 0.015. */
	assert_close(stats_seq_p_adjust(&p, 1, 0.001), 0.05 / 15, 1e-14);
	assert_close(stats_seq_p_adjust(&p, 2, 0.5), 1.0, 0);
	assert_close(stats_seq_p_adjust(&p, 0, 0.001), 1.0, 0);
	assert_true(isnan(stats_seq_p_adjust(&p, 3, NAN)));
	/* p_adj < alpha exactly when p < alpha_k. */
	for (size_t k = 1; k <= 8; k++)
		for (double q = 0.0001; q < 0.03; q *= 1.3)
			assert_int_equal(stats_seq_p_adjust(&p, k, q) < 0.05,
					 q < stats_seq_alpha_at(&p, k));
}

static void expect_error(struct stats_seq_plan p, const char *field)
{
	char err[256];

	err[0] = 0;
	assert_int_equal(stats_seq_plan_check(&p, err, sizeof(err)), -1);
	if (strncmp(err, field, strlen(field)))
		fail_msg("error \"%s\" does not name %s", err, field);
}

static void test_plan_check(void **state)
{
	struct stats_seq_plan ok = { 0.05, 6, 40, 2, 1.0 }, p;
	char err[256];

	(void)state;
	assert_int_equal(stats_seq_plan_check(&ok, err, sizeof(err)), 0);
	p = ok, p.alpha = 0;
	expect_error(p, "alpha:");
	p = ok, p.alpha = NAN;
	expect_error(p, "alpha:");
	p = ok, p.min_runs = 2;
	expect_error(p, "min_runs:");
	p = ok, p.max_runs = 5;
	expect_error(p, "max_runs:");
	p = ok, p.step = 0;
	expect_error(p, "step:");
	p = ok, p.rho = 0;
	expect_error(p, "rho:");
	p = ok, p.rho = INFINITY;
	expect_error(p, "rho:");
	/* rho 2: alpha_1 = 0.05 (6/40)^2 = 0.0011 < 2 / C(12, 6) = 0.0022:
	 * the first look could never reject. */
	p = ok, p.rho = 2;
	expect_error(p, "min_runs: look 1 of 18");
	p.min_runs = 7;
	assert_int_equal(stats_seq_plan_check(&p, err, sizeof(err)), 0);

	/* The default raises min_runs until every look can decide. */
	stats_seq_plan_default(&p, 40);
	assert_int_equal(p.min_runs, STATS_SEQ_MIN_RUNS);
	assert_int_equal(p.step, 2);
	assert_int_equal(stats_seq_plan_check(&p, err, sizeof(err)), 0);
	stats_seq_plan_default(&p, 200);
	assert_int_equal(stats_seq_plan_check(&p, err, sizeof(err)), 0);
	/* rho 1.5: 0.05 (7/200)^1.5 = 0.00033 < 2 / C(14, 7) = 0.00058,
	 * 0.05 (8/200)^1.5 = 0.0004 > 2 / C(16, 8) = 0.00016. */
	assert_close(p.rho, 1.5, 0);
	assert_int_equal(p.min_runs, 8);
	p.min_runs--;
	expect_error(p, "min_runs: look 1");
	stats_seq_plan_default(&p, 2);		/* fewer than the first look */
	assert_int_equal(p.max_runs, p.min_runs);
	assert_int_equal(stats_seq_plan_check(&p, err, sizeof(err)), 0);
}

static void lognormal(double *x, size_t n, double shift, struct rng *r)
{
	struct stats_sim_model m = { STATS_SIM_LOGNORMAL, 0.01, shift };

	for (size_t i = 0; i < n; i++)
		x[i] = 100 * stats_sim_draw(&m, 1, r);
}

static void test_decide_one_look(void **state)
{
	struct stats_seq_plan p = { 0.05, 6, 20, 2, 1.0 };
	struct stats_settings s;
	struct stats_seq_result res;
	double a[20], b[20];
	struct rng r;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 2000;
	rng_seed(&r, 5);
	lognormal(a, 20, 1.0, &r);
	lognormal(b, 20, 1.1, &r);
	/* +10 % with 1 % noise at the last look: clear. */
	assert_int_equal(stats_seq_compare(&p, 8, a, 20, b, 20, &s, 1, &res), 0);
	assert_int_equal(res.look, 8);
	assert_int_equal(res.looks, 8);
	assert_close(res.alpha_k, 0.005, 1e-14);
	assert_close(res.cmp.ci_level, 0.995, 1e-14);
	assert_close(res.p_adj, res.cmp.mw_p * 10, 1e-12);
	assert_int_equal(stats_seq_decide(&p, &res, &s, 1, -1, -1, 0, 0),
			 VERDICT_IMPROVEMENT);
	assert_int_equal(res.dec.final, 1);
	assert_true(stats_verdict_decided(res.dec.verdict));
	/* A BH q of the primaries' adjusted p values is compared with the
	 * plan's alpha: 0.2 is not significant, 0.01 is. */
	assert_int_equal(stats_seq_decide(&p, &res, &s, 1, -1, 0.2, 0, 0),
			 VERDICT_INCONCLUSIVE);
	assert_int_equal(res.dec.used_q, 1);
	assert_int_equal(res.dec.final, 0);
	assert_int_equal(stats_seq_decide(&p, &res, &s, 1, -1, 0.01, 0, 0),
			 VERDICT_IMPROVEMENT);
	/* Before the first look: nothing is decided. */
	assert_int_equal(stats_seq_compare(&p, 0, a, 5, b, 5, &s, 1, &res), 0);
	assert_int_equal(stats_seq_decide(&p, &res, &s, 1, -1, -1, 0, 0),
			 VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.dec.reason, "first look at 6"));
	/* A look beyond the plan is its last one. */
	assert_int_equal(stats_seq_compare(&p, 30, a, 20, b, 20, &s, 1, &res), 0);
	assert_int_equal(res.look, 8);

	/* p between alpha_k and alpha: significant for a fixed design,
	 * not at the first look (alpha_1 = 0.015). 6 vs 6 runs, one
	 * baseline run above 4 patched ones: U = 4, exact two-sided
	 * p = 2 * 12/924 = 0.026. */
	double a6[6] = { 100, 101, 102, 103, 104, 107.5 };
	double b6[6] = { 104.5, 105, 106, 107, 108, 109 };

	assert_int_equal(stats_seq_compare(&p, 1, a6, 6, b6, 6, &s, 1, &res), 0);
	assert_close(res.cmp.mw_p, 24.0 / 924, 1e-12);
	assert_true(stats_seq_decide(&p, &res, &s, 1, 0, -1, 0, 0) !=
		    VERDICT_IMPROVEMENT);
	assert_int_equal(res.dec.final, 0);
}

/* Smallest c with P(Bin(n, a) <= c) >= 0.999: a count above it happens
 * with probability < 0.1 % when the true rate is a. */
static size_t binom_upper(size_t n, double a)
{
	double cdf = 0;

	for (size_t c = 0; c <= n; c++) {
		cdf += exp(lgamma(n + 1.0) - lgamma(c + 1.0) -
			   lgamma((double)(n - c) + 1) + c * log(a) +
			   (double)(n - c) * log1p(-a));
		if (cdf >= 0.999)
			return c;
	}
	return n;
}

static int is_call(enum stats_verdict v)
{
	return v == VERDICT_IMPROVEMENT || v == VERDICT_REGRESSION;
}

/*
 * A/A sessions (same distribution in both kernels), 8 looks at 6..20 runs
 * per kernel, each rule stopping at its first final decision. The
 * sequential rule's calls of "improvement" or "regression" must stay at
 * or below alpha (at most the 99.9 % binomial quantile); naive
 * re-testing at alpha on the same runs must exceed it (band 0, where only
 * a call can end an A/A session early; the ~ of band 2 % ends most A/A
 * sessions at the first looks, before a naive call is likely).
 */
static void test_simulated_aa(void **state)
{
	struct stats_seq_plan p = { 0.05, 6, 20, 2, 1.0 };
	static const enum stats_sim_noise noise[] = {
		STATS_SIM_LOGNORMAL, STATS_SIM_SLOW_TAIL,
	};
	static const double bands[] = { 0, 0.02 };
	const size_t sims = 400;
	size_t limit = binom_upper(sims, 0.05), total_naive = 0;
	struct stats_settings s;
	struct rng r;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 200;	/* the rate is bounded by the p values */
	rng_seed(&r, 20261130);
	for (size_t i = 0; i < ARRAY_SIZE(noise); i++)
		for (size_t j = 0; j < ARRAY_SIZE(bands); j++) {
			struct stats_sim_model m = { noise[i], 0.03, 1.0 };
			size_t seq = 0, naive = 0;

			for (size_t k = 0; k < sims; k++) {
				struct stats_sim_outcome o;

				stats_sim_session(&p, &s, &m, bands[j], 1, &r,
						  &o);
				seq += is_call(o.seq);
				naive += is_call(o.naive);
			}
			print_message("%s band %g: sequential %zu, naive %zu "
				      "of %zu (limit %zu)\n",
				      stats_sim_noise_name(noise[i]), bands[j],
				      seq, naive, sims, limit);
			assert_true(seq <= limit);
			if (bands[j] == 0)
				total_naive += naive;
		}
	/* Both noise models pooled: far beyond what alpha allows. */
	print_message("naive, band 0: %zu of %zu (limit %zu)\n", total_naive,
		      2 * sims, binom_upper(2 * sims, 0.05));
	assert_true(total_naive > binom_upper(2 * sims, 0.05));
}

/*
 * Final stays final (issue 49): the looks' intervals intersected and the
 * smallest look-adjusted p; a look whose interval misses the intersection
 * leaves it and is counted; a look without an interval keeps what was.
 */
static void test_carry(void **state)
{
	struct stats_seq_plan p = { 0.05, 6, 20, 2, 1.0 };
	struct stats_seq_carry c;

	(void)state;
	stats_seq_carry_init(&c);
	assert_true(isnan(c.lo) && isnan(c.p_adj));
	stats_seq_carry_add(&p, 1, 0.98, 1.05, 0.001, &c);
	assert_true(c.lo == 0.98 && c.hi == 1.05);
	assert_true(fabs(c.p_adj - stats_seq_p_adjust(&p, 1, 0.001)) < 1e-15);
	stats_seq_carry_add(&p, 2, 0.97, 1.02, 0.5, &c);
	assert_true(c.lo == 0.98 && c.hi == 1.02);
	/* A later, larger p does not raise it. */
	assert_true(fabs(c.p_adj - stats_seq_p_adjust(&p, 1, 0.001)) < 1e-15);
	stats_seq_carry_add(&p, 3, 1.10, 1.20, 0.9, &c);
	assert_int_equal(c.disjoint, 1);
	assert_true(c.lo == 0.98 && c.hi == 1.02);
	stats_seq_carry_add(&p, 4, NAN, NAN, NAN, &c);
	assert_int_equal(c.looks, 2);
	assert_true(c.lo == 0.98 && c.hi == 1.02);
}

/*
 * A bisection's placement: an interval wholly on one side of the series'
 * geometric midpoint places the prefix, one holding it does not; the same
 * for a change that lowers the metric; nonsense bounds place nothing.
 */
static void test_side_of_midpoint(void **state)
{
	double up = sqrt(1.08), down = sqrt(0.29);

	(void)state;
	assert_int_equal(stats_side_of_midpoint(0.980, 1.030, up), -1);
	assert_int_equal(stats_side_of_midpoint(1.050, 1.110, up), 1);
	assert_int_equal(stats_side_of_midpoint(1.020, 1.060, up), 0);
	assert_int_equal(stats_side_of_midpoint(0.900, 1.100, down), -1);
	assert_int_equal(stats_side_of_midpoint(0.250, 0.330, down), 1);
	assert_int_equal(stats_side_of_midpoint(0.400, 0.700, down), 0);
	assert_int_equal(stats_side_of_midpoint(0.980, 1.030, 1.0), 0);
	assert_int_equal(stats_side_of_midpoint(NAN, 1.030, up), 0);
	assert_int_equal(stats_side_of_midpoint(0.0, 1.030, up), 0);
	assert_int_equal(stats_side_of_midpoint(1.030, 0.980, up), 0);
	assert_int_equal(stats_side_of_midpoint(0.980, INFINITY, up), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule_linear),
		cmocka_unit_test(test_schedule_rho),
		cmocka_unit_test(test_look_of_off_schedule),
		cmocka_unit_test(test_union_bound),
		cmocka_unit_test(test_p_adjust),
		cmocka_unit_test(test_plan_check),
		cmocka_unit_test(test_decide_one_look),
		cmocka_unit_test(test_simulated_aa),
		cmocka_unit_test(test_side_of_midpoint),
		cmocka_unit_test(test_carry),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
