// SPDX-License-Identifier: GPL-2.0
/* The bisection's search over prefixes (bisect_search.h). Pure: no I/O. */
#include "bisect_search.h"
#include "util.h"

#include <stdlib.h>

/*
 * The prefix between @lo and @hi (exclusive) nearest their middle that is
 * not skipped, the lower one on a tie; 0 when there is none.
 */
static long pick(long lo, long hi, const unsigned char *skipped)
{
	long mid = lo + (hi - lo) / 2;

	for (long d = 0; d < hi - lo; d++) {
		if (mid - d > lo && !skipped[mid - d])
			return mid - d;
		if (mid + d < hi && !skipped[mid + d])
			return mid + d;
	}
	return 0;
}

void bisect_search(long n, bisect_oracle_fn oracle, void *data, struct bisect_result *res)
{
	unsigned char *skipped = xcalloc((size_t)n + 1, 1);
	long lo = 0, hi = n;

	res->outcome = BISECT_FOUND;
	res->culprit = res->split = 0;
	res->probes = 0;
	while (hi - lo > 1) {
		long k = pick(lo, hi, skipped);

		if (!k) {
			res->outcome = BISECT_SKIPPED_ONLY;
			break;
		}
		res->probes++;
		enum bisect_class c = oracle(k, data);
		if (c == BISECT_AT_BASE) {
			lo = k;
		} else if (c == BISECT_AT_END) {
			hi = k;
		} else if (c == BISECT_UNBUILDABLE) {
			skipped[k] = 1;
		} else {
			res->outcome = c == BISECT_BETWEEN ? BISECT_SPREAD :
				       c == BISECT_UNDECIDED ? BISECT_INCONCLUSIVE : BISECT_INTERRUPTED;
			res->split = k;
			break;
		}
	}
	res->first = lo + 1;
	res->last = hi;
	if (res->outcome == BISECT_FOUND)
		res->culprit = hi;
	free(skipped);
}

enum bisect_class bisect_classify(const int *from_base, const int *to_end, int n)
{
	enum bisect_class c = BISECT_UNDECIDED;

	for (int i = 0; i < n; i++) {
		int db = from_base[i], de = to_end[i];
		enum bisect_class mc = db && de ? BISECT_BETWEEN : db ? BISECT_AT_END :
				       de ? BISECT_AT_BASE : BISECT_UNDECIDED;

		if (mc == BISECT_UNDECIDED)
			return BISECT_UNDECIDED;
		c = i == 0 || c == mc ? mc : BISECT_BETWEEN;
	}
	return c;
}

const char *bisect_class_name(enum bisect_class c)
{
	static const char *const names[] = {
		[BISECT_AT_BASE] = "at-baseline", [BISECT_AT_END] = "at-series-end",
		[BISECT_BETWEEN] = "between", [BISECT_UNDECIDED] = "undecided",
		[BISECT_UNBUILDABLE] = "unbuildable", [BISECT_STOPPED] = "stopped",
	};
	return (unsigned)c < ARRAY_SIZE(names) ? names[c] : "?";
}

const char *bisect_outcome_name(enum bisect_outcome o)
{
	static const char *const names[] = {
		[BISECT_FOUND] = "found", [BISECT_SPREAD] = "spread",
		[BISECT_SKIPPED_ONLY] = "skipped-only", [BISECT_INCONCLUSIVE] = "inconclusive",
		[BISECT_INTERRUPTED] = "interrupted",
	};
	return (unsigned)o < ARRAY_SIZE(names) ? names[o] : "?";
}
