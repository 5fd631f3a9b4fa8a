// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.json's one definition (bisect_doc.h): the tables below drive its
 * encoder and decoder through sdoc_fields_*() (session_doc.h). A row's
 * place is its member's place in the file: start() writes schema to
 * probes and complete, load_patches() patches, confirm() tracked,
 * bisect_finish() result; a step's members are bisect_add_step()'s, then
 * session and results; result's are search()'s, culprit_effects()'s and
 * per_patch()'s, in that order.
 */
#include "bisect_doc.h"
#include "escape.h"
#include "xjson.h"

#include <stddef.h>
#include <stdio.h>

#define DOC(f) .offset = offsetof(struct bisect_doc, f)
#define SET(f) .offset = offsetof(struct bisect_doc_settings, f)
#define RES(f) .offset = offsetof(struct bisect_doc_result, f)
#define STP(f) .offset = offsetof(struct bisect_doc_step, f)
#define PAT(f) .offset = offsetof(struct bisect_doc_patch, f)
#define PRE(f) .offset = offsetof(struct bisect_doc_prefix, f)
#define PRB(f) .offset = offsetof(struct bisect_doc_probe, f)
#define WFS(f) .offset = offsetof(struct bisect_doc_wf_step, f)
#define END(f) .offset = offsetof(struct bisect_doc_end, f)

/* A step's results (bisect_step_results()): b against a, in percent. */
static const struct sdoc_field result_fields[] = {
	{ "workload", SK_STRING, RES(workload), SN_REQUIRED },
	{ "metric", SK_STRING, RES(metric), SN_REQUIRED },
	{ "primary", SK_BOOL, RES(primary) },
	{ "verdict", SK_STRING, RES(verdict), SN_REQUIRED },
	{ "delta_pct", SK_NUMBER_OR_NULL, RES(delta_pct) },
	{ "ci_lo_pct", SK_NUMBER_OR_NULL, RES(ci_lo_pct) },
	{ "ci_hi_pct", SK_NUMBER_OR_NULL, RES(ci_hi_pct) },
	{ NULL },
};

#define RESULTS(key, off, ...) \
	{ key, SK_ARRAY, off, .sub = result_fields, \
	  .elem_size = sizeof(struct bisect_doc_result), __VA_ARGS__ }

const struct sdoc_field bisect_doc_step_fields[] = {
	{ "step", SK_INT, STP(step), SN_REQUIRED },
	{ "purpose", SK_STRING, STP(purpose), SN_REQUIRED },
	{ "a", SK_STRING, STP(a), SN_REQUIRED },
	{ "b", SK_STRING, STP(b), SN_REQUIRED },
	{ "dir", SK_STRING, STP(dir), SN_REQUIRED },
	{ "state", SK_STRING, STP(state), SN_REQUIRED },
	{ "session", SK_STRING, STP(session) },
	RESULTS("results", STP(results)),
	{ NULL },
};

static const struct sdoc_field patch_fields[] = {
	{ "position", SK_INT, PAT(position) },
	{ "subject", SK_STRING_OR_NULL, PAT(subject) },
	{ "message_id", SK_STRING_OR_NULL, PAT(message_id) },
	{ "file", SK_STRING, PAT(file) },
	{ NULL },
};

const struct sdoc_field bisect_prefix_fields[] = {
	{ "kernel", SK_STRING, PRE(kernel) },
	{ "builds", SK_BOOL, PRE(builds) },
	{ "key", SK_STRING, PRE(key) },
	{ "cache_hit", SK_BOOL, PRE(cache_hit) },
	{ "seconds", SK_NUMBER, PRE(seconds) },
	{ NULL },
};

static const struct sdoc_field probe_fields[] = {
	{ "prefix", SK_INT, PRB(prefix), SN_REQUIRED },
	{ "class", SK_STRING, PRB(cls), SN_REQUIRED },
	{ NULL },
};

static const struct sdoc_field wf_step_fields[] = {
	{ "from", SK_INT, WFS(from) },
	{ "to", SK_INT, WFS(to) },
	{ "a", SK_STRING, WFS(a) },
	{ "b", SK_STRING, WFS(b) },
	RESULTS("results", WFS(results)),
	{ NULL },
};

