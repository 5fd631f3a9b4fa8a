// SPDX-License-Identifier: GPL-2.0
/*
 * The seeded bootstrap (ratio interval, geometric mean), the PRNG it runs
 * on, the minimum detectable effect and the numeric helpers.
 * Golden values: tests/unit/test_stats_golden.py (scipy 1.10.1).
 */
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
#include "stats_priv.h"

#define assert_close(a, b, tol)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (tol) * fmax(1.0, fabs(b_))))         \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);  \
	} while (0)

/* numpy default_rng(7) / (8) lognormals around 100 and 104, sd 3 %. */
static const double A[20] = {
	100.004, 100.9, 99.181, 97.364, 98.645, 97.069, 100.181, 104.103,
	98.534, 98.156, 101.48, 101.076, 100.317, 97.247, 99.912, 102.108,
	96.048, 98.637, 94.456, 96.205,
};
static const double B[20] = {
	98.716, 99.912, 99.839, 102.909, 97.029, 103.412, 101.056, 106.826,
	107.029, 108.436, 106.422, 103.835, 106.717, 108.805, 101.981,
	105.922, 103.867, 108.591, 101.421, 103.063,
};

static void test_rng_reference_streams(void **state)
{
	/* Python reimplementation of splitmix64 / xoshiro256** (golden
	 * script); splitmix64's first output from state 0 is also the
	 * published test vector 0xe220a8397b1dcdaf. */
	uint64_t sm = 0;
	struct rng r;

	(void)state;
	assert_true(splitmix64(&sm) == 0xe220a8397b1dcdafULL);
	rng_seed(&r, 42);
	assert_true(rng_next(&r) == 0x15780b2e0c2ec716ULL);
	assert_true(rng_next(&r) == 0x6104d9866d113a7eULL);
	assert_true(rng_next(&r) == 0xae17533239e499a1ULL);

	/* rng_below stays in range and hits every value. */
	unsigned seen[7] = { 0 };

	for (int i = 0; i < 7000; i++) {
		uint32_t v = rng_below(&r, 7);

		assert_true(v < 7);
		seen[v]++;
	}
	for (int i = 0; i < 7; i++)
		assert_true(seen[i] > 800 && seen[i] < 1200);
	double d = rng_double(&r);

	assert_true(d >= 0 && d < 1);
}

static void test_bootstrap_same_seed_same_interval(void **state)
{
	struct stats_settings s;
	struct stats_comparison c1, c2, c3;

	(void)state;
	stats_settings_default(&s);
	assert_int_equal(stats_compare(A, 20, B, 20, &s, 1234, &c1), 0);
	assert_int_equal(stats_compare(A, 20, B, 20, &s, 1234, &c2), 0);
	assert_int_equal(stats_compare(A, 20, B, 20, &s, 1235, &c3), 0);
	/* Bit-identical twice... */
	assert_memory_equal(&c1.ratio_lo, &c2.ratio_lo, sizeof(double));
	assert_memory_equal(&c1.ratio_hi, &c2.ratio_hi, sizeof(double));
	/* ...and a different seed gives a different interval. */
	assert_true(c1.ratio_lo != c3.ratio_lo || c1.ratio_hi != c3.ratio_hi);
	assert_string_equal(c1.ci_method, "bca");
	assert_int_equal(c1.resamples, 10000);
}

static void test_bootstrap_matches_scipy(void **state)
{
	/*
	 * scipy.stats.bootstrap((A, B), median(B)/median(A), method='BCa',
	 * n_resamples=10000), mean over random_state 0..4:
	 * [1.025206, 1.081584] (sd 0.0004 / 0.0002 between seeds). Another
	 * RNG, so agree within Monte Carlo error only; 0.0015 still tells BCa
	 * from the percentile interval ([1.022697, 1.079407] in scipy).
	 */
	struct stats_settings s;
	struct stats_comparison c;

	(void)state;
	stats_settings_default(&s);
	assert_int_equal(stats_compare(A, 20, B, 20, &s, 99, &c), 0);
	assert_int_equal(c.ratio_valid, 1);
	assert_close(c.ratio, stats_median(B, 20) / stats_median(A, 20), 1e-15);
	assert_close(c.delta_pct, 100 * (c.ratio - 1), 1e-12);
	if (fabs(c.ratio_lo - 1.025206) > 0.0015 ||
	    fabs(c.ratio_hi - 1.081584) > 0.0015)
		fail_msg("BCa [%.6f, %.6f], scipy [1.025206, 1.081584]",
			 c.ratio_lo, c.ratio_hi);
	assert_true(c.ratio_lo <= c.ratio && c.ratio <= c.ratio_hi);
	/* Clear shift: the exact U test agrees (99.912 is in both: ties). */
	assert_int_equal(c.mw_method, STATS_MW_EXACT_TIES);
	assert_string_equal(c.mw_method_name, "exact-ties");
	assert_true(c.mw_p < 0.01);
	assert_true(c.mde_pct > 0 && c.mde_pct < 10);
}

