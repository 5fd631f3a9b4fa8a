// SPDX-License-Identifier: GPL-2.0
/*
 * Simulated A/B sessions for validating the sequential rule (stats_seq.c):
 * seeded noise models and one session run with the sequential rule and
 * with naive re-testing on the same runs. Used by tests/unit/test_stats_seq.c
 * (a fixed-seed check in CI) and bench/sequential-sim (the full study);
 * the lab itself never simulates.
 */
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>

/* Standard normal by the polar method; seeded, so deterministic. */
static double normal(struct rng *r)
{
	double u, v, s;

	do {
		u = 2 * rng_double(r) - 1;
		v = 2 * rng_double(r) - 1;
		s = u * u + v * v;
	} while (s >= 1 || s == 0);
	return u * sqrt(-2 * log(s) / s);
}

double stats_sim_draw(const struct stats_sim_model *m, int patched,
		      struct rng *r)
{
	double sigma = sqrt(log1p(m->cv * m->cv)), x;

	switch (m->noise) {
	case STATS_SIM_SLOW_TAIL:
		/* Lognormal body; 15 % of the runs hit a slow path 5-30 %
		 * slower (a guest that stalled): skewed, bimodal. */
		x = exp(sigma * normal(r));
		if (rng_double(r) < 0.15)
			x *= 1.05 + 0.25 * rng_double(r);
		break;
	case STATS_SIM_LOG_T3: {
		/* Student t with 3 degrees of freedom on the log scale,
		 * scaled to the lognormal's log sd: heavy tails both ways. */
		double c = 0;

		for (int i = 0; i < 3; i++) {
			double z = normal(r);

			c += z * z;
		}
		x = exp(sigma / sqrt(3.0) * normal(r) / sqrt(c / 3));
		break;
	}
	case STATS_SIM_LOGNORMAL:
	default:
		x = exp(sigma * normal(r));
		break;
	}
	return patched ? x * m->shift : x;
}

const char *stats_sim_noise_name(enum stats_sim_noise n)
{
	switch (n) {
	case STATS_SIM_LOGNORMAL:
		return "lognormal";
	case STATS_SIM_SLOW_TAIL:
		return "lognormal+15%-slow-runs";
	case STATS_SIM_LOG_T3:
		return "log-t3";
	}
	return "?";
}

void stats_sim_session(const struct stats_seq_plan *p,
		       const struct stats_settings *s,
		       const struct stats_sim_model *m, double band,
		       int stop_on_final, struct rng *r,
		       struct stats_sim_outcome *out)
{
	size_t k = stats_seq_looks(p), nmax = stats_seq_runs_at(p, k);
	double *a = xmalloc(nmax * sizeof(*a)), *b = xmalloc(nmax * sizeof(*b));
	int seq_done = 0, naive_done = 0;
	struct stats_seq_carry carry;

	stats_seq_carry_init(&carry);
	for (size_t i = 0; i < nmax; i++) {
		a[i] = stats_sim_draw(m, 0, r);
		b[i] = stats_sim_draw(m, 1, r);
	}
	for (size_t j = 1; j <= k && !(seq_done && naive_done); j++) {
		size_t n = stats_seq_runs_at(p, j);
		uint64_t seed = rng_next(r);
		enum stats_verdict v;

		if (!seq_done) {
			struct stats_seq_result res;

			stats_seq_compare(p, j, a, n, b, n, s, seed, &res);
			/* As the analysis judges a sequential primary: carried across looks. */
			stats_seq_carry_add(p, j, res.cmp.ratio_lo, res.cmp.ratio_hi, res.cmp.mw_p,
					    &carry);
			if (carry.looks) {
				res.cmp.ratio_lo = carry.lo;
				res.cmp.ratio_hi = carry.hi;
			}
			v = stats_seq_decide(p, &res, s, 1, band, carry.p_adj, 0, 0);
			if ((stop_on_final ? res.dec.final :
			     stats_verdict_decided(v)) || j == k) {
				out->seq = v;
				out->seq_runs = n;
				/* Significant, yet "?": the only such "?" is
				 * an interval across the band edge. */
				out->seq_approx_crossing =
					v == VERDICT_INCONCLUSIVE && res.look &&
					res.dec.p_used < (res.dec.used_q ? p->alpha : res.alpha_k);
				seq_done = 1;
			}
		}
		if (!naive_done) {
			struct stats_comparison c;
			struct stats_decision d;

			stats_compare(a, n, b, n, s, seed, &c);
			v = stats_decide(&c, s, 1, band, -1, 0, 0, &d);
			if ((stop_on_final ? d.final :
			     stats_verdict_decided(v)) || j == k) {
				out->naive = v;
				out->naive_runs = n;
				naive_done = 1;
			}
		}
	}
	free(a);
	free(b);
}

enum stats_verdict stats_sim_fixed(size_t n, const struct stats_settings *s,
				   const struct stats_sim_model *m,
				   double band, struct rng *r)
{
	double *a = xmalloc(n * sizeof(*a)), *b = xmalloc(n * sizeof(*b));
	struct stats_comparison c;
	struct stats_decision d;

	for (size_t i = 0; i < n; i++) {
		a[i] = stats_sim_draw(m, 0, r);
		b[i] = stats_sim_draw(m, 1, r);
	}
	stats_compare(a, n, b, n, s, rng_next(r), &c);
	stats_decide(&c, s, 1, band, -1, 0, 0, &d);
	free(a);
	free(b);
	return d.verdict;
}
