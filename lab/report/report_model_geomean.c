// SPDX-License-Identifier: GPL-2.0
/*
 * The geometric means (report_model_priv.h): per workload, of its analysed
 * metrics' ratios, each measurement once in its best form (report_family.h),
 * oriented so that > 1 means the patched kernel is better, with a joint
 * bootstrap interval over the workload's runs (stats_geomean()).
 */
#include "report.h"
#include "report_family.h"
#include "report_model_priv.h"
#include "report_view.h"
#include "stats.h"
#include "strmap.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Row @k of the geomean matrix for @s: its value in each of @runs, NAN
 * where it has none. Its values came from those runs in the same order
 * (model_collect_runs() walks runs[] as model_geomean_all() does), so one merge pass
 * does it, where a search per cell was cubic in a long session.
 */
static void values_of_runs(const struct series *s, int k, const long *runs, size_t nr, double *out)
{
	size_t p = 0;

	for (size_t r = 0; r < nr; r++) {
		if (p < s->n[k] && s->seq[k][p] == runs[r])
			out[r] = s->v[k][p++];
		else
			out[r] = NAN;
	}
}

/*
 * One workload's share of the geometric means: its runs that produced
 * values, in order, per kernel, and its analysed metrics. All workloads'
 * groups are filled in one pass over the runs and one over the series
 * (geomean_groups()): a scan of both per workload was quadratic, 20
 * minutes for 10,000 workloads.
 */
struct geo_group {
	const char *workload;
	const char *name;	/* the workload as its records have it */
	long *runs[2];
	size_t nr[2], nrun_alloc[2];
	struct series **ms;
	size_t nm, ms_alloc;
	struct strmap fam;	/* measurement (name without its form) -> index into ms */
};

/* @gg's geometric mean into @o: its names and workload are its records'. */
static void geomean_fill(struct model *m, struct geo_group *gg, struct view_geomean *o)
{
	const char *workload = gg->workload;
	long **runs = gg->runs;
	size_t *nr = gg->nr, nm = gg->nm;
	struct series **ms = gg->ms;
	unsigned char *better;
	double *mat[2];
	struct stats_geomean g;
	char key[300];

	o->nof = nm;
	o->of_names = xcalloc(nm + 1, sizeof(*o->of_names));
	for (size_t a = 0; a < nm; a++)
		o->of_names[a] = ms[a]->rec->metric;
	better = xcalloc(nm + 1, 1);
	for (int k = 0; k < 2; k++) {
		mat[k] = xcalloc(nm * nr[k] + 1, sizeof(double));
		for (size_t a = 0; a < nm; a++)
			values_of_runs(ms[a], k, runs[k], nr[k], &mat[k][a * nr[k]]);
	}
	for (size_t a = 0; a < nm; a++)
		better[a] = (unsigned char)ms[a]->better_higher;
	snprintf(key, sizeof(key), "geomean/%s", workload);
	memset(&g, 0, sizeof(g));
	g.ratio = g.lo = g.hi = NAN;
	if (nm && nr[0] && nr[1])
		stats_geomean(mat[BASE], nr[BASE], mat[PATCHED], nr[PATCHED], nm, better,
			      &m->st, stats_seed_for(m->st.seed, key), &g);
	o->workload = gg->name;
	o->metrics = (long)g.k;
	o->skipped = (long)g.skipped;
	o->ratio = jv(g.ratio);
	o->lo = jv(g.lo);
	o->hi = jv(g.hi);
	o->level = jv(g.level);
	o->method = g.method ? g.method : "none";	/* static */
	free(better);
	free(mat[0]);
	free(mat[1]);
}

/* 1 when @a is the better form of a measurement than @b: primary, raw, _hostadj, _mean. */
static int geo_prefer(const struct series *a, const struct series *b)
{
	if (a->primary != b->primary)
		return a->primary;
	return metric_family_form(a->name) < metric_family_form(b->name);
}

/* @s into @gg's metrics, once per measurement (report_family.h): its best form. */
static void geo_add(struct geo_group *gg, struct series *s)
{
	char *stem = xstrndup(s->name, metric_family_stem_len(s->name));
	size_t a;

	if (strmap_get(&gg->fam, stem, &a)) {
		if (geo_prefer(s, gg->ms[a]))
			gg->ms[a] = s;
	} else {
		strmap_put(&gg->fam, stem, gg->nm);
		ALLOC_GROW(gg->ms, gg->nm + 1, gg->ms_alloc);
		gg->ms[gg->nm++] = s;
	}
	free(stem);
}

/* Geometric means in the order workloads first produced metrics: *@n of them. */
struct view_geomean *model_geomean_all(struct model *m, size_t *n)
{
	json_t *ix = json_object(), *at;
	struct view_geomean *geo;
	struct geo_group *gs = NULL;
	size_t ng = 0, g_alloc = 0, i;

	for (i = 0; i < m->ns; i++) {
		struct series *s = &m->s[i];
		struct geo_group *gg;

		if (s->is_counter)
			continue;
		if ((at = json_object_get(ix, s->workload))) {
			gg = &gs[json_integer_value(at)];
		} else {
			json_object_set_new_nocheck(ix, s->workload, json_integer((json_int_t)ng));
			ALLOC_GROW(gs, ng + 1, g_alloc);
			gg = &gs[ng++];
			memset(gg, 0, sizeof(*gg));
			gg->workload = s->workload;
			gg->name = s->rec->workload;
		}
		if (s->verdict && strcmp(s->verdict, "invalid") && metric_in_geomean(s->name))
			geo_add(gg, s);
	}
	/* Each workload's runs that produced values, in order, per kernel. */
	for (i = 0; i < m->ncruns; i++) {
		const struct compared_run *run = &m->cruns[i];
		int k = run->k;
		struct geo_group *gg;

		if (!run->ok || !(at = json_object_get(ix, run->workload)))
			continue;
		gg = &gs[json_integer_value(at)];
		ALLOC_GROW(gg->runs[k], gg->nr[k] + 1, gg->nrun_alloc[k]);
		gg->runs[k][gg->nr[k]++] = run->seq;
	}
	geo = xcalloc(ng + 1, sizeof(*geo));
	*n = ng;
	for (i = 0; i < ng; i++) {
		geomean_fill(m, &gs[i], &geo[i]);
		free(gs[i].runs[0]);
		free(gs[i].runs[1]);
		free(gs[i].ms);
		strmap_clear(&gs[i].fam);
	}
	free(gs);
	json_decref(ix);
	return geo;
}
