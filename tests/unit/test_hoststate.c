// SPDX-License-Identifier: GPL-2.0
/*
 * Host states: stats_two_states() finds two real states and refuses to see
 * two in one; the report derives yield_pingpong's state-adjusted metric
 * from the runs' cells (split into the host's two states when the metric
 * shows them, else along the reference rates) so that a kernel's effect
 * survives and the host's states do not, warns when a kernel looks slow
 * itself, and copes with runs that lack or garble the series. Under icount
 * a run's value is the mean of its cells; for aging's generations without
 * the first, by position, so that a kernel's slow generations count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "report_priv.h"
#include "rng.h"
#include "stats.h"
#include "test_modes_fixture.h"

#define FIXTURE "tests/fixtures/reports/session-small.json"
#define CELLS "cs_per_sec_per_cpu_1cpu_cells"
#define REF "ref_1cpu_cells"
#define ADJ "cs_per_sec_per_cpu_1cpu_hostadj"

static double gauss(struct rng *r)
{
	double u = (rng_next(r) >> 11) * 0x1.0p-53 + 0x1.0p-54, v = (rng_next(r) >> 11) * 0x1.0p-53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double uniform(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

static void two_states_found(void **state)
{
	struct rng r;
	double x[200];
	struct stats_states st;

	(void)state;
	rng_seed(&r, 5);
	for (int i = 0; i < 200; i++)
		x[i] = (i % 3 ? 4.4e6 : 3.0e6) * (1 + 0.03 * gauss(&r));
	assert_int_equal(stats_two_states(x, 200, &st), 0);
	assert_true(st.separated);
	assert_true(st.threshold > 3.3e6 && st.threshold < 4.1e6);
	assert_int_equal(st.n_low + st.n_high, 200);
	assert_true(st.n_low >= 60 && st.n_low <= 74);
	assert_true(fabs(st.ratio - 4.4 / 3.0) < 0.05);
	assert_true(st.eta > 0.9);
}

static void one_state_refused(void **state)
{
	struct rng r;
	double x[300];
	struct stats_states st;

	(void)state;
	rng_seed(&r, 6);
	for (int i = 0; i < 300; i++)
		x[i] = 4.0e6 * exp(0.05 * gauss(&r));
	assert_int_equal(stats_two_states(x, 300, &st), 0);
	/* Otsu splits anything; the gates say it is not two states. */
	assert_false(st.separated);
	assert_true(st.eta > 0.5 && st.eta < STATS_STATES_MIN_ETA);
	/* A few outliers far off are not a state: 2 cells in 200 at x5. */
	for (int i = 0; i < 200; i++)
		x[i] = 0.28 * exp(0.01 * gauss(&r)) * (i % 100 ? 1 : 5);
	assert_int_equal(stats_two_states(x, 200, &st), 0);
	assert_true(st.eta >= STATS_STATES_MIN_ETA && st.ratio >= STATS_STATES_MIN_RATIO);
	assert_int_equal(st.n_high, 2);
	assert_false(st.separated);
	/* Equal values: one state, no split at all. */
	for (int i = 0; i < 10; i++)
		x[i] = 7;
	assert_int_equal(stats_two_states(x, 10, &st), 0);
	assert_false(st.separated);
	assert_int_equal(st.n_low, 10);
	/* Too few usable values (zeros, negatives and NaN are skipped). */
	x[0] = 0, x[1] = -1, x[2] = NAN, x[3] = 5;
	assert_int_equal(stats_two_states(x, 4, &st), -1);
	assert_false(st.separated);
}

static json_t *doubles(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_real(v[i]));
	return a;
}

/*
 * A session of @runs runs per kernel of one yield_pingpong workload at one
 * CPU, 5 cells each. The patched kernel is @effect slower. Each run
 * starts in the slow state with probability @p_slow_run (then most of its
 * cells are slow: the host's states last seconds), and the slow state costs
 * x@cost on the switch rate and x1.46 on the reference (bench/tcg-modes).
 * @ref_spread: 0 gives two states; > 0 gives one state of that log spread.
 */
static double p_slow_patched = -1;	/* >= 0: the patched kernel's own p_slow_run */

static json_t *session(int runs, double effect, double p_slow_run, double cost, double ref_spread,
		       uint64_t seed)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *arr = json_array(), *w;
	struct rng r;
	int seq = 0;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	sb_release(&err);
	rng_seed(&r, seed);
	w = json_pack("[{s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s}], s:[s]}]", "name", "yp", "type",
		      "yield_pingpong", "params", "cpus", "1", "metrics", "name", ADJ, "unit",
		      "switches/s", "better", "higher", "primary", "cs_per_sec_per_cpu_%dcpu_hostadj");
	json_object_set_new(s, "workloads", w);
	json_object_set_new(json_object_get(s, "design"), "runs_per_kernel", json_integer(runs));
	for (int i = 0; i < runs; i++) {
		for (int k = 0; k < 2; k++) {
			double c[5], f[5], plain[5];
			int slow_run = uniform(&r) < (k && p_slow_patched >= 0 ? p_slow_patched
									: p_slow_run);
			json_t *run;

			for (int j = 0; j < 5; j++) {
				int slow = ref_spread > 0 ? 0 : (uniform(&r) < (slow_run ? 0.9 : 0.1));

				f[j] = (ref_spread > 0 ? 4.4e6 * exp(ref_spread * gauss(&r))
						       : (slow ? 3.0e6 : 4.4e6)) * (1 + 0.02 * gauss(&r));
				c[j] = 240e3 * (k ? 1 - effect : 1) * (slow ? 1 / cost : 1) *
				       (1 + 0.02 * gauss(&r));
				plain[j] = c[j];
			}
			run = json_pack("{s:i, s:i, s:s, s:s, s:b, s:s, s:{s:f}, s:{s:o, s:o}}",
					"seq", ++seq, "block", i, "kernel", k ? "patched" : "base",
					"workload", "yp", "warmup", 0, "status", "ok", "metrics",
					"cs_per_sec_per_cpu_1cpu", stats_median(plain, 5), "series",
					CELLS, doubles(c, 5), REF, doubles(f, 5));
			json_array_append_new(arr, run);
		}
	}
	json_object_set_new(s, "runs", arr);
	return s;
}

