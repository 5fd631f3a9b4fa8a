// SPDX-License-Identifier: GPL-2.0
/*
 * Host-state adjusted metrics (docs/reports.md, "Host states").
 *
 * Under TCG the host these labs run on alternates between a fast and a
 * slow state for seconds at a time, on each host CPU independently, and a
 * timing metric follows it: yield_pingpong's rate moves by about x1.7
 * between the states, so runs of one kernel vary by CV 15-25 %. A busy
 * host slows guests the same way, continuously. The workload measures a
 * reference loop (pure user space: the same work whatever the kernel) on
 * each CPU before each window, and reports every (window, CPU) cell's rate
 * with the reference rate before it.
 *
 * Over all runs of the session the slope of log rate on log reference is
 * estimated inside each kernel and pooled (analysis of covariance, so a
 * kernel's own effect cannot leak into it); each cell is moved along it to
 * the session's median reference, and a run's value is the median of its
 * cells. The adjustment is the same function of the reference for both
 * kernels, so the A/B comparison stays fair as long as the kernel does not
 * change the reference loop itself; since the data cannot show that it
 * did not, the slope is used only where the reference bounds the harm
 * (bound_reference_shift()).
 * On the bench/tcg-modes data (8 guests) the CV across runs was 4.2-5.2 %
 * against 22-25 % for the plain median.
 *
 * The reference does not always see the states. On a vCPU whose emulated
 * TLB happens to cover the loop's buffer it runs 5-15 times faster and
 * tracks nothing (yield_pingpong's second CPU, most of the time), and the
 * two-CPU rate was then left as measured, or worse, moved by a slope
 * fitted on the other CPU. But when the host is in two states, the metric
 * shows them itself: its cells fall into two clusters about x1.7 apart,
 * far wider than any kernel effect the lab looks for. So first, inside
 * each kernel, Otsu's split of the metric's own cells: when every kernel's
 * cells split into two well-separated states, each slow-state cell is
 * moved to the fast state by the kernels' pooled ratio of the states, and
 * the run's value is the median of its cells (no reference needed). Only
 * when the metric does not show two states does the reference slope
 * apply. Over 7 single-kernel sessions of 10 fresh boots kept from
 * bench/noise-floor, where the host was in two states, this took the
 * two-CPU rate's CV from 20-50 % (plain 18-21 %) to 3.7-4.6 %, and the
 * one-CPU rate's from 4.4-7.1 % to 1.7-4.9 % (docs/reports.md).
 *
 * A kernel that is itself sometimes slow, by x1.15 or more, would look
 * like a host state and have its effect moved away; the report compares
 * the kernels' shares of slow-state cells and warns when they differ
 * (slow_share_p), and the plain medians stay beside the adjusted ones.
 *
 * When the guest's clock counted instructions (icount) no host stall
 * reaches guest time, and a run's value is the mean of its (adjusted)
 * cells instead of their median; for cells that repeat one measurement
 * (aging's generations) the mean without the run's first RUN_SKIP_FIRST
 * cells, left out by position, never by value (derive_run()).
 */
#include "report.h"
#include "report_priv.h"
#include "report_view.h"
#include "run_record.h"
#include "stats.h"
#include "strbuf.h"
#include "report_modes.h"
#include "util.h"
#include "workload_def.h"
#include "xjson.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A slope is used when its t statistic (one-sided, the expected sign) is at least this. */
#define SLOPE_MIN_T 2.576
#define SLOPE_MIN_DF 8

/*
 * Cells whose reference is this many times off the median do not set the
 * slope, and are not moved by it (they are used as measured): the loop
 * then measured something else (an emulated TLB that covers its buffer,
 * or a vCPU stalled through it).
 */
#define REF_RANGE 3.0

/*
 * The adjustment is used only when the kernels' shift of the reference
 * loop, bounded by its 95 % interval and multiplied by the slope, could
 * move the adjusted comparison by at most this share of the half-width
 * of the metric's own interval (the plain run values', Hodges-Lehmann),
 * and when that interval of the shift holds no shift at all. See
 * bound_reference_shift(). It replaces an absolute 0.25 points, which
 * on a steady host with 20 runs let a bias of 0.2 points through against
 * intervals of +-0.1 and covered the truth 86-89 % of the time (issue 49).
 */
#define ADJUST_BIAS_FRACTION 0.1

/* CPU counts per workload and metric; more than any sweep the lab runs. */
#define HOSTSTATE_MAX_INSTANCES 256

/* @pat with its "%d" replaced by @k. */
static char *instance(const char *pat, long k)
{
	const char *d = strstr(pat, "%d");
	struct strbuf sb = STRBUF_INIT;

	if (!d)
		return xstrdup(pat);
	sb_add(&sb, pat, (size_t)(d - pat));
	sb_addf(&sb, "%ld", k);
	sb_adds(&sb, d + 2);
	return sb_detach(&sb);
}

/*
 * The number @name puts where @pat has "%d"; -1 when it does not match. A
 * pattern without "%d" matches only itself, as instance 0.
 */
