// SPDX-License-Identifier: GPL-2.0
/* bisect --json: the bisection's summary for scripts (bisect.h). */
#include "bisect.h"
#include "bisect_doc.h"
#include "fsutil.h"
#include "report.h"
#include "report_gate.h"
#include "xjson.h"

#include <stdlib.h>

#define BISECT_SUMMARY_SCHEMA "mglrulab-bisect-summary/1"

static json_t *culprit_json(const struct bisect_doc *d)
{
	long culprit = bisect_doc_long(d->result.culprit);
	const struct bisect_doc_patch *p = bisect_doc_patch_at(d, culprit);

	if (culprit < 1)
		return json_null();
	return xjson_pack("{s:I, s:s?, s:s?}", "position", (json_int_t)culprit,
			  "subject", p ? p->subject : NULL, "message_id", p ? p->message_id : NULL);
}

/* The whole series' verdicts: the primaries (all of them when none is). */
static json_t *primaries_json(const struct bisect_doc *d)
{
	struct step_results rs = { 0 };
	json_t *out = json_array();
	int any_primary = 0;

	step_results_of(&d->tracked, &rs);
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

static json_t *steps_json(const struct bisect_doc *d)
{
	const struct bisect_doc_step *v = d->steps.v;
	json_t *out = json_array();

	for (size_t i = 0; i < d->steps.n; i++) {
		const struct bisect_doc_step *st = &v[i];
		char *report = st->session ? path_join(st->session, "report.json") : NULL;

		json_array_append_new(out, xjson_pack("{s:I, s:s?, s:s?, s:s?, s:s?, s:s?, s:s?}",
			"step", (json_int_t)bisect_doc_long(st->step), "purpose", st->purpose,
			"a", st->a, "b", st->b, "state", st->state, "session", st->session,
			"report", report));
		free(report);
	}
	return out;
}

void bisect_summary_json(const char *dir, const struct bisect_doc *d, int status,
			 struct strbuf *out)
{
	static const char *const names[3] = { "bisect.json", "bisect.txt", "bisect.html" };
	struct bisect_doc none;
	char *paths[3];
	json_t *root;

	if (!d) {
		bisect_doc_init(&none);
		d = &none;
	}
	for (int i = 0; i < 3; i++)
		paths[i] = path_join(dir, names[i]);
	root = xjson_pack("{s:s, s:s, s:b, s:s?, s:s?, s:s?, s:o, s:o, s:o, "
			  "s:{s:s, s:s, s:s}, s:i, s:s}",
		"schema", BISECT_SUMMARY_SCHEMA, "bisection", dir, "complete", d->complete == 1,
		"baseline", d->baseline, "series_kernel", d->series_kernel,
		"outcome", d->result.outcome, "culprit", culprit_json(d),
		"primaries", primaries_json(d), "steps", steps_json(d),
		"reports", "json", paths[0], "text", paths[1], "html", paths[2],
		"exit_status", status, "exit_meaning", report_gate_status_meaning(status));
	report_dump(root, out);
	json_decref(root);
	for (int i = 0; i < 3; i++)
		free(paths[i]);
}
