// SPDX-License-Identifier: GPL-2.0
/*
 * sequential.json (seq_state.h): its one decoder and its one encoder. The
 * file is the session's own, but a resumed session must not act on a
 * member it misreads, so every member is checked for its type and range.
 */
#include "seq_state.h"
#include "xjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const why_names[] = {
	[SEQ_WHY_DECIDED] = "decided",
	[SEQ_WHY_MAX_RUNS] = "max-runs",
	[SEQ_WHY_BUDGET] = "budget",
	[SEQ_WHY_BELOW_FIRST_LOOK] = "below-first-look",
	[SEQ_WHY_PLACED] = "placed",
};

void seq_state_init(struct seq_state *s)
{
	memset(s, 0, sizeof(*s));
	s->budget_spent = -1;
	s->spent_s = NAN;
}

void seq_state_release(struct seq_state *s)
{
	for (size_t i = 0; i < s->nw; i++)
		free(s->w[i].name);
	for (size_t i = 0; i < s->nlooks; i++) {
		struct seq_look *l = &s->looks[i];

		for (size_t j = 0; j < l->nverdicts; j++) {
			free(l->verdicts[j].metric);
			free(l->verdicts[j].verdict);
		}
		free(l->verdicts);
		free(l->workload);
	}
	free(s->w);
	free(s->looks);
	seq_state_init(s);
}

struct seq_workload *seq_state_find(struct seq_state *s, const char *name)
{
	for (size_t i = 0; i < s->nw; i++)
		if (!strcmp(s->w[i].name, name))
			return &s->w[i];
	return NULL;
}

struct seq_workload *seq_state_workload(struct seq_state *s, const char *name)
{
	struct seq_workload *w = seq_state_find(s, name);

	if (w)
		return w;
	ALLOC_GROW(s->w, s->nw + 1, s->walloc);
	w = &s->w[s->nw++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup(name);
	w->look_block = w->runs_per_kernel = -1;
	return w;
}

struct seq_look *seq_state_add_look(struct seq_state *s, const char *workload)
{
	struct seq_look *l;