static long instance_number(const char *pat, const char *name)
{
	const char *d = strstr(pat, "%d");
	size_t pre = d ? (size_t)(d - pat) : 0, post, len = strlen(name);
	long k = 0;

	if (!d)		/* one instance, the name itself */
		return strcmp(pat, name) ? -1 : 0;
	if (len < pre || strncmp(name, pat, pre))
		return -1;
	post = strlen(d + 2);
	if (len < pre + post + 1 || strcmp(name + len - post, d + 2))
		return -1;
	/* One spelling per number: "01cpu" would alias "1cpu". */
	if (name[pre] == '0' && len - post - pre > 1)
		return -1;
	for (size_t i = pre; i < len - post; i++) {
		if (name[i] < '0' || name[i] > '9' || k > (INT_MAX - 9) / 10)
			return -1;
		k = k * 10 + (name[i] - '0');
	}
	return k;
}

/*
 * The series @name of @run into *out (malloc'd; NaN for anything not a
 * number), and its length; 0 and NULL when there is none.
 */
static size_t series_values(const struct run_record *run, const char *name, double **out)
{
	/* "series" is not typed in the record: only this file reads it. */
	const json_t *a = json_object_get(json_object_get(run->json, "series"), name), *v;
	size_t i, n = json_array_size(a);

	*out = NULL;
	if (!n)
		return 0;
	*out = xcalloc(n, sizeof(**out));
	json_array_foreach(a, i, v)
		(*out)[i] = json_is_number(v) ? json_number_value(v) : NAN;
	return n;
}

static int usable(double v)
{
	return isfinite(v) && v > 0;
}

/* One derived metric instance (one K) over the session. */
struct derivation {
	const char *workload;
	char *metric, *cells, *ref;
	struct stats_states st;	/* the reference rates' two states, described */
	int better_higher;	/* a rate (slope >= 0) or a time (slope <= 0) */
	double slope;		/* beta: d log(value) / d log(reference), within kernels */
	double r;		/* the within-kernel correlation of the two logs */
	double ref0;		/* log of the session's median reference: cells are adjusted to it */
	double lo, hi;		/* log reference range used; beyond it, clamped */
	double ref_median[2];	/* per kernel, of the runs' median references */
	double ref_p;		/* do the kernels' references differ? (Mann-Whitney) */
	const char *how;	/* what was done, for the report */
	size_t cells_used[2], unknown[2], runs_without[2], off_range[2];
	size_t runs_between[2];	/* of runs_without, those whose every cell lay between states */
	/* The metric's own cells per kernel, split in two (Otsu); used when both are. */
	int by_states;
	int from_modes;		/* the states are stats_modes()' (d->modes) */
	struct stats_states own[2];
	double state_ratio;	/* fast over slow, pooled over the kernels: the same move for both */
	double slow_share_p;	/* do the kernels' runs differ in their slow-state shares? */
	/* The kernels' shift of the reference (patched over baseline), 95 % interval. */
	double ref_shift, ref_shift_lo, ref_shift_hi;
	double bias_bound;	/* slope x the larger end of that interval, log scale */
	double bias_limit;	/* ADJUST_BIAS_FRACTION x the metric's own half-width, log scale */
	int refused;		/* a slope was found, but not used: the bound was too wide */
	double fitted_slope;	/* the slope found, used or not */
	struct modes_finding modes;	/* emulator states in both kernels' cells (report_modes.c) */
	int icount;		/* the guest's clock counted instructions: a run's mean of cells */
	int repeats;		/* the cells repeat one measurement: RUN_SKIP_FIRST */
};

/*
 * A run's value under icount: the mean of its cells. With @repeats (cells
 * that repeat one measurement: aging's generations) the first
 * RUN_SKIP_FIRST cells of the run's series are left out, by their
 * position alone, whatever their values. Never by a cell's value against
 * the rest of the run: a rule such as "within x1.5 of the run's median"
 * drops exactly what a kernel changes when it slows some generations
 * (10 % of them x2, a true +10 %, read +0.0 %; 30 % x2 read +0.1 %; 60 %
 * x2, a true +60 %, read +98 %; now +9.4 %, +29.8 % and +60.1 %:
 * bench/run-value-sim). Position is the same for both kernels, so the
 * mean of the rest stays consistent for any effect that does not depend
 * on a generation's place in the run.
 *
 * Why one: the workload already ages `warmup` generations (3 by default)
 * untimed, because the first ones run cold (1.1-6 times the steady cost
 * in tiny-icount). What it still shows after that is its first timed
 * generation: in the demo of 2026-12-01 (12 runs of 20) the first ran
 * 1.3-2.2 % over its run's median in every run, each later position's
 * median within 0.8 % of it, with isolated slow generations at any
 * position (x1.04-1.11, and one at x5.5, the 6th). A generation that runs
 * cold, if any, is the first; dropping more would not help and costs
 * cells. Simulated (bench/run-value-sim: 10 runs of 20 per kernel, x5 on
 * the first generation of one run in five), dropping none leaves the
 * run-to-run CV at 7.4 % against 0.8 % for one or three, and three
 * instead of one adds 0.3 points where a kernel slows generations. A run
 * of one generation keeps it.
 *
 * The price, said plainly: a generation interrupted later in the run is
 * kept and moves its run's mean (x5 in one of 19: +21 %). In that demo
 * the one at x5.5 took the baseline's run-to-run CV from 1.2 % (the rule
 * before) to 9.2 %, and the comparison, of medians and ranks across
 * runs, from +0.58 % (~) to +0.28 % (?, interval [-18.2 %, +2.8 %] at
 * 6 runs per kernel): unbiased, but wider. Such a run is flagged as an
 * outlier among the runs, as for every metric (never dropped), and the
 * plain median (median_ms_per_gen) beside it is not moved.
 *
 * Never for cells that share one measurement out: the two-CPU ping-pong's
 * per-CPU rates under one emulator thread add up to a constant, one CPU's
 * high where the other's is low, and only the mean of all of them holds
 * still.
 */
