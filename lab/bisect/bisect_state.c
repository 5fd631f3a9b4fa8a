// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.json read back by `bisect --resume`: the bisection trusts nothing
 * in it. Every field bisect.c reads later is checked here once, with its
 * type and range, so that the rest of bisect.c can assume them (a string
 * where it calls strcmp(), an integer where it counts): a file edited by
 * hand, cut short or written by another version is an error naming the
 * file and the field, never a crash or a bisection of something else.
 */
#include "bisect.h"
#include "config.h"
#include "fsutil.h"
#include "xjson.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct check {
	const char *path;
	struct strbuf *err;
};

static int fail(struct check *c, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct check *c, const char *field, const char *fmt, ...)
{
	struct strbuf what = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&what, fmt, ap);
	va_end(ap);
	sb_addf(c->err, "%s: %s: %s", c->path, field, sb_str(&what));
	sb_release(&what);
	return -1;
}

/* "FIELD.KEY", or KEY at the top level (@field NULL). */
static char *member(const char *field, const char *key)
{
	return field ? xasprintf("%s.%s", field, key) : xstrdup(key);
}

/* @obj's @key is present and a string (@opt: or absent / null). */
static int want_string(struct check *c, const json_t *obj, const char *field, const char *key,
		       int opt)
{
	const json_t *v = json_object_get(obj, key);
	char *name;
	int r;

	if (json_is_string(v) || (opt && (!v || json_is_null(v))))
		return 0;
	name = member(field, key);
	r = v ? fail(c, name, "expected a string, got %s", xjson_type_name(v)) :
		fail(c, name, "missing (expected a string)");
	free(name);
	return r;
}

/* @obj's @key is present and an integer of at least @min. */
static int want_integer(struct check *c, const json_t *obj, const char *field, const char *key,
			json_int_t min)
{
	const json_t *v = json_object_get(obj, key);
	char *name;
	int r = 0;

	if (json_is_integer(v) && json_integer_value(v) >= min)
		return 0;
	name = member(field, key);
	if (!v)
		r = fail(c, name, "missing (expected an integer)");
	else if (!json_is_integer(v))
		r = fail(c, name, "expected an integer, got %s", xjson_type_name(v));
	else
		r = fail(c, name, "%lld is below %lld", (long long)json_integer_value(v),
			 (long long)min);
	free(name);
	return r;
}

/* "a.b[3]"-style names for the messages. */
static char *item(const char *array, size_t i)
{
	return xasprintf("%s[%zu]", array, i);
}

/* A result of a step's session (bisect_step_results()) or of tracked. */
static int check_result(struct check *c, const json_t *r, const char *field)
{
	if (!json_is_object(r))
		return fail(c, field, "expected an object, got %s", xjson_type_name(r));
	if (want_string(c, r, field, "workload", 0) || want_string(c, r, field, "metric", 0) ||
	    want_string(c, r, field, "verdict", 0))
		return -1;
	static const char *const nums[] = { "delta_pct", "ci_lo_pct", "ci_hi_pct" };
	for (size_t k = 0; k < ARRAY_SIZE(nums); k++) {
		const json_t *v = json_object_get(r, nums[k]);
		if (v && !json_is_null(v) && !json_is_number(v)) {
			char *name = member(field, nums[k]);
			fail(c, name, "expected a number or null, got %s", xjson_type_name(v));
			free(name);
			return -1;
		}
	}
	return 0;
}

static int check_results(struct check *c, const json_t *a, const char *field)
{
	const json_t *r;
	size_t i;
	int ret = 0;

	if (!json_is_array(a))
		return fail(c, field, "expected an array, got %s", a ? xjson_type_name(a) : "nothing");
	json_array_foreach(a, i, r) {
		char *f = item(field, i);
		ret = check_result(c, r, f);
		free(f);
		if (ret)
			break;
	}
	return ret;
}

