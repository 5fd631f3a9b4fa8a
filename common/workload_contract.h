/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workload contract: what a workload program (workloads/NAME.c) prints
 * and how it exits, defined once for the programs (workloads/lib/jsonl.c),
 * the guest runner that forwards their output (guests/runner/runner.c) and
 * the host that reads it (lab/guest/guest_result.c checks each record,
 * lab/session/session_record.c turns them into a run record).
 * docs/guest-protocol.md, "Workload contract", describes it in prose; the
 * parameters each workload takes are in common/workload_params.h.
 *
 * stdout is JSON lines only, one object per line, each with a "type":
 *
 *   {"type":"metric","name":"...","value":N,"unit":"..."}
 *   {"type":"series","name":"...","unit":"...","values":[...]}
 *   {"type":"snapshot","phase":"before|after","source":"...","text":"..."}
 *   {"type":"info",...}
 *   {"type":"error","reason":"...","precondition":"..."}
 *
 * The host requires "name" (string) and a numeric "value" of a metric,
 * "name" of a series and "text" of a snapshot; other types and keys pass
 * through to the run record.
 *
 * Header only, no dependencies: the runner and the workloads are static
 * guest programs.
 */
#ifndef LAB_WORKLOAD_CONTRACT_H
#define LAB_WORKLOAD_CONTRACT_H

/* One stdout line; a longer one is dropped by the runner with an error record. */
#define WL_LINE_MAX	(1024 * 1024)

/* Record types ("type") of the lines a workload prints. */
#define WL_REC_METRIC	"metric"	/* one number: "name", "value", "unit" */
#define WL_REC_SERIES	"series"	/* numbers in order: "name", "unit", "values" */
#define WL_REC_SNAPSHOT	"snapshot"	/* a counter file's text: "phase", "source", "text" */
#define WL_REC_INFO	"info"		/* anything else worth keeping */
#define WL_REC_ERROR	"error"		/* "reason"; with "precondition" when exiting WL_EXIT_PRECOND */

/*
 * Exit statuses. WL_EXIT_PRECOND means "this guest cannot run this"
 * (too little memory, no lru_gen, ...), not "this workload broke": the
 * error line before it names the precondition (memory, nodes, cpus,
 * debugfs, lru_gen, cgroup_v2, source, toolchain, prepared, will_it_scale,
 * thp, madvise;
 * workloads/README.md says when each applies). Any other status, or a
 * signal, is a failure.
 */
#define WL_EXIT_OK	0
#define WL_EXIT_FAIL	1	/* bad arguments, or the workload failed */
#define WL_EXIT_PRECOND	2

#endif
