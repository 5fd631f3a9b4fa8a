// SPDX-License-Identifier: GPL-2.0
/*
 * Rank methods: the Mann-Whitney U test, the Hodges-Lehmann shift with its
 * interval, and the paired Wilcoxon signed-rank test. They make no
 * assumption about the shape of the distribution, which matters because
 * run times are skewed and often bimodal (a guest that hit a slow path).
 *
 * Exact p values come from the permutation distribution computed by
 * dynamic programming over the actual (mid)ranks: with ties, the classic
 * tables and scipy's "exact" method are wrong or refuse; counting subsets
 * of doubled midranks (always integers) is exact in every case.
 */
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Two-sided p from a count table, as scipy: 2 * min(lower, upper) tail. */
static double two_sided_from_counts(const double *cnt, long smax, long obs)
{
	double total = 0, le = 0, ge = 0, p;

	for (long s = 0; s <= smax; s++) {
		total += cnt[s];
		if (s <= obs)
			le += cnt[s];
		if (s >= obs)
			ge += cnt[s];
	}
	p = 2.0 * (le < ge ? le : ge) / total;
	return p > 1.0 ? 1.0 : p;
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       size_t exact_max, double *u, double *p,
		       enum stats_mw_method *method)
{
	size_t n = nx + ny;
	double *all, *rank, ties, r1 = 0;

	*u = *p = NAN;
	*method = STATS_MW_NONE;
	if (nx == 0 || ny == 0)
		return -1;
	all = xmalloc(n * sizeof(*all));
	rank = xmalloc(n * sizeof(*rank));
	memcpy(all, x, nx * sizeof(*all));
	memcpy(all + nx, y, ny * sizeof(*all));
	ties = stats_midranks(all, n, rank);
	for (size_t i = 0; i < nx; i++)
		r1 += rank[i];
	*u = r1 - (double)nx * ((double)nx + 1) / 2.0;

	if (nx * ny <= exact_max) {
		long *score = xmalloc(n * sizeof(*score)), smax;
		double *cnt;
		/* The smaller sample's rank sum carries the same two-sided
		 * p (the other is total minus it) and a smaller table. */
		size_t k = nx <= ny ? nx : ny;
		double rk = nx <= ny ? r1 : (double)n * ((double)n + 1) / 2 - r1;

		for (size_t i = 0; i < n; i++)
			score[i] = lround(2.0 * rank[i]);
		cnt = stats_subset_sum_counts(score, n, k, &smax);
		*p = two_sided_from_counts(cnt, smax, lround(2.0 * rk));
		*method = ties > 0 ? STATS_MW_EXACT_TIES : STATS_MW_EXACT;
		free(cnt);
		free(score);
	} else {
		double mn = (double)nx * (double)ny, N = (double)n;
		double var = mn / 12.0 * ((N + 1) - ties / (N * (N - 1)));
		double umax = *u > mn - *u ? *u : mn - *u;

		*method = STATS_MW_NORMAL;
		if (var <= 0) {
			*p = 1.0;
		} else {
			double z = (umax - mn / 2.0 - 0.5) / sqrt(var);

			*p = 2.0 * stats_norm_sf(z);
			if (*p > 1.0)
				*p = 1.0;
		}
	}
	free(all);
	free(rank);
	return 0;
}

/*
 * Exact order statistics of the n1 n2 differences y_j - x_i without
 * forming them (they were 20 GB and minutes for 50,000 runs a kernel).
 * With x and y ascending, the rounded difference fl(y_j - x_i) rises with
 * j and falls with i (IEEE rounding is monotone), so how many differences
 * are <= t is one two-pointer walk, O(n1 + n2). The k-th smallest is the
 * least double t whose count exceeds k: a binary search over the doubles
 * themselves, in the integer order of their bit patterns, needs at most 64
 * walks and lands on a difference the old code would have produced (the
 * count changes only at differences). A zero comes back as +0 (-0 and +0
 * compare equal, so no count tells them apart).
 */
