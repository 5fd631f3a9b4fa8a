// SPDX-License-Identifier: GPL-2.0
/*
 * Descriptive statistics, the exact median interval, outliers and drift.
 * Golden values come from tests/unit/test_stats_golden.py (scipy 1.10.1,
 * numpy 1.24.2 on Debian 12); each is quoted next to its use.
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

/*
 * Largest l with 1 - 2 * scipy.stats.binom.cdf(l - 1, n, 0.5) >= 0.95,
 * for n = 6..30, and that coverage.
 */
static const size_t golden_l[] = { 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5,
				   5, 6, 6, 6, 7, 7, 8, 8, 8, 9, 9, 10 };
static const double golden_cov[] = {
	0.96875, 0.984375, 0.9921875, 0.9609375, 0.978515625, 0.98828125,
	0.96142578125, 0.9775390625, 0.987060546875, 0.96484375,
	0.978729248046875, 0.950958251953125, 0.9691162109375,
	0.9807891845703125, 0.95861053466796875, 0.97339630126953125,
	0.98309946060180664, 0.96531033515930176, 0.97734415531158447,
	0.95671474933624268, 0.97104072570800781, 0.9808427095413208,
	0.96430186182260513, 0.9758804552257061, 0.95722605474293232,
};

static void test_median_ci_orders_6_to_30(void **state)
{
	(void)state;
	for (size_t n = 6; n <= 30; n++) {
		size_t l;
		double cov;
		int ok = stats_median_ci_order(n, 0.95, &l, &cov);

		assert_int_equal(ok, 1);
		if (l != golden_l[n - 6])
			fail_msg("n=%zu: l=%zu, expected %zu", n, l,
				 golden_l[n - 6]);
		assert_close(cov, golden_cov[n - 6], 1e-12);
	}
}

static void test_median_ci_too_few_runs(void **state)
{
	double x[] = { 3, 1, 2, 5, 4 };
	struct stats_summary s;
	size_t l;
	double cov;

	(void)state;
	/* n = 5: [min, max] covers only 1 - 2/32 = 0.9375 (scipy binom). */
	assert_int_equal(stats_median_ci_order(5, 0.95, &l, &cov), 0);
	assert_int_equal(l, 1);
	assert_close(cov, 0.9375, 1e-15);
	assert_int_equal(stats_summarize(x, NULL, 5, 0.95, &s, NULL), 0);
	assert_int_equal(s.median_ci.ok, 0);
	assert_non_null(s.median_ci.reason);
	assert_string_equal(s.median_ci.reason, "too few runs");
	assert_close(s.median_ci.lo, 1, 0);
	assert_close(s.median_ci.hi, 5, 0);
	/* ...while 90 % is reachable with 5 runs. */
	assert_int_equal(stats_median_ci_order(5, 0.90, &l, &cov), 1);
}

static void test_median_ci_values(void **state)
{
	/* n = 9: l = 2, the interval is [x_(2), x_(8)] of the sorted data. */
	double x[] = { 9, 1, 8, 2, 7, 3, 6, 4, 5 };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(x, NULL, 9, 0.95, &s, NULL), 0);
	assert_int_equal(s.median_ci.ok, 1);
	assert_int_equal(s.median_ci.lo_order, 2);
	assert_int_equal(s.median_ci.hi_order, 8);
	assert_close(s.median_ci.lo, 2, 0);
	assert_close(s.median_ci.hi, 8, 0);
	assert_close(s.median_ci.achieved, 0.9609375, 1e-12);
	assert_null(s.median_ci.reason);
}

