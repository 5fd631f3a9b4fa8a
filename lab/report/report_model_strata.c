// SPDX-License-Identifier: GPL-2.0
/*
 * The hosts as strata of a metric (report_model_priv.h; stats.h, "Hosts as
 * strata"; docs/reports.md, "Several hosts"): a session on several hosts
 * compares the kernels host by host, pools the hosts' ratios, tests with
 * van Elteren's stratified rank-sum test and says when the hosts disagree
 * (Cochran's Q).
 */
#include "report.h"
#include "report_model_priv.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * @s's values of kernel @k grouped by stratum into @out (n[k] values, run
 * order kept within a stratum), stratum h at @out + @off[h], @cnt[h] of
 * them; @stratum maps a host index to its stratum. A counting sort: a pass
 * per host was quadratic in a report of many hosts.
 */
static void group_by_host(const struct series *s, int k, const size_t *stratum, size_t nh,
			  double *out, size_t *off, size_t *cnt)
{
	size_t *at = xcalloc(nh + 1, sizeof(*at));

	memset(cnt, 0, nh * sizeof(*cnt));
	for (size_t i = 0; i < s->n[k]; i++)
		cnt[stratum[s->host[k][i]]]++;
	for (size_t h = 0, sum = 0; h < nh; h++) {
		off[h] = at[h] = sum;
		sum += cnt[h];
	}
	for (size_t i = 0; i < s->n[k]; i++)
		out[at[stratum[s->host[k][i]]]++] = s->v[k][i];
	free(at);
}

/*
 * The hosts @s has values from, its strata: @out gets their indices into
 * m->hosts in that order, @stratum (room for m->nhosts) each host's
 * stratum. Returns how many.
 */
static size_t series_hosts(const struct model *m, const struct series *s, size_t *out,
			   size_t *stratum)
{
	unsigned char *seen = xcalloc(m->nhosts + 1, 1);
	size_t n = 0;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < s->n[k]; i++)
			seen[s->host[k][i]] = 1;
	for (size_t h = 0; h < m->nhosts; h++) {
		stratum[h] = n;
		if (seen[h])
			out[n++] = h;
	}
	free(seen);
	return n;
}

/* A series' runs grouped by host, and each host's comparison. */
struct host_groups {
	size_t nh;			/* hosts with runs of this series */
	size_t *hix;			/* their index in m->hosts */
	double *vals[2];		/* each kernel's values, host by host */
	size_t *off[2], *cnt[2];	/* where each host's values are in vals */
	struct stats_stratum *strata;
	double *ratio, *lo, *hi;	/* each host's ratio and interval */
	unsigned char *used;		/* in the pooled estimate */
};

static void host_groups_fill(struct host_groups *g, const struct series *s, size_t *stratum)
{
	g->strata = xcalloc(g->nh, sizeof(*g->strata));
	g->ratio = xcalloc(g->nh, sizeof(double));
	g->lo = xcalloc(g->nh, sizeof(double));
	g->hi = xcalloc(g->nh, sizeof(double));
	g->used = xcalloc(g->nh, 1);
	for (int k = 0; k < 2; k++) {
		g->vals[k] = xcalloc(s->n[k] + 1, sizeof(double));
		g->off[k] = xcalloc(g->nh, sizeof(size_t));
		g->cnt[k] = xcalloc(g->nh, sizeof(size_t));
		group_by_host(s, k, stratum, g->nh, g->vals[k], g->off[k], g->cnt[k]);
	}
}

static void host_groups_release(struct host_groups *g)
{
	for (int k = 0; k < 2; k++) {
		free(g->vals[k]);
		free(g->off[k]);
		free(g->cnt[k]);
	}
	free(g->hix);
	free(g->strata);
	free(g->ratio);
	free(g->lo);
	free(g->hi);
	free(g->used);
}

/* Each host's stratum, and its ratio and interval where it ran both kernels. */
static void host_compare_each(const struct model *m, struct host_groups *g,
			      const struct stats_settings *st, const char *key)
{
	char hkey[640];

	for (size_t h = 0; h < g->nh; h++) {
		struct stats_comparison c;
		double *b = g->vals[BASE] + g->off[BASE][h], *p = g->vals[PATCHED] + g->off[PATCHED][h];
		size_t nb = g->cnt[BASE][h], np = g->cnt[PATCHED][h];

		g->strata[h] = (struct stats_stratum){ b, p, nb, np };
		g->ratio[h] = g->lo[h] = g->hi[h] = NAN;
		if (nb && np) {
			/* Each host's interval has its own stream, as each metric's has. */
			snprintf(hkey, sizeof(hkey), "%s@%s", key, m->hosts[g->hix[h]]);
			stats_compare(b, nb, p, np, st, stats_seed_for(st->seed, hkey), &c);
			g->ratio[h] = c.ratio;
			g->lo[h] = c.ratio_lo;
			g->hi[h] = c.ratio_hi;
		}
	}
}

