// SPDX-License-Identifier: GPL-2.0
/*
 * run --attribute: once the verdicts are in, a few attribution runs per
 * kernel for each workload whose primary changed (or every workload), and
 * the report's "attribution" member: per workload and measured phase, the
 * kernel functions whose instructions per unit moved (lab/attr/attr.h,
 * docs/attribution.md).
 *
 * The attribution runs are not measurement runs: they run after the plan,
 * in their own folders (attribution/WORKLOAD/KERNEL-N), with QEMU's
 * attribution plugin loaded, and nothing of them enters runs/ or the
 * analysis. The verdicts, intervals and run records of a session are
 * byte for byte those it would have without --attribute.
 */
#include "session_stages.h"
#include "attr.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_job.h"
#include "interrupt.h"
#include "lab_paths.h"
#include "xjson.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Runs per kernel: two give each function's spread between boots, the table's noise. */
#define ATTR_RUNS_PER_KERNEL	2
/* Rows per table in the report. */
#define ATTR_REPORT_TOP		12

static const char *const attr_cannot_see =
	"instructions only: cache misses, cache-line bouncing between CPUs, false sharing, "
	"memory latency and NUMA distance cost no instructions, so a change made of them "
	"moves nothing here although it does on hardware";

/* The plugin next to the program (make plugin), or $MGLRULAB_ATTR_PLUGIN. */
static char *plugin_path(void)
{
	const char *env = getenv("MGLRULAB_ATTR_PLUGIN");
	char *exe, *dir, *p;

	if (env && *env)
		return xstrdup(env);
	exe = lab_exe_path();
	if (!exe)
		return xstrdup("build/plugin/mglrulab-attr.so");
	dir = path_dirname(exe);
	p = path_join(dir, "build/plugin/mglrulab-attr.so");
	free(dir);
	free(exe);
	return p;
}

/* The report's primaries of workload @w: their verdicts and changes; 1 when one changed. */
static int primaries_of(const json_t *report, const char *w, json_t *out)
{
	const json_t *r;
	size_t i;
	int changed = 0;

	json_array_foreach(json_object_get(report, "results"), i, r) {
		const char *verdict = json_string_value(json_object_get(r, "verdict"));
		const json_t *cmp = json_object_get(r, "comparison");

		if (!json_is_true(json_object_get(r, "primary")) ||
		    strcmp(json_string_value(json_object_get(r, "workload")) ?: "", w))
			continue;
		changed |= verdict && (!strcmp(verdict, "regression") ||
				       !strcmp(verdict, "improvement"));
		json_array_append_new(out, xjson_pack("{s:o, s:o, s:o}",
			"metric", json_deep_copy(json_object_get(r, "metric")),
			"verdict", verdict ? json_string(verdict) : json_null(),
			"delta_pct", jnum(jget_num(cmp, "delta_pct"))));
	}
	return changed;
}

/* The measured phases run @dir's plugin wrote: attr.1, attr.2 ... */
static long windows_in(const char *dir)
{
	long n = 0;

	for (;;) {
		char name[32], *p;
		int there;

		snprintf(name, sizeof(name), "attr.%ld", n + 1);
		p = path_join(dir, name);
		there = is_regular_file(p);
		free(p);
		if (!there)
			return n;
		n++;
	}
}

/*
 * One attribution run of workload @w on kernel @k into @dir, unless a
 * finished one is there (a resumed session). 0, or -1 with why in @err.
 */
