/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mglrulab bisect: which patch of a series moved the metric.
 *
 *   1. confirm   an A/B session, baseline against the whole series, until
 *                decided: the metrics it tracks are the primaries (all
 *                metrics when a workload declares none) with an improvement
 *                or regression verdict. None: "not confirmed", stop.
 *   2. search    bisect_search.h over the prefix kernels NAME@K: each probe
 *                is two sessions, the baseline against NAME@K and NAME@K
 *                against the series' end, each until decided or its budget
 *                is spent. A prefix that does not build is skipped.
 *   3. culprit   its own effect, NAME@(c-1) against NAME@c, and what the
 *                remaining patches do (NAME@c against the end, from the
 *                probe).
 * With --per-patch (series of at most BISECT_PER_PATCH_MAX patches) every
 * step NAME@(k-1) against NAME@k is measured instead of searching: a
 * waterfall of each patch's own effect.
 *
 * Everything lives in <reports>/<stamp>-bisect/:
 *   bisect.json   the inputs, every step (its session folder, its state,
 *                 its results), every prefix build and probe decision, the
 *                 result; written atomically after each change
 *   steps/NN-WHAT/ each step's session folder(s), as `mglrulab run` makes them
 *   bisect.txt    the summary, also printed on stdout
 *   bisect.html   the summary, with the waterfall of --per-patch
 * A bisection killed at any point continues with `mglrulab bisect --resume`:
 * finished steps are read back, an unfinished one resumes its session, and
 * the search, being deterministic, asks the same questions again.
 */
#ifndef LAB_BISECT_H
#define LAB_BISECT_H

#include <jansson.h>

#include "stats.h"
#include "strbuf.h"
#include "util.h"

#define BISECT_PER_PATCH_MAX	6
#define BISECT_SCHEMA		"mglrulab-bisect/1"

struct bisect_opts {
	const char *config;
	const char *base, *series;	/* kernel names; NULL: [run] kernels */
	long max_runs;			/* per step session (0: the session default) */
	double budget_s;		/* per step session (0: none) */
	struct strvec workloads;	/* empty: [run] workloads */
	int per_patch;
	int resume;
	const char *resume_id;		/* NULL: <reports>/latest-bisect */
};

/*
 * bisect.html from bisect.json @state and the text @summary: the summary,
 * and for --per-patch an inline SVG waterfall per tracked metric
 * (bisect_html.c).
 */
void bisect_html(struct strbuf *out, const json_t *state, const char *summary);

/*
 * What a step's decision is made of, from a step session's report.json
 * @report: per result with a verdict, {workload, metric, primary, verdict,
 * delta_pct, ci_lo_pct, ci_hi_pct} (percent of the first kernel), the
 * change and interval the verdict rests on (struct result_record's change:
 * pooled in a session on several hosts). A new array.
 */
json_t *bisect_step_results(const json_t *report);

/*
 * One element of a step's results (bisect_step_results()) or of tracked,
 * read back from bisect.json: the strings point into it. delta_pct, lo_pct
 * and hi_pct are NaN where it has null.
 */
struct step_result {
	const char *workload, *metric;
	int primary;
	enum stats_verdict verdict;	/* VERDICT_INVALID for an unknown id */
	const char *verdict_id;		/* stats_verdict_id(verdict) */
	double delta_pct, lo_pct, hi_pct;
	const json_t *json;		/* the element decoded */
};

struct step_results {
	size_t n;
	struct step_result *v;
};

/*
 * The elements of @arr (checked by bisect_state_load(), or made by
 * bisect_step_results()) into @out; an element without a workload, metric
 * or verdict string is left out. step_results_release() frees @out's array.
 */
void step_results_decode(const json_t *arr, struct step_results *out);
void step_results_release(struct step_results *rs);
/* The result for @workload's @metric, or NULL. */
const struct step_result *step_results_find(const struct step_results *rs, const char *workload,
					    const char *metric);

/*
 * Load bisect.json at @path for --resume (bisect_state.c) and check every
 * field the bisection reads back: schema, settings (max_runs, budget_s,
 * per_patch, workloads), baseline, series_kernel, n, patches, steps (their
 * folders inside the bisection's), prefixes, probes, tracked. NULL with
 * "PATH: FIELD: what was expected" in @err.
 */
LAB_MUST_CHECK
json_t *bisect_state_load(const char *path, struct strbuf *err);

/* Run (or resume) a bisection; the exit status. */
LAB_MUST_CHECK
int bisect_main(struct bisect_opts *o);

#endif
