// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's encoder, the mirror of result_record_decode()
 * (report_result.c): a record as the JSON element of "results" or
 * "counter_results", member for member as the analysis wrote it when it
 * built the element itself. The order of the keys, null against absent,
 * and integer against real are the report's bytes (reports/SCHEMA.md):
 * report_analyze() and report_view_dump() both write through here.
 */
#include "report_result.h"
#include "report_view.h"
#include "escape.h"
#include "util.h"
#include "xjson.h"

#include <string.h>

static json_t *median_ci_json(const struct result_side *s)
{
	json_t *j = xjson_pack("{s:o, s:o, s:I, s:I, s:o, s:b}",
		"lo", jnum(s->median_ci.lo), "hi", jnum(s->median_ci.hi),
		"lo_order", (json_int_t)s->median_ci.lo_order,
		"hi_order", (json_int_t)s->median_ci.hi_order,
		"achieved", jnum(s->median_ci.achieved), "ok", s->median_ci.ok);

	json_object_set_new(j, "reason", s->median_ci.reason ? json_string(s->median_ci.reason) :
				       json_null());
	return j;
}

/* The statistics of a kernel that has values (summarized). */
static void side_stats_json(json_t *j, const struct result_side *s)
{
	json_object_set_new(j, "median", jnum(s->median));
	json_object_set_new(j, "median_ci", median_ci_json(s));
	json_object_set_new(j, "min", jnum(s->min));
	json_object_set_new(j, "q1", jnum(s->q1));
	json_object_set_new(j, "q3", jnum(s->q3));
	json_object_set_new(j, "max", jnum(s->max));
	json_object_set_new(j, "mean", jnum(s->mean));
	json_object_set_new(j, "stddev", jnum(s->stddev));
	json_object_set_new(j, "cv", jnum(s->cv));
	json_object_set_new(j, "mad", jnum(s->mad));
	json_object_set_new(j, "outliers", json_integer((json_int_t)s->outliers));
	json_object_set_new(j, "drift", xjson_pack("{s:b, s:o, s:o}", "valid", s->drift.valid,
						   "rho", jnum(s->drift.rho), "p", jnum(s->drift.p)));
}

static json_t *side_json(const struct result_side *s, int summarized)
{
	json_t *runs = json_array(), *values = json_array(), *outl = json_array(), *j;

	for (size_t i = 0; i < s->nvalues; i++) {
		json_array_append_new(runs, json_integer((json_int_t)s->runs[i]));
		json_array_append_new(values, jnum(s->values[i]));
	}
	for (size_t i = 0; i < s->noutlier_runs; i++)
		json_array_append_new(outl, json_integer((json_int_t)s->outlier_runs[i]));
	j = xjson_pack("{s:I, s:I, s:I}", "n", (json_int_t)s->n, "failed", (json_int_t)s->failed,
		       "missing", (json_int_t)s->missing);
	if (summarized)
		side_stats_json(j, s);
	json_object_set_new(j, "runs", runs);
	json_object_set_new(j, "values", values);
	json_object_set_new(j, "outlier_runs", outl);
	return j;
}

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

static json_t *comparison_json(const struct result_comparison *c)
{
	json_t *j;

	if (!c->present)
		return json_null();
	j = xjson_pack("{s:o, s:o, s:b, s:{s:o, s:o, s:o, s:s, s:I}, "
		       "s:{s:o, s:o, s:s}, s:{s:o, s:o, s:o, s:o, s:o, s:o, s:o}, s:o}",
		"ratio", jnum(c->ratio), "delta_pct", jnum(c->delta_pct), "all_equal", c->all_equal,
		"ci", "lo", jnum(c->ci.lo), "hi", jnum(c->ci.hi), "level", jnum(c->ci.level),
		"method", or_none(c->ci.method), "resamples", (json_int_t)c->ci.resamples,
		"mann_whitney", "u", jnum(c->mann_whitney.u), "p", jnum(c->mann_whitney.p),
		"method", or_none(c->mann_whitney.method),
		"hodges_lehmann", "shift", jnum(c->hodges_lehmann.shift),
		"lo", jnum(c->hodges_lehmann.lo), "hi", jnum(c->hodges_lehmann.hi),
		"ratio", jnum(c->hodges_lehmann.ratio), "ratio_lo", jnum(c->hodges_lehmann.ratio_lo),
		"ratio_hi", jnum(c->hodges_lehmann.ratio_hi), "level", jnum(c->hodges_lehmann.level),
		"mde_pct", jnum(c->mde_pct));
	if (c->paired.present)
		json_object_set_new(j, "paired", xjson_pack("{s:I, s:I, s:b, s:o, s:o, s:o, s:o, s:s}",
			"pairs", (json_int_t)c->paired.pairs, "used", (json_int_t)c->paired.used,
			"valid", c->paired.valid, "median_ratio", jnum(c->paired.median_ratio),
			"hl_ratio", jnum(c->paired.hl_ratio), "w_plus", jnum(c->paired.w_plus),
			"p", jnum(c->paired.p), "method", or_none(c->paired.method)));
	else
		json_object_set_new(j, "paired", json_null());
	json_object_set_new(j, "q", jnum(c->q));
	return j;
}

