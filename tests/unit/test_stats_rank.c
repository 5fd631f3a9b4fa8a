// SPDX-License-Identifier: GPL-2.0
/*
 * Mann-Whitney (exact with and without ties, normal), Hodges-Lehmann and
 * the paired Wilcoxon signed-rank test. Golden values: see
 * tests/unit/test_stats_golden.py (scipy 1.10.1 for the no-ties exact and
 * the asymptotic p; brute-force enumeration of every split of the pooled
 * midranks for the tied cases, which scipy cannot do exactly).
 * The Hodges-Lehmann order statistics are selected without forming the
 * n1 n2 differences (or n (n + 1) / 2 Walsh averages); the all-pairs code
 * they replaced is kept here as the reference, and randomized cases must
 * give its values bit for bit.
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
#include "util.h"

#define assert_close(a, b, tol)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (tol) * fmax(1.0, fabs(b_))))         \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);  \
	} while (0)

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void check_mw(const double *x, size_t nx, const double *y, size_t ny,
		     size_t exact_max, double want_u, double want_p,
		     enum stats_mw_method want_method, double tol)
{
	double u, p;
	enum stats_mw_method m;

	assert_int_equal(stats_mann_whitney(x, nx, y, ny, exact_max, &u, &p,
					    &m), 0);
	assert_int_equal(m, want_method);
	assert_close(u, want_u, 1e-12);
	assert_close(p, want_p, tol);
}

static void test_mw_exact_no_ties(void **state)
{
	/* scipy.stats.mannwhitneyu(x, y, alternative='two-sided',
	 * method='exact') */
	double xa[] = { 1.1, 2.3, 3.5, 4.2, 5.9 };
	double ya[] = { 3.1, 6.2, 7.4, 8.8, 9.1, 10.5 };
	double xb[] = { 10.0, 11.0, 12.5, 13.0, 14.0, 15.0, 16.0, 17.0 };
	double yb[] = { 12.0, 13.5, 14.5, 15.5, 16.5, 18.0, 19.0, 20.0 };
	/* 20 x 20: numpy default_rng(12345) normals, rounded to 3 places. */
	double xc[] = { 92.881, 106.319, 95.647, 98.704, 99.623, 96.296,
			93.161, 103.244, 101.805, 90.236, 111.737, 104.842,
			96.203, 104.511, 97.665, 99.697, 103.944, 93.717,
			102.879, 106.995 };
	double yc[] = { 110.611, 102.502, 108.515, 95.892, 103.209, 106.247,
			97.282, 103.592, 112.624, 117.091, 107.887, 108.143,
			99.205, 97.953, 96.939, 106.708, 107.76, 100.706,
			97.857, 105.288 };

	(void)state;
	check_mw(xa, N(xa), ya, N(ya), 1000, 3.0, 0.030303030303030304,
		 STATS_MW_EXACT, 1e-12);
	check_mw(xb, N(xb), yb, N(yb), 1000, 16.0, 0.10489510489510488,
		 STATS_MW_EXACT, 1e-12);
	check_mw(xc, N(xc), yc, N(yc), 1000, 119.0, 0.028308430552469822,
		 STATS_MW_EXACT, 1e-10);
	/* Symmetric: swapping the samples gives U' = n1 n2 - U, same p. */
	check_mw(ya, N(ya), xa, N(xa), 1000, 27.0, 0.030303030303030304,
		 STATS_MW_EXACT, 1e-12);
}

static void test_mw_exact_ties(void **state)
{
	/* Brute force over all C(n1+n2, n1) splits of the midranks. */
	double x1[] = { 1, 2, 2, 3, 3, 3, 5 };
	double y1[] = { 2, 3, 4, 4, 5, 6, 6, 7 };
	double x2[] = { 5, 5, 5, 6, 7, 7 };
	double y2[] = { 5, 6, 6, 7, 8, 8 };
	double x3[] = { 1.5, 1.5, 2.0, 2.0, 2.0 };
	double y3[] = { 2.0, 2.5, 2.5, 3.0, 3.0, 3.0 };
	double same[] = { 4, 4, 4 };

	(void)state;
	check_mw(x1, N(x1), y1, N(y1), 1000, 10.0, 0.039160839160839164,
		 STATS_MW_EXACT_TIES, 1e-12);
	check_mw(x2, N(x2), y2, N(y2), 1000, 10.5, 0.2748917748917749,
		 STATS_MW_EXACT_TIES, 1e-12);
	check_mw(x3, N(x3), y3, N(y3), 1000, 1.5, 0.017316017316017316,
		 STATS_MW_EXACT_TIES, 1e-12);
	/* Everything tied: no evidence at all. */
	check_mw(same, 3, same, 3, 1000, 4.5, 1.0, STATS_MW_EXACT_TIES, 0);
}

