// SPDX-License-Identifier: GPL-2.0
/*
 * Emulator states, compared within each (issue 49). Under icount the
 * demo's wis_cs1 cells sat at 35.8k or 54.7k ops/s; within each state the
 * kernels differed by -0.056 % and -0.03 %, yet the runs' values read
 * +5.9 % [-13.1 %, +29.0 %] because 32 % of the patched kernel's cells
 * were fast against 20 % of the baseline's, and which state a run lands in
 * follows the other slot, not the kernel. So the kernels are compared
 * within each state (each run's median of its cells in that state, the
 * unit of replication kept), the states pooled as strata (inverse
 * variance, stats_pool_ratios()), and the states' shares are tested on
 * their own (Fisher's exact test on the cells: cells of one run share its
 * state, so this p is optimistic; a shift of shares is a finding about
 * the guest's placement, to balance the partners against, not a verdict).
 */
#include "report_modes.h"
#include "stats.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int modes_cell_state(const struct modes_finding *f, double c)
{
	int high = stats_modes_state(&f->modes, c);

	return high < 0 ? -1 : f->fast_high ? high : !high;
}

/* Each run's median of its cells in the fast (@fast) state, per kernel. */
static void state_values(const struct modes_finding *f, const struct mode_run *runs, size_t n,
			 int fast, double *v[2], size_t nv[2])
{
	for (size_t i = 0; i < n; i++) {
		double *mine = xcalloc(runs[i].n + 1, sizeof(double));
		size_t m = 0;

		for (size_t j = 0; j < runs[i].n; j++)
			if (modes_cell_state(f, runs[i].c[j]) == fast)
				mine[m++] = runs[i].c[j];
		if (m)
			v[runs[i].k][nv[runs[i].k]++] = stats_median(mine, m);
		free(mine);
	}
}

static void compare_within(const struct modes_finding *f, const struct mode_run *runs, size_t n,
			   int fast, struct mode_within *w)
{
	double *v[2] = { xcalloc(n + 1, sizeof(double)), xcalloc(n + 1, sizeof(double)) };
	size_t nv[2] = { 0, 0 };
	struct stats_settings s;
	struct stats_comparison c;

	w->ratio = w->lo = w->hi = w->p = NAN;
	state_values(f, runs, n, fast, v, nv);
	w->runs[0] = nv[0];
	w->runs[1] = nv[1];
	stats_settings_default(&s);
	if (nv[0] >= 2 && nv[1] >= 2 && !stats_compare(v[0], nv[0], v[1], nv[1], &s, fast, &c) &&
	    c.ratio_valid) {
		w->ratio = c.ratio;
		w->lo = c.ratio_lo;
		w->hi = c.ratio_hi;
		w->p = c.mw_p;
	}
	free(v[0]);
	free(v[1]);
}

static void pool_states(struct modes_finding *f)
{
	double r[2], lo[2], hi[2];
	size_t k = 0;
	struct stats_pooled pool;

	f->pooled = f->pooled_lo = f->pooled_hi = NAN;
	for (int s = 0; s < 2; s++)
		/* within[0] is the fast state, f->only 1 the fast state */
		if ((f->only < 0 || s == !f->only) && isfinite(f->within[s].ratio) &&
		    f->within[s].lo > 0) {
			r[k] = f->within[s].ratio;
			lo[k] = f->within[s].lo;
			hi[k++] = f->within[s].hi;
		}
	if (k && !stats_pool_ratios(r, lo, hi, k, 0.95, &pool, NULL) && pool.k) {
		f->pooled = pool.ratio;
		f->pooled_lo = pool.lo;
		f->pooled_hi = pool.hi;
	}
}

/*
 * Each kernel's ratio of its states, from its own cells only: pooled over
 * both kernels, the fast state's median came mostly from the kernel with
 * more fast cells, and its effect leaked into the ratio that moves the
 * other's slow cells (-0.036 % read for a true -0.1 %).
 */
static void kernel_ratios(struct modes_finding *f, const struct mode_run *runs, size_t n)
{
	for (int k = 0; k < 2; k++) {
		double *hi = xcalloc(f->cells[k] + 1, sizeof(double));
		double *lo = xcalloc(f->cells[k] + 1, sizeof(double));
		size_t nh = 0, nl = 0;

		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; runs[i].k == k && j < runs[i].n; j++) {
				int st = stats_modes_state(&f->modes, runs[i].c[j]);

				if (st > 0)
					hi[nh++] = runs[i].c[j];
				else if (!st)
					lo[nl++] = runs[i].c[j];
			}
		f->kratio[k] = nh && nl ? stats_median(hi, nh) / stats_median(lo, nl) : NAN;
		free(hi);
		free(lo);
	}
}

/*
 * Emulator states are the guest's, so at least one kernel must show both,
 * each in at least MODES_MIN_SHARE of its cells. Two groups of cells that
 * are one kernel each are that kernel's effect, however far apart: test
 * 66's 10 us delay (-72.7 %, every baseline cell above every patched one)
 * read "not decidable on this guest" before this check.
 */
#define MODES_MIN_SHARE 0.05

