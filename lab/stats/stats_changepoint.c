// SPDX-License-Identifier: GPL-2.0
/*
 * Change points in a series of nights (stats.h, "Change points"): binary
 * segmentation over the boundaries between nights with a rank scan
 * statistic on every raw run, corrected for the spread between nights,
 * and a seeded permutation test.
 */
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The median of chi^2 with one degree of freedom. */
#define CHI2_1_MEDIAN 0.454936423119572

void stats_cp_settings_default(struct stats_cp_settings *s)
{
	s->alpha = STATS_CP_ALPHA;
	s->permutations = STATS_CP_PERMUTATIONS;
	s->min_nights = 2;
	s->seed = 1;
	s->clear = STATS_CP_CLEAR;
	s->gross = STATS_CP_GROSS;
	s->drawn = NULL;
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
	double phi;		/* overdispersion between nights (night_sums()) */
	double *dev;		/* scratch: k - 1 successive differences */
	/* A whole segment (seg_build()) keeps its values sorted, for seg_without(). */
	double *vals;		/* the runs, night by night */
	size_t *ord;		/* indices into vals, by value (ties by index) */
	size_t *nid;		/* the night of each value */
	size_t lo, hi;		/* candidate boundaries: lo <= t <= hi (nights on the left) */
};

/*
 * Each night's rank sum, and phi: how much more consecutive nights'
 * mean ranks differ than exchangeable runs would make them, the median
 * over the pairs of (mean_i+1 - mean_i)^2 / (var (1/n_i + 1/n_i+1)),
 * divided by the median of chi^2 with 1 degree of freedom, at least 1.
 * Successive differences leave the segment's steps out of it (a step is
 * one pair), the median its outlier nights.
 */
static void night_phi(struct seg *g)
{
	size_t m = 0;

	g->phi = 1;
	if (g->k < 3 || !(g->var_rank > 0))
		return;
	for (size_t i = 0; i + 1 < g->k; i++) {
		double d = g->sum[i + 1] / (double)g->n[i + 1] - g->sum[i] / (double)g->n[i];

		g->dev[m++] = d * d / (g->var_rank * (1 / (double)g->n[i] + 1 / (double)g->n[i + 1]));
	}
	g->phi = fmax(1, stats_median_inplace(g->dev, m) / CHI2_1_MEDIAN);
}

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
	night_phi(g);
}

/*
 * max over boundaries of |Z| / sqrt(phi): Z the tie-corrected
 * Mann-Whitney statistic of the runs left of the boundary against those
 * right of it, phi the segment's overdispersion between nights
 * (night_sums()). Prefix sums make one scan O(k). With @stat (and @zs),
 * each candidate boundary's statistic (and signed Z / sqrt(phi)) is kept.
 */
/* Totals and left-side prefix sums of a scan: rank sums, sum of s^2/n, runs. */
struct scan_sums {
	double S, Q, M, s1, q1, m1;
};

static void scan_totals(const struct seg *g, struct scan_sums *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < g->k; i++) {
		c->S += g->sum[i];
		c->Q += g->sum[i] * g->sum[i] / (double)g->n[i];
		c->M += (double)g->n[i];
	}
}

/* Night @i joins the left side. */
static inline void scan_step(const struct seg *g, struct scan_sums *c, size_t i)
{
	c->s1 += g->sum[i];
	c->q1 += g->sum[i] * g->sum[i] / (double)g->n[i];
	c->m1 += (double)g->n[i];
}

/* Z / sqrt(phi) at the boundary after the left side @c holds. */
static inline double boundary_z(const struct seg *g, const struct scan_sums *c)
{
	double N = (double)g->total, s1 = c->s1, q1 = c->q1, m1 = c->m1;
	double m2 = c->M - m1, s2 = c->S - s1, q2 = c->Q - q1, phi = g->phi;
	double u = s1 - m1 * (m1 + 1) / 2;
	double var = m1 * m2 / 12.0 * ((N + 1) - g->tie / (N * (N - 1)));
	double z = var > 0 ? (u - m1 * m2 / 2) / sqrt(var) : 0;

	/*
	 * The spread about each side's mean says the same as the
	 * successive differences when this boundary is the only
	 * change, and less with few nights: the smaller of the two.
	 */
	if (g->k > 2 && g->var_rank > 0)
		phi = fmax(1, fmin(phi, ((q1 - s1 * s1 / m1) + (q2 - s2 * s2 / m2)) /
				   g->var_rank / (double)(g->k - 2)));
	return z / sqrt(phi);
}

