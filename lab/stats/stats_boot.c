// SPDX-License-Identifier: GPL-2.0
/*
 * Patched against baseline: ratio of medians with its bootstrap interval,
 * the rank tests and the minimum detectable effect.
 *
 * Speed matters (a report holds hundreds of metrics, each bootstrapped
 * 10,000 times), so a resample never copies or sorts values: its median
 * is drawn from the exact resampling law of the median (stats_law.c) in
 * O(1). Past STATS_LAW_MAX_N runs, a resample only counts how often each
 * sorted position was drawn and reads the median off the running count:
 * O(n), still with no comparisons.
 */
#include "stats.h"
#include "stats_priv.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Median of a resample given per-position draw counts @cnt of the sorted
 * array @sorted (@m values drawn in total).
 */
static inline double median_from_counts(const double *sorted,
					const uint32_t *cnt, size_t m)
{
	size_t k1 = (m - 1) / 2, k2 = m / 2, cum = 0, i = 0;
	double lo;

	while (cum + cnt[i] <= k1)
		cum += cnt[i++];
	lo = sorted[i];
	if (k2 == k1)
		return lo;
	while (cum + cnt[i] <= k2)
		cum += cnt[i++];
	return stats_mid(lo, sorted[i]);
}

static inline double boot_median(struct rng *r, const double *sorted,
				 size_t n, uint32_t *cnt)
{
	uint32_t nn = (uint32_t)n, t = -nn % nn;
	size_t i = 0;

	memset(cnt, 0, n * sizeof(*cnt));
	/*
	 * Two draws per 64-bit output: each 32-bit half goes through
	 * Lemire's multiply-shift with its own rejection test, so the draws
	 * stay exactly uniform while the generator runs half as often.
	 */
	while (i < n) {
		uint64_t x = rng_next(r);

		for (int h = 0; h < 2 && i < n; h++, x >>= 32) {
			uint64_t m = (uint64_t)(uint32_t)x * nn;

			if ((uint32_t)m < t)
				continue;
			cnt[m >> 32]++;
			i++;
		}
	}
	return median_from_counts(sorted, cnt, n);
}

/* median(B*) / median(A*) where a zero median is possible (counters):
 * 0/0 counts as "no change". */
static inline double ratio_of(double b, double a)
{
	if (a == b)
		return 1.0;
	return b / a;
}

/* Leave-one-out median of an ascending array: skip position @skip. */
static double median_without(const double *sorted, size_t n, size_t skip)
{
	size_t m = n - 1, k1 = (m - 1) / 2, k2 = m / 2;
	double a = sorted[k1 < skip ? k1 : k1 + 1];
	double b = sorted[k2 < skip ? k2 : k2 + 1];

	return stats_mid(a, b);
}

/*
 * Acceleration for a two-sample statistic from each sample's jackknife
 * influence values (Efron & Tibshirani 1993, eq. 14.15 extended to k
 * samples): a = sum_k sum_i U^3 / n_k^3 / (6 (sum_k sum_i U^2 / n_k^2)^1.5).
 */
static double bca_acceleration(const double *sa, size_t na, const double *sb,
			       size_t nb, double mb_log, double ma_log)
{
	double num = 0, den = 0;

	for (int k = 0; k < 2; k++) {
		const double *s = k ? sb : sa;
		size_t n = k ? nb : na;
		double *t = xmalloc(n * sizeof(*t)), mean = 0;

		for (size_t i = 0; i < n; i++) {
			double m = median_without(s, n, i);

			t[i] = k ? log(m) - ma_log : mb_log - log(m);
			mean += t[i];
		}
		mean /= (double)n;
		for (size_t i = 0; i < n; i++) {
			double u = (double)(n - 1) * (mean - t[i]);
			double n2 = (double)n * (double)n;

			num += u * u * u / (n2 * (double)n);
			den += u * u / n2;
		}
		free(t);
	}
	if (!(den > 0) || !isfinite(num))
		return NAN;
	return num / (6.0 * pow(den, 1.5));
}

