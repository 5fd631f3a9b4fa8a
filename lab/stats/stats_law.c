// SPDX-License-Identifier: GPL-2.0
/*
 * Drawing bootstrap medians fast: the exact resampling law of the median
 * and Walker's alias method to sample from it in O(1).
 */
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/*
 * The exact bootstrap distribution of the median (Maritz & Jarrett 1978):
 * which sorted positions a <= b end up as the two middle order statistics
 * of n draws with replacement (a == b for odd n). Sampling a resample's
 * median from this law is the same, in distribution, as drawing n runs
 * and taking their median, but costs O(1) instead of O(n), which is what
 * makes 10,000 resamples per metric cheap.
 *
 * With p(j) = (j + 1) / n the chance that one draw lands at or below
 * position j, and q = r = n / 2:
 *  odd n, k = (n - 1) / 2:   P(med = x_a) = F(k; a/n) - F(k; (a+1)/n)
 *  even n, a < b:            P(a, b) = C(n, r) [p(a)^q - (a/n)^q]
 *                                      [((n-b)/n)^r - ((n-b-1)/n)^r]
 *  even n, a == b:           P(X_(q-1) = a) minus the a < b terms,
 * where F(k; p) is the binomial CDF of Bin(n, p). tests/unit checks it
 * against full enumeration of every resample.
 */
static double binom_cdf(size_t n, double p, size_t k)
{
	double sum = 0, lgn = lgamma((double)n + 1);

	if (p <= 0)
		return 1.0;
	if (p >= 1)
		return k >= n ? 1.0 : 0.0;
	for (size_t i = 0; i <= k && i <= n; i++)
		sum += exp(lgn - lgamma((double)i + 1) -
			   lgamma((double)(n - i) + 1) + (double)i * log(p) +
			   (double)(n - i) * log1p(-p));
	return sum > 1 ? 1 : sum;
}

size_t stats_median_law(const double *sorted, size_t n, double *val,
			double *prob)
{
	double dn = (double)n;
	size_t m = 0;

	if (n & 1) {
		size_t k = (n - 1) / 2;

		for (size_t a = 0; a < n; a++) {
			val[m] = sorted[a];
			prob[m++] = binom_cdf(n, (double)a / dn, k) -
				    binom_cdf(n, (double)(a + 1) / dn, k);
		}
		return m;
	}
	size_t q = n / 2, k1 = q - 1;
	double lc = lgamma(dn + 1) - 2 * lgamma((double)q + 1);

	for (size_t a = 0; a < n; a++) {
		double pa = binom_cdf(n, (double)a / dn, k1) -
			    binom_cdf(n, (double)(a + 1) / dn, k1);
		double d1 = pow((double)(a + 1) / dn, (double)q) -
			    pow((double)a / dn, (double)q);
		size_t diag = m++;

		for (size_t b = a + 1; b < n; b++) {
			double d2 = pow((double)(n - b) / dn, (double)q) -
				    pow((double)(n - b - 1) / dn, (double)q);
			double pb = d1 > 0 && d2 > 0 ?
				    exp(lc + log(d1) + log(d2)) : 0.0;

			val[m] = stats_mid(sorted[a], sorted[b]);
			prob[m++] = pb;
			pa -= pb;
		}
		val[diag] = sorted[a];
		prob[diag] = pa > 0 ? pa : 0.0;
	}
	return m;
}

void stats_alias_build(struct stats_alias *t, const double *sorted, size_t n)
{
	size_t cap = n * (n + 1) / 2, m, ns = 0, nl = 0;
	double *prob = xmalloc(cap * sizeof(*prob)), total = 0;
	uint32_t *small = xmalloc(cap * sizeof(*small));
	uint32_t *large = xmalloc(cap * sizeof(*large));

	t->val = xmalloc(cap * sizeof(*t->val));
	m = stats_median_law(sorted, n, t->val, prob);
	t->m = m;
	t->cut = xmalloc(m * sizeof(*t->cut));
	t->alias = xmalloc(m * sizeof(*t->alias));
	for (size_t i = 0; i < m; i++)
		total += prob[i];
	for (size_t i = 0; i < m; i++) {
		prob[i] = prob[i] * (double)m / total;
		t->alias[i] = (uint32_t)i;
		if (prob[i] < 1.0)
			small[ns++] = (uint32_t)i;
		else
			large[nl++] = (uint32_t)i;
	}
	while (ns && nl) {
		uint32_t s = small[--ns], l = large[nl - 1];

		t->cut[s] = prob[s];
		t->alias[s] = l;
		prob[l] -= 1.0 - prob[s];
		if (prob[l] < 1.0) {
			nl--;
			small[ns++] = l;
		}
	}
	/* Leftovers are 1 up to rounding. */
	while (nl)
		t->cut[large[--nl]] = 1.0;
	while (ns)
		t->cut[small[--ns]] = 1.0;
	free(prob);
	free(small);
	free(large);
}

void stats_alias_release(struct stats_alias *t)
{
	free(t->val);
	free(t->cut);
	free(t->alias);
}
