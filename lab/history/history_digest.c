// SPDX-License-Identifier: GPL-2.0
/*
 * A report's digest (history_digest.h): its one decoder, for what the
 * digest cache gives back, and its one encoder, for what the cache keeps.
 * history.c makes digests from reports and reads only the struct.
 */
#include "history_digest.h"
#include "escape.h"
#include "xjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The members of a night, in the order the file has them. */
enum { N_CTX, N_LINE, N_KERNEL, N_WORKLOAD, N_METRIC, N_BETTER, N_UNIT, N_PRIMARY,
       N_VALUES, N_MEMBERS };

struct digest_night *history_digest_add_night(struct history_digest *d)
{
	struct digest_night *n;

	ALLOC_GROW(d->nights, d->nnights + 1, d->nalloc);
	n = &d->nights[d->nnights++];
	memset(n, 0, sizeof(*n));
	n->better = -1;
	return n;
}

struct digest_count *history_digest_add_count(struct history_digest *d)
{
	struct digest_count *c;

	ALLOC_GROW(d->counts, d->ncounts + 1, d->calloc);
	c = &d->counts[d->ncounts++];
	memset(c, 0, sizeof(*c));
	return c;
}

void history_digest_release(struct history_digest *d)
{
	for (size_t i = 0; i < d->ncounts; i++) {
		free(d->counts[i].kernel);
		free(d->counts[i].workload);
	}
	for (size_t i = 0; i < d->nnights; i++) {
		struct digest_night *n = &d->nights[i];

		free(n->ctx);
		free(n->line);
		free(n->kernel);
		free(n->workload);
		free(n->metric);
		free(n->unit);
		free(n->v);
	}
	free(d->counts);
	free(d->nights);
	free(d->id);
	free(d->created);
	json_decref(d->host);
	json_decref(d->kernels);
	memset(d, 0, sizeof(*d));
}

/*
 * A night's values: how many, or -1 when the text is not finite numbers
 * one space apart. Stored into @out (room for as many) when not NULL.
 */
static long values_parse(const char *s, double *out)
{
	long n = 0;

	while (*s) {
		char *end;
		double x;

		if (*s == ' ' || *s == '\t' || *s == '\n')
			return -1;
		x = strtod(s, &end);
		if (end == s || !isfinite(x) || (*end && *end != ' ') || (*end && !end[1]))
			return -1;
		if (out)
			out[n] = x;
		n++;
		s = *end ? end + 1 : end;
	}
	return n;
}

/* @n's values as the text of a night. */
static json_t *values_text(const struct digest_night *n)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *t;

	for (size_t i = 0; i < n->n; i++) {
		double x = n->v[i];
		char buf[32];

		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, x);
			if (strtod(buf, NULL) == x)
				break;
		}
		sb_adds(&sb, i ? " " : "");
		sb_adds(&sb, buf);
	}
	t = json_string(sb_str(&sb));
	sb_release(&sb);
	if (!t)
		die("out of memory");
	return t;
}

json_t *history_digest_encode(const struct history_digest *d)
{
	json_t *counts = json_object(), *nights = json_array();
	size_t i;

	if (!counts || !nights)
		die("out of memory");
	for (i = 0; i < d->ncounts; i++) {
		const struct digest_count *c = &d->counts[i];
		char *key = xasprintf("%s\n%s", c->kernel, c->workload);

		if (json_object_set_new(counts, key, xjson_pack("[I,I]", (json_int_t)c->ok,
								(json_int_t)c->failed)))
			die("out of memory");
		free(key);
	}
	for (i = 0; i < d->nnights; i++) {
		const struct digest_night *n = &d->nights[i];

		if (json_array_append_new(nights,
					  xjson_pack("[s,o,o,o,o,i,o,b,o]", n->ctx,
						     json_string_lossy(n->line),
						     json_string_lossy(n->kernel),
						     json_string_lossy(n->workload),
						     json_string_lossy(n->metric), n->better,
						     json_string_lossy(n->unit), n->primary,
						     values_text(n))))
			die("out of memory");
	}
	return xjson_pack("{s:s,s:s,s:O*,s:O*,s:I,s:I,s:o,s:o}", "id", d->id,
			  "created", d->created, "host", d->host, "kernels", d->kernels,
			  "runs", (json_int_t)d->runs, "failed", (json_int_t)d->failed,
			  "counts", counts, "nights", nights);
}

static char *dd_str(struct xjson_err *d, const json_t *v, const char *name, size_t i)
{
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (i == (size_t)-1)
		xjson_fail(d, "a string", v, "%s", name);
	else
		xjson_fail(d, "a string", v, "%s[%zu]", name, i);
	return NULL;
}

/* A count: an integer, at least 0. */
static size_t dd_count(struct xjson_err *d, const json_t *v, const char *where, const char *what)
{
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return (size_t)json_integer_value(v);
	xjson_fail(d, "an integer from 0", v, "%s%s", where, what);
	return 0;
}