static uint64_t dkey(double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static double dval(uint64_t k)
{
	uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

/* The counting walk of one order statistic (see select_by_count()). */
typedef uint64_t (*count_le_fn)(const double *a, size_t na, const double *b,
				size_t nb, double t);

/* #{(i, j) : fl(b_j - a_i) <= t}, a and b ascending. */
static uint64_t count_diff_le(const double *a, size_t na, const double *b,
			      size_t nb, double t)
{
	uint64_t c = 0;
	size_t j = 0;

	for (size_t i = 0; i < na; i++) {
		while (j < nb && b[j] - a[i] <= t)
			j++;
		c += j;
	}
	return c;
}

/* #{i <= j : fl(fl(d_i + d_j) / 2) <= t}, d ascending (Walsh averages). */
static uint64_t count_walsh_le(const double *d, size_t n, const double *unused,
			       size_t unused_n, double t)
{
	uint64_t c = 0;
	size_t p = n;	/* #{j : W(i, j) <= t}, falls as i rises */

	(void)unused;
	(void)unused_n;
	for (size_t i = 0; i < n; i++) {
		while (p > 0 && (d[i] + d[p - 1]) / 2.0 > t)
			p--;
		if (p > i)
			c += p - i;
		else
			break;	/* p only falls and i only rises */
	}
	return c;
}

/* The @k-th smallest (0-based) of the values @count counts, all in [lo, hi]. */
static double select_by_count(count_le_fn count, const double *a, size_t na,
			      const double *b, size_t nb, uint64_t k,
			      double lo, double hi)
{
	uint64_t l = dkey(lo), h = dkey(hi);

	while (l < h) {
		uint64_t mid = l + (h - l) / 2;

		if (count(a, na, b, nb, dval(mid)) > k)
			h = mid;
		else
			l = mid + 1;
	}
	return dval(l) + 0.0;
}

static double *sorted_copy(const double *x, size_t n, int use_log)
{
	double *c = xmalloc(n * sizeof(*c));

	for (size_t i = 0; i < n; i++)
		c[i] = use_log ? log(x[i]) : x[i];
	/* The logs themselves are sorted: the multiset of differences does
	 * not depend on the order, and no monotonicity of log() is assumed. */
	stats_sort(c, n);
	return c;
}

int stats_hodges_lehmann(const double *x, size_t nx, const double *y,
			 size_t ny, double conf, size_t exact_max, int use_log,
			 double *est, double *lo, double *hi, double *level)
{
	size_t mn = nx * ny, k = 1;
	double *sx, *sy, dmin, dmax;

	*est = *lo = *hi = *level = NAN;
	if (mn == 0)
		return -1;
	/* The same differences as ever: fl(log y_j - log x_i) or fl(y_j - x_i). */
	sx = sorted_copy(x, nx, use_log);
	sy = sorted_copy(y, ny, use_log);
	dmin = sy[0] - sx[nx - 1];
	dmax = sy[ny - 1] - sx[0];
#define D_(r) select_by_count(count_diff_le, sx, nx, sy, ny, (r), dmin, dmax)
	/* mn/2 - 1 and mn/2 make an even count's median as
	 * stats_median_sorted() does. */
	if (mn & 1)
		*est = D_(mn / 2);
	else
		*est = stats_mid(D_(mn / 2 - 1), D_(mn / 2));

	/*
	 * [D_(k), D_(mn+1-k)] covers the true shift with probability
	 * 1 - 2 P(U <= k - 1) under the no-ties null (Hollander & Wolfe,
	 * ch. 4). Largest k that still reaches @conf; k = 1 and a lower
	 * achieved level when the run counts are too small.
	 */
	if (mn <= exact_max) {
		double *cdf = stats_mw_null_cdf(nx, ny);

		*level = 1.0 - 2.0 * cdf[0];
		while (k + 1 <= (mn + 1) / 2 &&
		       1.0 - 2.0 * cdf[k] >= conf - 1e-12) {
			*level = 1.0 - 2.0 * cdf[k];
			k++;
		}
		free(cdf);
	} else {
		double sigma = sqrt((double)mn * (double)(nx + ny + 1) / 12.0);
		double z = stats_norm_quantile(1.0 - (1.0 - conf) / 2.0);
		double kk = floor((double)mn / 2.0 + 0.5 - z * sigma);

		k = kk < 1 ? 1 : (size_t)kk;
		if (k > (mn + 1) / 2)
			k = (mn + 1) / 2;
		*level = 1.0 - 2.0 * stats_norm_cdf(((double)k - 0.5 -
						      (double)mn / 2.0) / sigma);
	}
	*lo = D_(k - 1);
	*hi = D_(mn - k);
#undef D_
	free(sx);
	free(sy);
	return 0;
}

double stats_walsh_median(const double *d, size_t n)
{
	uint64_t nw = (uint64_t)n * (n + 1) / 2;
	double *s, lo, hi, m;

	if (n == 0)
		return NAN;
	s = sorted_copy(d, n, 0);
	lo = (s[0] + s[0]) / 2.0;	/* the least and greatest averages */
	hi = (s[n - 1] + s[n - 1]) / 2.0;
#define W_(r) select_by_count(count_walsh_le, s, n, NULL, 0, (r), lo, hi)
	if (nw & 1)
		m = W_(nw / 2);
	else
		m = stats_mid(W_(nw / 2 - 1), W_(nw / 2));
#undef W_
	free(s);
	return m;
}

int stats_paired(const double *base, const double *patched, size_t n_pairs,
		 const struct stats_settings *s, struct stats_paired *out)
{
	double *d, *ad, *rank, ties = 0;
	size_t nu = 0;

	memset(out, 0, sizeof(*out));
	out->n_pairs = n_pairs;
	out->median_ratio = out->hl_ratio = out->w_plus = out->p = NAN;
	out->method = "none";
	if (n_pairs == 0)
		return -1;
	for (size_t i = 0; i < n_pairs; i++)
		if (!(base[i] > 0) || !(patched[i] > 0) ||
		    !isfinite(base[i]) || !isfinite(patched[i]))
			return -1;

	d = xmalloc(n_pairs * sizeof(*d));
	for (size_t i = 0; i < n_pairs; i++)
		d[i] = log(patched[i]) - log(base[i]);
	out->median_ratio = exp(stats_median(d, n_pairs));

	/* Walsh averages: the one-sample Hodges-Lehmann estimator. */
	out->hl_ratio = exp(stats_walsh_median(d, n_pairs));

	/* Wilcoxon's zero handling: pairs with no change carry no sign. */
	ad = xmalloc(n_pairs * sizeof(*ad));
	for (size_t i = 0; i < n_pairs; i++)
		if (d[i] != 0)
			d[nu++] = d[i];
	out->n_used = nu;
	out->valid = 1;
	if (nu == 0) {
		out->w_plus = 0;
		out->p = 1.0;
		out->method = "exact";
		out->exact = 1;
		goto out;
	}
	rank = xmalloc(nu * sizeof(*rank));
	for (size_t i = 0; i < nu; i++)
		ad[i] = fabs(d[i]);
	ties = stats_midranks(ad, nu, rank);
	out->w_plus = 0;
	for (size_t i = 0; i < nu; i++)
		if (d[i] > 0)
			out->w_plus += rank[i];

	if (nu <= s->wilcoxon_exact_max) {
		long *score = xmalloc(nu * sizeof(*score)), smax;
		double *cnt;

		for (size_t i = 0; i < nu; i++)
			score[i] = lround(2.0 * rank[i]);
		cnt = stats_any_subset_sum_counts(score, nu, &smax);
		out->p = two_sided_from_counts(cnt, smax,
					       lround(2.0 * out->w_plus));
		out->exact = 1;
		out->method = ties > 0 ? "exact-ties" : "exact";
		free(cnt);
		free(score);
	} else {
		double n = (double)nu, mean = n * (n + 1) / 4.0;
		double var = n * (n + 1) * (2 * n + 1) / 24.0 - ties / 48.0;

		out->method = "normal";
		if (var <= 0) {
			out->p = 1.0;
		} else {
			double z = (fabs(out->w_plus - mean) - 0.5) / sqrt(var);

			out->p = z <= 0 ? 1.0 : 2.0 * stats_norm_sf(z);
			if (out->p > 1.0)
				out->p = 1.0;
		}
	}
	free(rank);
out:
	free(ad);
	free(d);
	return 0;
}
