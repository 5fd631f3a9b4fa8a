// SPDX-License-Identifier: GPL-2.0
/*
 * Sequential A/B: repeated confidence intervals with alpha spending, the
 * looks' levels combined by the union bound (see lab/stats/stats.h for the
 * method and its references). The plan is pure arithmetic on run counts,
 * so a session can print its looks and their levels before the first run.
 */
#include "stats.h"
#include "stats_defaults.h"
#include "stats_priv.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A(t) = alpha * min(1, t)^rho. */
static double spent(const struct stats_seq_plan *p, size_t n)
{
	double t = (double)n / (double)p->max_runs;

	if (t >= 1)
		return p->alpha;
	return p->alpha * pow(t, p->rho);
}

size_t stats_seq_looks(const struct stats_seq_plan *p)
{
	if (p->max_runs <= p->min_runs || p->step == 0)
		return 1;
	return 1 + (p->max_runs - p->min_runs + p->step - 1) / p->step;
}

size_t stats_seq_runs_at(const struct stats_seq_plan *p, size_t look)
{
	size_t k = stats_seq_looks(p);

	if (look == 0 || look > k)
		return 0;
	if (look == k)
		return p->max_runs > p->min_runs ? p->max_runs : p->min_runs;
	return p->min_runs + (look - 1) * p->step;
}

size_t stats_seq_look_of(const struct stats_seq_plan *p, size_t n)
{
	size_t k = stats_seq_looks(p);

	if (n < p->min_runs)
		return 0;
	if (n >= p->max_runs || k == 1)
		return k;
	/* n_{j-1} < n <= n_j: between two looks counts as the later one. */
	return 1 + (n - p->min_runs + p->step - 1) / p->step;
}

double stats_seq_alpha_at(const struct stats_seq_plan *p, size_t look)
{
	size_t n = stats_seq_runs_at(p, look);

	if (n == 0)
		return 0;
	if (look == 1)
		return spent(p, n);
	return spent(p, n) - spent(p, stats_seq_runs_at(p, look - 1));
}

double stats_seq_p_adjust(const struct stats_seq_plan *p, size_t look,
			  double pval)
{
	double a = stats_seq_alpha_at(p, look), adj;

	if (isnan(pval))
		return NAN;
	if (!(a > 0))
		return 1.0;
	adj = pval * (p->alpha / a);
	return adj < 1 ? adj : 1.0;
}

/* The smallest two-sided exact Mann-Whitney p of n against n runs (no
 * ties): both extreme orderings, 2 / C(2n, n). */
static double mw_min_p(size_t n)
{
	double dn = (double)n;

	return 2.0 * exp(2 * lgamma(dn + 1) - lgamma(2 * dn + 1));
}

int stats_seq_plan_check(const struct stats_seq_plan *p, char *err,
			 size_t len)
{
	size_t k;

	if (!(p->alpha > 0 && p->alpha <= 0.5)) {
		snprintf(err, len, "alpha: expected an error rate in (0, 0.5], "
			 "got %g", p->alpha);
		return -1;
	}
	if (p->min_runs < 3) {
		snprintf(err, len, "min_runs: expected at least 3 runs per "
			 "kernel at the first look, got %zu", p->min_runs);
		return -1;
	}
	if (p->max_runs < p->min_runs) {
		snprintf(err, len, "max_runs: expected at least min_runs "
			 "(%zu) runs per kernel, got %zu", p->min_runs,
			 p->max_runs);
		return -1;
	}
	if (p->step < 1) {
		snprintf(err, len, "step: expected at least 1 run per kernel "
			 "between looks, got 0");
		return -1;
	}
	if (!(isfinite(p->rho) && p->rho > 0 && p->rho <= 10)) {
		snprintf(err, len, "rho: expected a spending exponent in "
			 "(0, 10], got %g", p->rho);
		return -1;
	}
	k = stats_seq_looks(p);
	for (size_t j = 1; j <= k; j++) {
		size_t n = stats_seq_runs_at(p, j);
		double a = stats_seq_alpha_at(p, j), pmin = mw_min_p(n);

		if (!(a > pmin)) {
			snprintf(err, len, "min_runs: look %zu of %zu (%zu runs "
				 "per kernel) would get the level %.2g, at or "
				 "below the smallest Mann-Whitney p of %zu "
				 "against %zu runs (%.2g), so it could never "
				 "decide; raise min_runs, or lower max_runs or "
				 "rho", j, k, n, a, n, n, pmin);
			return -1;
		}
	}
	return 0;
}