	ALLOC_GROW(s->looks, s->nlooks + 1, s->lalloc);
	l = &s->looks[s->nlooks++];
	memset(l, 0, sizeof(*l));
	l->workload = xstrdup(workload);
	return l;
}

void seq_look_verdict(struct seq_look *l, const char *metric, const char *verdict)
{
	struct seq_verdict *v;

	for (size_t i = 0; i < l->nverdicts; i++)
		if (!strcmp(l->verdicts[i].metric, metric)) {
			free(l->verdicts[i].verdict);
			l->verdicts[i].verdict = xstrdup(verdict);
			return;
		}
	ALLOC_GROW(l->verdicts, l->nverdicts + 1, l->alloc);
	v = &l->verdicts[l->nverdicts++];
	v->metric = xstrdup(metric);
	v->verdict = xstrdup(verdict);
}

static void set_new(json_t *obj, const char *key, json_t *v)
{
	if (!v || json_object_set_new(obj, key, v))
		die("out of memory");
}

/* In the order the session has always written them. */
static json_t *workload_encode(const struct seq_workload *w)
{
	json_t *o = xjson_pack("{s:b, s:s?, s:I}", "stopped", w->stopped,
			       "why", w->why ? why_names[w->why] : NULL,
			       "look", (json_int_t)w->look);

	if (w->look_block >= 0)
		set_new(o, "look_block", json_integer(w->look_block));
	if (w->runs_per_kernel >= 0)
		set_new(o, "runs_per_kernel", json_integer(w->runs_per_kernel));
	return o;
}

static json_t *look_encode(const struct seq_look *l)
{
	json_t *verdicts = json_object();

	if (!verdicts)
		die("out of memory");
	for (size_t i = 0; i < l->nverdicts; i++)
		set_new(verdicts, l->verdicts[i].metric, json_string(l->verdicts[i].verdict));
	return xjson_pack("{s:s, s:I, s:I, s:f, s:o}", "workload", l->workload,
			  "look", (json_int_t)l->look, "runs_per_kernel",
			  (json_int_t)l->runs_per_kernel, "alpha", l->alpha, "verdicts", verdicts);
}

json_t *seq_state_encode(const struct seq_state *s)
{
	json_t *o = xjson_pack("{s:{}, s:[]}", "workloads", "looks");
	json_t *all = json_object_get(o, "workloads"), *looks = json_object_get(o, "looks");

	for (size_t i = 0; i < s->nw; i++)
		set_new(all, s->w[i].name, workload_encode(&s->w[i]));
	for (size_t i = 0; i < s->nlooks; i++)
		if (json_array_append_new(looks, look_encode(&s->looks[i])))
			die("out of memory");
	if (s->budget_spent >= 0)
		set_new(o, "budget_spent", json_boolean(s->budget_spent));
	if (!isnan(s->spent_s))
		set_new(o, "spent_s", json_real(s->spent_s));
	return o;
}

/* An integer member from @min; @absent when it is not there and @optional. */
static long sd_int(struct xjson_err *d, const json_t *obj, const char *where, const char *key,
		   long min, int optional)
{
	const json_t *v = json_object_get(obj, key);

	if (!v && optional)
		return -1;
	if (json_is_integer(v) && json_integer_value(v) >= min &&
	    json_integer_value(v) <= 1000000000)
		return (long)json_integer_value(v);
	xjson_fail(d, min ? "an integer from 1" : "an integer from 0", v, "%s.%s", where, key);
	return -1;
}

static enum seq_why why_decode(struct xjson_err *d, const json_t *v, const char *where)
{
	for (size_t i = 1; json_is_string(v) && i < ARRAY_SIZE(why_names); i++)
		if (!strcmp(json_string_value(v), why_names[i]))
			return (enum seq_why)i;
	if (v && !json_is_null(v))
		xjson_fail(d, "null, \"decided\", \"max-runs\", \"budget\", \"below-first-look\" "
			"or \"placed\"",
			v, "%s.why", where);
	return SEQ_WHY_NONE;
}

static void workload_decode(struct xjson_err *d, const char *name, const json_t *j,
			    struct seq_state *s)
{
	char *where = xasprintf("workloads.%s", name);
	struct seq_workload *w;

	if (!json_is_object(j)) {
		xjson_fail(d, "an object", j, "%s", where);
		free(where);
		return;
	}
	w = seq_state_workload(s, name);
	if (!json_is_boolean(json_object_get(j, "stopped")))
		xjson_fail(d, "a boolean", json_object_get(j, "stopped"), "%s.stopped", where);
	w->stopped = json_is_true(json_object_get(j, "stopped"));
	w->why = why_decode(d, json_object_get(j, "why"), where);
	w->look = sd_int(d, j, where, "look", 0, 0);
	w->look_block = sd_int(d, j, where, "look_block", 0, 1);
	w->runs_per_kernel = sd_int(d, j, where, "runs_per_kernel", 0, 1);
	free(where);
}

static void verdicts_decode(struct xjson_err *d, const json_t *j, const char *where,
			    struct seq_look *l)
{
	const char *metric;
	json_t *v;