#define RUN_SKIP_FIRST 1

static double mean_of(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

static int kernel_of(const struct run_record *run, const char *const kname[2])
{
	for (int i = 0; i < 2; i++)
		if (kname[i] && !strcmp(run->kernel, kname[i]))
			return i;
	return -1;
}

static int counted(const struct run_record *run, const char *workload)
{
	return !run->warmup && run->ok && !strcmp(run->workload, workload);
}

/* Growing arrays of doubles. */
struct dvec {
	double *v;
	size_t n, alloc;
};

static void dpush(struct dvec *d, double x)
{
	if (d->n == d->alloc)
		d->v = xrealloc(d->v, (d->alloc = d->alloc ? 2 * d->alloc : 64) * sizeof(*d->v));
	d->v[d->n++] = x;
}

/*
 * The session's pairs (log reference, log rate) per kernel, and each run's
 * median reference per kernel. A cell counts when both are positive finite
 * numbers and the two series have one length.
 */
static void gather(struct derivation *d, const struct run_records *runs,
		   const char *const kname[2], struct dvec x[2], struct dvec y[2],
		   struct dvec run_ref[2], struct dvec run_val[2])
{
	for (size_t i = 0; i < runs->n; i++) {
		const struct run_record *run = &runs->v[i];
		int k = kernel_of(run, kname);
		double *c, *r;
		size_t nc, nr;
		struct dvec mine = { 0 }, vals = { 0 };

		if (!counted(run, d->workload) || k < 0)
			continue;
		nc = series_values(run, d->cells, &c);
		nr = series_values(run, d->ref, &r);
		for (size_t j = 0; j < nc && nc == nr; j++) {
			if (!usable(c[j]) || !usable(r[j]))
				continue;
			dpush(&x[k], log(r[j]));
			dpush(&y[k], log(c[j]));
			dpush(&mine, r[j]);
			dpush(&vals, c[j]);
		}
		if (mine.n) {
			dpush(&run_ref[k], stats_median(mine.v, mine.n));
			dpush(&run_val[k], stats_median(vals.v, vals.n));
		}
		free(mine.v);
		free(vals.v);
		free(c);
		free(r);
	}
}

/*
 * The slope of log rate on log reference, pooled within kernels (the
 * analysis of covariance: each kernel's own mean is taken out first, so a
 * kernel's effect cannot leak into the slope), from the cells whose
 * reference lies within a factor REF_RANGE of the session's median: a vCPU
 * stalled for a whole reference loop (seen at 1/15 of the usual rate) must
 * not set it. A fixed factor, not a robust deviation: with two host states
 * the median deviation is that of one state, and would cut the other.
 */
static void estimate(struct derivation *d, struct dvec x[2], struct dvec y[2])
{
	struct dvec all = { 0 };
	double sxy = 0, sxx = 0, syy = 0, t;
	size_t df = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < x[k].n; i++)
			dpush(&all, x[k].v[i]);
	d->slope = 0;
	d->r = NAN;
	if (all.n < 2) {
		d->how = all.n ? "too few reference rates: the cells as measured"
			       : "no reference rates: the cells as measured";
		free(all.v);
		return;
	}
	d->ref0 = stats_median(all.v, all.n);
	d->lo = d->ref0 - log(REF_RANGE);
	d->hi = d->ref0 + log(REF_RANGE);
	for (int k = 0; k < 2; k++) {
		double mx = 0, my = 0;
		size_t n = 0;

		for (size_t i = 0; i < x[k].n; i++) {
			if (x[k].v[i] < d->lo || x[k].v[i] > d->hi)
				continue;
			mx += x[k].v[i];
			my += y[k].v[i];
			n++;
		}
		if (n < 3)
			continue;
		df += n - 1;
		mx /= (double)n;
		my /= (double)n;
		for (size_t i = 0; i < x[k].n; i++) {
			if (x[k].v[i] < d->lo || x[k].v[i] > d->hi)
				continue;
			sxy += (x[k].v[i] - mx) * (y[k].v[i] - my);
			sxx += (x[k].v[i] - mx) * (x[k].v[i] - mx);
			syy += (y[k].v[i] - my) * (y[k].v[i] - my);
		}
	}
	if (!(sxx > 0 && syy > 0)) {
		d->how = "the reference rates do not vary: the cells as measured";
		free(all.v);
		return;
	}
	d->r = sxy / sqrt(sxx * syy);
	/* The slope's t statistic, on the within-kernel degrees of freedom less one. */
	t = df > 2 && fabs(d->r) < 1 ? d->r * sqrt((double)(df - 1) / (1 - d->r * d->r))
				       : (df > 2 ? copysign(INFINITY, d->r) : 0);
	if (!d->better_higher)
		t = -t;
	/*
	 * Adjust only along a relation the data show: a rate that rises with
	 * the host's speed (a time that falls), at t >= SLOPE_MIN_T with
	 * SLOPE_MIN_DF degrees of freedom. On a busy host the reference can
	 * swing with no echo in the metric (other tenants' cache misses); a
	 * slope fitted to that would only add noise.
	 */
	if (df < SLOPE_MIN_DF || t < SLOPE_MIN_T) {
		d->how = "no clear relation between the reference and the metric: the cells as "
			 "measured";
		free(all.v);
		return;
	}
	/* Neither moves by more than the cube of the host's pace. */
	d->slope = d->better_higher ? fmin(sxy / sxx, 3) : fmax(sxy / sxx, -3);
	d->how = "each cell adjusted to the session's median reference rate";
	free(all.v);
}