static json_t *analyze(const json_t *s)
{
	struct strbuf err = STRBUF_INIT;
	json_t *rep = report_analyze(s, &err);

	if (!rep)
		fail_msg("%s", err.buf);
	sb_release(&err);
	return rep;
}

static json_t *result(json_t *rep, const char *metric)
{
	size_t i;
	json_t *res;

	json_array_foreach(json_object_get(rep, "results"), i, res)
		if (!strcmp(jget_str(res, "metric", ""), metric))
			return res;
	fail_msg("no result for %s", metric);
	return NULL;
}

static double cv_of(json_t *res, const char *role)
{
	return jget_num(json_object_get(res, role), "cv");
}

static void effect_kept_states_removed(void **state)
{
	json_t *s = session(12, 0.05, 0.4, 1.6, 0, 11), *rep = analyze(s);
	json_t *adj = result(rep, ADJ), *plain = result(rep, "cs_per_sec_per_cpu_1cpu");
	json_t *hs = json_array_get(json_object_get(rep, "host_states"), 0);
	double d = jget_num(json_object_get(adj, "comparison"), "delta_pct");

	(void)state;
	assert_non_null(hs);
	assert_string_equal(jget_str(hs, "metric", ""), ADJ);
	assert_true(json_is_true(json_object_get(hs, "separated")));
	/*
	 * The rate itself shows the two states (x1.6), in each kernel: they are
	 * taken out by the metric's own split, and the reference is not needed.
	 */
	assert_true(json_is_true(json_object_get(hs, "by_states")));
	assert_true(jget_num(hs, "slope") == 0);
	assert_non_null(strstr(jget_str(hs, "method", ""), "two host states"));
	for (int k = 0; k < 2; k++) {
		json_t *ks = json_object_get(json_object_get(hs, "own_states"), k ? "patched" : "base");

		assert_true(fabs(jget_num(ks, "ratio") - 1.6) < 0.08);
		assert_true(jget_num(ks, "slow_cells") > 5 && jget_num(ks, "slow_cells") < 55);
		assert_int_equal(jget_num(ks, "cells"), 60);
	}
	/* The shares of slow cells do not differ: no warning. */
	assert_true(jget_num(hs, "slow_share_p") > 0.01);
	assert_true(json_is_true(json_object_get(adj, "primary")));
	/* The effect survives the adjustment, and the noise of the states goes. */
	assert_true(d > -6.5 && d < -3.5);
	assert_true(cv_of(adj, "baseline") < 0.04 && cv_of(adj, "patched") < 0.04);
	assert_true(cv_of(plain, "baseline") > 2 * cv_of(adj, "baseline"));
	assert_string_equal(jget_str(adj, "verdict", ""), "regression");
	json_decref(rep);
	json_decref(s);
}

/* A reference unrelated to the rate: no slope, the cells nearly as measured. */
static void unrelated_reference(void **state)
{
	json_t *s = session(6, 0, 0, 1.6, 0.04, 12), *rep = analyze(s), *hs;
	json_t *adj, *plain;

	(void)state;
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_false(json_is_true(json_object_get(hs, "separated")));
	assert_true(fabs(jget_num(hs, "correlation")) < 0.3);
	assert_true(jget_num(hs, "slope") < 0.3);
	adj = result(rep, ADJ);
	plain = result(rep, "cs_per_sec_per_cpu_1cpu");
	for (int k = 0; k < 2; k++) {
		const char *role = k ? "patched" : "baseline";
		json_t *a = json_object_get(json_object_get(adj, role), "values");
		json_t *p = json_object_get(json_object_get(plain, role), "values");

		assert_int_equal(json_array_size(a), 6);
		for (size_t i = 0; i < 6; i++)
			assert_true(fabs(json_number_value(json_array_get(a, i)) /
					 json_number_value(json_array_get(p, i)) - 1) < 0.02);
	}
	json_decref(rep);
	json_decref(s);
}

/* Make every cell's rate follow its reference, to the power 1 (about 4.4 M/s). */
static void couple(json_t *s, double ref_scale_patched)
{
	json_t *run;
	size_t i;

	json_array_foreach(json_object_get(s, "runs"), i, run) {
		json_t *ser = json_object_get(run, "series");
		json_t *c = json_object_get(ser, CELLS), *f = json_object_get(ser, REF);
		int patched = !strcmp(jget_str(run, "kernel", ""), "patched");
		double plain[5];

		for (size_t j = 0; j < 5; j++) {
			double v = json_number_value(json_array_get(c, j)) *
				   json_number_value(json_array_get(f, j)) / 4.4e6;

			json_array_set_new(c, j, json_real(v));
			if (patched)
				json_array_set_new(f, j, json_real(ref_scale_patched *
								   json_number_value(json_array_get(f, j))));
			plain[j] = v;
		}
		json_object_set_new(json_object_get(run, "metrics"), "cs_per_sec_per_cpu_1cpu",
				    json_real(stats_median(plain, 5)));
	}
}

/* The session without the patched kernel's runs: one kernel, nothing to compare. */
static void baseline_only(json_t *s)
{
	json_t *runs = json_object_get(s, "runs");

	for (size_t i = json_array_size(runs); i-- > 0;)
		if (!strcmp(jget_str(json_array_get(runs, i), "kernel", ""), "patched"))
			json_array_remove(runs, i);
}

static int has_warning(json_t *rep, const char *kind, const char *text)
{
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(rep, "warnings"), i, w)
		if (!strcmp(jget_str(w, "kind", ""), kind) &&
		    (!text || strstr(jget_str(w, "message", ""), text)))
			return 1;
	return 0;
}

/* Each run value of @res's @role against @other's, as a largest relative difference. */
static double values_apart(json_t *res, json_t *other, const char *role)
{
	json_t *a = json_object_get(json_object_get(res, role), "values");
	json_t *b = json_object_get(json_object_get(other, role), "values");
	double worst = 0;

	assert_int_equal(json_array_size(a), json_array_size(b));
	for (size_t i = 0; i < json_array_size(a); i++)
		worst = fmax(worst, fabs(json_number_value(json_array_get(a, i)) /
					 json_number_value(json_array_get(b, i)) - 1));
	return worst;
}

/*
 * A host slowed by contention rather than in two states: the reference and
 * the rate fall together, continuously. In one kernel's runs the
 * adjustment takes it out.
 */