	if (!json_is_object(j)) {
		xjson_fail(d, "an object", j, "%s.verdicts", where);
		return;
	}
	json_object_foreach((json_t *)j, metric, v) {
		if (!json_is_string(v)) {
			xjson_fail(d, "a verdict id", v, "%s.verdicts.%s", where, metric);
			return;
		}
		seq_look_verdict(l, metric, json_string_value(v));
	}
}

static void look_decode(struct xjson_err *d, size_t i, const json_t *j, struct seq_state *s)
{
	char *where = xasprintf("looks[%zu]", i);
	const json_t *wl = json_object_get(j, "workload"), *alpha = json_object_get(j, "alpha");
	struct seq_look *l;

	if (!json_is_object(j) || !json_is_string(wl)) {
		xjson_fail(d, json_is_object(j) ? "a string" : "an object",
			json_is_object(j) ? wl : j, json_is_object(j) ? "%s.workload" : "%s",
			where);
		free(where);
		return;
	}
	l = seq_state_add_look(s, json_string_value(wl));
	l->look = sd_int(d, j, where, "look", 1, 0);
	l->runs_per_kernel = sd_int(d, j, where, "runs_per_kernel", 0, 0);
	l->alpha = json_number_value(alpha);
	if (!json_is_number(alpha) || !(l->alpha >= 0 && l->alpha <= 1))
		xjson_fail(d, "a level from 0 to 1", alpha, "%s.alpha", where);
	verdicts_decode(d, json_object_get(j, "verdicts"), where, l);
	free(where);
}

static void top_decode(struct xjson_err *d, const json_t *j, struct seq_state *s)
{
	const json_t *b = json_object_get(j, "budget_spent"), *sp = json_object_get(j, "spent_s");
	const json_t *looks = json_object_get(j, "looks"), *v;
	const char *name;
	size_t i;

	json_object_foreach((json_t *)json_object_get(j, "workloads"), name, v)
		workload_decode(d, name, v, s);
	if (looks && !json_is_array(looks))
		xjson_fail(d, "an array", looks, "looks");
	json_array_foreach(looks, i, v)
		look_decode(d, i, v, s);
	if (b && !json_is_boolean(b))
		xjson_fail(d, "a boolean", b, "budget_spent");
	else if (b)
		s->budget_spent = json_is_true(b);
	if (sp && (!json_is_number(sp) || !(json_number_value(sp) >= 0)))
		xjson_fail(d, "seconds from 0", sp, "spent_s");
	else if (sp)
		s->spent_s = json_number_value(sp);
}

int seq_state_decode(const json_t *j, struct seq_state *s, struct strbuf *err)
{
	struct xjson_err d = { .err = err };

	seq_state_init(s);
	if (!json_is_object(j))
		xjson_fail(&d, "an object", j, "the state");
	else if (!json_is_object(json_object_get(j, "workloads")))
		xjson_fail(&d, "an object", json_object_get(j, "workloads"), "workloads");
	else
		top_decode(&d, j, s);
	if (d.failed) {
		seq_state_release(s);
		return -1;
	}
	return 0;
}

int seq_placements_decode(const json_t *arr, struct seq_placements *out, struct strbuf *err)
{
	const json_t *e;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!arr)
		return 0;
	if (!json_is_array(arr)) {
		sb_addf(err, "design.sequential.placement: expected an array, got %s",
			xjson_type_name(arr));
		return -1;
	}
	out->v = xcalloc(json_array_size(arr) + 1, sizeof(*out->v));
	json_array_foreach(arr, i, e) {
		const json_t *wl = json_object_get(e, "workload");
		const json_t *m = json_object_get(e, "metric");
		const json_t *mid = json_object_get(e, "midpoint");
		double v = json_is_number(mid) ? json_number_value(mid) : NAN;
		const char *bad = !json_is_object(e) ? "" : !json_is_string(wl) ? ".workload" :
				  !json_is_string(m) ? ".metric" :
				  !(v > 0) || !isfinite(v) || v == 1 ? ".midpoint" : NULL;

		if (bad) {
			sb_addf(err, "design.sequential.placement[%zu]%s: expected %s", i, bad,
				!*bad ? "an object" : strcmp(bad, ".midpoint") ? "a string" :
				"a positive ratio other than 1");
			return -1;
		}
		out->v[out->n].workload = xstrdup(json_string_value(wl));
		out->v[out->n].metric = xstrdup(json_string_value(m));
		out->v[out->n++].midpoint = v;
	}
	return 0;
}

json_t *seq_placements_encode(const struct seq_placements *p)
{
	json_t *arr = json_array();

	for (size_t i = 0; i < p->n; i++)
		json_array_append_new(arr, xjson_pack("{s:s, s:s, s:f}",
						     "workload", p->v[i].workload,
						     "metric", p->v[i].metric,
						     "midpoint", p->v[i].midpoint));
	return arr;
}

void seq_placements_release(struct seq_placements *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].workload);
		free(p->v[i].metric);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}