static void bootstrap_ratio(const double *sa, size_t na, const double *sb,
			    size_t nb, const struct stats_settings *s,
			    uint64_t seed, struct stats_comparison *out)
{
	unsigned B = s->resamples;
	double *rep = xmalloc(B * sizeof(*rep));
	uint32_t *cnt = xmalloc((na > nb ? na : nb) * sizeof(*cnt));
	double lower = 0, equal = 0;
	/* Computed exactly as the replicates are, so ties compare equal. */
	double theta = ratio_of(out->median_patched, out->median_base);
	double tail = (1.0 - s->confidence) / 2.0, p_lo = tail, p_hi = 1 - tail;
	struct rng r;

	rng_seed(&r, seed);
	if (na <= STATS_LAW_MAX_N && nb <= STATS_LAW_MAX_N) {
		struct stats_alias ta, tb;

		stats_alias_build(&ta, sa, na);
		stats_alias_build(&tb, sb, nb);
		for (unsigned b = 0; b < B; b++) {
			double ma = stats_alias_draw(&ta, &r);

			rep[b] = ratio_of(stats_alias_draw(&tb, &r), ma);
		}
		stats_alias_release(&ta);
		stats_alias_release(&tb);
	} else {
		for (unsigned b = 0; b < B; b++) {
			double ma = boot_median(&r, sa, na, cnt);

			rep[b] = ratio_of(boot_median(&r, sb, nb, cnt), ma);
		}
	}
	for (unsigned b = 0; b < B; b++) {
		lower += rep[b] < theta;
		equal += rep[b] == theta;
	}
	free(cnt);

	out->ci_method = "percentile";
	if (na >= 2 && nb >= 2) {
		double p0 = (lower + 0.5 * equal) / B, z0, a, zl, zu;

		/* Keep z0 finite when every replicate falls on one side. */
		if (p0 < 0.5 / B)
			p0 = 0.5 / B;
		if (p0 > 1 - 0.5 / B)
			p0 = 1 - 0.5 / B;
		z0 = stats_norm_quantile(p0);
		a = bca_acceleration(sa, na, sb, nb, log(out->median_patched),
				     log(out->median_base));
		zl = z0 + stats_norm_quantile(tail);
		zu = z0 + stats_norm_quantile(1 - tail);
		double a1 = stats_norm_cdf(z0 + zl / (1 - a * zl));
		double a2 = stats_norm_cdf(z0 + zu / (1 - a * zu));

		if (isfinite(a1) && isfinite(a2) && a1 < a2 &&
		    1 - a * zl > 0 && 1 - a * zu > 0) {
			p_lo = a1;
			p_hi = a2;
			out->ci_method = "bca";
		}
	}
	out->ratio_lo = stats_select_quantile(rep, B, p_lo);
	out->ratio_hi = stats_select_quantile(rep, B, p_hi);
	free(rep);
}

/*
 * Robust noise of log values pooled over @k samples, each about its own
 * median: 1.4826 * MAD, or the pooled stddev when the MAD is 0 (half the
 * runs identical is not "no noise").
 */
static double pooled_log_noise(const double *const *x, const size_t *n,
			       int k)
{
	size_t total = 0, j = 0;
	double *dev, sd, ss = 0;

	for (int a = 0; a < k; a++)
		total += n[a];
	dev = xmalloc(total * sizeof(*dev));
	for (int a = 0; a < k; a++) {
		double lm = log(stats_median_sorted(x[a], n[a]));

		for (size_t i = 0; i < n[a]; i++)
			dev[j++] = fabs(log(x[a][i]) - lm);
	}
	sd = 1.4826 * stats_median_inplace(dev, total);
	free(dev);
	if (sd > 0)
		return sd;
	for (int a = 0; a < k; a++) {
		double m = 0;

		for (size_t i = 0; i < n[a]; i++)
			m += log(x[a][i]);
		m /= (double)n[a];
		for (size_t i = 0; i < n[a]; i++)
			ss += (log(x[a][i]) - m) * (log(x[a][i]) - m);
	}
	return sqrt(ss / (double)(total - (size_t)k));
}

/*
 * A kernel whose runs all gave one value (a quantised metric, a counter)
 * tells nothing about the noise: pooling its zero deviations shrank the
 * MDE, and two such kernels gave exactly 0 %. The noise then comes from
 * the other kernel alone, or there is no estimate (NaN, with a note).
 */
static void minimum_detectable_effect(const double *sa, size_t na,
				      const double *sb, size_t nb,
				      const struct stats_settings *s,
				      struct stats_comparison *out)
{
	const double *x[2] = { sa, sb };
	size_t n[2] = { na, nb };
	int flat_a = sa[0] == sa[na - 1], flat_b = sb[0] == sb[nb - 1];
	double sd, d;

	if (flat_a && flat_b) {
		out->mde_note = "no noise estimate: every run of each kernel "
				"gave the same value";
		return;
	}
	if (flat_a) {
		sd = pooled_log_noise(&x[1], &n[1], 1);
		out->mde_note = "noise from the patched runs only: every "
				"baseline run gave the same value";
	} else if (flat_b) {
		sd = pooled_log_noise(&x[0], &n[0], 1);
		out->mde_note = "noise from the baseline runs only: every "
				"patched run gave the same value";
	} else {
		sd = pooled_log_noise(x, n, 2);
	}
	d = (stats_norm_quantile(1 - s->alpha / 2) +
	     stats_norm_quantile(s->power)) * sd *
	    sqrt(1.0 / (double)na + 1.0 / (double)nb) * sqrt(M_PI / 3.0);
	out->mde_pct = 100.0 * expm1(d);
}

