/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Emulator states in a metric's cells, compared within each state
 * (report_modes.c, issue 49): what a host_states[] entry says under
 * "modes", and the line the report's warnings give it.
 */
#ifndef LAB_REPORT_MODES_H
#define LAB_REPORT_MODES_H

#include <jansson.h>
#include <stddef.h>

#include "stats.h"
#include "strbuf.h"

/* One run's usable cells, of kernel @k (0 baseline, 1 patched). */
struct mode_run {
	int k;
	const double *c;
	size_t n;
};

/* The kernels compared within one state: the runs' medians of their cells in it. */
struct mode_within {
	double ratio, lo, hi, p;	/* patched / baseline, 95 % interval, Mann-Whitney */
	size_t runs[2];			/* runs of each kernel with cells in the state */
};

struct modes_finding {
	struct stats_modes modes;	/* both kernels' cells pooled */
	int fast_high;			/* the fast state is the high one (a rate) */
	struct mode_within within[2];	/* [0] the fast state, [1] the slow one */
	double pooled, pooled_lo, pooled_hi;	/* the states pooled (inverse variance) */
	size_t fast_cells[2], cells[2];	/* per kernel, cells in the fast state and in either */
	size_t between[2];		/* per kernel, cells between the states' cores */
	double kratio[2];		/* each kernel's median high over median low (NaN: one state) */
	int only;			/* 1 fast, 0 slow: a kernel sits (nearly) all in that state,
					   the only one compared; -1 both kernels show both */
	int single;			/* that kernel (-1: none) */
	double share_p;			/* Fisher: the fast state's share, kernel against kernel */
	size_t fast_runs[2], runs[2];	/* per kernel, runs mostly fast and runs with a state */
	double run_share_p;		/* Fisher on those runs (NaN: not tested) */
	int run_single, run_only;	/* a kernel (-1: none) whose runs all sit in one state
					   (1 fast, 0 slow) */
	int follows_kernel;		/* that, and run_share_p under 0.01: the groups are
					   the kernel's effect, not the guest's states */
	const char *undecidable;	/* static reason, NULL: decidable (or no states) */
};

/*
 * The states of @n runs' cells and the kernels within each into @out;
 * out->modes.separated 0 when there are none (the rest then unset).
 */
void modes_analyse(const struct mode_run *runs, size_t n, int better_higher,
		   struct modes_finding *out);
/* Cell @c's state: 1 fast, 0 slow, -1 between the cores (or no states). */
int modes_cell_state(const struct modes_finding *f, double c);
/* "modes" of a host_states[] entry: null without separated states. */
json_t *modes_json(const struct modes_finding *f, const char *const kname[2]);
/* The warning's text for @workload's @metric, nothing without states. */
void modes_line(const struct modes_finding *f, const char *workload, const char *metric,
		const char *const kname[2], struct strbuf *sb);

#endif
