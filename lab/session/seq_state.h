/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stopping rule's own state, <session>/sequential.json, typed
 * (seq_state.c has its one decoder and its one encoder; session_seq.c
 * reads and changes only the struct). The file, and the report's
 * "sequential" member that copies it:
 *
 *   {"workloads": {NAME: {"stopped": bool, "why": null or WHY,
 *                         "look": n, "look_block": n, "runs_per_kernel": n}},
 *    "looks": [{"workload", "look", "runs_per_kernel", "alpha",
 *               "verdicts": {METRIC: verdict id}}],
 *    "budget_spent": bool, "spent_s": seconds}
 *
 * look_block, runs_per_kernel, budget_spent and spent_s only once set.
 */
#ifndef LAB_SEQ_STATE_H
#define LAB_SEQ_STATE_H

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"
#include "util.h"

/* Why a workload stopped: "why" in the file (null: it has not). */
enum seq_why {
	SEQ_WHY_NONE,
	SEQ_WHY_DECIDED,		/* "decided": every primary final */
	SEQ_WHY_MAX_RUNS,		/* "max-runs": the run cap */
	SEQ_WHY_BUDGET,			/* "budget": the time budget */
	SEQ_WHY_BELOW_FIRST_LOOK,	/* "below-first-look": capped below it */
	SEQ_WHY_PLACED,			/* "placed": a bisection's probe placed its prefix */
};

struct seq_workload {
	char *name;
	int stopped;
	enum seq_why why;
	long look;			/* the last look's number, 0: none yet */
	long look_block;		/* its block; -1: none yet */
	long runs_per_kernel;		/* -1: not set */
};

struct seq_verdict {
	char *metric, *verdict;		/* verdict: its id ("invalid" when none) */
};

struct seq_look {
	char *workload;
	long look, runs_per_kernel;
	double alpha;
	struct seq_verdict *verdicts;
	size_t nverdicts, alloc;
};

struct seq_state {
	struct seq_workload *w;
	size_t nw, walloc;
	struct seq_look *looks;
	size_t nlooks, lalloc;
	int budget_spent;		/* -1: not set */
	double spent_s;			/* NaN: not set */
};

/* An empty state: no workload, no look. */
void seq_state_init(struct seq_state *s);
void seq_state_release(struct seq_state *s);
/*
 * @j into @s. A hand-edited or damaged file is an error naming the first
 * wrong member ("workloads.yield.why: expected null or one of ..."): -1,
 * @s released (and empty). 0 when it decodes.
 */
LAB_MUST_CHECK
int seq_state_decode(const json_t *j, struct seq_state *s, struct strbuf *err);
/* @s as the file has it; dies on OOM. */
json_t *seq_state_encode(const struct seq_state *s);

/*
 * A bisection's probe (design.sequential.placement of session.json): the
 * session stops once every listed primary's interval lies wholly on one
 * side of its midpoint, the geometric middle of the series' whole change
 * (stats_side_of_midpoint()). bisect.c writes it; the stopping rule reads
 * it, decoded once.
 */
struct seq_placement {
	char *workload, *metric;
	double midpoint;		/* a ratio, patched / baseline; never 1 */
};

struct seq_placements {
	struct seq_placement *v;
	size_t n;
};

/*
 * design.sequential.placement of session.json, @arr (struct
 * sdoc_sequential's), into @out: NULL (absent) is none (0). A present one must be an array of {workload, metric,
 * midpoint} with a positive finite midpoint other than 1: else -1, naming
 * the element and member in @err. Release @out either way.
 */
LAB_MUST_CHECK
int seq_placements_decode(const json_t *arr, struct seq_placements *out, struct strbuf *err);
/* The placement member as session.json has it: a new array. */
json_t *seq_placements_encode(const struct seq_placements *p);
void seq_placements_release(struct seq_placements *p);

/* @name's state, NULL when it has none yet. */
struct seq_workload *seq_state_find(struct seq_state *s, const char *name);
/* @name's state, made (not stopped, no look) when it has none yet. */
struct seq_workload *seq_state_workload(struct seq_state *s, const char *name);
/* A new look at the end, for @workload (its verdicts added by seq_look_verdict()). */
struct seq_look *seq_state_add_look(struct seq_state *s, const char *workload);
void seq_look_verdict(struct seq_look *l, const char *metric, const char *verdict);

#endif