static void contention_removed(void **state)
{
	json_t *s = session(10, 0.05, 0, 1, 0.25, 14), *rep, *hs, *adj, *plain;

	(void)state;
	couple(s, 1);
	baseline_only(s);
	rep = analyze(s);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	adj = result(rep, ADJ);
	plain = result(rep, "cs_per_sec_per_cpu_1cpu");
	assert_false(json_is_true(json_object_get(hs, "separated")));
	assert_true(fabs(jget_num(hs, "slope") - 1) < 0.1);
	assert_false(json_is_true(json_object_get(hs, "adjustment_refused")));
	/* One kernel: the slope found is the one used, and there is no shift to bound. */
	assert_true(jget_num(hs, "fitted_slope") == jget_num(hs, "slope"));
	assert_true(json_is_null(json_object_get(hs, "reference_shift")));
	assert_true(cv_of(plain, "baseline") > 3 * cv_of(adj, "baseline"));
	assert_false(has_warning(rep, "reference", NULL));
	json_decref(rep);
	json_decref(s);
}

/*
 * Two kernels on that host: the runs' references vary as much as the
 * host, so nothing bounds how far the patched kernel may have moved the
 * loop itself, and adjusting could take part of the real -5 % away. The
 * cells are used as measured (the plain median), and the report says so.
 */
static void contention_two_kernels_not_adjusted(void **state)
{
	json_t *s = session(10, 0.05, 0, 1, 0.25, 14), *rep, *hs, *adj, *plain;

	(void)state;
	couple(s, 1);
	rep = analyze(s);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	adj = result(rep, ADJ);
	plain = result(rep, "cs_per_sec_per_cpu_1cpu");
	assert_true(json_is_true(json_object_get(hs, "adjustment_refused")));
	assert_true(jget_num(hs, "slope") == 0);
	assert_true(fabs(jget_num(hs, "fitted_slope") - 1) < 0.1);
	assert_true(jget_num(hs, "bias_bound_pct") > 0.25);
	assert_non_null(strstr(jget_str(hs, "method", ""), "not adjusted"));
	assert_true(values_apart(adj, plain, "baseline") < 1e-9);
	assert_true(values_apart(adj, plain, "patched") < 1e-9);
	assert_true(has_warning(rep, "reference", "is not adjusted for the host"));
	json_decref(rep);
	json_decref(s);
}

/* One run per kernel bounds nothing: not adjusted, and the warning says why. */
static void too_few_runs_not_adjusted(void **state)
{
	json_t *s = session(1, 0.05, 0, 1, 0.25, 23), *rep, *hs;

	(void)state;
	couple(s, 1);
	rep = analyze(s);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_true(jget_num(hs, "fitted_slope") > 0.5);
	assert_true(json_is_true(json_object_get(hs, "adjustment_refused")));
	assert_true(jget_num(hs, "slope") == 0);
	assert_true(has_warning(rep, "reference", "too few runs"));
	json_decref(rep);
	json_decref(s);
}

/*
 * A kernel that changes the reference loop itself (its rate 20 % lower on
 * every run of the patched kernel) would have its effect adjusted away:
 * the report says so.
 */
static void reference_moved_by_kernel(void **state)
{
	json_t *s = session(8, 0, 0, 1, 0.03, 15), *rep;

	(void)state;
	couple(s, 0.8);
	rep = analyze(s);
	assert_true(has_warning(rep, "reference", NULL));
	json_decref(rep);
	json_decref(s);
}

/*
 * A host whose pace swings inside every run but not between runs: each
 * run's five cells alternate x1.04 and /1.04 (three fast, two slow), so the
 * runs' median references agree to 0.05 % and bound the kernels' shift of
 * the loop tightly. Without a shift the adjustment is used and the true
 * -5 % comes out; with the patched kernel running the loop 3 % faster
 * (slope 1: an adjustment would read -8 %) it is refused, and the plain
 * median keeps the -5 %.
 */
static json_t *alternating_session(double ref_scale_patched)
{
	json_t *s = session(10, 0.05, 0, 1, 0.01, 21), *run;
	struct rng r;
	size_t i;

	rng_seed(&r, 22);
	json_array_foreach(json_object_get(s, "runs"), i, run) {
		json_t *f = json_object_get(json_object_get(run, "series"), REF);

		for (size_t j = 0; j < 5; j++)
			json_array_set_new(f, j, json_real(4.4e6 * (j % 2 ? 1 / 1.04 : 1.04) *
							   (1 + 0.0005 * gauss(&r))));
	}
	couple(s, ref_scale_patched);
	return s;
}

static void reference_shift_bounded(void **state)
{
	json_t *s = alternating_session(1), *rep = analyze(s);
	json_t *hs = json_array_get(json_object_get(rep, "host_states"), 0);
	double d = jget_num(json_object_get(result(rep, ADJ), "comparison"), "delta_pct");

	(void)state;
	assert_false(json_is_true(json_object_get(hs, "adjustment_refused")));
	assert_true(fabs(jget_num(hs, "slope") - 1) < 0.1);
	assert_true(jget_num(hs, "bias_bound_pct") <= 0.25);
	assert_true(d > -6 && d < -4);
	json_decref(rep);
	json_decref(s);

	s = alternating_session(1.03);
	rep = analyze(s);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	d = jget_num(json_object_get(result(rep, ADJ), "comparison"), "delta_pct");
	assert_true(json_is_true(json_object_get(hs, "adjustment_refused")));
	assert_true(fabs(jget_num(json_object_get(hs, "reference_shift"), "ratio") - 1.03) < 0.005);
	assert_true(d > -6 && d < -4);
	assert_true(has_warning(rep, "reference", "is not adjusted for the host"));
	json_decref(rep);
	json_decref(s);
}

/*
 * Issue 49: the patched kernel runs the reference loop 0.15 % faster, on a
 * host steady between runs (0.05 % per cell), so the interval of that
 * shift excludes no shift. The old absolute bound (0.25 points; slope 1
 * gives a bias bound of about 0.17) adjusted anyway and took 0.15 points
 * from the metric; now the adjustment is refused, and the report says the
 * interval excludes no difference.
 */