static void test_mw_normal_approximation(void **state)
{
	/* 40 x 40 integers (many ties), beyond the exact limit:
	 * scipy mannwhitneyu(method='asymptotic', use_continuity=True). */
	double x[] = { 51, 50, 54, 50, 50, 47, 50, 54, 50, 50, 51, 51, 52, 52,
		       52, 48, 51, 45, 51, 46, 50, 51, 49, 50, 45, 47, 52, 47,
		       52, 46, 47, 47, 50, 52, 47, 49, 55, 49, 48, 51 };
	double y[] = { 51, 49, 46, 54, 50, 52, 48, 55, 54, 54, 51, 53, 54, 55,
		       52, 51, 50, 49, 49, 53, 51, 46, 51, 55, 51, 46, 51, 54,
		       52, 50, 57, 57, 51, 54, 53, 54, 56, 54, 52, 50 };
	double xa[] = { 1.1, 2.3, 3.5, 4.2, 5.9 };
	double ya[] = { 3.1, 6.2, 7.4, 8.8, 9.1, 10.5 };
	double u, p;
	enum stats_mw_method m;

	(void)state;
	check_mw(x, N(x), y, N(y), 1000, 452.0, 0.0007493019250939099,
		 STATS_MW_NORMAL, 1e-9);
	/* exact_max = 0 forces the approximation: scipy mannwhitneyu(xa, ya,
	 * method='asymptotic') = 0.03576376659097789 (exact: 0.0303). */
	assert_int_equal(stats_mann_whitney(xa, 5, ya, 6, 0, &u, &p, &m), 0);
	assert_int_equal(m, STATS_MW_NORMAL);
	assert_close(p, 0.03576376659097789, 1e-9);
}

static void test_hodges_lehmann_worked_example(void **state)
{
	/*
	 * Two samples of 9 (Hollander & Wolfe's numbers, used as data):
	 * the 81 differences y - x sorted in Python; estimate = their
	 * median; k = 18 from the enumerated no-ties U distribution
	 * (largest k with 1 - 2 P(U <= k - 1) >= 0.95): interval
	 * [D_(18), D_(64)] = [-1.183, 0.37], level 0.9600164541341012.
	 */
	double x[] = { 1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30 };
	double y[] = { 0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29 };
	struct stats_settings s;
	struct stats_comparison c;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 100;
	assert_int_equal(stats_compare(x, 9, y, 9, &s, 1, &c), 0);
	assert_close(c.hl_shift, -0.56, 1e-12);
	assert_close(c.hl_lo, -1.183, 1e-12);
	assert_close(c.hl_hi, 0.3699999999999999, 1e-12);
	assert_close(c.hl_level, 0.9600164541341012, 1e-12);
	/* Ratio form exists because every value is positive. */
	assert_true(c.hl_ratio > 0 && c.hl_ratio_lo <= c.hl_ratio &&
		    c.hl_ratio <= c.hl_ratio_hi);
}

