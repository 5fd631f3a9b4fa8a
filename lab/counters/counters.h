/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters of one run, from the guest's JSON lines to the report's JSON.
 *
 * A workload prints "snapshot" lines (raw text of /proc/vmstat, node
 * vmstat, lru_gen_full, tracepoint hist files) before and after each
 * measured phase, "info" lines for absent tracepoints, and a
 * "counter_overhead" info line. Feed every line to counters_add_line();
 * counters_delta_json() then returns:
 *
 *   { "phases": { "<label or main>": {
 *         "vmstat": { "events": {name: delta}, "gauges": {name: {"before","after"}},
 *                     "flags": [{"name","state","before","after"}],
 *                     "bad_lines", "truncated" },
 *         "nodes": { "<nid>": <same as vmstat> },
 *         "lru_gen": { "memcgs": [ { "id", "path", "nodes": [ { "node",
 *                      "min_seq_before", "max_seq_before", "min_seq_after",
 *                      "max_seq_after", "generations_added",
 *                      "mm_walk": {"leaf_total",...} , "generations": [...] } ] } ],
 *                      "bad_lines", "truncated" },
 *         "tracepoints": { "sys:event": {"count", "partial"} | {"absent": true, "reason"} },
 *         "overhead_ms": { "before", "after", "total" } } },
 *     "will_it_scale": { "testcase", "warmup_totals": [...], "measured_totals": [...],
 *                        "average", "consistent", "bad_lines", "truncated" },  (if any)
 *     "problems": [ "..." ] }
 *
 * Deltas are never negative: a counter that went backwards is listed in
 * "flags" (state "backwards") without a delta.
 */
#ifndef LAB_COUNTERS_H
#define LAB_COUNTERS_H

#include <jansson.h>

/*
 * Limits per run: the guest is untrusted, and its channel (256 MiB) could
 * otherwise hold 1.6 million tiny snapshot lines. A legitimate run has at
 * most a few thousand: (2 + nodes) snapshots before and after each phase
 * plus one hist file per tracepoint, times the phases (one per CPU count).
 * Lines past a limit are ignored and one problem names the limit; past
 * COUNTERS_MAX_PROBLEMS problems, the last entry says how many were left out.
 */
#define COUNTERS_MAX_SNAPSHOTS	16384	/* "snapshot" lines */
#define COUNTERS_MAX_INFOS	16384	/* tracepoint and counter_overhead "info" lines */
#define COUNTERS_MAX_NAME	256	/* bytes of a label, source or tracepoint name */
#define COUNTERS_MAX_PROBLEMS	100	/* entries of "problems", the last one included */

struct counters;

/*
 * One guest line as the counters read it, decoded once by
 * counters_line_decode() (counters_line.c). A member of another type
 * reads as absent (NULL, 0): the checks that make a line a problem are
 * counters_add_line()'s. The strings point into the line.
 */
enum counters_line_kind {
	COUNTERS_LINE_OTHER,		/* carries no counters: ignored */
	COUNTERS_LINE_SNAPSHOT,		/* "type": "snapshot" */
	COUNTERS_LINE_INFO,		/* "type": "info" */
};

struct counters_line {
	enum counters_line_kind kind;
	const char *label;		/* "main" when absent or empty */
	const char *phase, *source, *tracepoint, *name, *reason;
	const json_t *text;		/* the "text" string, or NULL */
	int truncated, absent;		/* true, not merely present */
	double before_ms, after_ms, total_ms;	/* 0 when not numbers */
};

void counters_line_decode(const json_t *line, struct counters_line *out);

struct counters *counters_new(void);
void counters_free(struct counters *c);
/*
 * Feed one guest line. Lines that carry no counters are ignored (0); a
 * snapshot line that is malformed, or a line past one of the limits
 * above, is recorded as a problem (-1). The line's strings are shared
 * (referenced), not copied.
 */
int counters_add_line(struct counters *c, const json_t *line);
/* Parse a whole JSON-lines text (each line fed as above); bad JSON is a problem. */
void counters_add_text(struct counters *c, const char *text, size_t len);
/* New reference to the counters JSON described above. */
json_t *counters_delta_json(const struct counters *c);
/*
 * A run record's "counters" from @delta, what counters_delta_json() made:
 * { "vmstat": {event: delta}, "tracepoints": {"sys:event": count},
 *   "lru_gen": {"nodeN.leaf_total": n, ..., "nodeN.generations_added": n} },
 * each number the sum over the phases (yield_pingpong measures each CPU
 * count as a phase of its own; event counts add up) and, for lru_gen, over
 * the memcgs, as reals. A flagged vmstat event, an absent tracepoint and a
 * node without both snapshots add nothing. The full structure stays the
 * record's "counters_detail". New reference (counters_flat.c).
 */
json_t *counters_flat_json(const json_t *delta);

/*
 * @o[@key], made empty the first time: a phase of the document's "phases"
 * by its label, a member of a phase ("nodes", "tracepoints"), as
 * counters_delta_json() builds them (counters_flat.c: its maps, keyed by
 * the guest's names, are read by key only beside their reader).
 */
json_t *counters_doc_member(json_t *o, const char *key);

/* The vmstat part alone (also used by tests): before/after texts to JSON. */
json_t *counters_vmstat_json(const char *before, size_t blen, const char *after, size_t alen);

#endif
