// SPDX-License-Identifier: GPL-2.0
/*
 * The report view's members, one table each (report_view.h): the rows
 * report_view_decode() reads a member through (sdoc_fields_decode(), so
 * that a member of the wrong type is refused by its path, as a result's
 * is). Each row says a member's JSON key, its kind and its place in the
 * struct beside which the table is declared; what a table cannot say
 * stays as code in report_view.c, with why. Their integers are .whole:
 * main's hand-written reader refused 1.5 for them, and so do the tables.
 */
#include "report_view.h"

#include <stddef.h>

#define CNT(f) .offset = offsetof(struct view_counts, f)
#define TIM(f) .offset = offsetof(struct view_timing, f)
#define SUM(f) .offset = offsetof(struct view_summary, f)

/* summary.verdicts and summary.primary_verdicts: a count per verdict id. */
const struct sdoc_field view_counts_fields[] = {
	{ "improvement", SK_LONG, CNT(improvement), .whole = 1 },
	{ "regression", SK_LONG, CNT(regression), .whole = 1 },
	{ "within-noise", SK_LONG, CNT(within_noise), .whole = 1 },
	{ "no-change", SK_LONG, CNT(no_change), .whole = 1 },
	{ "inconclusive", SK_LONG, CNT(inconclusive), .whole = 1 },
	{ "invalid", SK_LONG, CNT(invalid), .whole = 1 },
	{ NULL },
};

/* summary.timings.<phase> */
static const struct sdoc_field timing_fields[] = {
	{ "runs", SK_LONG, TIM(runs), .whole = 1 },
	{ "median", SK_NUMBER, TIM(median) },
	{ "total", SK_NUMBER, TIM(total) },
	{ NULL },
};

/* summary.timings: its phases are the elements of the view's array, by enum view_phase. */
#define PHASE(p) .offset = (p) * sizeof(struct view_timing)
static const struct sdoc_field timings_fields[] = {
	{ "boot_s", SK_OBJECT, PHASE(VIEW_BOOT), .sub = timing_fields },
	{ "workload_s", SK_OBJECT, PHASE(VIEW_WORKLOAD), .sub = timing_fields },
	{ "host_overhead_s", SK_OBJECT, PHASE(VIEW_HOST_OVERHEAD), .sub = timing_fields },
	{ NULL },
};

/* summary: report_model_summary.c's counts of the session. */
const struct sdoc_field view_summary_fields[] = {
	{ "metrics", SK_LONG, SUM(metrics), .whole = 1 },
	{ "counters", SK_LONG, SUM(counters), .whole = 1 },
	{ "primaries", SK_LONG, SUM(primaries), .whole = 1 },
	{ "runs", SK_LONG, SUM(runs), .whole = 1 },
	{ "runs_ok", SK_LONG, SUM(runs_ok), .whole = 1 },
	{ "runs_failed", SK_LONG, SUM(runs_failed), .whole = 1 },
	{ "runs_warmup", SK_LONG, SUM(runs_warmup), .whole = 1 },
	{ "verdicts", SK_OBJECT, SUM(verdicts), .sub = view_counts_fields },
	{ "primary_verdicts", SK_OBJECT, SUM(primary_verdicts), .sub = view_counts_fields },
	{ "runs_per_kernel", SK_JSON, SUM(runs_per_kernel), .json_type = "object" },
	{ "timings", SK_OBJECT, SUM(timings), .sub = timings_fields },
	{ NULL },
};

#define CLM(f) .offset = offsetof(struct view_claim, f)

/* claim: the [claim] the session tested; present says whether there was one. */
const struct sdoc_field view_claim_fields[] = {
	{ "workload", SK_STRING, CLM(workload) },
	{ "metric", SK_STRING, CLM(metric) },
	{ "direction", SK_STRING, CLM(direction) },
	{ "size_pct", SK_NUMBER, CLM(size_pct) },
	{ "mechanism", SK_STRING, CLM(mechanism) },
	{ "source", SK_STRING, CLM(source) },
	{ NULL },
};

#define WRN(f) .offset = offsetof(struct result_warning, f)

/* warnings[]: a report-level warning, what every renderer shows. */
const struct sdoc_field view_warning_fields[] = {
	{ "kind", SK_TEXT, WRN(kind) },
	{ "message", SK_TEXT, WRN(message) },
	{ NULL },
};