static const struct sdoc_field settings_fields[] = {
	{ "max_runs", SK_INT, SET(max_runs), SN_REQUIRED },
	{ "budget_s", SK_NUMBER, SET(budget_s), SN_REQUIRED },
	{ "per_patch", SK_BOOL, SET(per_patch), SN_REQUIRED },
	{ "workloads", SK_JSON, SET(workloads), SN_REQUIRED, .json_type = "array" },
	/* absent in a bisection begun before --attribute: off */
	{ "attribute", SK_STRING, SET(attribute) },
	{ NULL },
};

static const struct sdoc_field end_fields[] = {
	{ "outcome", SK_STRING, END(outcome) },
	{ "first", SK_INT, END(first) },
	{ "last", SK_INT, END(last) },
	{ "probes", SK_INT, END(probes) },
	{ "culprit", SK_INT, END(culprit) },
	{ "patch", SK_OBJECT, END(patch), .sub = patch_fields, .has_present = 1 },
	{ "split", SK_INT, END(split) },
	RESULTS("own_effect", END(own_effect)),
	{ "attribution", SK_JSON, END(attribution), .json_type = "object" },
	/* null: the probe placed the culprit alone, nothing measured after it */
	RESULTS("remaining", END(remaining), .nullable = 1),
	{ "waterfall", SK_ARRAY, END(waterfall), .sub = wf_step_fields,
	  .elem_size = sizeof(struct bisect_doc_wf_step) },
	{ NULL },
};

const struct sdoc_field bisect_doc_fields[] = {
	{ "schema", SK_STRING, DOC(schema), SN_REQUIRED },
	{ "config", SK_STRING, DOC(config) },
	{ "baseline", SK_STRING, DOC(baseline), SN_REQUIRED },
	{ "series_kernel", SK_STRING, DOC(series_kernel), SN_REQUIRED },
	{ "n", SK_INT, DOC(n), SN_REQUIRED },
	{ "settings", SK_OBJECT, DOC(settings), SN_REQUIRED, .sub = settings_fields },
	{ "steps", SK_ARRAY, DOC(steps), SN_REQUIRED, .sub = bisect_doc_step_fields,
	  .elem_size = sizeof(struct bisect_doc_step) },
	{ "prefixes", SK_JSON, DOC(prefixes), SN_REQUIRED, .json_type = "object" },
	{ "probes", SK_ARRAY, DOC(probes), SN_REQUIRED, .sub = probe_fields,
	  .elem_size = sizeof(struct bisect_doc_probe) },
	{ "complete", SK_BOOL, DOC(complete) },
	{ "patches", SK_ARRAY, DOC(patches), SN_REQUIRED, .sub = patch_fields,
	  .elem_size = sizeof(struct bisect_doc_patch) },
	RESULTS("tracked", DOC(tracked)),
	{ "result", SK_OBJECT, DOC(result), .sub = end_fields, .has_present = 1 },
	{ NULL },
};

void bisect_doc_init(struct bisect_doc *d)
{
	sdoc_fields_init(bisect_doc_fields, d);
	d->owned = NULL;
}

json_t *bisect_doc_encode(const struct bisect_doc *d)
{
	return sdoc_fields_encode(bisect_doc_fields, d);
}

/* Each entry of prefixes against bisect_prefix_fields[], named "prefixes.K.MEMBER". */
static int decode_prefixes(const json_t *pre, struct strbuf *err)
{
	const char *key;
	const json_t *p;

	json_object_foreach((json_t *)pre, key, p) {
		struct bisect_doc_prefix one;
		struct strbuf e = STRBUF_INIT;
		struct strbuf path = STRBUF_INIT;
		size_t old = xjson_path_key(&path, "prefixes");
		int r;

		xjson_path_key(&path, key);
		r = sdoc_fields_decode(bisect_prefix_fields, p, &one, &e);
		/* its messages name the entry's members from the entry: "builds: ..." */
		if (r && json_is_object(p))
			sb_addf(err, "%s.%s", sb_str(&path), sb_str(&e));
		else if (r)
			sb_addf(err, "%s: expected an object, got %s", sb_str(&path),
				xjson_type_name(p));
		xjson_path_pop(&path, old);
		sb_release(&path);
		sb_release(&e);
		if (r)
			return -1;
	}
	return 0;
}

int bisect_doc_decode(const json_t *j, struct bisect_doc *d, struct strbuf *err)
{
	d->owned = NULL;
	if (sdoc_fields_decode(bisect_doc_fields, j, d, err))
		return -1;
	if (decode_prefixes(d->prefixes, err)) {
		bisect_doc_release(d);
		bisect_doc_init(d);
		return -1;
	}
	return 0;
}