static void test_wilcoxon_paired(void **state)
{
	/* log ratios of 8 pairs, no ties: scipy.stats.wilcoxon(d,
	 * mode='exact') p = 0.0078125 (all 8 positive: 2/2^8). */
	double a[] = { 100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 100.5, 97.0 };
	double b[] = { 103.0, 104.5, 99.0, 104.0, 99.5, 107.0, 101.0, 99.0 };
	/* Ties and a zero difference: brute force over 2^6 signs of the
	 * non-zero midranks, p = 0.25. */
	double ta[] = { 10, 10, 10, 10, 10, 10, 10 };
	double tb[] = { 11, 9, 11, 12, 10, 11, 12 };
	double bad[] = { 1, 0 };
	struct stats_settings s;
	struct stats_paired p;

	(void)state;
	stats_settings_default(&s);
	assert_int_equal(stats_paired(a, b, 8, &s, &p), 0);
	assert_int_equal(p.valid, 1);
	assert_string_equal(p.method, "exact");
	assert_close(p.w_plus, 36, 0);
	assert_close(p.p, 0.0078125, 1e-12);
	assert_close(p.median_ratio, 1.0225623293494082, 1e-12);
	assert_true(p.hl_ratio > 1.0);

	/* Mixed signs: scipy wilcoxon(mode='exact') p = 0.10546875 with
	 * min(W+, W-) = 11, so W+ = 55 - 11 = 44. */
	double a2[] = { 100.0, 102.0, 98.0, 101.0, 99.0, 103.0, 100.5, 97.0,
			101.5, 99.8 };
	double b2[] = { 103.0, 101.0, 99.0, 104.0, 98.1, 107.0, 101.0, 99.0,
			100.2, 100.9 };

	assert_int_equal(stats_paired(a2, b2, 10, &s, &p), 0);
	assert_close(p.w_plus, 44, 0);
	assert_close(p.p, 0.10546875, 1e-12);

	assert_int_equal(stats_paired(ta, tb, 7, &s, &p), 0);
	assert_int_equal(p.n_used, 6);
	assert_string_equal(p.method, "exact-ties");
	assert_close(p.p, 0.25, 1e-12);

	/* Past the exact limit the normal approximation takes over. */
	s.wilcoxon_exact_max = 3;
	assert_int_equal(stats_paired(a, b, 8, &s, &p), 0);
	assert_string_equal(p.method, "normal");
	assert_true(p.p > 0.0078125 && p.p < 0.05);

	/* 60 integer pairs (numpy default_rng(99) normals, rounded), 9 zero
	 * differences, tied |log ratios|, 51 used > 50: normal. scipy
	 * wilcoxon(log(b) - log(a), mode='approx', correction=True) =
	 * 0.3457673105670608 (with log(b / a) the mirrored pairs 99->101 and
	 * 101->99 round apart and lose their tie: 0.3705). */
	static const double la[60] = {
		100, 99, 100, 101, 96, 103, 99, 99, 98, 102, 101, 102, 102,
		101, 101, 102, 98, 100, 101, 99, 101, 99, 101, 100, 101, 97,
		98, 103, 100, 100, 102, 102, 100, 99, 104, 101, 97, 102, 102,
		102, 99, 103, 99, 102, 101, 103, 99, 101, 102, 99, 100, 99,
		101, 101, 99, 101, 99, 99, 96, 98 };
	static const double lb[60] = {
		99, 101, 104, 101, 101, 101, 98, 101, 99, 100, 105, 104, 103,
		102, 102, 99, 98, 101, 100, 99, 101, 101, 101, 99, 101, 98,
		103, 104, 99, 102, 100, 101, 101, 103, 102, 99, 101, 101, 99,
		101, 101, 104, 100, 102, 96, 97, 101, 101, 103, 98, 100, 96,
		99, 100, 101, 100, 103, 98, 98, 102 };

	s.wilcoxon_exact_max = 50;
	assert_int_equal(stats_paired(la, lb, 60, &s, &p), 0);
	assert_int_equal(p.n_used, 51);
	assert_string_equal(p.method, "normal");
	assert_close(p.p, 0.3457673105670608, 1e-9);

	assert_int_equal(stats_paired(bad, bad, 2, &s, &p), -1);
	assert_int_equal(p.valid, 0);
}

/* The all-pairs Hodges-Lehmann stats_hodges_lehmann() replaced: O(n1 n2). */
static void ref_hodges_lehmann(const double *x, size_t nx, const double *y,
			       size_t ny, double conf, size_t exact_max,
			       int use_log, double *est, double *lo,
			       double *hi, double *level)
{
	size_t mn = nx * ny, k = 1;
	double *d = xmalloc(mn * sizeof(*d)), *ly = xmalloc(ny * sizeof(*ly));

	for (size_t j = 0; j < ny; j++)
		ly[j] = log(y[j]);
	for (size_t i = 0; i < nx; i++) {
		double lx = use_log ? log(x[i]) : 0;

		for (size_t j = 0; j < ny; j++)
			d[i * ny + j] = use_log ? ly[j] - lx : y[j] - x[i];
	}
	free(ly);
	if (mn & 1) {
		*est = stats_select(d, mn, mn / 2);
	} else {
		double a = stats_select(d, mn, mn / 2 - 1);

		*est = stats_mid(a, stats_select(d, mn, mn / 2));
	}
	if (mn <= exact_max) {
		double *cdf = stats_mw_null_cdf(nx, ny);

		*level = 1.0 - 2.0 * cdf[0];
		while (k + 1 <= (mn + 1) / 2 &&
		       1.0 - 2.0 * cdf[k] >= conf - 1e-12) {
			*level = 1.0 - 2.0 * cdf[k];
			k++;
		}
		free(cdf);
	} else {
		double sigma = sqrt((double)mn * (double)(nx + ny + 1) / 12.0);
		double z = stats_norm_quantile(1.0 - (1.0 - conf) / 2.0);
		double kk = floor((double)mn / 2.0 + 0.5 - z * sigma);

		k = kk < 1 ? 1 : (size_t)kk;
		if (k > (mn + 1) / 2)
			k = (mn + 1) / 2;
		*level = 1.0 - 2.0 * stats_norm_cdf(((double)k - 0.5 -
						      (double)mn / 2.0) / sigma);
	}
	*lo = stats_select(d, mn, k - 1);
	*hi = stats_select(d, mn, mn - k);
	free(d);
}

