// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of a new session as session.json declares them: their
 * parameters and the guest job's arguments, the metrics expected for this
 * guest, the primaries, and whatever a workload's prepare_run hook
 * (lab/workload/workload_def.h) set up on the host for its runs.
 */
#include "session_priv.h"
#include "xjson.h"
#include "kbuild_prep.h"
#include "workload_def.h"

#include <stdlib.h>
#include <string.h>

/* Metric names of a workload for this guest: "%d" expands over CPU counts or nodes. */
static json_t *metrics_json(const struct workload_cfg *w, const struct guest_topology *t)
{
	json_t *a = json_array();
	struct strvec prim = STRVEC_INIT;

	workload_cfg_primaries(w, &prim);

	for (const struct metric_def *m = w->def->metrics; m->name; m++) {
		struct strvec idx = STRVEC_INIT;
		const char *pct = strstr(m->name, "%d");
		const char *cpus = workload_cfg_value(w, "cpus");
		/*
		 * Per-CPU-count names are known from the sweep. Which nodes a
		 * workload reports on depends on the run (numa_workload reports
		 * the nodes it ages, not its own), and names with two indices
		 * only appear with a patched kernel's extra columns: the report
		 * matches those against the definition when they appear, rather
		 * than expecting them and calling them missing.
		 */
		if (pct && (strstr(pct + 2, "%d") || !cpus || !strstr(m->name, "cpu")))
			continue;
		if (pct) {
			strvec_split(&idx, cpus, ", ");
		} else {
			strvec_push(&idx, "");
		}
		for (size_t i = 0; i < idx.n; i++) {
			if (*idx.v[i] && strstr(m->name, "cpu") && atoi(idx.v[i]) > t->vcpus)
				continue;	/* the program caps the sweep at the guest's CPUs */
			char *name = *idx.v[i] ? xasprintf(m->name, atoi(idx.v[i])) : xstrdup(m->name);
			json_t *decl = xjson_pack("{s:s, s:s, s:s}", "name", name, "unit", m->unit,
				"better", m->better == BETTER_HIGHER ? "higher" : "lower");
			for (size_t p = 0; p < prim.n; p++)
				if (metric_pattern_match(prim.v[p], name))
					json_object_set_new(decl, "primary", json_true());
			json_array_append_new(a, decl);
			free(name);
		}
		strvec_clear(&idx);
	}
	strvec_clear(&prim);
	return a;
}

/*
 * The primary metrics, declared before the first run: names or "%d"
 * patterns (per-node metrics are only named once the run shows its nodes).
 */
static json_t *primaries_json(const struct workload_cfg *w)
{
	struct strvec names = STRVEC_INIT;
	json_t *a = json_array();

	workload_cfg_primaries(w, &names);
	for (size_t i = 0; i < names.n; i++)
		json_array_append_new(a, json_string(names.v[i]));
	strvec_clear(&names);
	return a;
}

static int workload_cfg_has(const struct workload_cfg *w, const char *param)
{
	for (size_t i = 0; i < w->keys.n; i++)
		if (!strcmp(w->keys.v[i], param))
			return 1;
	return 0;
}

/* The value a workload's prepare_run hook set for @param, or NULL. */
static const char *setup_value(const struct workload_run_setup *setup, const char *param)
{
	for (size_t i = 0; i + 1 < setup->set.n; i += 2)
		if (!strcmp(setup->set.v[i], param))
			return setup->set.v[i + 1];
	return NULL;
}

/*
 * [workload] coherence_params: the arguments of its coherence runs, @args
 * (its own) with those parameters replaced or added, in "coherence_args"
 * of @j, so a resumed session runs what it started with. Nothing when
 * the section has none.
 */
static void coherence_args(const struct workload_cfg *w, const json_t *args, json_t *j)
{
	json_t *out = json_array(), *a;
	size_t i;

	if (!w->coh_keys.n) {
		json_decref(out);
		return;
	}
	json_array_foreach(args, i, a) {
		const char *arg = json_string_value(a), *eq = strchr(arg, '=');
		char *name = xstrndup(arg + 2, eq ? (size_t)(eq - arg - 2) : strlen(arg + 2));

		if (!workload_cfg_coh_value(w, name))
			json_array_append(out, a);
		free(name);
	}
	for (size_t k = 0; k < w->coh_keys.n; k++)
		json_array_append_new(out, json_sprintf("--%s=%s", w->coh_keys.v[k],
							w->coh_values.v[k]));
	json_object_set_new(j, "coherence_args", out);
}

