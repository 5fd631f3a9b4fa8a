// SPDX-License-Identifier: GPL-2.0
/*
 * The icount run value of a metric whose cells repeat one measurement
 * (mglru_aging's per-generation times; lab/report/report_hoststate.c,
 * RUN_SKIP_FIRST) under simulation, issue 26 item 2: the rule before it
 * (the mean of the cells within x1.5 of the run's median) against the
 * rule now (the mean of the cells without the run's first @skip, by
 * position). Built and run by bench/run-value-sim.
 *
 *   run_value_sim [-n sessions] [-r runs per kernel] [-g generations]
 *                 [-l per-run level CV] [-w per-cell noise CV]
 *                 [-c first timed generation's excess] [-k skip] [-s seed]
 *                 [-b bootstrap resamples]
 *
 * The model, from the demo of 2026-12-01 (tiny-icount, 12 runs of 20
 * generations) and docs/guests.md: each run sits at its own level
 * (lognormal, CV 0.8 % over ten boots), each generation varies about it
 * by 0.5 %, and the first timed generation, after the workload's 3
 * untimed warm-up ones, runs 2 % over the rest. A kernel's effect slows a
 * share of the patched kernel's generations x2 at random positions, so
 * its true change of the mean is that share. Outliers (x5) hit both
 * kernels: "cold" ones on a run's first generation, in as many runs as
 * make 1 % of all generations, or "random" ones on 1 % of the
 * generations wherever they fall.
 *
 * Printed per case and rule: the bias in points of the report's estimate
 * (ratio of the kernels' median run values, as "delta_pct"), the bias of
 * the ratio of the mean run values over all sessions (is the run value
 * consistent?), each kernel's run-to-run CV, the mean over sessions, and
 * how often the report's 95 % interval of the ratio held the true one.
 */
#include "stats.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OLD_SPAN 1.5	/* the rule before issue 26: RUN_MEAN_SPAN */

struct model {
	size_t runs, gens, skip;
	double level_cv, cell_cv, first_excess;
};

struct scenario {
	const char *name;
	double slow_share;	/* patched only: this share of generations x2, anywhere */
	double cold_share;	/* both: this share of generations x5, on runs' first */
	double random_share;	/* both: this share of generations x5, anywhere */
};

static double gauss(struct rng *r)
{
	double u = (rng_next(r) >> 11) * 0x1.0p-53 + 0x1.0p-54, v = (rng_next(r) >> 11) * 0x1.0p-53;

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static double uniform(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

/* The rule before: the mean of the cells within x1.5 of the run's median. */
static double old_rule(const double *v, size_t n)
{
	double s = 0, med = stats_median(v, n);
	size_t used = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i] <= med * OLD_SPAN && v[i] * OLD_SPAN >= med) {
			s += v[i];
			used++;
		}
	return used ? s / (double)used : med;
}

/* The rule now: the mean without the first @skip cells (all of them for a run of @skip or fewer). */
static double new_rule(const double *v, size_t n, size_t skip)
{
	double s = 0;

	if (n <= skip)
		skip = 0;
	for (size_t i = skip; i < n; i++)
		s += v[i];
	return s / (double)(n - skip);
}

/* One run's generations: kernel @patched under @sc. */
static void one_run(const struct model *m, const struct scenario *sc, int patched, struct rng *r,
		    double *t)
{
	double level = 0.28 * exp(m->level_cv * gauss(r));
	int cold = uniform(r) < sc->cold_share * (double)m->gens;

	for (size_t j = 0; j < m->gens; j++) {
		t[j] = level * (1 + m->cell_cv * gauss(r));
		if (!j)
			t[j] *= 1 + m->first_excess;
		if (patched && uniform(r) < sc->slow_share)
			t[j] *= 2;
		if (!j && cold)
			t[j] *= 5;
		if (uniform(r) < sc->random_share)
			t[j] *= 5;
	}
}

static double cv(const double *v, size_t n)
{
	double mu = 0, ss = 0;

	for (size_t i = 0; i < n; i++)
		mu += v[i];
	mu /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mu) * (v[i] - mu);
	return sqrt(ss / (double)(n - 1)) / mu;
}

struct tally {
	double delta_sum, mean_sum[2], cv_sum[2];
	size_t covered;		/* sessions whose 95 % interval of the ratio holds the truth */
};

/* Bootstrap replicates per interval (-b); the report's default is 10,000. */
static unsigned resamples = 1000;

/* Does the report's interval of the ratio (stats_compare: BCa bootstrap) hold @truth? */
static int covers(const double *base, const double *patched, size_t n, double truth, uint64_t seed)
{
	struct stats_settings st;
	struct stats_comparison c;

	stats_settings_default(&st);
	st.resamples = resamples;
	if (stats_compare(base, n, patched, n, &st, seed, &c) || !c.ratio_valid)
		return 0;
	return c.ratio_lo <= truth && truth <= c.ratio_hi;
}

