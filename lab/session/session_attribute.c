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
#include "session_priv.h"
#include "attr.h"
#include "escape.h"
#include "guest_job.h"
#include "interrupt.h"
#include "report_result.h"
#include "report_view.h"
#include "workload_def.h"
#include "xjson.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Runs per kernel: two give each function's spread between boots, the
 * table's noise, at the first look. When that names a function, every
 * kernel gets runs up to ATTR_CONFIRM_RUNS and the table is made again
 * from all of them: the one-CPU ping-pong's mode is the boot's, so two
 * boots of each kernel all in one mode, opposite between the kernels,
 * show its functions moving past a noise that never saw the jump (an A/A
 * named avg_vruntime at 17.0 against a threshold of 11.5 in CI,
 * 2026-12-05). bench/attr-noise-sim: such namings in 12 % of A/A tables
 * at two runs, 0.1 % after confirming with five, at 2.4 runs per kernel
 * on average; a change that is named costs five.
 */
#define ATTR_RUNS_PER_KERNEL	2
#define ATTR_CONFIRM_RUNS	5
/* A workload's primaries matched to its phases (yield_pingpong: one per CPU count). */
#define MAX_PRIMARIES		16
/* Rows per table in the report. */
#define ATTR_REPORT_TOP		12

static const char *const attr_cannot_see =
	"instructions only: cache misses, cache-line bouncing between CPUs, false sharing, "
	"memory latency and NUMA distance cost no instructions, so a change made of them "
	"moves nothing here although it does on hardware";

static const struct plugin_kind attr_kind = {
	.env = "MGLRULAB_ATTR_PLUGIN",
	.so = "build/plugin/mglrulab-attr.so",
	.not_one_or_two = "attribution profiles one kernel or compares two",
	.no_icount = "attribution counts the guest's instructions under icount: this session's "
		     "guest ran under KVM or on the host's clock (use a guest with icount, "
		     "guests/tiny-icount.conf)",
	.not_built = "the attribution plugin is not built (make plugin)",
};

/*
 * Under icount the guest's clock is its instructions, so a phase's
 * instructions per unit predict its primary: a time per unit moves with
 * them, a rate the other way. NaN for a primary that is neither (entries
 * scanned, passes).
 */
static double predicted_pct(const struct result_record *r, double base, double patched)
{
	static const char *const times[] = { "ns", "us", "ms", "s" };
	const char *unit = r->unit ? r->unit : "";
	size_t len = strlen(unit);

	if (!(base > 0 && patched > 0) || !r->better)
		return NAN;
	if (!strcmp(r->better, "higher") && len > 2 && !strcmp(unit + len - 2, "/s"))
		return 100.0 * (base / patched - 1.0);
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (!strcmp(r->better, "lower") && !strcmp(unit, times[i]))
			return 100.0 * (patched / base - 1.0);
	return NAN;
}

/*
 * Does the table account for the measured change? Phase k goes with the
 * k-th primary when there are as many of each (yield_pingpong's one
 * primary per CPU count, a phase per CPU count), or a lone phase with the
 * first primary. The tables are read as the report reads them
 * (report_attr_window_decode()): 0, or -1 with why in @err.
 */
static int add_accounts(json_t *tables, const struct result_record *const *prim, size_t nprim,
			struct strbuf *err)
{
	size_t nwin = json_array_size(tables);

	for (size_t k = 0; k < nwin; k++) {
		json_t *t = json_array_get(tables, k);
		const struct result_record *r = nwin == nprim ? prim[k] :
						nwin == 1 && nprim ? prim[0] : NULL;
		struct view_attr_window w;

		if (!r)
			continue;
		if (report_attr_window_decode(t, "attribution table", &w, err))
			return -1;
		/*
		 * From the kernel's instructions too: a window also holds user
		 * space work the primary may not time (aging touches its pages
		 * between generations, yield_pingpong runs a reference loop).
		 */
		json_object_set_new(t, "accounts", xjson_pack("{s:o, s:o, s:o, s:o}",
			"metric", json_string_lossy(r->metric),
			"measured_pct", jnum(r->change.delta_pct),
			"predicted_pct", jnum(predicted_pct(r, w.base_per_unit, w.patched_per_unit)),
			"predicted_kernel_pct", jnum(predicted_pct(r, w.base_kernel,
								   w.patched_kernel))));
		report_attr_window_release(&w);
	}
	return 0;
}

