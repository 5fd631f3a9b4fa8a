// SPDX-License-Identifier: GPL-2.0
/*
 * The per-workload summary: geometric mean of the metrics' (oriented)
 * ratios of medians, with a joint bootstrap interval. Joint, because one
 * run produces every metric of a workload: resampling runs, not values,
 * keeps the correlation between metrics in the interval.
 */
#include "stats.h"
#include "stats_priv.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One metric's data for the joint bootstrap. */
struct gm_metric {
	double *sa, *sb;	/* non-missing values, ascending */
	size_t na, nb;
	uint32_t *runa, *runb;	/* run that produced sa[i] / sb[i] */
	int full_a, full_b;	/* no missing run in this kernel */
	double point;		/* oriented log ratio of the full sample */
	double sign;
};

static int gm_prepare(const double *row, size_t n, double **sorted,
		      uint32_t **run, size_t *nn)
{
	struct stats_vi *c = xmalloc((n ? n : 1) * sizeof(*c));
	size_t m = 0;

	for (size_t r = 0; r < n; r++) {
		if (isnan(row[r]))
			continue;
		if (!(row[r] > 0) || !isfinite(row[r])) {
			free(c);
			return -1;
		}
		c[m].v = row[r];
		c[m++].i = r;
	}
	if (m == 0) {
		free(c);
		return -1;
	}
	/*
	 * By value, then by run: the order the stable insertion sort gave,
	 * which was quadratic in a kernel's runs.
	 */
	qsort(c, m, sizeof(*c), stats_cmp_vi);
	*sorted = xmalloc(m * sizeof(**sorted));
	*run = xmalloc(m * sizeof(**run));
	for (size_t i = 0; i < m; i++) {
		(*sorted)[i] = c[i].v;
		(*run)[i] = (uint32_t)c[i].i;
	}
	free(c);
	*nn = m;
	return 0;
}

/*
 * Median of one metric in a resample described by per-run draw counts
 * @rc (shared by every metric of the workload): walk the metric's sorted
 * values, each weighted by how often its run was drawn. @c is the number
 * of draws that hit a run where the metric has a value.
 */
static double gm_median(const double *sorted, const uint32_t *run,
			const uint32_t *rc, size_t c)
{
	size_t k1 = (c - 1) / 2, k2 = c / 2, cum = 0, i = 0;
	double lo;

	while (cum + rc[run[i]] <= k1)
		cum += rc[run[i++]];
	lo = sorted[i];
	if (k1 == k2)
		return lo;
	while (cum + rc[run[i]] <= k2)
		cum += rc[run[i++]];
	return stats_mid(lo, sorted[i]);
}

static size_t gm_hits(const uint32_t *run, size_t m, const uint32_t *rc)
{
	size_t c = 0;

	for (size_t i = 0; i < m; i++)
		c += rc[run[i]];
	return c;
}

static void gm_draw(struct rng *r, uint32_t *rc, size_t n)
{
	memset(rc, 0, n * sizeof(*rc));
	for (size_t i = 0; i < n; i++)
		rc[rng_below(r, (uint32_t)n)]++;
}

/*
 * Each metric's sorted values and point estimate (the signed log of the
 * ratio of medians) into @gm; a metric without a usable value on one side
 * is skipped and counted in @skipped. Returns how many were kept, and
 * their sum of point estimates in @sum.
 */
static size_t gm_collect(const double *base, size_t nb, const double *patched,
			 size_t np, size_t nmetrics,
			 const unsigned char *better_higher,
			 struct gm_metric *gm, size_t *skipped, double *sum)
{
	size_t k = 0;