#define GEO(f) .offset = offsetof(struct view_geomean, f)

/* geomean[]: a workload's geometric mean of its metrics' ratios (report_model_geomean.c). */
const struct sdoc_field view_geomean_fields[] = {
	{ "workload", SK_STRING, GEO(workload) },
	{ "method", SK_STRING, GEO(method) },
	{ "metrics", SK_LONG, GEO(metrics), .whole = 1 },
	{ "skipped", SK_LONG, GEO(skipped), .whole = 1 },
	{ "ratio", SK_NUMBER, GEO(ratio) },
	{ "lo", SK_NUMBER, GEO(lo) },
	{ "hi", SK_NUMBER, GEO(hi) },
	{ "level", SK_NUMBER, GEO(level) },
	{ "of", SK_JSON, GEO(of), .json_type = "array" },
	{ NULL },
};

#define NOD(f) .offset = offsetof(struct view_node, f)

/* guest.nodes[]: a NUMA node of the guest. */
const struct sdoc_field view_node_fields[] = {
	{ "id", SK_LONG, NOD(id), .whole = 1 },
	{ "cpus", SK_STRING, NOD(cpus) },
	{ "memory_mib", SK_NUMBER, NOD(memory_mib) },
	{ NULL },
};

#define OWN(f) .offset = offsetof(struct view_own_state, f)
#define HSS(f) .offset = offsetof(struct view_host_state, f)

/* host_states[].own_states.KERNEL: that kernel's split of the metric's cells. */
const struct sdoc_field view_own_state_fields[] = {
	{ "threshold", SK_NUMBER, OWN(threshold) },
	{ "ratio", SK_NUMBER, OWN(ratio) },
	{ "eta", SK_NUMBER, OWN(eta) },
	{ "slow_cells", SK_NUMBER, OWN(slow_cells) },
	{ "cells", SK_NUMBER, OWN(cells) },
	{ "separated", SK_FLAG, OWN(separated) },
	{ NULL },
};

/* host_states[].modes: of its members the view keeps decidable, flat in the host state. */
static const struct sdoc_field modes_fields[] = {
	{ "decidable", SK_BOOL, HSS(modes_decidable) },
	{ NULL },
};

/* host_states[]: a metric adjusted for the host's emulator states (report_hoststate.c). */
const struct sdoc_field view_host_state_fields[] = {
	{ "workload", SK_STRING, HSS(workload) },
	{ "metric", SK_STRING, HSS(metric) },
	{ "method", SK_STRING, HSS(method) },
	{ "slope", SK_NUMBER, HSS(slope) },
	{ "correlation", SK_NUMBER, HSS(correlation) },
	{ "reference_rate", SK_NUMBER, HSS(reference_rate) },
	{ "by_states", SK_FLAG, HSS(by_states) },
	{ "separated", SK_FLAG, HSS(separated) },
	{ "modes", SK_OBJECT, .offset = 0, .sub = modes_fields },
	{ "own_states", SK_MAP, HSS(own_states_rows), .sub = view_own_state_fields,
	  .elem_size = sizeof(struct view_own_state) },
	{ NULL },
};

#define SQW(f) .offset = offsetof(struct view_seq_workload, f)
#define SQS(f) .offset = offsetof(struct view_sequential, f)

/* sequential.workloads.NAME: where a workload of a sequential session stopped. */
const struct sdoc_field view_seq_workload_fields[] = {
	{ "stopped", SK_FLAG, SQW(stopped) },
	{ "why", SK_STRING, SQW(why) },
	{ "look", SK_LONG, SQW(look), .whole = 1 },
	{ "runs_per_kernel", SK_NUMBER, SQW(runs_per_kernel) },
	{ NULL },
};

/* sequential: the looks of a `run --until decided` session; present: it was one. */
const struct sdoc_field view_sequential_fields[] = {
	{ "workloads", SK_MAP, SQS(workloads_rows), .sub = view_seq_workload_fields,
	  .elem_size = sizeof(struct view_seq_workload) },
	{ "looks", SK_JSON, SQS(looks), .json_type = "array" },
	{ NULL },
};
