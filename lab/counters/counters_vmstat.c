// SPDX-License-Identifier: GPL-2.0
#include "counters_vmstat.h"

#include <stdlib.h>
#include <string.h>

/*
 * Counters whose name starts with nr_ but which only grow (node and
 * vmstat items that count events), and names without nr_ that are levels.
 */
static const char *const nr_events[] = {
	"nr_dirtied", "nr_written", "nr_foll_pin_acquired", "nr_foll_pin_released",
	"nr_tlb_remote_flush", "nr_tlb_remote_flush_received", "nr_tlb_local_flush_all",
	"nr_tlb_local_flush_one", "nr_vmscan_write", "nr_vmscan_immediate_reclaim",
	"nr_throttled_written",
};

static const char *const other_gauges[] = {
	"workingset_nodes",
};

enum vmstat_kind vmstat_classify(const char *name)
{
	for (size_t i = 0; i < sizeof(nr_events) / sizeof(nr_events[0]); i++)
		if (!strcmp(name, nr_events[i]))
			return VMSTAT_EVENT;
	for (size_t i = 0; i < sizeof(other_gauges) / sizeof(other_gauges[0]); i++)
		if (!strcmp(name, other_gauges[i]))
			return VMSTAT_GAUGE;
	/*
	 * Everything else named nr_* is a level (nr_free_pages, nr_dirty,
	 * nr_dirty_threshold, ...); everything not named nr_* is an event
	 * counter (pg*, pswp*, numa_*, thp_*, workingset_*, compact_*,
	 * allocstall_*, kswapd_*, slabs_scanned, unevictable_pgs_*, ...).
	 */
	return strncmp(name, "nr_", 3) ? VMSTAT_EVENT : VMSTAT_GAUGE;
}

static int valid_name(const char *s, size_t n)
{
	if (!n || n >= sizeof(((struct vmstat_entry *)0)->name))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* Parse a whole field as a signed 64-bit integer. 0 or -1. */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
	uint64_t v = 0, lim = INT64_MAX;
	size_t i = 0;
	int neg = 0;

	if (n && s[0] == '-') {
		neg = 1;
		lim = (uint64_t)INT64_MAX + 1;
		i = 1;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return -1;
		d = (unsigned)(s[i] - '0');
		if (v > (lim - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int add(struct vmstat *v, const char *name, size_t nl, int64_t val)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strncmp(v->e[i].name, name, nl) && !v->e[i].name[nl])
			return 0;
	/* Real files have a few hundred names; bound the quadratic check. */
	if (v->n >= VMSTAT_MAX_ENTRIES) {
		v->bad_lines++;
		return 0;
	}
	if (v->n == v->alloc) {
		size_t na = v->alloc ? v->alloc * 2 : 256;
		struct vmstat_entry *e = realloc(v->e, na * sizeof(*e));

		if (!e)
			return -1;
		v->e = e;
		v->alloc = na;
	}
	memcpy(v->e[v->n].name, name, nl);
	v->e[v->n].name[nl] = '\0';
	v->e[v->n].value = val;
	v->n++;
	return 0;
}

int vmstat_parse(const char *text, size_t len, struct vmstat *out)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i), *sp;
		size_t n = nl ? (size_t)(nl - line) : len - i;
		int64_t val;

		if (!nl) {
			/* A cut last line may hold a cut number: do not trust it. */
			out->truncated = 1;
			break;
		}
		i += n + 1;
		if (!n)
			continue;
		sp = memchr(line, ' ', n);
		if (!sp || !valid_name(line, (size_t)(sp - line)) ||
		    parse_i64(sp + 1, n - (size_t)(sp - line) - 1, &val)) {
			out->bad_lines++;
			continue;
		}
		if (add(out, line, (size_t)(sp - line), val)) {
			vmstat_release(out);
			return -1;
		}
	}
	return 0;
}

void vmstat_release(struct vmstat *v)
{
	free(v->e);
	memset(v, 0, sizeof(*v));
}

const int64_t *vmstat_get(const struct vmstat *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->e[i].name, name))
			return &v->e[i].value;
	return NULL;
}

enum vmstat_delta_state vmstat_delta(const struct vmstat *before, const struct vmstat *after,
				     const char *name, uint64_t *delta)
{
	const int64_t *b = vmstat_get(before, name), *a = vmstat_get(after, name);

	if (!b)
		return VMSTAT_DELTA_MISSING_BEFORE;
	if (!a)
		return VMSTAT_DELTA_MISSING_AFTER;
	if (*a < *b)
		return VMSTAT_DELTA_BACKWARDS;
	*delta = (uint64_t)*a - (uint64_t)*b;
	return VMSTAT_DELTA_OK;
}
