// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's tables (lab/report/report_text*.c), as a maintainer
 * reads them in a mail (issue 29):
 *  - one meaning per symbol: every marker a row shows is in the legend
 *    and the legend lists no other; no value is "n/a", never "-" (the
 *    regression marker); a cut label ends in "...", never "~" (no change);
 *    hosts that disagree are a WARNING, not "!" (invalid);
 *  - no column, row or table of nothing: the workloads' tables leave out
 *    what no kernel has a value for; one kernel gets no patched, diff or
 *    verdict column;
 *  - one run of a kernel prints "n=1, no interval", not an interval of
 *    zero width, and too few runs has its own marker and wording, not
 *    the "invalid" of failed runs;
 *  - the boot in the timings is the host's clock; the guest's uptime is
 *    labelled "guest clock".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "fixtures_report.h"
#include "report.h"
#include "report_priv.h"
#include "report_result.h"
#include "stats.h"

static json_t *load(const char *path)
{
	struct strbuf err = STRBUF_INIT;
	json_t *j;

	if (report_load(path, &j, &err))
		fail_msg("%s: %s", path, err.buf);
	sb_release(&err);
	return j;
}

static json_t *analyze(json_t *s)
{
	struct strbuf err = STRBUF_INIT;
	json_t *r = report_analyze(s, &err);

	if (!r)
		fail_msg("%s", err.buf);
	sb_release(&err);
	json_decref(s);
	return r;
}

static void text_of(const char *path, void (*edit)(json_t *), struct strbuf *out)
{
	json_t *s = load(path), *r;

	if (edit)
		edit(s);
	r = analyze(s);
	fixture_render_text(r, out);
	json_decref(r);
}

/* The space-separated tokens of @line (at most @max), into @tok; how many. */
static size_t tokens(char *line, char **tok, size_t max)
{
	size_t n = 0;

	for (char *t = strtok(line, " "); t && n < max; t = strtok(NULL, " "))
		tok[n++] = t;
	return n;
}

/* A p or q cell, a change or "n/a": what stands before a row's marker. */
static int before_marker(const char *t)
{
	size_t n = strlen(t);

	return !strcmp(t, "n/a") || !strcmp(t, "-") || !strcmp(t, "<.001") ||
	       (n && t[n - 1] == '%') || (n >= 3 && t[0] >= '0' && t[0] <= '1' && t[1] == '.');
}

/*
 * The markers the table rows of @txt end in, and those its legend lists
 * ("Markers: X meaning" and the lines under it), as strings of symbols.
 */
static void markers(const char *txt, char *rows, char *legend)
{
	char *copy = strdup(txt), *save = NULL, *tok[32];
	int in_legend = 0;

	*rows = *legend = '\0';
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char line[256];
		size_t n;

		snprintf(line, sizeof(line), "%s", l);
		if (!strncmp(l, "Markers: ", 9))
			in_legend = 1;
		else if (strncmp(l, "         ", 9))
			in_legend = 0;
		n = tokens(line, tok, 32);
		if (in_legend && l[9] != ' ' && n >= 2) {
			const char *sym = tok[!strcmp(tok[0], "Markers:")];

			if (strcmp(sym, "n/a") && !strchr(legend, *sym))
				strncat(legend, sym, 1);
		} else if (!in_legend && n >= 3 && strlen(tok[n - 1]) == 1 &&
			   before_marker(tok[n - 2]) && !strchr(rows, *tok[n - 1])) {
			strncat(rows, tok[n - 1], 1);
		}
	}
	free(copy);
}

static int same_set(const char *a, const char *b)
{
	for (const char *p = a; *p; p++)
		if (!strchr(b, *p))
			return 0;
	for (const char *p = b; *p; p++)
		if (!strchr(a, *p))
			return 0;
	return 1;
}

/*
 * In the tables and notes (lines indented by two), no "-" or "~" token
 * but a marker (a row's last, a cell's after its change, a note's first);
 * no label cut with "~".
 */
static void one_meaning(const char *txt)
{
	char *copy = strdup(txt), *save = NULL, *tok[32];

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int table = !strncmp(l, "  ", 2);
		size_t n = tokens(l, tok, 32);

		for (size_t i = 1; table && i + 1 < n; i++) {
			size_t len = strlen(tok[i]);

			/* A cell's marker, after its change, in a table of two cells a line. */
			if ((!strcmp(tok[i], "-") || !strcmp(tok[i], "~")) &&
			    !(tok[i - 1][strlen(tok[i - 1]) - 1] == '%' || !strcmp(tok[i - 1], "n/a")))
				fail_msg("\"%s\" inside a line: %s", tok[i], tok[0]);
			if (len > 1 && tok[i][len - 1] == '~')
				fail_msg("a label cut with \"~\": %s", tok[i]);
		}
		if (n && strlen(tok[n - 1]) > 1 && tok[n - 1][strlen(tok[n - 1]) - 1] == '~')
			fail_msg("a label cut with \"~\": %s", tok[n - 1]);
	}
	free(copy);
}

