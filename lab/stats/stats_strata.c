// SPDX-License-Identifier: GPL-2.0
/*
 * Hosts as strata: van Elteren's stratified rank-sum test, the
 * inverse-variance pooled ratio and Cochran's Q (methods and references in
 * stats.h, "Hosts as strata"). A session on several hosts runs each block
 * on one host slot; comparing runs only within their host keeps the
 * machines' own speeds out of the kernel comparison.
 */
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A discrete law: support points and their probabilities. */
struct law {
	double *v, *p;
	size_t n;
};

struct vp {
	double v, p;
};

static int cmp_vp(const void *a, const void *b)
{
	double x = ((const struct vp *)a)->v, y = ((const struct vp *)b)->v;

	return (x > y) - (x < y);
}

/*
 * Sort and merge points equal up to rounding: T's values are sums of
 * s_h / (2 (N_h + 1)), so distinct ones lie at least 1 / (2 prod (N_h + 1))
 * apart, far above the tolerance.
 */
static void law_set(struct law *l, struct vp *pts, size_t n)
{
	size_t m = 0;

	qsort(pts, n, sizeof(*pts), cmp_vp);
	free(l->v);
	free(l->p);
	l->v = xmalloc((n ? n : 1) * sizeof(double));
	l->p = xmalloc((n ? n : 1) * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		if (m && pts[i].v - l->v[m - 1] <= 1e-9 * (1 + fabs(pts[i].v))) {
			l->p[m - 1] += pts[i].p;
			continue;
		}
		l->v[m] = pts[i].v;
		l->p[m++] = pts[i].p;
	}
	l->n = m;
}

/* The permutation law of c * W for one stratum, W the rank sum of @np of @score. */
static void stratum_law(const long *score2, size_t n, size_t np, double c, struct law *out)
{
	long smax;
	double *cnt = stats_subset_sum_counts(score2, n, np, &smax), total = 0;
	struct vp *pts = xmalloc(((size_t)smax + 1) * sizeof(*pts));
	size_t m = 0;

	for (long s = 0; s <= smax; s++)
		total += cnt[s];
	for (long s = 0; s <= smax; s++)
		if (cnt[s] > 0)
			pts[m++] = (struct vp){ c * ((double)s / 2.0), cnt[s] / total };
	memset(out, 0, sizeof(*out));
	law_set(out, pts, m);
	free(pts);
	free(cnt);
}

/* @acc convolved with @l; 0, or -1 (nothing changed) when it would be too large. */
static int law_convolve(struct law *acc, const struct law *l)
{
	struct vp *pts;
	size_t m = 0;

	if (acc->n * l->n > STATS_VE_EXACT_MAX)
		return -1;
	pts = xmalloc(acc->n * l->n * sizeof(*pts));
	for (size_t i = 0; i < acc->n; i++)
		for (size_t j = 0; j < l->n; j++)
			pts[m++] = (struct vp){ acc->v[i] + l->v[j], acc->p[i] * l->p[j] };
	law_set(acc, pts, m);
	free(pts);
	return 0;
}

static double law_two_sided(const struct law *l, double t)
{
	double tol = 1e-9 * (1 + fabs(t)), le = 0, ge = 0, p;

	for (size_t i = 0; i < l->n; i++) {
		if (l->v[i] <= t + tol)
			le += l->p[i];
		if (l->v[i] >= t - tol)
			ge += l->p[i];
	}
	p = 2.0 * (le < ge ? le : ge);
	return p > 1.0 ? 1.0 : p;
}