void bisect_doc_release(struct bisect_doc *d)
{
	sdoc_fields_release(bisect_doc_fields, d);
	json_decref(d->owned);
	d->owned = NULL;
}

int bisect_doc_prefix_at(const struct bisect_doc *d, long k, struct bisect_doc_prefix *out)
{
	struct strbuf err = STRBUF_INIT;
	const json_t *p;
	char key[24];
	int r;

	snprintf(key, sizeof(key), "%ld", k);
	p = json_object_get(d->prefixes, key);
	/* bisect_doc_decode() checked every entry: a failure here is "none" */
	r = p ? sdoc_fields_decode(bisect_prefix_fields, p, out, &err) : -1;
	if (r)
		sdoc_fields_init(bisect_prefix_fields, out);
	sb_release(&err);
	return r;
}

const struct bisect_doc_patch *bisect_doc_patch_at(const struct bisect_doc *d, long k)
{
	const struct bisect_doc_patch *v = d->patches.v;

	return k >= 1 && (size_t)k <= d->patches.n ? &v[k - 1] : NULL;
}

/*
 * --- the state's writers ---
 *
 * The bisection adds to bisect.json as it goes; each piece is encoded
 * here by its table's rows, and put where the table's order puts it.
 */

/* @state's member @key, the container the bisection appends to (bisect_doc_encode() made it). */
static json_t *member(json_t *state, const char *key)
{
	return json_object_get(state, key);
}

json_t *bisect_doc_add_step(json_t *state, const struct bisect_doc_step *st)
{
	json_t *step = sdoc_fields_encode(bisect_doc_step_fields, st);

	json_array_append_new(member(state, "steps"), step);
	return step;
}

void bisect_doc_step_measured(json_t *step, const char *session, json_t *results)
{
	/* session and results after state, where the table has them */
	json_object_set_new(step, "session", json_string_lossy(session));
	if (results)
		json_object_set_new(step, "results", results);
	json_object_set_new(step, "state", json_string(results ? "done" : "failed"));
}

void bisect_doc_set_prefix(json_t *state, long k, const struct bisect_doc_prefix *p)
{
	char key[24];

	snprintf(key, sizeof(key), "%ld", k);
	json_object_set_new(member(state, "prefixes"), key,
			    sdoc_fields_encode(bisect_prefix_fields, p));
}

void bisect_doc_add_probe(json_t *state, const struct bisect_doc_probe *p)
{
	json_array_append_new(member(state, "probes"), sdoc_fields_encode(probe_fields, p));
}

void bisect_doc_set_tracked(json_t *state, json_t *tracked)
{
	json_object_set_new(state, "tracked", tracked);
}

void bisect_doc_set_result(json_t *state, const struct bisect_doc_end *end)
{
	json_object_set_new(state, "result", sdoc_fields_encode(end_fields, end));
	json_object_set_new(state, "complete", json_true());
}

void bisect_doc_end_init(struct bisect_doc_end *end)
{
	sdoc_fields_init(end_fields, end);
	end->present = 1;
}

void bisect_doc_end_release(struct bisect_doc_end *end)
{
	sdoc_fields_release(end_fields, end);
}

/* A results array alone, to decode through result_fields. */
struct results_box {
	struct sdoc_array a;
};

static const struct sdoc_field results_box_fields[] = {
	RESULTS("results", .offset = offsetof(struct results_box, a)),
	{ NULL },
};

int bisect_doc_results(const json_t *arr, struct sdoc_array *out)
{
	struct strbuf err = STRBUF_INIT;
	struct results_box box;
	json_t *wrap = json_object();
	int r;

	*out = (struct sdoc_array){ 0 };
	if (!arr)
		return 0;
	/* the wrapper holds @arr, which holds what the results' strings point into */
	json_object_set(wrap, "results", (json_t *)arr);
	r = sdoc_fields_decode(results_box_fields, wrap, &box, &err);
	json_decref(wrap);
	sb_release(&err);
	if (!r)
		*out = box.a;
	return r;
}

int bisect_doc_patch_decode(const json_t *p, struct bisect_doc_patch *out)
{
	struct strbuf err = STRBUF_INIT;
	int r = sdoc_fields_decode(patch_fields, p, out, &err);

	out->present = !r;
	sb_release(&err);
	return r;
}