static double scan(const struct seg *g, double *stat, double *zs)
{
	double best = -1;
	struct scan_sums c;

	scan_totals(g, &c);
	for (size_t t = 1; t < g->k; t++) {
		scan_step(g, &c, t - 1);
		if (t < g->lo || t > g->hi)
			continue;
		double z = boundary_z(g, &c);

		if (stat)
			stat[t] = fabs(z);
		if (zs)
			zs[t] = z;
		best = fmax(best, fabs(z));
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

/* Nights [a, b) without night @skip (an index in [a, b), or (size_t)-1), ranked. */
static int cmp_by_value(const void *x, const void *y, void *ctx)
{
	const double *v = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;

	if (v[a] != v[b])
		return v[a] < v[b] ? -1 : 1;
	return (a > b) - (a < b);
}

static void seg_build(struct seg *g, const struct stats_cp_night *nights, size_t a, size_t b,
		      size_t skip)
{
	size_t off = 0, k = 0;
	double *vals, mean, v = 0;

	memset(g, 0, sizeof(*g));
	g->n = xmalloc((b - a) * sizeof(*g->n));
	for (size_t i = a; i < b; i++) {
		if (i == skip)
			continue;
		((size_t *)g->n)[k++] = nights[i].n;
		g->total += nights[i].n;
	}
	g->k = k;
	vals = xmalloc(g->total * sizeof(*vals));
	g->rank = xmalloc(g->total * sizeof(*g->rank));
	g->sum = xmalloc(k * sizeof(*g->sum));
	g->dev = xmalloc((k + 1) * sizeof(*g->dev));
	for (size_t i = a; i < b; i++) {
		if (i == skip)
			continue;
		memcpy(vals + off, nights[i].v, nights[i].n * sizeof(*vals));
		off += nights[i].n;
	}
	g->tie = stats_midranks(vals, g->total, g->rank);
	mean = ((double)g->total + 1) / 2;
	for (size_t i = 0; i < g->total; i++)
		v += (g->rank[i] - mean) * (g->rank[i] - mean);
	g->var_rank = v / (double)g->total;
	g->lo = 1;
	g->hi = k - 1;
	night_sums(g);
	g->vals = vals;
	g->ord = xmalloc((g->total + 1) * sizeof(*g->ord));
	g->nid = xmalloc((g->total + 1) * sizeof(*g->nid));
	off = 0;
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < g->n[i]; j++, off++)
			g->nid[off] = i;
	for (size_t i = 0; i < g->total; i++)
		g->ord[i] = i;
	qsort_r(g->ord, g->total, sizeof(*g->ord), cmp_by_value, vals);
}

/*
 * @g without its night @jl, ranked again in O(N): a value's midrank among
 * the others is its midrank minus the values of night @jl below it and
 * half of those tied with it, which one pass over @g's sorted order gives
 * (leaving one night out, for every night, no longer sorts k times).
 */
static void seg_without(const struct seg *g, size_t jl, struct seg *h)
{
	size_t start = 0, nj = g->n[jl], k = 0;
	double below = 0, tie = 0, N;

	memset(h, 0, sizeof(*h));
	h->n = xmalloc(g->k * sizeof(*h->n));
	for (size_t i = 0; i < g->k; i++) {
		if (i < jl)
			start += g->n[i];
		if (i != jl)
			((size_t *)h->n)[k++] = g->n[i];
	}
	h->k = k;
	h->total = g->total - nj;
	h->rank = xmalloc((h->total + 1) * sizeof(*h->rank));
	h->sum = xmalloc((k + 1) * sizeof(*h->sum));
	h->dev = xmalloc((k + 1) * sizeof(*h->dev));
	for (size_t p = 0, q; p < g->total; p = q) {
		double t = 0, mr;

		for (q = p; q < g->total && g->vals[g->ord[q]] == g->vals[g->ord[p]]; q++)
			t += g->nid[g->ord[q]] != jl;
		mr = below + (t + 1) / 2;
		for (size_t r = p; r < q; r++) {
			size_t idx = g->ord[r];

			if (g->nid[idx] != jl)
				h->rank[idx < start ? idx : idx - nj] = mr;
		}
		tie += t * t * t - t;
		below += t;
	}
	N = (double)h->total;
	h->tie = tie;
	h->var_rank = N > 0 ? ((N * N * N - N) - tie) / (12 * N) : 0;
	h->lo = 1;
	h->hi = k - 1;
	night_sums(h);
}

static void seg_release(struct seg *g)
{
	free((size_t *)g->n);
	free(g->rank);
	free(g->sum);
	free(g->dev);
	free(g->vals);
	free(g->ord);
	free(g->nid);
}

static int cmp_desc(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a < b) - (a > b);
}

