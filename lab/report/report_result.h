/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A result of report.results as the stages after the analysis read it: the
 * stopping rule of a sequential session, the bisection, JUnit and the exit
 * status. Decoded once, here, from the JSON report_analyze() returns (or a
 * report.json read back), so no stage picks "comparison" where the verdict
 * rests on "pooled", or reads a verdict string by hand.
 *
 * Not thread-safe on one record; records are plain values. The strings
 * point into the JSON they were decoded from: they live as long as it does.
 */
#ifndef LAB_REPORT_RESULT_H
#define LAB_REPORT_RESULT_H

#include <jansson.h>

#include "stats.h"
#include "strbuf.h"
#include "util.h"

/* A change of patched against baseline. NaN where the report has null. */
struct result_change {
	double ratio;		/* patched / baseline */
	double delta_pct;	/* 100 * (ratio - 1) */
	double lo, hi;		/* the ratio's interval */
};

struct result_record {
	const char *workload;
	const char *metric;
	const char *unit;		/* NULL: none declared */
	const char *verdict_id;		/* stats_verdict_id(verdict) */
	enum stats_verdict verdict;	/* VERDICT_INVALID when absent or unknown */
	const char *reason;		/* why the verdict, NULL when none */
	int primary;			/* declared before the first run */
	int final;			/* a sequential look may stop on it */
	long runs_needed;		/* runs per kernel that might decide, 0: no estimate */
	int pooled;			/* the verdict rests on the hosts pooled */
	/*
	 * The change the verdict rests on: the hosts pooled in a session on
	 * several hosts (pooled == 1), else the comparison of all runs. Every
	 * stage that prints a verdict prints this change with it.
	 */
	struct result_change change;
	const json_t *json;		/* the element decoded, for the renderers */
};

/*
 * Decode one element of a report's "results". Returns 0, or -1 with what
 * is wrong (the member and what was expected) in @err: a missing or
 * non-string workload, metric or verdict; a comparison that is not an
 * object. Optional members that are absent or null decode as "none".
 */
LAB_MUST_CHECK
int result_record_decode(const json_t *res, struct result_record *out, struct strbuf *err);

/*
 * Every element of @report's "results" that decodes, in order: a new array
 * of *@n records (free() it; NULL when there is none). Elements that do not
 * decode are counted in *@bad (may be NULL) and left out: a hand-edited
 * report.json read back must not crash a stage, and what the stage then
 * says is "not measured", never a verdict.
 */
struct result_record *report_result_records(const json_t *report, size_t *n, size_t *bad);

#endif
