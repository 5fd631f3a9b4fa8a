// SPDX-License-Identifier: GPL-2.0
/*
 * From raw runs to results: group the runs of a session into one series per
 * (workload, metric) and kernel, run the statistics engine (stats.h) on each,
 * and write everything the renderers need into the report JSON. Nothing is
 * dropped: failed runs, missing values and outliers are counted and carried
 * into warnings, and the verdict rules of stats_decide() see them.
 */
#include "report.h"
#include "xjson.h"
#include "report_priv.h"
#include "report_model_priv.h"
#include "report_family.h"
#include "strmap.h"
#include "report_view.h"
#include "run_record.h"
#include "escape.h"
#include "stats.h"
#include "stats_defaults.h"
#include "util.h"
#include "workload_def.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void analysed_release(struct analysed *a)
{
	result_records_free(a->results, a->nresults);
	result_records_free(a->counters, a->ncounters);
	for (size_t i = 0; i < a->ngeomean; i++)
		free(a->geomean[i].of_names);
	free(a->geomean);
	if (a->strings)
		result_strings_release(a->strings);
	free(a->strings);
	memset(a, 0, sizeof(*a));
}

/* report_seq_plan() of a decoded plan. */
static int seq_plan(const struct input_seq_plan *j, struct stats_seq_plan *plan, double *budget_s)
{
	char err[256];

	if (!j->present)
		return 0;
	if (budget_s)
		*budget_s = isfinite(j->budget_s) && j->budget_s > 0 ? j->budget_s : 0;
	plan->alpha = j->alpha;
	plan->min_runs = (size_t)fmax(0, j->min_runs);
	plan->max_runs = (size_t)fmax(0, j->max_runs);
	plan->step = (size_t)fmax(0, j->step);
	plan->rho = j->rho;
	return stats_seq_plan_check(plan, err, sizeof(err)) ? -1 : 1;
}

int report_seq_plan(const json_t *session, struct stats_seq_plan *plan, double *budget_s)
{
	struct input_seq_plan j;

	input_seq_plan_decode(session, &j);
	return seq_plan(&j, plan, budget_s);
}

static void settings_from_session(struct model *m)
{
	const struct input_statistics *st = &m->in.statistics;
	double v;

	stats_settings_default(&m->st);	/* stats_defaults.h */
	m->min_runs = STATS_DEFAULT_MIN_RUNS;
	/* Nonsense settings fall back to the defaults instead of producing nonsense verdicts. */
	if ((v = st->alpha) > 0 && v < 1)
		m->st.alpha = v;
	if ((v = st->confidence) > 0 && v < 1)
		m->st.confidence = v;
	if ((v = st->resamples) >= STATS_MIN_RESAMPLES && v <= STATS_MAX_RESAMPLES)
		m->st.resamples = (unsigned)v;
	/* Any integer is a seed (a 64-bit session seed may come back negative). */
	if (st->has_int_seed)
		m->st.seed = (uint64_t)st->int_seed;
	else if ((v = st->seed) >= 0 && v < 9e15)
		m->st.seed = (uint64_t)v;
	m->band_source = "the lab's default";
	if ((v = st->threshold) >= 0 && v < 1) {
		m->st.threshold = v;
		m->band_source = st->threshold_source ? st->threshold_source :
				 "[stats] threshold of the session's lab.conf";
	}
	if ((v = st->max_failed_fraction) >= 0 && v <= 1)
		m->st.max_failed_fraction = v;
	if ((v = st->power) > 0 && v < 1)
		m->st.power = v;
	if ((v = st->min_runs) >= 2 && v < 1e6)
		m->min_runs = (size_t)v;
	/* Counters are context for the verdicts, not verdicts: fewer resamples keep
	 * a report with hundreds of vmstat fields fast. */
	m->counter_resamples = m->st.resamples < 2000 ? m->st.resamples : 2000;
	if ((v = st->counter_resamples) >= STATS_MIN_RESAMPLES &&
	    v <= STATS_MAX_RESAMPLES)
		m->counter_resamples = (unsigned)v;
}

