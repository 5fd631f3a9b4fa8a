// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis' first stage (report_model_priv.h): the runs of a session
 * into one series per (workload, metric) or counter and kernel, each
 * described by what the session declares of it (unit, direction,
 * primary, band) or else by the built-in workload definition, and the
 * failed runs and missing values that count against each.
 */
#include "report.h"
#include "report_model_priv.h"
#include "report_view.h"
#include "run_record.h"
#include "util.h"
#include "workload_def.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Unambiguous: lengths first, and metrics and counters apart. */
static const char *series_key(struct model *m, const char *workload, const char *group,
			      const char *name)
{
	sb_reset(&m->key);
	sb_addf(&m->key, "%zu:%s%c%zu:%s%s", strlen(workload), workload, group ? 'c' : 'm',
		group ? strlen(group) : 0, group ? group : "", name);
	return sb_str(&m->key);
}

/* BASE, PATCHED, or -1 for a run of neither compared kernel. */
int model_kernel_index(const struct model *m, const char *name)
{
	if (!strcmp(name, m->kname[BASE]))
		return BASE;
	if (m->kname[PATCHED] && !strcmp(name, m->kname[PATCHED]))
		return PATCHED;
	return -1;
}

/* A metric (@group NULL) or a counter of @group, of one workload. */
static struct series *find_series(struct model *m, const char *workload, const char *group,
				  const char *name)
{
	const char *key = series_key(m, workload, group, name);
	json_t *ix = json_object_getn(m->series_ix, key, m->key.len);

	return ix ? &m->s[json_integer_value(ix)] : NULL;
}

static struct series *add_series(struct model *m, const char *workload, const char *group,
				 const char *name)
{
	struct series *s;

	series_key(m, workload, group, name);
	json_object_setn_new_nocheck(m->series_ix, m->key.buf, m->key.len,
				     json_integer((json_int_t)m->ns));
	ALLOC_GROW(m->s, m->ns + 1, m->alloc);
	s = &m->s[m->ns++];
	memset(s, 0, sizeof(*s));
	s->workload = xstrdup(workload);
	if (group) {
		s->group = xstrdup(group);
		s->name = xasprintf("%s.%s", group, name);
		s->cname = s->name + strlen(group) + 1;
	} else {
		s->name = xstrdup(name);
	}
	s->unit = "";
	s->better_higher = 1;
	s->is_counter = group != NULL;
	s->threshold = -1;
	s->p = s->q = NAN;
	return s;
}

static void push_value(struct series *s, int k, double v, long seq, long block, size_t host)
{
	size_t a = s->alloc[k];

	if (s->n[k] == a) {
		/* Few runs per series is the common case: a crafted report has 20,000 series. */
		a = a ? 2 * a : 4;
		s->v[k] = xrealloc(s->v[k], a * sizeof(double));
		s->seq[k] = xrealloc(s->seq[k], a * sizeof(long));
		s->block[k] = xrealloc(s->block[k], a * sizeof(long));
		s->host[k] = xrealloc(s->host[k], a * sizeof(size_t));
		s->alloc[k] = a;
	}
	s->v[k][s->n[k]] = v;
	s->seq[k][s->n[k]] = seq;
	s->block[k][s->n[k]] = block;
	s->host[k][s->n[k]] = host;
	s->n[k]++;
}

/*
 * Unit and direction: what the session declared, else what the built-in
 * workload definition says (old sessions, hand-written fixtures), else
 * "higher is better" with a warning, since guessing silently could flip a
 * verdict.
 */
/*
 * What the workload declares for all its metrics: which are primary (names
 * or %d patterns) and the band of its metrics (lab.conf's threshold).
 */
static void describe_workload(struct series *s, const struct input_workload *wl)
{
	double t = wl ? wl->threshold : NAN;

	for (size_t i = 0; wl && i < wl->nprimary; i++)
		if (metric_pattern_match(wl->primary[i], s->name))
			s->primary = 1;
	if (isfinite(t) && t >= 0 && t < 1) {
		s->threshold = t;
		s->band_source = "the workload's threshold in lab.conf";
	}
}

