// SPDX-License-Identifier: GPL-2.0
/*
 * report_analyze() with declared primaries: verdict families, the order of
 * the results, and sequential sessions (`run --until decided`), whose
 * primaries are judged at the level of their look, and at their run cap
 * never show a result that is not final as a decision ("≈" or "~").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures_report.h"
#include "report.h"
#include "report_priv.h"
#include "report_view.h"
#include "session.h"
#include "stats.h"
#include "util.h"

/*
 * A session of @blocks ABBA blocks of workload "w" (primary "p", one
 * secondary "s") and of workload "v" (no primaries declared: its
 * metric "x"); the patched kernel's p is @shift times the baseline's.
 */
static json_t *session(int blocks, double shift, int sequential, size_t max_runs)
{
	json_t *runs = json_array();
	int seq = 0;

	for (int b = 1; b <= blocks; b++)
		for (int k = 0; k < 2; k++) {
			/* Noise of about 1 %, deterministic, different per run. */
			double noise = 1 + 0.01 * sin(7.0 * b + 3.0 * k);
			const char *kn = k ? "patched" : "base";

			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f, s:f}}",
				"seq", ++seq, "block", b, "kernel", kn, "workload", "w", "status", "ok",
				"metrics", "p", 1000 * noise * (k ? shift : 1), "s", 50 * noise));
			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:{s:f}}",
				"seq", ++seq, "block", b, "kernel", kn, "workload", "v", "status", "ok",
				"metrics", "x", 10 * noise));
		}
	json_t *s = fixture_wv_session(runs);

	if (sequential) {
		struct stats_seq_plan p;

		stats_seq_plan_default(&p, max_runs);
		json_object_set_new(json_object_get(s, "design"), "sequential",
			json_pack("{s:f, s:I, s:I, s:I, s:f}", "alpha", p.alpha,
				  "min_runs", (json_int_t)p.min_runs, "max_runs", (json_int_t)p.max_runs,
				  "step", (json_int_t)p.step, "rho", p.rho));
	}
	return s;
}

static void test_families(void **state)
{
	json_t *r = fixture_analyze_owned(session(8, 1.10, 0, 0));
	(void)state;

	assert_string_equal(jget_str(r, "schema", ""), REPORT_SCHEMA);
	assert_true(json_is_true(json_object_get(fixture_result(r, "p"), "primary")));
	assert_string_equal(jget_str(fixture_result(r, "p"), "family", ""), "primary");
	assert_int_equal(jget_num(fixture_result(r, "p"), "family_size"), 1);
	assert_true(json_is_false(json_object_get(fixture_result(r, "s"), "primary")));
	assert_string_equal(jget_str(fixture_result(r, "s"), "family", ""), "secondary");
	/* The secondary family holds w's s and v's x: corrected between them only. */
	assert_int_equal(jget_num(fixture_result(r, "s"), "family_size"), 2);
	/* A primary alone in its family uses its own p. */
	assert_true(jget_num(fixture_result(r, "p"), "p_used") ==
		    jget_num(jpath(fixture_result(r, "p"), "comparison.mann_whitney"), "p"));
	assert_string_equal(jget_str(fixture_result(r, "p"), "verdict", ""), "improvement");
	assert_int_equal(json_integer_value(jpath(r, "summary.primaries")), 1);
	assert_int_equal(json_integer_value(jpath(r, "summary.primary_verdicts.improvement")), 1);
	/* Grouped by workload, primaries first. */
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "results"), 0), "metric", ""), "p");
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "results"), 1), "metric", ""), "s");
	assert_string_equal(jget_str(json_array_get(json_object_get(r, "results"), 2), "metric", ""), "x");
	assert_non_null(strstr(jget_str(jpath(r, "statistics"), "threshold_source", ""), "[stats]"));
	json_decref(r);
}

