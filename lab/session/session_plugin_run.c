// SPDX-License-Identifier: GPL-2.0
/*
 * The runs after the verdicts with a TCG plugin loaded (attribution,
 * session_attribute.c; coherence, session_coherence.c): one run of a
 * workload into a folder of its own, kept out of runs/ and out of the
 * analysis, and reused on --resume when it ran the same image.
 */
#include "session_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_job.h"
#include "guest_result.h"
#include "lab_paths.h"
#include "report_result.h"
#include "xjson.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *session_plugin_path(const struct plugin_kind *k)
{
	const char *env = getenv(k->env);
	char *exe, *dir, *p;

	if (env && *env)
		return xstrdup(env);
	exe = lab_exe_path();
	if (!exe)
		return xstrdup(k->so);
	dir = path_dirname(exe);
	p = path_join(dir, k->so);
	free(dir);
	free(exe);
	return p;
}

const char *session_plugin_unavailable(const struct session *s, const struct plugin_kind *k,
				       const char *plugin)
{
	if (s->jobs.nk != 1 && s->jobs.nk != 2)
		return k->not_one_or_two;
	if (s->lab.accel != ACCEL_TCG || s->topo.icount_shift < 0)
		return k->no_icount;
	if (!is_regular_file(plugin))
		return k->not_built;
	return session_maps_missing(s);
}

int session_plugin_which(int option, const char *kept, int conf)
{
	int was = config_attribute_parse(kept);

	if (option >= 0)
		return option;
	return was >= 0 ? was : conf;
}

int session_primaries_of(const struct result_record *res, size_t n, const char *w, json_t *out,
			 const struct result_record **mine, size_t max, size_t *nmine)
{
	int changed = 0;

	if (nmine)
		*nmine = 0;
	for (size_t i = 0; i < n; i++) {
		const struct result_record *r = &res[i];

		if (!r->primary || r->is_counter || strcmp(r->workload, w))
			continue;
		changed |= r->verdict == VERDICT_REGRESSION || r->verdict == VERDICT_IMPROVEMENT;
		json_array_append_new(out, xjson_pack("{s:o, s:o, s:o}",
			"metric", json_string_lossy(r->metric),
			"verdict", r->verdict_id ? json_string(r->verdict_id) : json_null(),
			"delta_pct", jnum(r->change.delta_pct)));
		if (mine && *nmine < max)
			mine[(*nmine)++] = r;
	}
	return changed;
}

long session_plugin_windows(const char *dir, const char *prefix)
{
	long n = 0;

	for (;;) {
		char name[64], *p;
		int there;

		snprintf(name, sizeof(name), "%s.%ld", prefix, n + 1);
		p = path_join(dir, name);
		there = is_regular_file(p);
		free(p);
		if (!there)
			return n;
		n++;
	}
}

char *session_plugin_skewed(const char *dir)
{
	char *path = path_join(dir, "results.jsonl");
	struct guest_result res;
	char *why = NULL;

	guest_result_init(&res);
	if (!guest_result_parse_file(path, &res))
		for (size_t i = 0; i < res.nrecs && !why; i++) {
			const struct guest_record *g = &res.recs[i];

			/* its window and spins stay in results.jsonl: the name is what decides */
			if (g->type == GUEST_RECORD_INFO && g->name && !strcmp(g->name, "window_skewed"))
				why = xstrdup("in a window, one thread waited or was preempted while the "
					      "other ran (the workload's window_skewed record)");
		}
	guest_result_release(&res);
	free(path);
	return why;
}

char *session_system_map(const char *image)
{
	char *dir = path_dirname(image), *map = path_join(dir, "System.map");

	free(dir);
	return map;
}

const char *session_maps_missing(const struct session *s)
{
	for (size_t k = 0; k < s->jobs.nk; k++) {
		char *map;
		int ok;

		if (!s->jobs.k[k].bzimage)
			return "a kernel's image is not recorded";
		map = session_system_map(s->jobs.k[k].bzimage);
		ok = is_regular_file(map);
		free(map);
		if (!ok)
			return "a kernel's System.map is not in the kernel cache (a kernel cached "
			       "before the lab kept it: `mglrulab kernel build --rebuild`)";
	}
	return NULL;
}

int session_plugin_run(struct session *s, const struct session_job *w, const char *image,
		       const struct plugin_run *pr, const char *dir, double *seconds,
		       struct strbuf *err)
{
	char *done_name = xasprintf("%s.done", pr->run_id);
	char *done = path_join(dir, done_name);
	struct guest_run gr = { 0 };
	struct strbuf was = STRBUF_INIT;
	int r = -1;

	free(done_name);
	/*
	 * A finished run is reused on --resume only if it ran this image:
	 * cache entries are content-addressed, so the path names the kernel
	 * and the System.map its windows are read against.
	 */
	int same = !read_regular_file(done, &was, 4096) && !strcmp(sb_str(&was), image);

	sb_release(&was);
	if (same) {
		free(done);
		return 0;
	}
	if (rm_rf(dir) || mkdir_p(dir, 0755)) {
		sb_addf(err, "%s: %s", dir, strerror(errno));
		free(done);
		return -1;
	}
	struct domain_share *shares = xcalloc(w->nshares + 1, sizeof(*shares));
	for (size_t j = 0; j < w->nshares; j++) {
		shares[j].host_dir = w->shares[j].host_dir;
		shares[j].tag = w->shares[j].tag;
	}
	char *cmdline = guest_job_cmdline((const char *const *)w->args.v);
	struct guest_job_spec job = {
		.run_id = pr->run_id, .workload = w->type,
		.args = (const char *const *)w->args.v,
		.workload_timeout_s = s->topo.run_timeout_s, .extra_cmdline = cmdline,
		.shares = shares, .nr_shares = (int)w->nshares, .attr_plugin = pr->plugin,
	};
	double t0 = now_monotonic();

	if (guest_lab_run(&s->lab, &s->topo, image, &job, dir, &gr))
		sb_addf(err, "%s: the run failed: %.200s", dir, gr.failure ? gr.failure : "?");
	else if (!session_plugin_windows(dir, pr->window_prefix))
		sb_addf(err, "%s: the plugin wrote no window (%s.1)", dir, pr->window_prefix);
	else if (write_file_atomic(done, image, strlen(image)))
		sb_addf(err, "%s: %s", done, strerror(errno));
	else
		r = 0;
	*seconds += now_monotonic() - t0;
	guest_run_release(&gr);
	free(cmdline);
	free(shares);
	free(done);
	return r;
}
