// SPDX-License-Identifier: GPL-2.0
/*
 * What the coherence model measured for one answer line (report_coh.h):
 * the report's "coherence" member, window by window, matched to a primary
 * metric, so the answer can say "no change in instructions; cache-line
 * transfers -0.89 per yield (model)" where the guest's clock cannot see
 * the line move. The member is untrusted: anything of the wrong type, a
 * window without both kernels or a change that is not a number reads as
 * "no figures".
 */
#include "report_coh.h"
#include "report_view.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The "coherence.workloads[]" entry of @workload that has windows; NULL: none. */
static const json_t *entry_of(const json_t *report, const char *workload)
{
	const json_t *c = json_object_get(report, "coherence"), *w;
	size_t i;

	if (!json_is_object(c) || json_object_get(c, "unavailable"))
		return NULL;
	json_array_foreach(json_object_get(c, "workloads"), i, w) {
		const char *name = json_string_value(json_object_get(w, "workload"));

		if (name && !strcmp(name, workload) && json_is_array(json_object_get(w, "windows")))
			return w;
	}
	return NULL;
}

/*
 * The K of "..._<K>cpu..." in @metric (yield_pingpong's sweep point);
 * 0: none.
 */
static long cpus_of_metric(const char *metric)
{
	for (const char *p = strstr(metric, "cpu"); p; p = strstr(p + 1, "cpu")) {
		const char *d = p;

		while (d > metric && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d < p && d > metric && d[-1] == '_')
			return strtol(d, NULL, 10);
	}
	return 0;
}

/*
 * The "cpus" the coherence runs of @entry had: their own arguments when
 * [workload] coherence_params set them ("args": "--cpus=2"), else the
 * workload's parameter; NULL: none.
 */
static const char *cpus_of_runs(const struct report_view *v, const json_t *entry,
				const char *workload)
{
	const struct sdoc_workload *w = report_view_workload(v, workload);
	const json_t *a;
	size_t i;

	json_array_foreach(json_object_get(entry, "args"), i, a) {
		const char *arg = json_string_value(a);

		if (arg && !strncmp(arg, "--cpus=", 7))
			return arg + 7;
	}
	return w ? json_string_value(json_object_get(w->params, "cpus")) : NULL;
}

/*
 * Which window (1, 2, ...) measured @metric: for a workload that sweeps
 * "cpus = 1,2" (a window per CPU count, in the order written:
 * docs/attribution.md) the one of the metric's K, none when the runs did
 * not have K; else the only one. 0: not known.
 */
static long window_of(const char *cpus, const char *metric, size_t nwin)
{
	long k = cpus_of_metric(metric), idx = 1;

	if (!cpus || k <= 0)
		return nwin == 1;
	for (const char *p = cpus; *p; idx++) {
		char *end;
		long c = strtol(p, &end, 10);

		if (end == p)
			return 0;
		if (c == k)
			return (size_t)idx <= nwin ? idx : 0;
		p = end + strspn(end, ", ");
	}
	return 0;
}

int report_coh_answer(const struct report_view *v, const char *workload, const char *metric,
		      struct coh_answer *out)
{
	const json_t *e = workload && metric ? entry_of(v->json, workload) : NULL;
	const json_t *wins = json_object_get(e, "windows"), *win;
	const struct sdoc_workload *w;
	long n;

	memset(out, 0, sizeof(*out));
	if (!e || !(n = window_of(cpus_of_runs(v, e, workload), metric, json_array_size(wins))))
		return 0;
	win = json_array_get(wins, (size_t)n - 1);
	if (num(win, "window") != (double)n || !json_is_object(json_object_get(win, "patched")))
		return 0;
	out->window = n;
	out->change = num(win, "change");
	out->spread = fmax(num(json_object_get(win, "baseline"), "spread"),
			   num(json_object_get(win, "patched"), "spread"));
	out->beyond = json_is_true(json_object_get(win, "beyond_spread"));
	if (!isfinite(out->change) || !isfinite(out->spread))
		return 0;
	out->counts = out->beyond && fabs(out->change) >= COH_ANSWER_MIN_CHANGE;
	w = report_view_workload(v, workload);
	out->unit = "unit";
	if (w && w->type && !strcmp(w->type, "yield_pingpong"))
		out->unit = "yield";
	else if (w && w->type && !strcmp(w->type, "coh_calib"))
		out->unit = "add";
	out->present = 1;
	return 1;
}
