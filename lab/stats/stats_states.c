// SPDX-License-Identifier: GPL-2.0
/*
 * Two host states: Otsu's threshold (Otsu 1979) on log values, with a
 * separation test. The reference loop of yield_pingpong reports the rate
 * the host gave each (window, CPU); under TCG on these machines it falls
 * into two clusters about x1.4 apart, and this finds where they divide.
 */
#include "stats.h"
#include "stats_priv.h"

#include <math.h>
#include <stdlib.h>

size_t stats_otsu_cut(const double *l, size_t m, double *between)
{
	double tot = 0, s = 0, best = -1;
	size_t cut = 0;

	for (size_t i = 0; i < m; i++)
		tot += l[i];
	/* Cut between l[i-1] and l[i]; equal values never straddle a cut. */
	for (size_t i = 1; i < m; i++) {
		double w0 = (double)i / (double)m, m0, m1, vb;

		s += l[i - 1];
		if (l[i] == l[i - 1])
			continue;
		m0 = s / (double)i;
		m1 = (tot - s) / (double)(m - i);
		vb = w0 * (1 - w0) * (m1 - m0) * (m1 - m0);
		if (vb > best) {
			best = vb;
			cut = i;
		}
	}
	if (between)
		*between = best;
	return cut;
}

int stats_two_states(const double *x, size_t n, struct stats_states *out)
{
	double *l = malloc((n ? n : 1) * sizeof(*l));
	double tot = 0, mean, vt = 0, best = -1, s = 0;
	size_t m = 0, cut = 0;

	*out = (struct stats_states){ NAN, NAN, NAN, NAN, NAN, 0, 0, 0 };
	if (!l)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (isfinite(x[i]) && x[i] > 0)
			l[m++] = log(x[i]);
	if (m < 2) {
		free(l);
		return -1;
	}
	stats_sort(l, m);
	for (size_t i = 0; i < m; i++)
		tot += l[i];
	mean = tot / (double)m;
	for (size_t i = 0; i < m; i++)
		vt += (l[i] - mean) * (l[i] - mean);
	vt /= (double)m;
	cut = stats_otsu_cut(l, m, &best);
	if (!cut) {	/* all equal: one state */
		out->threshold = exp(l[0]);
		out->eta = 0;
		out->ratio = 1;
		out->low_gmean = out->high_gmean = exp(l[0]);
		out->n_low = m;
		free(l);
		return 0;
	}
	s = 0;
	for (size_t i = 0; i < cut; i++)
		s += l[i];
	out->low_gmean = exp(s / (double)cut);
	out->high_gmean = exp((tot - s) / (double)(m - cut));
	out->threshold = exp((l[cut - 1] + l[cut]) / 2);
	out->eta = vt > 0 ? best / vt : 0;
	out->ratio = out->high_gmean / out->low_gmean;
	out->n_low = cut;
	out->n_high = m - cut;
	out->separated = out->eta >= STATS_STATES_MIN_ETA && out->ratio >= STATS_STATES_MIN_RATIO &&
			 (double)cut >= STATS_STATES_MIN_SHARE * (double)m &&
			 (double)(m - cut) >= STATS_STATES_MIN_SHARE * (double)m;
	free(l);
	return 0;
}
