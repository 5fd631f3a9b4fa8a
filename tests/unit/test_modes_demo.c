// SPDX-License-Identifier: GPL-2.0
/*
 * The demo lab's wis_cs1 under icount (test_modes_fixture.h, measured):
 * its states are found though most cells lie between them, the kernels
 * compare within the state they share, and the share of states is a
 * finding of its own (issue 49). And a kernel (nearly) all in one state
 * compares only within it, or is not decidable on this guest.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "report_modes.h"
#include "rng.h"
#include "stats_priv.h"
#include "stats.h"
#include "test_modes_fixture.h"

static size_t all_cells(double *x)
{
	size_t n = 0;

	for (size_t i = 0; i < WIS_CS1_DEMO_RUNS; i++)
		for (size_t j = 0; j < 3; j++)
			x[n++] = wis_cs1_demo[i].c[j];
	return n;
}

/*
 * Before the cores: Otsu's classes held the cells between the states,
 * their MADs were several per cent, and the 8-spread gate said "overlap"
 * (separation 4.6 here, 34 of the 60 cells between the states); the
 * report read "?" with "about 900 runs".
 */
static void demo_states_found(void **state)
{
	double x[3 * WIS_CS1_DEMO_RUNS];
	size_t n = all_cells(x);
	struct stats_modes m;

	(void)state;
	assert_int_equal(stats_modes(x, n, &m), 0);
	assert_int_equal(m.separated, 1);
	assert_int_equal(m.core, 1);
	assert_true(fabs(m.low / 35826 - 1) < 0.001);
	assert_true(fabs(m.high / 54660 - 1) < 0.003);
	assert_true(fabs(m.ratio - 1.526) < 0.005);
	assert_true(m.separation > 100);
	/* The floor's 18 cells and the ceiling's 8; 34 between, in neither. */
	assert_int_equal(m.n_low, 18);
	assert_int_equal(m.n_high, 8);
	assert_int_equal(m.n_between, 34);
	assert_int_equal(stats_modes_state(&m, 35830), 0);
	assert_int_equal(stats_modes_state(&m, 54700), 1);
	assert_int_equal(stats_modes_state(&m, 41718), -1);
}

/*
 * No cores in one state however wide, nor when the cells between fill
 * the gap evenly, nor two of many clusters: a window's count there is chance (a reference coupled
 * at 25 %, test_hoststate's contention_two_kernels_not_adjusted, found
 * "states" before the peak test).
 */
static void cores_not_chance(void **state)
{
	double x[400];
	struct stats_modes m;
	struct rng r;

	(void)state;
	rng_seed(&r, 49);
	for (int n = 60; n <= 400; n += 170) {
		for (int i = 0; i < n; i++)
			x[i] = 240e3 * exp(0.25 * stats_norm_quantile(0.0005 + 0.999 * rng_double(&r)));
		assert_int_equal(stats_modes(x, (size_t)n, &m), 0);
		assert_int_equal(m.separated, 0);
	}
	/* The demo's floor and ceiling, 100 cells evenly between: no peak. */
	for (int i = 0; i < 200; i++)
		x[i] = i < 50 ? 35800 : i < 100 ? 54700 : 35800 * pow(1.53, (i - 99.5) / 100);
	assert_int_equal(stats_modes(x, 200, &m), 0);
	assert_int_equal(m.separated, 1);
	for (int i = 0; i < 200; i++)
		x[i] = i < 5 ? 35800 : i < 10 ? 54700 : 35800 * pow(1.53, (i - 9.5) / 190);
	assert_int_equal(stats_modes(x, 200, &m), 0);
	assert_int_equal(m.separated, 0);
	/*
	 * A dozen tight clusters 4-5 % apart, as the two-CPU ping-pong's
	 * cells in the same session: two of them are not its states.
	 */
	for (int i = 0; i < 200; i++)
		x[i] = 46e3 * pow(1.045, i % 12) * (1 + 0.0004 * sin(i));
	assert_int_equal(stats_modes(x, 200, &m), 0);
	assert_int_equal(m.separated, 0);
}

static size_t demo_runs(struct mode_run *r)
{
	for (size_t i = 0; i < WIS_CS1_DEMO_RUNS; i++)
		r[i] = (struct mode_run){ wis_cs1_demo[i].patched, wis_cs1_demo[i].c, 3 };
	return WIS_CS1_DEMO_RUNS;
}

