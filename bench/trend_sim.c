// SPDX-License-Identifier: GPL-2.0
/*
 * The run-order trend test (stats_summarize()'s drift, issue 49) under
 * simulation: runs with no trend at all (lognormal, CV 3 %) for n = 3..12
 * runs per kernel; the share of kernels flagged (p < alpha) against
 * alpha, and the share of metrics flagged (either kernel, what the
 * report's drift warning counts) against 1 - (1 - alpha)^2, the rate the
 * warning now states. Built and run by bench/trend-sim.
 *
 *   trend_sim [-n metrics per size] [-s seed]
 */
#include "stats.h"
#include "stats_priv.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int flagged(size_t n, const struct stats_sim_model *m, struct rng *r, double alpha)
{
	double x[16];
	struct stats_summary s;

	for (size_t i = 0; i < n; i++)
		x[i] = stats_sim_draw(m, 0, r);
	if (stats_summarize(x, NULL, n, 0.95, &s, NULL))
		return 0;
	return s.drift_valid && s.drift_p < alpha;
}

int main(int argc, char **argv)
{
	struct stats_sim_model m = { STATS_SIM_LOGNORMAL, 0.03, 1.0 };
	size_t sims = 20000;
	unsigned long long seed = 49;
	double alpha = 0.05;
	struct rng r;
	int c;

	while ((c = getopt(argc, argv, "n:s:")) != -1) {
		if (c == 'n')
			sims = strtoul(optarg, NULL, 10);
		else if (c == 's')
			seed = strtoull(optarg, NULL, 10);
		else
			return 2;
	}
	rng_seed(&r, seed);
	printf("run-order trend, no trend (lognormal CV 3 %%), %zu metrics per n, alpha %.2g\n",
	       sims, alpha);
	printf("  %3s  %-22s  %-28s\n", "n", "kernels flagged", "metrics flagged (either kernel)");
	for (size_t n = 3; n <= 12; n++) {
		size_t fk = 0, fm = 0;

		for (size_t i = 0; i < sims; i++) {
			int a = flagged(n, &m, &r, alpha), b = flagged(n, &m, &r, alpha);

			fk += a + b;
			fm += a || b;
		}
		printf("  %3zu  %5.2f %% (alpha %.1f %%)  %5.2f %% (stated %.2f %%)\n", n,
		       100.0 * fk / (2.0 * sims), 100 * alpha, 100.0 * fm / sims,
		       100 * (1 - (1 - alpha) * (1 - alpha)));
	}
	return 0;
}
