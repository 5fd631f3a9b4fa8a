/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sessions and reports that several report tests build, once
 * (fixtures_report.c, linked into the tests that use it: the Makefile).
 * Each helper fails the running cmocka test when it cannot do its part.
 */
#ifndef TESTS_FIXTURES_REPORT_H
#define TESTS_FIXTURES_REPORT_H

#include <jansson.h>

#include "strbuf.h"

/* The session every report test knows, session-ab.json, loaded through report_load(). */
#define FIXTURE_SESSION_AB "tests/fixtures/reports/session-ab.json"
json_t *fixture_session_ab(void);

/* report_analyze() of @session: the report (new). */
json_t *fixture_analyze(const json_t *session);
/* The same, @session then released: for a session built for the one analysis. */
json_t *fixture_analyze_owned(json_t *session);

/*
 * A session of kernels "base" and "patched" (the baseline) around @runs
 * (taken): workload "w" (primary "p", secondary "s") and workload "v",
 * which declares no primaries (its metric "x"), each metric higher is
 * better; a threshold of 2 %.
 */
json_t *fixture_wv_session(json_t *runs);

/* The element of @report's results for @metric (fails when there is none). */
const json_t *fixture_result(const json_t *report, const char *metric);

/*
 * The renderers from a report tree (what report_analyze() returns, edited
 * or not), as lab/ renders: decoded into a view once (report_view_decode(),
 * as the mail and the bisection read a report; failing the test when it
 * does not decode), then report_render_*_view() into @out. @opts as
 * report_render_benchfmt_view()'s (NULL: the defaults).
 */
void fixture_render_html(const json_t *report, struct strbuf *out);
void fixture_render_text(const json_t *report, struct strbuf *out);
struct report_benchfmt_opts;
void fixture_render_benchfmt(const json_t *report, const struct report_benchfmt_opts *opts,
			     struct strbuf *out);
/* layout_tables_view() of @report decoded as above: the tables (free with layout_tables_free()). */
struct layout_table;
size_t fixture_layout_tables(const json_t *report, struct layout_table **out);

#endif