static json_t *settings_json(const struct model *m)
{
	return xjson_pack("{s:o, s:o, s:o, s:I, s:I, s:I, s:o, s:o, s:I, s:I, s:I, s:s, s:s, s:s, s:s, s:s, s:s}",
		"alpha", jnum(m->st.alpha),
		"confidence", jnum(m->st.confidence),
		"threshold", jnum(m->st.threshold),
		"resamples", (json_int_t)m->st.resamples,
		"counter_resamples", (json_int_t)m->counter_resamples,
		"seed", (json_int_t)m->st.seed,	/* round-trips through the cast above */
		"power", jnum(m->st.power),
		"max_failed_fraction", jnum(m->st.max_failed_fraction),
		"min_runs", (json_int_t)m->min_runs,
		"mw_exact_max", (json_int_t)m->st.mw_exact_max,
		"wilcoxon_exact_max", (json_int_t)m->st.wilcoxon_exact_max,
		"bootstrap", "stratified, BCa (percentile when BCa is degenerate)",
		"median_ci", "exact binomial order statistics",
		"test", "Mann-Whitney U, two-sided (exact for small n, with ties)",
		"threshold_source", m->band_source,
		"multiple_comparisons", "Benjamini-Hochberg within each family: the primary metrics "
			"declared before the first run, the secondary metrics, the counters",
		"outliers", "modified z-score > 3.5 (flagged, never dropped)");
}

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
		rec->summarized[k] = !!have[k];
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

static void analyze_series(struct model *m, struct series *s)
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

static int cmp_counter(const void *a, const void *b)
{
	const struct series *x = *(struct series *const *)a, *y = *(struct series *const *)b;
	int c;

	if (x->sortkey != y->sortkey)
		return x->sortkey > y->sortkey ? -1 : 1;
	c = strcmp(x->workload, y->workload);
	return c ? c : strcmp(x->name, y->name);
}

/*
 * Where the session's time went: median and total per phase over every run
 * that recorded it (warm-ups and failed runs cost time too).
 */
static json_t *timings_json(const struct run_records *runs)
{
	static const char *const keys[] = { "boot_s", "workload_s", "host_overhead_s" };
	json_t *out = json_object();
	double *v = xcalloc(runs->n + 1, sizeof(double));

	for (size_t k = 0; k < ARRAY_SIZE(keys); k++) {
		double total = 0;
		size_t n = 0;

		for (size_t i = 0; i < runs->n; i++) {
			const struct run_timings *t = &runs->v[i].timings;
			double x = k == 0 ? t->boot_s : k == 1 ? t->workload_s : t->host_overhead_s;

			if (isfinite(x)) {
				v[n++] = x;
				total += x;
			}
		}
		json_object_set_new(out, keys[k], xjson_pack("{s:I, s:o, s:o}", "runs", (json_int_t)n,
			"median", jnum(n ? stats_median(v, n) : NAN), "total", jnum(n ? total : NAN)));
	}
	free(v);
	return out;
}

/* The index of verdict id @v in @ids (of @n); @n when it is none of them. */
static size_t verdict_slot(const char *const *ids, size_t n, const char *v)
{
	size_t i = 0;

	while (i < n && strcmp(ids[i], v))
		i++;
	return i;
}

/*
 * {kernel: {ok, failed, warmup}} over @runs, kernels in order of first run.
 * The object is its own index while counting (kernel -> place in the
 * counts): a report may name millions of kernels.
 */