static void test_descriptive_and_outliers(void **state)
{
	/* numpy: median, percentile(25/75) (linear), mean, std(ddof=1),
	 * median(|x - median|); modified z of 40.0 = 16.2, others < 1.5. */
	double x[] = { 12.0, 15.5, 11.2, 13.8, 14.1, 12.9, 40.0, 13.3 };
	unsigned char flags[8];
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(x, NULL, 8, 0.95, &s, flags), 0);
	assert_int_equal(s.n, 8);
	assert_close(s.median, 13.55, 1e-12);
	assert_close(s.q1, 12.675, 1e-12);
	assert_close(s.q3, 14.45, 1e-12);
	assert_close(s.mean, 16.6, 1e-12);
	assert_close(s.stddev, 9.545081006915103, 1e-12);
	assert_close(s.cv, 9.545081006915103 / 16.6, 1e-12);
	assert_close(s.mad, 1.1000000000000005, 1e-12);
	assert_close(s.min, 11.2, 0);
	assert_close(s.max, 40.0, 0);
	assert_int_equal(s.outliers, 1);
	for (int i = 0; i < 8; i++)
		assert_int_equal(flags[i], i == 6);
	/* Flagged, never dropped: the mean still includes 40. */
}

static void test_outliers_mad_zero(void **state)
{
	/* MAD = 0: scale = 1.253314 * mean |x - 5| = 0.8355; 9 is 4.8 away. */
	double x[] = { 5, 5, 5, 5, 5, 9 };
	double same[] = { 7, 7, 7, 7 };
	unsigned char flags[6];
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(x, NULL, 6, 0.95, &s, flags), 0);
	assert_close(s.mad, 0, 0);
	assert_int_equal(s.outliers, 1);
	assert_int_equal(flags[5], 1);
	assert_int_equal(flags[0], 0);
	assert_int_equal(stats_summarize(same, NULL, 4, 0.95, &s, NULL), 0);
	assert_int_equal(s.outliers, 0);
	assert_int_equal(s.drift_valid, 0);
	assert_true(isnan(s.cv) == 0);	/* sd 0, mean 7: cv 0 */
	assert_close(s.cv, 0, 0);
}

static void test_spearman_drift(void **state)
{
	/* scipy.stats.spearmanr(x, range(10)): rho 0.87878787878787878,
	 * p 0.0008138621117322101. */
	double x[] = { 10.2, 10.4, 10.1, 10.8, 10.9, 11.0, 10.7, 11.3, 11.2,
		       11.6 };
	/* With ties: spearmanr([5,3,5,4,3,5,4,2], range(8)): rho
	 * -0.4200412794412907; below 10 runs p is the exact permutation p,
	 * 0.29642857142857143 (all 8! pairings of the midranks counted in
	 * Python's itertools.permutations; t approximation 0.300). */
	double t[] = { 5, 3, 5, 4, 3, 5, 4, 2 };
	/* Run order given explicitly, reversed: rho flips sign. */
	double rev[10];
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(x, NULL, 10, 0.95, &s, NULL), 0);
	assert_int_equal(s.drift_valid, 1);
	assert_close(s.drift_rho, 0.8787878787878788, 1e-12);
	assert_close(s.drift_p, 0.0008138621117322101, 1e-9);
	assert_int_equal(stats_summarize(t, NULL, 8, 0.95, &s, NULL), 0);
	assert_close(s.drift_rho, -0.4200412794412907, 1e-12);
	assert_close(s.drift_p, 0.29642857142857143, 1e-9);
	for (int i = 0; i < 10; i++)
		rev[i] = 100 - i;
	assert_int_equal(stats_summarize(x, rev, 10, 0.95, &s, NULL), 0);
	assert_close(s.drift_rho, -0.8787878787878788, 1e-12);
}

/*
 * Issue 49: the t approximation gave p = 0 to every perfectly ordered
 * sample, so 3 trend-free runs were flagged one time in three. The exact
 * p of a monotone sample is 2 / n!; of 9 runs of the sample above
 * 0.008267195767195767 (itertools.permutations, as above).
 */
static void test_spearman_exact_small_n(void **state)
{
	double up3[] = { 1, 2, 3 }, up5[] = { 1, 2, 3, 4, 5 }, mixed[] = { 3, 1, 2, 5, 4, 6 };
	double x9[] = { 10.2, 10.4, 10.1, 10.8, 10.9, 11.0, 10.7, 11.3, 11.2 };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(up3, NULL, 3, 0.95, &s, NULL), 0);
	assert_close(s.drift_rho, 1, 1e-12);
	assert_close(s.drift_p, 1.0 / 3, 1e-12);
	assert_int_equal(stats_summarize(up5, NULL, 5, 0.95, &s, NULL), 0);
	assert_close(s.drift_p, 2.0 / 120, 1e-12);
	assert_int_equal(stats_summarize(mixed, NULL, 6, 0.95, &s, NULL), 0);
	assert_close(s.drift_p, 0.10277777777777777, 1e-12);
	assert_int_equal(stats_summarize(x9, NULL, 9, 0.95, &s, NULL), 0);
	assert_close(s.drift_p, 0.008267195767195767, 1e-12);
}

