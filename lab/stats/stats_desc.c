// SPDX-License-Identifier: GPL-2.0
/*
 * Per metric and kernel: descriptive statistics, the exact median
 * interval, outlier flags and drift against run order.
 */
#include "stats.h"
#include "stats_defaults.h"
#include "stats_priv.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void stats_settings_default(struct stats_settings *s)
{
	s->alpha = STATS_DEFAULT_ALPHA;
	s->confidence = STATS_DEFAULT_CONFIDENCE;
	s->threshold = STATS_DEFAULT_THRESHOLD;
	s->power = STATS_DEFAULT_POWER;
	s->resamples = STATS_DEFAULT_RESAMPLES;
	s->seed = STATS_DEFAULT_SEED;
	s->max_failed_fraction = STATS_DEFAULT_MAX_FAILED;
	s->mw_exact_max = 1000;
	s->wilcoxon_exact_max = 50;
}

uint64_t stats_seed_for(uint64_t seed, const char *key)
{
	/* FNV-1a of the key, then mixed with the seed by splitmix64 so that
	 * nearby seeds or keys give unrelated streams. */
	uint64_t h = 0xcbf29ce484222325ULL, st;

	for (const unsigned char *p = (const unsigned char *)key; p && *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	st = seed ^ h;
	return splitmix64(&st);
}

double stats_median(const double *x, size_t n)
{
	double *t, m;

	if (n == 0)
		return NAN;
	t = xmalloc(n * sizeof(*t));
	memcpy(t, x, n * sizeof(*t));
	m = stats_median_inplace(t, n);
	free(t);
	return m;
}

int stats_median_ci_order(size_t n, double confidence, size_t *lo_order,
			  double *achieved)
{
	size_t l = 1;

	if (n == 0) {
		*lo_order = 0;
		*achieved = NAN;
		return 0;
	}
	/*
	 * P(x_(l) <= median <= x_(n+1-l)) = P(l <= B <= n - l) with
	 * B ~ Bin(n, 1/2) = 1 - 2 P(B <= l - 1). Widen from the inside out
	 * would also work; growing l from 1 stops at the narrowest that
	 * still covers. The 1e-12 slack keeps a coverage equal to the
	 * target from flipping on rounding. P(B <= l) is the running sum
	 * of stats_binom_half_cdf()'s terms in its order, so each step adds
	 * one term and gives its value bit for bit: calling it per l was
	 * quadratic (50,000 runs: seconds of lgamma per series).
	 */
	double lgn = lgamma((double)n + 1), ln2n = (double)n * M_LN2;
	double sum = exp(lgn - lgamma(1.0) - lgamma((double)n + 1) - ln2n);
	double cover = 1.0 - 2.0 * (sum > 1.0 ? 1.0 : sum);

	if (n == 1)
		cover = 0.0;
	if (cover < confidence - 1e-12) {
		*lo_order = 1;
		*achieved = cover;
		return 0;
	}
	while (2 * (l + 1) <= n + 1) {
		double next;

		sum += exp(lgn - lgamma((double)l + 1) -
			   lgamma((double)(n - l) + 1) - ln2n);
		next = 1.0 - 2.0 * (sum > 1.0 ? 1.0 : sum);

		if (next < confidence - 1e-12)
			break;
		l++;
		cover = next;
	}
	*lo_order = l;
	*achieved = cover;
	return 1;
}

/* Iglewicz & Hoaglin: 0.6745 = Phi^-1(0.75) makes MAD comparable to sigma. */
#define MODZ_LIMIT 3.5
#define MODZ_K 0.6745
/* For MAD = 0: the mean absolute deviation times sqrt(pi/2) estimates sigma. */
#define MEANAD_K 1.253314

static size_t flag_outliers(const double *x, size_t n, double med, double mad,
			    unsigned char *flags)
{
	double scale, count = 0;

	if (mad > 0) {
		scale = mad / MODZ_K;
	} else {
		double sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += fabs(x[i] - med);
		scale = MEANAD_K * sum / (double)n;
	}
	for (size_t i = 0; i < n; i++) {
		int out = scale > 0 && fabs(x[i] - med) / scale > MODZ_LIMIT;

		if (flags)
			flags[i] = (unsigned char)out;
		count += out;
	}
	return (size_t)count;
}

/*
 * The exact permutation p of Spearman's rho below STATS_SPEARMAN_EXACT_N
 * runs: the t approximation gave p = 0 to every perfectly ordered
 * sample, so with no trend at all 3 runs flagged a third of kernels
 * (2 of 3! orders are monotone) and 4-5 runs 8 %. Every one of the n!
 * pairings of the value ranks @rx with the order ranks @ro is equally
 * likely under no trend; p is the share whose centred cross product is
 * at least as far from 0 as the observed @sxy (midranks keep ties exact).
 * Heap's algorithm changes two positions per step, so the product is
 * updated in O(1): 9! = 362880 steps, about a millisecond.
 */
static double spearman_exact_p(const double *rx, const double *ro, size_t n, double sxy)
{
	double r[STATS_SPEARMAN_EXACT_N], o[STATS_SPEARMAN_EXACT_N], mo = 0, dot = 0, obs;
	size_t c[STATS_SPEARMAN_EXACT_N] = { 0 }, i = 1, hit = 1, total = 1;

	for (size_t k = 0; k < n; k++)
		mo += ro[k] / (double)n;
	for (size_t k = 0; k < n; k++) {
		r[k] = rx[k];
		o[k] = ro[k] - mo;
		dot += r[k] * o[k];
	}
	/* Rounding in the sums: a tie with the observed value must count. */
	obs = fabs(sxy) * (1 - 1e-9) - 1e-12;
	while (i < n) {
		if (c[i] < i) {
			size_t j = i % 2 ? c[i] : 0;
			double t = r[j];

			dot += (r[i] - r[j]) * (o[j] - o[i]);
			r[j] = r[i];
			r[i] = t;
			total++;
			hit += fabs(dot) >= obs;
			c[i]++;
			i = 1;
		} else {
			c[i++] = 0;
		}
	}
	return (double)hit / (double)total;
}

static void spearman(const double *x, const double *order, size_t n,
		     struct stats_summary *out)
{
	double *rx = xmalloc(n * sizeof(*rx)), *ro = xmalloc(n * sizeof(*ro));
	double *idx = NULL, mx = 0, mo = 0, sxy = 0, sxx = 0, syy = 0;

	if (!order) {
		idx = xmalloc(n * sizeof(*idx));
		for (size_t i = 0; i < n; i++)
			idx[i] = (double)i;
		order = idx;
	}
	stats_midranks(x, n, rx);
	stats_midranks(order, n, ro);
	/* Pearson correlation of the ranks: correct with ties, unlike the
	 * 1 - 6 sum d^2 shortcut. */
	for (size_t i = 0; i < n; i++) {
		mx += rx[i];
		mo += ro[i];
	}
	mx /= (double)n;
	mo /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxy += (rx[i] - mx) * (ro[i] - mo);
		sxx += (rx[i] - mx) * (rx[i] - mx);
		syy += (ro[i] - mo) * (ro[i] - mo);
	}
	if (n >= 3 && sxx > 0 && syy > 0) {
		double rho = sxy / sqrt(sxx * syy), df = (double)n - 2;

		if (rho > 1)
			rho = 1;
		if (rho < -1)
			rho = -1;
		out->drift_valid = 1;
		out->drift_rho = rho;
		if (n < STATS_SPEARMAN_EXACT_N)
			out->drift_p = spearman_exact_p(rx, ro, n, sxy);
		else if (fabs(rho) >= 1)
			out->drift_p = 0.0;
		else
			out->drift_p = stats_t_two_sided_p(
				rho * sqrt(df / ((1 - rho) * (1 + rho))), df);
	}
	free(rx);
	free(ro);
	free(idx);
}

