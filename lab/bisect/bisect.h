/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mglrulab bisect: which patch of a series moved the metric.
 *
 *   1. confirm   an A/B session, baseline against the whole series, until
 *                decided: the metrics it tracks are the primaries (all
 *                metrics when a workload declares none) with an improvement
 *                or regression verdict. None: "not confirmed", stop.
 *   2. search    bisect_search.h over the prefix kernels NAME@K: a probe is
 *                the baseline against NAME@K, until its tracked metrics'
 *                intervals lie on one side of the series' midpoint (placed)
 *                or it is decided; a probe that did not place its prefix
 *                adds NAME@K against the series' end and is classified by
 *                the two verdicts. A prefix that does not build is skipped.
 *   3. culprit   its own effect, NAME@(c-1) against NAME@c, and what the
 *                remaining patches do (NAME@c against the end, when a
 *                probe measured it).
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

struct session_series_kernel;
struct bisect_doc;
struct sdoc_array;

struct bisect_opts {
	const char *config;
	const char *base, *series;	/* kernel names; NULL: [run] kernels */
	long max_runs;			/* per step session (0: the session default) */
	double budget_s;		/* per step session (0: none) */
	struct strvec workloads;	/* empty: [run] workloads */
	int per_patch;
	/*
	 * --attribute: RUN_ATTRIBUTE_* (config.h) for the culprit's own step,
	 * -1 for lab.conf's [run] attribute; settings.attribute keeps it.
	 */
	int attribute;
	int resume;
	const char *resume_id;		/* NULL: <reports>/latest-bisect */
	const char *json;		/* --json FILE ("-": stdout): bisect_summary_json() */
	/*
	 * `mglrulab watch`: the series' kernel, which lab.conf has not
	 * (session.h; NULL: none), the folder the bisection goes in (NULL:
	 * lab.conf's reports), and the folder of a finished session of base
	 * against series that is the confirm step (NULL: it is run). The
	 * session must be in the same reports folder: the step links to it.
	 */
	const struct session_series_kernel *series_kernel;
	const char *reports_dir;
	const char *confirmed;
};

/* The runs of one step's session, from its report.json: -1 where unknown. */
struct bisect_step_runs {
	long ok, failed;
};

/*
 * bisect.html from bisect.json decoded, @d (bisect_html.c): the answer first
 * (the culprit and its own effect, or why there is none), then every step
 * (its kernels, verdicts, @runs[i] for steps[i], a link to its
 * report.html), the probes' levels, and for --per-patch a waterfall per
 * tracked metric. @runs may be NULL (@nr_runs 0).
 */
void bisect_html(struct strbuf *out, const struct bisect_doc *d,
		 const struct bisect_step_runs *runs, size_t nr_runs);

/*
 * What a step's decision is made of, from a step session's report.json
 * @report: per result with a verdict, {workload, metric, primary, verdict,
 * delta_pct, ci_lo_pct, ci_hi_pct} (percent of the first kernel), the
 * change and interval the verdict rests on (struct result_record's change:
 * pooled in a session on several hosts). A new array.
 */
json_t *bisect_step_results(const json_t *report);

/*
 * One element of a step's results or of tracked, typed for the deciding:
 * what step_results_of() makes of bisect.json's struct bisect_doc_result
 * (bisect_doc.h), whose strings it borrows. delta_pct, lo_pct and hi_pct
 * are NaN where the file has null.
 */
struct step_result {
	const char *workload, *metric;
	int primary;
	enum stats_verdict verdict;	/* VERDICT_INVALID for an unknown id */
	const char *verdict_id;		/* stats_verdict_id(verdict) */
	double delta_pct, lo_pct, hi_pct;
};

struct step_results {
	size_t n;
	struct step_result *v;
};

/*
 * The results array @a (struct bisect_doc_result, whose table requires the
 * strings; NULL: none, a step not measured) into @out, an element for each
 * of @a's, in order; step_results_release() frees @out's array.
 */
void step_results_of(const struct sdoc_array *a, struct step_results *out);
void step_results_release(struct step_results *rs);
/* Whether two decoded results arrays say the same (a step's and the result's copy of it). */
int step_results_same(const struct sdoc_array *a, const struct sdoc_array *b);
/* The result for @workload's @metric, or NULL. */
const struct step_result *step_results_find(const struct step_results *rs, const char *workload,
					    const char *metric);

/*
 * "DIR/ID/@file": @file of a step's session, from the step's @dir and
 * @session (struct bisect_doc_step's), relative to the bisection's folder
 * (the session's own folder name, so that a bisection moved elsewhere
 * still finds it). NULL when the step has no session yet.
 */
char *bisect_step_path(const char *dir, const char *session, const char *file);

/*
 * bisect.json at @path read (bisect_state.c) for `bisect --resume`, whose
 * state it becomes, and for the readers (bisect.html, the --json summary,
 * the watch's note): decoded once by its table, and every member the
 * bisection reads back checked for what its type does not say (ranges,
 * the steps' folders inside the bisection's, the count of patches), into
 * @d, which keeps the tree its strings point into; bisect_doc_release()
 * frees it. 0, or -1 with
 * "PATH: MEMBER: what was expected" in @err ("PATH: result.culprit:
 * expected an integer, got a string") and @d absent.
 */
LAB_MUST_CHECK
int bisect_doc_load(const char *path, struct bisect_doc *d, struct strbuf *err);

/*
 * bisect --json: what a script needs of the bisection in @dir, from its
 * bisect.json decoded, @d (NULL: none yet), and exit @status, as JSON into @out
 * (bisect_summary.c): {schema, bisection (the folder), complete, baseline,
 * series_kernel, outcome, culprit {position, subject, message_id} or null,
 * primaries[] (the whole series' verdicts: tracked), steps[] {step,
 * purpose, a, b, state, session, report}, reports {json, text, html},
 * exit_status, exit_meaning}.
 */
void bisect_summary_json(const char *dir, const struct bisect_doc *d, int status,
			 struct strbuf *out);

/* Run (or resume) a bisection; the exit status. */
LAB_MUST_CHECK
int bisect_main(struct bisect_opts *o);

#endif
