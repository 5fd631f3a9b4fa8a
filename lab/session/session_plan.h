/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run order of a session. One fresh guest boot is the unit of
 * replication; baseline (A) and patched (B) runs come in blocks of one A
 * and one B run of the same workload, and consecutive blocks are paired as
 * ABBA or BAAB (drawn from the seed), so slow drift of the host cancels out
 * instead of landing on one kernel. Workloads are interleaved block by
 * block. The plan is a pure function of its inputs; the session saves it
 * in session.json ("plan"), and a resumed session follows that saved plan
 * rather than computing it again.
 */
#ifndef LAB_SESSION_PLAN_H
#define LAB_SESSION_PLAN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"
#include "util.h"

struct planned_run {
	int seq;		/* 1-based position in the session */
	int block;		/* 1-based block number (warm-ups: 0) */
	int kernel;		/* index into the session's kernels */
	int workload;		/* index into the session's workloads */
	int warmup;		/* excluded from statistics */
};

struct session_plan {
	struct planned_run *runs;
	size_t n;
	char *order;		/* "ABBA BAAB ...", per workload block pair, for the report */
};

/*
 * @nr_kernels is 1 (explore one kernel) or 2 (A/B, also A/A calibration).
 * @runs[w] repetitions per kernel of workload w (long workloads such as a
 * kernel build may get fewer: their blocks stop early while the others go
 * on), @warmups extra runs per kernel and workload at the start. With
 * equal @runs the plan does not depend on how many there are of each.
 */
void session_plan_make(struct session_plan *plan, int nr_kernels, int nr_workloads,
		       const int *runs, int warmups, uint64_t seed);
void session_plan_release(struct session_plan *plan);

/*
 * A planned run as session.json holds it ("plan"), by the session's names
 * for its kernel and workload. One encoder and one decoder: the scheduler,
 * the stopping rule and the progress lines read these, never the keys.
 */
struct plan_entry {
	int seq;		/* 1-based position in the session */
	int block;		/* 1-based block number (warm-ups: 0) */
	const char *kernel;	/* point into the JSON decoded */
	const char *workload;
	int warmup;
	const json_t *json;	/* the element: a run record starts as its copy */
};

/* session.json's element for @p, its kernel and workload named. */
json_t *plan_entry_encode(const struct planned_run *p, const char *kernel, const char *workload);

/*
 * Every element of @plan (session.json's "plan"): a new array of *@n
 * entries (free() it). -1 with "plan[3].block: expected ..." in @err when
 * an element is not one: a hand-edited session.json is an error, never a
 * run scheduled from zeros.
 */
LAB_MUST_CHECK
int plan_entries_decode(const json_t *plan, struct plan_entry **out, size_t *n,
			struct strbuf *err);

#endif
