// SPDX-License-Identifier: GPL-2.0
/*
 * Times the statistics engine at report scale (issue 5): M metrics x 2
 * kernels x N runs, R bootstrap resamples each, plus the summaries, the
 * rank tests, BH across all metrics, the verdicts and a geometric mean per
 * workload. Built and run by bench/stats-bench.
 *
 *   stats_bench [metrics [runs [resamples [workloads]]]]
 */
#include "stats.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t m = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	size_t n = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
	unsigned R = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 10000;
	size_t w = argc > 4 ? strtoul(argv[4], NULL, 10) : 10;
	double *base = malloc(m * n * sizeof(*base));
	double *pat = malloc(m * n * sizeof(*pat));
	double *p = malloc(m * sizeof(*p)), *q = malloc(m * sizeof(*q));
	struct stats_comparison *c = malloc(m * sizeof(*c));
	unsigned char *hb = malloc(m), *flags = malloc(n);
	size_t counts[VERDICT_INVALID + 1] = { 0 };
	struct stats_settings s;
	struct rng r;
	double t0, t1, c0, c1, checksum = 0;

	if (!base || !pat || !p || !q || !c || !hb || !flags || !m || !n || !w)
		return 2;
	stats_settings_default(&s);
	s.resamples = R;
	rng_seed(&r, 1);
	/* Lognormal runs, 1-5 % noise, true changes from -5 % to +5 %. */
	for (size_t i = 0; i < m; i++) {
		double sd = 0.01 + 0.04 * rng_double(&r);
		double shift = -0.05 + 0.1 * rng_double(&r);

		hb[i] = i & 1;
		for (size_t j = 0; j < n; j++) {
			double u1 = 1 - rng_double(&r), u2 = rng_double(&r);
			double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

			base[i * n + j] = 1000 * exp(sd * z);
			u1 = 1 - rng_double(&r);
			u2 = rng_double(&r);
			z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			pat[i * n + j] = 1000 * exp(shift + sd * z);
		}
	}

	t0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	for (size_t i = 0; i < m; i++) {
		struct stats_summary sa, sb;
		char key[32];

		stats_summarize(base + i * n, NULL, n, s.confidence, &sa, flags);
		stats_summarize(pat + i * n, NULL, n, s.confidence, &sb, flags);
		snprintf(key, sizeof(key), "w/metric%zu", i);
		stats_compare(base + i * n, n, pat + i * n, n, &s,
			      stats_seed_for(s.seed, key), &c[i]);
		p[i] = c[i].mw_p;
		checksum += sa.median + sb.median;
	}
	stats_bh_adjust(p, m, q);
	for (size_t i = 0; i < m; i++) {
		struct stats_decision d;

		counts[stats_decide(&c[i], &s, hb[i], -1, q[i], 0, 2 * n, &d)]++;
		checksum += c[i].ratio_lo + c[i].ratio_hi;
	}
	/* Workloads take consecutive slices of the metrics. */
	for (size_t k = 0; k < w; k++) {
		size_t lo = k * m / w, hi = (k + 1) * m / w;
		struct stats_geomean g;

		stats_geomean(base + lo * n, n, pat + lo * n, n, hi - lo,
			      hb + lo, &s, stats_seed_for(s.seed, "geo") + k, &g);
		checksum += g.lo + g.hi;
	}
	t1 = now(CLOCK_MONOTONIC);
	c1 = now(CLOCK_PROCESS_CPUTIME_ID);

	/* CPU time is what the 2 s target means; wall time suffers from
	 * whatever else the host runs. */
	printf("stats-bench: %zu metrics x 2 kernels x %zu runs, %u resamples,"
	       " %zu workloads: wall %.3f s, cpu %.3f s\n", m, n, R, w,
	       t1 - t0, c1 - c0);
	printf("verdicts: improvement %zu, regression %zu, \u2248 %zu, ~ %zu,"
	       " ? %zu, invalid %zu; checksum %.9g\n",
	       counts[VERDICT_IMPROVEMENT], counts[VERDICT_REGRESSION],
	       counts[VERDICT_WITHIN_NOISE], counts[VERDICT_NO_CHANGE],
	       counts[VERDICT_INCONCLUSIVE], counts[VERDICT_INVALID], checksum);
	free(base);
	free(pat);
	free(p);
	free(q);
	free(c);
	free(hb);
	free(flags);
	return 0;
}