static json_t *pair_json(double a, double b)
{
	return xjson_pack("[o, o]", jnum(a), jnum(b));
}

static json_t *hosts_json(const struct result_record *rec)
{
	json_t *hosts = json_array();

	for (size_t h = 0; h < rec->nhosts; h++) {
		const struct result_host *x = &rec->hosts[h];

		json_array_append_new(hosts, xjson_pack("{s:o, s:[I, I], s:o, s:o, s:o, s:o, s:b}",
			"host", json_string_lossy(x->host),
			"n", (json_int_t)x->n[0], (json_int_t)x->n[1],
			"median", pair_json(x->median[0], x->median[1]),
			"ratio", jnum(x->ratio), "delta_pct", jnum(x->delta_pct),
			"ci", pair_json(x->lo, x->hi), "pooled", x->pooled));
	}
	return hosts;
}

/* "hosts", "pooled" and "heterogeneity": a metric analysed host by host. */
static void set_hosts(json_t *r, const struct result_record *rec)
{
	const struct result_pooled *p = &rec->pool;

	json_object_set_new(r, "hosts", hosts_json(rec));
	json_object_set_new(r, "pooled", xjson_pack(
		"{s:s, s:I, s:o, s:o, s:{s:o, s:o, s:o}, s:o, s:o, s:s, s:s}",
		"method", or_none(p->method), "hosts", (json_int_t)p->hosts, "ratio", jnum(p->ratio),
		"delta_pct", jnum(p->delta_pct),
		"ci", "lo", jnum(p->lo), "hi", jnum(p->hi), "level", jnum(p->level),
		"z", jnum(p->z), "p", jnum(p->p), "p_method", or_none(p->p_method),
		"basis", or_none(p->basis)));
	json_object_set_new(r, "heterogeneity", xjson_pack("{s:o, s:I, s:o, s:o, s:b, s:o, s:b}",
		"q", jnum(p->heterogeneity.q), "df", (json_int_t)p->heterogeneity.df,
		"p", jnum(p->heterogeneity.p), "i2", jnum(p->heterogeneity.i2),
		"overlap", p->heterogeneity.overlap, "alpha", jnum(p->heterogeneity.alpha),
		"heterogeneous", p->heterogeneity.heterogeneous));
}

static json_t *sequential_json(const struct result_sequential *s)
{
	return xjson_pack("{s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}",
		"look", (json_int_t)s->look, "looks", (json_int_t)s->looks,
		"runs_at_look", (json_int_t)s->runs_at_look, "alpha_look", jnum(s->alpha_look),
		"p", jnum(s->p), "p_adjusted", jnum(s->p_adjusted),
		"lo", jnum(s->lo), "hi", jnum(s->hi));
}

static json_t *warnings_json(const struct result_record *rec)
{
	json_t *w = json_array();

	for (size_t i = 0; i < rec->nwarnings; i++)
		json_array_append_new(w, xjson_pack("{s:s, s:o}", "kind", rec->warnings[i].kind,
			"message", json_string_lossy(rec->warnings[i].message)));
	return w;
}