static void reference_shift_small_but_real(void **state)
{
	json_t *s = alternating_session(1.0015), *rep = analyze(s);
	json_t *hs = json_array_get(json_object_get(rep, "host_states"), 0);
	json_t *shift = json_object_get(hs, "reference_shift");

	(void)state;
	assert_true(jget_num(shift, "lo") > 1);
	assert_true(jget_num(hs, "bias_bound_pct") < 0.25);
	assert_true(json_is_true(json_object_get(hs, "adjustment_refused")));
	assert_true(jget_num(hs, "slope") == 0);
	assert_true(has_warning(rep, "reference", "excludes no difference"));
	json_decref(rep);
	json_decref(s);
}

/*
 * Issue 49: the one-CPU ping-pong under icount boots into one of two
 * states 4 % apart, each exact to 0.03 %, and which one follows the other
 * slot: here 3 of 10 baseline runs fast against 7 of 10 patched runs,
 * and the patched kernel 0.1 % slower within each state. The old split
 * (eta and a 1.15 ratio) found no states, and the runs' values read the
 * mix of states (about +2.7 %); the states are now found, the kernels
 * compared within each, and the shares tested on their own.
 */
static json_t *modes_session(int fast_base, int fast_patched, double effect)
{
	json_t *s = session(10, 0, 0, 1, 0.01, 31), *run;
	struct rng r;
	size_t i;
	int nth[2] = { 0, 0 };

	rng_seed(&r, 32);
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	json_array_foreach(json_object_get(s, "runs"), i, run) {
		int k = !strcmp(jget_str(run, "kernel", ""), "patched");
		int fast = nth[k]++ < (k ? fast_patched : fast_base);
		json_t *c = json_object_get(json_object_get(run, "series"), CELLS);
		json_t *f = json_object_get(json_object_get(run, "series"), REF);
		double sum = 0;

		for (size_t j = 0; j < 5; j++) {
			double v = 240e3 * (fast ? 1.04 : 1) * (k ? 1 - effect : 1) *
				   (1 + 0.0003 * gauss(&r));

			sum += v;
			json_array_set_new(c, j, json_real(v));
			json_array_set_new(f, j, json_real(4.4e6 * (1 + 0.0005 * gauss(&r))));
		}
		json_object_set_new(json_object_get(run, "metrics"), "cs_per_sec_per_cpu_1cpu",
				    json_real(sum / 5));
	}
	return s;
}

/* The first @n runs of each kernel of session @s, the others dropped. */
static void keep_runs(json_t *s, int n)
{
	json_t *runs = json_object_get(s, "runs");
	int seen[2] = { 0, 0 };

	for (size_t i = 0; i < json_array_size(runs);) {
		int k = !strcmp(jget_str(json_array_get(runs, i), "kernel", ""), "patched");

		if (seen[k]++ >= n)
			json_array_remove(runs, i);
		else
			i++;
	}
}

/* A modes_session() analysed: its host state, modes member and primary result. */
struct modes_case {
	json_t *s, *rep, *hs, *modes, *res;
	double d;	/* the primary's delta_pct */
};

static void modes_case_run(struct modes_case *c, int fast_base, int fast_patched, double effect)
{
	c->s = modes_session(fast_base, fast_patched, effect);
	c->rep = analyze(c->s);
	c->hs = json_array_get(json_object_get(c->rep, "host_states"), 0);
	c->modes = json_object_get(c->hs, "modes");
	c->res = result(c->rep, ADJ);
	c->d = jget_num(json_object_get(c->res, "comparison"), "delta_pct");
	print_message("%s: %+.3f %%, %s\n", jget_str(c->res, "verdict", ""), c->d,
		      jget_str(c->res, "reason", ""));
}

static void modes_case_release(struct modes_case *c)
{
	json_decref(c->rep);
	json_decref(c->s);
}

static void modes_within_state(void **state)
{
	json_t *s = modes_session(3, 7, 0.001), *rep = analyze(s);
	json_t *hs = json_array_get(json_object_get(rep, "host_states"), 0);
	json_t *modes = json_object_get(hs, "modes"), *res = result(rep, ADJ);
	double d = jget_num(json_object_get(res, "comparison"), "delta_pct");

	(void)state;
	print_message("%s: %+.3f %%, %s\n", jget_str(res, "verdict", ""), d,
		      jget_str(res, "reason", ""));
	assert_true(json_is_object(modes));
	assert_true(fabs(jget_num(modes, "ratio") - 1.04) < 0.002);
	assert_true(json_is_true(json_object_get(hs, "by_states")));
	/* Within each state: -0.1 %, its interval holding it. */
	for (int i = 0; i < 2; i++) {
		json_t *w = json_object_get(modes, i ? "slow" : "fast");

		assert_true(fabs(jget_num(w, "ratio") - 0.999) < 0.0005);
		assert_true(jget_num(w, "lo") <= 0.999 && jget_num(w, "hi") >= 0.999);
	}
	assert_true(jget_num(jpath(modes, "fast_share"), "patched") > 0.6);
	assert_true(jget_num(jpath(modes, "fast_share"), "base") < 0.4);
	assert_true(jget_num(modes, "share_p") < 0.01);
	/* The verdict rests on the within-state effect, not on the mix (+2.7 %). */
	assert_true(fabs(d + 0.1) < 0.02);
	assert_true(json_is_true(json_object_get(res, "final")));
	assert_true(has_warning(rep, "modes", "two emulator states"));
	json_decref(rep);
	json_decref(s);

	/*
	 * The baseline shows both states (1 run of 10 fast), the patched
	 * kernel only the fast one: its runs follow the kernel (Fisher p
	 * about 1e-4 on the runs), so the groups are its effect (+4 %), as
	 * with no baseline run fast (below). It read "not decidable on this
	 * guest" before.
	 */
	s = modes_session(1, 10, 0);
	rep = analyze(s);
	res = result(rep, ADJ);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	modes = json_object_get(hs, "modes");
	assert_true(json_is_true(json_object_get(modes, "follows_kernel")));
	assert_true(jget_num(modes, "run_share_p") < 0.001);
	assert_true(json_is_false(json_object_get(hs, "by_states")));
	assert_string_equal(jget_str(res, "verdict", ""), "improvement");
	assert_true(fabs(jget_num(json_object_get(res, "comparison"), "delta_pct") - 4) < 0.2);
	assert_true(has_warning(rep, "modes", "follow the kernel, not the guest"));
	json_decref(rep);
	json_decref(s);

	/*
	 * The same on 3 runs each: the runs cannot tell (p 0.4), and the
	 * kernels share no state with 2 runs of each: not decidable on this
	 * guest, and no runs estimate.
	 */
	s = modes_session(1, 10, 0);
	keep_runs(s, 3);
	rep = analyze(s);
	res = result(rep, ADJ);
	assert_string_equal(jget_str(res, "verdict", ""), "inconclusive");
	assert_non_null(strstr(jget_str(res, "reason", ""), "not decidable on this guest"));
	assert_int_equal(jget_num(res, "runs_needed"), 0);
	assert_true(json_is_false(json_object_get(json_object_get(json_array_get(
			    json_object_get(rep, "host_states"), 0), "modes"), "decidable")));
	json_decref(rep);
	json_decref(s);

	/*
	 * Every baseline cell in one group, every patched cell in the other:
	 * no kernel shows two states, so this is the kernel's effect (+4 %),
	 * not the guest's states. Test 66's 10 us delay (-72.7 %) read "not
	 * decidable on this guest" before.
	 */
	s = modes_session(0, 10, 0);
	rep = analyze(s);
	res = result(rep, ADJ);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_false(json_is_object(json_object_get(hs, "modes")));
	assert_string_equal(jget_str(res, "verdict", ""), "improvement");
	assert_null(strstr(jget_str(res, "reason", ""), "not decidable"));
	json_decref(rep);
	json_decref(s);
}

