// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis hands its runs to the view it makes (issue 48): a report's
 * runs are decoded once, by the analysis, not again by the view
 * (report_analyze_view(): two decodings of every run before).
 * run_records_decode() is wrapped and counted (the Makefile's --wrap).
 * The analysis' records without a report, of a running session's
 * document and records (report_analyze_results(), a look's), are the
 * view's, member for member, and no run is decoded for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "report.h"
#include "report_result.h"
#include "report_view.h"
#include "run_record.h"
#include "session_doc.h"
#include "strbuf.h"

static size_t decodes;

int __real_run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
			      struct run_records *out, struct strbuf *err);
int __wrap_run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
			      struct run_records *out, struct strbuf *err);
int __wrap_run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
			      struct run_records *out, struct strbuf *err)
{
	decodes++;
	return __real_run_records_decode(runs, kernels, out, err);
}

#define FIXTURE "tests/fixtures/reports/session-ab.json"

static json_t *load_fixture(void)
{
	json_error_t jerr;
	json_t *j = json_load_file(FIXTURE, 0, &jerr);

	if (!j)
		fail_msg("%s: %s", FIXTURE, jerr.text);
	assert_true(json_array_size(json_object_get(j, "runs")) > 10);
	return j;
}

/* Each of @v's runs is the record of the same element of @session's "runs". */
static void assert_runs_are_the_session(const struct report_view *v, const json_t *session)
{
	const json_t *runs = json_object_get(session, "runs"), *r;
	size_t i;

	assert_int_equal(v->runs.n, json_array_size(runs));
	json_array_foreach(runs, i, r) {
		assert_int_equal(v->runs.v[i].seq, json_integer_value(json_object_get(r, "seq")));
		assert_string_equal(v->runs.v[i].kernel,
				    json_string_value(json_object_get(r, "kernel")));
	}
}

static void test_analysis_decodes_runs_once(void **state)
{
	json_t *session = load_fixture();
	struct strbuf err = STRBUF_INIT;
	struct report_view v;
	(void)state;

	decodes = 0;
	assert_int_equal(report_analyze_view(session, &v, &err), 0);
	assert_int_equal(decodes, 1);
	assert_runs_are_the_session(&v, session);
	assert_true(v.nresults > 0);
	report_view_release(&v);
	sb_release(&err);
	json_decref(session);
}

/* A session whose analysis fails leaves nothing decoded behind (ASan/LSan). */
static void test_failed_analysis_frees_its_runs(void **state)
{
	json_t *session = load_fixture();
	struct strbuf err = STRBUF_INIT;
	struct report_view v;
	(void)state;

	json_object_set_new(json_array_get(json_object_get(session, "runs"), 3), "kernel",
			    json_string("evil"));
	assert_int_equal(report_analyze_view(session, &v, &err), -1);
	assert_non_null(strstr(err.buf, "evil"));
	report_view_release(&v);
	sb_release(&err);
	json_decref(session);
}

/* @a and @b the same records, each member (result_record_encode(): every one it writes). */
static void assert_same_records(const struct result_record *a, size_t na,
				const struct result_record *b, size_t nb, const char *file)
{
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		json_t *x = result_record_encode(&a[i]), *y = result_record_encode(&b[i]);

		if (!json_equal(x, y)) {
			char *sx = json_dumps(x, JSON_COMPACT), *sy = json_dumps(y, JSON_COMPACT);

			fail_msg("%s: record %zu differs:\nview:    %s\nresults: %s", file, i, sx, sy);
		}
		json_decref(x);
		json_decref(y);
	}
}

/*
 * report_analyze_results() of a session's document and its decoded runs
 * gives the records report_analyze_view() gives of the session's tree:
 * one analysis, whichever way its input came (a look's and a report's).
 */
static void test_results_are_the_views(void **state)
{
	static const char *const files[] = {
		FIXTURE, "tests/fixtures/reports/session-one.json",
		"tests/fixtures/reports/session-small.json", "tests/fixtures/reports/nightly-a.json",
	};
	(void)state;

	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		json_error_t jerr;
		json_t *session = json_load_file(files[f], 0, &jerr);
		struct run_records runs = RUN_RECORDS_INIT;
		struct strbuf err = STRBUF_INIT;
		struct session_doc doc;
		struct session_input in;
		struct report_results res;
		struct report_view v;

		assert_non_null(session);
		assert_int_equal(report_analyze_view(session, &v, &err), 0);
		assert_int_equal(session_doc_decode(session, &doc, &err), 0);
		assert_int_equal(run_records_decode(json_object_get(session, "runs"), NULL, &runs,
						    &err), 0);
		assert_int_equal(report_validate_doc(&doc, &runs, &err), 0);
		session_input_from_doc(&doc, &in);
		decodes = 0;
		report_analyze_results(&in, &runs, &res);
		assert_int_equal(decodes, 0);
		assert_true(res.nresults > 0);
		assert_same_records(v.results, v.nresults, res.results, res.nresults, files[f]);
		assert_same_records(v.counters, v.ncounters, res.counters, res.ncounters, files[f]);
		report_results_release(&res);
		/* the records are still the caller's, whole (ASan: not freed by the analysis) */
		assert_int_equal(runs.n, v.runs.n);
		assert_non_null(runs.v[runs.n - 1].kernel);
		session_input_release(&in);
		session_doc_release(&doc);
		run_records_release(&runs);
		report_view_release(&v);
		sb_release(&err);
		json_decref(session);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_analysis_decodes_runs_once),
		cmocka_unit_test(test_failed_analysis_frees_its_runs),
		cmocka_unit_test(test_results_are_the_views),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
