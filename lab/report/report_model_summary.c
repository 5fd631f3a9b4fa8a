// SPDX-License-Identifier: GPL-2.0
/*
 * The report's "summary" (report_model_priv.h): the metrics and counters,
 * the verdicts counted (all metrics and the primaries), the runs by
 * outcome and per kernel, and where the session's time went; and what
 * the analysis notes of the runs for it, for the warnings, the geometric
 * means and a look's position, before their records are released.
 */
#include "report.h"
#include "report_model_priv.h"
#include "run_record.h"
#include "stats.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

json_t *model_summary(struct model *m)
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

/* What the stages after model_collect_runs() need of @runs (struct model). */
void model_note_runs(struct model *m, const struct run_records *runs)
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
