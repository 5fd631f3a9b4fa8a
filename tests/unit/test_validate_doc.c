// SPDX-License-Identifier: GPL-2.0
/*
 * A sequential look checks a running session's typed document and its
 * decoded runs (report_validate_doc(), report.h) instead of validating
 * session.json's tree with the runs set into it (report_validate()). What
 * both refuse, they refuse in the same words: for each thing the checks
 * hold a session and its runs to, a report with it broken is refused by
 * report_validate() and, decoded, by report_validate_doc(), with the same
 * message; a whole one passes both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "report.h"
#include "run_record.h"
#include "session_doc.h"
#include "strbuf.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

static json_t *load(void)
{
	json_error_t jerr;
	json_t *j = json_load_file(FIXTURE, 0, &jerr);

	if (!j)
		fail_msg("%s: %s", FIXTURE, jerr.text);
	return j;
}

/*
 * @j by both checks: their status, the same; when refused, the same
 * message, which must contain @want. The tree's runs decoded as a running
 * session holds them (no kernel names).
 */
static void both_say(const json_t *j, const char *want)
{
	struct strbuf tree = STRBUF_INIT, doc_err = STRBUF_INIT;
	struct session_doc doc;
	struct run_records runs = RUN_RECORDS_INIT;
	int a, b;

	assert_int_equal(session_doc_decode(j, &doc, &doc_err), 0);
	assert_int_equal(run_records_decode(json_object_get(j, "runs"), NULL, &runs, &doc_err), 0);
	a = report_validate(j, &tree);
	b = report_validate_doc(&doc, &runs, &doc_err);
	print_message("tree: %s\ndoc:  %s\n", tree.buf ? tree.buf : "", doc_err.buf ? doc_err.buf : "");
	assert_int_equal(a, b);
	if (want) {
		assert_int_equal(b, -1);
		assert_non_null(strstr(sb_str(&doc_err), want));
		assert_string_equal(sb_str(&tree), sb_str(&doc_err));
	} else {
		assert_int_equal(b, 0);
	}
	run_records_release(&runs);
	session_doc_release(&doc);
	sb_release(&tree);
	sb_release(&doc_err);
}

static json_t *at(json_t *j, const char *key, size_t i)
{
	return json_array_get(json_object_get(j, key), i);
}

static void test_whole_session_passes(void **state)
{
	json_t *j = load();
	(void)state;

	both_say(j, NULL);
	json_decref(j);
}

static void test_session_members(void **state)
{
	json_t *j = load(), *design;
	(void)state;

	json_object_set_new(j, "schema", json_string("mglrulab-report/99"));
	both_say(j, "schema: \"mglrulab-report/99\" is not");
	json_decref(j);

	j = load();
	json_object_set(at(j, "kernels", 1), "name", json_object_get(at(j, "kernels", 0), "name"));
	both_say(j, "kernels[1].name: also the name of kernels[0]");
	json_decref(j);

	j = load();
	json_object_set_new(at(at(j, "workloads", 0), "metrics", 1), "better", json_string("faster"));
	both_say(j, "workloads[0].metrics[1].better: expected \"higher\" or \"lower\"");
	json_decref(j);

	j = load();
	design = json_object_get(j, "design");
	json_object_set_new(design, "baseline", json_string("nope"));
	both_say(j, "design.baseline: no kernel named \"nope\" in kernels[]");
	json_object_set(design, "baseline", json_object_get(design, "patched"));
	both_say(j, "design.patched: the same kernel as design.baseline");
	json_decref(j);

	j = load();
	json_object_set_new(json_object_get(j, "statistics"), "counter_resamples", json_integer(7));
	both_say(j, "statistics.counter_resamples: expected an integer from");
	json_decref(j);

	j = load();
	json_array_clear(json_object_get(j, "kernels"));
	json_array_clear(json_object_get(j, "runs"));
	both_say(j, "kernels: empty (expected at least one kernel)");
	json_decref(j);
}

static void test_runs_against_the_session(void **state)
{
	json_t *j = load(), *runs;
	(void)state;

	json_object_set_new(at(j, "runs", 3), "kernel", json_string("evil"));
	both_say(j, "runs[3].kernel: no kernel named \"evil\" in kernels[]");
	json_decref(j);

	j = load();
	json_object_set(at(j, "runs", 4), "seq", json_object_get(at(j, "runs", 2), "seq"));
	both_say(j, "runs[4].seq: ");
	json_decref(j);

	/* a host per run, one more than a session may have */
	j = load();
	runs = json_object_get(j, "runs");
	for (int i = 0; i <= REPORT_MAX_HOSTS; i++) {
		json_t *r = json_deep_copy(at(j, "runs", 0));

		json_object_set_new(r, "seq", json_integer(100000 + i));
		json_object_set_new(r, "host", json_sprintf("h%d", i));
		json_array_append_new(runs, r);
	}
	both_say(j, ".host: host number 257; a session has at most 256 hosts");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_session_passes),
		cmocka_unit_test(test_session_members),
		cmocka_unit_test(test_runs_against_the_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