/* Legend == rows, counters included: the fixture's counters show "?" rows. */
static void test_legend_matches_rows(void **state)
{
	static const char *const fixtures[] = {
		"tests/fixtures/reports/session-ab.json", "tests/fixtures/reports/session-small.json",
		"tests/fixtures/reports/nightly-b.json",
	};
	(void)state;

	for (size_t i = 0; i < sizeof(fixtures) / sizeof(*fixtures); i++) {
		struct strbuf t = STRBUF_INIT;
		char rows[32], legend[32];

		text_of(fixtures[i], NULL, &t);
		markers(t.buf, rows, legend);
		if (!*rows || !same_set(rows, legend))
			fail_msg("%s: rows show \"%s\", the legend lists \"%s\"", fixtures[i], rows,
				 legend);
		assert_non_null(strstr(t.buf, "n/a no value"));
		one_meaning(t.buf);
		sb_release(&t);
	}
}

/*
 * session-small lacks the host-adjusted metrics: their column of the
 * yield table, and kbuild's pgmajfault and aging's three rows, were all "-".
 */
static void test_no_empty_columns(void **state)
{
	struct strbuf t = STRBUF_INIT;
	const char *sec, *end;
	(void)state;

	text_of("tests/fixtures/reports/session-small.json", NULL, &t);
	sec = strstr(t.buf, "As the threads showed them");
	assert_non_null(sec);
	end = strstr(sec, "\nyp_shared (");
	assert_non_null(end);
	assert_null(strstr(sec, "(host-adjusted)"));
	for (const char *l = sec; l < end; l = strchr(l, '\n') + 1) {
		char line[256], *tok[32];
		size_t n, empty = 0;

		snprintf(line, sizeof(line), "%.*s", (int)(strchr(l, '\n') - l), l);
		n = tokens(line, tok, 32);
		for (size_t i = 1; i < n; i++)
			empty += !strcmp(tok[i], "-") || !strcmp(tok[i], "n/a");
		if (n > 1 && empty == n - 1)
			fail_msg("a row of nothing: %.*s", (int)(strchr(l, '\n') - l), l);
		/* At most one kernel in a cell lacks a value: never both, never twice on a line. */
		if (empty >= 2)
			fail_msg("an empty cell: %.*s", (int)(strchr(l, '\n') - l), l);
	}
	assert_null(strstr(sec, "pgmajfault"));
	assert_null(strstr(sec, "Total (ms)"));
	assert_non_null(strstr(sec, "Average (ms/gen)"));
	sb_release(&t);
}

/* One kernel: its median, its runs and the median's interval; nothing compared. */
static void test_one_kernel_columns(void **state)
{
	struct strbuf t = STRBUF_INIT;
	(void)state;

	text_of("tests/fixtures/reports/session-one.json", NULL, &t);
	assert_non_null(strstr(t.buf, "one kernel, no comparison"));
	assert_null(strstr(t.buf, "patched"));
	assert_null(strstr(t.buf, " diff"));
	assert_null(strstr(t.buf, " - "));
	assert_non_null(strstr(t.buf, "95% CI of median"));
	/* cs_per_sec_per_cpu_1cpu: 6 runs, its median and the median's interval. */
	assert_non_null(strstr(t.buf, "  cs_per_sec_per_cpu_1cpu     181200     6       ["));
	assert_null(strstr(t.buf, "Counters that moved most"));
	sb_release(&t);
}

/* Only the first measured run of each kernel and workload: n = 1 everywhere. */
static void one_run_each(json_t *s)
{
	json_t *runs = json_object_get(s, "runs"), *keep = json_array(), *seen = json_object(), *run;
	size_t i;

	json_array_foreach(runs, i, run) {
		char key[256];

		if (json_is_true(json_object_get(run, "warmup")) ||
		    strcmp(jget_str(run, "status", ""), "ok"))
			continue;
		snprintf(key, sizeof(key), "%s/%s", jget_str(run, "kernel", ""),
			 jget_str(run, "workload", ""));
		if (json_object_get(seen, key))
			continue;
		json_object_set_new(seen, key, json_true());
		json_array_append(keep, run);
	}
	json_object_set_new(s, "runs", keep);
	json_decref(seen);
}