static int attr_run(struct session *s, const struct session_job *w, const char *image,
		    const char *plugin, const char *dir, double *seconds, struct strbuf *err)
{
	char *done = path_join(dir, "attribution.done");
	struct guest_run gr = { 0 };
	int r = -1;

	if (is_regular_file(done)) {
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
		.run_id = "attribution", .workload = w->type,
		.args = (const char *const *)w->args.v,
		.workload_timeout_s = s->topo.run_timeout_s, .extra_cmdline = cmdline,
		.shares = shares, .nr_shares = (int)w->nshares, .attr_plugin = plugin,
	};
	double t0 = now_monotonic();

	if (guest_lab_run(&s->lab, &s->topo, image, &job, dir, &gr))
		sb_addf(err, "%s: the run failed: %.200s", dir, gr.failure ? gr.failure : "?");
	else if (!windows_in(dir))
		sb_addf(err, "%s: the plugin wrote no window (attr.1)", dir);
	else if (write_file_atomic(done, "", 0))
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

/* The System.map the kernel cache keeps beside @image. */
static char *map_of(const char *image)
{
	char *dir = path_dirname(image), *map = path_join(dir, "System.map");

	free(dir);
	return map;
}

/* Workload @w: its runs on both kernels, then a table per measured phase. */
static json_t *attribute_workload(struct session *s, const struct session_job *w,
				  const char *plugin, const char *const name[2],
				  const char *const image[2], json_t *entry)
{
	char *dirs[2][ATTR_RUNS_PER_KERNEL] = { { 0 } };
	double seconds[2] = { 0, 0 };
	struct strbuf err = STRBUF_INIT;
	int r = 0;

	/* ABAB: a drift of the host shows as spread, not as a delta */
	for (int i = 0; i < ATTR_RUNS_PER_KERNEL && !r; i++)
		for (int k = 0; k < 2 && !r; k++) {
			char leaf[64];

			snprintf(leaf, sizeof(leaf), "%s-%d", k ? "patched" : "baseline", i + 1);
			dirs[k][i] = xasprintf("%s/attribution/%s/%s", s->dir, w->name, leaf);
			if (!lab_quiet)
				term_printf(stderr, "attribution: %s on %s, run %d of %d\n", w->name,
					    name[k], i + 1, ATTR_RUNS_PER_KERNEL);
			if (interrupted()) {
				sb_adds(&err, "interrupted");
				r = -1;
			} else {
				r = attr_run(s, w, image[k], plugin, dirs[k][i], &seconds[k], &err);
			}
		}
	json_object_set_new(entry, "seconds", xjson_pack("{s:o, s:o}", "baseline",
			    jnum(seconds[0]), "patched", jnum(seconds[1])));
	if (!r) {
		char *map[2] = { map_of(image[0]), map_of(image[1]) };
		struct attr_side side[2] = {
			{ (const char *const *)dirs[0], ATTR_RUNS_PER_KERNEL, map[0] },
			{ (const char *const *)dirs[1], ATTR_RUNS_PER_KERNEL, map[1] },
		};
		long nwin = windows_in(dirs[0][0]);
		json_t *tables = json_array();

		for (long win = 1; win <= nwin && !r; win++) {
			json_t *t = attr_compare_json(&side[0], &side[1], win, ATTR_REPORT_TOP, &err);

			if (t)
				json_array_append_new(tables, t);
			else
				r = -1;
		}
		json_object_set_new(entry, "windows", tables);
		free(map[0]);
		free(map[1]);
	}
	if (r) {
		json_object_set_new(entry, "error", json_string_lossy(sb_str(&err)));
		lab_error("attribution of %s: %s", w->name, sb_str(&err));
	}
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < ATTR_RUNS_PER_KERNEL; i++)
			free(dirs[k][i]);
	sb_release(&err);
	return entry;
}

/* Why this session cannot attribute, or NULL. */
static const char *unavailable(const struct session *s, const char *plugin)
{
	if (s->jobs.nk != 2)
		return "attribution compares two kernels: run --ab or --aa";
	if (s->lab.accel != ACCEL_TCG || s->topo.icount_shift < 0)
		return "attribution counts the guest's instructions under icount: this session's "
		       "guest ran under KVM or on the host's clock (use a guest with icount, "
		       "guests/tiny-icount.conf)";
	if (!is_regular_file(plugin))
		return "the attribution plugin is not built (make plugin)";
	for (size_t k = 0; k < 2; k++) {
		char *map;
		int ok;

		if (!s->jobs.k[k].bzimage)
			return "a kernel's image is not recorded";
		map = map_of(s->jobs.k[k].bzimage);
		ok = is_regular_file(map);
		free(map);
		if (!ok)
			return "a kernel's System.map is not in the kernel cache (a kernel cached "
			       "before the lab kept it: `mglrulab kernel build --rebuild`)";
	}
	return NULL;
}

json_t *session_attribute(struct session *s, const json_t *report)
{
	int which = s->o->attribute >= 0 ? s->o->attribute : s->cfg.run.attribute;
	char *plugin;
	const char *why;
	json_t *out;

	if (which == RUN_ATTRIBUTE_OFF)
		return NULL;
	plugin = plugin_path();
	why = unavailable(s, plugin);
	out = xjson_pack("{s:s, s:s, s:i, s:s}", "method",
			 "QEMU TCG plugin, instructions per translated block (docs/attribution.md)",
			 "which", which == RUN_ATTRIBUTE_ALL ? "all" : "changed",
			 "runs_per_kernel", ATTR_RUNS_PER_KERNEL, "cannot_see", attr_cannot_see);
	if (why) {
		json_object_set_new(out, "unavailable", json_string(why));
		term_printf(stderr, "attribution: not done: %s\n", why);
		free(plugin);
		return out;
	}
	const char *name[2] = { s->jobs.k[0].name, s->jobs.k[1].name };
	const char *image[2] = { s->jobs.k[0].bzimage, s->jobs.k[1].bzimage };
	json_t *wls = json_array();

	for (size_t i = 0; i < s->jobs.nw && !interrupted(); i++) {
		const struct session_job *w = &s->jobs.w[i];
		json_t *prim = json_array();
		int changed = primaries_of(report, w->name, prim);
		json_t *entry = xjson_pack("{s:s, s:o}", "workload", w->name, "primaries", prim);

		if (!changed && which != RUN_ATTRIBUTE_ALL) {
			json_object_set_new(entry, "skipped",
					    json_string("no primary changed (--attribute=all runs it)"));
			json_array_append_new(wls, entry);
			continue;
		}
		json_array_append_new(wls, attribute_workload(s, w, plugin, name, image, entry));
	}
	json_object_set_new(out, "kernels", xjson_pack("[s, s]", name[0], name[1]));
	json_object_set_new(out, "workloads", wls);
	free(plugin);
	return out;
}
