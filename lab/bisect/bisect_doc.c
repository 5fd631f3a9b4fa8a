// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.json's one definition (bisect_doc.h): the tables below drive its
 * encoder and decoder through sdoc_fields_*() (session_doc.h). A row's
 * place is its member's place in the file: start() writes schema to
 * probes and complete, load_patches() patches, confirm() tracked,
 * bisect_finish() result; a step's members are bisect_add_step()'s, then
 * session and results; result's are search()'s, culprit_effects()'s and
 * per_patch()'s, in that order. The bisection's state is the struct, and
 * the writers at the end of this file are how it changes.
 */
#include "bisect_doc.h"
#include "escape.h"
#include "xjson.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Nothing kept: what the table does not describe. */
static void init_kept(struct bisect_doc *d)
{
	d->owned = NULL;
	d->strings = (struct strvec)STRVEC_INIT;
	d->json = NULL;
}

void bisect_doc_init(struct bisect_doc *d)
{
	sdoc_fields_init(bisect_doc_fields, d);
	init_kept(d);
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
	init_kept(d);
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
	strvec_clear(&d->strings);
	json_decref(d->json);
	json_decref(d->owned);
	bisect_doc_init(d);
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
 * Each copies what it is given into @d (bisect_doc.h): strings into
 * d->strings, JSON into d->json, arrays into arrays of @d's own, which
 * sdoc_fields_release() frees as it frees the decoder's.
 */

const char *bisect_doc_keep(struct bisect_doc *d, const char *s)
{
	return sdoc_keep_string(&d->strings, s);
}

const json_t *bisect_doc_keep_json(struct bisect_doc *d, json_t *j)
{
	return sdoc_keep_json(&d->json, j);
}

/* A copy of the results @src, its strings kept by @d (present as @src: absent, null, an array). */
static struct sdoc_array keep_results(struct bisect_doc *d, const struct sdoc_array *src)
{
	struct sdoc_array out = bisect_doc_results_copy(src);
	struct bisect_doc_result *v = out.v;

	for (size_t i = 0; i < out.n; i++) {
		v[i].workload = bisect_doc_keep(d, v[i].workload);
		v[i].metric = bisect_doc_keep(d, v[i].metric);
		v[i].verdict = bisect_doc_keep(d, v[i].verdict);
	}
	return out;
}

/* A patch's strings kept by @d (its position and presence as they are). */
static void keep_patch(struct bisect_doc *d, struct bisect_doc_patch *p)
{
	p->subject = bisect_doc_keep(d, p->subject);
	p->message_id = bisect_doc_keep(d, p->message_id);
	p->file = bisect_doc_keep(d, p->file);
}

/* Room for one more element of @elem_size bytes at the end of @a; the element, zeroed. */
static void *grow(struct sdoc_array *a, size_t elem_size)
{
	char *v = xrealloc(a->v, (a->n + 1) * elem_size);

	a->v = v;
	a->present = 1;
	memset(v + a->n * elem_size, 0, elem_size);
	return v + a->n++ * elem_size;
}

void bisect_doc_begin(struct bisect_doc *d, const struct bisect_doc *first)
{
	const struct bisect_doc_patch *pv = first->patches.v;

	d->schema = bisect_doc_keep(d, first->schema);
	d->config = bisect_doc_keep(d, first->config);
	d->baseline = bisect_doc_keep(d, first->baseline);
	d->series_kernel = bisect_doc_keep(d, first->series_kernel);
	d->n = first->n;
	d->settings = first->settings;
	d->settings.workloads = bisect_doc_keep_json(d, json_deep_copy(first->settings.workloads));
	d->settings.attribute = bisect_doc_keep(d, first->settings.attribute);
	d->steps = (struct sdoc_array){ .present = 1 };
	d->prefixes = bisect_doc_keep_json(d, json_object());
	d->probes = (struct sdoc_array){ .present = 1 };
	d->complete = first->complete;
	d->patches = (struct sdoc_array){ .present = first->patches.present };
	for (size_t i = 0; i < first->patches.n; i++) {
		struct bisect_doc_patch *p = grow(&d->patches, sizeof(*p));

		*p = pv[i];
		keep_patch(d, p);
	}
	d->patches.present = first->patches.present;
}

size_t bisect_doc_add_step(struct bisect_doc *d, const struct bisect_doc_step *st)
{
	struct bisect_doc_step *s = grow(&d->steps, sizeof(*s));

	s->step = st->step;
	s->purpose = bisect_doc_keep(d, st->purpose);
	s->a = bisect_doc_keep(d, st->a);
	s->b = bisect_doc_keep(d, st->b);
	s->dir = bisect_doc_keep(d, st->dir);
	s->state = bisect_doc_keep(d, st->state);
	s->session = bisect_doc_keep(d, st->session);
	s->results = keep_results(d, &st->results);
	return d->steps.n - 1;
}

void bisect_doc_step_measured(struct bisect_doc *d, size_t i, const char *session,
			      const struct sdoc_array *results)
{
	struct bisect_doc_step *s = (struct bisect_doc_step *)d->steps.v + i;

	s->session = bisect_doc_keep(d, session);
	if (results) {
		/* a step measured again (for its attribution runs) has new results */
		struct sdoc_array old = s->results;

		s->results = keep_results(d, results);
		bisect_doc_results_release(&old);
	}
	s->state = results ? "done" : "failed";
}

void bisect_doc_set_prefix(struct bisect_doc *d, long k, const struct bisect_doc_prefix *p)
{
	/* a new object: whoever holds the old one (bisect_doc_prefix_at()'s strings) keeps it */
	json_t *pre = d->prefixes ? json_copy((json_t *)d->prefixes) : json_object();
	char key[24];

	snprintf(key, sizeof(key), "%ld", k);
	json_object_set_new(pre, key, sdoc_fields_encode(bisect_prefix_fields, p));
	d->prefixes = bisect_doc_keep_json(d, pre);
}

void bisect_doc_add_probe(struct bisect_doc *d, const struct bisect_doc_probe *p)
{
	struct bisect_doc_probe *v = grow(&d->probes, sizeof(*v));

	v->prefix = p->prefix;
	v->cls = bisect_doc_keep(d, p->cls);
}

void bisect_doc_set_tracked(struct bisect_doc *d, const struct sdoc_array *tracked)
{
	struct sdoc_array old = d->tracked;

	d->tracked = keep_results(d, tracked);
	bisect_doc_results_release(&old);
}

/* @end's waterfall, copied into @d's result (its arrays and strings kept). */
static void keep_waterfall(struct bisect_doc *d, const struct sdoc_array *wf)
{
	const struct bisect_doc_wf_step *src = wf->v;

	d->result.waterfall = (struct sdoc_array){ .present = wf->present };
	for (size_t i = 0; i < wf->n; i++) {
		struct bisect_doc_wf_step *s = grow(&d->result.waterfall, sizeof(*s));

		s->from = src[i].from;
		s->to = src[i].to;
		s->a = bisect_doc_keep(d, src[i].a);
		s->b = bisect_doc_keep(d, src[i].b);
		s->results = keep_results(d, &src[i].results);
	}
	d->result.waterfall.present = wf->present;
}

void bisect_doc_set_result(struct bisect_doc *d, const struct bisect_doc_end *end)
{
	sdoc_fields_release(end_fields, &d->result);
	d->result = *end;
	d->result.present = 1;
	d->result.outcome = bisect_doc_keep(d, end->outcome);
	keep_patch(d, &d->result.patch);
	d->result.own_effect = keep_results(d, &end->own_effect);
	d->result.remaining = keep_results(d, &end->remaining);
	d->result.attribution = bisect_doc_keep_json(d, json_incref((json_t *)end->attribution));
	keep_waterfall(d, &end->waterfall);
	d->complete = 1;
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

struct sdoc_array bisect_doc_results_copy(const struct sdoc_array *src)
{
	struct sdoc_array out = { .n = src->n, .present = src->present };

	if (src->n) {
		out.v = xcalloc(src->n, sizeof(struct bisect_doc_result));
		memcpy(out.v, src->v, src->n * sizeof(struct bisect_doc_result));
	}
	return out;
}

void bisect_doc_results_release(struct sdoc_array *a)
{
	/* a result has no array of its own: its elements hold nothing to free */
	free(a->v);
	*a = (struct sdoc_array){ 0 };
}