static void scenario_run(const struct model *m, const struct scenario *sc, size_t sessions,
			 uint64_t seed)
{
	struct rng r;
	struct tally tl[2] = { { 0 } };
	double *t = xcalloc(m->gens, sizeof(*t)), *val[2][2];
	double truth = 100 * sc->slow_share;

	for (int rule = 0; rule < 2; rule++)
		for (int k = 0; k < 2; k++)
			val[rule][k] = xcalloc(m->runs, sizeof(double));
	rng_seed(&r, seed);
	for (size_t s = 0; s < sessions; s++) {
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < m->runs; i++) {
				one_run(m, sc, k, &r, t);
				val[0][k][i] = old_rule(t, m->gens);
				val[1][k][i] = new_rule(t, m->gens, m->skip);
			}
		for (int rule = 0; rule < 2; rule++) {
			tl[rule].delta_sum += 100 * (stats_median(val[rule][1], m->runs) /
						     stats_median(val[rule][0], m->runs) - 1);
			tl[rule].covered += covers(val[rule][0], val[rule][1], m->runs,
						   1 + sc->slow_share, seed + s);
			for (int k = 0; k < 2; k++) {
				for (size_t i = 0; i < m->runs; i++)
					tl[rule].mean_sum[k] += val[rule][k][i];
				tl[rule].cv_sum[k] += 100 * cv(val[rule][k], m->runs);
			}
		}
	}
	printf("%-30s %+5.0f %%", sc->name, truth);
	for (int rule = 0; rule < 2; rule++)
		printf("   %+7.2f %+7.2f %6.2f %6.2f %5.1f",
		       tl[rule].delta_sum / (double)sessions - truth,
		       100 * (tl[rule].mean_sum[1] / tl[rule].mean_sum[0] - 1) - truth,
		       tl[rule].cv_sum[0] / (double)sessions, tl[rule].cv_sum[1] / (double)sessions,
		       100.0 * (double)tl[rule].covered / (double)sessions);
	printf("\n");
	for (int rule = 0; rule < 2; rule++)
		for (int k = 0; k < 2; k++)
			free(val[rule][k]);
	free(t);
}

static void usage(void)
{
	fprintf(stderr, "usage: run_value_sim [-n sessions] [-r runs] [-g generations] [-l level cv]"
			" [-w cell cv] [-c first excess] [-k skip] [-s seed] [-b resamples]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct scenario cases[] = {
		{ "no effect", 0, 0, 0 },
		{ "10 % of generations x2", 0.10, 0, 0 },
		{ "30 % of generations x2", 0.30, 0, 0 },
		{ "60 % of generations x2", 0.60, 0, 0 },
		{ "cold outliers (1 %, x5, first)", 0, 0.01, 0 },
		{ "outliers (1 %, x5, anywhere)", 0, 0, 0.01 },
	};
	struct model m = { 10, 20, 1, 0.008, 0.005, 0.02 };
	size_t sessions = 4000;
	uint64_t seed = 26;
	int opt;

	while ((opt = getopt(argc, argv, "n:r:g:l:w:c:k:s:b:")) != -1) {
		switch (opt) {
		case 'b': resamples = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'n': sessions = strtoul(optarg, NULL, 10); break;
		case 'r': m.runs = strtoul(optarg, NULL, 10); break;
		case 'g': m.gens = strtoul(optarg, NULL, 10); break;
		case 'l': m.level_cv = strtod(optarg, NULL); break;
		case 'w': m.cell_cv = strtod(optarg, NULL); break;
		case 'c': m.first_excess = strtod(optarg, NULL); break;
		case 'k': m.skip = strtoul(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (!sessions || m.runs < 2 || !m.gens || optind != argc)
		usage();
	printf("%zu sessions of %zu runs per kernel, %zu generations a run; run level CV %.1f %%,"
	       " generation CV %.1f %%, first timed generation %+.1f %%; seed %llu\n",
	       sessions, m.runs, m.gens, 100 * m.level_cv, 100 * m.cell_cv, 100 * m.first_excess,
	       (unsigned long long)seed);
	printf("old: mean within x%g of the run's median; new: mean without the first %zu\n",
	       OLD_SPAN, m.skip);
	printf("bias: points off the true change, of the ratio of median run values (as the\n"
	       "report's delta) and of mean run values; CV: run-to-run, %% (base, patched);\n"
	       "cov: %% of sessions whose 95 %% interval of that ratio (the report's BCa\n"
	       "bootstrap, %u resamples) holds the true ratio\n\n", resamples);
	printf("%-30s %7s   %-37s   %-37s\n", "", "", "old rule", "new rule");
	printf("%-30s %7s", "case", "true");
	for (int rule = 0; rule < 2; rule++)
		printf("   %7s %7s %6s %6s %5s", "bias md", "mean", "CV b", "CV p", "cov");
	printf("\n");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		scenario_run(&m, &cases[i], sessions, seed + i);
	return 0;
}