static void test_sequential_looks(void **state)
{
	struct stats_seq_plan p;
	json_t *r;
	const json_t *seq;
	(void)state;

	stats_seq_plan_default(&p, 20);
	/* Before the first look nothing can be decided, whatever the data say. */
	r = fixture_analyze_owned(session((int)p.min_runs - 1, 1.10, 1, 20));
	assert_string_equal(jget_str(fixture_result(r, "p"), "verdict", ""), "inconclusive");
	assert_true(json_is_false(json_object_get(fixture_result(r, "p"), "final")));
	assert_non_null(strstr(jget_str(fixture_result(r, "p"), "reason", ""), "first look"));
	assert_int_equal(jget_num(jpath(fixture_result(r, "p"), "sequential"), "look"), 0);
	/* Secondary metrics keep the fixed-N analysis. */
	assert_null(json_object_get(fixture_result(r, "s"), "sequential"));
	json_decref(r);

	/* At the first look: the interval at 1 - alpha_1, the p scaled by alpha / alpha_1. */
	r = fixture_analyze_owned(session((int)p.min_runs, 1.10, 1, 20));
	seq = jpath(fixture_result(r, "p"), "sequential");
	assert_int_equal(jget_num(seq, "look"), 1);
	assert_true(fabs(jget_num(seq, "alpha_look") - stats_seq_alpha_at(&p, 1)) < 1e-12);
	assert_true(fabs(jget_num(jpath(fixture_result(r, "p"), "comparison.ci"), "level") -
			 (1 - stats_seq_alpha_at(&p, 1))) < 1e-12);
	assert_true(fabs(jget_num(seq, "p_adjusted") -
			 fmin(1, jget_num(seq, "p") * p.alpha / stats_seq_alpha_at(&p, 1))) < 1e-12);
	assert_true(jget_num(fixture_result(r, "p"), "p_used") == jget_num(seq, "p_adjusted"));
	/* A 10 % shift at 1 % noise is decided at the first look, for good. */
	assert_string_equal(jget_str(fixture_result(r, "p"), "verdict", ""), "improvement");
	assert_true(json_is_true(json_object_get(fixture_result(r, "p"), "final")));
	json_decref(r);

	/* One block past a look is the next look: no level is spent twice. */
	r = fixture_analyze_owned(session((int)p.min_runs + 1, 1.0, 1, 20));
	assert_int_equal(jget_num(jpath(fixture_result(r, "p"), "sequential"), "look"), 2);
	json_decref(r);

	/* A broken plan is reported, and the session analysed as fixed-N. */
	json_t *s = session((int)p.min_runs, 1.10, 1, 20);
	json_object_set_new(jpath(s, "design.sequential"), "step", json_integer(0));
	r = fixture_analyze_owned(s);
	assert_null(json_object_get(fixture_result(r, "p"), "sequential"));
	json_t *w;
	size_t i;
	int warned = 0;
	json_array_foreach(json_object_get(r, "warnings"), i, w)
		warned |= !strcmp(jget_str(w, "kind", ""), "sequential");
	assert_true(warned);
	json_decref(r);
}

/*
 * Final stays final (issue 49): a primary "~" at look 1 (0.1 % noise, band
 * 2 %) whose later blocks are so noisy (30 %) that look 2's runs alone
 * cannot rule out a change. A workload stops only when all its primaries
 * are final at one look, so such a primary is judged again; judged on
 * look 2's data alone it ended "?" after the progress line and
 * sequential.json had called it "~". Carried across looks, it stays "~",
 * on the intersection of the looks' intervals.
 */