static int check_settings(struct check *c, const json_t *s)
{
	const json_t *v, *w;
	size_t i;

	if (!json_is_object(s))
		return fail(c, "settings", "expected an object, got %s", s ? xjson_type_name(s) : "nothing");
	if (want_integer(c, s, "settings", "max_runs", 0))
		return -1;
	v = json_object_get(s, "budget_s");
	if (!json_is_number(v))
		return fail(c, "settings.budget_s", "expected a number of seconds (0: none), got %s",
			    v ? xjson_type_name(v) : "nothing");
	if (!isfinite(json_number_value(v)) || json_number_value(v) < 0)
		return fail(c, "settings.budget_s", "expected a number of seconds (0: none), got %g",
			    json_number_value(v));
	v = json_object_get(s, "per_patch");
	if (!json_is_boolean(v))
		return fail(c, "settings.per_patch", "expected a boolean, got %s",
			    v ? xjson_type_name(v) : "nothing");
	/* absent in a bisection begun before --attribute: off */
	v = json_object_get(s, "attribute");
	if (v && config_attribute_parse(json_string_value(v)) < 0)
		return fail(c, "settings.attribute", "expected off, changed or all, got %s",
			    json_is_string(v) ? json_string_value(v) : xjson_type_name(v));
	v = json_object_get(s, "workloads");
	if (!json_is_array(v))
		return fail(c, "settings.workloads", "expected an array of workload names, got %s",
			    v ? xjson_type_name(v) : "nothing");
	json_array_foreach(v, i, w)
		if (!json_is_string(w) || !*json_string_value(w)) {
			char *name = item("settings.workloads", i);
			fail(c, name, "expected a workload name, got %s",
			     json_is_string(w) ? "an empty string" : xjson_type_name(w));
			free(name);
			return -1;
		}
	return 0;
}

/* A step's folder, joined to the bisection's: relative, and never out of it. */
static int safe_relative(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");
		if ((n == 2 && !strncmp(s, "..", 2)) || (n == 1 && *s == '.'))
			return 0;
		s += n;
		s += *s == '/';
	}
	return 1;
}

static int check_step(struct check *c, const json_t *st, const char *field)
{
	const char *state;

	if (!json_is_object(st))
		return fail(c, field, "expected an object, got %s", xjson_type_name(st));
	if (want_integer(c, st, field, "step", 1) || want_string(c, st, field, "purpose", 0) ||
	    want_string(c, st, field, "a", 0) || want_string(c, st, field, "b", 0) ||
	    want_string(c, st, field, "dir", 0) || want_string(c, st, field, "state", 0) ||
	    want_string(c, st, field, "session", 1))
		return -1;
	if (!safe_relative(json_string_value(json_object_get(st, "dir")))) {
		char *name = member(field, "dir");
		fail(c, name, "expected a folder inside the bisection's, got \"%s\"",
		     json_string_value(json_object_get(st, "dir")));
		free(name);
		return -1;
	}
	state = json_string_value(json_object_get(st, "state"));
	if (strcmp(state, "running") && strcmp(state, "done") && strcmp(state, "failed")) {
		char *name = member(field, "state");
		fail(c, name, "expected running, done or failed, got \"%s\"", state);
		free(name);
		return -1;
	}
	if (!strcmp(state, "done") || json_object_get(st, "results")) {
		char *f = xasprintf("%s.results", field);
		int r = check_results(c, json_object_get(st, "results"), f);
		free(f);
		return r;
	}
	return 0;
}

static int check_array_of(struct check *c, const json_t *st, const char *key,
			  int (*one)(struct check *, const json_t *, const char *))
{
	const json_t *a = json_object_get(st, key), *el;
	size_t i;

	if (!json_is_array(a))
		return fail(c, key, "expected an array, got %s", a ? xjson_type_name(a) : "nothing");
	json_array_foreach(a, i, el) {
		char *f = item(key, i);
		int r = one(c, el, f);
		free(f);
		if (r)
			return -1;
	}
	return 0;
}

static int check_patch(struct check *c, const json_t *p, const char *field)
{
	if (!json_is_object(p))
		return fail(c, field, "expected an object, got %s", xjson_type_name(p));
	return want_string(c, p, field, "subject", 1) || want_string(c, p, field, "message_id", 1) ?
	       -1 : 0;
}

static int check_probe(struct check *c, const json_t *p, const char *field)
{
	if (!json_is_object(p))
		return fail(c, field, "expected an object, got %s", xjson_type_name(p));
	return want_integer(c, p, field, "prefix", 0) || want_string(c, p, field, "class", 0) ? -1 : 0;
}