/* Each "[a, b]" of @txt has a != b. */
static void no_zero_width(const char *txt)
{
	for (const char *p = strchr(txt, '['); p; p = strchr(p + 1, '[')) {
		const char *comma = strchr(p, ','), *close = strchr(p, ']');

		if (!comma || !close || comma > close)
			continue;
		if ((size_t)(close - comma - 2) == (size_t)(comma - p - 1) &&
		    !strncmp(p + 1, comma + 2, (size_t)(comma - p - 1)))
			fail_msg("an interval of zero width: %.*s", (int)(close - p + 1), p);
	}
}

static void test_one_run_no_interval(void **state)
{
	struct strbuf t = STRBUF_INIT;
	char rows[32], legend[32];
	(void)state;

	text_of("tests/fixtures/reports/session-ab.json", one_run_each, &t);
	assert_non_null(strstr(t.buf, "n=1, no interval"));
	no_zero_width(t.buf);
	/* Too few runs: its own marker and words, not "!" beside 0 failed runs. */
	assert_non_null(strstr(t.buf, "# too few runs to judge"));
	markers(t.buf, rows, legend);
	assert_non_null(strchr(rows, '#'));
	assert_null(strchr(rows, '!'));
	assert_true(same_set(rows, legend));
	sb_release(&t);
}

/* result_too_few_runs(): n < 2 of a kernel, but not when failed runs made it invalid. */
static void test_too_few_runs_predicate(void **state)
{
	struct result_record rec;
	(void)state;

	memset(&rec, 0, sizeof(rec));
	rec.verdict_id = "invalid";
	rec.verdict = VERDICT_INVALID;
	rec.side[0].n = 1;
	rec.side[1].n = 1;
	rec.reason = "fewer than 2 runs (baseline 1, patched 1)";
	assert_true(result_too_few_runs(&rec));
	rec.reason = "too many failed runs: 3 of 4 (limit 20%)";
	assert_false(result_too_few_runs(&rec));
	rec.reason = "fewer than 2 runs (baseline 1, patched 1)";
	rec.side[0].n = rec.side[1].n = 5;
	assert_false(result_too_few_runs(&rec));
	rec.side[0].n = 1;
	rec.verdict_id = "inconclusive";
	rec.verdict = VERDICT_INCONCLUSIVE;
	assert_false(result_too_few_runs(&rec));
	/* One kernel: no verdict at all. */
	rec.verdict_id = NULL;
	assert_false(result_too_few_runs(&rec));
}

/* Two hosts, the patched runs of host b 20 % slower: the hosts disagree. */
static json_t *two_hosts(void)
{
	json_t *runs = json_array();
	int seq = 0;

	for (int b = 0; b < 16; b++)
		for (int i = 0; i < 4; i++) {
			int k = i == 1 || i == 2, h = b % 2;
			double noise = 1 + 0.01 * sin(7.0 * b + 3.0 * i);

			json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:s, s:s, s:i,"
				" s:{s:f}}", "seq", ++seq, "block", b, "kernel", k ? "patched" : "base",
				"workload", "w", "status", "ok", "host", h ? "b" : "a", "slot", 0,
				"metrics", "p", 1000 * noise * (k && h ? 0.8 : 1)));
		}
	return json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:[{s:s}, {s:s}], s:{s:s, s:s},"
			 " s:[{s:s, s:s, s:[s], s:[{s:s, s:s}]}], s:{s:f}, s:o}",
		"schema", REPORT_SCHEMA, "generator", "name", "mglrulab", "version", "test",
		"host", "accel", "kvm", "kernels", "name", "base", "name", "patched",
		"design", "baseline", "base", "patched", "patched",
		"workloads", "name", "w", "type", "none", "primary", "p",
		"metrics", "name", "p", "better", "higher",
		"statistics", "threshold", 0.02, "runs", runs);
}

static void test_hosts_disagree_in_words(void **state)
{
	json_t *r = analyze(two_hosts());
	struct strbuf t = STRBUF_INIT;
	(void)state;

	fixture_render_text(r, &t);
	assert_non_null(strstr(t.buf, "    WARNING: hosts disagree"));
	assert_null(strstr(t.buf, "! hosts disagree"));
	sb_release(&t);
	json_decref(r);
}

/* The patched kernel's every metric a ten-thousandth of the baseline's: -100.0% each. */
static void collapse(json_t *s)
{
	json_t *run, *v;
	const char *k;
	size_t i;

	json_array_foreach(json_object_get(s, "runs"), i, run) {
		if (strcmp(jget_str(run, "kernel", ""), "patched"))
			continue;
		json_object_foreach(json_object_get(run, "metrics"), k, v)
			if (json_is_number(v))
				json_object_set_new(json_object_get(run, "metrics"), k,
						    json_real(json_number_value(v) * 1e-4));
	}
}

