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

/* P(X >= k) for X ~ Poisson(lam). */
static double poisson_sf(size_t k, double lam)
{
	double below = 0;

	for (size_t i = 0; i < k; i++)
		below += exp((double)i * log(lam) - lam - lgamma((double)i + 1));
	return below < 1 ? 1 - below : 0;
}

/*
 * The densest window of log width STATS_MODES_CORE_WIDTH in sorted
 * @l[0..n): its first index into *@at and its count (0 when n is 0).
 */
static size_t densest(const double *l, size_t n, size_t *at)
{
	size_t best = 0, j = 0;

	*at = 0;
	for (size_t i = 0; i < n; i++) {
		while (l[i] - l[j] > STATS_MODES_CORE_WIDTH)
			j++;
		if (i - j + 1 > best) {
			best = i - j + 1;
			*at = j;
		}
	}
	return best;
}

/*
 * The states as two tight cores, when the classes overlap because cells
 * sit between them. Under icount a will-it-scale cell of one second
 * averages the states the guest flipped between inside it: of the demo
 * lab's wis_cs1 cells (tests/unit/test_stats_modes.c) most lie between a
 * floor at 35.8k and a ceiling at 54.7k, each exact to 0.1 %, and the
 * classes' MADs are then several per cent. Each class's densest window
 * of STATS_MODES_CORE_WIDTH is its state's core; the cores must each
 * hold STATS_MODES_MIN_SHARE of the cells and STATS_MODES_MIN_CORE, and
 * stand STATS_MODES_MIN_SEPARATION of their own spreads apart, each a
 * peak (below).
 */
static int cores(const double *l, size_t m, size_t cut, struct stats_modes *out)
{
	size_t at[2], nc[2], base[2] = { 0, cut }, len[2] = { cut, m - cut };
	double med[2], sd[2];

	for (int c = 0; c < 2; c++) {
		nc[c] = densest(l + base[c], len[c], &at[c]);
		if (nc[c] < STATS_MODES_MIN_CORE ||
		    (double)nc[c] < STATS_MODES_MIN_SHARE * (double)m)
			return fail(out, "the cells are spread between the two classes, and a class "
				    "has no tight core of 5 % of them");
		robust(l + base[c] + at[c], nc[c], &med[c], &sd[c]);
	}
	/*
	 * Each core a peak: its count against the density of the four
	 * widths around it (two either side), as a Poisson count, beyond
	 * chance at STATS_MODES_PEAK_P (the windows searched are many). A
	 * window of one unimodal sample, or of a wide one (the host's
	 * clock; a reference coupled at 25 %) where a window's count is
	 * chance, has neighbours about as dense; two states closer than
	 * three widths are the classes' to find.
	 */
	for (int c = 0; c < 2; c++) {
		double lo = l[base[c] + at[c]], hi = l[base[c] + at[c] + nc[c] - 1];
		size_t near = 0;

		for (size_t i = 0; i < m; i++)
			near += (l[i] >= lo - 2 * STATS_MODES_CORE_WIDTH && l[i] < lo) ||
				(l[i] > hi && l[i] <= hi + 2 * STATS_MODES_CORE_WIDTH);
		if (poisson_sf(nc[c], fmax((double)near, 1) / 4) > STATS_MODES_PEAK_P)
			return fail(out, "the two classes overlap: cells fill the gap between "
				    "their cores");
	}
	/*
	 * Two states hold a third of the cells at least: the two-CPU
	 * ping-pong's cells sat in a dozen tight clusters (58.5k, 61.1k,
	 * 63.4k, 65.9k, 70.7k, ...), and two of them with 30 of 200 cells
	 * are not its states.
	 */
	if ((double)(nc[0] + nc[1]) < STATS_MODES_MIN_CORES_SHARE * (double)m)
		return fail(out, "most cells lie outside the two densest cores: more states than "
			    "two, or none");
	out->separation = fmax(sd[0], sd[1]) > 0 ? (med[1] - med[0]) / fmax(sd[0], sd[1]) :
			  INFINITY;
	if (!(out->separation >= STATS_MODES_MIN_SEPARATION))
		return fail(out, "the two classes overlap: their gap is under 8 of their own "
			    "spreads");
	out->core = 1;
	out->low = exp(med[0]);
	out->high = exp(med[1]);
	out->ratio = exp(med[1] - med[0]);
	out->band = exp(STATS_MODES_CORE_WIDTH);
	out->n_low = nc[0];
	out->n_high = nc[1];
	out->n_between = m - nc[0] - nc[1];
	out->separated = 1;
	out->why = NULL;
	return 0;
}

int stats_modes_state(const struct stats_modes *m, double x)
{
	if (!m->separated || !(x > 0) || !isfinite(x))
		return -1;
	if (!m->core)
		return x > m->threshold;
	if (fabs(log(x / m->high)) <= log(m->band))
		return 1;
	if (fabs(log(x / m->low)) <= log(m->band))
		return 0;
	return -1;
}

int stats_modes(const double *x, size_t n, struct stats_modes *out)
{
	double *l = xmalloc((n ? n : 1) * sizeof(*l)), mlo, mhi, slo, shi, t, spread;
	size_t m = 0, trim, cut;
	int rc;

	*out = (struct stats_modes){ .threshold = NAN, .low = NAN, .high = NAN, .ratio = NAN,
				     .separation = NAN, .band = NAN, .why = "too few cells" };
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
	out->low = exp(mlo);
	out->high = exp(mhi);
	out->ratio = exp(mhi - mlo);
	spread = fmax(slo, shi);
	out->separation = spread > 0 ? (mhi - mlo) / spread : INFINITY;
	if ((double)out->n_low < STATS_MODES_MIN_SHARE * (double)m ||
	    (double)out->n_high < STATS_MODES_MIN_SHARE * (double)m)
		rc = fail(out, "one of the two classes holds fewer than 5 % of the cells");
	else if (!(out->separation >= STATS_MODES_MIN_SEPARATION))
		rc = cores(l, m, cut, out);
	else {
		out->separated = 1;
		out->why = NULL;
		rc = 0;
	}
	free(l);
	return rc;
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