/* What names the series and says what it is, up to the kernels' values. */
static json_t *identity_json(const struct result_record *rec)
{
	json_t *r = xjson_pack("{s:o, s:o}", "workload", json_string_lossy(rec->workload),
			       rec->is_counter ? "counter" : "metric",
			       json_string_lossy(rec->metric));

	if (rec->is_counter) {
		json_object_set_new(r, "group", json_string_lossy(rec->group));
		json_object_set_new(r, "name", json_string_lossy(rec->name));
	} else {
		json_object_set_new(r, "unit", json_string_lossy(rec->unit));
		json_object_set_new(r, "better", json_string_lossy(rec->better));
		json_object_set_new(r, "primary", json_boolean(rec->primary));
	}
	json_object_set_new(r, "threshold", jnum(rec->threshold));
	json_object_set_new(r, "band_source", json_string_lossy(rec->band_source));
	return r;
}

/* The verdict (a counter's change) and what it rests on; one kernel: the reason only. */
static void set_verdict(json_t *r, const struct result_record *rec)
{
	const char *id = rec->is_counter ? rec->change_id : rec->verdict_id;

	if (id) {
		json_object_set_new(r, rec->is_counter ? "change" : "verdict", json_string(id));
		if (!rec->is_counter)
			json_object_set_new(r, "marker", json_string_lossy(rec->marker));
	}
	json_object_set_new(r, "reason", json_string_lossy(rec->reason));
	if (!id)
		return;
	json_object_set_new(r, "p_used", jnum(rec->p_used));
	json_object_set_new(r, "used_q", json_boolean(rec->used_q));
	json_object_set_new(r, "runs_needed", json_integer((json_int_t)rec->runs_needed));
	json_object_set_new(r, "final", json_boolean(rec->final));
}

json_t *result_record_encode(const struct result_record *rec)
{
	json_t *r = identity_json(rec);

	json_object_set_new(r, "baseline", side_json(&rec->side[0], rec->summarized[0]));
	json_object_set_new(r, "patched", side_json(&rec->side[1], rec->summarized[1]));
	if (rec->pool.present)
		set_hosts(r, rec);
	if (rec->sequential.present)
		json_object_set_new(r, "sequential", sequential_json(&rec->sequential));
	json_object_set_new(r, "comparison", comparison_json(&rec->comparison));
	json_object_set_new(r, "warnings", warnings_json(rec));
	json_object_set_new(r, "family", json_string_lossy(rec->family));
	json_object_set_new(r, "family_size", json_integer((json_int_t)rec->family_size));
	set_verdict(r, rec);
	return r;
}

static json_t *records_json(const struct result_record *recs, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, result_record_encode(&recs[i]));
	return a;
}

/* An element of "geomean", as the analysis always wrote it. */
static json_t *geomean_json(const struct view_geomean *g)
{
	json_t *names = json_array(), *j;

	for (size_t i = 0; i < g->nof; i++)
		json_array_append_new(names, json_string_lossy(g->of_names[i]));
	j = xjson_pack("{s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:s, s:o}",
		"workload", json_string_lossy(g->workload), "metrics", (json_int_t)g->metrics,
		"skipped", (json_int_t)g->skipped, "ratio", jnum(g->ratio), "lo", jnum(g->lo),
		"hi", jnum(g->hi), "level", jnum(g->level), "method", g->method ? g->method : "none",
		"of", names);
	json_object_set_new(j, "orientation",
			    json_string("ratio > 1 means the patched kernel is better"));
	return j;
}

static json_t *geomeans_json(const struct report_view *v)
{
	json_t *a = json_array();

	for (size_t i = 0; i < v->ngeomean; i++)
		json_array_append_new(a, geomean_json(&v->geomean[i]));
	return a;
}

/*
 * Where the records go among the shell's members: before "host_states",
 * as the analysis always wrote them; at the end when there is none.
 */
static int records_here(const char *key)
{
	return key && !strcmp(key, "host_states");
}

static void set_records(json_t *report, const struct report_view *v)
{
	json_object_set_new(report, "results", records_json(v->results, v->nresults));
	json_object_set_new(report, "counter_results", records_json(v->counters, v->ncounters));
	json_object_set_new(report, "geomean", geomeans_json(v));
}

json_t *report_view_tree(const struct report_view *v)
{
	json_t *report = json_object(), *val;
	const char *key;
	int done = 0;

	json_object_foreach((json_t *)v->json, key, val) {
		if (!done && records_here(key)) {
			set_records(report, v);
			done = 1;
		}
		json_object_set(report, key, val);
	}
	if (!done)
		set_records(report, v);
	return report;
}

/* --- the streaming dump --- */