int stats_summarize(const double *x, const double *order, size_t n,
		    double confidence, struct stats_summary *out,
		    unsigned char *outlier_flags)
{
	double *s, sum = 0, ss = 0;

	out->n = n;
	out->median = out->min = out->max = out->q1 = out->q3 = NAN;
	out->mean = out->stddev = out->cv = out->mad = NAN;
	out->outliers = 0;
	out->drift_valid = 0;
	out->drift_rho = out->drift_p = NAN;
	out->median_ci = (struct stats_median_ci){ 0, 0, 0, NAN, NAN, NAN,
						   "no runs" };
	if (outlier_flags && n)
		memset(outlier_flags, 0, n);
	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || (order && !isfinite(order[i])))
			return -1;

	s = xmalloc(n * sizeof(*s));
	memcpy(s, x, n * sizeof(*s));
	stats_sort(s, n);
	out->min = s[0];
	out->max = s[n - 1];
	out->median = stats_median_sorted(s, n);
	out->q1 = stats_quantile_sorted(s, n, 0.25);
	out->q3 = stats_quantile_sorted(s, n, 0.75);

	struct stats_median_ci *ci = &out->median_ci;

	ci->ok = stats_median_ci_order(n, confidence, &ci->lo_order,
				       &ci->achieved);
	ci->hi_order = n + 1 - ci->lo_order;
	ci->lo = s[ci->lo_order - 1];
	ci->hi = s[ci->hi_order - 1];
	ci->reason = ci->ok ? NULL : "too few runs";

	/* Two passes: the textbook one-pass formula cancels badly for
	 * large values with small spread (e.g. 1e9 switches/s +- 10). */
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	if (n >= 2) {
		out->stddev = sqrt(ss / (double)(n - 1));
		if (out->mean != 0)
			out->cv = out->stddev / fabs(out->mean);
	}

	for (size_t i = 0; i < n; i++)
		s[i] = fabs(x[i] - out->median);
	out->mad = stats_median_inplace(s, n);
	free(s);

	out->outliers = flag_outliers(x, n, out->median, out->mad,
				      outlier_flags);
	spearman(x, order, n, out);
	return 0;
}