/* Every field NaN or "none": what a comparison that cannot be made shows. */
static void comparison_init(struct stats_comparison *out, size_t nb, size_t np,
			    const struct stats_settings *s)
{
	memset(out, 0, sizeof(*out));
	out->n_base = nb;
	out->n_patched = np;
	out->median_base = out->median_patched = NAN;
	out->ratio = out->delta_pct = out->ratio_lo = out->ratio_hi = NAN;
	out->ci_level = s->confidence;
	out->ci_method = "none";
	out->mw_u = out->mw_p = NAN;
	out->mw_method = STATS_MW_NONE;
	out->mw_method_name = "none";
	out->hl_shift = out->hl_lo = out->hl_hi = out->hl_level = NAN;
	out->hl_ratio = out->hl_ratio_lo = out->hl_ratio_hi = NAN;
	out->mde_pct = NAN;
}

static int all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return 0;
	return 1;
}

static double *sorted_copy(const double *x, size_t n)
{
	double *s = xmalloc(n * sizeof(*s));

	memcpy(s, x, n * sizeof(*s));
	stats_sort(s, n);
	return s;
}

/*
 * The Hodges-Lehmann shift, and for positive values its ratio (the shift
 * of the logs) with the minimum detectable effect.
 */
static void hodges_lehmann_both(const double *sa, size_t nb,
				const double *sb, size_t np,
				const struct stats_settings *s,
				struct stats_comparison *out)
{
	double e, l, h, lev;

	stats_hodges_lehmann(sa, nb, sb, np, s->confidence, s->mw_exact_max, 0,
			     &out->hl_shift, &out->hl_lo, &out->hl_hi,
			     &out->hl_level);
	if (!(sa[0] > 0 && sb[0] > 0))
		return;
	stats_hodges_lehmann(sa, nb, sb, np, s->confidence,
			     s->mw_exact_max, 1, &e, &l, &h, &lev);
	out->hl_ratio = exp(e);
	out->hl_ratio_lo = exp(l);
	out->hl_ratio_hi = exp(h);
	if (nb >= 2 && np >= 2)
		minimum_detectable_effect(sa, nb, sb, np, s, out);
}

/* The ratio of the medians and its bootstrap interval, when there is one. */
static void ratio_of_medians(const double *sa, size_t nb,
			     const double *sb, size_t np,
			     const struct stats_settings *s, uint64_t seed,
			     struct stats_comparison *out)
{
	int nonneg = sa[0] >= 0 && sb[0] >= 0;

	out->ratio_valid = nonneg && out->median_base > 0 &&
			   out->median_patched > 0;
	/* Medians 1e300 apart overflow (or underflow) the quotient: a
	 * ratio of inf or 0 is no ratio, whatever the medians are. */
	if (out->ratio_valid) {
		double r = out->median_patched / out->median_base;

		out->ratio_valid = isfinite(r) && r > 0;
	}
	if (!out->ratio_valid)
		return;
	out->ratio = out->median_patched / out->median_base;
	out->delta_pct = 100.0 * (out->ratio - 1.0);
	out->resamples = s->resamples;
	if (s->resamples > 0)
		bootstrap_ratio(sa, nb, sb, np, s, seed, out);
}

int stats_compare(const double *base, size_t nb, const double *patched,
		  size_t np, const struct stats_settings *s, uint64_t seed,
		  struct stats_comparison *out)
{
	static const char *const mw_names[] = {
		[STATS_MW_NONE] = "none", [STATS_MW_EXACT] = "exact",
		[STATS_MW_EXACT_TIES] = "exact-ties",
		[STATS_MW_NORMAL] = "normal",
	};
	double *sa, *sb;

	comparison_init(out, nb, np, s);
	if (nb == 0 || np == 0 || !all_finite(base, nb) ||
	    !all_finite(patched, np))
		return -1;

	sa = sorted_copy(base, nb);
	sb = sorted_copy(patched, np);
	out->median_base = stats_median_sorted(sa, nb);
	out->median_patched = stats_median_sorted(sb, np);
	out->all_equal = sa[0] == sa[nb - 1] && sb[0] == sb[np - 1] &&
			 sa[0] == sb[0];

	stats_mann_whitney(base, nb, patched, np, s->mw_exact_max,
			   &out->mw_u, &out->mw_p, &out->mw_method);
	out->mw_method_name = mw_names[out->mw_method];

	hodges_lehmann_both(sa, nb, sb, np, s, out);
	ratio_of_medians(sa, nb, sb, np, s, seed, out);
	free(sa);
	free(sb);
	return 0;
}