/* A cell in its kernel's slow state: below the split for a rate, above it for a time. */
static int is_slow(const struct derivation *d, int k, double c)
{
	return d->better_higher ? c <= d->own[k].threshold : c > d->own[k].threshold;
}

/* A slow-state cell moved to the fast state by the pooled ratio of the two. */
static double to_fast_state(const struct derivation *d, double c)
{
	return d->better_higher ? c * d->state_ratio : c / d->state_ratio;
}

/*
 * The kernels' ratios of their states, pooled on the log scale, each
 * weighted by n_low n_high / (n_low + n_high) (the inverse of its variance
 * up to a constant): under no effect the two kernels' runs then go through
 * one and the same function, as with the reference slope, and a kernel
 * with few slow cells does not set the ratio alone.
 */
static double pooled_state_ratio(const struct derivation *d)
{
	double num = 0, den = 0;

	for (int k = 0; k < 2; k++) {
		double nl = (double)d->own[k].n_low, nh = (double)d->own[k].n_high, w;

		if (!d->own[k].separated || !(nl + nh > 0))
			continue;
		w = nl * nh / (nl + nh);
		num += w * log(d->own[k].ratio);
		den += w;
	}
	return den > 0 ? exp(num / den) : 1;
}

/*
 * The emulator states found in both kernels' cells pooled (stats_modes():
 * by their gap, where eta missed wis_cs1's at 0.788), as each kernel's
 * split, when every kernel with cells has cells in both: the slow cells
 * are then moved to the fast state as with a split of the kernel's own,
 * and the runs compare within a state whatever their mix. 1 when used.
 */
static int states_from_modes(struct derivation *d)
{
	const struct modes_finding *f = &d->modes;
	int kernels = 0;

	/* Not decidable: the values stay as measured, the verdict says why. */
	if (!f->modes.separated || f->undecidable || f->follows_kernel ||
	    !(f->cells[0] + f->cells[1]))
		return 0;
	for (int k = 0; k < 2; k++) {
		size_t high = d->better_higher ? f->fast_cells[k] : f->cells[k] - f->fast_cells[k];

		if (!f->cells[k])
			continue;
		kernels++;
		/*
		 * The kernel's own ratio of its states, as a split of its own
		 * cells has. A kernel (nearly) all in one state takes the
		 * other's, with no weight in the pooled ratio: the other's
		 * cells then move to the state they share by its own ratio,
		 * and the two compare within that state (issue 49).
		 */
		d->own[k] = (struct stats_states){ f->modes.threshold, d->own[k].eta,
						   k == f->single ? f->kratio[!k] : f->kratio[k],
						   f->modes.low, f->modes.high, f->cells[k] - high,
						   high, 1 };
	}
	d->from_modes = kernels > 0;
	return kernels > 0;
}

/*
 * Under the emulator states found by stats_modes(): is cell @c one the
 * run's value takes? Not when it lies between the states' cores: it
 * averages both, in a proportion of its own.
 */
static int in_compared_state(const struct derivation *d, double c)
{
	return modes_cell_state(&d->modes, c) >= 0;
}

/* Every run's usable cells of the metric, for modes_analyse(). */
static void find_modes(struct derivation *d, const struct run_records *runs,
		       const char *const kname[2])
{
	struct mode_run *mr = xcalloc(runs->n + 1, sizeof(*mr));
	size_t n = 0;

	for (size_t i = 0; i < runs->n; i++) {
		int k = kernel_of(&runs->v[i], kname);
		double *c, *u;
		size_t nc, m = 0;

		if (!counted(&runs->v[i], d->workload) || k < 0)
			continue;
		nc = series_values(&runs->v[i], d->cells, &c);
		u = xcalloc(nc + 1, sizeof(double));
		for (size_t j = 0; j < nc; j++)
			if (usable(c[j]))
				u[m++] = c[j];
		free(c);
		mr[n++] = (struct mode_run){ k, u, m };
	}
	modes_analyse(mr, n, d->better_higher, &d->modes);
	for (size_t i = 0; i < n; i++)
		free((double *)mr[i].c);
	free(mr);
}

