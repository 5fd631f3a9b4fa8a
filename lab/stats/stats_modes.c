// SPDX-License-Identifier: GPL-2.0
/*
 * Discrete states (modes) in a metric's cells, and Fisher's exact test of
 * their shares (issue 49). Under icount a guest's cells sit in one of a
 * few emulator states, each nearly exact (wis_cs1: 35.8k or 54.7k ops/s,
 * 0.05 % within a state; the one-CPU ping-pong two states 4 % apart), and
 * which state a run lands in follows the host and the other slot, not the
 * kernel. stats_two_states() gates on eta, the between-class share of the
 * variance, which a few cells caught between states or a cold outlier
 * pull below its 0.80 however clean the states are (wis_cs1: 0.788); and
 * on a ratio of 1.15, which the ping-pong's 4 % never reaches. Here the
 * gate is the gap between the states against their own spread, robustly:
 * the log distance of the two classes' medians over the larger of their
 * normal-consistent MADs. A unimodal sample split anywhere gives about 2
 * (halves of a normal: medians 1.35 sd apart, MADs 0.6 sd); states that
 * count are tens to thousands apart.
 */
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* Median and normal-consistent MAD of sorted @l[0..n), n > 0. */
static void robust(const double *l, size_t n, double *med, double *sd)
{
	double *d = xmalloc(n * sizeof(*d));

	*med = stats_median_sorted(l, n);
	for (size_t i = 0; i < n; i++)
		d[i] = fabs(l[i] - *med);
	*sd = 1.482602218505602 * stats_median_inplace(d, n);
	free(d);
}

static int fail(struct stats_modes *out, const char *why)
{
	out->separated = 0;
	out->why = why;
	return 0;
}

int stats_modes(const double *x, size_t n, struct stats_modes *out)
{
	double *l = xmalloc((n ? n : 1) * sizeof(*l)), mlo, mhi, slo, shi, t, spread;
	size_t m = 0, trim, cut;

	*out = (struct stats_modes){ .threshold = NAN, .low = NAN, .high = NAN, .ratio = NAN,
				     .separation = NAN, .why = "too few cells" };
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] > 0)
			l[m++] = log(x[i]);
	if (m < STATS_MODES_MIN_N) {
		free(l);
		return -1;
	}
	stats_sort(l, m);
	/*
	 * The cut is found without the outer 2.5 % at each end, so a few
	 * cold or stalled cells far out do not take it; every cell is then
	 * classed by it.
	 */
	trim = (size_t)floor(STATS_MODES_TRIM * (double)m);
	cut = stats_otsu_cut(l + trim, m - 2 * trim, NULL);
	if (!cut) {
		free(l);
		return fail(out, "every cell has one value");
	}
	t = (l[trim + cut - 1] + l[trim + cut]) / 2;
	for (cut = 0; cut < m && l[cut] <= t; cut++)
		;
	out->threshold = exp(t);
	out->n_low = cut;
	out->n_high = m - cut;
	robust(l, cut, &mlo, &slo);
	robust(l + cut, m - cut, &mhi, &shi);
	free(l);
	out->low = exp(mlo);
	out->high = exp(mhi);
	out->ratio = exp(mhi - mlo);
	spread = fmax(slo, shi);
	out->separation = spread > 0 ? (mhi - mlo) / spread : INFINITY;
	if ((double)out->n_low < STATS_MODES_MIN_SHARE * (double)m ||
	    (double)out->n_high < STATS_MODES_MIN_SHARE * (double)m)
		return fail(out, "one of the two classes holds fewer than 5 % of the cells");
	if (!(out->separation >= STATS_MODES_MIN_SEPARATION))
		return fail(out, "the two classes overlap: their gap is under 8 of their own "
			    "spreads");
	out->separated = 1;
	out->why = NULL;
	return 0;
}

/* log C(n, k) */
static double lchoose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

double stats_fisher_exact(size_t a, size_t b, size_t c, size_t d)
{
	double r1 = (double)(a + b), c1 = (double)(a + c), nn = (double)(a + b + c + d);
	double base, p = 0, obs;
	size_t lo, hi;

	if (!(a + b) || !(c + d) || !(a + c) || !(b + d))
		return 1;
	/* a ranges over max(0, r1 + c1 - n) .. min(r1, c1); hypergeometric. */
	lo = r1 + c1 > nn ? (size_t)(r1 + c1 - nn) : 0;
	hi = (size_t)fmin(r1, c1);
	base = lchoose(r1 + (nn - r1), c1);
	obs = lchoose(r1, (double)a) + lchoose(nn - r1, c1 - (double)a) - base;
	for (size_t x = lo; x <= hi; x++) {
		double lp = lchoose(r1, (double)x) + lchoose(nn - r1, c1 - (double)x) - base;

		/* Tables as likely as the observed one or less (R's fisher.test). */
		if (lp <= obs + 1e-7)
			p += exp(lp);
	}
	return p < 1 ? p : 1;
}
