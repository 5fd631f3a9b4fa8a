// SPDX-License-Identifier: GPL-2.0
/*
 * The report's encoder: a record as the JSON element of "results" or
 * "counter_results" through its table (result_record_fields[],
 * report_result.c, which result_record_decode() reads by too), member
 * for member as the analysis wrote it when it built the element itself:
 * the order of the keys, null against absent, and integer against real
 * are the report's bytes (reports/SCHEMA.md). report_analyze() and
 * report_view_dump() both write through here.
 */
#include "report_result.h"
#include "report_view.h"
#include "escape.h"
#include "util.h"
#include "xjson.h"

#include <string.h>

/* The record's table (report_result.c) writes it, member for member. */
json_t *result_record_encode(const struct result_record *rec)
{
	return sdoc_fields_encode(result_record_fields, rec);
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
