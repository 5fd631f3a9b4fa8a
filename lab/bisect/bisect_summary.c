// SPDX-License-Identifier: GPL-2.0
/* bisect --json: the bisection's summary for scripts (bisect.h). */
#include "bisect.h"
#include "fsutil.h"
#include "report.h"
#include "report_gate.h"
#include "xjson.h"

#include <stdlib.h>

#define BISECT_SUMMARY_SCHEMA "mglrulab-bisect-summary/1"

static json_t *culprit_json(const struct bisect_head *h, const struct bisect_end *end)
{
	struct bisect_patch p;

	if (end->culprit < 1)
		return json_null();
	bisect_patch_decode(h, end->culprit, &p);
	return xjson_pack("{s:I, s:s?, s:s?}", "position", (json_int_t)end->culprit,
			  "subject", p.subject, "message_id", p.message_id);
}

/* The whole series' verdicts: the primaries (all of them when none is). */
static json_t *primaries_json(const struct bisect_head *h)
{
	struct step_results rs = { 0 };
	json_t *out = json_array();
	int any_primary = 0;

	step_results_decode(h->tracked, &rs);
	for (size_t i = 0; i < rs.n; i++)
		any_primary |= rs.v[i].primary;
	for (size_t i = 0; i < rs.n; i++) {
		const struct step_result *r = &rs.v[i];

		if (any_primary && !r->primary)
			continue;
		json_array_append_new(out, xjson_pack("{s:s, s:s, s:b, s:s, s:o, s:o, s:o}",
			"workload", r->workload, "metric", r->metric, "primary", r->primary,
			"verdict", r->verdict_id, "delta_pct", jnum(r->delta_pct),
			"ci_lo_pct", jnum(r->lo_pct), "ci_hi_pct", jnum(r->hi_pct)));
	}
	step_results_release(&rs);
	return out;
}

static json_t *steps_json(const struct bisect_head *h)
{
	json_t *out = json_array(), *s;
	size_t i;

	json_array_foreach(h->steps, i, s) {
		struct bisect_step st;
		char *report;

		bisect_step_decode(s, &st);
		report = st.session ? path_join(st.session, "report.json") : NULL;
		json_array_append_new(out, xjson_pack("{s:I, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?}",
			"step", (json_int_t)st.step, "purpose", st.purpose, "a", st.a, "b", st.b,
			"state", st.state, "session", st.session, "report", report));
		free(report);
	}
	return out;
}

void bisect_summary_json(const char *dir, const json_t *state, int status, struct strbuf *out)
{
	static const char *const names[3] = { "bisect.json", "bisect.txt", "bisect.html" };
	struct bisect_head h = { 0 };
	struct bisect_end end = { 0 };
	char *paths[3];
	json_t *root;

	if (state) {
		bisect_head_decode(state, &h);
		bisect_end_decode(state, &end);
	}
	for (int i = 0; i < 3; i++)
		paths[i] = path_join(dir, names[i]);
	root = xjson_pack("{s:s, s:s, s:b, s:s?, s:s?, s:s?, s:o, s:o, s:o, "
			  "s:{s:s, s:s, s:s}, s:i, s:s}",
		"schema", BISECT_SUMMARY_SCHEMA, "bisection", dir, "complete", h.complete,
		"baseline", h.baseline, "series_kernel", h.series_kernel, "outcome", end.outcome,
		"culprit", culprit_json(&h, &end), "primaries", primaries_json(&h),
		"steps", steps_json(&h),
		"reports", "json", paths[0], "text", paths[1], "html", paths[2],
		"exit_status", status, "exit_meaning", report_gate_status_meaning(status));
	report_dump(root, out);
	json_decref(root);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
}