static int check_prefixes(struct check *c, const json_t *st)
{
	const json_t *pre = json_object_get(st, "prefixes"), *p, *b;
	const char *key;

	if (!json_is_object(pre))
		return fail(c, "prefixes", "expected an object, got %s", pre ? xjson_type_name(pre) : "nothing");
	json_object_foreach((json_t *)pre, key, p) {
		char *f = xasprintf("prefixes.%s", key), *fb = member(f, "builds");
		int r = 0;
		if (!json_is_object(p))
			r = fail(c, f, "expected an object, got %s", xjson_type_name(p));
		else if ((b = json_object_get(p, "builds")) && !json_is_boolean(b))
			r = fail(c, fb, "expected a boolean, got %s", xjson_type_name(b));
		free(fb);
		free(f);
		if (r)
			return -1;
	}
	return 0;
}

static int check_state(struct check *c, const json_t *st)
{
	const json_t *v;

	if (check_settings(c, json_object_get(st, "settings")))
		return -1;
	if (want_string(c, st, NULL, "baseline", 0) || want_string(c, st, NULL, "series_kernel", 0) ||
	    want_integer(c, st, NULL, "n", 1))
		return -1;
	if (check_array_of(c, st, "patches", check_patch))
		return -1;
	if (json_array_size(json_object_get(st, "patches")) !=
	    (size_t)json_integer_value(json_object_get(st, "n")))
		return fail(c, "patches", "%zu patches, but n is %lld",
			    json_array_size(json_object_get(st, "patches")),
			    (long long)json_integer_value(json_object_get(st, "n")));
	if (check_array_of(c, st, "steps", check_step) || check_prefixes(c, st) ||
	    check_array_of(c, st, "probes", check_probe))
		return -1;
	v = json_object_get(st, "tracked");
	if (v && check_results(c, v, "tracked"))
		return -1;
	v = json_object_get(st, "complete");
	if (v && !json_is_boolean(v))
		return fail(c, "complete", "expected a boolean, got %s", xjson_type_name(v));
	v = json_object_get(st, "result");
	if (v && !json_is_object(v))
		return fail(c, "result", "expected an object, got %s", xjson_type_name(v));
	return 0;
}

json_t *bisect_state_load(const char *path, struct strbuf *err)
{
	struct check c = { .path = path, .err = err };
	json_error_t jerr;
	json_t *st = json_load_file(path, 0, &jerr);
	const json_t *schema = json_object_get(st, "schema");

	if (!st) {
		sb_addf(err, "%s: %s", path, jerr.text);
		return NULL;
	}
	if (!json_is_object(st) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), BISECT_SCHEMA)) {
		sb_addf(err, "%s: not a bisection's state (schema " BISECT_SCHEMA ")", path);
		json_decref(st);
		return NULL;
	}
	if (check_state(&c, st)) {
		json_decref(st);
		return NULL;
	}
	return st;
}

static double num_or_nan(const json_t *obj, const char *key)
{
	const json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

void step_results_decode(const json_t *arr, struct step_results *out)
{
	const json_t *r;
	size_t i;

	out->n = 0;
	out->v = xcalloc(json_array_size(arr) + 1, sizeof(*out->v));
	json_array_foreach(arr, i, r) {
		struct step_result *x = &out->v[out->n];
		const char *verdict = json_string_value(json_object_get(r, "verdict"));

		x->workload = json_string_value(json_object_get(r, "workload"));
		x->metric = json_string_value(json_object_get(r, "metric"));
		if (!x->workload || !x->metric || !verdict)
			continue;
		x->primary = json_is_true(json_object_get(r, "primary"));
		x->verdict = stats_verdict_from_id(verdict);
		x->verdict_id = stats_verdict_id(x->verdict);
		x->delta_pct = num_or_nan(r, "delta_pct");
		x->lo_pct = num_or_nan(r, "ci_lo_pct");
		x->hi_pct = num_or_nan(r, "ci_hi_pct");
		x->json = r;
		out->n++;
	}
}

void step_results_release(struct step_results *rs)
{
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}

const struct step_result *step_results_find(const struct step_results *rs, const char *workload,
					    const char *metric)
{
	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->v[i].workload, workload) && !strcmp(rs->v[i].metric, metric))
			return &rs->v[i];
	return NULL;
}

static const char *str_of(const json_t *obj, const char *key)
{
	return json_string_value(json_object_get(obj, key));
}

