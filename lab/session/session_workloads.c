// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of a new session as session.json declares them: their
 * parameters and the guest job's arguments, the metrics expected for this
 * guest, the primaries, and whatever a workload's prepare_run hook
 * (lab/workload/workload_def.h) set up on the host for its runs.
 */
#include "session_priv.h"
#include "kbuild_prep.h"
#include "workload_def.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Room for one more metric at the end of @a (grown by doubling from 8); the element. */
static struct sdoc_metric *metric_add(struct sdoc_array *a)
{
	/* a power of two from 8 up: the array is full exactly then */
	if (a->n >= 8 && !(a->n & (a->n - 1)))
		a->v = xrealloc(a->v, 2 * a->n * sizeof(struct sdoc_metric));
	else if (!a->v)
		a->v = xcalloc(8, sizeof(struct sdoc_metric));
	return &((struct sdoc_metric *)a->v)[a->n++];
}

/*
 * The metrics[] rows of a workload for this guest, their names @d's:
 * "%d" expands over CPU counts or nodes.
 */
static struct sdoc_array metric_rows(struct session_doc *d, const struct workload_cfg *w,
				     const struct guest_topology *t)
{
	struct sdoc_array a = { .present = 1 };
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
			struct sdoc_metric *row = metric_add(&a);

			/* the threshold and help are a report's (SCHEMA.md): absent here */
			*row = (struct sdoc_metric){ .name = session_doc_keep(d, name), .unit = m->unit,
				.better = m->better == BETTER_HIGHER ? "higher" : "lower",
				.primary = -1, .threshold = NAN };
			for (size_t p = 0; p < prim.n; p++)
				if (metric_pattern_match(prim.v[p], name))
					row->primary = 1;
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
 * (its own) with those parameters replaced or added, so a resumed session
 * runs what it started with (a new reference). NULL when the section has
 * none.
 */
static json_t *coherence_args(const struct workload_cfg *w, const json_t *args)
{
	json_t *out, *a;
	size_t i;

	if (!w->coh_keys.n)
		return NULL;
	out = json_array();
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
	return out;
}

/*
 * Workload @w's row @row, what it points to @d's. @setup: what the
 * workload's prepare_run hook decided for its runs.
 */
static void workload_row(struct session_doc *d, const struct workload_cfg *w,
			 const struct guest_topology *t, int counters,
			 const struct workload_run_setup *setup, struct sdoc_workload *row)
{
	json_t *params = json_object(), *args = json_array();

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
	*row = (struct sdoc_workload){
		.name = session_doc_keep(d, w->name), .type = w->def->name,
		.params = session_doc_keep_json(d, params), .metrics = metric_rows(d, w, t),
		.primary = session_doc_keep_json(d, primaries_json(w)),
		.coherence_args = session_doc_keep_json(d, coherence_args(w, args)),
		.args = session_doc_keep_json(d, args),
		/* the band of this workload's metrics, where lab.conf sets one */
		.threshold = w->threshold >= 0 ? w->threshold : NAN,
		.runs = SDOC_NONE,
	};
	/* In session.json, so a resumed session shares the same folders. */
	if (setup->shares.n) {
		struct sdoc_share *sh = xcalloc(setup->shares.n / 2 + 1, sizeof(*sh));

		for (size_t i = 0; i + 1 < setup->shares.n; i += 2)
			sh[i / 2] = (struct sdoc_share){ session_doc_keep(d, setup->shares.v[i]),
							 session_doc_keep(d, setup->shares.v[i + 1]) };
		row->shares = (struct sdoc_array){ sh, setup->shares.n / 2, 1 };
	}
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

int session_workloads_rows(struct session *s, const struct strvec *wl, long runs,
			   const struct kbuild_result *res, struct session_doc *d, int *wruns)
{
	struct session_opts *o = s->o;
	char *ktree = session_kernel_tree(res);
	struct workload_run_env env = { .kernel_tree = ktree, .kernel_entry = res->entry_dir,
					.prepare_build_dir = prepare_build_dir, .data = s };
	struct sdoc_workload *rows = xcalloc(wl->n + 1, sizeof(*rows));
	int r = LAB_OK;

	/* what session_doc_release() frees: the rows filled so far */
	d->workloads = (struct sdoc_array){ rows, 0, 1 };
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
			workload_row(d, w, &s->topo, !o->no_counters, &setup, &rows[i]);
			rows[i].runs = wruns[i];
			d->workloads.n = i + 1;
		}
		strvec_clear(&setup.set);
		strvec_clear(&setup.shares);
	}
	free(ktree);
	return r;
}