static void test_summarize_rejects_bad_input(void **state)
{
	double x[] = { 1, NAN, 3 };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(x, NULL, 3, 0.95, &s, NULL), -1);
	assert_true(isnan(s.median));
	assert_int_equal(stats_summarize(x, NULL, 0, 0.95, &s, NULL), -1);
	assert_int_equal(s.n, 0);
	assert_true(isnan(stats_median(x, 0)));
}

static void test_settings_and_seed(void **state)
{
	struct stats_settings s;

	(void)state;
	stats_settings_default(&s);
	assert_close(s.alpha, 0.05, 0);
	assert_close(s.confidence, 0.95, 0);
	assert_close(s.threshold, 0.01, 0);
	assert_true(s.resamples >= 10000);
	/* Per-metric seeds: stable, and different per key and seed. */
	assert_true(stats_seed_for(1, "a/b") == stats_seed_for(1, "a/b"));
	assert_true(stats_seed_for(1, "a/b") != stats_seed_for(1, "a/c"));
	assert_true(stats_seed_for(1, "a/b") != stats_seed_for(2, "a/b"));
}

/* The per-l loop stats_median_ci_order() replaced (quadratic in n). */
static int ref_median_ci_order(size_t n, double confidence, size_t *lo_order,
			       double *achieved)
{
	size_t l = 1;
	double cover;

	if (n == 0) {
		*lo_order = 0;
		*achieved = NAN;
		return 0;
	}
	cover = 1.0 - 2.0 * stats_binom_half_cdf(n, 0);
	if (n == 1)
		cover = 0.0;
	if (cover < confidence - 1e-12) {
		*lo_order = 1;
		*achieved = cover;
		return 0;
	}
	while (2 * (l + 1) <= n + 1) {
		double next = 1.0 - 2.0 * stats_binom_half_cdf(n, (long)l);

		if (next < confidence - 1e-12)
			break;
		l++;
		cover = next;
	}
	*lo_order = l;
	*achieved = cover;
	return 1;
}

/* The running sum gives the per-l values bit for bit. */
static void test_median_ci_order_matches_per_l_sums(void **state)
{
	static const double conf[] = { 0.5, 0.9, 0.95, 0.99 };
	static const size_t big[] = { 1000, 4097, 10001 };

	(void)state;
	for (size_t c = 0; c < sizeof(conf) / sizeof(conf[0]); c++)
		for (size_t n = 0; n <= 400 + (c == 2) * 3; n++) {
			size_t i = n <= 400 ? 0 : n - 400;
			size_t nn = n <= 400 ? n : big[i - 1], l1, l2;
			double a1, a2;
			int r1 = stats_median_ci_order(nn, conf[c], &l1, &a1);
			int r2 = ref_median_ci_order(nn, conf[c], &l2, &a2);

			assert_int_equal(r1, r2);
			assert_int_equal(l1, l2);
			if (!(a1 == a2 || (isnan(a1) && isnan(a2))))
				fail_msg("n %zu conf %g: %.17g, reference %.17g", nn,
					 conf[c], a1, a2);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_ci_orders_6_to_30),
		cmocka_unit_test(test_median_ci_too_few_runs),
		cmocka_unit_test(test_median_ci_order_matches_per_l_sums),
		cmocka_unit_test(test_median_ci_values),
		cmocka_unit_test(test_descriptive_and_outliers),
		cmocka_unit_test(test_outliers_mad_zero),
		cmocka_unit_test(test_spearman_drift),
		cmocka_unit_test(test_spearman_exact_small_n),
		cmocka_unit_test(test_summarize_rejects_bad_input),
		cmocka_unit_test(test_settings_and_seed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