/* A container member, or NULL when absent or not of that type. */
static json_t *container_of(const json_t *obj, const char *key, int want_object)
{
	json_t *v = json_object_get(obj, key);

	return (want_object ? json_is_object(v) : json_is_array(v)) ? v : NULL;
}

void bisect_head_decode(const json_t *state, struct bisect_head *out)
{
	const json_t *set = json_object_get(state, "settings");

	out->baseline = str_of(state, "baseline");
	out->series_kernel = str_of(state, "series_kernel");
	out->n = (long)json_integer_value(json_object_get(state, "n"));
	out->complete = json_is_true(json_object_get(state, "complete"));
	out->settings.max_runs = (long)json_integer_value(json_object_get(set, "max_runs"));
	out->settings.budget_s = json_number_value(json_object_get(set, "budget_s"));
	out->settings.per_patch = json_is_true(json_object_get(set, "per_patch"));
	out->settings.attribute = config_attribute_parse(json_string_value(json_object_get(set,
								"attribute")));
	if (out->settings.attribute < 0)
		out->settings.attribute = RUN_ATTRIBUTE_OFF;
	out->settings.workloads = container_of(set, "workloads", 0);
	out->steps = container_of(state, "steps", 0);
	out->patches = container_of(state, "patches", 0);
	out->probes = container_of(state, "probes", 0);
	out->prefixes = container_of(state, "prefixes", 1);
	out->tracked = container_of(state, "tracked", 0);
	out->waterfall = json_object_get(json_object_get(state, "result"), "waterfall");
}

void bisect_step_decode(const json_t *s, struct bisect_step *out)
{
	out->step = (long)json_integer_value(json_object_get(s, "step"));
	out->purpose = str_of(s, "purpose");
	out->a = str_of(s, "a");
	out->b = str_of(s, "b");
	out->session = str_of(s, "session");
	out->dir = str_of(s, "dir");
	out->state = str_of(s, "state");
	out->results = json_object_get(s, "results");
}

char *bisect_step_file(const struct bisect_step *st, const char *file)
{
	if (!st->dir || !st->session || !*path_basename(st->session))
		return NULL;
	return xasprintf("%s/%s/%s", st->dir, path_basename(st->session), file);
}

static long long_of(const json_t *obj, const char *key)
{
	return (long)json_integer_value(json_object_get(obj, key));
}

void bisect_end_decode(const json_t *state, struct bisect_end *out)
{
	const json_t *r = json_object_get(state, "result");

	out->outcome = str_of(r, "outcome");
	out->first = long_of(r, "first");
	out->last = long_of(r, "last");
	out->culprit = long_of(r, "culprit");
	out->split = long_of(r, "split");
	out->own_effect = container_of(r, "own_effect", 0);
	out->remaining = container_of(r, "remaining", 0);
	out->result = r;
}

void bisect_probe_decode(const json_t *p, struct bisect_probe *out)
{
	out->prefix = long_of(p, "prefix");
	out->cls = str_of(p, "class");
}

void bisect_patch_decode(const struct bisect_head *h, long k, struct bisect_patch *out)
{
	const json_t *p = k >= 1 ? json_array_get(h->patches, (size_t)(k - 1)) : NULL;

	out->subject = str_of(p, "subject");
	out->message_id = str_of(p, "message_id");
}

int bisect_prefix_builds(const struct bisect_head *h, long k)
{
	char key[24];
	const json_t *b;

	snprintf(key, sizeof(key), "%ld", k);
	b = json_object_get(json_object_get(h->prefixes, key), "builds");
	return json_is_boolean(b) ? json_is_true(b) : -1;
}

const char *bisect_prefix_kernel(const struct bisect_head *h, long k)
{
	char key[24];

	snprintf(key, sizeof(key), "%ld", k);
	return str_of(json_object_get(h->prefixes, key), "kernel");
}

int bisect_probe_known(const struct bisect_head *h, long k)
{
	const json_t *p;
	size_t i;

	json_array_foreach(h->probes, i, p)
		if (json_integer_value(json_object_get(p, "prefix")) == k)
			return 1;
	return 0;
}

void bisect_wf_step_decode(const json_t *s, struct bisect_wf_step *out)
{
	out->from = (long)json_integer_value(json_object_get(s, "from"));
	out->to = (long)json_integer_value(json_object_get(s, "to"));
	out->a = str_of(s, "a");
	out->b = str_of(s, "b");
	out->results = json_object_get(s, "results");
}