/* Permutation maxima (sorted, largest first) at least @x: the p value's count. */
static size_t count_ge(const double *pm, size_t r, double x)
{
	size_t lo = 0, hi = r;

	x -= 1e-9 * fmax(1, fabs(x));
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pm[mid] >= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Permutations of the runs: the null distribution of the segment's
 * maximum when no boundary means anything, against @obs. Seeded from the
 * series' seed and @salt (the segment), so a segment tests the same way
 * every time. Stops as soon as @obs cannot be significant. Returns p; the
 * maxima drawn are left in @pm (unsorted), their number in *@used.
 */
static double perm_p(struct seg *g, double obs, const struct stats_cp_settings *s,
		     uint64_t salt, double *pm, size_t *used)
{
	double limit = s->alpha * ((double)s->permutations + 1), ge = 0;
	struct rng r;

	rng_seed(&r, s->seed ^ salt);
	*used = 0;
	for (size_t i = 0; i < s->permutations; i++) {
		double m;

		shuffle(g->rank, g->total, &r);
		night_sums(g);
		m = scan(g, NULL, NULL);
		if (pm)
			pm[i] = m;
		ge += m >= obs - 1e-9 * fmax(1, obs);
		*used = i + 1;
		if (ge + 1 > limit)
			break;
	}
	if (s->drawn)
		*s->drawn += *used;
	return (ge + 1) / ((double)*used + 1);
}

/*
 * An upper bound on the chance that one permutation's maximum reaches
 * @x (stats.h, "a clear statistic"). scan() divides each boundary's
 * Mann-Whitney Z by sqrt(phi), phi >= 1, so |Z| bounds it. At a boundary
 * with m runs on the left, Z = (S - m mu) / sd: S the sum of m of the N
 * midranks drawn without replacement (mean mu, variance sigma^2 = the
 * segment's var_rank, sd^2 = m (N - m) / (N - 1) sigma^2). Bernstein's
 * inequality for independent draws, which holds without replacement too
 * (Hoeffding 1963, theorem 4), with the deviation from the mean at most
 * b = (N - 1) / 2 and the smaller side's sample (the other side's sum is
 * its mirror): P(|S - m mu| >= s) <= 2 exp(-s^2 / (2 m' sigma^2 + 2 b s / 3)),
 * m' = min(m, N - m). Summed over the boundaries tested.
 */
static double null_tail(const struct seg *g, double x)
{
	double N = (double)g->total, sigma2 = g->var_rank, b = (N - 1) / 2, m = 0, sum = 0;

	if (!(sigma2 > 0) || N < 2)
		return 1;
	for (size_t t = 1; t < g->k; t++) {
		double mp, sd, dev;

		m += (double)g->n[t - 1];
		if (t < g->lo || t > g->hi)
			continue;
		mp = fmin(m, N - m);
		sd = sqrt(m * (N - m) / (N - 1) * sigma2);
		dev = x * sd;
		sum += 2 * exp(-dev * dev / (2 * mp * sigma2 + 2 * b * dev / 3));
	}
	return sum;
}

double stats_cp_null_tail(const struct stats_cp_night *nights, size_t k, size_t lo, size_t hi,
			  double x)
{
	struct seg g;
	double r;

	if (k < 2)
		return 1;
	seg_build(&g, nights, 0, k, (size_t)-1);
	g.lo = lo;
	g.hi = hi;
	r = null_tail(&g, x);
	seg_release(&g);
	return r;
}

static int is_clear(const struct seg *g, double x, const struct stats_cp_settings *s)
{
	return s->clear > 0 && null_tail(g, x) <= s->clear;
}

/* |Z| / sqrt(phi) at boundary @t alone: what scan() gives there, in O(k). */
static double scan_at(const struct seg *g, size_t t)
{
	struct scan_sums c;

	scan_totals(g, &c);
	for (size_t i = 0; i < t; i++)
		scan_step(g, &c, i);
	return fabs(boundary_z(g, &c));
}

/*
 * @g's values in order, for leaving one night out many times: the night
 * of each, and where each group of tied values starts.
 */
struct sorted_nights {
	size_t *nid, *group, ngroups;
};

static void sorted_nights(const struct seg *g, struct sorted_nights *o)
{
	o->nid = xmalloc((g->total + 1) * sizeof(*o->nid));
	o->group = xmalloc((g->total + 1) * sizeof(*o->group));
	o->ngroups = 0;
	for (size_t q = 0; q < g->total; q++) {
		o->nid[q] = g->nid[g->ord[q]];
		if (!q || g->vals[g->ord[q]] != g->vals[g->ord[q - 1]])
			o->group[o->ngroups++] = q;
	}
	o->group[o->ngroups] = g->total;
}

/*
 * The night sums, ties and phi of @g without night @jl, into @h (its
 * n, sum and dev allocated for g->k nights; no ranks): what seg_without()
 * and night_sums() give, summed straight from the sorted order. Midranks
 * are halves of integers, so their sums are exact in any order. @acc:
 * scratch for g->k sums.
 */
static void sums_without(const struct seg *g, const struct sorted_nights *o, size_t jl,
			 struct seg *h, double *acc)
{
	double below = 0, tie = 0, N;
	size_t k = 0;

	memset(acc, 0, g->k * sizeof(*acc));
	for (size_t gi = 0; gi < o->ngroups; gi++) {
		size_t p = o->group[gi], q = o->group[gi + 1];
		double t = 0, mr;

		if (q - p == 1) {
			if (o->nid[p] != jl) {
				below += 1;
				acc[o->nid[p]] += below;
			}
			continue;
		}
		for (size_t r = p; r < q; r++)
			t += o->nid[r] != jl;
		mr = below + (t + 1) / 2;
		for (size_t r = p; r < q; r++)
			if (o->nid[r] != jl)
				acc[o->nid[r]] += mr;
		tie += t * t * t - t;
		below += t;
	}
	for (size_t i = 0; i < g->k; i++) {
		if (i == jl)
			continue;
		((size_t *)h->n)[k] = g->n[i];
		h->sum[k++] = acc[i];
	}
	h->k = k;
	h->total = g->total - g->n[jl];
	N = (double)h->total;
	h->tie = tie;
	h->var_rank = N > 0 ? ((N * N * N - N) - tie) / (12 * N) : 0;
	h->lo = 1;
	h->hi = k - 1;
	night_phi(h);
}

/*
 * The night whose leaving out weakens boundary @t the most, beyond what
 * losing its runs would do to any night (Z of a steady shift grows as
 * sqrt(m1 m2 / N)): (size_t)-1 when every night is the only one of its
 * side. *@t2 is the boundary in the segment without it. O(k N): each
 * night left out is one pass over the sorted runs and O(k) for phi and
 * the boundary.
 */
static size_t most_influential(const struct seg *g, size_t t, double stat_t, size_t *t2)
{
	double m1 = 0, m2 = 0, best = INFINITY, *acc = xmalloc((g->k + 1) * sizeof(*acc));
	size_t worst = (size_t)-1;
	struct sorted_nights o;
	struct seg h;

	memset(&h, 0, sizeof(h));
	h.n = xmalloc((g->k + 1) * sizeof(*h.n));
	h.sum = xmalloc((g->k + 1) * sizeof(*h.sum));
	h.dev = xmalloc((g->k + 1) * sizeof(*h.dev));
	sorted_nights(g, &o);
	for (size_t i = 0; i < g->k; i++)
		*(i < t ? &m1 : &m2) += (double)g->n[i];
	for (size_t j = 0; j < g->k; j++) {
		int left = j < t;
		size_t tj = left ? t - 1 : t;
		double n = (double)g->n[j], l1 = left ? m1 - n : m1, l2 = left ? m2 : m2 - n;
		double expect, ratio;

		if (tj < 1 || tj > g->k - 2)
			continue;
		sums_without(g, &o, j, &h, acc);
		expect = stat_t * sqrt((l1 * l2 / (l1 + l2)) / (m1 * m2 / (m1 + m2)));
		ratio = expect > 0 ? scan_at(&h, tj) / expect : 1;
		if (ratio < best) {
			best = ratio;
			worst = j;
			*t2 = tj;
		}
	}
	seg_release(&h);
	free(o.nid);
	free(o.group);
	free(acc);
	return worst;
}

/* The boundary with the largest positive statistic in [lo, hi]; 0 if none. */
static size_t largest_boundary(const struct seg *g, const double *stat)
{
	size_t t = 0;

	for (size_t c = g->lo; c <= g->hi; c++)
		if (stat[c] > 0 && (!t || stat[c] > stat[t] + 1e-12))
			t = c;
	return t;
}

/*
 * The permutation p of boundary @t2 in segment @g without its night @j
 * (the one that carries most of the evidence), drawn with @salt.
 */
static double p_without_night(const struct seg *g, size_t j, size_t t2,
			      const struct stats_cp_settings *s, uint64_t salt)
{
	struct seg h;
	double *st = xcalloc(g->k + 1, sizeof(*st)), pj, o2;
	size_t u2;

	seg_without(g, j, &h);
	h.lo = j < g->lo ? g->lo - 1 : g->lo;
	h.hi = j < g->hi ? g->hi - 1 : g->hi;
	h.lo = h.lo ? h.lo : 1;
	h.hi = h.hi < h.k ? h.hi : h.k - 1;
	scan(&h, st, NULL);
	o2 = st[t2];
	if (!(o2 > 0))
		pj = 1;
	else if (is_clear(&h, o2, s))
		pj = 1 / ((double)s->permutations + 1);
	else
		pj = perm_p(&h, o2, s, salt, NULL, &u2);
	seg_release(&h);
	free(st);
	return pj;
}

/*
 * The gross step of segment [a, b) among boundaries @lo..@hi (nights on
 * the left; stats.h): the boundary whose sides are apart by the most
 * times their spread, at least @min; 0 when none. Each side's extremes
 * are prefix and suffix extremes of the nights', so a segment costs one
 * pass over its runs: it is asked of every segment the ranks leave
 * alone. On the logs when every run is positive: a step is a ratio.
 */
static size_t gross_step(const struct stats_cp_night *nights, size_t a, size_t b, size_t lo,
			 size_t hi, double min, double *ratio)
{
	size_t k = b - a, best = 0;
	double *lmin, *lmax, *rmin, *rmax, all_min = INFINITY;
	int logs;

	*ratio = 0;
	/*
	 * The spread of one night's level is the gap from one more night:
	 * with 2 nights before tonight it is far too often small by chance
	 * (bench/gross-step-sim: 5-8 % of series without a change when
	 * nights differ more than runs); from 3 nights on, or 2 and 2, it
	 * holds.
	 */
	if (k < 4)
		return 0;
	lmin = xmalloc((k + 1) * 4 * sizeof(double));
	lmax = lmin + k + 1;
	rmin = lmax + k + 1;
	rmax = rmin + k + 1;
	for (size_t i = 0; i < k; i++) {
		double mn = INFINITY, mx = -INFINITY;

		for (size_t j = 0; j < nights[a + i].n; j++) {
			mn = fmin(mn, nights[a + i].v[j]);
			mx = fmax(mx, nights[a + i].v[j]);
		}
		lmin[i + 1] = mn;	/* this night's, for now */
		lmax[i + 1] = mx;
		all_min = fmin(all_min, mn);
	}
	logs = all_min > 0;
	for (size_t i = 1; i <= k; i++) {
		if (logs) {
			lmin[i] = log(lmin[i]);
			lmax[i] = log(lmax[i]);
		}
		rmin[i - 1] = lmin[i];
		rmax[i - 1] = lmax[i];
	}
	/* l*[t]: nights [0, t); r*[t]: nights [t, k). */
	lmin[0] = INFINITY;
	lmax[0] = -INFINITY;
	for (size_t i = 1; i <= k; i++) {
		lmin[i] = fmin(lmin[i], lmin[i - 1]);
		lmax[i] = fmax(lmax[i], lmax[i - 1]);
	}
	rmin[k] = INFINITY;
	rmax[k] = -INFINITY;
	for (size_t i = k; i-- > 0;) {
		rmin[i] = fmin(rmin[i], rmin[i + 1]);
		rmax[i] = fmax(rmax[i], rmax[i + 1]);
	}
	for (size_t t = lo; t <= hi && t < k; t++) {
		double gap = fmax(rmin[t] - lmax[t], lmin[t] - rmax[t]);
		double spread = fmax(lmax[t] - lmin[t], rmax[t] - rmin[t]), r;

		if (!(gap > 0))
			continue;
		/* Both sides constant: apart by any amount is a change. */
		r = spread > 0 ? gap / spread : HUGE_VAL;
		if (r >= min && r > *ratio) {
			*ratio = r;
			best = t;
		}
	}
	free(lmin);
	return best;
}

/*
 * The segment's gross step as its change, when the ranks found none: p
 * is its boundary's own permutation p (the ranks' evidence, however weak).
 */
static int gross_change(const struct stats_cp_night *nights, size_t a, size_t b, struct seg *g,
			const double *zs, const struct stats_cp_settings *s, uint64_t salt,
			struct stats_cp *out)
{
	double ratio;
	size_t t = gross_step(nights, a, b, g->lo, g->hi, s->gross, &ratio), used;

	if (!t)
		return 0;
	out->at = a + t;
	out->z = zs[t];
	out->p = perm_p(g, fabs(zs[t]), s, salt, NULL, &used);
	out->gross = fmin(ratio, 1e9);
	return 1;
}

/*
 * Test segment [a, b) of @nights. The boundary t leaves at least
 * min_nights on each side, except that the right side may be one night
 * when @b is the end of the series (a change that started tonight).
 *
 * A boundary is a change when its statistic is significant against the
 * permutation distribution of the segment's maximum, and stays
 * significant, by its own permutation test, without the one night that
 * carries most of its evidence: one outlier night next to a boundary must
 * not make it a change. The change is the boundary with the largest
 * statistic that passes both (the three largest significant ones are
 * tried).
 */
static int test_segment(const struct stats_cp_night *nights, size_t a, size_t b, size_t end,
			const struct stats_cp_settings *s, struct stats_cp *out)
{
	size_t minl = s->min_nights, minr = b == end ? 1 : s->min_nights;
	size_t k = b - a, used = 0, allowed, tried = 0;
	double *stat = NULL, *zs = NULL, *pm = NULL, obs, p;
	int drawn;
	uint64_t salt = ((uint64_t)a * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)b << 32);
	struct seg g;
	int found = 0;

	if (k < minl + minr)
		return 0;
	seg_build(&g, nights, a, b, (size_t)-1);
	g.lo = minl;
	g.hi = k - minr;
	stat = xcalloc(k + 1, sizeof(*stat));
	zs = xcalloc(k + 1, sizeof(*zs));
	pm = xcalloc((size_t)s->permutations + 1, sizeof(*pm));
	obs = scan(&g, stat, zs);
	if (obs <= 0)
		goto out;
	/*
	 * A clear maximum is significant without drawing: no permutation
	 * would reach it (but with probability s->clear), so every count
	 * below is 0 out of s->permutations. The permutations are drawn
	 * when a boundary that is not clear needs its count: with the same
	 * seed and @obs, the same draws as drawing them first.
	 */
	drawn = !is_clear(&g, obs, s);
	if (drawn) {
		p = perm_p(&g, obs, s, salt, pm, &used);
		if (p > s->alpha)
			goto out;
		qsort(pm, used, sizeof(*pm), cmp_desc);
	} else {
		used = s->permutations;
	}
	/* Significant: at most @allowed permutation maxima reach it. */
	allowed = (size_t)floor(s->alpha * ((double)s->permutations + 1) + 1e-9) - 1;
	while (tried++ < 3) {
		size_t t = largest_boundary(&g, stat), j, t2 = 0, ge;

		if (!t)
			break;
		if (!drawn && !is_clear(&g, stat[t], s)) {
			perm_p(&g, obs, s, salt, pm, &used);
			qsort(pm, used, sizeof(*pm), cmp_desc);
			drawn = 1;
		}
		ge = drawn ? count_ge(pm, used, stat[t]) : 0;
		if (ge > allowed)
			break;
		j = most_influential(&g, t, stat[t], &t2);
		if (j != (size_t)-1 &&
		    p_without_night(&g, j, t2, s, salt ^ ((uint64_t)(a + j) << 16)) >
		    s->alpha) {
			stat[t] = 0;	/* try the next boundary */
			continue;
		}
		out->at = a + t;
		out->z = zs[t];
		out->p = ((double)ge + 1) / ((double)used + 1);
		found = 1;
		break;
	}
out:
	if (!found && s->gross > 0)
		found = gross_change(nights, a, b, &g, zs, s, salt, out);
	seg_release(&g);
	free(stat);
	free(zs);
	free(pm);
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

/* ---------------------------------------------------------------- */
/* Drifts: consecutive same-direction change points that a line fits.  */

void stats_cp_drift_settings_default(struct stats_cp_drift_settings *d)
{
	d->min_nights = STATS_CP_DRIFT_MIN_NIGHTS;
	d->bic = STATS_CP_DRIFT_BIC;
}

/* log of the night's 20 %-trimmed mean; NAN when a value is not positive. */
static double night_level(const struct stats_cp_night *n)
{
	double *v = xmalloc((n->n + 1) * sizeof(*v)), s = 0;
	size_t cut = n->n / 5, m = 0;

	memcpy(v, n->v, n->n * sizeof(*v));
	stats_sort(v, n->n);
	for (size_t i = cut; i < n->n - cut; i++, m++)
		s += v[i];
	s = v[0] > 0 && isfinite(v[n->n - 1]) ? log(s / (double)m) : NAN;
	free(v);
	return s;
}

/* Mann-Kendall S of y[a..b-1] against position; *var its null variance. */
static double mk_s(const double *y, size_t a, size_t b, double *var)
{
	double s = 0, n = (double)(b - a);

	for (size_t i = a; i < b; i++)
		for (size_t j = i + 1; j < b; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	*var = n * (n - 1) * (2 * n + 5) / 18;
	return s;
}

/* Theil-Sen slope of y[a..b-1] against position, and its intercept at a. */
static double theil_sen(const double *y, size_t a, size_t b, double *icpt)
{
	size_t n = b - a, m = 0;
	double *d = xmalloc((n * (n - 1) / 2 + 1) * sizeof(*d)), slope;

	for (size_t i = a; i < b; i++)
		for (size_t j = i + 1; j < b; j++)
			d[m++] = (y[j] - y[i]) / (double)(j - i);
	slope = m ? stats_median_inplace(d, m) : 0;
	for (size_t i = a; i < b; i++)
		d[i - a] = y[i] - slope * (double)(i - a);
	*icpt = stats_median_inplace(d, n);
	free(d);
	return slope;
}

/* Residuals clipped at 5 sigma (one outlier night weighs as one night). */
static double clipped(double r, double sigma)
{
	double c = 5 * sigma;

	return r * r < c * c ? r * r : c * c;
}

/* Clipped squares of y[from .. to-1] about their median. */
static double level_rss(const double *y, size_t from, size_t to, double sigma)
{
	double *t = xmalloc((to - from) * sizeof(*t)), lv, r = 0;

	memcpy(t, y + from, (to - from) * sizeof(*t));
	lv = stats_median_inplace(t, to - from);
	for (size_t i = from; i < to; i++)
		r += clipped(y[i] - lv, sigma);
	free(t);
	return r;
}

/*
 * Is the span y[b[g] .. b[h + 2] - 1], holding change points g..h (the
 * segment boundaries b[]), a drift? See stats.h.
 */
static int is_drift(const double *y, const size_t *b, size_t g, size_t h, int dir,
		    const struct stats_cp_drift_settings *ds)
{
	size_t a = b[g], c = b[h + 2], n = c - a, m = h - g + 1;
	double sigma, icpt, slope, rss_line = 0, rss_step, bic_line, *d;

	if (n < ds->min_nights || m > 12)
		return 0;
	/* The nights' noise, from successive differences (steps and drift barely move it). */
	d = xmalloc(n * sizeof(*d));
	for (size_t i = a + 1; i < c; i++)
		d[i - a - 1] = fabs(y[i] - y[i - 1]);
	sigma = 1.4826 * stats_median_inplace(d, n - 1) / sqrt(2);
	if (!(sigma > 0)) {
		free(d);
		return 0;
	}
	slope = theil_sen(y, a, c, &icpt);
	if (slope * dir <= 0) {		/* the line goes the steps' way */
		free(d);
		return 0;
	}
	for (size_t i = a; i < c; i++)
		rss_line += clipped(y[i] - icpt - slope * (double)(i - a), sigma);
	free(d);
	/*
	 * BIC: the line has 2 parameters, q steps q + 1 levels and q places.
	 * The steps are the best of any of the span's change points (a false
	 * one among them must not make the line look better); the line must
	 * be better than all by ds->bic (steps are the default).
	 */
	bic_line = (double)n * log(rss_line / (double)n) + 2 * log((double)n) + ds->bic;
	for (unsigned long mask = 1; mask < 1UL << m; mask++) {
		size_t q = 0, from = a;

		rss_step = 0;
		for (size_t j = 0; j <= m; j++) {
			size_t to = j < m ? b[g + j + 1] : c;

			if (j < m && !(mask >> j & 1))
				continue;
			rss_step += level_rss(y, from, to, sigma);
			from = to;
			q += j < m;
		}
		if ((double)n * log(rss_step / (double)n) + (double)(2 * q + 1) * log((double)n) <
		    bic_line)
			return 0;
	}
	return 1;
}

/* The longest run g..h of change points i..e that is a drift, the earliest first. */
static int longest_drift(const double *y, const size_t *b, size_t i, size_t e, int dir,
			 const struct stats_cp_drift_settings *ds, size_t *g, size_t *h)
{
	for (size_t len = e - i + 1; len; len--)
		for (size_t f = i; f + len - 1 <= e; f++)
			if (is_drift(y, b, f, f + len - 1, dir, ds)) {
				*g = f;
				*h = f + len - 1;
				return 1;
			}
	return 0;
}

size_t stats_cp_drifts(const struct stats_cp_night *nights, size_t k, const size_t *at,
		       size_t ncp, const struct stats_cp_drift_settings *ds,
		       struct stats_cp_drift **out)
{
	double *y = xmalloc((k + 1) * sizeof(*y)), *t = xmalloc((k + 1) * sizeof(*t));
	size_t *b = xmalloc((ncp + 2) * sizeof(*b)), n = 0, alloc = 0;
	int *dir = xcalloc(ncp + 1, sizeof(*dir));

	*out = NULL;
	for (size_t i = 0; i < k; i++)
		if (!nights[i].n || !isfinite(y[i] = night_level(&nights[i])))
			goto done;
	b[0] = 0;
	for (size_t j = 0; j < ncp; j++) {
		if (at[j] <= b[j] || at[j] >= k)
			goto done;
		b[j + 1] = at[j];
	}
	b[ncp + 1] = k;
	for (size_t j = 0; j < ncp; j++) {
		double l, r;

		memcpy(t, y + b[j], (b[j + 1] - b[j]) * sizeof(*t));
		l = stats_median_inplace(t, b[j + 1] - b[j]);
		memcpy(t, y + b[j + 1], (b[j + 2] - b[j + 1]) * sizeof(*t));
		r = stats_median_inplace(t, b[j + 2] - b[j + 1]);
		dir[j] = (r > l) - (r < l);
	}
	for (size_t i = 0; i < ncp;) {
		size_t e = i, g, h;

		while (e + 1 < ncp && dir[e + 1] == dir[i])
			e++;
		if (!dir[i] || !longest_drift(y, b, i, e, dir[i], ds, &g, &h)) {
			i = e + 1;
			continue;
		}
		{
			struct stats_cp_drift dr = { .from = b[g], .to = b[h + 2] - 1,
						     .first_cp = g, .ncp = h - g + 1 };
			double icpt, v, sk;

			dr.slope = theil_sen(y, b[g], b[h + 2], &icpt);
			sk = mk_s(y, b[g], b[h + 2], &v);
			dr.p = v > 0 ? 2 * stats_norm_sf((fabs(sk) - 1) / sqrt(v)) : 1;
			if (dr.p > 1)
				dr.p = 1;
			ALLOC_GROW(*out, n + 1, alloc);
			(*out)[n++] = dr;
		}
		i = h + 1;
	}
done:
	free(y);
	free(t);
	free(b);
	free(dir);
	return n;
}