static void describe_metric(struct series *s, const struct input_metric_decl *decl)
{
	double t = decl->threshold;

	s->declared = 1;
	s->unit = decl->unit;
	s->better_higher = !decl->better_lower;
	if (isfinite(t) && t >= 0 && t < 1) {
		s->threshold = t;
		s->band_source = "declared for the metric";
	}
}

/* A metric the session did not declare: the built-in definition, if any. */
static void describe_builtin(struct series *s, const struct input_workload *wl)
{
	const struct workload_def *w = workload_find(wl ? wl->type : "");
	if (!w)
		return;
	for (const struct metric_def *md = w->metrics; md->name; md++) {
		if (metric_pattern_match(md->name, s->name)) {
			s->declared = 1;
			s->unit = md->unit;
			s->better_higher = md->better == BETTER_HIGHER;
			return;
		}
	}
}

int report_metric_info(const json_t *session, const char *workload, const char *metric,
		       const char **unit, int *primary)
{
	struct series s = { .name = (char *)metric, .unit = "", .better_higher = 1, .threshold = -1 };
	const json_t *j = report_find_named(session, "workloads", workload);
	struct input_workload wl;

	if (j) {
		input_workload_decode(j, &wl);
		describe_workload(&s, &wl);
		for (size_t i = 0; i < wl.nmetrics; i++) {
			if (!strcmp(wl.metrics[i].name, metric)) {
				describe_metric(&s, &wl.metrics[i]);
				break;
			}
		}
		if (!s.declared)
			describe_builtin(&s, &wl);
		input_workload_release(&wl);
	}
	if (unit)
		*unit = s.unit;
	if (primary)
		*primary = s.primary;
	return s.declared ? s.better_higher : -1;
}

/* The first workload declared as @name; NULL: none. */
static const struct input_workload *model_workload(const struct model *m, const char *name)
{
	const json_t *ix = json_object_get(m->workloads, name);

	return ix ? &m->in.workloads[json_integer_value(ix)] : NULL;
}

void model_declare_series(struct model *m)
{
	/* Declared metrics first, in declaration order: the report's row order. */
	for (size_t i = 0; i < m->in.nworkloads; i++) {
		const struct input_workload *w = &m->in.workloads[i];
		const char *wn = w->name;

		if (!model_workload(m, wn))
			json_object_set_new_nocheck(m->workloads, wn, json_integer((json_int_t)i));
		for (size_t j = 0; j < w->nmetrics; j++) {
			const struct input_metric_decl *decl = &w->metrics[j];
			const char *mn = decl->name;

			/* The first declaration of a name wins. */
			if (!find_series(m, wn, NULL, mn)) {
				struct series *s = add_series(m, wn, NULL, mn);

				describe_workload(s, w);
				describe_metric(s, decl);
			}
		}
	}
}

/* @val: NaN when the run has no number for @key. */
static void push_metric(struct model *m, const char *wn, const char *key, double val,
			int k, int ok, long seq, long blk, size_t host)
{
	struct series *s = find_series(m, wn, NULL, key);

	if (!s) {
		/* Not declared (model_declare_series() made those): built-in or unknown. */
		s = add_series(m, wn, NULL, key);
		describe_workload(s, model_workload(m, wn));
		describe_builtin(s, model_workload(m, wn));
	}
	if (ok && !isnan(val))
		push_value(s, k, val, seq, blk, host);
}

/* The index of host @name, added when new. */
static size_t host_index(struct model *m, const char *name)
{
	json_t *ix = json_object_get(m->host_ix, name);

	if (ix)
		return (size_t)json_integer_value(ix);
	ALLOC_GROW(m->hosts, m->nhosts + 1, m->hosts_alloc);
	m->hosts[m->nhosts] = name;
	json_object_set_new(m->host_ix, name, json_integer((json_int_t)m->nhosts));
	return m->nhosts++;
}

