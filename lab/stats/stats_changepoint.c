// SPDX-License-Identifier: GPL-2.0
/*
 * Change points in a series of nights (stats.h, "Change points"): binary
 * segmentation over the boundaries between nights with a rank scan
 * statistic on every raw run, corrected for the spread between nights,
 * and a seeded permutation test.
 */
#include "stats.h"
#include "stats_internal.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void stats_cp_settings_default(struct stats_cp_settings *s)
{
	s->alpha = STATS_CP_ALPHA;
	s->permutations = STATS_CP_PERMUTATIONS;
	s->min_nights = 2;
	s->seed = 1;
}

/* One segment's pooled midranks, in night order, and what the scan needs. */
struct seg {
	size_t k;		/* nights */
	const size_t *n;	/* runs per night */
	size_t total;
	double *rank;		/* pooled midranks, night by night */
	double *sum;		/* rank sum per night (recomputed per permutation) */
	double tie;		/* sum of t^3 - t over tie groups */
	double var_rank;	/* variance of the pooled ranks (population) */
	size_t lo, hi;		/* candidate boundaries: lo <= t <= hi (nights on the left) */
};

static void night_sums(struct seg *g)
{
	size_t off = 0;

	for (size_t i = 0; i < g->k; i++) {
		double s = 0;

		for (size_t j = 0; j < g->n[i]; j++)
			s += g->rank[off + j];
		g->sum[i] = s;
		off += g->n[i];
	}
}

/*
 * max over boundaries of |Z| / sqrt(phi): Z the tie-corrected
 * Mann-Whitney statistic of the runs left of the boundary against those
 * right of it, phi the overdispersion of the nights' mean ranks about
 * their side's mean (1 when the runs of different nights are exchangeable,
 * floored at 1). Prefix sums make one scan O(k).
 */
static double scan(const struct seg *g, size_t *at, double *zat)
{
	double N = (double)g->total, best = -1;
	double S = 0, Q = 0, M = 0;	/* totals: rank sums, sum of s^2/n, runs */
	double s1 = 0, q1 = 0, m1 = 0;

	for (size_t i = 0; i < g->k; i++) {
		S += g->sum[i];
		Q += g->sum[i] * g->sum[i] / (double)g->n[i];
		M += (double)g->n[i];
	}
	for (size_t t = 1; t < g->k; t++) {
		s1 += g->sum[t - 1];
		q1 += g->sum[t - 1] * g->sum[t - 1] / (double)g->n[t - 1];
		m1 += (double)g->n[t - 1];
		if (t < g->lo || t > g->hi)
			continue;
		double m2 = M - m1, s2 = S - s1, q2 = Q - q1;
		double u = s1 - m1 * (m1 + 1) / 2;
		double var = m1 * m2 / 12.0 * ((N + 1) - g->tie / (N * (N - 1)));
		double z = var > 0 ? (u - m1 * m2 / 2) / sqrt(var) : 0;
		double phi = 1;

		if (g->k > 2 && g->var_rank > 0) {
			double ss = (q1 - s1 * s1 / m1) + (q2 - s2 * s2 / m2);
			phi = fmax(1, ss / g->var_rank / (double)(g->k - 2));
		}
		double stat = fabs(z) / sqrt(phi);
		if (stat > best + 1e-12) {
			best = stat;
			*at = t;
			*zat = z / sqrt(phi);
		}
	}
	return best;
}

static void shuffle(double *x, size_t n, struct rng *r)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = rng_below(r, (uint32_t)i);
		double t = x[i - 1];

		x[i - 1] = x[j];
		x[j] = t;
	}
}

/*
 * Test segment [a, b) of @nights. The boundary t leaves at least
 * min_nights on each side, except that the right side may be one night
 * when @b is the end of the series (a change that started tonight).
 */
