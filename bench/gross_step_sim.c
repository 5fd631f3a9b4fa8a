// SPDX-License-Identifier: GPL-2.0
/*
 * What the gross-step rule of the change points (stats.h,
 * stats_changepoints()) adds and what it costs, under simulation.
 *
 * Null: K nights and then tonight, no change; per run lognormal noise
 * (sigma 3 %) or Student t3 scaled alike, nights offset by tau (normal or
 * t3), n runs a night. A series "fails" when any change point is found:
 * by the ranks alone, or by the gross rule. Heavy-tailed, overdispersed
 * nights with few runs are the cases that hurt a rule on the spread.
 *
 * Power: runs in two modes 4 % apart (what the icount guest gives: test
 * 60's yield rate), K nights, tonight's runs scaled by f: found tonight,
 * by ranks or by the gross rule.
 *
 *   bench/gross-step-sim [-t trials] [-C ratio] [-s seed]
 */
#include "stats.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static double normal(struct rng *r)
{
	double u = rng_double(r), v = rng_double(r);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

/* Student t with 3 degrees of freedom, scaled to unit variance. */
static double t3(struct rng *r)
{
	double z = normal(r), c = 0;

	for (int i = 0; i < 3; i++) {
		double x = normal(r);
		c += x * x;
	}
	return z / sqrt(c / 3) / sqrt(3.0);
}

struct outcome {
	size_t rank, gross, tonight_rank, tonight_gross;
};

static void detect(const struct stats_cp_night *nights, size_t k, double C, uint64_t seed,
		   struct outcome *o)
{
	struct stats_cp_settings s;
	struct stats_cp *cp;
	size_t n;
	int rank = 0, gross = 0;

	stats_cp_settings_default(&s);
	s.gross = C;
	s.seed = seed;
	n = stats_changepoints(nights, k, 0, &s, &cp);
	for (size_t i = 0; i < n; i++) {
		if (cp[i].gross > 0) {
			gross = 1;
			o->tonight_gross += cp[i].at == k - 1;
		} else {
			rank = 1;
			o->tonight_rank += cp[i].at == k - 1;
		}
	}
	o->rank += rank;
	o->gross += gross;
	free(cp);
}

int main(int argc, char **argv)
{
	static const size_t Ks[] = { 2, 3, 5, 10 }, ns[] = { 1, 3, 5 };
	static const double taus[] = { 0, 1, 5, 30 }, fs[] = { 0.95, 0.8, 0.5, 0.25 };
	size_t trials = 1000;
	double C = STATS_CP_GROSS;
	uint64_t seed = 1;
	struct rng r;
	int c;

	while ((c = getopt(argc, argv, "t:C:s:")) != -1) {
		switch (c) {
		case 't': trials = strtoul(optarg, NULL, 10); break;
		case 'C': C = strtod(optarg, NULL); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: bench/gross-step-sim [-t trials] [-C ratio] [-s seed]\n");
			return 2;
		}
	}
	rng_seed(&r, seed);
	printf("gross ratio %.1f, %zu series per row; a row: K nights, then tonight\n\n", C, trials);
	printf("null (no change): series with a change point found\n");
	printf("%-7s %4s %3s %3s  %9s %9s\n", "noise", "tau/s", "K", "n", "ranks", "gross");
	for (int heavy = 0; heavy < 2; heavy++)
		for (size_t ti = 0; ti < sizeof(taus) / sizeof(*taus); ti++)
			for (size_t ki = 0; ki < sizeof(Ks) / sizeof(*Ks); ki++)
				for (size_t ni = 0; ni < sizeof(ns) / sizeof(*ns); ni++) {
		size_t K = Ks[ki] + 1, n = ns[ni];
		struct stats_cp_night *nights = xcalloc(K, sizeof(*nights));
		double *v = xcalloc(K * n, sizeof(*v));
		struct outcome o = { 0 };

		for (size_t i = 0; i < K; i++)
			nights[i] = (struct stats_cp_night){ v + i * n, n };
		for (size_t t = 0; t < trials; t++) {
			for (size_t i = 0; i < K; i++) {
				double ne = 0.03 * taus[ti] * (heavy ? t3(&r) : normal(&r));

				for (size_t j = 0; j < n; j++)
					v[i * n + j] = 100 * exp(ne + 0.03 * (heavy ? t3(&r) : normal(&r)));
			}
			detect(nights, K, C, seed * 1000003 + t, &o);
		}
		printf("%-7s %4.0f %3zu %3zu  %8.2f%% %8.2f%%\n", heavy ? "t3" : "normal", taus[ti],
		       Ks[ki], n, 100.0 * (double)o.rank / (double)trials,
		       100.0 * (double)o.gross / (double)trials);
		free(v);
		free(nights);
	}
	printf("\npower: runs in two modes 4 %% apart, 5 a night, tonight scaled by f:\n"
	       "series with a change found tonight\n");
	printf("%3s %5s  %9s %9s %9s\n", "K", "f", "ranks", "gross", "either");
	for (size_t ki = 1; ki < sizeof(Ks) / sizeof(*Ks); ki++)
		for (size_t fi = 0; fi < sizeof(fs) / sizeof(*fs); fi++) {
			size_t K = Ks[ki] + 1, n = 5;
			struct stats_cp_night *nights = xcalloc(K, sizeof(*nights));
			double *v = xcalloc(K * n, sizeof(*v));
			struct outcome o = { 0 };

			for (size_t i = 0; i < K; i++)
				nights[i] = (struct stats_cp_night){ v + i * n, n };
			for (size_t t = 0; t < trials; t++) {
				for (size_t i = 0; i < K; i++)
					for (size_t j = 0; j < n; j++)
						v[i * n + j] = ((rng_below(&r, 2) ? 129500 : 124550) +
								150 * normal(&r)) *
							       (i == K - 1 ? fs[fi] : 1);
				detect(nights, K, C, seed * 1000003 + t, &o);
			}
			printf("%3zu %5.2f  %8.1f%% %8.1f%% %8.1f%%\n", Ks[ki], fs[fi],
			       100.0 * (double)o.tonight_rank / (double)trials,
			       100.0 * (double)o.tonight_gross / (double)trials,
			       100.0 * (double)(o.tonight_rank + o.tonight_gross) / (double)trials);
			free(v);
			free(nights);
		}
	return 0;
}