void stats_seq_plan_default(struct stats_seq_plan *p, size_t max_runs)
{
	char err[256];

	p->alpha = STATS_DEFAULT_ALPHA;
	p->step = 2;
	p->rho = STATS_SEQ_RHO;
	p->min_runs = STATS_SEQ_MIN_RUNS;
	p->max_runs = max_runs;
	/* A few more runs at the first look make it reachable; 2 / C(2n, n)
	 * falls by ~4x per run, so this ends within a few steps. */
	while (p->min_runs < 64) {
		if (p->max_runs < p->min_runs)
			p->max_runs = p->min_runs;
		if (!stats_seq_plan_check(p, err, sizeof(err)))
			break;
		p->min_runs++;
	}
}

int stats_seq_compare(const struct stats_seq_plan *p, size_t look,
		      const double *base, size_t nb, const double *patched,
		      size_t np, const struct stats_settings *s, uint64_t seed,
		      struct stats_seq_result *out)
{
	struct stats_settings at = *s;

	memset(out, 0, sizeof(*out));
	out->looks = stats_seq_looks(p);
	out->look = look > out->looks ? out->looks : look;
	out->runs_at = stats_seq_runs_at(p, out->look);
	out->alpha_k = stats_seq_alpha_at(p, out->look);
	if (out->look) {
		at.alpha = out->alpha_k;
		at.confidence = 1.0 - out->alpha_k;
	}
	int rc = stats_compare(base, nb, patched, np, &at, seed, &out->cmp);

	out->p_adj = stats_seq_p_adjust(p, out->look, out->cmp.mw_p);
	return rc;
}

enum stats_verdict stats_seq_decide(const struct stats_seq_plan *p,
				    struct stats_seq_result *r,
				    const struct stats_settings *s,
				    int better_higher, double threshold,
				    double q, size_t failed, size_t attempted)
{
	struct stats_decision *d = &r->dec;
	int used_q = q >= 0 && !isnan(q);

	if (r->look == 0) {
		memset(d, 0, sizeof(*d));
		d->verdict = VERDICT_INCONCLUSIVE;
		d->p_used = r->cmp.mw_p;
		d->threshold = threshold >= 0 ? threshold : s->threshold;
		d->runs_needed = (unsigned)p->min_runs;
		snprintf(d->reason, sizeof(d->reason),
			 "not decided before the first look at %zu runs per "
			 "kernel", p->min_runs);
		return d->verdict;
	}
	/* q < alpha and p < alpha_k are the same test when BH has one
	 * metric: p_adj < alpha iff p < alpha_k. */
	return stats_decide_at(&r->cmp, s, used_q ? p->alpha : r->alpha_k,
			       used_q ? q : r->cmp.mw_p, used_q,
			       better_higher, threshold, failed, attempted, d);
}

void stats_seq_carry_init(struct stats_seq_carry *c)
{
	c->looks = c->disjoint = 0;
	c->lo = c->hi = c->p_adj = NAN;
}

void stats_seq_carry_add(const struct stats_seq_plan *p, size_t look, double lo, double hi,
			 double pval, struct stats_seq_carry *c)
{
	double adj = look ? stats_seq_p_adjust(p, look, pval) : NAN;

	/* NaN compares false: an earlier finite p stays. */
	if (!(c->p_adj <= adj))
		c->p_adj = isnan(adj) ? c->p_adj : adj;
	if (!(lo > 0) || !(hi >= lo) || !isfinite(hi) || !look)
		return;
	if (!c->looks) {
		c->lo = lo;
		c->hi = hi;
	} else if (lo > c->hi || hi < c->lo) {
		c->disjoint++;
		return;
	} else {
		c->lo = lo > c->lo ? lo : c->lo;
		c->hi = hi < c->hi ? hi : c->hi;
	}
	c->looks++;
}

int stats_side_of_midpoint(double lo, double hi, double midpoint)
{
	if (!(lo > 0) || !(hi >= lo) || !isfinite(hi) || !(midpoint > 0) || !isfinite(midpoint) ||
	    midpoint == 1)
		return 0;
	if (midpoint > 1)
		return hi < midpoint ? -1 : lo > midpoint ? 1 : 0;
	return lo > midpoint ? -1 : hi < midpoint ? 1 : 0;
}
