// SPDX-License-Identifier: GPL-2.0
/*
 * The disk budget's choice (watch_disk.h, watch_disk_plan()): pure, so
 * that which items go is tested without a disk (tests/unit/test_watch_disk.c).
 */
#include "watch_disk.h"

#include <stdlib.h>
#include <string.h>

/* Least recently used first; on a tie the larger (fewer removals), then by path. */
static int lru_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct watch_disk_item *v = ctx;
	const struct watch_disk_item *a = &v[*(const size_t *)pa], *b = &v[*(const size_t *)pb];

	if (a->used != b->used)
		return a->used < b->used ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return strcmp(a->path, b->path);
}

size_t watch_disk_plan(const struct watch_disk_item *v, size_t n, unsigned long long total,
		       unsigned long long budget, size_t *order)
{
	size_t m = 0, k = 0;

	for (size_t i = 0; i < n; i++)
		if (!v[i].pinned)
			order[m++] = i;
	/* (the cast: qsort_r's context is not const) */
	qsort_r(order, m, sizeof(*order), lru_cmp, (void *)v);
	for (; k < m && total > budget; k++)
		total -= v[order[k]].bytes < total ? v[order[k]].bytes : total;
	return k;
}