/*
 * Does the metric itself show two host states, in every kernel that has
 * cells? Each kernel is split on its own, so a kernel's effect (a few per
 * cent, against the states' x1.5-1.8) never decides which cells are slow.
 * Then each run's share of slow cells, compared between the kernels: a
 * kernel that spends more time "slow" may be slow itself.
 */
static void split_states(struct derivation *d, const struct run_records *runs,
			 const char *const kname[2])
{
	struct dvec cells[2] = { { 0 } }, share[2] = { { 0 } };
	const struct run_record *run;
	size_t i;
	int kernels = 0, split = 0;
	double u;
	enum stats_mw_method how;

	d->slow_share_p = NAN;
	for (i = 0; i < runs->n; i++) {
		int k = kernel_of(run = &runs->v[i], kname);
		double *c;
		size_t nc;

		if (!counted(run, d->workload) || k < 0)
			continue;
		nc = series_values(run, d->cells, &c);
		for (size_t j = 0; j < nc; j++)
			if (usable(c[j]))
				dpush(&cells[k], c[j]);
		free(c);
	}
	for (int k = 0; k < 2; k++) {
		if (!cells[k].n)
			continue;
		kernels++;
		stats_two_states(cells[k].v, cells[k].n, &d->own[k]);
		split += d->own[k].separated;
	}
	/*
	 * States with cells between their cores are stats_modes()': a
	 * kernel's own split would class the cells between and move them
	 * by the states' ratio, which reads the mix of states again. A
	 * split of each kernel's own is kept when stats_modes()' groups
	 * follow the kernel (test slow_kernel_warned: the reference loop
	 * slows with the cells, so the states are the host's; the shares
	 * are warned).
	 */
	d->by_states = !d->modes.modes.core && kernels && split == kernels;
	if (!d->by_states)
		d->by_states = states_from_modes(d);
	if (!d->by_states)
		goto out;
	d->state_ratio = pooled_state_ratio(d);
	for (i = 0; i < runs->n; i++) {
		int k = kernel_of(run = &runs->v[i], kname);
		double *c;
		size_t nc, slow = 0, n = 0;

		if (!counted(run, d->workload) || k < 0)
			continue;
		nc = series_values(run, d->cells, &c);
		for (size_t j = 0; j < nc; j++)
			if (usable(c[j])) {
				n++;
				slow += is_slow(d, k, c[j]);
			}
		if (n)
			dpush(&share[k], (double)slow / (double)n);
		free(c);
	}
	if (share[0].n && share[1].n)
		stats_mann_whitney(share[0].v, share[0].n, share[1].v, share[1].n, 10000, &u,
				   &d->slow_share_p, &how);
	d->slope = 0;
	d->how = "two host states in the metric's own cells: each slow-state cell moved to the "
		 "fast state by the kernels' pooled ratio of the two";
out:
	for (int k = 0; k < 2; k++) {
		free(cells[k].v);
		free(share[k].v);
	}
}

/*
 * The run's derived value into @out (nothing when it has no usable cell
 * after the first RUN_SKIP_FIRST, where those are left out).
 */
static void derive_run(struct derivation *d, const struct run_record *run, int k, json_t *out)
{
	double *c, *r, *v;
	size_t nc = series_values(run, d->cells, &c), nr = series_values(run, d->ref, &r), n = 0;
	/*
	 * By position in the series, before unusable cells are dropped: a
	 * garbled first generation must not make the second one "first".
	 */
	size_t skip = d->icount && d->repeats && nc > RUN_SKIP_FIRST ? RUN_SKIP_FIRST : 0;
	size_t lead = 0;	/* of v's cells, how many come from the first @skip positions */
	size_t usable_cells = 0, between = 0;

	v = xcalloc(nc ? nc : 1, sizeof(*v));
	for (size_t j = 0; j < nc; j++) {
		double lx;

		if (j == skip)
			lead = n;
		if (!usable(c[j]))
			continue;
		usable_cells++;
		if (d->by_states) {
			if (d->from_modes && !in_compared_state(d, c[j])) {
				between++;
				continue;
			}
			d->cells_used[k]++;
			v[n++] = is_slow(d, k, c[j]) ? to_fast_state(d, c[j]) : c[j];
			continue;
		}
		if (!nr) {	/* no reference loop in this run (ref_ms = 0) */
			v[n++] = c[j];
			continue;
		}
		if (nr != nc || !usable(r[j])) {
			d->unknown[k]++;
			continue;
		}
		lx = log(r[j]);
		if (d->slope != 0 && (lx < d->lo || lx > d->hi)) {
			/*
			 * Not the host's state: used as measured. Left out, a
			 * run whose loop ran on a covering TLB throughout kept
			 * only its first, cold generation (x7), which the slope
			 * then moved further: 0.44 ms became 8.2 ms.
			 */
			d->off_range[k]++;
			v[n++] = c[j];
			continue;
		}
		d->cells_used[k]++;
		v[n++] = d->slope != 0 ? exp(log(c[j]) + d->slope * (d->ref0 - lx)) : c[j];
	}
	if (n > lead)
		/*
		 * The median of the cells keeps a window that the host stalled
		 * from moving the run. Under icount no host stall reaches guest
		 * time, and the one-CPU ping-pong's windows sit at one of two
		 * values 4 % apart: the median of five flips between them (CV
		 * 1.5-1.9 % over 10 boots) where the mean averages (0.9-1.3 %).
		 * Without icount @lead is 0.
		 */
		json_object_set_new_nocheck(out, d->metric,
					    json_real(d->icount ? mean_of(v + lead, n - lead) :
						   stats_median(v, n)));
	else if (nc)
		d->runs_without[k]++;
	/*
	 * Every cell averaged both states (the guest flipped state inside
	 * each second: the demo's wis_cs1 has 3 cells a run and about 57 %
	 * of its cells between the states, so about a run in six): the run
	 * has no value in a state. It is left out as its cells are, not
	 * counted as a failed run; counted so, a busy hour's 15 of 40 made
	 * the demo's primary "invalid: too many failed runs" (2026-12-07).
	 */
	if (n <= lead && nc && between && between == usable_cells)
		d->runs_between[k]++;
	free(c);
	free(r);
	free(v);
}