static json_t *runs_per_kernel(const struct run_records *runs)
{
	json_t *per_kernel = json_object(), *at;
	unsigned (*n)[3] = xcalloc(runs->n + 1, sizeof(*n));	/* ok, failed, warmup */
	size_t nk = 0, k;
	void *it;

	for (size_t i = 0; i < runs->n; i++) {
		const struct run_record *run = &runs->v[i];

		if ((at = json_object_get(per_kernel, run->kernel))) {
			k = (size_t)json_integer_value(at);
		} else {
			k = nk++;
			json_object_set_new(per_kernel, run->kernel, json_integer((json_int_t)k));
		}
		n[k][2] += run->warmup != 0;
		n[k][run->ok ? 0 : 1]++;
	}
	for (it = json_object_iter(per_kernel); it; it = json_object_iter_next(per_kernel, it)) {
		k = (size_t)json_integer_value(json_object_iter_value(it));
		json_object_iter_set_new(per_kernel, it, xjson_pack("{s:i, s:i, s:i}",
			"ok", (int)n[k][0], "failed", (int)n[k][1], "warmup", (int)n[k][2]));
	}
	free(n);
	return per_kernel;
}

static json_t *summary(struct model *m)
{
	static const char *const ids[] = {
		"improvement", "regression", "within-noise", "no-change", "inconclusive", "invalid",
	};
	enum { NIDS = ARRAY_SIZE(ids) };
	json_t *by = json_object(), *pby = json_object();
	size_t n_by[NIDS + 1] = { 0 }, n_pby[NIDS + 1] = { 0 };
	size_t i, runs = 0, ok = 0, failed = 0, warm = 0, metrics = 0, counters = 0, prim = 0;

	for (i = 0; i < m->ns; i++) {
		size_t v;

		if (m->s[i].is_counter) {
			counters++;
			continue;
		}
		metrics++;
		prim += m->s[i].primary;
		if (!m->s[i].verdict)
			continue;
		v = verdict_slot(ids, NIDS, m->s[i].verdict);
		n_by[v]++;
		if (m->s[i].primary)
			n_pby[v]++;
	}
	for (size_t v = 0; v < NIDS; v++) {
		json_object_set_new(by, ids[v], json_integer((json_int_t)n_by[v]));
		json_object_set_new(pby, ids[v], json_integer((json_int_t)n_pby[v]));
	}
	runs = m->runs_total;
	warm = m->runs_warmup;
	failed = m->runs_failed;
	ok = runs - failed;
	return xjson_pack("{s:I, s:I, s:o, s:I, s:o, s:I, s:I, s:I, s:I, s:o, s:o}",
		"metrics", (json_int_t)metrics, "counters", (json_int_t)counters,
		"verdicts", by, "primaries", (json_int_t)prim, "primary_verdicts", pby,
		"runs", (json_int_t)runs, "runs_ok", (json_int_t)ok,
		"runs_failed", (json_int_t)failed, "runs_warmup", (json_int_t)warm,
		"runs_per_kernel", json_incref(m->runs_per_kernel), "timings", json_incref(m->timings));
}

/*
 * Metric results grouped by workload, in the session's workload order, the
 * primaries of each workload first: a workload is one block of the report
 * even when some of its metrics (per-node ones) are only named by its runs.
 * Counters in series order: sort_counters() orders them once analysed.
 * Each series gets its record's place, so no record is ever copied.
 */
static void place_records(struct model *m)
{
	unsigned char *done = xcalloc(m->ns + 1, 1);
	size_t n = 0;

	for (size_t j = 0; j < m->ns; j++)
		m->a.ncounters += m->s[j].is_counter;
	m->a.nresults = m->ns - m->a.ncounters;
	m->a.results = xcalloc(m->a.nresults + 1, sizeof(*m->a.results));
	m->a.counters = xcalloc(m->a.ncounters + 1, sizeof(*m->a.counters));
	for (size_t i = 0; i < m->in.nworkloads; i++)
		for (int prim = 1; prim >= 0; prim--)
			for (size_t j = 0; j < m->ns; j++) {
				struct series *s = &m->s[j];

				if (s->is_counter || done[j] || s->primary != prim ||
				    strcmp(s->workload, m->in.workloads[i].name))
					continue;
				s->rec = &m->a.results[n++];
				done[j] = 1;
			}
	/* Workloads the session did not declare (hand-written files): as found. */
	for (size_t j = 0, c = 0; j < m->ns; j++) {
		if (m->s[j].is_counter)
			m->s[j].rec = &m->a.counters[c++];
		else if (!done[j])
			m->s[j].rec = &m->a.results[n++];
	}
	free(done);
}