/*
 * Issue 49: the baseline never in the fast state, the patched kernel in
 * 5 runs of 10, and 0.1 % slower within each state. The verdict read the
 * mix (about +2 %: half its runs 4 % faster); only the slow state, which
 * both have, compares them now.
 */
static void modes_one_kernel_one_state(void **state)
{
	json_t *s = modes_session(0, 5, 0.001), *rep = analyze(s);
	json_t *hs = json_array_get(json_object_get(rep, "host_states"), 0);
	json_t *res = result(rep, ADJ);
	double d = jget_num(json_object_get(res, "comparison"), "delta_pct");

	(void)state;
	print_message("%s: %+.3f %%, %s\n", jget_str(res, "verdict", ""), d,
		      jget_str(res, "reason", ""));
	assert_true(json_is_true(json_object_get(hs, "by_states")));
	assert_true(fabs(d + 0.1) < 0.03);
	/* The fast state: one kernel alone, not compared. */
	assert_false(json_is_number(json_object_get(json_object_get(json_object_get(hs, "modes"),
								    "fast"), "ratio")));
	json_decref(rep);
	json_decref(s);
}

/*
 * Test 62's slow5 read "within noise" in a CI run of 2026-12-07: a kernel
 * slower in most of its runs by about the gap of the guest's two states
 * looks like a shift of the states. Here the patched kernel is 4 % slower
 * in 8 runs of 10 and the baseline never: the fast group holds every
 * baseline run, the patched kernel's two fast runs beside it. Compared
 * within that group alone the kernels read -0.0 % (no change); the runs'
 * groups follow the kernel (Fisher p 0.0007), so they are its effect: the
 * cells as measured, a regression of about 4 %.
 */
static void modes_kernel_mostly_slow(void **state)
{
	struct modes_case c;

	(void)state;
	modes_case_run(&c, 10, 2, 0);
	assert_true(json_is_object(c.modes));
	assert_true(json_is_true(json_object_get(c.modes, "follows_kernel")));
	assert_true(jget_num(c.modes, "run_share_p") < 0.01);
	assert_true(json_is_false(json_object_get(c.hs, "by_states")));
	assert_string_equal(jget_str(c.res, "verdict", ""), "regression");
	assert_true(fabs(c.d + 100 * (1 - 1 / 1.04)) < 0.3);
	assert_true(has_warning(c.rep, "modes", "patched's in the other in 8 of 10"));
	modes_case_release(&c);
}

/* A wis_cs1 cell of the demo fixture in neither state's core (35.8k, 54.7k, each to 0.1 %). */
static int demo_between(double c)
{
	return fabs(c / 35820 - 1) > 0.01 && fabs(c / 54700 - 1) > 0.01;
}

/*
 * The demo's wis_cs1 under icount (test_modes_fixture.h): 3 cells a run,
 * most between the states. A run with all three between has no value in
 * a state: left out, as its cells are, and not a failed run. Counted as
 * one, a busy hour's 15 of 40 made the demo's primary "invalid: too many
 * failed runs" (make demo, 2026-12-07).
 */
static void modes_runs_between_not_failed(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *runs = json_array(), *rep, *res, *w = NULL;
	size_t i, all_between = 0, missing = 0;

	(void)state;
	if (report_load("tests/fixtures/reports/session-ab.json", &s, &err))
		fail_msg("%s", err.buf);
	sb_release(&err);
	/* the fixture's wis_ctx1 alone, as bench/modes-sim takes it */
	json_array_foreach(json_object_get(s, "workloads"), i, w)
		if (!strcmp(jget_str(w, "name", ""), "wis_ctx1"))
			break;
	if (!w || strcmp(jget_str(w, "name", ""), "wis_ctx1"))
		fail_msg("no wis_ctx1 workload in session-ab.json");
	w = json_deep_copy(w);
	json_object_set_new(w, "primary", json_pack("[s]", "ops_per_sec_hostadj"));
	json_object_set_new(s, "workloads", json_pack("[o]", w));
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	json_object_set_new(json_object_get(s, "design"), "runs_per_kernel", json_integer(10));
	json_object_set_new(json_object_get(s, "design"), "warmups", json_integer(0));
	for (i = 0; i < ARRAY_SIZE(wis_cs1_demo); i++) {
		const struct wis_run *d = &wis_cs1_demo[i];
		int between = demo_between(d->c[0]) + demo_between(d->c[1]) + demo_between(d->c[2]);

		all_between += between == 3;
		json_array_append_new(runs, json_pack(
			"{s:i, s:i, s:s, s:s, s:b, s:s, s:{s:f}, s:{s:[fff], s:[fff]}}", "seq", d->seq,
			"block", (int)i / 2 + 1, "kernel", d->patched ? "patched" : "base",
			"workload", "wis_ctx1", "warmup", 0, "status", "ok", "metrics", "ops_per_sec",
			(d->c[0] + d->c[1] + d->c[2]) / 3, "series", "ops_per_sec_cells", d->c[0],
			d->c[1], d->c[2], "ref_cells", 1e6, 1e6, 1e6));
	}
	json_object_set_new(s, "runs", runs);
	rep = analyze(s);
	res = result(rep, "ops_per_sec_hostadj");
	for (int k = 0; k < 2; k++)
		missing += (size_t)jget_num(json_object_get(res, k ? "patched" : "baseline"),
					    "missing");
	print_message("%zu of %zu runs all between; %s, missing %zu\n", all_between,
		      ARRAY_SIZE(wis_cs1_demo), jget_str(res, "verdict", ""), missing);
	assert_true(all_between >= 2);
	assert_true(json_is_object(json_object_get(json_array_get(
		json_object_get(rep, "host_states"), 0), "modes")));
	assert_int_equal(missing, 0);
	assert_string_not_equal(jget_str(res, "verdict", ""), "invalid");
	assert_true(has_warning(rep, "modes", "had every cell between the emulator states"));
	json_decref(rep);
	json_decref(s);
}