static void test_ratio_undefined(void **state)
{
	double z[] = { 0, 0, 0, 1 }, p[] = { 1, 2, 3, 4 };
	double neg[] = { -1, -2, -3 };
	struct stats_settings s;
	struct stats_comparison c;

	(void)state;
	stats_settings_default(&s);
	assert_int_equal(stats_compare(z, 4, p, 4, &s, 1, &c), 0);
	assert_int_equal(c.ratio_valid, 0);
	assert_true(isnan(c.ratio) && isnan(c.ratio_lo));
	assert_string_equal(c.ci_method, "none");
	assert_false(isnan(c.mw_p));	/* the rank test still works */
	assert_int_equal(stats_compare(neg, 3, neg, 3, &s, 1, &c), 0);
	assert_int_equal(c.ratio_valid, 0);
	assert_int_equal(c.all_equal, 0);
	assert_int_equal(stats_compare(p, 0, p, 4, &s, 1, &c), -1);
}

static void test_mde_shrinks_with_runs(void **state)
{
	/* The formula scales with sqrt(1/n1 + 1/n2): 4x the runs (same
	 * spread) halves the log MDE. */
	double a40[80], b40[80];
	struct stats_settings s;
	struct stats_comparison c20, c80;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 200;
	for (int i = 0; i < 80; i++) {
		a40[i] = A[i % 20];
		b40[i] = B[i % 20];
	}
	assert_int_equal(stats_compare(A, 20, B, 20, &s, 1, &c20), 0);
	assert_int_equal(stats_compare(a40, 80, b40, 80, &s, 1, &c80), 0);
	assert_close(log1p(c80.mde_pct / 100) * 2, log1p(c20.mde_pct / 100),
		     1e-9);
}

/*
 * An arm whose runs all gave one value has no noise estimate of its own:
 * its zero deviations used to be pooled in (a smaller MDE than the other
 * arm's noise supports), and two such arms gave an MDE of exactly 0 %.
 */
static void test_mde_with_a_constant_arm(void **state)
{
	double flat[6] = { 5, 5, 5, 5, 5, 5 }, flat2[6] = { 6, 6, 6, 6, 6, 6 };
	double b[6] = { 4, 5, 6, 7, 8, 9 };
	struct stats_settings s;
	struct stats_comparison c, ref;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 100;
	/* The MDE of b against b uses b's spread twice: the same spread as
	 * b's alone, which is what a constant baseline must give. */
	assert_int_equal(stats_compare(b, 6, b, 6, &s, 1, &ref), 0);
	assert_null(ref.mde_note);
	assert_int_equal(stats_compare(flat, 6, b, 6, &s, 1, &c), 0);
	assert_close(c.mde_pct, ref.mde_pct, 1e-12);
	assert_non_null(c.mde_note);
	assert_non_null(strstr(c.mde_note, "patched runs only"));
	assert_int_equal(stats_compare(b, 6, flat, 6, &s, 1, &c), 0);
	assert_close(c.mde_pct, ref.mde_pct, 1e-12);
	assert_non_null(strstr(c.mde_note, "baseline runs only"));
	/* No spread anywhere: no estimate, not 0 %. */
	assert_int_equal(stats_compare(flat, 6, flat2, 6, &s, 1, &c), 0);
	assert_true(isnan(c.mde_pct));
	assert_non_null(strstr(c.mde_note, "no noise estimate"));
}