static int test_segment(const struct stats_cp_night *nights, size_t a, size_t b, size_t end,
			const struct stats_cp_settings *s, struct stats_cp *out)
{
	size_t minl = s->min_nights, minr = b == end ? 1 : s->min_nights;
	struct seg g = { 0 };
	double *vals, obs, z, ge = 0;
	size_t off = 0, at = 0, tmp, used = 0;
	size_t *n;
	struct rng r;
	int found = 0;

	if (b - a < minl + minr)
		return 0;
	g.k = b - a;
	n = xmalloc(g.k * sizeof(*n));
	for (size_t i = 0; i < g.k; i++) {
		n[i] = nights[a + i].n;
		g.total += n[i];
	}
	g.n = n;
	g.lo = minl;
	g.hi = g.k - minr;
	vals = xmalloc(g.total * sizeof(*vals));
	g.rank = xmalloc(g.total * sizeof(*g.rank));
	g.sum = xmalloc(g.k * sizeof(*g.sum));
	for (size_t i = 0; i < g.k; i++) {
		memcpy(vals + off, nights[a + i].v, n[i] * sizeof(*vals));
		off += n[i];
	}
	g.tie = stats_midranks(vals, g.total, g.rank);
	{
		double mean = ((double)g.total + 1) / 2, v = 0;

		for (size_t i = 0; i < g.total; i++)
			v += (g.rank[i] - mean) * (g.rank[i] - mean);
		g.var_rank = v / (double)g.total;
	}
	night_sums(&g);
	obs = scan(&g, &at, &z);
	if (obs <= 0)
		goto out;
	/*
	 * Permutations of the runs: the null distribution of the same
	 * statistic when no boundary means anything. Seeded from the
	 * series' seed and the segment, so a segment tests the same way
	 * every time it is tested. Stops as soon as the answer is known.
	 */
	rng_seed(&r, s->seed ^ ((uint64_t)a * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)b << 32));
	double limit = s->alpha * ((double)s->permutations + 1);
	for (size_t i = 0; i < s->permutations; i++) {
		double zz;

		shuffle(g.rank, g.total, &r);
		night_sums(&g);
		if (scan(&g, &tmp, &zz) >= obs - 1e-9 * fmax(1, obs))
			ge++;
		used = i + 1;
		if (ge + 1 > limit)
			break;
	}
	out->p = (ge + 1) / ((double)used + 1);
	out->at = a + at;
	out->z = z;
	found = ge + 1 <= limit;
out:
	free(vals);
	free(g.rank);
	free(g.sum);
	free(n);
	return found;
}

static int cmp_cp(const void *x, const void *y)
{
	const struct stats_cp *a = x, *b = y;

	return (a->at > b->at) - (a->at < b->at);
}

/* Binary segmentation: split where significant, then look inside each part. */
static void segment(const struct stats_cp_night *nights, size_t a, size_t b, size_t end,
		    const struct stats_cp_settings *s, struct stats_cp **cps, size_t *n,
		    size_t *alloc, int depth)
{
	struct stats_cp cp = { 0 };

	if (depth > 64 || !test_segment(nights, a, b, end, s, &cp))
		return;
	cp.tentative = end - cp.at < s->min_nights;
	ALLOC_GROW(*cps, *n + 1, *alloc);
	(*cps)[(*n)++] = cp;
	segment(nights, a, cp.at, end, s, cps, n, alloc, depth + 1);
	segment(nights, cp.at, b, end, s, cps, n, alloc, depth + 1);
}

size_t stats_changepoints(const struct stats_cp_night *nights, size_t k, size_t from,
			  const struct stats_cp_settings *s, struct stats_cp **out)
{
	size_t n = 0, alloc = 0;

	*out = NULL;
	for (size_t i = 0; i < k; i++)
		if (!nights[i].n || !nights[i].v)
			return 0;
	if (from < k)
		segment(nights, from, k, k, s, out, &n, &alloc, 0);
	if (n)
		qsort(*out, n, sizeof(**out), cmp_cp);
	return n;
}