/* The fixture session with one mglru_aging workload whose primary is the adjusted median. */
static json_t *aging_session(void)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	sb_release(&err);
	json_object_set_new(s, "workloads",
			    json_pack("[{s:s, s:s, s:{}, s:[s]}]", "name", "aging", "type", "mglru_aging",
				      "params", "primary", "median_ms_per_gen_hostadj"));
	return s;
}

/* An aging run of @n generations: times @t (ms) and the reference rates @f before them. */
static json_t *aging_run(int seq, int block, int patched, const double *t, const double *f,
			 size_t n)
{
	return json_pack("{s:i, s:i, s:s, s:s, s:b, s:s, s:{s:f}, s:{s:o, s:o}}", "seq", seq,
			 "block", block, "kernel", patched ? "patched" : "base", "workload", "aging",
			 "warmup", 0, "status", "ok", "metrics", "median_ms_per_gen",
			 stats_median(t, n), "series", "gen_ms", doubles(t, n), "ref_cells",
			 doubles(f, n));
}

/*
 * A time (mglru_aging's generations): it grows as the host slows, so the
 * slope is negative; an 8 % slower kernel is a regression once the host's
 * states are out.
 */
static void time_metric_one(int two_states)
{
	json_t *s = aging_session(), *arr = json_array(), *rep, *adj, *hs;
	struct rng r;
	int seq = 0;

	rng_seed(&r, 16);
	for (int i = 0; i < 8; i++) {
		for (int k = 0; k < 2; k++) {
			double t[10], f[10];
			int slow_run = uniform(&r) < 0.5;

			for (int j = 0; j < 10; j++) {
				int slow = uniform(&r) < (slow_run ? 0.9 : 0.1);

				f[j] = (slow ? 3.0e6 : 4.4e6) * (1 + 0.02 * gauss(&r));
				t[j] = 0.5 * (k ? 1.08 : 1) * (slow ? 1.6 : 1) * (1 + 0.03 * gauss(&r));
				if (!two_states) {	/* a continuous slowdown instead */
					f[j] = 4.4e6 * exp(0.25 * gauss(&r));
					t[j] = 0.5 * (k ? 1.08 : 1) * pow(4.4e6 / f[j], 1.2) *
					       (1 + 0.03 * gauss(&r));
				}
			}
			json_array_append_new(arr, aging_run(++seq, i, k, t, f, 10));
		}
	}
	json_object_set_new(s, "runs", arr);
	rep = analyze(s);
	adj = result(rep, "median_ms_per_gen_hostadj");
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	if (two_states) {
		/* The slow state is the longer time: moved down by the states' ratio. */
		assert_true(json_is_true(json_object_get(hs, "by_states")));
		assert_true(fabs(jget_num(json_object_get(json_object_get(hs, "own_states"), "base"),
					  "ratio") - 1.6) < 0.08);
	} else {
		/*
		 * The runs' references vary with the host: the kernels' shift
		 * of the loop is not bounded, so two kernels are not adjusted;
		 * the baseline alone is, along a negative slope.
		 */
		assert_false(json_is_true(json_object_get(hs, "by_states")));
		assert_true(json_is_true(json_object_get(hs, "adjustment_refused")));
		assert_true(jget_num(hs, "fitted_slope") < -1.0 &&
			    jget_num(hs, "fitted_slope") > -1.5);
		json_decref(rep);
		baseline_only(s);
		rep = analyze(s);
		adj = result(rep, "median_ms_per_gen_hostadj");
		hs = json_array_get(json_object_get(rep, "host_states"), 0);
		assert_true(jget_num(hs, "slope") < -1.0 && jget_num(hs, "slope") > -1.5);
		assert_true(cv_of(result(rep, "median_ms_per_gen"), "baseline") >
			    2 * cv_of(adj, "baseline"));
		json_decref(rep);
		json_decref(s);
		return;
	}
	assert_true(json_is_true(json_object_get(adj, "primary")));
	assert_true(fabs(jget_num(json_object_get(adj, "comparison"), "delta_pct") - 8) < 3);
	assert_string_equal(jget_str(adj, "verdict", ""), "regression");
	assert_true(cv_of(result(rep, "median_ms_per_gen"), "baseline") > 2 * cv_of(adj, "baseline"));
	json_decref(rep);
	json_decref(s);
}

static void time_metric(void **state)
{
	(void)state;
	time_metric_one(1);
	time_metric_one(0);
}

/* A reference that swings with no echo in the metric: no slope, the cells as they are. */
static void weak_relation_ignored(void **state)
{
	json_t *s = session(2, 0, 0, 1, 0.3, 17), *rep, *hs;

	(void)state;
	rep = analyze(s);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_true(jget_num(hs, "slope") == 0);
	assert_non_null(strstr(jget_str(hs, "method", ""), "no clear relation"));
	json_decref(rep);
	json_decref(s);
}

