/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for a tracepoint's `hist` file (kernel/trace/trace_events_hist.c,
 * hist_trigger_show()), one or more histograms:
 *
 *   # event histogram
 *   #
 *   # trigger info: hist:keys=common_type:vals=hitcount:... [active]
 *   #
 *
 *   { common_type:        312 } hitcount:      48213
 *
 *   Totals:
 *       Hits: 48213
 *       Entries: 1
 *       Dropped: 0
 *
 * The event count is Hits + Dropped (events that found the map full are
 * not in Hits). When Totals is missing (cut text) the hitcounts of the
 * entries are summed instead and the result is flagged partial.
 */
#ifndef LAB_COUNTERS_HIST_H
#define LAB_COUNTERS_HIST_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>

#define HIST_MAX 8

struct hist_one {
	char trigger[256];	/* the "trigger info" text */
	uint64_t hits, entries, dropped;
	int has_totals;
	uint64_t sum_hitcount;	/* sum over the entry lines */
	size_t nentries;	/* entry lines seen */
};

struct hist_file {
	struct hist_one h[HIST_MAX];
	int n;
	size_t bad_lines;
};

/* Always succeeds (no allocation); garbage lines are counted. */
void hist_parse(const char *text, size_t len, struct hist_file *out);
/*
 * The count of events seen by the first histogram whose trigger starts
 * with @prefix (NULL: any) and is not paused (a paused one counts nothing).
 * Returns 0 on success, 1 if the count is only partial (no Totals), -1 if
 * there is no such histogram.
 */
LAB_MUST_CHECK
int hist_count(const struct hist_file *f, const char *prefix, uint64_t *count);

#endif
