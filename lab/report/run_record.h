/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One element of a session's "runs": what session_record() writes for a
 * guest run, and what the analysis (report_model*.c, report_hoststate.c),
 * compare, history, the stopping rule and the renderers read. Decoded
 * here, once, with every check report_load() makes of a run, so a reader
 * of the struct picks no key by hand and meets no type it did not expect.
 * reports/SCHEMA.md ("runs[]") and reports/schema/ are the published
 * description; this is the code's one.
 *
 * Not thread-safe on one record; records are plain values. The strings and
 * json members point into the JSON they were decoded from: they live as
 * long as it does. The metrics are allocated: run_record_release() frees
 * them (git's rule: _release frees what a struct holds, never the struct).
 */
#ifndef LAB_RUN_RECORD_H
#define LAB_RUN_RECORD_H

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"
#include "util.h"

/* A run's metric, in the record's order. NaN where the record has null. */
struct run_metric {
	const char *name;
	double value;
};

/* Seconds; NaN where the record has none or null (the encoder then writes none). */
struct run_timings {
	double boot_s;		/* the guest's clock: its uptime when the runner started */
	double workload_s;
	double host_overhead_s;
	double wall_s;		/* domain start to stop, seen from the host */
	/* The boot on the host's clock (records from before 2026-12-02 have none). */
	double boot_wall_s;
};

/*
 * "host_load": what else the host did during the run, as the reports show
 * it. Read leniently, never checked (report_load() never did): a member
 * that is absent or of another type reads as none (0, NaN).
 */
struct run_host_load {
	int busy;		/* others used a quarter of a CPU, or steal > 5 % */
	double other_cpus;	/* CPUs used by everything else */
	double steal_s;		/* seconds the hypervisor stole */
};

struct run_record {
	long seq;		/* unique in a report (report_load() checks that) */
	/*
	 * The ABBA/BAAB block; -1 when absent. Not 0: warm-ups are written
	 * with block 0, and the analysis pairs an explicit 0 as a block.
	 */
	long block;
	const char *kernel;	/* a kernels[].name */
	const char *workload;	/* a workloads[].name */
	int warmup;		/* excluded from statistics */
	int ok;			/* status "ok"; 0: "failed" */
	const char *failure;	/* why it failed; NULL: none said */
	const char *started;	/* ISO 8601; NULL: not recorded */
	int exit_status;	/* the workload's, 0 to 255 (WL_EXIT_*); -1: it did not exit */
	const char *host;	/* NULL: a record from before hosts ("local") */
	int slot;		/* 0 to RUN_SLOT_MAX - 1; -1: absent */
	struct run_timings timings;
	struct run_metric *metrics;	/* allocated; NULL when none */
	size_t nr_metrics;
	/* {group: {name: number or null}}, checked; NULL: none. */
	const json_t *counters;
	/* Strings, checked; NULL: none. */
	const json_t *guest_messages;
	size_t nr_guest_messages;
	/* the runs beside it on the other slots, each {workload, kernel}; NULL: not recorded */
	const json_t *partners;
	const json_t *json;	/* the element: series, ... untyped */
	struct run_host_load host_load;
};

/* Where a run ran: limits report_load() has always checked. */
#define RUN_HOST_MAX	64
#define RUN_SLOT_MAX	1024

/*
 * The record's one definition: a row per member, from which the decoder,
 * its checks and the encoder are driven (like config.c's ini_key tables).
 * A new member is a struct line above and a row in run_record.c, and the
 * schema and SCHEMA.md rows the tests hold to the table
 * (tests/unit/test_run_record_table.c).
 */
enum run_kind {
	RK_LONG,		/* long, an integer; -1: absent (not encoded) */
	RK_INT,			/* int, an integer; -1: absent (not encoded) */
	RK_STRING,		/* const char *; NULL: absent */
	RK_STRING_OR_NULL,	/* const char *; NULL: null or absent (encoded as null) */
	RK_BOOL,		/* int, true or false */
	RK_STATUS,		/* int: "ok" 1, "failed" 0 */
	RK_NUMBER,		/* double, a number or null; NaN: null or absent (not encoded) */
	RK_OBJECT,		/* a struct at offset, its members in .sub */
	RK_CUSTOM,		/* an object or array of .json_type, read by .decode, written by its owner */
};

/* Who writes a member (run_record_encode()'s @writers): the three steps of one run. */
enum run_writer {
	RW_PLAN = 1 << 0,	/* plan_entry_encode(): session.json's plan element */
	RW_RECORD = 1 << 1,	/* session_record(): what the guest run came to */
	RW_HOST = 1 << 2,	/* the run's host and slot (session_run_one.c) */
	RW_OWNER = 1 << 3,	/* RK_CUSTOM: its owner builds it (metrics, counters, ...) */
};

enum run_need {
	RN_OPTIONAL,		/* absent, or null where the type has no null: none */
	RN_REQUIRED,
	RN_IF_OK,		/* required when the status is "ok" (decoded before it) */
};

struct run_decoder;

struct run_field {
	const char *key;
	enum run_kind kind;
	size_t offset;		/* in struct run_record, or in .sub's struct */
	enum run_need need;
	unsigned writer;	/* enum run_writer */
	long min, max;		/* RK_INT, RK_LONG: the bounds when max > min */
	const char *what;	/* the bounds' message: "expected WHAT from MIN..."; NULL: an integer */
	size_t name_max;	/* RK_STRING: printable ASCII of 1 to name_max; 0: any */
	int names_kernel;	/* RK_STRING: a kernels[].name, where the caller gives them */
	const struct run_field *sub;	/* RK_OBJECT: its members, ending in { NULL } */
	const char *json_type;	/* RK_CUSTOM: "object" or "array" (checked before .decode) */
	/* RK_CUSTOM: 0, or -1 with the error said through the decoder */
	int (*decode)(struct run_decoder *d, const json_t *v, struct run_record *out);
	int lenient;		/* RK_CUSTOM: .decode gets the member whatever it is, never fails */
};

/* The members of "runs[]", ending in { NULL }; "timings" has its own table as .sub. */
extern const struct run_field run_record_fields[];

/*
 * Sets in @obj every member of @r whose row's writer is in @writers, in the
 * table's order (a member @obj has keeps its place). RK_CUSTOM rows are
 * their owners'. The absent values above are left out.
 */
void run_record_encode(const struct run_record *r, unsigned writers, json_t *obj);

/*
 * Decode one run. 0, or -1 with the member and what was expected in @err
 * ("metrics.ops: expected a number or null, got a string"; "expected an
 * object, got an array" for the element itself). The checks are
 * report_load()'s, made member by member in run_record_fields[]'s order.
 * On error *@out holds nothing to release.
 */
LAB_MUST_CHECK
int run_record_decode(const json_t *r, struct run_record *out, struct strbuf *err);

/* Frees the metrics; @r may then be decoded into again. */
void run_record_release(struct run_record *r);

/* A whole "runs" array. */
struct run_records {
	struct run_record *v;
	size_t n;
	/* what @v holds room for: a holder that appends grows it (ALLOC_GROW) from here */
	size_t alloc;
};

#define RUN_RECORDS_INIT { NULL, 0, 0 }

/*
 * The kernels a run may name (report_load()'s kernels[]): checked in the
 * decoder, between the types and the host, where report_load() always
 * checked it, so a run with two faults is reported as it always was.
 */
struct run_kernel_names {
	int (*known)(const char *name, const void *data);
	const void *data;
};

/*
 * Decode every element of @runs (a report's or session's "runs") into
 * @out, which it replaces. 0, or -1 with the first error, its JSON path
 * from the top ("runs[3].metrics.ops: ..."; "runs: missing (expected an
 * array)") in @err, and @out empty. @kernels NULL: names unchecked.
 */
LAB_MUST_CHECK
int run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
		       struct run_records *out, struct strbuf *err);

/*
 * Every element of @runs that decodes, in order, into @out (which it
 * replaces); the number left out. For the records a running session holds:
 * loaded from its folder, where a hand-edited one must not stop the
 * session's own bookkeeping (the report it writes says what is wrong).
 */
size_t run_records_decode_valid(const json_t *runs, struct run_records *out);
/*
 * Whether @name may be set in @map, a record's "metrics" or "series" as
 * session_record.c's collect() builds it from the guest's lines: fewer
 * than @max names, or @name one of them already.
 */
int run_record_map_room(const json_t *map, const char *name, size_t max);

/* run_records_decode_valid() of @report's "runs" (a report_load()ed report's). */
size_t run_records_of_report(const json_t *report, struct run_records *out);

/*
 * The "seq" of @r, a record that may not decode (to name its file,
 * runs/NNNN.json, and to check that name against it, session_load_runs()):
 * 0 with it in *@seq when it is an integer; -1 with *@seq 0 when @r is
 * NULL, has none, or one of another type.
 */
int run_record_seq(const json_t *r, long long *seq);

/* Releases every record and the array; @rs is then empty. */
void run_records_release(struct run_records *rs);

#endif