/* Series a guest could send: no reference, zeros, wrong lengths, strings. */
static void garbled_series(void **state)
{
	json_t *s = session(6, 0, 0.4, 1, 0, 13), *runs = json_object_get(s, "runs"), *rep;
	json_t *ser0 = json_object_get(json_array_get(runs, 0), "series");
	json_t *ser1 = json_object_get(json_array_get(runs, 1), "series");
	json_t *ser2 = json_object_get(json_array_get(runs, 2), "series");
	json_t *ser3 = json_object_get(json_array_get(runs, 3), "series");
	json_t *adj, *hs;

	(void)state;
	/* Run 1 (base): every reference 0 (no task parked): no value. */
	json_object_set_new(ser0, REF, json_pack("[i,i,i,i,i]", 0, 0, 0, 0, 0));
	/* Run 2 (patched): the reference one short: the cells' states are unknown. */
	json_array_remove(json_object_get(ser1, REF), 0);
	/* Run 3 (base): no reference at all (ref_ms = 0): the cells as measured. */
	json_object_del(ser2, REF);
	/* Run 4 (patched): strings and a negative rate among the cells. */
	json_array_set_new(json_object_get(ser3, CELLS), 0, json_string("x"));
	json_array_set_new(json_object_get(ser3, CELLS), 1, json_real(-5));
	/* A metric instance far beyond any CPU count. */
	json_object_set_new(ser3, "cs_per_sec_per_cpu_99999999999cpu_cells", json_pack("[i]", 1));
	/* A second spelling of CPU count 1, which would derive the same metric twice. */
	json_object_set_new(ser3, "cs_per_sec_per_cpu_01cpu_cells", json_pack("[i]", 1));
	rep = analyze(s);
	adj = result(rep, ADJ);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_int_equal(jget_num(json_object_get(adj, "baseline"), "n"), 5);
	assert_int_equal(jget_num(json_object_get(adj, "baseline"), "missing"), 1);
	assert_int_equal(jget_num(json_object_get(adj, "patched"), "n"), 5);
	assert_int_equal(jget_num(json_object_get(adj, "patched"), "missing"), 1);
	assert_int_equal(jget_num(json_object_get(hs, "unknown_cells"), "base"), 5);
	assert_int_equal(jget_num(json_object_get(hs, "runs_without_value"), "base"), 1);
	assert_int_equal(jget_num(json_object_get(hs, "runs_without_value"), "patched"), 1);
	assert_int_equal(json_array_size(json_object_get(rep, "host_states")), 1);
	json_decref(rep);
	json_decref(s);
}

/* The states in the metric need no reference: runs without one keep their value. */
static void states_without_reference(void **state)
{
	json_t *s = session(6, 0.05, 0.4, 1.7, 0, 18), *run, *rep, *adj, *hs;
	size_t i;

	(void)state;
	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (i % 2)
			json_object_del(json_object_get(run, "series"), REF);
		else	/* an emulated TLB covering the loop's buffer: 10x and meaningless */
			json_object_set_new(json_object_get(run, "series"), REF,
					    json_pack("[f,f,f,f,f]", 4e7, 4e7, 5e7, 6e7, 4e7));
	rep = analyze(s);
	adj = result(rep, ADJ);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_true(json_is_true(json_object_get(hs, "by_states")));
	assert_int_equal(jget_num(json_object_get(adj, "baseline"), "n"), 6);
	assert_int_equal(jget_num(json_object_get(adj, "patched"), "n"), 6);
	assert_int_equal(jget_num(json_object_get(hs, "unknown_cells"), "base"), 0);
	assert_true(cv_of(adj, "baseline") < 0.04);
	json_decref(rep);
	json_decref(s);
}

/*
 * A reference far off the session's median (10x: an emulated TLB that
 * covers the loop's buffer) did not measure the host: its cells are used
 * as measured, not moved along the slope to the range's edge.
 */
static void reference_out_of_range_left_out(void **state)
{
	json_t *s = session(10, 0.05, 0, 1, 0.25, 19), *rep, *adj, *hs, *ser;
	size_t i;

	(void)state;
	couple(s, 1);
	baseline_only(s);	/* two kernels on this host: not adjusted at all */
	ser = json_object_get(json_array_get(json_object_get(s, "runs"), 0), "series");
	for (i = 0; i < 5; i++)
		json_array_set_new(json_object_get(ser, REF), i, json_real(5e7));
	rep = analyze(s);
	adj = result(rep, ADJ);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_false(json_is_true(json_object_get(hs, "by_states")));
	assert_true(fabs(jget_num(hs, "slope") - 1) < 0.1);
	assert_int_equal(jget_num(json_object_get(hs, "off_range_cells"), "base"), 5);
	assert_int_equal(jget_num(json_object_get(hs, "unknown_cells"), "base"), 0);
	assert_int_equal(jget_num(json_object_get(adj, "baseline"), "missing"), 0);
	/* The run's value is its plain median. */
	assert_true(fabs(json_number_value(json_array_get(
		json_object_get(json_object_get(adj, "baseline"), "values"), 0)) /
		jget_num(json_object_get(json_array_get(json_object_get(s, "runs"), 0), "metrics"),
			 "cs_per_sec_per_cpu_1cpu") - 1) < 1e-9);
	json_decref(rep);
	json_decref(s);
}

/*
 * A patched kernel that is itself slow in most runs looks like a host
 * state; the report says its runs spent more of their time slow.
 */
static void slow_kernel_warned(void **state)
{
	json_t *s, *rep, *w, *hs;
	size_t i;
	int found = 0;

	(void)state;
	p_slow_patched = 0.95;
	s = session(12, 0, 0.05, 1.6, 0, 20);
	p_slow_patched = -1;
	rep = analyze(s);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_true(json_is_true(json_object_get(hs, "by_states")));
	assert_true(jget_num(hs, "slow_share_p") < 0.01);
	json_array_foreach(json_object_get(rep, "warnings"), i, w)
		found |= !strcmp(jget_str(w, "kind", ""), "host-states");
	assert_true(found);
	json_decref(rep);
	json_decref(s);
}

/* Under icount a run's value is the mean of its cells, not their median. */
static void icount_mean_of_cells(void **state)
{
	json_t *s = session(6, 0, 0, 1, 0.04, 21), *rep, *adj, *hs, *run0, *cells;
	double sum = 0;

	(void)state;
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	run0 = json_array_get(json_object_get(s, "runs"), 0);
	cells = json_object_get(json_object_get(run0, "series"), CELLS);
	/*
	 * Two values 4 % apart, as the one-CPU ping-pong's windows under
	 * icount, inside the session's 2 % noise: a run of one kernel alone
	 * at half the others' rate (124.6k against 240k) would be an
	 * emulator state the other kernel never shows, compared within the
	 * state they share (issue 49).
	 */
	for (size_t j = 0; j < 5; j++) {
		double c = j < 3 ? 235.3e3 : 244.7e3;

		json_array_set_new(cells, j, json_real(c));
		sum += c;
	}
	rep = analyze(s);
	adj = result(rep, ADJ);
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_string_equal(jget_str(hs, "run_value", ""), "mean");
	assert_true(jget_num(hs, "slope") == 0);
	assert_true(fabs(json_number_value(json_array_get(json_object_get(
		json_object_get(adj, "baseline"), "values"), 0)) / (sum / 5) - 1) < 1e-12);
	json_decref(rep);
	json_decref(s);
}