/* A run's counters ({group: {name: number or null}}, checked by its decoder). */
static void push_counters(struct model *m, const struct run_record *run, int k, size_t host)
{
	const char *gname, *cname;
	json_t *group, *cval;

	json_object_foreach((json_t *)run->counters, gname, group) {
		json_object_foreach(group, cname, cval) {
			struct series *s = find_series(m, run->workload, gname, cname);

			if (!s)
				s = add_series(m, run->workload, gname, cname);
			if (run->ok && json_is_number(cval))
				push_value(s, k, json_number_value(cval), run->seq, run->block, host);
		}
	}
}

/* @derived: report_hoststate()'s values, parallel to @runs. */
void model_collect_runs(struct model *m, const struct run_records *runs, const json_t *derived)
{
	const char *key;
	json_t *val;

	for (size_t i = 0; i < runs->n; i++) {
		const struct run_record *run = &runs->v[i];
		const char *wn = run->workload;
		size_t host;
		int k;

		if (run->warmup)
			continue;
		k = model_kernel_index(m, run->kernel);
		if (k < 0)
			continue;
		/* Records from before hosts ran on the one implicit host. */
		host = host_index(m, run->host ? run->host : "local");
		for (size_t j = 0; j < run->nr_metrics; j++)
			push_metric(m, wn, run->metrics[j].name, run->metrics[j].value, k, run->ok,
				    run->seq, run->block, host);
		json_object_foreach(json_array_get(derived, i), key, val)
			push_metric(m, wn, key, json_is_number(val) ? json_number_value(val) : NAN,
				    k, run->ok, run->seq, run->block, host);
		push_counters(m, run, k, host);
	}
}

/*
 * A host-adjusted metric's runs whose every cell lay between the emulator
 * states' cores (report_hoststate.c) have no value in a state: left out
 * as their cells are, neither failed nor missing.
 */
static void not_missing_between(const struct model *m, struct series *s)
{
	for (size_t i = 0; i < m->notes.n; i++) {
		const struct hoststate_note *h = &m->notes.v[i];

		if (s->is_counter || strcmp(h->workload, s->workload) || strcmp(h->metric, s->name))
			continue;
		for (int k = 0; k < 2; k++)
			s->missing[k] -= h->runs_between[k] < s->missing[k] ? h->runs_between[k] :
									     s->missing[k];
		return;
	}
}

/*
 * Failed runs count against every series of their workload; an ok run that
 * lacks a value is "missing" for that series. Both feed the invalid rule.
 */
void model_count_failures(struct model *m, const struct run_records *runs)
{
	json_t *c, *counts = json_object();
	size_t i;

	/* Per workload, ok and failed runs of each kernel: [ok0, ok1, failed0, failed1]. */
	for (i = 0; i < runs->n; i++) {
		const struct run_record *run = &runs->v[i];
		int k = model_kernel_index(m, run->kernel);
		json_t *n;

		if (run->warmup || k < 0)
			continue;
		if (!(c = json_object_get(counts, run->workload))) {
			c = xjson_pack("[iiii]", 0, 0, 0, 0);
			json_object_set_new_nocheck(counts, run->workload, c);
		}
		n = json_array_get(c, (size_t)(!run->ok * 2 + k));
		json_integer_set(n, json_integer_value(n) + 1);
	}
	/* An ok run without a value is one that pushed none (model_collect_runs()). */
	for (i = 0; i < m->ns; i++) {
		struct series *s = &m->s[i];

		if (!(c = json_object_get(counts, s->workload)))
			continue;
		for (int k = 0; k < 2; k++) {
			size_t ok = (size_t)json_integer_value(json_array_get(c, (size_t)k));

			s->failed[k] = (size_t)json_integer_value(json_array_get(c, (size_t)(2 + k)));
			s->missing[k] = ok > s->n[k] ? ok - s->n[k] : 0;
		}
		not_missing_between(m, s);
	}
	json_decref(counts);
}
