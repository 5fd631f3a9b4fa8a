// SPDX-License-Identifier: GPL-2.0
/*
 * What the watch keeps of a session and of a bisection (watch_verdict.c):
 * the series' verdict line from the report's results and the bisection's
 * note from bisect.json, each through its record's decoder. Issue 48
 * moved them off the `run --json` and `bisect --json` summaries, which
 * the watch read by key; the lines must be the ones those summaries gave,
 * so each is checked against the summary of the same report or
 * bisection, read as the watch read it before (old_verdict(),
 * old_note()), besides the literal lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "bisect_doc.h"
#include "fsutil.h"
#include "report.h"
#include "report_view.h"
#include "session.h"
#include "stats.h"
#include "util.h"
#include "watch_verdict.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-watch-verdict-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* The line the watch made from `run --json`'s summary before issue 48. */
static char *old_verdict(const char *summary, int *regressed)
{
	json_t *s = json_loads(summary, 0, NULL), *p;
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	*regressed = 0;
	assert_non_null(s);
	json_array_foreach(json_object_get(s, "primaries"), i, p) {
		const char *wl = json_string_value(json_object_get(p, "workload"));
		const char *m = json_string_value(json_object_get(p, "metric"));
		const char *v = json_string_value(json_object_get(p, "verdict"));

		if (!wl || !m)
			continue;
		*regressed |= v && !strcmp(v, stats_verdict_id(VERDICT_REGRESSION));
		sb_addf(&sb, "%s%s %s: %s", sb.len ? "; " : "", wl, m, v ? v : "none");
		if (json_is_number(json_object_get(p, "delta_pct")))
			sb_addf(&sb, " %+.1f%% [%+.1f%%, %+.1f%%]",
				json_number_value(json_object_get(p, "delta_pct")),
				json_number_value(json_object_get(p, "ci_lo_pct")),
				json_number_value(json_object_get(p, "ci_hi_pct")));
	}
	json_decref(s);
	if (!sb.len)
		sb_adds(&sb, "no primary metric");
	return sb_detach(&sb);
}

/* @session analysed and written as DIR/NAME.json; its path. */
static char *write_report(const json_t *session, const char *name, json_t **report)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *path = xasprintf("%s/%s.json", dir, name);

	*report = report_analyze(session, &err);
	if (!*report)
		fail_msg("%s", sb_str(&err));
	report_dump(*report, &sb);
	assert_int_equal(write_file_atomic(path, sb.buf, sb.len), 0);
	sb_release(&sb);
	sb_release(&err);
	return path;
}

/* The new line of @session's report equals the old one of its summary; the new line. */
static char *same_verdict(const json_t *session, const char *name, int *regressed)
{
	struct strbuf sum = STRBUF_INIT;
	json_t *report;
	char *path = write_report(session, name, &report), *old, *got;
	int old_regressed;

	struct report_view v;
	struct strbuf verr = STRBUF_INIT;

	if (report_view_decode(report, &v, &verr))
		fail_msg("%s", sb_str(&verr));
	session_summary_json(dir, &v, FAIL_ON_NONE, LAB_OK, &sum);
	report_view_release(&v);
	sb_release(&verr);
	old = old_verdict(sb_str(&sum), &old_regressed);
	got = watch_verdict_of(path, regressed);
	assert_string_equal(got, old);
	assert_int_equal(*regressed, old_regressed);
	free(old);
	free(path);
	json_decref(report);
	sb_release(&sum);
	return got;
}

static json_t *load(const char *fixture)
{
	struct strbuf err = STRBUF_INIT;
	json_t *j;

	if (report_load(fixture, &j, &err))
		fail_msg("%s", sb_str(&err));
	sb_release(&err);
	return j;
}

/* Workloads that declare no primaries: every metric, the regression among them. */
static void test_verdict_every_metric(void **state)
{
	static const char *const fixtures[] = {
		"tests/fixtures/reports/session-ab.json", "tests/fixtures/reports/session-small.json",
		"tests/fixtures/reports/nightly-a.json", "tests/fixtures/reports/nightly-b.json",
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		json_t *s = load(fixtures[i]);
		int regressed;
		char *name = xasprintf("every-%zu", i), *v = same_verdict(s, name, &regressed);

		assert_non_null(strstr(v, "yp_shared cs_per_sec_per_cpu_1cpu: "));
		free(v);
		free(name);
		json_decref(s);
	}
}