int stats_van_elteren(const struct stats_stratum *st, size_t k, size_t exact_max, double *z,
		      double *p, const char **method)
{
	struct law acc = { NULL, NULL, 0 }, one;
	double t = 0, mean = 0, var = 0, ties_all = 0;
	int exact = 1, any = 0, ret = -1;

	*z = *p = NAN;
	*method = "none";
	for (size_t h = 0; h < k; h++) {
		size_t nb = st[h].nb, np = st[h].np, n = nb + np;
		double *all, *rank, ties, w = 0, c, N = (double)n;
		long *score2;

		if (!nb || !np)
			continue;
		all = xmalloc(n * sizeof(*all));
		rank = xmalloc(n * sizeof(*rank));
		score2 = xmalloc(n * sizeof(*score2));
		memcpy(all, st[h].base, nb * sizeof(*all));
		memcpy(all + nb, st[h].patched, np * sizeof(*all));
		for (size_t i = 0; i < n; i++)
			if (!isfinite(all[i]))
				goto bad;
		ties = stats_midranks(all, n, rank);
		ties_all += ties;
		for (size_t i = nb; i < n; i++)
			w += rank[i];
		c = 1.0 / (N + 1);
		t += c * w;
		mean += c * (double)np * (N + 1) / 2.0;
		var += c * c * (double)nb * (double)np / 12.0 * ((N + 1) - ties / (N * (N - 1)));
		if (exact && nb * np <= exact_max) {
			for (size_t i = 0; i < n; i++)
				score2[i] = lround(2.0 * rank[i]);
			stratum_law(score2, n, np, c, &one);
			if (!any) {
				acc = one;
			} else {
				exact = !law_convolve(&acc, &one);
				free(one.v);
				free(one.p);
			}
		} else {
			exact = 0;
		}
		any = 1;
		free(all);
		free(rank);
		free(score2);
		continue;
bad:
		free(all);
		free(rank);
		free(score2);
		goto out;
	}
	if (!any)
		goto out;
	*z = var > 0 ? (t - mean) / sqrt(var) : 0;
	if (exact) {
		*p = law_two_sided(&acc, t);
		*method = ties_all > 0 ? "exact-ties" : "exact";
	} else {
		*p = var > 0 ? 2.0 * stats_norm_sf(fabs(*z)) : 1.0;
		if (*p > 1.0)
			*p = 1.0;
		*method = "normal";
	}
	ret = 0;
out:
	free(acc.v);
	free(acc.p);
	return ret;
}

int stats_pool_ratios(const double *ratio, const double *lo, const double *hi, size_t k,
		      double level, struct stats_pooled *out, unsigned char *used)
{
	double z = stats_norm_quantile(0.5 + level / 2), sw = 0, swy = 0, q = 0;
	double maxlo = -INFINITY, minhi = INFINITY;
	unsigned char *u = used ? used : xmalloc(k + 1);
	int ret = -1;

	memset(out, 0, sizeof(*out));
	out->log_ratio = out->se = out->ratio = out->lo = out->hi = NAN;
	out->q = out->q_p = out->i2 = NAN;
	out->level = level;
	memset(u, 0, k);
	if (!(z > 0) || !isfinite(z))
		goto out;
	for (size_t h = 0; h < k; h++) {
		double se = (log(hi[h]) - log(lo[h])) / (2 * z), w = 1 / (se * se);

		if (!(ratio[h] > 0) || !(lo[h] > 0) || !isfinite(ratio[h]) || !isfinite(hi[h]) ||
		    !(se > 0) || !isfinite(w))
			continue;
		sw += w;
		swy += w * log(ratio[h]);
		maxlo = fmax(maxlo, lo[h]);
		minhi = fmin(minhi, hi[h]);
		out->k++;
		u[h] = 1;
	}
	if (!out->k)
		goto out;
	out->log_ratio = swy / sw;
	out->se = 1 / sqrt(sw);
	out->ratio = exp(out->log_ratio);
	out->lo = exp(out->log_ratio - z * out->se);
	out->hi = exp(out->log_ratio + z * out->se);
	out->overlap = maxlo <= minhi;
	out->df = out->k - 1;
	ret = 0;
	if (out->k < 2)
		goto out;
	for (size_t h = 0; h < k; h++) {
		double se = (log(hi[h]) - log(lo[h])) / (2 * z), d;

		if (!u[h])
			continue;
		d = log(ratio[h]) - out->log_ratio;
		q += d * d / (se * se);
	}
	out->q = q;
	out->q_p = stats_chi2_sf(q, (double)out->df);
	out->i2 = q > 0 ? fmax(0, (q - (double)out->df) / q) : 0;
	out->heterogeneous = out->q_p < STATS_HET_ALPHA;
out:
	if (u != used)
		free(u);
	return ret;
}