static void test_geomean(void **state)
{
	/*
	 * Metric 0: higher is better, 100 -> 110 (ratio 1.1).
	 * Metric 1: lower is better, 50 -> 45 (oriented 50/45).
	 * Metric 2: has a zero: skipped. Constant values: the interval is
	 * the point. Geomean = sqrt(1.1 * 50/45).
	 */
	double base[3 * 4] = { 100, 100, 100, 100, 50, 50, 50, 50, 0, 1, 2, 3 };
	double pat[3 * 4] = { 110, 110, 110, 110, 45, 45, NAN, 45, 1, 1, 2, 3 };
	unsigned char hb[3] = { 1, 0, 1 };
	struct stats_settings s;
	struct stats_geomean g, g2;

	(void)state;
	stats_settings_default(&s);
	assert_int_equal(stats_geomean(base, 4, pat, 4, 3, hb, &s, 5, &g), 0);
	assert_int_equal(g.k, 2);
	assert_int_equal(g.skipped, 1);
	assert_close(g.ratio, sqrt(1.1 * 50.0 / 45.0), 1e-12);
	assert_close(g.lo, g.ratio, 1e-12);
	assert_close(g.hi, g.ratio, 1e-12);
	assert_string_equal(g.method, "joint-bootstrap-percentile");

	/* Raw (unoriented) ratios with noisy data: a real interval. */
	double nb[2 * 20], np_[2 * 20];

	for (int i = 0; i < 20; i++) {
		nb[i] = A[i];
		np_[i] = B[i];
		nb[20 + i] = B[i];
		np_[20 + i] = A[i] * 1.1;
	}
	assert_int_equal(stats_geomean(nb, 20, np_, 20, 2, NULL, &s, 5, &g), 0);
	assert_int_equal(stats_geomean(nb, 20, np_, 20, 2, NULL, &s, 5, &g2), 0);
	assert_true(g.lo < g.ratio && g.ratio < g.hi);
	assert_memory_equal(&g.lo, &g2.lo, sizeof(double));
	double want = sqrt(stats_median(B, 20) / stats_median(A, 20) *
			   stats_median(A, 20) * 1.1 / stats_median(B, 20));

	assert_close(g.ratio, want, 1e-12);
}

/*
 * The exact bootstrap law of the median (used to draw resample medians in
 * O(1)) against brute force: every one of the n^n equally likely
 * resamples, n = 1..6. Values 2^i make every (x_a + x_b) / 2 distinct, so
 * a support point identifies its pair of positions.
 */
static void test_median_law_matches_enumeration(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 6; n++) {
		double x[6], val[21], prob[21], want[6][6] = { { 0 } };
		size_t idx[6] = { 0 }, total = 1, m;

		for (size_t i = 0; i < n; i++) {
			x[i] = (double)(1u << i);
			total *= n;
		}
		for (size_t t = 0; t < total; t++) {
			size_t c[6] = { 0 }, cum = 0, a = 0, b;

			for (size_t i = 0; i < n; i++)
				c[idx[i]]++;
			while (cum + c[a] <= (n - 1) / 2)
				cum += c[a++];
			b = a;
			while (cum + c[b] <= n / 2)
				cum += c[b++];
			want[a][b] += 1.0 / (double)total;
			for (size_t i = 0; i < n && ++idx[i] == n; i++)
				idx[i] = 0;
		}
		m = stats_median_law(x, n, val, prob);
		assert_int_equal(m, n & 1 ? n : n * (n + 1) / 2);
		double sum = 0;

		for (size_t k = 0; k < m; k++) {
			int found = 0;

			for (size_t a = 0; a < n; a++)
				for (size_t b = a; b < n; b++) {
					if (val[k] != ((n & 1) ? x[a] : (x[a] + x[b]) / 2) ||
					    ((n & 1) && a != b))
						continue;
					assert_close(prob[k], want[a][b], 1e-12);
					want[a][b] = -1;	/* seen */
					found = 1;
				}
			assert_true(found);
			sum += prob[k];
		}
		assert_close(sum, 1.0, 1e-12);
	}
}

static void test_bootstrap_large_n_counting_path(void **state)
{
	/* Beyond 200 runs the resamples are drawn and counted instead. */
	double a[250], b[250];
	struct stats_settings s;
	struct stats_comparison c1, c2;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 2000;
	for (int i = 0; i < 250; i++) {
		a[i] = A[i % 20] + 0.001 * i;
		b[i] = B[i % 20] + 0.001 * i;
	}
	assert_int_equal(stats_compare(a, 250, b, 250, &s, 4, &c1), 0);
	assert_int_equal(stats_compare(a, 250, b, 250, &s, 4, &c2), 0);
	assert_memory_equal(&c1.ratio_lo, &c2.ratio_lo, sizeof(double));
	assert_true(c1.ratio_lo < c1.ratio && c1.ratio < c1.ratio_hi);
	/* 12.5x the runs: a much narrower interval than with 20. */
	assert_true(c1.ratio_hi - c1.ratio_lo < 0.03);
	assert_int_equal(c1.mw_method, STATS_MW_NORMAL);
}

