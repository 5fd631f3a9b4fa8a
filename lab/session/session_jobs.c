// SPDX-License-Identifier: GPL-2.0
/* session.json's jobs and kernels' images (session_jobs.h), made from the document's rows. */
#include "session_jobs.h"
#include "session_doc.h"
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

/* The strings of @arr (a workload's args or coherence_args, SK_JSON) into @out. */
static void strings_of(struct xjson_err *d, const json_t *arr, size_t w, const char *key,
		       struct strvec *out)
{
	const json_t *v;
	size_t i;

	json_array_foreach(arr, i, v) {
		if (!json_is_string(v)) {
			xjson_fail(d, "a string", v, "workloads[%zu].%s[%zu]", w, key, i);
			return;
		}
		strvec_push(out, json_string_value(v));
	}
}

/* Workload @i of the document into @w; its name and shares' members the table required. */
static void job_of(struct xjson_err *d, const struct sdoc_workload *sw, size_t i,
		   struct session_job *w)
{
	const struct sdoc_share *sh = sw->shares.v;

	w->name = xstrdup(sw->name);
	if (!sw->type)
		xjson_fail(d, "a string", NULL, "workloads[%zu].type", i);
	w->type = sw->type ? xstrdup(sw->type) : NULL;
	strings_of(d, sw->args, i, "args", &w->args);
	/* optional: a session started before coherence_params has none */
	strings_of(d, sw->coherence_args, i, "coherence_args", &w->coh_args);
	w->shares = xcalloc(sw->shares.n + 1, sizeof(*w->shares));
	for (size_t k = 0; k < sw->shares.n; k++) {
		w->shares[k].tag = xstrdup(sh[k].tag);
		w->shares[k].host_dir = xstrdup(sh[k].host_dir);
	}
	w->nshares = sw->shares.n;
}

int session_jobs_of(const struct session_doc *doc, struct session_jobs *j, struct strbuf *err)
{
	struct xjson_err d = { .err = err };

	memset(j, 0, sizeof(*j));
	/* the table's: kernels required, workloads not (a report of no session has none) */
	if (!doc->workloads.present)
		xjson_fail(&d, "an array", NULL, "workloads");
	j->nw = doc->workloads.n;
	j->w = xcalloc(j->nw + 1, sizeof(*j->w));
	for (size_t i = 0; i < j->nw; i++)
		job_of(&d, sdoc_workload_at(doc, i), i, &j->w[i]);
	j->nk = doc->kernels.n;
	j->k = xcalloc(j->nk + 1, sizeof(*j->k));
	for (size_t i = 0; i < j->nk; i++) {
		const struct sdoc_kernel *k = sdoc_kernel_at(doc, i);

		j->k[i].name = xstrdup(k->name);
		j->k[i].bzimage = k->bzimage ? xstrdup(k->bzimage) : NULL;
	}
	if (d.failed) {
		session_jobs_release(j);
		return -1;
	}
	return 0;
}
