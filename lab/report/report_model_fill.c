// SPDX-License-Identifier: GPL-2.0
/*
 * One series analysed (report_model_priv.h): each kernel's summary, the
 * two kernels compared (paired by block, pooled over hosts, a sequential
 * primary at its look and with its earlier looks carried), and its
 * record filled with them, everything but the verdict, which waits for
 * the q values of its family (report_model_verdict.c).
 */
#include "report.h"
#include "report_model_priv.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The statistics of a kernel with values, as side_json() writes them (report_encode.c). */
static void fill_side_stats(const struct stats_summary *sum, struct result_side *o)
{
	o->median = jv(sum->median);
	o->median_ci.lo = jv(sum->median_ci.lo);
	o->median_ci.hi = jv(sum->median_ci.hi);
	o->median_ci.achieved = jv(sum->median_ci.achieved);
	o->median_ci.lo_order = (long)sum->median_ci.lo_order;
	o->median_ci.hi_order = (long)sum->median_ci.hi_order;
	o->median_ci.ok = !!sum->median_ci.ok;
	o->median_ci.reason = sum->median_ci.reason;	/* static */
	o->min = jv(sum->min);
	o->q1 = jv(sum->q1);
	o->q3 = jv(sum->q3);
	o->max = jv(sum->max);
	o->mean = jv(sum->mean);
	o->stddev = jv(sum->stddev);
	o->cv = jv(sum->cv);
	o->mad = jv(sum->mad);
	o->outliers = (long)sum->outliers;
	o->drift.valid = !!sum->drift_valid;
	o->drift.rho = jv(sum->drift_rho);
	o->drift.p = jv(sum->drift_p);
}

/* Kernel @k's side of @s's record: its runs and values, and its statistics when @sum. */
static void fill_side(const struct series *s, int k, const struct stats_summary *sum,
		      const unsigned char *flags, struct result_side *o)
{
	size_t n = s->n[k], no = 0;

	free(o->values);
	free(o->runs);
	free(o->outlier_runs);
	o->nvalues = n;
	o->values = xcalloc(n + 1, sizeof(*o->values));
	o->runs = xcalloc(n + 1, sizeof(*o->runs));
	o->outlier_runs = xcalloc(n + 1, sizeof(*o->outlier_runs));
	for (size_t i = 0; i < n; i++) {
		o->runs[i] = s->seq[k][i];
		o->values[i] = jv(s->v[k][i]);
		if (flags && flags[i])
			o->outlier_runs[no++] = s->seq[k][i];
	}
	o->noutlier_runs = no;
	o->n = (long)n;
	o->failed = (long)s->failed[k];
	o->missing = (long)s->missing[k];
	if (sum)
		fill_side_stats(sum, o);
}

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

static void fill_paired(const struct stats_paired *pd, struct result_comparison *o)
{
	o->paired.present = 1;
	o->paired.pairs = (long)pd->n_pairs;
	o->paired.used = (long)pd->n_used;
	o->paired.valid = !!pd->valid;
	o->paired.median_ratio = jv(pd->median_ratio);
	o->paired.hl_ratio = jv(pd->hl_ratio);
	o->paired.w_plus = jv(pd->w_plus);
	o->paired.p = jv(pd->p);
	o->paired.method = or_none(pd->method);
}

/* "comparison" of a record; its q comes with the verdict (decide()). */
static void fill_comparison(const struct stats_comparison *c, const struct stats_paired *pd,
			    struct result_comparison *o)
{
	o->present = 1;
	o->ratio = jv(c->ratio);
	o->delta_pct = jv(c->delta_pct);
	o->all_equal = !!c->all_equal;
	o->ci.lo = jv(c->ratio_lo);
	o->ci.hi = jv(c->ratio_hi);
	o->ci.level = jv(c->ci_level);
	o->ci.method = or_none(c->ci_method);
	o->ci.resamples = (long)c->resamples;
	o->mann_whitney.u = jv(c->mw_u);
	o->mann_whitney.p = jv(c->mw_p);
	o->mann_whitney.method = or_none(c->mw_method_name);
	o->hodges_lehmann.shift = jv(c->hl_shift);
	o->hodges_lehmann.lo = jv(c->hl_lo);
	o->hodges_lehmann.hi = jv(c->hl_hi);
	o->hodges_lehmann.ratio = jv(c->hl_ratio);
	o->hodges_lehmann.ratio_lo = jv(c->hl_ratio_lo);
	o->hodges_lehmann.ratio_hi = jv(c->hl_ratio_hi);
	o->hodges_lehmann.level = jv(c->hl_level);
	o->mde_pct = jv(c->mde_pct);
	if (pd && pd->n_pairs)
		fill_paired(pd, o);
}