/* Runs @from .. @to - 1 of workload @w on each of the @nk kernels, ABAB. */
static int attribute_runs(struct session *s, const struct session_job *w, const char *plugin,
			  size_t nk, const char *const name[2], const char *const image[2],
			  int from, int to, char *dirs[2][ATTR_CONFIRM_RUNS], double seconds[2],
			  struct strbuf *err)
{
	int r = 0;

	/* ABAB: a drift of the host shows as spread, not as a delta */
	for (int i = from; i < to && !r; i++)
		for (size_t k = 0; k < nk && !r; k++) {
			char leaf[64];

			snprintf(leaf, sizeof(leaf), "%s-%d", k ? "patched" : "baseline", i + 1);
			dirs[k][i] = xasprintf("%s/attribution/%s/%s", s->dir, w->name, leaf);
			if (!lab_quiet)
				term_printf(stderr, "attribution: %s on %s, run %d of %d%s\n",
					    w->name, name[k], i + 1, to,
					    from ? " (confirming)" : "");
			if (interrupted()) {
				sb_adds(err, "interrupted");
				r = -1;
			} else {
				r = session_plugin_run(s, w, image[k], &(struct plugin_run){ plugin, "attribution", "attr" },
						       dirs[k][i], &seconds[k], err);
			}
		}
	return r;
}

/*
 * A table per measured phase from the first @n runs of each kernel, or
 * NULL with why in @err; *@named counts the functions past the threshold.
 */
static json_t *attribute_tables(size_t nk, char *dirs[2][ATTR_CONFIRM_RUNS], int n,
				const char *const image[2], long *named, struct strbuf *err)
{
	char *map[2] = { session_system_map(image[0]), nk == 2 ? session_system_map(image[1]) : NULL };
	struct attr_side side[2] = {
		{ (const char *const *)dirs[0], (size_t)n, map[0] },
		{ (const char *const *)dirs[1], (size_t)n, map[1] },
	};
	long nwin = session_plugin_windows(dirs[0][0], "attr");
	json_t *tables = json_array();

	*named = 0;
	for (long win = 1; win <= nwin; win++) {
		json_t *t = nk == 2 ? attr_compare_json(&side[0], &side[1], win, ATTR_REPORT_TOP, err) :
				      attr_profile_json(&side[0], win, ATTR_REPORT_TOP, err);
		struct view_attr_window w;

		/* a profile names no function: only a comparison is confirmed */
		if (t && nk == 2) {
			if (report_attr_window_decode(t, "attribution table", &w, err)) {
				json_decref(t);
				t = NULL;
			} else {
				/* NaN: one run per kernel, no noise to be beyond */
				*named += isfinite(w.beyond_noise) ? (long)w.beyond_noise : 0;
				report_attr_window_release(&w);
			}
		}
		if (!t) {
			json_decref(tables);
			tables = NULL;
			break;
		}
		json_array_append_new(tables, t);
	}
	free(map[0]);
	free(map[1]);
	return tables;
}

/*
 * Workload @w: its runs on each of the @nk kernels (ABAB with two), then a
 * table per measured phase: the functions that moved between two kernels
 * (confirmed by more runs when the first look names one), or one kernel's
 * cost per function (mglrulab profile).
 */
static json_t *attribute_workload(struct session *s, const struct session_job *w,
				  const char *plugin, size_t nk, const char *const name[2],
				  const char *const image[2], const struct result_record *const *prim,
				  size_t nprim, json_t *entry)
{
	char *dirs[2][ATTR_CONFIRM_RUNS] = { { 0 } };
	double seconds[2] = { 0, 0 };
	struct strbuf err = STRBUF_INIT;
	json_t *tables = NULL;
	int n = ATTR_RUNS_PER_KERNEL;
	long named = 0;
	int r = attribute_runs(s, w, plugin, nk, name, image, 0, n, dirs, seconds, &err);

	if (!r && !(tables = attribute_tables(nk, dirs, n, image, &named, &err)))
		r = -1;
	if (!r && nk == 2 && named) {
		json_decref(tables);
		tables = NULL;
		r = attribute_runs(s, w, plugin, nk, name, image, n, ATTR_CONFIRM_RUNS, dirs,
				   seconds, &err);
		n = ATTR_CONFIRM_RUNS;
		if (!r && !(tables = attribute_tables(nk, dirs, n, image, &named, &err)))
			r = -1;
	}
	json_object_set_new(entry, "runs_per_kernel", json_integer(n));
	json_object_set_new(entry, "seconds", nk == 2 ?
			    xjson_pack("{s:o, s:o}", "baseline", jnum(seconds[0]), "patched",
				       jnum(seconds[1])) :
			    xjson_pack("{s:o}", "baseline", jnum(seconds[0])));
	/* a table or an error, never both: the reader sees the whole answer or why not */
	if (!r && nk == 2 && add_accounts(tables, prim, nprim, &err)) {
		json_decref(tables);
		tables = NULL;
		r = -1;
	}
	if (!r && nk == 2) {
		json_object_set_new(entry, "windows", tables);
	} else if (!r) {
		json_object_set_new(entry, "profiles", tables);
	} else {
		json_object_set_new(entry, "error", json_string_lossy(sb_str(&err)));
		lab_error("attribution of %s: %s", w->name, sb_str(&err));
	}
	for (size_t k = 0; k < nk; k++)
		for (int i = 0; i < ATTR_CONFIRM_RUNS; i++)
			free(dirs[k][i]);
	sb_release(&err);
	return entry;
}