/* The model of @session before any series: its kernels, settings and sequential plan. */
/* What the stages after collect_runs() need of @runs (struct model). */
static void note_runs(struct model *m, const struct run_records *runs)
{
	size_t alloc = 0;

	for (size_t i = 0; i < runs->n; i++) {
		const struct run_record *run = &runs->v[i];
		int k = model_kernel_index(m, run->kernel);

		m->runs_total++;
		m->runs_failed += !run->ok;
		m->runs_busy += run->host_load.busy != 0;
		m->runs_warmup += run->warmup != 0;
		if (run->warmup || k < 0)
			continue;
		ALLOC_GROW(m->cruns, m->ncruns + 1, alloc);
		m->cruns[m->ncruns++] = (struct compared_run){
			run->workload, run->seq, run->block, k, run->ok,
		};
	}
	m->runs_per_kernel = runs_per_kernel(runs);
	m->timings = timings_json(runs);
}

static void model_init(struct model *m, const json_t *session)
{
	memset(m, 0, sizeof(*m));
	session_input_decode(session, &m->in);
	m->series_ix = json_object();
	m->workloads = json_object();
	m->host_ix = json_object();
	m->kname[BASE] = m->in.baseline;
	m->kname[PATCHED] = m->in.patched;
	settings_from_session(m);
	switch (seq_plan(&m->in.sequential, &m->seq, NULL)) {
	case 1:
		m->sequential = 1;
		break;
	case -1:
		m->seq_invalid = 1;
		break;
	}
}

static void model_release(struct model *m)
{
	for (size_t i = 0; i < m->ns; i++) {
		struct series *s = &m->s[i];
		free(s->het_hosts);
		free(s->workload);
		free(s->name);
		free(s->group);
		for (int k = 0; k < 2; k++) {
			free(s->v[k]);
			free(s->seq[k]);
			free(s->block[k]);
			free(s->host[k]);
		}
	}
	free(m->s);
	analysed_release(&m->a);
	json_decref(m->series_ix);
	json_decref(m->workloads);
	json_decref(m->host_ix);
	free(m->hosts);
	sb_release(&m->key);
	session_input_release(&m->in);
	hoststate_notes_release(&m->notes);
	free(m->cruns);
	json_decref(m->runs_per_kernel);
	json_decref(m->timings);
}

/* The report of @session without what analysis recomputes. */
static json_t *report_shell(const struct model *m, const json_t *session)
{
	/*
	 * A shallow copy: the report replaces only top-level members and shares
	 * the rest (runs, kernels, ...) with the session; nothing here or in the
	 * renderers changes a shared member. A deep copy doubled the memory of
	 * a large report, already about 20 times its size on disk.
	 */
	json_t *report = json_copy((json_t *)session);

	/* The results below are of this lab's schema, whatever the input's was. */
	json_object_set_new(report, "schema", json_string(REPORT_SCHEMA));
	/* Stored results are never trusted: they are recomputed from the runs. */
	json_object_del(report, "results");
	json_object_del(report, "counter_results");
	json_object_del(report, "geomean");
	json_object_del(report, "warnings");
	json_object_del(report, "summary");
	json_object_del(report, "host_states");
	json_object_set_new(report, "statistics", settings_json(m));
	return report;
}

/* The counters' records, largest changes first (cmp_counter()). */
static void sort_counters(struct model *m)
{
	struct series **cs = xcalloc(m->a.ncounters + 1, sizeof(*cs));
	struct result_record *sorted = xcalloc(m->a.ncounters + 1, sizeof(*sorted));
	size_t nc = 0;

	for (size_t i = 0; i < m->ns; i++)
		if (m->s[i].is_counter)
			cs[nc++] = &m->s[i];
	qsort(cs, nc, sizeof(*cs), cmp_counter);
	for (size_t i = 0; i < nc; i++) {
		sorted[i] = *cs[i]->rec;
		cs[i]->rec = &sorted[i];
	}
	free(m->a.counters);
	m->a.counters = sorted;
	free(cs);
}

