// SPDX-License-Identifier: GPL-2.0
/*
 * Discrete states of a metric's cells (stats_modes(), issue 49) and
 * Fisher's exact test of their shares. Golden p values: R's fisher.test,
 * recomputed in Python with math.comb (the same sum of hypergeometric
 * probabilities no likelier than the observed table).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "stats.h"
#include "stats_priv.h"

#define assert_close(a, b, tol)                                              \
	do {                                                                 \
		double a_ = (a), b_ = (b);                                   \
		if (!(fabs(a_ - b_) <= (tol) * fmax(1.0, fabs(b_))))         \
			fail_msg("%s = %.17g, expected %.17g", #a, a_, b_);  \
	} while (0)

/*
 * wis_cs1's cells as the audit saw them under icount: a fast state at
 * 54.7k ops/s and a slow one at 35.8k (0.05 % within each), 8 cells caught
 * between the two and 2 stalled cells at a fifth of the slow rate.
 */
static size_t wis_cells(double *x, size_t nf, size_t ns, size_t ninter, size_t nout)
{
	size_t n = 0;

	for (size_t i = 0; i < nf; i++)
		x[n++] = 54700 * (1 + 0.0005 * sin(1.7 * (double)i + 0.3));
	for (size_t i = 0; i < ns; i++)
		x[n++] = 35800 * (1 + 0.0005 * sin(2.3 * (double)i + 1.1));
	for (size_t i = 0; i < ninter; i++)
		x[n++] = 35800 * pow(1.53, ((double)i + 0.5) / (double)ninter);
	for (size_t i = 0; i < nout; i++)
		x[n++] = 35800 / 5.0 * (1 + 0.01 * (double)i);
	return n;
}

/*
 * The two-state path of the host adjustment missed these states (eta
 * 0.55 here, 0.788 in the demo, against 0.80): stats_modes() finds them.
 */
static void test_modes_wis_cs1(void **state)
{
	double x[256];
	size_t n = wis_cells(x, 40, 150, 8, 2);
	struct stats_states old;
	struct stats_modes m;

	(void)state;
	assert_int_equal(stats_two_states(x, n, &old), 0);
	assert_int_equal(old.separated, 0);
	assert_int_equal(stats_modes(x, n, &m), 0);
	assert_int_equal(m.separated, 1);
	assert_null(m.why);
	assert_close(m.ratio, 54700.0 / 35800, 0.002);
	assert_true(m.threshold > 36000 && m.threshold < 54000);
	assert_true(m.separation > 100);
	/* The fast class: the 40 fast cells and the in-between cells above the cut. */
	assert_true(m.n_high >= 40 && m.n_high <= 48);
}

/* The one-CPU ping-pong: two boot states 4 % apart, each exact to 0.03 %. */
static void test_modes_four_percent(void **state)
{
	double x[60];
	struct stats_modes m;

	(void)state;
	for (size_t i = 0; i < 60; i++)
		x[i] = (i % 3 ? 1e6 : 1.04e6) * (1 + 0.0003 * sin(1.3 * (double)i));
	assert_int_equal(stats_modes(x, 60, &m), 0);
	assert_int_equal(m.separated, 1);
	assert_close(m.ratio, 1.04, 0.001);
	assert_int_equal(m.n_high, 20);
}

/* One state, however noisy or heavy-tailed, is never two; nor are a few outliers. */
static void test_modes_unimodal(void **state)
{
	double x[400];
	struct stats_modes m;

	(void)state;
	for (size_t i = 0; i < 400; i++)
		x[i] = exp(0.03 * stats_norm_quantile(((double)i + 0.5) / 400));
	assert_int_equal(stats_modes(x, 400, &m), 0);
	assert_int_equal(m.separated, 0);
	assert_non_null(m.why);
	assert_true(m.separation < 4);
	/* 1 % of cells x5 (a cold first generation): not a state. */
	for (size_t i = 0; i < 4; i++)
		x[i * 97] *= 5;
	assert_int_equal(stats_modes(x, 400, &m), 0);
	assert_int_equal(m.separated, 0);
	/* Heavy tails: Student t with 3 degrees of freedom by its quantiles' shape. */
	for (size_t i = 0; i < 400; i++) {
		double u = ((double)i + 0.5) / 400, z = stats_norm_quantile(u);

		x[i] = exp(0.02 * z * (1 + z * z / 4));
	}
	assert_int_equal(stats_modes(x, 400, &m), 0);
	assert_int_equal(m.separated, 0);
	assert_int_equal(stats_modes(x, 5, &m), -1);
	assert_int_equal(m.separated, 0);
}

static void test_fisher_exact(void **state)
{
	(void)state;
	/* fisher.test(matrix(c(1, 11, 9, 3), 2)): 0.002759456185220083 */
	assert_close(stats_fisher_exact(1, 9, 11, 3), 0.002759456185220083, 1e-9);
	/* fisher.test(matrix(c(3, 1, 1, 3), 2)): 0.4857142857142857 */
	assert_close(stats_fisher_exact(3, 1, 1, 3), 0.4857142857142857, 1e-9);
	/* 32 % of 200 cells fast against 20 % of 200: 0.00856543390416337 */
	assert_close(stats_fisher_exact(64, 136, 40, 160), 0.00856543390416337, 1e-9);
	assert_close(stats_fisher_exact(0, 0, 3, 4), 1, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_modes_wis_cs1),
		cmocka_unit_test(test_modes_four_percent),
		cmocka_unit_test(test_modes_unimodal),
		cmocka_unit_test(test_fisher_exact),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
