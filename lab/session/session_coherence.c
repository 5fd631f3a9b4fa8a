// SPDX-License-Identifier: GPL-2.0
/*
 * run --coherence: once the verdicts are in, two coherence runs per kernel
 * for each workload whose primary changed (or every workload), and the
 * report's "coherence" member: per workload and measured window, the
 * modelled cache-line transfers between vCPUs per unit, their change, the
 * functions and lines that moved, and their modelled cost
 * (docs/coherence.md).
 *
 * As attribution runs (session_attribute.c), coherence runs are not
 * measurement runs: they run after the plan, in their own folders
 * (coherence/WORKLOAD/KERNEL-N) with QEMU's coherence plugin loaded, and
 * nothing of them enters runs/, the analysis, a verdict or the exit status.
 */
#include "session_priv.h"
#include "attr.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_job.h"
#include "interrupt.h"
#include "report_result.h"
#include "report_view.h"
#include "workload_def.h"
#include "xjson.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs per kernel: the spread between boots is the change's yardstick. */
#define COH_RUNS_PER_KERNEL	2
/* Rows per table in the report. */
#define COH_REPORT_TOP		8
/* Runs of one coherence run at most, while its workload says a window started skewed. */
#define COH_TRIES		3

static const char *const coh_is_model =
	"a model: transfers are counted as if the vCPUs ran side by side (lockstep), "
	"not measured, and their cost is a latency model's; neither enters a verdict";

static const struct plugin_kind coh_kind = {
	.env = "MGLRULAB_COH_PLUGIN",
	.so = "build/plugin/mglrulab-coh.so",
	.not_one_or_two = "coherence profiles one kernel or compares two",
	.no_icount = "the coherence model orders the vCPUs' accesses by their instructions under "
		     "icount: this session's guest ran under KVM or on the host's clock (use a "
		     "guest with icount, guests/tiny-icount.conf)",
	.not_built = "the coherence plugin is not built (make plugin)",
};

/*
 * One coherence run into @dir, redone while the workload says one of its
 * windows was skewed: one thread waited, or another task ran on its CPU,
 * while the other thread worked. The model counts that as the thread's
 * time, so in lockstep the two threads' work does not overlap (coh_calib:
 * 0.0007-0.73 transfers per add instead of 0.99, docs/coherence.md,
 * "Calibration"). Such a window measures the guest's scheduling and where
 * round-robin slices ended, not the kernel; a run is not kept for it.
 * *@redone counts the runs redone.
 */
static int coh_run(struct session *s, const struct session_job *w, const char *plugin,
		   const char *image, const char *dir, double *seconds, int *redone,
		   struct strbuf *err)
{
	for (int t = 1;; t++) {
		char *why, *done;
		int r = session_plugin_run(s, w, image,
					   &(struct plugin_run){ plugin, "coherence", "coh" }, dir,
					   seconds, err);

		if (r || !(why = session_plugin_skewed(dir)))
			return r;
		if (t == COH_TRIES) {
			sb_addf(err, "%s: %s, in each of %d runs", dir, why, t);
			free(why);
			return -1;
		}
		if (!lab_quiet)
			term_printf(stderr, "coherence: %s: %s: run again\n", dir, why);
		free(why);
		(*redone)++;
		/* not a finished run for --resume: run it afresh */
		done = path_join(dir, "coherence.done");
		if (unlink(done) && errno != ENOENT) {
			sb_addf(err, "%s: %s", done, strerror(errno));
			free(done);
			return -1;
		}
		free(done);
	}
}

/* Workload @w: its runs on each kernel, ABAB, then a table per window, into @entry. */
static void coh_workload(struct session *s, const struct session_job *w, const char *plugin,
			 size_t nk, const char *const image[2], const struct coh_model *m,
			 json_t *entry)
{
	char *dirs[2][COH_RUNS_PER_KERNEL] = { { 0 } };
	char *map[2] = { session_system_map(image[0]), nk == 2 ? session_system_map(image[1]) : NULL };
	double seconds[2] = { 0, 0 };
	struct strbuf err = STRBUF_INIT;
	json_t *tables = json_array();
	int r = 0, redone = 0;
	/* [workload] coherence_params: its coherence runs' own arguments */
	struct session_job cw = *w;

	if (w->coh_args.n) {
		cw.args = w->coh_args;
		json_t *a = json_array();

		for (size_t i = 0; i < w->coh_args.n; i++)
			json_array_append_new(a, json_string_lossy(w->coh_args.v[i]));
		json_object_set_new(entry, "args", a);
	}

	for (int i = 0; i < COH_RUNS_PER_KERNEL && !r; i++)
		for (size_t k = 0; k < nk && !r; k++) {
			dirs[k][i] = xasprintf("%s/coherence/%s/%s-%d", s->dir, w->name,
					       k ? "patched" : "baseline", i + 1);
			if (!lab_quiet)
				term_printf(stderr, "coherence: %s on %s, run %d of %d\n", w->name,
					    s->jobs.k[k].name, i + 1, COH_RUNS_PER_KERNEL);
			if (interrupted()) {
				sb_adds(&err, "interrupted");
				r = -1;
			} else {
				r = coh_run(s, &cw, plugin, image[k], dirs[k][i], &seconds[k],
					    &redone, &err);
			}
		}
	struct attr_side side[2] = {
		{ (const char *const *)dirs[0], COH_RUNS_PER_KERNEL, map[0] },
		{ (const char *const *)dirs[1], COH_RUNS_PER_KERNEL, map[1] },
	};
	long nwin = r ? 0 : session_plugin_windows(dirs[0][0], "coh");

	for (long win = 1; win <= nwin && !r; win++) {
		json_t *t = coh_compare_json(&side[0], nk == 2 ? &side[1] : NULL, win,
					     COH_REPORT_TOP, m, &err);

		if (!t)
			r = -1;
		else
			json_array_append_new(tables, t);
	}
	json_object_set_new(entry, "runs_per_kernel", json_integer(COH_RUNS_PER_KERNEL));
	json_object_set_new(entry, "redone", json_integer(redone));
	json_object_set_new(entry, "seconds", nk == 2 ?
			    xjson_pack("{s:o, s:o}", "baseline", jnum(seconds[0]), "patched",
				       jnum(seconds[1])) :
			    xjson_pack("{s:o}", "baseline", jnum(seconds[0])));
	if (!r) {
		json_object_set_new(entry, "windows", tables);
	} else {
		json_decref(tables);
		json_object_set_new(entry, "error", json_string_lossy(sb_str(&err)));
		lab_error("coherence of %s: %s", w->name, sb_str(&err));
	}
	for (size_t k = 0; k < 2; k++) {
		free(map[k]);
		for (int i = 0; i < COH_RUNS_PER_KERNEL; i++)
			free(dirs[k][i]);
	}
	sb_release(&err);
}

