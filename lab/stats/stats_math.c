// SPDX-License-Identifier: GPL-2.0
/*
 * Numerical building blocks for the statistics engine: distributions,
 * selection, ranks and the exact permutation distributions. Kept apart so
 * the methods in stats_*.c read as the formulas they implement.
 */
#include "stats_priv.h"
#include "sort_cmp.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

double stats_norm_sf(double x)
{
	/* erfc keeps precision far in the tail, 1 - cdf would not. */
	return 0.5 * erfc(x / M_SQRT2);
}

double stats_norm_quantile(double p)
{
	double q, r, val;

	if (!(p > 0.0))
		return p == 0.0 ? -INFINITY : NAN;
	if (!(p < 1.0))
		return p == 1.0 ? INFINITY : NAN;
	q = p - 0.5;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * (((((((r * 2509.0809287301226727 +
				  33430.575583588128105) * r + 67265.770927008700853) * r +
				45921.953931549871457) * r + 13731.693765509461125) * r +
			      1971.5909503065514427) * r + 133.14166789178437745) * r +
			    3.387132872796366608) /
			(((((((r * 5226.495278852545925 +
			       28729.085735721942674) * r + 39307.89580009271061) * r +
			     21213.794301586595867) * r + 5394.1960214247511077) * r +
			   687.1870074920579083) * r + 42.313330701600911252) * r + 1.0);
	}
	r = q < 0 ? p : 1.0 - p;
	r = sqrt(-log(r));
	if (r <= 5.0) {
		r -= 1.6;
		val = (((((((r * 7.7454501427834140764e-4 +
			     .0227238449892691845833) * r + .24178072517745061177) * r +
			   1.27045825245236838258) * r + 3.64784832476320460504) * r +
			 5.7694972214606914055) * r + 4.6303378461565452959) * r +
		       1.42343711074968357734) /
			(((((((r * 1.05075007164441684324e-9 +
			       5.475938084995344946e-4) * r + .0151986665636164571966) * r +
			     .14810397642748007459) * r + .68976733498510000455) * r +
			   1.6763848301838038494) * r + 2.05319162663775882187) * r + 1.0);
	} else {
		r -= 5.0;
		val = (((((((r * 2.01033439929228813265e-7 +
			     2.71155556874348757815e-5) * r + .0012426609473880784386) * r +
			   .026532189526576123093) * r + .29656057182850489123) * r +
			 1.7848265399172913358) * r + 5.4637849111641143699) * r +
		       6.6579046435011037772) /
			(((((((r * 2.04426310338993978564e-15 +
			       1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r +
			     7.868691311456132591e-4) * r + .0148753612908506148525) * r +
			   .13692988092273580531) * r + .59983220655588793769) * r + 1.0);
	}
	return q < 0 ? -val : val;
}

/*
 * One step of the modified Lentz algorithm for the coefficient @aa: @c and
 * @d updated, kept away from 0 by @tiny; the factor the fraction's value
 * is multiplied by.
 */
static double lentz_step(double aa, double *c, double *d, double tiny)
{
	*d = 1.0 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1.0 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1.0 / *d;
	return *d * *c;
}

/* Continued fraction for the incomplete beta (modified Lentz): an even and an odd step per m. */
static double betacf(double x, double a, double b)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 500; m++) {
		int m2 = 2 * m;
		double del;

		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d, tiny);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d, tiny);
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

double stats_incbeta(double x, double a, double b)
{
	double bt;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		 b * log1p(-x));
	/* The continued fraction converges fast only on this side. */
	if (x < (a + 1.0) / (a + b + 2.0))
		return bt * betacf(x, a, b) / a;
	return 1.0 - bt * betacf(1.0 - x, b, a) / b;
}

double stats_t_two_sided_p(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0.0;
	return stats_incbeta(df / (df + t * t), df / 2.0, 0.5);
}

/*
 * Regularized upper incomplete gamma Q(a, x): the series of P below
 * x < a + 1, Lentz's continued fraction of Q above (Numerical Recipes
 * 6.2), each on the side where it converges fast.
 */