/* @setup: what the workload's prepare_run hook decided for its runs. */
static json_t *workload_json(const struct workload_cfg *w, const struct guest_topology *t,
			     int counters, const struct workload_run_setup *setup)
{
	json_t *params = json_object(), *args = json_array(), *j;

	for (const struct param_def *p = w->def->params; p->name; p++) {
		const char *v = workload_cfg_value(w, p->name);
		const char *hook = setup_value(setup, p->name);
		/* --no-counters wins over lab.conf for this session. */
		if (!counters && !strcmp(p->name, "counters"))
			v = "0";
		if (hook)
			v = hook;
		json_object_set_new(params, p->name, json_string(v ? v : ""));
		/* An empty value written in lab.conf overrides a default ("config =" keeps none). */
		if (v && (*v || hook || workload_cfg_has(w, p->name)))
			json_array_append_new(args, json_sprintf("--%s=%s", p->name, v));
	}
	j = xjson_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "name", w->name, "type", w->def->name,
		      "params", params, "metrics", metrics_json(w, t), "primary", primaries_json(w),
		      "args", args);
	coherence_args(w, args, j);
	/* The band of this workload's metrics, where lab.conf sets one. */
	if (w->threshold >= 0)
		json_object_set_new(j, "threshold", json_real(w->threshold));
	/* In session.json, so a resumed session shares the same folders. */
	if (setup->shares.n) {
		json_t *shares = json_array();
		for (size_t i = 0; i + 1 < setup->shares.n; i += 2)
			json_array_append_new(shares, xjson_pack("{s:s, s:s}", "tag", setup->shares.v[i],
								"host_dir", setup->shares.v[i + 1]));
		json_object_set_new(j, "shares", shares);
	}
	return j;
}

/* workload_run_env.prepare_build_dir: the baseline's tree with its .config, log in logs/. */
static int prepare_build_dir(const struct workload_run_env *env, const char *workload, char **dir)
{
	struct session *s = env->data;
	char *dotconfig = xasprintf("%s/config", env->kernel_entry);
	char *log = xasprintf("%s/logs/prepare-%s.log", s->dir, workload);
	int r = kbuild_prepare_dir(&s->cfg, env->kernel_tree, dotconfig, log, dir);

	free(dotconfig);
	free(log);
	return r;
}

int session_workloads_json(struct session *s, const struct strvec *wl, long runs,
			   const struct kbuild_result *res, json_t *wls, int *wruns)
{
	struct session_opts *o = s->o;
	char *ktree = session_kernel_tree(res);
	struct workload_run_env env = { .kernel_tree = ktree, .kernel_entry = res->entry_dir,
					.prepare_build_dir = prepare_build_dir, .data = s };
	int r = LAB_OK;

	for (size_t i = 0; i < wl->n && !r; i++) {
		const struct workload_cfg *w = config_workload(&s->cfg, wl->v[i]);
		if (!w || !w->def) {
			r = user_error("run: '%s' is not a workload of %s", wl->v[i], s->cfg.path);
			break;
		}
		wruns[i] = (int)(o->runs || !w->runs ? runs : w->runs);
		if (o->until_decided && w->runs && w->runs < runs)
			wruns[i] = (int)w->runs;
		struct workload_run_setup setup = { STRVEC_INIT, STRVEC_INIT };
		struct workload_section sec = { w->name, &w->keys, &w->values };

		r = w->def->prepare_run ? w->def->prepare_run(w->def, &sec, &env, &setup) : LAB_OK;
		if (!r) {
			json_t *wj = workload_json(w, &s->topo, !o->no_counters, &setup);
			json_object_set_new(wj, "runs", json_integer(wruns[i]));
			json_array_append_new(wls, wj);
		}
		strvec_clear(&setup.set);
		strvec_clear(&setup.shares);
	}
	free(ktree);
	return r;
}