/* Baseline run @i's value of the aging primary. */
static double base_value(json_t *adj, size_t i)
{
	return json_number_value(json_array_get(json_object_get(json_object_get(adj, "baseline"),
								"values"), i));
}

/* The mean of @t[@from..@n-1]. */
static double mean_from(const double *t, size_t from, size_t n)
{
	double s = 0;

	for (size_t j = from; j < n; j++)
		s += t[j];
	return s / (double)(n - from);
}

/*
 * Aging's generations repeat one measurement: under icount a run's value
 * is the mean of its generations without the first, by position (the
 * first timed one may still run cold: x5 here, in one run of four, about
 * as often as in the demo), whatever the values. A generation at x5 later
 * in the run is kept: the rule never looks at values. The first position
 * is left out even when its cell is garbled, so the second is kept. The
 * ping-pong's cells are never left out (icount_mean_of_cells: its mean is
 * of all five).
 */
static void icount_repeats_skip_first(void **state)
{
	json_t *s = aging_session(), *arr = json_array(), *rep, *adj, *hs;
	struct rng r;
	double want[3] = { 0 };
	int seq = 0;

	(void)state;
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	rng_seed(&r, 23);
	for (int i = 0; i < 8; i++)
		for (int k = 0; k < 2; k++) {
			double t[20], f[20];

			for (int j = 0; j < 20; j++) {
				f[j] = 2.76e7 * (1 + 0.001 * gauss(&r));
				t[j] = 0.28 * (1 + 0.01 * gauss(&r));
			}
			if (i % 4 == 0)
				t[0] *= 5;
			if (i == 1)
				t[5] *= 5;
			if (i == 2)
				t[0] = -1;	/* not a time: not usable */
			if (!k && i < 3)
				want[i] = mean_from(t, 1, 20);
			json_array_append_new(arr, aging_run(++seq, i, k, t, f, 20));
		}
	json_object_set_new(s, "runs", arr);
	rep = analyze(s);
	adj = result(rep, "median_ms_per_gen_hostadj");
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_string_equal(jget_str(hs, "run_value", ""), "mean without the first 1 cell(s)");
	assert_false(json_is_true(json_object_get(hs, "by_states")));
	for (size_t i = 0; i < 3; i++)
		assert_true(fabs(base_value(adj, i) / want[i] - 1) < 1e-9);
	json_decref(rep);
	json_decref(s);
}

/*
 * A kernel that slows 10 % of aging's generations x2 (a periodic slow
 * step, the kind of change the MGLRU threads are about) is +10 % on the
 * mean, and the run value must keep it. Runs of 21 generations: the
 * first, which the rule leaves out, and twenty of which two, at random
 * positions, are slow in the patched kernel. 10 runs per kernel, as
 * under icount (run level CV 0.8 %, generations 0.5 %). The rule before
 * (the mean within x1.5 of the run's median) dropped exactly those two:
 * -0.1 % at this seed, where the rule now reads +9.9 % (9.5-11.0 % over
 * seeds 1-12).
 */
static void icount_repeats_keep_effect(void **state)
{
	json_t *s = aging_session(), *arr = json_array(), *rep, *adj, *hs;
	struct rng r;
	double want = 0;
	int seq = 0;

	(void)state;
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	rng_seed(&r, 2602);
	for (int i = 0; i < 10; i++)
		for (int k = 0; k < 2; k++) {
			double t[21], f[21], level = 0.28 * exp(0.008 * gauss(&r));
			size_t a = (size_t)(uniform(&r) * 20), b = (a + 1 + (size_t)(uniform(&r) * 19)) % 20;

			for (int j = 0; j < 21; j++) {
				f[j] = 2.76e7 * (1 + 0.001 * gauss(&r));
				t[j] = level * (1 + 0.005 * gauss(&r));
			}
			if (k) {
				t[1 + a] *= 2;
				t[1 + b] *= 2;
			}
			if (!k && !i)
				want = mean_from(t, 1, 21);
			json_array_append_new(arr, aging_run(++seq, i, k, t, f, 21));
		}
	json_object_set_new(s, "runs", arr);
	rep = analyze(s);
	adj = result(rep, "median_ms_per_gen_hostadj");
	hs = json_array_get(json_object_get(rep, "host_states"), 0);
	assert_false(json_is_true(json_object_get(hs, "by_states")));
	assert_true(jget_num(hs, "slope") == 0);
	assert_true(fabs(jget_num(json_object_get(adj, "comparison"), "delta_pct") - 10) <= 1);
	assert_true(fabs(base_value(adj, 0) / want - 1) < 1e-9);
	json_decref(rep);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(two_states_found),
		cmocka_unit_test(one_state_refused),
		cmocka_unit_test(effect_kept_states_removed),
		cmocka_unit_test(unrelated_reference),
		cmocka_unit_test(contention_removed),
		cmocka_unit_test(contention_two_kernels_not_adjusted),
		cmocka_unit_test(reference_shift_bounded),
		cmocka_unit_test(reference_shift_small_but_real),
		cmocka_unit_test(modes_within_state),
		cmocka_unit_test(modes_one_kernel_one_state),
		cmocka_unit_test(modes_kernel_mostly_slow),
		cmocka_unit_test(modes_runs_between_not_failed),
		cmocka_unit_test(too_few_runs_not_adjusted),
		cmocka_unit_test(reference_moved_by_kernel),
		cmocka_unit_test(time_metric),
		cmocka_unit_test(weak_relation_ignored),
		cmocka_unit_test(garbled_series),
		cmocka_unit_test(states_without_reference),
		cmocka_unit_test(reference_out_of_range_left_out),
		cmocka_unit_test(slow_kernel_warned),
		cmocka_unit_test(icount_mean_of_cells),
		cmocka_unit_test(icount_repeats_skip_first),
		cmocka_unit_test(icount_repeats_keep_effect),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