static void test_sequential_final_stays_final(void **state)
{
	struct stats_seq_plan p;
	json_t *s, *r, *run;
	const json_t *seq;
	size_t i, n1;
	(void)state;

	stats_seq_plan_default(&p, 20);
	n1 = stats_seq_runs_at(&p, 1);
	s = session((int)stats_seq_runs_at(&p, 2), 1.0, 1, 20);
	json_array_foreach(json_object_get(s, "runs"), i, run) {
		double b = jget_num(run, "block"), noise = b <= (double)n1 ? 0.001 : 0.3;
		int k = !strcmp(jget_str(run, "kernel", ""), "patched");

		if (strcmp(jget_str(run, "workload", ""), "w"))
			continue;
		json_object_set_new(json_object_get(run, "metrics"), "p",
				    json_real(1000 * (1 + noise * sin(7.0 * b + 3.0 * k))));
	}
	/* Look 1 alone: "~", final. */
	json_t *s1 = json_deep_copy(s);
	json_t *kept = json_array();
	json_array_foreach(json_object_get(s1, "runs"), i, run)
		if (jget_num(run, "block") <= (double)n1)
			json_array_append(kept, run);
	json_object_set_new(s1, "runs", kept);
	r = fixture_analyze_owned(s1);
	assert_string_equal(jget_str(fixture_result(r, "p"), "verdict", ""), "no-change");
	assert_true(json_is_true(json_object_get(fixture_result(r, "p"), "final")));
	json_decref(r);

	/* Look 2: still final, resting on the intersection of both looks' intervals. */
	r = fixture_analyze_owned(s);
	seq = jpath(fixture_result(r, "p"), "sequential");
	assert_int_equal(jget_num(seq, "look"), 2);
	print_message("look 2: %s (%s)\n", jget_str(fixture_result(r, "p"), "verdict", ""),
		      jget_str(fixture_result(r, "p"), "reason", ""));
	assert_true(json_is_true(json_object_get(fixture_result(r, "p"), "final")));
	assert_string_equal(jget_str(fixture_result(r, "p"), "verdict", ""), "no-change");
	assert_true(jget_num(seq, "lo") >= jget_num(jpath(fixture_result(r, "p"), "comparison.ci"), "lo"));
	assert_true(jget_num(seq, "hi") <= jget_num(jpath(fixture_result(r, "p"), "comparison.ci"), "hi"));
	assert_true(jget_num(seq, "hi") - jget_num(seq, "lo") < 0.04);
	json_decref(r);
}

/* The text of @hay from the first @from to the next @to after it (owned). */
static char *slice(const char *hay, const char *from, const char *to)
{
	const char *a = strstr(hay, from), *b;

	if (!a)
		fail_msg("no \"%s\" in the output", from);
	b = strstr(a, to);
	if (!b)
		fail_msg("no \"%s\" after \"%s\"", to, from);
	return strndup(a, (size_t)(b - a) + strlen(to));
}

