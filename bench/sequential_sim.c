// SPDX-License-Identifier: GPL-2.0
/*
 * The sequential rule (lab/stats/stats_seq.c) under simulation: its A/A false-
 * positive rate against naive re-testing, and for a real change its power
 * and runs per kernel to a decision against the fixed number of runs with
 * the same power. Built and run by bench/sequential-sim.
 *
 *   sequential_sim [-n A/A sessions] [-p power sessions] [-r resamples]
 *                  [-M max runs] [-S step] [-P rho] [-s seed]
 *                  [-R]   (-R: compare rho values)
 *                  [-m sessions]   (-m: six primaries per session instead,
 *                                   judged per look and carried, issue 49)
 */
#include "stats.h"
#include "stats_priv.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Wilson 95 % interval of a proportion, in %. */
static void wilson(size_t k, size_t n, double *lo, double *hi)
{
	double z = 1.959963984540054, ph = (double)k / n, d = 1 + z * z / n;
	double c = (ph + z * z / (2.0 * n)) / d;
	double h = z * sqrt(ph * (1 - ph) / n + z * z / (4.0 * n * n)) / d;

	*lo = 100 * (c - h);
	*hi = 100 * (c + h);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

/* Type 1 quantile (an observed run count) of ascending @v. */
static size_t quant(const size_t *v, size_t n, double p)
{
	size_t i = (size_t)ceil(p * (double)n);

	return v[i ? i - 1 : 0];
}

static int is_call(enum stats_verdict v)
{
	return v == VERDICT_IMPROVEMENT || v == VERDICT_REGRESSION;
}

static void aa(const struct stats_seq_plan *p, const struct stats_settings *s,
	       size_t sims, struct rng *r)
{
	static const enum stats_sim_noise noises[] = {
		STATS_SIM_LOGNORMAL, STATS_SIM_SLOW_TAIL, STATS_SIM_LOG_T3,
	};
	static const double bands[] = { 0, 0.02 };

	printf("A/A false positives (improvement or regression called), "
	       "cv 3 %%, %zu sessions each, alpha %.2g:\n", sims, p->alpha);
	printf("  %-26s %5s  %-24s %-24s\n", "noise", "band", "sequential",
	       "naive re-testing");
	for (size_t i = 0; i < ARRAY_SIZE(noises); i++)
		for (size_t j = 0; j < ARRAY_SIZE(bands); j++) {
			struct stats_sim_model m = { noises[i], 0.03, 1.0 };
			size_t fs = 0, fn = 0;
			double l1, h1, l2, h2;

			for (size_t k = 0; k < sims; k++) {
				struct stats_sim_outcome o;

				stats_sim_session(p, s, &m, bands[j], 1, r,
						  &o);
				fs += is_call(o.seq);
				fn += is_call(o.naive);
			}
			wilson(fs, sims, &l1, &h1);
			wilson(fn, sims, &l2, &h2);
			printf("  %-26s %4.0f%%  %5.2f%% [%5.2f, %5.2f]  "
			       "%5.2f%% [%5.2f, %5.2f]\n",
			       stats_sim_noise_name(noises[i]), 100 * bands[j],
			       100.0 * fs / sims, l1, h1, 100.0 * fn / sims,
			       l2, h2);
		}
}

struct power_row {
	double power;		/* share of sessions calling "improvement" */
	size_t med, p90;	/* runs per kernel where the session stopped */
	double approx;		/* share ended on a significant "?" */
	size_t fixed_n;		/* smallest fixed N with >= that power, 0: none */
	double fixed_power;
	double max_power;	/* power of a fixed design at max_runs */
};

static void power(const struct stats_seq_plan *p,
		  const struct stats_settings *s, double cv, double band,
		  int stop_on_final, size_t sims, int with_fixed,
		  struct rng *r, struct power_row *row)
{
	struct stats_sim_model m = { STATS_SIM_LOGNORMAL, cv, 1.05 };
	size_t *runs = malloc(sims * sizeof(*runs)), hit = 0, approx = 0;

	if (!runs)
		exit(2);
	for (size_t k = 0; k < sims; k++) {
		struct stats_sim_outcome o;

		stats_sim_session(p, s, &m, band, stop_on_final, r, &o);
		hit += o.seq == VERDICT_IMPROVEMENT;
		approx += o.seq_approx_crossing;
		runs[k] = o.seq_runs;
	}
	qsort(runs, sims, sizeof(*runs), cmp_size);
	row->power = (double)hit / sims;
	row->med = quant(runs, sims, 0.5);
	row->p90 = quant(runs, sims, 0.9);
	row->approx = (double)approx / sims;
	row->fixed_n = 0;
	row->fixed_power = NAN;
	free(runs);
	if (!with_fixed)
		return;
	hit = 0;
	for (size_t k = 0; k < sims; k++)
		hit += stats_sim_fixed(p->max_runs, s, &m, band, r) ==
		       VERDICT_IMPROVEMENT;
	row->max_power = (double)hit / sims;
	/* Fixed designs on even N: the first whose power reaches the
	 * sequential rule's (sampling error of both included). */
	for (size_t n = 4; n <= 4 * p->max_runs; n += 2) {
		size_t fh = 0;

		for (size_t k = 0; k < sims; k++)
			fh += stats_sim_fixed(n, s, &m, band, r) ==
			      VERDICT_IMPROVEMENT;
		if ((double)fh / sims >= row->power) {
			row->fixed_n = n;
			row->fixed_power = (double)fh / sims;
			return;
		}
	}
}

static void power_table(const struct stats_seq_plan *p,
			const struct stats_settings *s, size_t sims,
			struct rng *r)
{
	static const double cvs[] = { 0.02, 0.05 };
	const double band = 0.02;

	printf("\n+5 %% change, lognormal noise, band +-%.0f %%, %zu sessions "
	       "each; the sequential rule stops at its first decision that is "
	       "final (stats_decision.final) or of a decided class "
	       "(stats_verdict_decided); power: \"improvement\" called:\n",
	       100 * band, sims);
	printf("  %-7s %-5s %-7s %-7s %-9s %-13s %-22s %s\n", "stop on", "cv",
	       "power", "median", "90th pct", "stopped on a",
	       "fixed N with the same", "fixed N = max_runs");
	printf("  %-7s %-5s %-7s %-7s %-9s %-13s %-22s %s\n", "", "", "",
	       "runs", "runs", "crossing \"?\"", "power (its power)",
	       "power");
	for (int f = 1; f >= 0; f--)
	for (size_t i = 0; i < ARRAY_SIZE(cvs); i++) {
		struct power_row row;

		power(p, s, cvs[i], band, f, sims, 1, r, &row);
		printf("  %-7s %3.0f%%  %5.1f%%  %-7zu %-9zu %5.1f%%        ",
		       f ? "final" : "class", 100 * cvs[i], 100 * row.power,
		       row.med, row.p90, 100 * row.approx);
		if (row.fixed_n)
			printf("%-3zu (%5.1f%%)            ", row.fixed_n,
			       100 * row.fixed_power);
		else
			printf("none up to %-4zu           ", 4 * p->max_runs);
		printf("%5.1f%%\n", 100 * row.max_power);
	}
}

static void rho_table(size_t max_runs, const struct stats_settings *s,
		      size_t sims, struct rng *r)
{
	static const double rhos[] = { 0.75, 1, 1.5, 2, 3 };
	static const double cvs[] = { 0.02, 0.05 };

	printf("\nspending exponent rho (A(t) = alpha t^rho), +5 %% change, "
	       "band +-2 %%, %zu sessions each:\n", sims);
	printf("  %-5s %-9s %-5s %-7s %-7s %-4s %s\n", "rho", "min_runs",
	       "cv", "power", "median", "p90", "crossing \"?\"");
	for (size_t i = 0; i < ARRAY_SIZE(rhos); i++) {
		struct stats_seq_plan p;

		stats_seq_plan_default(&p, max_runs);
		p.rho = rhos[i];
		/* The default's auto-raise for this rho. */
		for (char err[256]; stats_seq_plan_check(&p, err, sizeof(err));)
			p.min_runs++;
		for (size_t j = 0; j < ARRAY_SIZE(cvs); j++) {
			struct power_row row;

			power(&p, s, cvs[j], 0.02, 1, sims, 0, r, &row);
			printf("  %-5g %-9zu %3.0f%%  %5.1f%%  %-7zu %-4zu "
			       "%5.1f%%\n", rhos[i], p.min_runs, 100 * cvs[j],
			       100 * row.power, row.med, row.p90,
			       100 * row.approx);
		}
	}
}

/*
 * Six primaries per session, as a workload with several: the session stops
 * when every one is final at the same look (session_seq.c), and each is
 * judged again at every look until then. @carried: judged as the analysis
 * now does, carried across looks (stats_seq_carry); else on each look's
 * data alone, as before issue 49. The p of each look goes through BH over
 * the six, as the primary family does.
 */
#define NPRIM 6

struct multi_row {
	size_t sessions_call;	/* sessions with an improvement or regression */
	size_t calls, improvements;
	size_t nc_seen, nc_lost;	/* primaries "~" at some look; of them ended "?" */
	size_t final_lost;	/* primaries final at some look that ended not final */
	size_t prim;
	size_t *runs;		/* runs per kernel at the stop, per session */
};

static void multi_session(const struct stats_seq_plan *p, const struct stats_settings *s,
			  const struct stats_sim_model *m, double band, int carried,
			  struct rng *r, struct multi_row *row, size_t at)
{
	size_t k = stats_seq_looks(p), nmax = stats_seq_runs_at(p, k);
	double *a = malloc(NPRIM * nmax * sizeof(double)), *b = malloc(NPRIM * nmax * sizeof(double));
	struct stats_seq_carry c[NPRIM];
	struct stats_seq_result res[NPRIM];
	int was_nc[NPRIM] = { 0 }, was_final[NPRIM] = { 0 }, any = 0;

	if (!a || !b)
		exit(2);
	for (size_t i = 0; i < NPRIM * nmax; i++) {
		a[i] = stats_sim_draw(m, 0, r);
		b[i] = stats_sim_draw(m, 1, r);
	}
	for (size_t i = 0; i < NPRIM; i++)
		stats_seq_carry_init(&c[i]);
	for (size_t j = 1; j <= k; j++) {
		size_t n = stats_seq_runs_at(p, j), nfinal = 0;
		double padj[NPRIM], q[NPRIM];
		uint64_t seed = rng_next(r);

		for (size_t i = 0; i < NPRIM; i++) {
			stats_seq_compare(p, j, a + i * nmax, n, b + i * nmax, n, s, seed + i, &res[i]);
			stats_seq_carry_add(p, j, res[i].cmp.ratio_lo, res[i].cmp.ratio_hi,
					    res[i].cmp.mw_p, &c[i]);
			if (carried && c[i].looks) {
				res[i].cmp.ratio_lo = c[i].lo;
				res[i].cmp.ratio_hi = c[i].hi;
			}
			padj[i] = carried ? c[i].p_adj : res[i].p_adj;
		}
		stats_bh_adjust(padj, NPRIM, q);
		for (size_t i = 0; i < NPRIM; i++) {
			enum stats_verdict v = stats_seq_decide(p, &res[i], s, 1, band, q[i], 0, 0);

			was_nc[i] |= v == VERDICT_NO_CHANGE;
			was_final[i] |= res[i].dec.final;
			nfinal += res[i].dec.final;
		}
		if (nfinal == NPRIM || j == k) {
			for (size_t i = 0; i < NPRIM; i++) {
				enum stats_verdict v = res[i].dec.verdict;

				row->calls += is_call(v);
				row->improvements += v == VERDICT_IMPROVEMENT;
				any |= is_call(v);
				row->nc_seen += was_nc[i];
				row->nc_lost += was_nc[i] && v == VERDICT_INCONCLUSIVE;
				row->final_lost += was_final[i] && !res[i].dec.final;
			}
			row->runs[at] = n;
			break;
		}
	}
	row->sessions_call += any;
	row->prim += NPRIM;
	free(a);
	free(b);
}

static void multi(const struct stats_seq_plan *p, const struct stats_settings *s, size_t sims,
		  struct rng *r)
{
	static const struct {
		const char *what;
		double cv, shift, band;
	} cases[] = {
		{ "A/A, cv 2.5 %, band 3 %", 0.025, 1.0, 0.03 },
		{ "A/A, cv 1 %, band 1 %", 0.01, 1.0, 0.01 },
		{ "A/A, cv 3 %, band 0", 0.03, 1.0, 0.0 },
		{ "+5 %, cv 1 %, band 2 %", 0.01, 1.05, 0.02 },
		{ "+2 %, cv 1 %, band 1 %", 0.01, 1.02, 0.01 },
	};

	printf("\n%d primaries per session, stopped when all are final at one look, "
	       "%zu sessions each:\n", NPRIM, sims);
	printf("  %-24s %-8s %-14s %-12s %-16s %-12s %s\n", "case", "rule", "sessions w/ call",
	       "improvement", "\"~\" then \"?\"", "final lost", "runs med/p90");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		for (int carried = 0; carried < 2; carried++) {
			struct stats_sim_model m = { STATS_SIM_LOGNORMAL, cases[i].cv, cases[i].shift };
			struct multi_row row = { 0 };

			row.runs = malloc(sims * sizeof(size_t));
			if (!row.runs)
				exit(2);
			for (size_t n = 0; n < sims; n++)
				multi_session(p, s, &m, cases[i].band, carried, r, &row, n);
			qsort(row.runs, sims, sizeof(size_t), cmp_size);
			printf("  %-24s %-8s %6.2f %%        %6.2f %%     %5.1f %% (%zu/%zu)  "
			       "%5.2f %%     %zu/%zu\n", cases[i].what, carried ? "carried" : "per-look",
			       100.0 * row.sessions_call / sims, 100.0 * row.improvements / row.prim,
			       row.nc_seen ? 100.0 * row.nc_lost / row.nc_seen : 0.0, row.nc_lost,
			       row.nc_seen, 100.0 * row.final_lost / row.prim, quant(row.runs, sims, 0.5),
			       quant(row.runs, sims, 0.9));
			free(row.runs);
		}
}

int main(int argc, char **argv)
{
	size_t n_aa = 2000, n_pow = 1000, n_multi = 0, max_runs = 40, step = 0;
	double rho = 0;
	unsigned resamples = 2000;
	uint64_t seed = 1;
	int rho_mode = 0, opt;
	struct stats_seq_plan p;
	struct stats_settings s;
	struct rng r;
	char err[256];
	double c0 = cpu_now();

	while ((opt = getopt(argc, argv, "n:p:m:r:M:S:P:s:R")) != -1) {
		switch (opt) {
		case 'n': n_aa = strtoul(optarg, NULL, 10); break;
		case 'p': n_pow = strtoul(optarg, NULL, 10); break;
		case 'm': n_multi = strtoul(optarg, NULL, 10); break;
		case 'r': resamples = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'M': max_runs = strtoul(optarg, NULL, 10); break;
		case 'S': step = strtoul(optarg, NULL, 10); break;
		case 'P': rho = strtod(optarg, NULL); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'R': rho_mode = 1; break;
		default:
			fprintf(stderr, "usage: %s [-n A/A sessions] [-p power "
				"sessions] [-m six-primary sessions] [-r resamples] [-M max runs] "
				"[-S step] [-P rho] [-s seed] [-R]\n", argv[0]);
			return 2;
		}
	}
	stats_settings_default(&s);
	s.resamples = resamples;
	stats_seq_plan_default(&p, max_runs);
	if (step)
		p.step = step;
	if (rho > 0)
		p.rho = rho;
	err[0] = 0;
	if (stats_seq_plan_check(&p, err, sizeof(err)) || !n_aa || !n_pow) {
		fprintf(stderr, "sequential_sim: %s\n", err);
		return 2;
	}
	rng_seed(&r, seed);
	printf("plan: alpha %.2g, looks at %zu, %zu, ..., %zu runs per kernel "
	       "(%zu looks), rho %g, alpha_1 %.2g, alpha_K %.2g; %u "
	       "resamples, exact Mann-Whitney up to %zu x %zu\n", p.alpha,
	       p.min_runs, p.min_runs + p.step, p.max_runs,
	       stats_seq_looks(&p), p.rho, stats_seq_alpha_at(&p, 1),
	       stats_seq_alpha_at(&p, stats_seq_looks(&p)), s.resamples,
	       (size_t)sqrt((double)s.mw_exact_max),
	       (size_t)sqrt((double)s.mw_exact_max));
	if (n_multi) {
		multi(&p, &s, n_multi, &r);
	} else if (rho_mode) {
		rho_table(max_runs, &s, n_pow, &r);
	} else {
		aa(&p, &s, n_aa, &r);
		power_table(&p, &s, n_pow, &r);
	}
	printf("\ncpu %.1f s\n", cpu_now() - c0);
	return 0;
}