/* A workload that declares a primary: only it, of that workload; the others' every metric. */
static void test_verdict_primaries(void **state)
{
	json_t *s = load("tests/fixtures/reports/session-ab.json");
	json_t *w = json_array_get(json_object_get(s, "workloads"), 0);
	json_t *m = json_array_get(json_object_get(w, "metrics"), 1);
	int regressed;
	char *v;
	(void)state;

	json_object_set_new(w, "primary", json_pack("[s]", json_string_value(
		json_object_get(m, "name"))));
	json_object_set_new(m, "primary", json_true());
	v = same_verdict(s, "primaries", &regressed);
	assert_null(strstr(v, "yp_shared cs_per_sec_per_cpu_1cpu: "));
	assert_non_null(strstr(v, "yp_shared cs_per_sec_per_cpu_2cpu: "));
	assert_non_null(strstr(v, "; yp_private "));
	free(v);
	json_decref(s);
}

/* No report: said, and no regression. */
static void test_verdict_no_report(void **state)
{
	char *path = xasprintf("%s/none.json", dir);
	int regressed = 1;
	char *v = watch_verdict_of(path, &regressed);
	(void)state;

	assert_string_equal(v, "no report");
	assert_int_equal(regressed, 0);
	free(v);
	free(path);
}

/* The note the watch made from `bisect --json`'s summary before issue 48. */
static char *old_note(const char *summary, long n)
{
	json_t *s = json_loads(summary, 0, NULL);
	const json_t *c = json_object_get(s, "culprit");
	const char *outcome = json_string_value(json_object_get(s, "outcome"));
	const char *subject = json_string_value(json_object_get(c, "subject"));
	char *note;

	assert_non_null(s);
	if (json_is_integer(json_object_get(c, "position")))
		note = xasprintf("culprit: patch %" JSON_INTEGER_FORMAT " of %ld, %s",
				 json_integer_value(json_object_get(c, "position")), n,
				 subject ? subject : "(no subject)");
	else
		note = xasprintf("bisection: %s", outcome ? outcome : "no outcome");
	json_decref(s);
	return note;
}

/* @state as DIR/NAME/bisect.json: the new note equals the old one of its summary. */
static char *same_note(json_t *state, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *d = xasprintf("%s/%s", dir, name), *path = xasprintf("%s/bisect.json", d), *old;
	struct bisect_doc doc;
	char *got;

	assert_int_equal(mkdir_p(d, 0755), 0);
	report_dump(state, &sb);
	assert_int_equal(write_file_atomic(path, sb.buf, sb.len), 0);
	sb_reset(&sb);
	if (bisect_doc_load(path, &doc, &sb))
		fail_msg("%s", sb_str(&sb));
	bisect_summary_json(d, &doc, LAB_OK, &sb);
	bisect_doc_release(&doc);
	old = old_note(sb_str(&sb), 3);
	got = watch_bisect_note(path, 3);
	assert_string_equal(got, old);
	free(old);
	free(path);
	free(d);
	sb_release(&sb);
	return got;
}

static json_t *bisect_fixture(void)
{
	json_error_t je;
	json_t *s = json_load_file("tests/fixtures/bisect/bisect-found.json", 0, &je);

	if (!s)
		fail_msg("%s", je.text);
	return s;
}

static void test_note_culprit(void **state)
{
	json_t *s = bisect_fixture();
	char *note = same_note(s, "found");
	(void)state;

	assert_string_equal(note, "culprit: patch 2 of 3, [PATCH 2/3] sched: add a fixed 10us "
			    "delay to sched_yield() (mglrulab test series)");
	free(note);
	json_decref(s);
}

/* No culprit: the outcome; no bisect.json that loads: no outcome. */
static void test_note_outcome(void **state)
{
	json_t *s = bisect_fixture(), *r = json_object_get(s, "result");
	char *note, *path = xasprintf("%s/none/bisect.json", dir);
	(void)state;

	json_object_set_new(r, "outcome", json_string("spread"));
	json_object_set_new(r, "culprit", json_null());
	note = same_note(s, "spread");
	assert_string_equal(note, "bisection: spread");
	free(note);
	note = watch_bisect_note(path, 3);
	assert_string_equal(note, "bisection: no outcome");
	free(note);
	free(path);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_every_metric),
		cmocka_unit_test(test_verdict_primaries),
		cmocka_unit_test(test_verdict_no_report),
		cmocka_unit_test(test_note_culprit),
		cmocka_unit_test(test_note_outcome),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
