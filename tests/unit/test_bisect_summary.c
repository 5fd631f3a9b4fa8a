// SPDX-License-Identifier: GPL-2.0
/*
 * bisect_summary.c: bisect --json, the summary a script reads instead of
 * parsing bisect.txt (bisect had no machine-readable output on stdout).
 * From a real bisection's bisect.json (tests/fixtures/bisect/): the
 * folder, the culprit, the series' primaries, each step's session and
 * report, the exit status and its meaning, the reports' paths.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_doc.h"
#include "util.h"
#include "watch_verdict.h"

#define FIXTURE "tests/fixtures/bisect/bisect-found.json"

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	assert_non_null(s);
	return s;
}

static void test_summary_found(void **state)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	struct bisect_doc d;
	json_t *j, *c, *steps, *p;
	(void)state;

	if (bisect_doc_load(FIXTURE, &d, &err))
		fail_msg("%s", sb_str(&err));
	bisect_summary_json("/r/b1", &d, LAB_OK, &sb);
	j = json_loads(sb_str(&sb), 0, NULL);
	assert_non_null(j);
	assert_string_equal(str(j, "schema"), "mglrulab-bisect-summary/1");
	assert_string_equal(str(j, "bisection"), "/r/b1");
	assert_string_equal(str(j, "outcome"), "found");
	assert_true(json_is_true(json_object_get(j, "complete")));
	assert_string_equal(str(j, "baseline"), "baseline");
	assert_string_equal(str(j, "series_kernel"), "three");
	c = json_object_get(j, "culprit");
	assert_int_equal(json_integer_value(json_object_get(c, "position")), 2);
	assert_non_null(strstr(str(c, "subject"), "[PATCH 2/3] sched:"));
	assert_non_null(strstr(str(c, "message_id"), "@mglrulab.invalid>"));
	/* the primaries only: tracked has one */
	assert_int_equal(json_array_size(json_object_get(j, "primaries")), 1);
	p = json_array_get(json_object_get(j, "primaries"), 0);
	assert_string_equal(str(p, "verdict"), "regression");
	assert_true(json_real_value(json_object_get(p, "ci_hi_pct")) < 0);
	steps = json_object_get(j, "steps");
	assert_true(json_array_size(steps) >= 3);
	assert_string_equal(str(json_array_get(steps, 0), "purpose"), "confirm");
	assert_non_null(strstr(str(json_array_get(steps, 0), "report"), "-ab/report.json"));
	assert_string_equal(str(json_object_get(j, "reports"), "html"), "/r/b1/bisect.html");
	assert_int_equal(json_integer_value(json_object_get(j, "exit_status")), 0);
	assert_non_null(strstr(str(j, "exit_meaning"), "ok"));
	json_decref(j);
	bisect_doc_release(&d);
	sb_release(&sb);
	sb_release(&err);
}

/* Stopped before bisect.json was read: still a summary with the status. */
static void test_summary_no_state(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;
	(void)state;

	bisect_summary_json("/r/b2", NULL, LAB_ELAB, &sb);
	j = json_loads(sb_str(&sb), 0, NULL);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "culprit")));
	assert_int_equal(json_integer_value(json_object_get(j, "exit_status")), 2);
	assert_non_null(strstr(str(j, "exit_meaning"), "lab failure"));
	assert_int_equal(json_array_size(json_object_get(j, "steps")), 0);
	json_decref(j);
	sb_release(&sb);
}

/*
 * The fixture with one member of another type, as a hand edit leaves it,
 * written to a file: the readers' load refuses it by its path and the
 * member's, where the readers of the JSON tree read such a member as none
 * (a culprit of "2" gave "culprit": null and exit status 0).
 */
static void refused(const char *member, const char *key, json_t *value, const char *why)
{
	json_t *st = json_load_file(FIXTURE, 0, NULL), *o;
	char tmpl[] = "/tmp/test_bisect_summary.XXXXXX";
	int fd = mkstemp(tmpl);
	struct strbuf err = STRBUF_INIT;
	struct bisect_doc d;
	char *note, *want = xasprintf("%s: %s", tmpl, why);

	assert_non_null(st);
	assert_true(fd >= 0);
	close(fd);
	o = !strcmp(member, "result") ? json_object_get(st, "result") :
	    json_array_get(json_object_get(st, "steps"), 0);
	json_object_set_new(o, key, value);
	assert_int_equal(json_dump_file(st, tmpl, 0), 0);
	assert_int_equal(bisect_doc_load(tmpl, &d, &err), -1);
	assert_string_equal(sb_str(&err), want);
	/* refused and left absent: what a reader sees of it is nothing */
	assert_null(d.baseline);
	assert_int_equal(d.steps.n, 0);
	bisect_doc_release(&d);
	/* the watch's note of it: no outcome, never the culprit read as none */
	note = watch_bisect_note(tmpl, 3);
	assert_string_equal(note, "bisection: no outcome");
	free(note);
	unlink(tmpl);
	free(want);
	json_decref(st);
	sb_release(&err);
}

static void test_wrong_type_refused(void **state)
{
	(void)state;

	refused("result", "culprit", json_string("2"),
		"result.culprit: expected an integer, got a string");
	refused("steps", "session", json_integer(5),
		"steps[0].session: expected a string, got an integer");
	refused("result", "remaining", json_object(),
		"result.remaining: expected an array or null, got an object");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_found),
		cmocka_unit_test(test_summary_no_state),
		cmocka_unit_test(test_wrong_type_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
