// SPDX-License-Identifier: GPL-2.0
/* The report tests' shared sessions and helpers: fixtures_report.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "fixtures_report.h"
#include "report.h"
#include "report_layout.h"
#include "report_view.h"
#include "xjson.h"

json_t *fixture_session_ab(void)
{
	struct strbuf err = STRBUF_INIT;
	json_t *j = NULL;

	if (report_load(FIXTURE_SESSION_AB, &j, &err))
		fail_msg("%s", sb_str(&err));
	sb_release(&err);
	return j;
}

json_t *fixture_analyze(const json_t *session)
{
	struct strbuf err = STRBUF_INIT;
	json_t *r = report_analyze(session, &err);

	if (!r)
		fail_msg("report_analyze: %s", sb_str(&err));
	sb_release(&err);
	return r;
}

json_t *fixture_analyze_owned(json_t *session)
{
	json_t *r = fixture_analyze(session);

	json_decref(session);
	return r;
}

json_t *fixture_wv_session(json_t *runs)
{
	return json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:[{s:s}, {s:s}],"
			 " s:{s:s, s:s}, s:[{s:s, s:s, s:[s], s:[{s:s, s:s, s:b}, {s:s, s:s}]},"
			 " {s:s, s:s, s:[], s:[{s:s, s:s}]}], s:{s:f}, s:o}",
		"schema", REPORT_SCHEMA, "generator", "name", "mglrulab", "version", "test",
		"host", "accel", "kvm", "kernels", "name", "base", "name", "patched",
		"design", "baseline", "base", "patched", "patched",
		"workloads", "name", "w", "type", "none", "primary", "p",
		"metrics", "name", "p", "better", "higher", "primary", 1, "name", "s", "better", "higher",
		"name", "v", "type", "none", "primary", "metrics", "name", "x", "better", "higher",
		"statistics", "threshold", 0.02, "runs", runs);
}

const json_t *fixture_result(const json_t *report, const char *metric)
{
	const json_t *res;
	size_t i;

	json_array_foreach(json_object_get(report, "results"), i, res)
		if (!strcmp(jget_str(res, "metric", ""), metric))
			return res;
	fail_msg("no result for %s", metric);
	return NULL;
}

enum fixture_doc { DOC_HTML, DOC_TEXT, DOC_BENCHFMT };

static void render(const json_t *report, enum fixture_doc doc,
		   const struct report_benchfmt_opts *opts, struct strbuf *out)
{
	struct report_view v;
	struct strbuf err = STRBUF_INIT;

	if (report_view_decode(report, &v, &err))
		fail_msg("the report does not decode: %s", sb_str(&err));
	else if (doc == DOC_HTML)
		report_render_html_view(&v, out);
	else if (doc == DOC_TEXT)
		report_render_text_view(&v, out);
	else
		report_render_benchfmt_view(&v, opts, out);
	report_view_release(&v);
	sb_release(&err);
}

void fixture_render_html(const json_t *report, struct strbuf *out)
{
	render(report, DOC_HTML, NULL, out);
}

void fixture_render_text(const json_t *report, struct strbuf *out)
{
	render(report, DOC_TEXT, NULL, out);
}

void fixture_render_benchfmt(const json_t *report, const struct report_benchfmt_opts *opts,
			     struct strbuf *out)
{
	render(report, DOC_BENCHFMT, opts, out);
}

size_t fixture_layout_tables(const json_t *report, struct layout_table **out)
{
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	size_t n;

	if (report_view_decode(report, &v, &err))
		fail_msg("the report does not decode: %s", sb_str(&err));
	n = layout_tables_view(&v, out);
	report_view_release(&v);
	sb_release(&err);
	return n;
}