/* Neither "≈" nor "~" in any form a renderer gives them. */
static void assert_no_decision_shown(const char *what, const char *s)
{
	static const char *const bad[] = {
		"\u2248", "within-noise", "within noise", "no-change", "no change",
		">~<", "v-within-noise", "v-no-change",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (strstr(s, bad[i]))
			fail_msg("%s shows \"%s\" for a result that is not final:\n%s",
				 what, bad[i], s);
}

/*
 * At the run cap, a real change whose interval crosses the band edge
 * (+1 to +3 % against a 2 % band, 1 % noise) is not final: more runs might
 * put it beyond the band. It must not read as a decision anywhere: not "≈"
 * ("real but probably too small to matter") nor "~", in report.json, the
 * text report, the HTML report or JUnit; it is "?" with the runs it would
 * still need, and --fail-on does not count it as a decision either.
 */
static void test_not_final_at_cap(void **state)
{
	const size_t cap = 10;
	int hits = 0;
	(void)state;

	for (int step = 0; step <= 20; step++) {
		double shift = 1.0 + 0.0025 * step;
		json_t *r = fixture_analyze_owned(session((int)cap, shift, 1, cap));
		const json_t *res, *p = fixture_result(r, "p");
		const char *v = jget_str(p, "verdict", "");
		size_t i;

		/* At the cap: the plan's last look. */
		assert_int_equal(jget_num(jpath(p, "sequential"), "look"),
				 jget_num(jpath(p, "sequential"), "looks"));
		/* JSON, every metric: "≈" and "~" only when final. */
		json_array_foreach(json_object_get(r, "results"), i, res) {
			const char *rv = jget_str(res, "verdict", "");

			if (!strcmp(rv, "within-noise") || !strcmp(rv, "no-change"))
				assert_true(json_is_true(json_object_get(res, "final")));
		}
		if (json_is_true(json_object_get(p, "final")) ||
		    !(jget_num(p, "p_used") < 0.05)) {
			json_decref(r);
			continue;
		}
		/* Significant and not final: the case of this test. */
		hits++;
		assert_string_equal(v, "inconclusive");
		assert_string_equal(jget_str(p, "marker", ""), "?");
		assert_true(jget_num(p, "runs_needed") > (double)cap);
		assert_non_null(strstr(jget_str(p, "reason", ""), "a real change"));
		assert_int_equal(json_integer_value(jpath(r, "summary.primary_verdicts.within-noise")), 0);
		assert_int_equal(json_integer_value(jpath(r, "summary.primary_verdicts.inconclusive")), 1);

		/* Text: the primary's row ends in "?", and the notes say why. */
		struct strbuf t = STRBUF_INIT;
		fixture_render_text(r, &t);
		/* The primaries' table, below the answer that opens the report. */
		const char *table = strstr(sb_str(&t), "\nPrimary metrics");
		assert_non_null(table);
		char *line = slice(table, "  w: p ", "\n");
		assert_no_decision_shown("text row", line);
		assert_true(strlen(line) >= 2 && line[strlen(line) - 2] == '?');
		free(line);
		line = slice(sb_str(&t), "? w:p: ", "decide");
		assert_non_null(strstr(line, "a real change"));
		free(line);
		sb_release(&t);

		/* HTML: its row in the primary table and its details. */
		struct strbuf h = STRBUF_INIT;
		fixture_render_html(r, &h);
		char *row = slice(sb_str(&h), "<tr class=\"metric\" id=\"m0\">", "</tr>");
		assert_no_decision_shown("HTML row", row);
		assert_non_null(strstr(row, "v-inconclusive"));
		free(row);
		row = slice(sb_str(&h), "<article class=\"detail\" id=\"d0\">", "</h3>");
		assert_no_decision_shown("HTML details", row);
		assert_non_null(strstr(row, "v-inconclusive"));
		free(row);
		sb_release(&h);

		/* JUnit and the exit status read the report as a view, as run's end does. */
		struct report_view rv;
		struct strbuf verr = STRBUF_INIT;
		if (report_view_decode(r, &rv, &verr))
			fail_msg("the report does not decode: %s", sb_str(&verr));
		sb_release(&verr);

		/* JUnit: skipped, never a pass that looks decided. */
		char path[] = "/tmp/mglrulab-test-junit-XXXXXX";
		int fd = mkstemp(path);
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(session_write_junit(path, &rv, FAIL_ON_CHANGE), LAB_OK);
		FILE *f = fopen(path, "r");
		char buf[65536];
		size_t len;
		assert_non_null(f);
		len = fread(buf, 1, sizeof(buf) - 1, f);
		buf[len] = '\0';
		fclose(f);
		unlink(path);
		char *tc = slice(buf, "name=\"p\">", "</testcase>");
		assert_no_decision_shown("JUnit", tc);
		assert_non_null(strstr(tc, "<skipped message=\"inconclusive: a real change"));
		free(tc);

		/* Exit status: not a decided change, so not a --fail-on failure. */
		struct strbuf why = STRBUF_INIT;
		assert_int_equal(session_verdict_status(&rv, FAIL_ON_CHANGE, &why), LAB_OK);
		sb_release(&why);
		report_view_release(&rv);

		/* A report written before: "within-noise" with final false still
		 * loads, and re-analysed it says "?". */
		if (hits == 1) {
			struct strbuf dump = STRBUF_INIT, err = STRBUF_INIT;
			json_t *old = json_array_get(json_object_get(r, "results"), 0), *back;

			assert_string_equal(jget_str(old, "metric", ""), "p");
			json_object_set_new(old, "verdict", json_string("within-noise"));
			json_object_set_new(old, "marker", json_string("="));
			report_dump(r, &dump);
			if (report_load_buffer(sb_str(&dump), dump.len, &back, &err))
				fail_msg("an old report no longer loads: %s", sb_str(&err));
			json_decref(r);
			r = fixture_analyze_owned(back);
			assert_string_equal(jget_str(fixture_result(r, "p"), "verdict", ""), "inconclusive");
			sb_release(&dump);
			sb_release(&err);
		}
		json_decref(r);
	}
	/* The sweep did reach the case (a real +1..+3 % change at the cap). */
	assert_true(hits >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_sequential_looks),
		cmocka_unit_test(test_sequential_final_stays_final),
		cmocka_unit_test(test_not_final_at_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
