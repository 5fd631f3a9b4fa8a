/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The search of `mglrulab bisect`, as a pure function over an oracle that
 * classifies a prefix kernel (the series' first k patches): no files, no
 * guests, so its unit tests script every outcome.
 *
 * Known before the search: prefix 0 is where the baseline is and prefix N
 * (the whole series) where the confirmed change is. The search keeps
 * lo (last prefix known at the baseline) and hi (first known at the end)
 * and probes a prefix between them, as git bisect does:
 *   AT_BASE     lo = k
 *   AT_END      hi = k
 *   BETWEEN     differs from both: the change is spread over patches in
 *               lo+1..k and k+1..hi; the search stops and says so
 *   UNDECIDED   the step's budget ran out without an answer: stop, with
 *               the range lo+1..hi the change lies in
 *   UNBUILDABLE skipped (git bisect skip): another prefix between lo and
 *               hi is probed, nearest the middle first
 * hi = lo + 1 names the culprit, patch hi. When only unbuildable prefixes
 * are left between lo and hi, the culprit is one of lo+1..hi.
 */
#ifndef LAB_BISECT_SEARCH_H
#define LAB_BISECT_SEARCH_H

enum bisect_class {
	BISECT_AT_BASE,
	BISECT_AT_END,
	BISECT_BETWEEN,
	BISECT_UNDECIDED,
	BISECT_UNBUILDABLE,
	BISECT_STOPPED,		/* interrupted or a lab failure: no answer, stop now */
};

enum bisect_outcome {
	BISECT_FOUND,		/* one patch: culprit */
	BISECT_SPREAD,		/* over several patches in first..last (split at split) */
	BISECT_SKIPPED_ONLY,	/* one of first..last; the prefixes between would not build */
	BISECT_INCONCLUSIVE,	/* a step ran out of budget: somewhere in first..last */
	BISECT_INTERRUPTED,
};

struct bisect_result {
	enum bisect_outcome outcome;
	long culprit;		/* BISECT_FOUND: the patch (1-based) */
	long first, last;	/* the patches the change lies in */
	long split;		/* BISECT_SPREAD: the prefix that differed from both ends */
	int probes;		/* prefixes the oracle was asked about */
};

/* Classify prefix @k (1 <= k < n) of the series; @data is the caller's. */
typedef enum bisect_class (*bisect_oracle_fn)(long k, void *data);

/* Search the @n-patch series (n >= 1) for the first prefix at the end. */
void bisect_search(long n, bisect_oracle_fn oracle, void *data, struct bisect_result *res);

/*
 * Where a prefix is from its two comparisons, per metric: @from_base,
 * @to_end are 1 when the session called a difference (improvement or
 * regression). Differs from the end only: at the baseline; from the
 * baseline only: at the end; from both: between; from neither: undecided.
 * Over @n metrics (@from_base[i], @to_end[i]): any undecided is undecided,
 * metrics that disagree make it between.
 */
enum bisect_class bisect_classify(const int *from_base, const int *to_end, int n);

const char *bisect_class_name(enum bisect_class c);
const char *bisect_outcome_name(enum bisect_outcome o);

#endif
