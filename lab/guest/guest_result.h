/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host side of the result channel: the file libvirt wrote from the
 * guest's virtio-serial port, parsed into records. Guest output is
 * untrusted: lines are bounded (GUEST_RECORD_MAX), must be valid UTF-8 and
 * valid JSON objects of a known type with the protocol version and the next
 * sequence number. A bad line is rejected with a reason and parsing goes on;
 * nothing in the input can crash the parser or make it allocate without bound.
 */
#ifndef LAB_GUEST_RESULT_H
#define LAB_GUEST_RESULT_H

#include <jansson.h>
#include <stddef.h>

#include "guest_conf.h"
#include "strbuf.h"
#include "util.h"

/* A workload record's type (common/workload_contract.h's WL_REC_*). */
enum guest_record_type {
	GUEST_RECORD_METRIC,
	GUEST_RECORD_SERIES,
	GUEST_RECORD_SNAPSHOT,
	GUEST_RECORD_INFO,
	GUEST_RECORD_ERROR,
	GUEST_RECORD_OTHER,	/* a type this host does not know: kept, not read */
};

/*
 * One record a workload printed, decoded once by the parser (the session
 * reads this, not the JSON): a metric always has a name and a number, a
 * series a name; the rest is what the record has, NULL when absent or of
 * another type. Strings and @values point into @json, which r->records
 * holds; snapshot and info lines are the counters' (counters_line_decode()
 * reads @json).
 */
struct guest_record {
	enum guest_record_type type;
	const char *name;
	double value;			/* metric: the number */
	int value_is_int;		/* metric: written as an integer, @ivalue */
	json_int_t ivalue;
	const json_t *values;		/* series: "values" when an array */
	const char *reason;		/* error: "reason" when a string */
	const json_t *json;
};

/* The workload's exit, from the runner's "exit" record. */
struct guest_exit {
	int seen;			/* the record arrived */
	long long status;		/* WL_EXIT_* */
	double elapsed_s;		/* NaN when not a number */
};

struct guest_result {
	json_t *hello;		/* the "hello" record, or NULL */
	json_t *topology;	/* the "topology" record, or NULL */
	/* its "kernel_release" and "lru_gen" when strings, else NULL; in @topology */
	const char *kernel_release, *lru_gen;
	json_t *job;		/* the "job" record, or NULL */
	json_t *records;	/* array: every object the workload printed, in order */
	struct guest_record *recs;	/* the same, decoded */
	size_t nrecs, recs_alloc;
	json_t *stderr_lines;	/* array of strings */
	json_t *errors;		/* array of strings: the runner's "error" records */
	struct guest_exit exit;	/* the "exit" record */
	int done;		/* the "done" record arrived and its count matched */
	double done_t;		/* its "t": runner seconds from start to done */
	long valid;		/* accepted records */
	struct strvec bad;	/* rejected lines: "line N: reason" */

	/* parser state */
	struct strbuf pending;
	long line;
	long next_seq;
	int skipping;		/* inside an over-long line */
	size_t max_line;	/* GUEST_RECORD_MAX unless a test lowers it */
};

void guest_result_init(struct guest_result *r);
/* Feed bytes as they come; complete lines are parsed at once. */
void guest_result_feed(struct guest_result *r, const char *data, size_t len);
/* End of input: a line without its newline is rejected as truncated. */
void guest_result_finish(struct guest_result *r);
/* Whole file (at most GUEST_RESULT_FILE_MAX bytes read); -1 with errno when unreadable. */
LAB_MUST_CHECK
int guest_result_parse_file(const char *path, struct guest_result *r);
void guest_result_release(struct guest_result *r);

/*
 * The reported topology as a struct guest_topology (for comparing with the
 * declared one). Returns 0, or -1 with the reason in @err when the record
 * is missing or malformed.
 */
LAB_MUST_CHECK
int guest_result_topology(const struct guest_result *r, struct guest_topology *out,
			  struct strbuf *err);

/*
 * Does the guest show the @declared topology (guest_topology_matches())?
 * NULL when it does; otherwise what differs, then both topologies, as one
 * message (caller frees). The one check of a run's topology, for
 * `mglrulab guest boot|run` and for every session run.
 */
char *guest_result_topology_problem(const struct guest_result *r,
				    const struct guest_topology *declared);

/* Boot-to-runner seconds (the hello record's uptime_s), or -1. */
double guest_result_uptime(const struct guest_result *r);

#endif