/* "[-100.0%, -100.0%]" overflowed its column: a line of 81. Every line stays in 80. */
static void test_wide_interval_fits(void **state)
{
	struct strbuf t = STRBUF_INIT;
	(void)state;

	text_of("tests/fixtures/reports/session-ab.json", collapse, &t);
	assert_non_null(strstr(t.buf, " [-100%, -100%] "));
	for (const char *l = t.buf; *l;) {
		size_t n = strcspn(l, "\n");
		char *line = strndup(l, n);

		if (text_safe_width(line) > 80)
			fail_msg("%zu columns: %s", text_safe_width(line), line);
		free(line);
		l += n + (l[n] == '\n');
	}
	sb_release(&t);
}

#define LONG_BASE "baseline-kernel-with-a-long-name-6.12"

/* The baseline kernel renamed LONG_BASE: longer than any column it heads. */
static void long_base_name(json_t *s)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(s, "kernels"), i, e)
		if (!strcmp(jget_str(e, "name", ""), "base"))
			json_object_set_new(e, "name", json_string(LONG_BASE));
	json_object_set_new(json_object_get(s, "design"), "baseline", json_string(LONG_BASE));
	json_array_foreach(json_object_get(s, "runs"), i, e)
		if (!strcmp(jget_str(e, "kernel", ""), "base"))
			json_object_set_new(e, "kernel", json_string(LONG_BASE));
}

/* A cut name ends in "...", in the title and the column heads alike, never in "~". */
static void test_cut_names(void **state)
{
	struct strbuf t = STRBUF_INIT;
	(void)state;

	text_of("tests/fixtures/reports/session-ab.json", long_base_name, &t);
	/* the title follows the answer (issue 50: the counts are the first line) */
	assert_non_null(strstr(t.buf, "\nmglrulab report: baseline-kernel-with-a-long... vs "
			       "patched\n"));
	assert_non_null(strstr(t.buf, " baseli...   patched "));
	assert_null(strstr(t.buf, "~ vs"));
	one_meaning(t.buf);
	sb_release(&t);
}

/* The line per host under a primary: the same words as the tables. */
static void test_host_line_words(void **state)
{
	struct result_host h = {
		.host = "a-very-long-host-name", .n = { 1, 5 }, .median = { 10, NAN },
		.ratio = NAN, .delta_pct = NAN, .lo = 1.1, .hi = 1.1, .pooled = 1,
	};
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	result_host_line(&h, &sb);
	assert_string_equal(sb.buf, "a-very-long-h...: 1/5 runs, 10 -> n/a, n/a n=1, no interval");
	sb_release(&sb);
}

/* Every run booted in 15.2 s on the host's clock; the guest's uptime said 161.8 s (icount). */
static void icount_boots(json_t *s)
{
	json_t *run;
	size_t i;

	json_array_foreach(json_object_get(s, "runs"), i, run) {
		json_t *t = json_object_get(run, "timings");

		json_object_set_new(t, "boot_s", json_real(161.8));
		json_object_set_new(t, "boot_wall_s", json_real(15.2));
	}
}

/*
 * The timings a user reads are the host's clock: "boot 161.8 s" of runs
 * that took 15 s was the guest's uptime under icount. A report from
 * before boot_wall_s still loads, its boot labelled as the guest's clock.
 */
static void test_boot_wall_clock(void **state)
{
	struct strbuf t = STRBUF_INIT, h = STRBUF_INIT;
	json_t *s = load("tests/fixtures/reports/session-ab.json"), *r;
	(void)state;

	icount_boots(s);
	r = analyze(s);
	fixture_render_text(r, &t);
	assert_non_null(strstr(t.buf, "per run (median): boot 15.20 s (guest clock 161.80 s),"));
	fixture_render_html(r, &h);
	assert_non_null(strstr(h.buf, "<tr><th>boot, host clock</th><td class=\"num\">15.20 s"));
	assert_non_null(strstr(h.buf, "<th>boot, guest clock</th>"));
	json_decref(r);
	sb_reset(&t);
	text_of("tests/fixtures/reports/session-ab.json", NULL, &t);
	assert_non_null(strstr(t.buf, "per run (median): boot 1.51 s (guest clock),"));
	/* The workload's own timing is the guest's too: labelled (the line wraps there). */
	assert_non_null(strstr(t.buf, "workload 4.10 s (guest\n         clock),"));
	sb_release(&t);
	sb_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legend_matches_rows),
		cmocka_unit_test(test_no_empty_columns),
		cmocka_unit_test(test_one_kernel_columns),
		cmocka_unit_test(test_one_run_no_interval),
		cmocka_unit_test(test_too_few_runs_predicate),
		cmocka_unit_test(test_hosts_disagree_in_words),
		cmocka_unit_test(test_boot_wall_clock),
		cmocka_unit_test(test_host_line_words),
		cmocka_unit_test(test_wide_interval_fits),
		cmocka_unit_test(test_cut_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