/*
 * May the slope be used? Only if the kernels cannot have moved the
 * reference loop by enough to matter. The adjustment takes each cell to
 * one reference rate for both kernels, so a kernel that changes the loop
 * itself (how user memory is mapped, the tick, TLB handling) by a factor
 * s has slope x log s of its real effect taken away: simulated
 * (bench/hostadj-sim: 10 runs per kernel of 20 cells, slope 1.2, host
 * noise about 8 %), a true +5 % with the reference +3 % read +1.4 % and
 * its interval held the truth in no session; with the reference +1 %, 9 %
 * of the intervals did. The data cannot tell such a shift from the host's
 * share of the kernels' difference (that is what the adjustment removes),
 * so the test cannot be sharper than the reference's run-to-run noise:
 * the Hodges-Lehmann interval of the shift between the kernels' per-run
 * median references. The slope is used when that interval holds no
 * shift (else the kernel does move the loop) and the slope times its
 * farther end stays within ADJUST_BIAS_FRACTION of the half-width of the
 * metric's own interval (bias_limit); otherwise the cells are used as
 * measured (the plain median), and the report says why and warns.
 *
 * The price, said plainly: on a host whose pace moves between runs the
 * interval is as wide as that movement, and the adjustment is refused
 * exactly where it would help most. The way out is a reference that the
 * kernel cannot move, measured beside the first (a second loop without
 * memory), to test the first against; the workloads do not have one yet.
 * A one-kernel session has nothing to compare and keeps the slope.
 */
static void bound_reference_shift(struct derivation *d, struct dvec run_ref[2],
				  struct dvec run_val[2])
{
	struct stats_settings s;
	struct stats_comparison c, own;
	int moved;

	d->ref_shift = d->ref_shift_lo = d->ref_shift_hi = d->bias_bound = d->bias_limit = NAN;
	d->fitted_slope = d->slope;
	if (!run_ref[0].n || !run_ref[1].n)
		return;
	stats_settings_default(&s);
	s.resamples = 0;	/* the Hodges-Lehmann interval needs no bootstrap */
	/*
	 * An interval that does not reach its level (too few runs: one per
	 * kernel gives lo = hi) bounds nothing.
	 */
	if (stats_compare(run_ref[0].v, run_ref[0].n, run_ref[1].v, run_ref[1].n, &s, 0, &c) == 0 &&
	    usable(c.hl_ratio) && usable(c.hl_ratio_lo) && usable(c.hl_ratio_hi) &&
	    c.hl_level >= s.confidence - 1e-9) {
		d->ref_shift = c.hl_ratio;
		d->ref_shift_lo = c.hl_ratio_lo;
		d->ref_shift_hi = c.hl_ratio_hi;
		d->bias_bound = fabs(d->slope) * fmax(fabs(log(c.hl_ratio_lo)),
						     fabs(log(c.hl_ratio_hi)));
	}
	/*
	 * The bound is relative to what the metric itself can resolve: a
	 * bias that is small against the metric's own interval costs little
	 * coverage, whatever its size in points.
	 */
	if (stats_compare(run_val[0].v, run_val[0].n, run_val[1].v, run_val[1].n, &s, 0, &own) == 0 &&
	    usable(own.hl_ratio_lo) && usable(own.hl_ratio_hi) && own.hl_level >= s.confidence - 1e-9)
		d->bias_limit = ADJUST_BIAS_FRACTION * (log(own.hl_ratio_hi) - log(own.hl_ratio_lo)) / 2;
	/* A shift whose interval excludes none: the kernel moves the reference itself. */
	moved = isfinite(d->ref_shift) && (d->ref_shift_lo > 1 || d->ref_shift_hi < 1);
	if (d->slope == 0 || d->by_states || (!moved && d->bias_bound <= d->bias_limit))
		return;
	d->refused = 1;
	d->slope = 0;
	d->how = moved ? "not adjusted: the kernels run the reference loop at different speeds "
			 "(the interval of reference_shift excludes no shift), so the adjustment "
			 "would take part of a real effect: the cells as measured" :
		 "not adjusted: the kernels may run the reference loop at different speeds, by "
		 "more than the adjustment could take without hiding part of a real effect "
		 "(bias_bound_pct over bias_limit_pct): the cells as measured";
}