int session_attribution_required(const struct session *s)
{
	return s->o->attribution_required ||
	       s->doc.design.profile == 1;
}

json_t *session_attribute(struct session *s, const struct report_view *v)
{
	/* design.attribute: a resumed `run --attribute` or profile */
	int which = session_plugin_which(s->o->attribute, s->doc.design.attribute,
					 s->cfg.run.attribute);
	char *plugin;
	const char *why;
	json_t *out;

	if (which == RUN_ATTRIBUTE_OFF)
		return NULL;
	plugin = session_plugin_path(&attr_kind);
	why = session_plugin_unavailable(s, &attr_kind, plugin);
	out = xjson_pack("{s:s, s:s, s:i, s:i, s:s}", "method",
			 "QEMU TCG plugin, instructions per translated block (docs/attribution.md)",
			 "which", which == RUN_ATTRIBUTE_ALL ? "all" : "changed",
			 "runs_per_kernel", ATTR_RUNS_PER_KERNEL,
			 "confirm_runs_per_kernel", ATTR_CONFIRM_RUNS, "cannot_see", attr_cannot_see);
	json_t *names = json_array();
	for (size_t k = 0; k < s->jobs.nk && k < 2; k++)
		json_array_append_new(names, json_string_lossy(s->jobs.k[k].name));
	json_object_set_new(out, "kernels", names);
	if (why) {
		json_object_set_new(out, "unavailable", json_string(why));
		term_printf(stderr, "attribution: not done: %s\n", why);
		free(plugin);
		return out;
	}
	size_t nk = s->jobs.nk;
	const char *name[2] = { s->jobs.k[0].name, nk == 2 ? s->jobs.k[1].name : NULL };
	const char *image[2] = { s->jobs.k[0].bzimage, nk == 2 ? s->jobs.k[1].bzimage : NULL };
	json_t *wls = json_array();
	size_t nres = v->nresults;
	const struct result_record *res = v->results;

	for (size_t i = 0; i < s->jobs.nw; i++) {
		const struct session_job *w = &s->jobs.w[i];
		json_t *prim = json_array();
		const struct result_record *mine[MAX_PRIMARIES];
		size_t nmine;
		int changed = session_primaries_of(res, nres, w->name, prim, mine, MAX_PRIMARIES, &nmine);
		json_t *entry = xjson_pack("{s:s, s:o}", "workload", w->name, "primaries", prim);

		const struct workload_def *def = workload_find(w->type);
		const char *skip = NULL;

		/* every workload gets its entry: a profile must see what it lacks */
		if (interrupted()) {
			json_object_set_new(entry, "error", json_string("interrupted before its "
								       "attribution runs"));
			json_array_append_new(wls, entry);
			continue;
		}
		if (!def || !def->attr_units)
			skip = "its program marks no operations for the plugin, so it has no "
			       "instructions per operation to compare (workloads/README.md)";
		/* one kernel has no verdicts: its profile is the point */
		else if (!changed && which != RUN_ATTRIBUTE_ALL && nk == 2)
			skip = "no primary changed (--attribute=all runs it)";
		if (skip) {
			json_object_set_new(entry, "skipped", json_string(skip));
			json_array_append_new(wls, entry);
			continue;
		}
		json_array_append_new(wls, attribute_workload(s, w, plugin, nk, name, image, mine,
								  nmine, entry));
	}
	json_object_set_new(out, "workloads", wls);
	free(plugin);
	return out;
}