/* "hosts": each host's runs, medians, ratio and interval, and whether it was pooled. */
static void fill_hosts(struct model *m, const struct host_groups *g, struct result_record *rec)
{
	rec->nhosts = g->nh;
	rec->hosts = xcalloc(g->nh + 1, sizeof(*rec->hosts));
	for (size_t h = 0; h < g->nh; h++) {
		const struct stats_stratum *x = &g->strata[h];
		struct result_host *o = &rec->hosts[h];

		o->host = result_strings_add(m->a.strings, m->hosts[g->hix[h]]);
		o->n[0] = (long)x->nb;
		o->n[1] = (long)x->np;
		o->median[0] = jv(x->nb ? stats_median(x->base, x->nb) : NAN);
		o->median[1] = jv(x->np ? stats_median(x->patched, x->np) : NAN);
		o->ratio = jv(g->ratio[h]);
		o->delta_pct = jv(isfinite(g->ratio[h]) ? 100 * (g->ratio[h] - 1) : NAN);
		o->lo = jv(g->lo[h]);
		o->hi = jv(g->hi[h]);
		o->pooled = !!g->used[h];
	}
}

/* "pooled" and "heterogeneity" of a record, from the pooled ratio and van Elteren's test. */
static void fill_pooled(const struct stats_pooled *pool, double ve_z, double ve_p,
			const char *ve_method, struct result_pooled *o)
{
	o->present = 1;
	o->method = "inverse-variance pooled log ratio of the hosts' medians; "
		    "van Elteren's stratified rank-sum test";
	o->hosts = (long)pool->k;
	o->ratio = jv(pool->ratio);
	o->delta_pct = jv(pool->k ? 100 * (pool->ratio - 1) : NAN);
	o->lo = jv(pool->lo);
	o->hi = jv(pool->hi);
	o->level = jv(pool->level);
	o->z = jv(ve_z);
	o->p = jv(ve_p);
	o->p_method = ve_method;
	/* No host gave a usable interval: the all-runs comparison decides, as with one host. */
	o->basis = pool->k && isfinite(ve_p) ? "pooled" : "all-runs";
	o->heterogeneity.present = 1;
	o->heterogeneity.q = jv(pool->q);
	o->heterogeneity.df = (long)pool->df;
	o->heterogeneity.p = jv(pool->q_p);
	o->heterogeneity.i2 = jv(pool->i2);
	o->heterogeneity.overlap = !!pool->overlap;
	o->heterogeneity.alpha = jv(STATS_HET_ALPHA);
	o->heterogeneity.heterogeneous = !!pool->heterogeneous;
}

/* What warn_heterogeneity() says of @s, with the numbers as the result has them. */
static void note_heterogeneity(const struct model *m, struct series *s,
			       const struct host_groups *g, const struct stats_pooled *pool)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t h = 0; h < g->nh; h++) {
		double pct = isfinite(g->ratio[h]) ? 100 * (g->ratio[h] - 1) : NAN;
		char d[32], ci[64];

		fmt_pct(d, sizeof(d), isfinite(pct) ? pct : NAN);
		fmt_ratio_ci(ci, sizeof(ci), isfinite(g->lo[h]) ? g->lo[h] : NAN,
			     isfinite(g->hi[h]) ? g->hi[h] : NAN);
		sb_addf(&sb, "%s%s %s %s", h ? ", " : "", m->hosts[g->hix[h]], d, ci);
	}
	s->het_hosts = sb_detach(&sb);
	s->het_q = isfinite(pool->q) ? pool->q : NAN;
	s->het_p = isfinite(pool->q_p) ? pool->q_p : NAN;
}

/*
 * A metric whose values came from several hosts: per host the medians and
 * the ratio with its bootstrap interval, the hosts pooled (stats.h, "Hosts
 * as strata"), and Cochran's Q. The verdict rests on the pooled estimate
 * and van Elteren's p, written into *@dec (a copy of the all-runs
 * comparison, which stays in "comparison" as before). Values from one host
 * only: nothing changes, as in a one-host session.
 */
void model_host_strata(struct model *m, struct series *s, const struct stats_settings *st,
		       const char *key, struct stats_comparison *dec)
{
	struct host_groups g = { .hix = xcalloc(m->nhosts + 1, sizeof(size_t)) };
	size_t *stratum = xcalloc(m->nhosts + 1, sizeof(*stratum));
	struct stats_pooled pool;
	const char *ve_method;
	double ve_z, ve_p;

	g.nh = series_hosts(m, s, g.hix, stratum);
	if (g.nh < 2) {
		free(g.hix);
		free(stratum);
		return;
	}
	host_groups_fill(&g, s, stratum);
	free(stratum);
	host_compare_each(m, &g, st, key);
	stats_pool_ratios(g.ratio, g.lo, g.hi, g.nh, st->confidence, &pool, g.used);
	stats_van_elteren(g.strata, g.nh, st->mw_exact_max, &ve_z, &ve_p, &ve_method);
	fill_hosts(m, &g, s->rec);
	fill_pooled(&pool, ve_z, ve_p, ve_method, &s->rec->pool);
	if (pool.heterogeneous)
		note_heterogeneity(m, s, &g, &pool);
	if (pool.k && isfinite(ve_p)) {
		dec->ratio = pool.ratio;
		dec->delta_pct = 100 * (pool.ratio - 1);
		dec->ratio_lo = pool.lo;
		dec->ratio_hi = pool.hi;
		dec->ratio_valid = 1;
		dec->mw_p = ve_p;
	}
	host_groups_release(&g);
}