/* Everything derive_run() needs, from the whole session. */
static void prepare(struct derivation *d, const struct run_records *runs,
		    const char *const kname[2])
{
	struct dvec x[2] = { { 0 } }, y[2] = { { 0 } }, run_ref[2] = { { 0 } }, run_val[2] = { { 0 } };
	struct dvec refs = { 0 };
	double u;
	enum stats_mw_method how;

	gather(d, runs, kname, x, y, run_ref, run_val);
	estimate(d, x, y);
	find_modes(d, runs, kname);
	split_states(d, runs, kname);
	bound_reference_shift(d, run_ref, run_val);
	for (int k = 0; k < 2; k++) {
		for (size_t i = 0; i < x[k].n; i++)
			dpush(&refs, exp(x[k].v[i]));
		d->ref_median[k] = run_ref[k].n ? stats_median(run_ref[k].v, run_ref[k].n) : NAN;
	}
	/* Described for the reader: does the host show two states, or one? */
	stats_two_states(refs.v, refs.n, &d->st);
	d->ref_p = NAN;
	if (run_ref[0].n && run_ref[1].n)
		stats_mann_whitney(run_ref[0].v, run_ref[0].n, run_ref[1].v, run_ref[1].n, 10000,
				   &u, &d->ref_p, &how);
	for (int k = 0; k < 2; k++) {
		free(x[k].v);
		free(y[k].v);
		free(run_ref[k].v);
		free(run_val[k].v);
	}
	free(refs.v);
}

static json_t *counts_json(const size_t v[2], const char *const kname[2])
{
	json_t *o = json_object();

	for (int k = 0; k < 2; k++)
		if (kname[k])
			json_object_set_new(o, kname[k], json_integer((json_int_t)v[k]));
	return o;
}

static json_t *per_kernel(const double v[2], const char *const kname[2])
{
	json_t *o = json_object();

	for (int k = 0; k < 2; k++)
		if (kname[k])
			json_object_set_new(o, kname[k], jnum(v[k]));
	return o;
}

/* Each kernel's split of the metric's own cells. */
static json_t *own_states_json(const struct derivation *d, const char *const kname[2])
{
	json_t *o = json_object();

	for (int k = 0; k < 2; k++)
		if (kname[k] && d->own[k].n_low + d->own[k].n_high)
			json_object_set_new(o, kname[k], xjson_pack(
				"{s:o, s:o, s:o, s:I, s:I, s:b}", "threshold", jnum(d->own[k].threshold),
				"ratio", jnum(d->own[k].ratio), "eta", jnum(d->own[k].eta),
				"slow_cells", (json_int_t)(d->better_higher ? d->own[k].n_low
									    : d->own[k].n_high),
				"cells", (json_int_t)(d->own[k].n_low + d->own[k].n_high),
				"separated", d->own[k].separated));
	return o;
}

static json_t *info_json(const struct derivation *d, const char *const kname[2])
{
	json_t *o = xjson_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o,"
			  " s:b, s:o, s:o, s:o}",
			  "workload", d->workload, "metric", d->metric, "cells", d->cells,
			  "reference", d->ref, "method", d->how, "slope", jnum(d->slope),
			  "correlation", jnum(d->r), "reference_rate", jnum(d->slope != 0 ? exp(d->ref0) : NAN),
			  "reference_median", per_kernel(d->ref_median, kname),
			  "reference_p", jnum(d->ref_p),
			  "threshold", jnum(d->st.threshold), "eta", jnum(d->st.eta),
			  "state_ratio", jnum(d->st.ratio), "separated", d->st.separated,
			  "cells_used", counts_json(d->cells_used, kname),
			  "unknown_cells", counts_json(d->unknown, kname),
			  "runs_without_value", counts_json(d->runs_without, kname));

	json_object_set_new(o, "off_range_cells", counts_json(d->off_range, kname));
	json_object_set_new(o, "by_states", json_boolean(d->by_states));
	json_object_set_new(o, "run_value", !d->icount ? json_string("median") :
			    d->repeats ? json_sprintf("mean without the first %d cell(s)", RUN_SKIP_FIRST) :
			    json_string("mean"));
	json_object_set_new(o, "own_states", own_states_json(d, kname));
	json_object_set_new(o, "modes", modes_json(&d->modes, kname));
	json_object_set_new(o, "slow_share_p", jnum(d->slow_share_p));
	json_object_set_new(o, "reference_shift", !isfinite(d->ref_shift) ? json_null() :
			    xjson_pack("{s:o, s:o, s:o}", "ratio", jnum(d->ref_shift),
				       "lo", jnum(d->ref_shift_lo), "hi", jnum(d->ref_shift_hi)));
	json_object_set_new(o, "bias_bound_pct", jnum(d->bias_bound * 100));
	json_object_set_new(o, "bias_limit_pct", jnum(d->bias_limit * 100));
	json_object_set_new(o, "adjustment_refused", json_boolean(d->refused));
	json_object_set_new(o, "fitted_slope", jnum(d->fitted_slope));
	json_object_set_new(o, "pooled_state_ratio", jnum(d->by_states ? d->state_ratio : NAN));
	return o;
}