/* A dump into a strbuf, every line after the first indented by @indent spaces. */
struct indented {
	struct strbuf *out;
	size_t indent;
};

static int indented_write(const char *buf, size_t size, void *data)
{
	struct indented *d = data;
	const char *end = buf + size, *nl;

	/* JSON strings hold no raw newline: each one is the dump's own. */
	while ((nl = memchr(buf, '\n', (size_t)(end - buf)))) {
		sb_add(d->out, buf, (size_t)(nl + 1 - buf));
		for (size_t i = 0; i < d->indent; i++)
			sb_addc(d->out, ' ');
		buf = nl + 1;
	}
	sb_add(d->out, buf, (size_t)(end - buf));
	return 0;
}

/* @j as json_dumps() writes it at depth @depth of the report (2 spaces a level). */
static void dump_at(const json_t *j, size_t depth, struct strbuf *out)
{
	struct indented d = { out, 2 * depth };

	if (json_dump_callback(j, indented_write, &d,
			       JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY))
		die("out of memory dumping the report");
}

/* The line break and indent before a member or element at @depth. */
static void newline_at(size_t depth, struct strbuf *out)
{
	sb_addc(out, '\n');
	for (size_t i = 0; i < 2 * depth; i++)
		sb_addc(out, ' ');
}

/* "key": at depth 1, with a comma before it unless it is the first. */
static void member_key(const char *key, int *first, struct strbuf *out)
{
	json_t *k = json_string(key);

	if (!k)
		die("out of memory dumping the report");
	if (!*first)
		sb_addc(out, ',');
	*first = 0;
	newline_at(1, out);
	dump_at(k, 0, out);
	sb_adds(out, ": ");
	json_decref(k);
}

/*
 * An array at depth 1 of @n records @size bytes apart from @recs, each
 * encoded by @encode, dumped and freed in turn.
 */
static void dump_records(const void *recs, size_t size, size_t n,
			 json_t *(*encode)(const void *), struct strbuf *out)
{
	if (!n) {
		sb_adds(out, "[]");
		return;
	}
	sb_addc(out, '[');
	for (size_t i = 0; i < n; i++) {
		json_t *j = encode((const char *)recs + i * size);

		if (i)
			sb_addc(out, ',');
		newline_at(2, out);
		dump_at(j, 2, out);
		json_decref(j);
		LAB_IGNORE(sb_flush_point(out));
	}
	newline_at(1, out);
	sb_addc(out, ']');
}

/*
 * A member's value at depth 1: an array element by element, each followed
 * by a flush point, so that "runs" is never whole text.
 */
static void dump_member(const json_t *val, struct strbuf *out)
{
	const json_t *e;
	size_t i;

	if (!json_is_array(val) || !json_array_size(val)) {
		dump_at(val, 1, out);
		return;
	}
	sb_addc(out, '[');
	json_array_foreach(val, i, e) {
		if (i)
			sb_addc(out, ',');
		newline_at(2, out);
		dump_at(e, 2, out);
		LAB_IGNORE(sb_flush_point(out));
	}
	newline_at(1, out);
	sb_addc(out, ']');
}

static json_t *encode_result(const void *rec)
{
	return result_record_encode(rec);
}

static json_t *encode_geomean(const void *g)
{
	return geomean_json(g);
}

static void dump_results(const struct report_view *v, int *first, struct strbuf *out)
{
	member_key("results", first, out);
	dump_records(v->results, sizeof(*v->results), v->nresults, encode_result, out);
	member_key("counter_results", first, out);
	dump_records(v->counters, sizeof(*v->counters), v->ncounters, encode_result, out);
	member_key("geomean", first, out);
	dump_records(v->geomean, sizeof(*v->geomean), v->ngeomean, encode_geomean, out);
}

void report_view_dump(const struct report_view *v, struct strbuf *out)
{
	const char *key;
	json_t *val;
	int first = 1, done = 0;

	sb_addc(out, '{');
	json_object_foreach((json_t *)v->json, key, val) {
		if (!done && records_here(key)) {
			dump_results(v, &first, out);
			done = 1;
		}
		member_key(key, &first, out);
		dump_member(val, out);
		LAB_IGNORE(sb_flush_point(out));
	}
	if (!done)
		dump_results(v, &first, out);
	newline_at(0, out);
	sb_adds(out, "}\n");
}