/*
 * The analysis of @session into @m, and the report's members other than the
 * results into @shell. 0, or -1 with why in @err (the runs do not decode).
 */
static int analyze(const json_t *session, struct model *m, json_t **shell, struct strbuf *err)
{
	json_t *derived, *host_states;
	struct run_records runs;

	/* The runs, decoded as they are checked: the analysis reads struct run_record. */
	if (report_validate_runs(session, &runs, err))
		return -1;
	model_init(m, session);
	*shell = report_shell(m, session);

	model_declare_series(m);
	derived = report_hoststate_of(&m->in, &runs, m->kname, &host_states, &m->notes);
	model_collect_runs(m, &runs, derived);
	json_decref(derived);
	model_count_failures(m, &runs);
	note_runs(m, &runs);
	run_records_release(&runs);
	m->a.strings = xcalloc(1, sizeof(*m->a.strings));
	place_records(m);
	for (size_t i = 0; i < m->ns; i++)
		analyze_series(m, &m->s[i]);
	model_bh_family(m, FAMILY_PRIMARY);
	model_bh_family(m, FAMILY_SECONDARY);
	model_bh_family(m, FAMILY_COUNTER);
	sort_counters(m);

	/* "results", "counter_results" and "geomean" go before "host_states" (report_view_tree()). */
	if (m->kname[PATCHED])
		m->a.geomean = model_geomean_all(m, &m->a.ngeomean);
	json_object_set_new(*shell, "host_states", host_states);
	json_object_set_new(*shell, "warnings", model_report_warnings(m));
	json_object_set_new(*shell, "summary", summary(m));
	return 0;
}

int report_analyze_view(const json_t *session, struct report_view *out, struct strbuf *err)
{
	struct analysed a;
	struct model m;
	json_t *shell;
	int r;

	memset(out, 0, sizeof(*out));
	if (analyze(session, &m, &shell, err))
		return -1;
	/* The model goes first: decoding the shell's runs reuses its memory. */
	a = m.a;
	memset(&m.a, 0, sizeof(m.a));
	model_release(&m);
	r = report_view_decode(shell, out, err);
	/* Whatever it says, the view owns what the analysis made: its release frees them. */
	out->own_json = shell;
	out->strings = a.strings;
	out->results = a.results;
	out->nresults = a.nresults;
	out->counters = a.counters;
	out->ncounters = a.ncounters;
	report_view_set_geomean(out, a.geomean, a.ngeomean);
	for (size_t i = 0; i < a.nresults; i++)
		out->several_hosts |= a.results[i].nhosts > 0;
	return r;
}

json_t *report_analyze(const json_t *session, struct strbuf *err)
{
	struct report_view v;
	json_t *report = NULL;

	if (!report_analyze_view(session, &v, err))
		report = report_view_tree(&v);
	report_view_release(&v);
	return report;
}

/* json_dump_callback()'s: each piece goes to @data's strbuf, and on to its sink. */
static int dump_piece(const char *buf, size_t size, void *data)
{
	struct strbuf *out = data;

	sb_add(out, buf, size);
	/* Between two pieces nothing reads @out back. A failed write is the sink's to report. */
	LAB_IGNORE(sb_flush_point(out));
	return 0;
}

/*
 * Piece by piece (json_dump_callback(), the bytes json_dumps() would
 * give): a report's 96 MB JSON is never one string, only @out's sink
 * threshold held at a time when @out streams.
 */
void report_dump(const json_t *report, struct strbuf *out)
{
	if (json_dump_callback(report, dump_piece, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		die("out of memory dumping the report");
	sb_addc(out, '\n');
}