/* A number as info_json() writes it and a reader gets it back: NaN for null. */
static double as_written(double v)
{
	return isfinite(v) ? v : NAN;
}

static void add_note(struct hoststate_notes *notes, const struct derivation *d,
		     const char *const kname[2])
{
	struct hoststate_note *o;
	int shift = isfinite(d->ref_shift);

	ALLOC_GROW(notes->v, notes->n + 1, notes->alloc);
	o = &notes->v[notes->n++];
	*o = (struct hoststate_note){
		.workload = d->workload, .metric = xstrdup(d->metric),
		.slope = as_written(d->slope), .reference_p = as_written(d->ref_p),
		.slow_share_p = as_written(d->slow_share_p),
		.bias_bound_pct = as_written(d->bias_bound * 100),
		.bias_limit_pct = as_written(d->bias_limit * 100),
		.shift_ratio = shift ? as_written(d->ref_shift) : NAN,
		.shift_lo = shift ? as_written(d->ref_shift_lo) : NAN,
		.shift_hi = shift ? as_written(d->ref_shift_hi) : NAN,
		.refused = d->refused, .by_states = d->by_states,
		.undecidable = d->modes.undecidable,
		.runs_between = { d->runs_between[0], d->runs_between[1] },
	};
	if (d->modes.modes.separated) {
		struct strbuf sb = STRBUF_INIT;

		modes_line(&d->modes, d->workload, d->metric, kname, &sb);
		o->modes_line = sb_detach(&sb);
	}
}

void hoststate_notes_release(struct hoststate_notes *notes)
{
	for (size_t i = 0; i < notes->n; i++) {
		free(notes->v[i].metric);
		free(notes->v[i].modes_line);
	}
	free(notes->v);
	memset(notes, 0, sizeof(*notes));
}

/* Every (workload, K) instance of @h that the session's runs have cells for. */
static void derive_one(const struct session_input *session, const struct run_records *runs,
		       const char *workload, const struct workload_def *def,
		       const struct hoststate_metric *h, const char *const kname[2],
		       json_t *per_run, json_t *info, struct hoststate_notes *notes)
{
	json_t *done = json_object();
	size_t i;

	for (i = 0; i < runs->n; i++) {
		const struct run_record *run = &runs->v[i];
		const char *sname;
		const json_t *sv;

		if (!counted(run, workload))
			continue;
		json_object_foreach(json_object_get(run->json, "series"), sname, sv) {
			long kk = instance_number(h->cells, sname);
			const struct metric_def *md = workload_metric(def, h->metric);
			struct derivation d = {
				.workload = workload,
				.icount = session->has_icount_shift,
				.repeats = h->repeats,
				.better_higher = !md || md->better == BETTER_HIGHER,
			};
			size_t j;

			if (kk < 0 || json_object_get(done, sname))
				continue;
			/* A crafted report must not make the analysis quadratic. */
			if (json_object_size(done) >= HOSTSTATE_MAX_INSTANCES)
				break;
			json_object_set_new(done, sname, json_true());
			d.metric = instance(h->metric, kk);
			d.cells = instance(h->cells, kk);
			d.ref = instance(h->ref, kk);
			prepare(&d, runs, kname);
			for (j = 0; j < runs->n; j++) {
				const struct run_record *r2 = &runs->v[j];
				int k = kernel_of(r2, kname);

				if (counted(r2, workload) && k >= 0)
					derive_run(&d, r2, k, json_array_get(per_run, j));
			}
			json_array_append_new(info, info_json(&d, kname));
			if (notes)
				add_note(notes, &d, kname);
			free(d.metric);
			free(d.cells);
			free(d.ref);
		}
	}
	json_decref(done);
}

json_t *report_hoststate(const json_t *session, const struct run_records *runs,
			 const char *const kname[2], json_t **info)
{
	struct session_input in;
	json_t *per_run;

	session_input_decode(session, &in);
	per_run = report_hoststate_of(&in, runs, kname, info, NULL);
	session_input_release(&in);
	return per_run;
}

json_t *report_hoststate_of(const struct session_input *session, const struct run_records *runs,
			    const char *const kname[2], json_t **info,
			    struct hoststate_notes *notes)
{
	json_t *per_run = json_array();

	*info = json_array();
	for (size_t i = 0; i < runs->n; i++)
		json_array_append_new(per_run, json_object());
	for (size_t i = 0; i < session->nworkloads; i++) {
		const struct input_workload *w = &session->workloads[i];
		const struct workload_def *def = workload_find(w->type);

		if (!def || !def->hoststate)
			continue;
		for (const struct hoststate_metric *h = def->hoststate; h->metric; h++)
			derive_one(session, runs, w->name, def, h, kname, per_run, *info, notes);
	}
	return per_run;
}