static int kernel_mixed(const struct modes_finding *f, int k)
{
	double all = (double)f->cells[k], fast = (double)f->fast_cells[k];

	return all > 0 && fast >= MODES_MIN_SHARE * all && all - fast >= MODES_MIN_SHARE * all;
}

static int mixed_in_a_kernel(const struct modes_finding *f)
{
	return kernel_mixed(f, 0) || kernel_mixed(f, 1);
}

/*
 * A kernel with (nearly) all its cells in one state, beside one that has
 * both: only that state compares them. Pooled over both states, the
 * other state's ratio came from one kernel alone and its mix of states
 * set the verdict (issue 49). -1: both kernels show both states.
 */
static int only_state(struct modes_finding *f)
{
	for (int k = 0; k < 2; k++)
		if (f->cells[k] && !kernel_mixed(f, k)) {
			f->single = k;
			return 2 * f->fast_cells[k] >= f->cells[k];
		}
	f->single = -1;
	return -1;
}

/*
 * A kernel whose runs all sit in one group of cells beside one whose runs
 * sit in the other (some or all) cannot tell the guest's states from a
 * kernel that is slower (or faster) in those runs: test 62's slow5, 5 % slower in
 * sched_yield(), read "within noise" once (CI of 2026-12-07) because the
 * ping-pong's two groups x1.05 apart were its own effect, the baseline all
 * in one and a fifth of slow5's cells in the baseline's (a noise tail), and
 * the kernels were compared within the baseline's group only. States that
 * are the guest's land in a run whatever its kernel (the runs interleave
 * in blocks), so the runs' states (each run's by most of its cells; cells
 * of a run share it) are tested kernel against kernel: under
 * MODES_KERNEL_P the groups follow the kernel and are read as its effect,
 * the cells as measured. Kernels whose runs both show both groups keep
 * the states, whatever their shares: the two slots of a session move each
 * other's states (issue 49's demo), and the shares are a warning of their
 * own. bench/modes-sim's cases give the rule's costs both ways.
 */
#define MODES_KERNEL_P 0.01

static void runs_by_state(struct modes_finding *f, const struct mode_run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t fast = 0, in = 0;

		for (size_t j = 0; j < runs[i].n; j++) {
			int st = modes_cell_state(f, runs[i].c[j]);

			in += st >= 0;
			fast += st > 0;
		}
		/* A run half in each state is in neither. */
		if (!in || 2 * fast == in)
			continue;
		f->runs[runs[i].k]++;
		f->fast_runs[runs[i].k] += 2 * fast > in;
	}
	f->run_share_p = stats_fisher_exact(f->fast_runs[0], f->runs[0] - f->fast_runs[0],
					    f->fast_runs[1], f->runs[1] - f->fast_runs[1]);
	f->run_single = -1;
	for (int k = 0; k < 2; k++)
		if (f->runs[k] && (!f->fast_runs[k] || f->fast_runs[k] == f->runs[k]) &&
		    f->run_single < 0) {
			f->run_single = k;
			f->run_only = f->fast_runs[k] > 0;
		}
	f->follows_kernel = f->run_single >= 0 && f->run_share_p < MODES_KERNEL_P;
}

void modes_analyse(const struct mode_run *runs, size_t n, int better_higher,
		   struct modes_finding *out)
{
	size_t total = 0, at = 0;
	double *all;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		total += runs[i].n;
	all = xcalloc(total + 1, sizeof(double));
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < runs[i].n; j++)
			all[at++] = runs[i].c[j];
	stats_modes(all, total, &out->modes);
	free(all);
	if (!out->modes.separated)
		return;
	out->fast_high = better_higher;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < runs[i].n; j++) {
			int st = modes_cell_state(out, runs[i].c[j]);

			/* Cells between the cores are in neither state's share. */
			if (st < 0) {
				out->between[runs[i].k]++;
				continue;
			}
			out->cells[runs[i].k]++;
			out->fast_cells[runs[i].k] += st;
		}
	if (!mixed_in_a_kernel(out)) {
		memset(out, 0, sizeof(*out));
		return;
	}
	out->only = only_state(out);
	runs_by_state(out, runs, n);
	kernel_ratios(out, runs, n);
	compare_within(out, runs, n, 1, &out->within[0]);
	compare_within(out, runs, n, 0, &out->within[1]);
	pool_states(out);
	out->share_p = stats_fisher_exact(out->fast_cells[0], out->cells[0] - out->fast_cells[0],
					  out->fast_cells[1], out->cells[1] - out->fast_cells[1]);
	/* The kernel's effect, not states: compared as measured, so decidable. */
	if (out->follows_kernel)
		return;
	/* No state both kernels ran in enough: the runs cannot be compared on this guest. */
	if (!isfinite(out->pooled) && out->only >= 0)
		out->undecidable = out->only ?
			"one kernel's cells sit (nearly) all in the fast emulator state, where the "
			"other kernel has fewer than 2 runs; across states the mix of states, not "
			"the kernel, sets the value" :
			"one kernel's cells sit (nearly) all in the slow emulator state, where the "
			"other kernel has fewer than 2 runs; across states the mix of states, not "
			"the kernel, sets the value";
	else if (!isfinite(out->pooled))
		out->undecidable = "the kernels' runs share no emulator state with at least 2 runs "
				   "of each, and across states the mix of states, not the kernel, "
				   "sets the value";
}

