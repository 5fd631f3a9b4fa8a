// SPDX-License-Identifier: GPL-2.0
/*
 * From raw runs to results: group the runs of a session into one series per
 * (workload, metric) and kernel, run the statistics engine (stats.h) on each,
 * and write everything the renderers need into the report JSON. Nothing is
 * dropped: failed runs, missing values and outliers are counted and carried
 * into warnings, and the verdict rules of stats_decide() see them.
 *
 * This file drives the analysis: the model of a session and its settings,
 * the records' places, the stages in order (analyze_records(), every
 * entry's), the report's shell around the records (analyze(), for the
 * view alone: a look takes the records, report_analyze_results()), and
 * its dump. The stages are the files that report_model_priv.h names.
 */
#include "report.h"
#include "xjson.h"
#include "report_priv.h"
#include "report_model_priv.h"
#include "report_view.h"
#include "run_record.h"
#include "stats.h"
#include "stats_defaults.h"
#include "util.h"

#include <stdint.h>
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

/* report_view.h */
int report_seq_plan(const struct input_seq_plan *j, struct stats_seq_plan *plan, double *budget_s)
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

/* The model of its input @m->in before any series: its kernels, settings and sequential plan. */
static void model_init(struct model *m)
{
	m->series_ix = json_object();
	m->workloads = json_object();
	m->host_ix = json_object();
	m->kname[BASE] = m->in.baseline;
	m->kname[PATCHED] = m->in.patched;
	settings_from_session(m);
	switch (report_seq_plan(&m->in.sequential, &m->seq, NULL)) {
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
 * The analysis proper, every entry's: the records of @m (its input and
 * settings made by model_init()) from @runs, checked against that input
 * already; the host states' member of a report into *@host_states.
 */
static void analyze_records(struct model *m, const struct run_records *runs, json_t **host_states)
{
	json_t *derived;

	model_declare_series(m);
	derived = report_hoststate_of(&m->in, runs, m->kname, host_states, &m->notes);
	model_collect_runs(m, runs, derived);
	json_decref(derived);
	model_count_failures(m, runs);
	model_note_runs(m, runs);
	m->a.strings = xcalloc(1, sizeof(*m->a.strings));
	place_records(m);
	for (size_t i = 0; i < m->ns; i++)
		model_analyze_series(m, &m->s[i]);
	model_bh_family(m, FAMILY_PRIMARY);
	model_bh_family(m, FAMILY_SECONDARY);
	model_bh_family(m, FAMILY_COUNTER);
	sort_counters(m);
}

/*
 * The analysis of @session's tree into @m, and the report's members other
 * than the results into @shell; its runs decoded from @session's "runs"
 * into @own as they are checked (their strings are @session's), which the
 * caller releases or hands on. 0, or -1 with why in @err (the session or
 * its runs are not valid).
 */
static int analyze(const json_t *session, struct run_records *own, struct model *m,
		   json_t **shell, struct strbuf *err)
{
	json_t *host_states;

	if (report_validate_runs(session, own, err))
		return -1;
	memset(m, 0, sizeof(*m));
	session_input_decode(session, &m->in);
	model_init(m);
	*shell = report_shell(m, session);
	analyze_records(m, own, &host_states);
	/* "results", "counter_results" and "geomean" go before "host_states" (report_view_tree()). */
	if (m->kname[PATCHED])
		m->a.geomean = model_geomean_all(m, &m->a.ngeomean);
	json_object_set_new(*shell, "host_states", host_states);
	json_object_set_new(*shell, "warnings", model_report_warnings(m));
	json_object_set_new(*shell, "summary", model_summary(m));
	return 0;
}

int report_analyze_view(const json_t *session, struct report_view *out, struct strbuf *err)
{
	struct run_records own = RUN_RECORDS_INIT;
	struct analysed a;
	struct model m;
	json_t *shell;
	int r;

	memset(out, 0, sizeof(*out));
	if (analyze(session, &own, &m, &shell, err)) {
		run_records_release(&own);
		return -1;
	}
	a = m.a;
	memset(&m.a, 0, sizeof(m.a));
	model_release(&m);
	/*
	 * The runs are the ones the analysis read, decoded once: the view
	 * takes them (their strings are @session's "runs", which the shell
	 * shares) and decodes everything else.
	 */
	r = report_view_decode_but_runs(shell, out, err);
	out->runs = own;
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

void report_analyze_results(const struct session_input *in, const struct run_records *runs,
			    struct report_results *out)
{
	struct model m;
	json_t *host_states;

	memset(&m, 0, sizeof(m));
	m.in = *in;	/* borrowed: given back before model_release() */
	model_init(&m);
	analyze_records(&m, runs, &host_states);
	json_decref(host_states);
	out->results = m.a.results;
	out->nresults = m.a.nresults;
	out->counters = m.a.counters;
	out->ncounters = m.a.ncounters;
	out->strings = m.a.strings;
	memset(&m.a, 0, sizeof(m.a));
	memset(&m.in, 0, sizeof(m.in));
	model_release(&m);
}

void report_results_release(struct report_results *r)
{
	result_records_free(r->results, r->nresults);
	result_records_free(r->counters, r->ncounters);
	if (r->strings)
		result_strings_release(r->strings);
	free(r->strings);
	memset(r, 0, sizeof(*r));
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