static void decode_counts(struct xjson_err *d, const json_t *counts, struct history_digest *out)
{
	const char *key;
	json_t *e;

	if (!json_is_object(counts)) {
		xjson_fail(d, "an object", counts, "counts");
		return;
	}
	json_object_foreach((json_t *)counts, key, e) {
		const char *nl = strchr(key, '\n');
		struct digest_count *c;
		char *where;

		if (!nl) {
			xjson_fail(d, "\"kernel\\nworkload\"", NULL, "counts: a key");
			return;
		}
		where = xasprintf("counts[\"%.*s\\n%s\"]", (int)(nl - key), key, nl + 1);
		if (json_array_size(e) != 2)
			xjson_fail(d, "[ok runs, failed runs]", e, "%s", where);
		c = history_digest_add_count(out);
		c->kernel = xstrndup(key, (size_t)(nl - key));
		c->workload = xstrdup(nl + 1);
		c->ok = dd_count(d, json_array_get(e, 0), where, "[0]");
		c->failed = dd_count(d, json_array_get(e, 1), where, "[1]");
		free(where);
		if (d->failed)
			return;
	}
}

static void decode_night(struct xjson_err *d, const json_t *j, size_t i, struct digest_night *n)
{
	const json_t *b = json_array_get(j, N_BETTER), *v = json_array_get(j, N_VALUES);
	char *where = xasprintf("nights[%zu]", i);
	long count;

	n->ctx = dd_str(d, json_array_get(j, N_CTX), where, N_CTX);
	n->line = dd_str(d, json_array_get(j, N_LINE), where, N_LINE);
	n->kernel = dd_str(d, json_array_get(j, N_KERNEL), where, N_KERNEL);
	n->workload = dd_str(d, json_array_get(j, N_WORKLOAD), where, N_WORKLOAD);
	n->metric = dd_str(d, json_array_get(j, N_METRIC), where, N_METRIC);
	if (!json_is_integer(b) || json_integer_value(b) < -1 || json_integer_value(b) > 1)
		xjson_fail(d, "-1, 0 or 1", b, "%s[%d]", where, N_BETTER);
	else
		n->better = (int)json_integer_value(b);
	n->unit = dd_str(d, json_array_get(j, N_UNIT), where, N_UNIT);
	if (!json_is_boolean(json_array_get(j, N_PRIMARY)))
		xjson_fail(d, "a boolean", json_array_get(j, N_PRIMARY), "%s[%d]", where,
			   N_PRIMARY);
	n->primary = json_is_true(json_array_get(j, N_PRIMARY));
	count = json_is_string(v) ? values_parse(json_string_value(v), NULL) : -1;
	if (count < 0) {
		xjson_fail(d, "finite numbers one space apart", v, "%s[%d]", where, N_VALUES);
	} else {
		n->v = xcalloc((size_t)count + 1, sizeof(*n->v));
		n->n = n->alloc = (size_t)values_parse(json_string_value(v), n->v);
	}
	free(where);
}

static void decode_nights(struct xjson_err *d, const json_t *nights, struct history_digest *out)
{
	const json_t *n;
	size_t i;

	if (!json_is_array(nights)) {
		xjson_fail(d, "an array", nights, "nights");
		return;
	}
	json_array_foreach(nights, i, n) {
		if (!json_is_array(n) || json_array_size(n) != N_MEMBERS) {
			xjson_fail(d, "an array of 9", n, "nights[%zu]", i);
			return;
		}
		decode_night(d, n, i, history_digest_add_night(out));
	}
}

/* An optional member of type @want (an object or an array): a new reference. */
static json_t *dd_ref(struct xjson_err *d, const json_t *j, const char *key, int object)
{
	json_t *v = json_object_get(j, key);

	if (v && (object ? !json_is_object(v) : !json_is_array(v))) {
		xjson_fail(d, object ? "an object" : "an array", v, "%s", key);
		return NULL;
	}
	return json_incref(v);
}

int history_digest_decode(const json_t *j, struct history_digest *out, struct strbuf *err)
{
	struct xjson_err d = { .err = err };

	memset(out, 0, sizeof(*out));
	if (!json_is_object(j)) {
		xjson_fail(&d, "an object", j, "the digest");
		return -1;
	}
	out->id = dd_str(&d, json_object_get(j, "id"), "id", (size_t)-1);
	out->created = dd_str(&d, json_object_get(j, "created"), "created", (size_t)-1);
	out->host = dd_ref(&d, j, "host", 1);
	out->kernels = dd_ref(&d, j, "kernels", 0);
	out->runs = dd_count(&d, json_object_get(j, "runs"), "", "runs");
	out->failed = dd_count(&d, json_object_get(j, "failed"), "", "failed");
	if (!d.failed)
		decode_counts(&d, json_object_get(j, "counts"), out);
	if (!d.failed)
		decode_nights(&d, json_object_get(j, "nights"), out);
	if (d.failed) {
		history_digest_release(out);
		return -1;
	}
	return 0;
}