static json_t *within_json(const struct mode_within *w, const char *const kname[2])
{
	json_t *runs = json_object();

	for (int k = 0; k < 2; k++)
		if (kname[k])
			json_object_set_new(runs, kname[k], json_integer((json_int_t)w->runs[k]));
	return xjson_pack("{s:o, s:o, s:o, s:o, s:o}", "ratio", jnum(w->ratio), "lo", jnum(w->lo),
			  "hi", jnum(w->hi), "p", jnum(w->p), "runs", runs);
}

json_t *modes_json(const struct modes_finding *f, const char *const kname[2])
{
	json_t *share, *between, *o;

	if (!f->modes.separated)
		return json_null();
	share = json_object();
	between = json_object();
	for (int k = 0; k < 2; k++) {
		if (kname[k] && f->cells[k])
			json_object_set_new(share, kname[k],
					    jnum((double)f->fast_cells[k] / (double)f->cells[k]));
		if (kname[k])
			json_object_set_new(between, kname[k],
					    json_integer((json_int_t)f->between[k]));
	}
	o = xjson_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:o}",
		       "threshold", jnum(f->modes.threshold), "ratio", jnum(f->modes.ratio),
		       "separation", jnum(isfinite(f->modes.separation) ? f->modes.separation : 1e9),
		       "fast", within_json(&f->within[0], kname),
		       "slow", within_json(&f->within[1], kname),
		       "fast_share", share,
		       "within", "ratio", jnum(f->pooled), "lo", jnum(f->pooled_lo),
		       "hi", jnum(f->pooled_hi),
		       "share_p", jnum(f->share_p), "decidable", json_boolean(!f->undecidable),
		       "why", f->undecidable ? json_string(f->undecidable) : json_null());
	json_object_set_new(o, "cores", json_boolean(f->modes.core));
	json_object_set_new(o, "run_share_p", jnum(f->run_share_p));
	json_object_set_new(o, "follows_kernel", json_boolean(f->follows_kernel));
	json_object_set_new(o, "between", between);
	return o;
}

static void pct_ci(struct strbuf *sb, double r, double lo, double hi)
{
	if (!isfinite(r))
		sb_adds(sb, "not comparable");
	else
		sb_addf(sb, "%+.3f %% [%+.3f %%, %+.3f %%]", 100 * (r - 1), 100 * (lo - 1),
			100 * (hi - 1));
}

void modes_line(const struct modes_finding *f, const char *workload, const char *metric,
		const char *const kname[2], struct strbuf *sb)
{
	if (!f->modes.separated)
		return;
	sb_addf(sb, "%s %s: two emulator states x%.3g apart", workload, metric, f->modes.ratio);
	if (f->modes.core)
		/* Cells that averaged both states inside them: in neither state's comparison. */
		sb_addf(sb, " (%zu of %zu cells between them, left out)",
			f->between[0] + f->between[1],
			f->between[0] + f->between[1] + f->cells[0] + f->cells[1]);
	sb_adds(sb, "; ");
	if (f->follows_kernel) {
		int k = f->run_single;

		sb_addf(sb, "%s's runs sit all in the %s group, %s's in the other in %zu of %zu "
			"(Fisher p %.2g on the runs): the groups follow the kernel, not the guest, "
			"so they are its effect and the cells count as measured",
			kname[k] ? kname[k] : (k ? "patched" : "baseline"), f->run_only ? "fast" : "slow",
			kname[!k] ? kname[!k] : (k ? "baseline" : "patched"),
			f->run_only ? f->runs[!k] - f->fast_runs[!k] : f->fast_runs[!k], f->runs[!k],
			f->run_share_p);
		return;
	}
	if (f->undecidable) {
		sb_addf(sb, "not decidable on this guest: %s; runs of both kernels in one state "
			"would decide it (a guest under icount has one)", f->undecidable);
		return;
	}
	sb_addf(sb, "within the fast state %s changes it ", kname[1] ? kname[1] : "patched");
	pct_ci(sb, f->within[0].ratio, f->within[0].lo, f->within[0].hi);
	sb_adds(sb, ", within the slow ");
	pct_ci(sb, f->within[1].ratio, f->within[1].lo, f->within[1].hi);
	sb_adds(sb, ", pooled ");
	pct_ci(sb, f->pooled, f->pooled_lo, f->pooled_hi);
	sb_addf(sb, "; the fast state holds %.0f %% of %s's cells against %.0f %% of %s's "
		"(Fisher p %.2g): a shift of the guest's states, its own finding, not the "
		"kernel's effect; the change within a state decides it",
		f->cells[1] ? 100.0 * (double)f->fast_cells[1] / (double)f->cells[1] : NAN,
		kname[1] ? kname[1] : "patched",
		f->cells[0] ? 100.0 * (double)f->fast_cells[0] / (double)f->cells[0] : NAN,
		kname[0] ? kname[0] : "baseline", f->share_p);
}
