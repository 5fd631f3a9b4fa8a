// SPDX-License-Identifier: GPL-2.0
/* session.json's jobs and kernels' images (session_jobs.h): the one decoder. */
#include "session_jobs.h"
#include "xjson.h"

#include <stdlib.h>
#include <string.h>

void session_jobs_release(struct session_jobs *j)
{
	for (size_t i = 0; i < j->nw; i++) {
		struct session_job *w = &j->w[i];

		free(w->name);
		free(w->type);
		strvec_clear(&w->args);
		strvec_clear(&w->coh_args);
		for (size_t k = 0; k < w->nshares; k++) {
			free(w->shares[k].tag);
			free(w->shares[k].host_dir);
		}
		free(w->shares);
	}
	for (size_t i = 0; i < j->nk; i++) {
		free(j->k[i].name);
		free(j->k[i].bzimage);
	}
	free(j->w);
	free(j->k);
	memset(j, 0, sizeof(*j));
}

const struct session_job *session_job_find(const struct session_jobs *j, const char *name)
{
	for (size_t i = 0; name && i < j->nw; i++)
		if (!strcmp(j->w[i].name, name))
			return &j->w[i];
	return NULL;
}

const char *session_jobs_image(const struct session_jobs *j, const char *name)
{
	for (size_t i = 0; name && i < j->nk; i++)
		if (!strcmp(j->k[i].name, name))
			return j->k[i].bzimage;
	return NULL;
}

/* String member @key of @obj at @where: a copy; NULL (and no error) when absent and @optional. */
static char *jd_str(struct xjson_err *d, const json_t *obj, const char *where, const char *key,
		    int optional)
{
	const json_t *v = json_object_get(obj, key);

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (!v && optional)
		return NULL;
	xjson_fail(d, "a string", v, "%s.%s", where, key);
	return NULL;
}

/* Array member @key of @obj at @where: NULL (and no error) when absent. */
static const json_t *jd_arr(struct xjson_err *d, const json_t *obj, const char *where,
			    const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (v && !json_is_array(v)) {
		xjson_fail(d, "an array", v, "%s.%s", where, key);
		return NULL;
	}
	return v;
}

static void job_decode(struct xjson_err *d, const json_t *o, const char *where,
		       struct session_job *w)
{
	const json_t *args = jd_arr(d, o, where, "args"), *shares = jd_arr(d, o, where, "shares");
	const json_t *v;
	size_t i;

	w->name = jd_str(d, o, where, "name", 0);
	w->type = jd_str(d, o, where, "type", 0);
	json_array_foreach(args, i, v) {
		if (!json_is_string(v)) {
			xjson_fail(d, "a string", v, "%s.args[%zu]", where, i);
			return;
		}
		strvec_push(&w->args, json_string_value(v));
	}
	/* optional: a session started before coherence_params has none */
	json_array_foreach(jd_arr(d, o, where, "coherence_args"), i, v) {
		if (!json_is_string(v)) {
			xjson_fail(d, "a string", v, "%s.coherence_args[%zu]", where, i);
			return;
		}
		strvec_push(&w->coh_args, json_string_value(v));
	}
	w->shares = xcalloc(json_array_size(shares) + 1, sizeof(*w->shares));
	json_array_foreach(shares, i, v) {
		char *at = xasprintf("%s.shares[%zu]", where, i);
		struct session_share *sh = &w->shares[w->nshares++];

		if (!json_is_object(v))
			xjson_fail(d, "an object", v, "%s", at);
		sh->tag = jd_str(d, v, at, "tag", 0);
		sh->host_dir = jd_str(d, v, at, "host_dir", 0);
		free(at);
	}
}

/* The elements of array @key, each an object, passed to @one with its path. */
static size_t each_object(struct xjson_err *d, const json_t *ctx, const char *key, size_t size,
			  void **out,
			  void (*one)(struct xjson_err *, const json_t *, const char *, void *))
{
	const json_t *arr = json_object_get(ctx, key), *v;
	size_t i;
	char *mem;

	if (!json_is_array(arr)) {
		xjson_fail(d, "an array", arr, "%s", key);
		return 0;
	}
	mem = xcalloc(json_array_size(arr) + 1, size);
	*out = mem;
	json_array_foreach(arr, i, v) {
		char *where = xasprintf("%s[%zu]", key, i);

		if (!json_is_object(v))
			xjson_fail(d, "an object", v, "%s", where);
		else
			one(d, v, where, mem + i * size);
		free(where);
	}
	return json_array_size(arr);
}

static void job_one(struct xjson_err *d, const json_t *o, const char *where, void *w)
{
	job_decode(d, o, where, w);
}

static void kernel_one(struct xjson_err *d, const json_t *o, const char *where, void *out)
{
	struct session_kernel_image *k = out;

	k->name = jd_str(d, o, where, "name", 0);
	k->bzimage = jd_str(d, o, where, "bzImage", 1);
}

int session_jobs_decode(const json_t *ctx, struct session_jobs *j, struct strbuf *err)
{
	struct xjson_err d = { .err = err };
	void *w = NULL, *k = NULL;

	memset(j, 0, sizeof(*j));
	j->nw = each_object(&d, ctx, "workloads", sizeof(*j->w), &w, job_one);
	j->w = w;
	j->nk = each_object(&d, ctx, "kernels", sizeof(*j->k), &k, kernel_one);
	j->k = k;
	if (d.failed) {
		session_jobs_release(j);
		return -1;
	}
	return 0;
}
