/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /proc/vmstat and /sys/devices/system/node/nodeN/vmstat: "name value"
 * lines. Event counters (they only grow: pgfault, pswpin, numa_hit, ...)
 * are reported as deltas; gauges (nr_free_pages, ...) as before/after.
 * vmstat_classify() is the one place that decides which is which.
 *
 * Untrusted input: names must be [a-z0-9_], values integers; other lines
 * are counted in bad_lines. A counter that went backwards is flagged,
 * never wrapped into a huge delta.
 */
#ifndef LAB_COUNTERS_VMSTAT_H
#define LAB_COUNTERS_VMSTAT_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>

enum vmstat_kind {
	VMSTAT_EVENT,	/* cumulative: delta = after - before */
	VMSTAT_GAUGE,	/* a level: before and after */
};

enum vmstat_kind vmstat_classify(const char *name);

#define VMSTAT_MAX_ENTRIES 4096

struct vmstat_entry {
	char name[64];
	int64_t value;
};

struct vmstat {
	struct vmstat_entry *e;
	size_t n, alloc;
	size_t bad_lines;
	int truncated;	/* text did not end with a newline */
};

/* 0, or -1 when out of memory. Duplicated names keep the first value. */
LAB_MUST_CHECK
int vmstat_parse(const char *text, size_t len, struct vmstat *out);
void vmstat_release(struct vmstat *v);
/* Pointer to the value of @name, or NULL. */
const int64_t *vmstat_get(const struct vmstat *v, const char *name);

enum vmstat_delta_state {
	VMSTAT_DELTA_OK,
	VMSTAT_DELTA_BACKWARDS,		/* after < before: flagged, no delta */
	VMSTAT_DELTA_MISSING_BEFORE,
	VMSTAT_DELTA_MISSING_AFTER,
};

/* Delta of one event counter; *delta is set only for VMSTAT_DELTA_OK. */
enum vmstat_delta_state vmstat_delta(const struct vmstat *before, const struct vmstat *after,
				     const char *name, uint64_t *delta);

#endif