static double gamma_q(double a, double x)
{
	const double eps = 1e-15, tiny = 1e-300;
	double lead = exp(-x + a * log(x) - lgamma(a));

	if (x < a + 1.0) {
		double ap = a, del = 1.0 / a, sum = del;

		for (int i = 0; i < 1000 && fabs(del) > fabs(sum) * eps; i++) {
			ap += 1.0;
			del *= x / ap;
			sum += del;
		}
		return 1.0 - sum * lead;
	}
	double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;

	for (int i = 1; i < 1000; i++) {
		double an = -i * (i - a), del;

		b += 2.0;
		d = an * d + b;
		if (fabs(d) < tiny)
			d = tiny;
		c = b + an / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return lead * h;
}

double stats_chi2_sf(double x, double df)
{
	if (isnan(x) || !(df > 0))
		return NAN;
	if (x <= 0)
		return 1.0;
	if (isinf(x))
		return 0.0;
	return gamma_q(df / 2.0, x / 2.0);
}

double stats_binom_half_cdf(size_t n, long k)
{
	double sum = 0.0, ln2n = (double)n * M_LN2, lgn = lgamma((double)n + 1);

	if (k < 0)
		return 0.0;
	if ((size_t)k >= n)
		return 1.0;
	for (long i = 0; i <= k; i++)
		sum += exp(lgn - lgamma((double)i + 1) -
			   lgamma((double)(n - (size_t)i) + 1) - ln2n);
	return sum > 1.0 ? 1.0 : sum;
}

void stats_sort(double *x, size_t n)
{
	/* Insertion sort wins for the run counts we see (n ~ 5..30). */
	if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			double v = x[i];
			size_t j = i;

			while (j > 0 && x[j - 1] > v) {
				x[j] = x[j - 1];
				j--;
			}
			x[j] = v;
		}
		return;
	}
	qsort(x, n, sizeof(*x), cmp_double);
}

static inline void swapd(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

double stats_select(double *x, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	/* Hoare's quickselect with median-of-three pivots; deterministic. */
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2, i, j;
		double pivot;

		if (x[mid] < x[lo])
			swapd(&x[mid], &x[lo]);
		if (x[hi] < x[lo])
			swapd(&x[hi], &x[lo]);
		if (x[hi] < x[mid])
			swapd(&x[hi], &x[mid]);
		pivot = x[mid];
		i = lo;
		j = hi;
		while (i <= j) {
			while (x[i] < pivot)
				i++;
			while (x[j] > pivot)
				j--;
			if (i <= j) {
				swapd(&x[i], &x[j]);
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			break;
	}
	return x[k];
}

double stats_select_quantile(double *x, size_t n, double p)
{
	double h = (double)(n - 1) * p, f, v, next;
	size_t i;

	if (h < 0)
		h = 0;
	i = (size_t)floor(h);
	if (i >= n - 1)
		return stats_select(x, n, n - 1);
	f = h - (double)i;
	v = stats_select(x, n, i);
	if (f == 0)
		return v;
	next = x[i + 1];
	for (size_t j = i + 2; j < n; j++)
		if (x[j] < next)
			next = x[j];
	if (next == v)
		return v;
	return stats_lerp(v, next, f);
}

double stats_quantile_sorted(const double *x, size_t n, double p)
{
	double h, f;
	size_t i;

	if (n == 0)
		return NAN;
	h = (double)(n - 1) * p;
	i = (size_t)floor(h);
	if (i + 1 >= n)
		return x[n - 1];
	f = h - (double)i;
	return stats_lerp(x[i], x[i + 1], f);
}

double stats_median_sorted(const double *x, size_t n)
{
	if (n == 0)
		return NAN;
	if (n & 1)
		return x[n / 2];
	return stats_mid(x[n / 2 - 1], x[n / 2]);
}

double stats_median_inplace(double *x, size_t n)
{
	double hi, lo;

	if (n == 0)
		return NAN;
	hi = stats_select(x, n, n / 2);
	if (n & 1)
		return hi;
	/* Everything left of n/2 is <= hi: the lower middle is their max. */
	lo = x[0];
	for (size_t i = 1; i < n / 2; i++)
		if (x[i] > lo)
			lo = x[i];
	return stats_mid(lo, hi);
}

int stats_cmp_vi(const void *a, const void *b)
{
	const struct stats_vi *x = a, *y = b;

	if (x->v != y->v)
		return (x->v > y->v) - (x->v < y->v);
	return (x->i > y->i) - (x->i < y->i);
}

double stats_midranks(const double *x, size_t n, double *rank)
{
	struct stats_vi *v = xmalloc(n * sizeof(*v));
	double ties = 0.0;

	for (size_t i = 0; i < n; i++) {
		v[i].v = x[i];
		v[i].i = i;
	}
	qsort(v, n, sizeof(*v), stats_cmp_vi);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[j + 1].v == v[i].v)
			j++;
		double r = ((double)i + (double)j) / 2.0 + 1.0;
		double t = (double)(j - i + 1);

		for (size_t k = i; k <= j; k++)
			rank[v[k].i] = r;
		ties += t * t * t - t;
		i = j + 1;
	}
	free(v);
	return ties;
}