/*
 * lab.conf's [run] coherence = NAME ...: the workloads it names, when
 * neither --coherence nor the session's start said otherwise; NULL: none.
 */
static const struct strvec *coherence_listed(const struct session *s)
{
	if (s->o->coherence >= 0 ||
	    config_attribute_parse(s->doc.design.coherence) >= 0 ||
	    !s->cfg.run.coherence_workloads.n)
		return NULL;
	return &s->cfg.run.coherence_workloads;
}

static int listed_in(const struct strvec *l, const char *name)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (!strcmp(l->v[i], name))
			return 1;
	return 0;
}

json_t *session_coherence(struct session *s, const struct report_view *v)
{
	int which = session_plugin_which(s->o->coherence, s->doc.design.coherence,
					 s->cfg.run.coherence);
	const struct strvec *listed = coherence_listed(s);
	struct coh_model m = { (double)s->cfg.run.coherence_ns_node,
			       (double)s->cfg.run.coherence_ns_remote };
	char *plugin;
	const char *why;
	json_t *out;

	if (which == RUN_ATTRIBUTE_OFF)
		return NULL;
	plugin = session_plugin_path(&coh_kind);
	why = session_plugin_unavailable(s, &coh_kind, plugin);
	out = xjson_pack("{s:s, s:s, s:i, s:s, s:{s:f, s:f, s:s}}", "method",
			 "QEMU TCG plugin, MESI-style transfers between vCPUs in lockstep "
			 "(docs/coherence.md)",
			 "which", listed ? "listed" : which == RUN_ATTRIBUTE_ALL ? "all" : "changed",
			 "runs_per_kernel", COH_RUNS_PER_KERNEL, "model_note", coh_is_model,
			 "latency", "node_ns", m.ns_node, "remote_ns", m.ns_remote,
			 "source", "[run] coherence_ns_node, coherence_ns_remote "
			 "(defaults and their sources: docs/coherence.md)");
	json_t *names = json_array();
	for (size_t k = 0; k < s->jobs.nk && k < 2; k++)
		json_array_append_new(names, json_string_lossy(s->jobs.k[k].name));
	json_object_set_new(out, "kernels", names);
	if (why) {
		json_object_set_new(out, "unavailable", json_string(why));
		term_printf(stderr, "coherence: not done: %s\n", why);
		free(plugin);
		return out;
	}
	size_t nk = s->jobs.nk;
	const char *image[2] = { s->jobs.k[0].bzimage, nk == 2 ? s->jobs.k[1].bzimage : NULL };
	json_t *wls = json_array();
	size_t nres = v->nresults;
	const struct result_record *res = v->results;

	for (size_t i = 0; i < s->jobs.nw; i++) {
		const struct session_job *w = &s->jobs.w[i];
		json_t *prim = json_array();
		int changed = session_primaries_of(res, nres, w->name, prim, NULL, 0, NULL);
		json_t *entry = xjson_pack("{s:s, s:o}", "workload", w->name, "primaries", prim);
		const struct workload_def *def = workload_find(w->type);
		const char *skip = NULL;

		if (interrupted())
			skip = "interrupted before its coherence runs";
		else if (!def || !def->attr_units)
			skip = "its program marks no operations for the plugin, so it has no "
			       "transfers per operation (workloads/README.md)";
		else if (listed && !listed_in(listed, w->name))
			skip = "not one of the workloads [run] coherence names";
		else if (!changed && which != RUN_ATTRIBUTE_ALL && nk == 2)
			skip = "no primary changed (--coherence=all runs it)";
		if (skip)
			json_object_set_new(entry, "skipped", json_string(skip));
		else
			coh_workload(s, w, plugin, nk, image, &m, entry);
		json_array_append_new(wls, entry);
	}
	json_object_set_new(out, "workloads", wls);
	free(plugin);
	return out;
}
