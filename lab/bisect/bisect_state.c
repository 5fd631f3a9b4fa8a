// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.json read back (bisect_doc_load()): by `bisect --resume`, whose
 * state it becomes, and by the readers (bisect.html, --json, the watch's
 * note). The bisection trusts nothing in it. Every member bisect.c reads
 * later is checked here once, its type by bisect.json's table
 * (bisect_doc.h) and its range here, so that the rest of bisect.c can
 * assume them (a string where it calls strcmp(), an integer where it
 * counts): a file edited by hand, cut short or written by another version
 * is an error naming the file and the member, never a crash or a
 * bisection of something else. Also here: the step results typed for the
 * deciding (step_results_of()) and a step's session's paths.
 */
#include "bisect.h"
#include "bisect_doc.h"
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

/*
 * settings' values that their types do not say: counts, seconds, the
 * attribution's word and the workloads' names.
 */
static int check_settings(struct check *c, const struct bisect_doc_settings *s)
{
	const json_t *w;
	char field[48];
	size_t i;

	if (s->max_runs < 0)
		return fail(c, "settings.max_runs", "%lld is below 0", s->max_runs);
	if (!isfinite(s->budget_s) || s->budget_s < 0)
		return fail(c, "settings.budget_s", "expected a number of seconds (0: none), got %g",
			    s->budget_s);
	/* absent in a bisection begun before --attribute: off */
	if (s->attribute && config_attribute_parse(s->attribute) < 0)
		return fail(c, "settings.attribute", "expected off, changed or all, got \"%s\"",
			    s->attribute);
	json_array_foreach(s->workloads, i, w)
		if (!json_is_string(w) || !*json_string_value(w)) {
			snprintf(field, sizeof(field), "settings.workloads[%zu]", i);
			return fail(c, field, "expected a workload name, got %s",
				    json_is_string(w) ? "an empty string" : xjson_type_name(w));
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

/* steps[@i]: what bisect.c joins to paths and compares. */
static int check_step(struct check *c, const struct bisect_doc_step *st, size_t i)
{
	char field[48];
	int n = snprintf(field, sizeof(field), "steps[%zu].", i);

	snprintf(field + n, sizeof(field) - n, "step");
	if (st->step < 1)
		return fail(c, field, "%lld is below 1", st->step);
	snprintf(field + n, sizeof(field) - n, "dir");
	if (!safe_relative(st->dir))
		return fail(c, field, "expected a folder inside the bisection's, got \"%s\"", st->dir);
	snprintf(field + n, sizeof(field) - n, "state");
	if (strcmp(st->state, "running") && strcmp(st->state, "done") && strcmp(st->state, "failed"))
		return fail(c, field, "expected running, done or failed, got \"%s\"", st->state);
	snprintf(field + n, sizeof(field) - n, "results");
	if (!strcmp(st->state, "done") && !st->results.present)
		return fail(c, field, "missing (expected an array: the step is done)");
	return 0;
}

/* What the table's types do not say (bisect_doc.h): ranges, folders, the count of patches. */
static int check_doc(struct check *c, const struct bisect_doc *d)
{
	const struct bisect_doc_step *steps = d->steps.v;
	const struct bisect_doc_probe *probes = d->probes.v;
	char field[48];

	if (check_settings(c, &d->settings))
		return -1;
	if (d->n < 1)
		return fail(c, "n", "%lld is below 1", d->n);
	if (d->patches.n != (size_t)d->n)
		return fail(c, "patches", "%zu patches, but n is %lld", d->patches.n, d->n);
	for (size_t i = 0; i < d->steps.n; i++)
		if (check_step(c, &steps[i], i))
			return -1;
	for (size_t i = 0; i < d->probes.n; i++)
		if (probes[i].prefix < 0) {
			snprintf(field, sizeof(field), "probes[%zu].prefix", i);
			return fail(c, field, "%lld is below 0", probes[i].prefix);
		}
	return 0;
}

int bisect_doc_load(const char *path, struct bisect_doc *d, struct strbuf *err)
{
	struct check c = { .path = path, .err = err };
	struct strbuf why = STRBUF_INIT;
	json_error_t jerr;
	json_t *st = json_load_file(path, 0, &jerr);
	const json_t *schema = json_object_get(st, "schema");
	int r;

	bisect_doc_init(d);
	if (!st) {
		sb_addf(err, "%s: %s", path, jerr.text);
		return -1;
	}
	if (!json_is_object(st) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), BISECT_SCHEMA)) {
		sb_addf(err, "%s: not a bisection's state (schema " BISECT_SCHEMA ")", path);
		json_decref(st);
		return -1;
	}
	/* the types by the table, which names the member: "steps[1].a: expected a string, ..." */
	r = bisect_doc_decode(st, d, &why);
	if (r)
		sb_addf(err, "%s: %s", path, sb_str(&why));
	else
		r = check_doc(&c, d);
	sb_release(&why);
	if (r) {
		/* refused: nothing of it is read (the decoder may have filled some members) */
		bisect_doc_release(d);
		bisect_doc_init(d);
		json_decref(st);
		return -1;
	}
	d->owned = st;
	return 0;
}

void step_results_of(const struct sdoc_array *a, struct step_results *out)
{
	const struct bisect_doc_result *v = a ? a->v : NULL;
	size_t n = a ? a->n : 0;

	out->n = 0;
	out->v = xcalloc(n + 1, sizeof(*out->v));
	for (size_t i = 0; i < n; i++) {
		struct step_result *x = &out->v[out->n++];

		/* workload, metric and verdict are required by the table */
		x->workload = v[i].workload;
		x->metric = v[i].metric;
		x->primary = v[i].primary == 1;
		x->verdict = stats_verdict_from_id(v[i].verdict);
		x->verdict_id = stats_verdict_id(x->verdict);
		x->delta_pct = v[i].delta_pct;
		x->lo_pct = v[i].ci_lo_pct;
		x->hi_pct = v[i].ci_hi_pct;
	}
}

/* Two results arrays alike, element by element (NaN alike: both null). */
static int same_num(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

int step_results_same(const struct sdoc_array *a, const struct sdoc_array *b)
{
	const struct bisect_doc_result *x = a->v, *y = b->v;

	if (a->present != b->present || a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(x[i].workload, y[i].workload) || strcmp(x[i].metric, y[i].metric) ||
		    x[i].primary != y[i].primary || strcmp(x[i].verdict, y[i].verdict) ||
		    !same_num(x[i].delta_pct, y[i].delta_pct) ||
		    !same_num(x[i].ci_lo_pct, y[i].ci_lo_pct) ||
		    !same_num(x[i].ci_hi_pct, y[i].ci_hi_pct))
			return 0;
	return 1;
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

char *bisect_step_path(const char *dir, const char *session, const char *file)
{
	if (!dir || !session || !*path_basename(session))
		return NULL;
	return xasprintf("%s/%s/%s", dir, path_basename(session), file);
}