double *stats_subset_sum_counts(const long *score, size_t n, size_t k,
				long *smax)
{
	long *sc = xmalloc((n ? n : 1) * sizeof(*sc));
	long *pre = xmalloc((n + 1) * sizeof(*pre));
	size_t width;
	double *cnt, *out;

	/* The distribution does not depend on item order; ascending scores
	 * bound the reachable sums tightly (see below). */
	memcpy(sc, score, n * sizeof(*sc));
	qsort(sc, n, sizeof(*sc), cmp_long);
	pre[0] = 0;
	for (size_t i = 0; i < n; i++)
		pre[i + 1] = pre[i] + sc[i];
	width = (size_t)pre[n] + 1;
	/* cnt[j * width + s]: subsets of size j of the items so far, sum s. */
	cnt = xcalloc((k + 1) * width, sizeof(*cnt));
	cnt[0] = 1.0;
	for (size_t i = 0; i < n; i++) {
		long v = sc[i];
		size_t jmax = i + 1 < k ? i + 1 : k;
		/* Sizes that can no longer grow to k are never read again. */
		size_t left = n - 1 - i, jmin = k > left + 1 ? k - left : 1;

		/* Downwards in j so each item is used at most once. */
		for (size_t j = jmax; j >= jmin && j >= 1; j--) {
			double *dst = cnt + j * width, *src = cnt + (j - 1) * width;
			/* j - 1 of the first i (ascending) items sum to at
			 * least the j - 1 smallest and at most the j - 1
			 * largest of them. */
			long lo = pre[j - 1] + v;
			long hi = pre[i] - pre[i - (j - 1)] + v;

			for (long s = hi; s >= lo; s--)
				dst[s] += src[s - v];
		}
	}
	*smax = pre[n];
	out = xmalloc(width * sizeof(*out));
	memcpy(out, cnt + k * width, width * sizeof(*out));
	free(cnt);
	free(pre);
	free(sc);
	return out;
}

double *stats_any_subset_sum_counts(const long *score, size_t n, long *smax)
{
	long total = 0, reach = 0;
	double *cnt;

	for (size_t i = 0; i < n; i++)
		total += score[i];
	cnt = xcalloc((size_t)total + 1, sizeof(*cnt));
	cnt[0] = 1.0;
	for (size_t i = 0; i < n; i++) {
		reach += score[i];
		for (long s = reach; s >= score[i]; s--)
			cnt[s] += cnt[s - score[i]];
	}
	*smax = total;
	return cnt;
}

double *stats_mw_null_cdf(size_t n1, size_t n2)
{
	size_t n = n1 + n2, mn = n1 * n2;
	long *score = xmalloc((n ? n : 1) * sizeof(*score));
	long smax, base = (long)(n1 * (n1 + 1) / 2);
	double *cnt, *cdf, total = 0.0, acc = 0.0;

	for (size_t i = 0; i < n; i++)
		score[i] = (long)i + 1;
	cnt = stats_subset_sum_counts(score, n, n1, &smax);
	free(score);
	cdf = xmalloc((mn + 1) * sizeof(*cdf));
	/* Rank sum S = U + n1(n1+1)/2, U in 0..n1 n2. */
	for (size_t u = 0; u <= mn; u++)
		total += cnt[(size_t)base + u];
	for (size_t u = 0; u <= mn; u++) {
		acc += cnt[(size_t)base + u];
		cdf[u] = acc / total;
	}
	free(cnt);
	return cdf;
}