static void test_numeric_helpers(void **state)
{
	/* scipy.stats.norm.ppf */
	(void)state;
	assert_close(stats_norm_quantile(0.975), 1.959963984540054, 1e-14);
	assert_close(stats_norm_quantile(1e-10), -6.361340902404056, 1e-13);
	assert_close(stats_norm_quantile(0.3), -0.5244005127080409, 1e-14);
	assert_close(stats_norm_cdf(stats_norm_quantile(0.8)), 0.8, 1e-14);

	/* Quickselect against a full sort on seeded random data, with many
	 * duplicates, for every k. */
	struct rng r;
	double x[101], y[101], sorted[101];

	rng_seed(&r, 7);
	for (size_t n = 1; n <= 101; n += 10) {
		for (size_t i = 0; i < n; i++)
			sorted[i] = x[i] = (double)rng_below(&r, 13);
		stats_sort(sorted, n);
		for (size_t k = 0; k < n; k++) {
			memcpy(y, x, n * sizeof(*y));
			assert_close(stats_select(y, n, k), sorted[k], 0);
		}
		memcpy(y, x, n * sizeof(*y));
		assert_close(stats_median_inplace(y, n),
			     stats_median_sorted(sorted, n), 0);
	}
}

/*
 * Values near the top of the double range: the even-n median used to
 * average as (a + b) / 2, which overflows to inf, and the comparison then
 * reported a "valid" ratio with the interval [0, inf].
 */
static void test_huge_values_do_not_overflow(void **state)
{
	double a[4] = { 1.0e308, 1.2e308, 1.4e308, 1.6e308 };
	double b[4] = { 1.1e308, 1.3e308, 1.5e308, 1.7e308 };
	double y[4], lawv[10], lawp[10];
	struct stats_settings s;
	struct stats_comparison c;
	struct stats_decision d;

	(void)state;
	assert_close(stats_median_sorted(a, 4), 1.3e308, 1e-15);
	memcpy(y, a, sizeof(y));
	assert_close(stats_median_inplace(y, 4), 1.3e308, 1e-15);
	assert_close(stats_median(b, 4), 1.4e308, 1e-15);
	/* The law's support: every averaged pair is finite. */
	size_t m = stats_median_law(a, 4, lawv, lawp);

	for (size_t i = 0; i < m; i++)
		assert_true(isfinite(lawv[i]));
	/* Interpolated quantiles between values of opposite sign. */
	double wide[2] = { -1.5e308, 1.5e308 };

	assert_true(isfinite(stats_quantile_sorted(wide, 2, 0.5)));
	memcpy(y, wide, sizeof(wide));
	assert_true(isfinite(stats_select_quantile(y, 2, 0.25)));

	stats_settings_default(&s);
	s.resamples = 500;
	assert_int_equal(stats_compare(a, 4, b, 4, &s, 1, &c), 0);
	assert_int_equal(c.ratio_valid, 1);
	assert_close(c.ratio, 1.4 / 1.3, 1e-12);
	assert_true(isfinite(c.ratio_lo) && isfinite(c.ratio_hi));
	assert_true(c.ratio_lo > 0.5 && c.ratio_hi < 2);

	/* A ratio beyond the double range is no ratio. */
	double tiny[3] = { 1e-300, 2e-300, 3e-300 };
	double big[3] = { 1e300, 2e300, 3e300 };

	assert_int_equal(stats_compare(tiny, 3, big, 3, &s, 1, &c), 0);
	assert_int_equal(c.ratio_valid, 0);
	assert_true(isnan(c.ratio));
	assert_int_equal(stats_decide(&c, &s, 1, -1, -1, 0, 0, &d),
			 VERDICT_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_reference_streams),
		cmocka_unit_test(test_bootstrap_same_seed_same_interval),
		cmocka_unit_test(test_bootstrap_matches_scipy),
		cmocka_unit_test(test_ratio_undefined),
		cmocka_unit_test(test_mde_shrinks_with_runs),
		cmocka_unit_test(test_mde_with_a_constant_arm),
		cmocka_unit_test(test_geomean),
		cmocka_unit_test(test_median_law_matches_enumeration),
		cmocka_unit_test(test_bootstrap_large_n_counting_path),
		cmocka_unit_test(test_numeric_helpers),
		cmocka_unit_test(test_huge_values_do_not_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