/* The all-pairs median of Walsh averages stats_paired() used: O(n^2). */
static double ref_walsh_median(const double *d, size_t n)
{
	size_t nw = 0;
	double *w = xmalloc((n * (n + 1) / 2 + 1) * sizeof(*w)), m;

	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[nw++] = (d[i] + d[j]) / 2.0;
	m = stats_median_inplace(w, nw);
	free(w);
	return m;
}

/* Bit for bit, but -0 and +0 alike (they compare equal: no count can
 * tell them apart, and no difference of these samples is -0). */
#define assert_same(got, want)                                               \
	do {                                                                 \
		double g_ = (got), w_ = (want);                              \
		if (!(g_ == w_ && (g_ == 0 || !memcmp(&g_, &w_, sizeof(g_)))) && \
		    !(isnan(g_) && isnan(w_)))                               \
			fail_msg("%s = %.17g, reference %.17g (case %zu)", #got, \
				 g_, w_, kase);                              \
	} while (0)

/* One sample of @n values of a shape that exercises ties, spread and sign. */
static void random_sample(struct rng *r, int shape, double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		double u = rng_double(r);

		switch (shape) {
		case 0:	v[i] = 1 + rng_below(r, 4); break;		/* heavy ties */
		case 1:	v[i] = 100 + 10 * u; break;			/* continuous */
		case 2:	v[i] = exp(6 * u) * 1e-3; break;		/* skewed */
		case 3:	v[i] = (double)rng_below(r, 7) - 3; break;	/* ties, signs */
		case 4:	v[i] = 1e6 + u; break;				/* rounding */
		default: v[i] = u < 0.9 ? 5.0 : 5.0 + u; break;		/* one value */
		}
	}
}

static void test_hodges_lehmann_matches_all_pairs(void **state)
{
	static const size_t fixed[][2] = {
		{ 1, 1 }, { 1, 2 }, { 2, 1 }, { 2, 2 }, { 1, 7 }, { 7, 1 },
		{ 3, 3 }, { 3, 4 }, { 5, 5 }, { 31, 33 }, { 32, 32 }, { 120, 91 },
	};
	struct rng r;
	size_t kase = 0;

	(void)state;
	rng_seed(&r, 20261201);
	for (size_t t = 0; t < 1500; t++, kase++) {
		size_t nx, ny;
		int shape = (int)rng_below(&r, 6), pos = shape != 3;
		double x[130], y[130], e1, l1, h1, v1, e2, l2, h2, v2;
		size_t exact_max = rng_below(&r, 2) ? 1000 : 0;

		if (t < N(fixed)) {
			nx = fixed[t][0];
			ny = fixed[t][1];
		} else {
			nx = 1 + rng_below(&r, t % 5 ? 12 : 128);
			ny = 1 + rng_below(&r, t % 7 ? 12 : 128);
		}
		random_sample(&r, shape, x, nx);
		random_sample(&r, rng_below(&r, 3) ? shape : 1, y, ny);
		if (shape == 3)	/* shifted, still with ties */
			for (size_t j = 0; j < ny; j++)
				y[j] += 1;
		for (int lg = 0; lg <= pos; lg++) {
			assert_int_equal(stats_hodges_lehmann(x, nx, y, ny, 0.95,
				exact_max, lg, &e1, &l1, &h1, &v1), 0);
			ref_hodges_lehmann(x, nx, y, ny, 0.95, exact_max, lg,
					   &e2, &l2, &h2, &v2);
			assert_same(e1, e2);
			assert_same(l1, l2);
			assert_same(h1, h2);
			assert_same(v1, v2);
		}

		/* The one-sample estimate on the same values (n odd and even
		 * give Walsh counts n (n + 1) / 2 of both parities). */
		assert_same(stats_walsh_median(x, nx), ref_walsh_median(x, nx));
		if (pos) {
			struct stats_settings s;
			struct stats_paired p;
			size_t n = nx < ny ? nx : ny;
			double d[130];

			stats_settings_default(&s);
			for (size_t i = 0; i < n; i++)
				d[i] = log(y[i]) - log(x[i]);
			assert_int_equal(stats_paired(x, y, n, &s, &p), 0);
			assert_same(p.hl_ratio, exp(ref_walsh_median(d, n)));
		}
	}
	{
		double one = 3.5;

		assert_same(stats_walsh_median(&one, 1), 3.5);
		assert_true(isnan(stats_walsh_median(&one, 0)));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mw_exact_no_ties),
		cmocka_unit_test(test_mw_exact_ties),
		cmocka_unit_test(test_mw_normal_approximation),
		cmocka_unit_test(test_hodges_lehmann_worked_example),
		cmocka_unit_test(test_wilcoxon_paired),
		cmocka_unit_test(test_hodges_lehmann_matches_all_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