	for (size_t m = 0; m < nmetrics; m++) {
		struct gm_metric *g = &gm[k];

		if (gm_prepare(base + m * nb, nb, &g->sa, &g->runa, &g->na)) {
			(*skipped)++;
			continue;
		}
		if (gm_prepare(patched + m * np, np, &g->sb, &g->runb, &g->nb)) {
			free(g->sa);
			free(g->runa);
			(*skipped)++;
			continue;
		}
		g->full_a = g->na == nb;
		g->full_b = g->nb == np;
		g->sign = (!better_higher || better_higher[m]) ? 1.0 : -1.0;
		g->point = g->sign * (log(stats_median_sorted(g->sb, g->nb)) -
				      log(stats_median_sorted(g->sa, g->na)));
		*sum += g->point;
		k++;
	}
	return k;
}

/* The mean log ratio over @k metrics in the resample drawn as @rca, @rcb. */
static double gm_replicate(const struct gm_metric *gm, size_t k,
			   const uint32_t *rca, size_t nb,
			   const uint32_t *rcb, size_t np)
{
	double logsum = 0, prod = 1;

	for (size_t m = 0; m < k; m++) {
		const struct gm_metric *g = &gm[m];
		size_t ca = g->full_a ? nb : gm_hits(g->runa, g->na, rca);
		size_t cb = g->full_b ? np : gm_hits(g->runb, g->nb, rcb);

		/* A resample that drew only a metric's failed runs
		 * says nothing about it: keep its point estimate. */
		if (!ca || !cb) {
			logsum += g->point;
			continue;
		}
		double ma = gm_median(g->sa, g->runa, rca, ca);
		double mb = gm_median(g->sb, g->runb, rcb, cb);

		/* Multiply, and take one log per many metrics: the
		 * logs dominated the run time otherwise. */
		prod *= g->sign > 0 ? mb / ma : ma / mb;
		if (prod > 1e150 || prod < 1e-150) {
			logsum += log(prod);
			prod = 1;
		}
	}
	return (logsum + log(prod)) / (double)k;
}

/* The joint bootstrap percentile interval of the geometric mean. */
static void gm_interval(const struct gm_metric *gm, size_t k, size_t nb,
			size_t np, const struct stats_settings *s,
			uint64_t seed, struct stats_geomean *out)
{
	unsigned B = s->resamples;
	double *rep = xmalloc(B * sizeof(*rep));
	uint32_t *rca = xmalloc(nb * sizeof(*rca)), *rcb = xmalloc(np * sizeof(*rcb));
	double tail = (1.0 - s->confidence) / 2.0;
	struct rng r;

	rng_seed(&r, seed);
	for (unsigned b = 0; b < B; b++) {
		gm_draw(&r, rca, nb);
		gm_draw(&r, rcb, np);
		rep[b] = gm_replicate(gm, k, rca, nb, rcb, np);
	}
	out->lo = exp(stats_select_quantile(rep, B, tail));
	out->hi = exp(stats_select_quantile(rep, B, 1 - tail));
	out->method = "joint-bootstrap-percentile";
	free(rep);
	free(rca);
	free(rcb);
}

int stats_geomean(const double *base, size_t nb, const double *patched,
		  size_t np, size_t nmetrics, const unsigned char *better_higher,
		  const struct stats_settings *s, uint64_t seed,
		  struct stats_geomean *out)
{
	struct gm_metric *gm = xcalloc(nmetrics ? nmetrics : 1, sizeof(*gm));
	size_t k;
	double sum = 0;

	memset(out, 0, sizeof(*out));
	out->ratio = out->lo = out->hi = NAN;
	out->level = s->confidence;
	out->method = "none";
	k = gm_collect(base, nb, patched, np, nmetrics, better_higher, gm,
		       &out->skipped, &sum);
	out->k = k;
	if (k > 0) {
		out->ratio = exp(sum / (double)k);
		if (s->resamples > 0)
			gm_interval(gm, k, nb, np, s, seed, out);
	}
	for (size_t m = 0; m < k; m++) {
		free(gm[m].sa);
		free(gm[m].sb);
		free(gm[m].runa);
		free(gm[m].runb);
	}
	free(gm);
	return 0;
}