/* A value and its block, to be sorted by block. */
struct blocked {
	long block;
	size_t at;	/* position in the series: ties keep the run order */
	double v;
};

static int by_block(const void *a, const void *b)
{
	const struct blocked *x = a, *y = b;

	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* @s's values of kernel @k that have a block, sorted by block; their count. */
static size_t sorted_by_block(const struct series *s, int k, struct blocked **out)
{
	size_t n = 0;

	*out = xcalloc(s->n[k] + 1, sizeof(**out));
	for (size_t i = 0; i < s->n[k]; i++)
		if (s->block[k][i] >= 0)
			(*out)[n++] = (struct blocked){ s->block[k][i], i, s->v[k][i] };
	qsort(*out, n, sizeof(**out), by_block);
	return n;
}

/*
 * Blocks pair the kernels in time (ABBA / BAAB on one host slot), so the
 * per-block means form pairs that cancel slow host drift. Both kernels'
 * values sorted by block and walked together: n log n, where a scan per
 * block was quadratic in the runs (a crafted report of 50,000 runs per
 * kernel).
 */
static size_t block_pairs(const struct series *s, double **pb, double **pp)
{
	struct blocked *b, *p;
	size_t nb = sorted_by_block(s, BASE, &b), npat = sorted_by_block(s, PATCHED, &p);
	size_t np = 0, i = 0, j = 0;

	*pb = xcalloc(s->n[BASE] + 1, sizeof(double));
	*pp = xcalloc(s->n[BASE] + 1, sizeof(double));
	while (i < nb) {
		long blk = b[i].block;
		double sb = 0, sp = 0;
		size_t cb = 0, cp = 0;

		for (; i < nb && b[i].block == blk; i++)
			sb += b[i].v, cb++;
		while (j < npat && p[j].block < blk)
			j++;
		for (; j < npat && p[j].block == blk; j++)
			sp += p[j].v, cp++;
		if (cp) {
			(*pb)[np] = sb / (double)cb;
			(*pp)[np] = sp / (double)cp;
			np++;
		}
	}
	free(b);
	free(p);
	return np;
}

/*
 * The schedule position of a workload's analysis: its highest block with
 * a run of a compared kernel. A look is a whole block (session_seq.c), and
 * an analysis past a look (a budget that stopped a session mid-block) is
 * the next look, so no look's level is ever spent on two data sets.
 */
static size_t workload_top_block(const struct model *m, const char *workload)
{
	long top = 0;

	for (size_t i = 0; i < m->ncruns; i++)
		if (!strcmp(m->cruns[i].workload, workload) && m->cruns[i].block > top)
			top = m->cruns[i].block;
	return (size_t)top;
}

/* Each kernel's summary of @s (with its outlier flags); @have says which could be made. */
static void summarize_sides(const struct series *s, const struct stats_settings *st,
			    struct stats_summary *sum, unsigned char **flags, int *have)
{
	for (int k = 0; k < 2; k++) {
		double *order = xcalloc(s->n[k] + 1, sizeof(double));

		flags[k] = xcalloc(s->n[k] + 1, 1);
		for (size_t i = 0; i < s->n[k]; i++)
			order[i] = (double)s->seq[k][i];
		have[k] = s->n[k] && !stats_summarize(s->v[k], order, s->n[k], st->confidence,
							&sum[k], flags[k]);
		free(order);
	}
}

/* A record's description of its series and each kernel's summary. */
static void fill_series(struct model *m, struct series *s, const struct stats_settings *st,
			const struct stats_summary *sum, unsigned char **flags, const int *have)
{
	struct result_record *rec = s->rec;
	struct result_strings *str = m->a.strings;

	/*
	 * Names come from run records, which quote the guest (a counter's name
	 * from its /proc text): lossy, so a bad byte shows as U+FFFD instead
	 * of the result vanishing.
	 */
	rec->workload = result_strings_add(str, s->workload);
	rec->metric = result_strings_add(str, s->name);
	rec->is_counter = s->is_counter;
	if (s->group) {
		rec->group = result_strings_add(str, s->group);
		rec->name = result_strings_add(str, s->cname);
	}
	if (!s->is_counter) {
		rec->unit = result_strings_add(str, s->unit);
		rec->better = s->better_higher ? "higher" : "lower";
		rec->primary = !!s->primary;
	}
	rec->threshold = jv(s->threshold >= 0 ? s->threshold : st->threshold);
	rec->band_source = s->band_source ? s->band_source : m->band_source;
	for (int k = 0; k < 2; k++) {
		fill_side(s, k, have[k] ? &sum[k] : NULL, flags[k], &rec->side[k]);
		rec->side[k].summarized = !!have[k];
	}
}

/* A sequential primary's p, scaled to the overall alpha, and "sequential" of its record. */
static void set_sequential(struct model *m, struct series *s, double p)
{
	struct result_sequential *o = &s->rec->sequential;

	s->p = s->look ? stats_seq_p_adjust(&m->seq, s->look, p) : NAN;
	o->present = 1;
	o->look = (long)s->look;
	o->looks = (long)stats_seq_looks(&m->seq);
	o->runs_at_look = (long)(s->look ? stats_seq_runs_at(&m->seq, s->look) : 0);
	o->alpha_look = jv(s->look ? stats_seq_alpha_at(&m->seq, s->look) : NAN);
	o->p = jv(p);
	o->p_adjusted = jv(s->p);
}

/* @s with the values of blocks up to @upto only, into @sub, its arrays its own. */
static void sub_series(const struct series *s, long upto, struct series *sub,
		       struct result_record *scratch)
{
	*sub = *s;
	sub->rec = scratch;
	sub->het_hosts = NULL;
	for (int k = 0; k < 2; k++) {
		size_t n = 0;

		sub->v[k] = xcalloc(s->n[k] + 1, sizeof(double));
		sub->seq[k] = xcalloc(s->n[k] + 1, sizeof(long));
		sub->block[k] = xcalloc(s->n[k] + 1, sizeof(long));
		sub->host[k] = xcalloc(s->n[k] + 1, sizeof(size_t));
		for (size_t i = 0; i < s->n[k]; i++) {
			if (s->block[k][i] > upto)
				continue;
			sub->v[k][n] = s->v[k][i];
			sub->seq[k][n] = s->seq[k][i];
			sub->block[k][n] = s->block[k][i];
			sub->host[k][n++] = s->host[k][i];
		}
		sub->n[k] = sub->alloc[k] = n;
	}
}

static void sub_series_release(struct series *sub)
{
	for (int k = 0; k < 2; k++) {
		free(sub->v[k]);
		free(sub->seq[k]);
		free(sub->block[k]);
		free(sub->host[k]);
	}
	free(sub->het_hosts);
}

/*
 * Final stays final (issue 49; stats.h, stats_seq_carry): a sequential
 * primary at look K is judged on the intersection of the intervals of
 * looks 1..K and the smallest look-adjusted p, so a verdict once final
 * at a look (which the progress lines and sequential.json said) stays
 * final. Each earlier look is computed again from the runs as that look
 * saw them (the blocks up to its runs per kernel: session_seq_may_start()
 * starts none beyond a look not yet taken), with the same seed, level and
 * method, so the report stays a function of its runs. Sets s->p, @dec's
 * interval and the record's sequential.lo, hi and p_adjusted.
 */
static void carry_looks(struct model *m, struct series *s, const struct stats_settings *st,
			const char *key, struct stats_comparison *dec)
{
	struct result_sequential *o = &s->rec->sequential;
	struct stats_seq_carry c;

	stats_seq_carry_init(&c);
	for (size_t j = 1; j < s->look; j++) {
		struct stats_settings at = *st;
		struct result_record scratch;
		struct stats_comparison cj, dj;
		struct series sub;

		at.confidence = 1 - stats_seq_alpha_at(&m->seq, j);
		result_record_clear(&scratch);
		sub_series(s, (long)stats_seq_runs_at(&m->seq, j), &sub, &scratch);
		if (sub.n[BASE] && sub.n[PATCHED]) {
			stats_compare(sub.v[BASE], sub.n[BASE], sub.v[PATCHED], sub.n[PATCHED], &at,
				      stats_seed_for(at.seed, key), &cj);
			dj = cj;
			if (m->nhosts > 1)
				model_host_strata(m, &sub, &at, key, &dj);
			stats_seq_carry_add(&m->seq, j, dj.ratio_lo, dj.ratio_hi, dj.mw_p, &c);
		}
		sub_series_release(&sub);
		result_record_release(&scratch);
	}
	stats_seq_carry_add(&m->seq, s->look, dec->ratio_lo, dec->ratio_hi, dec->mw_p, &c);
	if (c.looks) {
		dec->ratio_lo = c.lo;
		dec->ratio_hi = c.hi;
	}
	s->p = c.p_adj;
	o->p_adjusted = jv(c.p_adj);
	o->lo = jv(c.looks ? c.lo : NAN);
	o->hi = jv(c.looks ? c.hi : NAN);
}

/*
 * The two kernels compared, all runs in *@cmp ("comparison" of @r), and
 * in *@dec what the verdict rests on: the pooled comparison of a session
 * on several hosts, else the same.
 */
static void compare_sides(struct model *m, struct series *s, const struct stats_settings *st,
			  const char *key, struct stats_comparison *cmp, struct stats_comparison *dec)
{
	struct stats_paired pd;
	double *pb = NULL, *pp = NULL;
	size_t np;

	memset(&pd, 0, sizeof(pd));
	stats_compare(s->v[BASE], s->n[BASE], s->v[PATCHED], s->n[PATCHED], st,
		      stats_seed_for(st->seed, key), cmp);
	np = block_pairs(s, &pb, &pp);
	if (np >= 2)
		stats_paired(pb, pp, np, st, &pd);
	*dec = *cmp;
	/* Hosts are strata only where the runs came from more than one. */
	if (m->nhosts > 1 && !s->is_counter)
		model_host_strata(m, s, st, key, dec);
	s->p = dec->mw_p;
	if (is_seq_primary(m, s)) {
		set_sequential(m, s, dec->mw_p);
		if (s->look)
			carry_looks(m, s, st, key, dec);
	}
	/* Large changes first when sorting counters; unknown ratios after. */
	s->sortkey = cmp->ratio_valid && cmp->ratio > 0 ? fabs(log(cmp->ratio)) :
		(cmp->all_equal ? -2 : -1);
	fill_comparison(cmp, np >= 2 ? &pd : NULL, &s->rec->comparison);
	s->compared = 1;
	s->ratio = isfinite(cmp->ratio) ? cmp->ratio : NAN;
	free(pb);
	free(pp);
}

void model_analyze_series(struct model *m, struct series *s)
{
	struct stats_summary sum[2];
	struct stats_comparison cmp, dec;
	unsigned char *flags[2];
	struct stats_settings st = m->st;
	int have[2];
	char key[512];

	if (s->is_counter)
		st.resamples = m->counter_resamples;
	summarize_sides(s, &st, sum, flags, have);
	result_record_clear(s->rec);
	fill_series(m, s, &st, sum, flags, have);

	snprintf(key, sizeof(key), "%s/%s", s->workload, s->name);
	/*
	 * A primary of a sequential session is judged at the level of the
	 * look this analysis is: its interval at 1 - alpha_k, its p scaled
	 * to the overall alpha (stats.h, repeated confidence intervals).
	 */
	if (is_seq_primary(m, s)) {
		s->look = stats_seq_look_of(&m->seq, workload_top_block(m, s->workload));
		if (s->look)
			st.confidence = 1 - stats_seq_alpha_at(&m->seq, s->look);
	}
	if (have[BASE] && have[PATCHED]) {
		compare_sides(m, s, &st, key, &cmp, &dec);
	} else {
		memset(&cmp, 0, sizeof(cmp));
		cmp.n_base = s->n[BASE];
		cmp.n_patched = s->n[PATCHED];
		cmp.ratio = cmp.ratio_lo = cmp.ratio_hi = cmp.mw_p = NAN;
		dec = cmp;
		s->sortkey = -3;
	}
	model_series_warnings(m, s, &st, sum, have);
	result_record_set_basis(s->rec);
	/* The verdict needs the q values, known only once every series is done. */
	s->cmp = dec;
	free(flags[0]);
	free(flags[1]);
}