static void demo_within_state(void **state)
{
	struct mode_run r[WIS_CS1_DEMO_RUNS];
	size_t n = demo_runs(r);
	struct modes_finding f;

	(void)state;
	modes_analyse(r, n, 1, &f);
	assert_int_equal(f.modes.separated, 1);
	assert_null(f.undecidable);
	assert_int_equal(f.only, -1);
	/* Within the slow state: -0.036 % [-0.070 %, +0.006 %], 7 and 6 runs. */
	assert_true(fabs(f.within[1].ratio - 0.99964) < 0.0001);
	assert_true(f.within[1].lo < f.within[1].ratio && f.within[1].hi > f.within[1].ratio);
	assert_true(f.within[1].hi - f.within[1].lo < 0.002);
	assert_int_equal(f.within[1].runs[0], 7);
	assert_int_equal(f.within[1].runs[1], 6);
	/* The fast state has one baseline run: not compared there. */
	assert_true(isnan(f.within[0].ratio));
	assert_true(isfinite(f.pooled) && f.pooled_lo < 1 && f.pooled_hi > 0.9995);
	/* The shares: 17 % of the baseline's state cells fast, 43 % of the patched's. */
	assert_int_equal(f.fast_cells[0], 2);
	assert_int_equal(f.cells[0], 12);
	assert_int_equal(f.fast_cells[1], 6);
	assert_int_equal(f.cells[1], 14);
	assert_true(fabs(f.share_p - stats_fisher_exact(2, 10, 6, 8)) < 1e-12);
	assert_int_equal(f.between[0] + f.between[1], 34);
}

/*
 * Two states 4 % apart, every cell in one (the one-CPU ping-pong), the
 * patched kernel 0.1 % slower: baseline runs @fb of 10 fast, patched @fp.
 */
static void pingpong(int fb, int fp, double c[20][5], struct mode_run *r)
{
	for (int i = 0; i < 20; i++) {
		int k = i % 2, fast = i / 2 < (k ? fp : fb);

		for (int j = 0; j < 5; j++)
			c[i][j] = 124.6e3 * (fast ? 1.04 : 1) * (k ? 0.999 : 1) *
				  (1 + 0.0003 * sin(1.3 * i + 0.7 * j));
		r[i] = (struct mode_run){ k, c[i], 5 };
	}
}

/*
 * Issue 49: a kernel whose runs all sit in one state. The baseline never
 * fast, the patched kernel fast in 5 runs of 10: only the slow state
 * compares them, and it alone is the within-state effect.
 */
static void one_kernel_one_state(void **state)
{
	double c[20][5];
	struct mode_run r[20];
	struct modes_finding f;

	(void)state;
	pingpong(0, 5, c, r);
	modes_analyse(r, 20, 1, &f);
	assert_int_equal(f.modes.separated, 1);
	assert_int_equal(f.only, 0);
	assert_int_equal(f.single, 0);
	assert_null(f.undecidable);
	assert_true(fabs(f.pooled - 0.999) < 0.0003);
	assert_true(f.pooled == f.within[1].ratio);

	/*
	 * Patched fast in 9 runs of 10 beside the baseline's ten slow: the
	 * runs' groups follow the kernel (Fisher p about 1e-4), so they are
	 * its effect, not states ("not decidable on this guest" before).
	 */
	pingpong(0, 9, c, r);
	modes_analyse(r, 20, 1, &f);
	assert_int_equal(f.only, 0);
	assert_int_equal(f.follows_kernel, 1);
	assert_true(f.run_share_p < 0.001);
	assert_null(f.undecidable);

	/*
	 * The first 3 runs of each, patched fast in 2 (Fisher p 0.4 on the
	 * runs): the runs cannot tell, and the slow state, the only one both
	 * show, has 1 patched run: not decidable.
	 */
	pingpong(0, 2, c, r);
	modes_analyse(r, 6, 1, &f);
	assert_int_equal(f.modes.separated, 1);
	assert_int_equal(f.follows_kernel, 0);
	assert_non_null(f.undecidable);
	assert_non_null(strstr(f.undecidable, "(nearly) all in the slow emulator state"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(demo_states_found),
		cmocka_unit_test(demo_within_state),
		cmocka_unit_test(cores_not_chance),
		cmocka_unit_test(one_kernel_one_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
