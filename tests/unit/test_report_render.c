// SPDX-License-Identifier: GPL-2.0
/*
 * Report analysis and rendering: the same JSON gives byte-identical outputs,
 * hostile strings (markup, quotes, control characters, invalid UTF-8) come
 * out escaped in HTML and safe in text, and the fixture's known effects get
 * the verdicts they should.
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
#include <time.h>

#include "fixtures_report.h"
#include "escape.h"
#include "report.h"
#include "report_priv.h"
#include "report_view.h"
#include "stats.h"

/* Markup, quotes, an escape sequence, a bidi override and invalid UTF-8. */
static const char hostile[] = "<script>alert('x')</script>\"&amp;\x1b[31m\xe2\x80\xae\xff\xc0\xaf";

/* jansson checks UTF-8 on input; a session built in C can still carry anything. */
static json_t *raw_string(const char *s)
{
	return json_stringn_nocheck(s, strlen(s));
}

static json_t *hostile_session(void)
{
	json_t *s = fixture_session_ab(), *run, *k;
	size_t i;

	k = json_array_get(json_object_get(s, "kernels"), 1);
	json_array_append_new(json_object_get(k, "series"),
			      json_pack("{s:o, s:o}", "subject", raw_string(hostile), "hash", raw_string(hostile)));
	json_object_set_new(json_object_get(s, "host"), "cpu", raw_string(hostile));
	json_object_set_new(json_object_get(s, "design"), "order", raw_string(hostile));
	json_array_foreach(json_object_get(s, "runs"), i, run) {
		json_t *m = json_object_get(run, "metrics");

		if (json_is_object(m))
			json_object_set_new_nocheck(m, hostile, json_real(1.0 + (double)(i % 7)));
		json_object_set_new(run, "guest_messages", json_pack("[o]", raw_string(hostile)));
		if (!strcmp(json_string_value(json_object_get(run, "status")), "failed"))
			json_object_set_new(run, "failure", raw_string(hostile));
	}
	return s;
}

static int valid_utf8(const char *s, size_t len)
{
	while (len) {
		unsigned cp;
		size_t n = utf8_decode((const unsigned char *)s, len, &cp);

		if (!n)
			return 0;
		s += n, len -= n;
	}
	return 1;
}

/* No control characters, valid UTF-8, and lines of at most @width columns (0: any). */
static void check_text_safe(const struct strbuf *t, size_t width)
{
	const char *line = t->buf;

	assert_true(valid_utf8(t->buf, t->len));
	for (size_t i = 0; i < t->len; i++) {
		unsigned char c = (unsigned char)t->buf[i];
		if ((c < 0x20 && c != '\n') || c == 0x7f)
			fail_msg("control character 0x%02x at offset %zu", c, i);
	}
	while (*line) {
		size_t n = strcspn(line, "\n");
		char *l = strndup(line, n);

		size_t w = text_safe_width(l);

		free(l);
		if (width && w > width)
			fail_msg("line %zu columns long", w);
		line += n + (line[n] == '\n');
	}
}

static void test_hostile_html(void **state)
{
	json_t *s = hostile_session(), *r = fixture_analyze(s);
	struct strbuf h = STRBUF_INIT;
	(void)state;

	fixture_render_html(r, &h);
	assert_true(valid_utf8(h.buf, h.len));
	assert_null(strstr(h.buf, "<script"));
	assert_null(strstr(h.buf, "\x1b"));
	assert_null(strstr(h.buf, "\xe2\x80\xae"));
	assert_null(strstr(h.buf, "'x'"));
	assert_non_null(strstr(h.buf, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&amp;amp;"));
	/* No scripts, no external resources, one document. */
	assert_null(strstr(h.buf, "src="));
	assert_null(strstr(h.buf, "href=\"http"));
	assert_int_equal(strstr(h.buf, "</html>") - h.buf + 8, (long)h.len);
	sb_release(&h);
	json_decref(r);
	json_decref(s);
}

static void test_hostile_text(void **state)
{
	json_t *s = hostile_session(), *r = fixture_analyze(s);
	struct strbuf t = STRBUF_INIT, b = STRBUF_INIT;
	(void)state;

	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	assert_non_null(strstr(t.buf, "<script>alert('x')</script>\"&amp;?[31m???"));
	fixture_render_benchfmt(r, NULL, &b);
	check_text_safe(&b, 0);
	/* Every benchmark line has a name, an iteration count and value/unit pairs. */
	for (const char *l = b.buf; (l = strstr(l, "\nBenchmark")); l++) {
		const char *end = strchr(l + 1, '\n');
		int fields = 0;
		for (const char *p = l + 1; p < end; p++)
			fields += *p == ' ';
		assert_true(fields >= 3 && fields % 2 == 1);
	}
	sb_release(&t);
	sb_release(&b);
	json_decref(r);
	json_decref(s);
}

/* Rename kernel @from to @to everywhere the session names it. */
static void rename_kernel(json_t *s, const char *from, const char *to)
{
	json_t *design = json_object_get(s, "design"), *k, *run;
	size_t i;

	json_array_foreach(json_object_get(s, "kernels"), i, k)
		if (!strcmp(json_string_value(json_object_get(k, "name")), from))
			json_object_set_new(k, "name", json_string(to));
	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "kernel")), from))
			json_object_set_new(run, "kernel", json_string(to));
	if (!strcmp(json_string_value(json_object_get(design, "baseline")), from))
		json_object_set_new(design, "baseline", json_string(to));
	if (!strcmp(json_string_value(json_object_get(design, "patched")), from))
		json_object_set_new(design, "patched", json_string(to));
}

/*
 * Go's benchmark format: a configuration key starts with a lower-case
 * letter and holds no space, no upper-case letter and no colon but the one
 * that ends it; otherwise readers take the line for something else.
 */
static void test_benchfmt_config_keys(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf b = STRBUF_INIT;
	json_t *design = json_object_get(s, "design");
	char *base = strdup(json_string_value(json_object_get(design, "baseline")));
	char *patched = strdup(json_string_value(json_object_get(design, "patched")));
	int lines = 0;
	(void)state;

	rename_kernel(s, patched, "Kernel B:patched");
	rename_kernel(s, base, "Kernel-A");
	free(base);
	free(patched);
	r = fixture_analyze(s);
	fixture_render_benchfmt(r, NULL, &b);
	for (const char *l = b.buf; *l && *l != '\n'; l = strchr(l, '\n') + 1) {
		const char *colon = strstr(l, ": ");
		const char *p;

		assert_non_null(colon);
		if (!(*l >= 'a' && *l <= 'z'))
			fail_msg("config key does not start with a lower-case letter: %.40s", l);
		for (p = l; p < colon; p++)
			if (*p == ' ' || *p == ':' || (*p >= 'A' && *p <= 'Z'))
				fail_msg("bad character '%c' in config key: %.60s", *p, l);
		lines++;
	}
	assert_true(lines >= 9);
	/* The kernels' own names are still there, in the values. */
	assert_non_null(strstr(b.buf, "\nmglrulab-kernel-kernel-a: Kernel-A "));
	assert_non_null(strstr(b.buf, "\nmglrulab-kernel-kernel_b_patched: Kernel B:patched "));
	sb_release(&b);
	json_decref(r);
	json_decref(s);
}

/*
 * Many metrics and runs: finding each value's series by a scan, counting
 * failures per run per series, and matching geomean cells by search were
 * quadratic (about a minute of CPU under ASan for 20,040 metrics; now a few
 * seconds). A bound in seconds fails on a slower machine and passes a
 * quadratic analysis on a faster one, so the test asserts the growth:
 * four times the runs must cost well under sixteen times the CPU.
 * bench/report-bench has the figures.
 */
static double analyse_cpu(int n)
{
	enum { DENSE = 40, RUNS = 400 };
	json_t *s = json_pack("{s:s, s:{s:s, s:s}, s:{s:s}, s:{s:s, s:s}, s:{s:i, s:i},"
			      " s:[{s:s}, {s:s}], s:[]}",
			      "schema", REPORT_SCHEMA, "generator", "name", "t", "version", "0",
			      "host", "accel", "tcg", "design", "baseline", "a", "patched", "b",
			      "statistics", "resamples", 100, "counter_resamples", 100,
			      "kernels", "name", "a", "name", "b", "runs");
	json_t *runs = json_object_get(s, "runs"), *r;
	struct strbuf out = STRBUF_INIT;
	char name[32];
	clock_t t0;
	double secs;
	int seq = 0;

	/* A sparse part (a metric per pair of runs) and a dense one (geomean). */
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "m%d", i / 2);
		json_array_append_new(runs, json_pack("{s:i, s:s, s:s, s:s, s:{s:i}}", "seq", ++seq,
						      "kernel", i % 2 ? "b" : "a", "workload", "sparse",
						      "status", "ok", "metrics", name, i));
	}
	for (int i = 0; i < RUNS; i++) {
		json_t *m = json_object();

		for (int k = 0; k < DENSE; k++) {
			snprintf(name, sizeof(name), "d%d", k);
			json_object_set_new(m, name, json_real(100 + k + (i % 7)));
		}
		json_array_append_new(runs, json_pack("{s:i, s:s, s:s, s:s, s:o}", "seq", ++seq,
						      "kernel", i % 2 ? "b" : "a", "workload", "dense",
						      "status", "ok", "metrics", m));
	}
	t0 = clock();
	r = fixture_analyze(s);
	fixture_render_text(r, &out);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_int_equal(json_array_size(json_object_get(r, "results")), n / 2 + DENSE);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(r, "geomean"), 1),
							 "of")), DENSE);
	print_message("%d metrics: %.2f s of CPU\n", n / 2 + DENSE, secs);
	sb_release(&out);
	json_decref(r);
	json_decref(s);
	return secs;
}

static void test_many_metrics_fast(void **state)
{
	double small, large;
	(void)state;

	small = analyse_cpu(6000);
	large = analyse_cpu(24000);
	/* linear: 4x (less with the fixed dense part), n log n: about 4.6x, quadratic: 16x */
	if (large > 9 * small + 0.5)
		fail_msg("4x the runs took %.1fx the CPU (%.2f s, then %.2f s): worse than n log n",
			 large / small, small, large);
}

/*
 * The report shares the session's members instead of copying them: a deep
 * copy doubled the memory of a large report. The session stays as it was.
 */
static void test_report_shares_session(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	char *before = json_dumps(s, JSON_SORT_KEYS), *after;
	(void)state;

	r = fixture_analyze(s);
	assert_ptr_equal(json_object_get(r, "runs"), json_object_get(s, "runs"));
	assert_ptr_equal(json_object_get(r, "kernels"), json_object_get(s, "kernels"));
	assert_ptr_not_equal(json_object_get(r, "statistics"), json_object_get(s, "statistics"));
	assert_null(json_object_get(s, "results"));
	after = json_dumps(s, JSON_SORT_KEYS);
	assert_string_equal(before, after);
	free(before);
	free(after);
	json_decref(r);
	json_decref(s);
}

static void test_byte_identical(void **state)
{
	json_t *s = fixture_session_ab();
	struct strbuf out[2][4];
	(void)state;

	for (int round = 0; round < 2; round++) {
		json_t *r = fixture_analyze(s);

		for (int i = 0; i < 4; i++)
			out[round][i] = (struct strbuf)STRBUF_INIT;
		fixture_render_html(r, &out[round][0]);
		fixture_render_text(r, &out[round][1]);
		fixture_render_benchfmt(r, NULL, &out[round][2]);
		report_dump(r, &out[round][3]);
		json_decref(r);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(out[0][i].len, out[1][i].len);
		assert_memory_equal(out[0][i].buf, out[1][i].buf, out[0][i].len);
		sb_release(&out[0][i]);
		sb_release(&out[1][i]);
	}
	json_decref(s);
}

/* Re-analysing a written report gives the same report: results are derived, not inputs. */
static void test_reanalyze_idempotent(void **state)
{
	json_t *s = fixture_session_ab(), *r1 = fixture_analyze(s), *r2 = fixture_analyze(r1);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	(void)state;

	report_dump(r1, &a);
	report_dump(r2, &b);
	assert_string_equal(a.buf, b.buf);
	sb_release(&a);
	sb_release(&b);
	json_decref(r1);
	json_decref(r2);
	json_decref(s);
}

static const json_t *result_for(const json_t *r, const char *workload, const char *metric)
{
	json_t *res;
	size_t i;

	json_array_foreach(json_object_get(r, "results"), i, res)
		if (!strcmp(json_string_value(json_object_get(res, "workload")), workload) &&
		    !strcmp(json_string_value(json_object_get(res, "metric")), metric))
			return res;
	fail_msg("no result for %s/%s", workload, metric);
	return NULL;
}

static const char *verdict(const json_t *r, const char *workload, const char *metric)
{
	return json_string_value(json_object_get(result_for(r, workload, metric), "verdict"));
}

static void test_fixture_verdicts(void **state)
{
	json_t *s = fixture_session_ab(), *r = fixture_analyze(s);
	(void)state;

	/* +2.3 % at CV 0.4 %, n = 10: the effect the series claims. */
	assert_string_equal(verdict(r, "yp_shared", "cs_per_sec_per_cpu_2cpu"), "improvement");
	assert_string_equal(verdict(r, "kbuild", "elapsed_s"), "regression");
	assert_string_equal(verdict(r, "aging", "avg_ms_per_gen"), "improvement");
	assert_string_equal(verdict(r, "yp_private", "cs_per_sec_per_cpu_1cpu"), "no-change");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r, "summary"), "runs_failed")), 1);
	/* The failed run is counted against its workload, not silently dropped. */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
		result_for(r, "yp_shared", "cs_per_sec_per_cpu_2cpu"), "patched"), "failed")), 1);
	/* TCG is a warning in the report. */
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(r, "warnings"), 0), "kind")), "accel");
	/* Counters are sorted by size of change. */
	{
		json_t *c = json_object_get(r, "counter_results"), *x;
		double prev = INFINITY;
		size_t i;

		assert_true(json_array_size(c) > 0);
		json_array_foreach(c, i, x) {
			double ratio = json_number_value(json_object_get(json_object_get(x, "comparison"), "ratio"));
			double d = json_is_number(json_object_get(json_object_get(x, "comparison"), "ratio")) ?
				fabs(log(ratio)) : -1;
			assert_true(d <= prev);
			prev = d;
		}
	}
	json_decref(r);
	json_decref(s);
}

static void test_partial_session_warns(void **state)
{
	json_t *s = fixture_session_ab(), *r, *w;
	size_t i;
	int found = 0;
	(void)state;

	json_object_set_new(json_object_get(s, "session"), "complete", json_false());
	json_object_set_new(s, "plan", json_pack("[{},{},{}]"));
	r = fixture_analyze(s);
	json_array_foreach(json_object_get(r, "warnings"), i, w)
		found |= !strcmp(json_string_value(json_object_get(w, "kind")), "partial");
	assert_true(found);
	json_decref(r);
	json_decref(s);
}

/*
 * A sequential session the budget stopped: both outputs say how many
 * workloads it left undecided and the line that goes on, with twice the
 * budget (issue 25: a budget that ran out must not be a dead end).
 */
static void test_budget_stop_says_resume(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf html = STRBUF_INIT, text = STRBUF_INIT, want = STRBUF_INIT;
	const char *id;
	(void)state;

	json_object_set_new(json_object_get(s, "design"), "sequential",
			    json_pack("{s:f, s:i, s:i, s:i, s:f, s:f}", "alpha", 0.05, "min_runs", 6,
				      "max_runs", 20, "step", 2, "rho", 1.5, "budget_s", 1500.0));
	json_object_set_new(s, "sequential",
			    json_pack("{s:{s:{s:b, s:s}, s:{s:b, s:s, s:i, s:i}}, s:[]}", "workloads",
				      "kbuild", "stopped", 1, "why", "budget", "aging", "stopped", 1,
				      "why", "decided", "look", 1, "runs_per_kernel", 6, "looks"));
	id = json_string_value(json_object_get(json_object_get(s, "session"), "id"));
	assert_non_null(id);
	r = fixture_analyze(s);
	fixture_render_text(r, &text);
	fixture_render_html(r, &html);
	sb_addf(&want, "the budget (1500 s of runs) ran out with 1 workload undecided; to go on "
		"where it stopped: mglrulab run --resume %s --budget 3000s", id);
	/* the text report folds long lines: compare without the folding */
	for (char *p = text.buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	struct strbuf flat = STRBUF_INIT;
	for (const char *p = text.buf; *p; p++)
		if (!(*p == ' ' && flat.len && flat.buf[flat.len - 1] == ' '))
			sb_addc(&flat, *p);
	assert_non_null(strstr(sb_str(&flat), sb_str(&want)));
	assert_non_null(strstr(html.buf, sb_str(&want)));
	assert_non_null(strstr(html.buf, "stopped by the budget, undecided"));
	sb_release(&flat);
	sb_release(&want);
	sb_release(&html);
	sb_release(&text);
	json_decref(r);
	json_decref(s);
}

/* A workload with its own runs = N is named in the design line of both outputs. */
static void test_per_workload_runs_shown(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf html = STRBUF_INIT, text = STRBUF_INIT;
	(void)state;

	json_object_set_new(report_find_named(s, "workloads", "kbuild"), "runs", json_integer(3));
	/* Equal to the default: not an exception. */
	json_object_set_new(report_find_named(s, "workloads", "aging"), "runs", json_integer(10));
	r = fixture_analyze(s);
	fixture_render_text(r, &text);
	fixture_render_html(r, &html);
	assert_non_null(strstr(text.buf, "10 runs per kernel (kbuild: 3), 1 warm-up"));
	assert_non_null(strstr(html.buf, "10 runs per kernel (kbuild: 3) (fresh boot each)"));
	assert_null(strstr(text.buf, "aging: 10"));
	sb_release(&html);
	sb_release(&text);
	json_decref(r);
	json_decref(s);
}

/*
 * How the slots shared the runs (design.partners, issue 49) is said beside
 * how many guests ran at once; a value the lab never writes is not shown.
 */
static void test_partners_shown(void **state)
{
	json_t *s = fixture_session_ab(), *design = json_object_get(s, "design"), *r;
	struct strbuf html = STRBUF_INIT, text = STRBUF_INIT;
	(void)state;

	json_object_set_new(design, "slots", json_integer(2));
	json_object_set_new(design, "alone", json_pack("[s]", "kbuild"));
	json_object_set_new(design, "partners", json_string("balanced"));
	r = fixture_analyze(s);
	fixture_render_text(r, &text);
	fixture_render_html(r, &html);
	assert_non_null(strstr(text.buf, ", 2 guests at once, partners balanced (alone: kbuild)"));
	assert_non_null(strstr(html.buf, ", 2 guests at once, partners balanced (alone: kbuild)"));
	json_decref(r);
	sb_reset(&text);
	json_object_set_new(design, "partners", raw_string(hostile));
	r = fixture_analyze(s);
	fixture_render_text(r, &text);
	assert_non_null(strstr(text.buf, ", 2 guests at once (alone: kbuild)"));
	sb_release(&html);
	sb_release(&text);
	json_decref(r);
	json_decref(s);
}

/* A run on a busy host says so in the HTML runs table; a quiet one says nothing. */
static void test_busy_host_noted(void **state)
{
	json_t *s = fixture_session_ab(), *r, *runs;
	struct strbuf html = STRBUF_INIT;
	(void)state;

	runs = json_object_get(s, "runs");
	json_object_set_new(json_array_get(runs, 0), "host_load",
			    json_pack("{s:b, s:f, s:f}", "busy", 1, "other_cpus", 1.5,
				      "steal_s", 2.0));
	json_object_set_new(json_array_get(runs, 1), "host_load",
			    json_pack("{s:b, s:f, s:f}", "busy", 0, "other_cpus", 0.1,
				      "steal_s", 0.0));
	r = fixture_analyze(s);
	fixture_render_html(r, &html);
	assert_non_null(strstr(html.buf, "busy host: others used 1.50 CPUs, steal 2.00 s"));
	assert_null(strstr(html.buf, "others used 0.10 CPUs"));
	sb_release(&html);
	json_decref(r);
	json_decref(s);
}

static void test_all_failed_is_invalid(void **state)
{
	json_t *s = fixture_session_ab(), *r, *run;
	size_t i;
	(void)state;

	json_array_foreach(json_object_get(s, "runs"), i, run) {
		if (!strcmp(json_string_value(json_object_get(run, "kernel")), "patched") &&
		    !strcmp(json_string_value(json_object_get(run, "workload")), "aging")) {
			json_object_set_new(run, "status", json_string("failed"));
			json_object_set_new(run, "failure", json_string("boot failure"));
		}
	}
	r = fixture_analyze(s);
	assert_string_equal(verdict(r, "aging", "avg_ms_per_gen"), "invalid");
	json_decref(r);
	json_decref(s);
}

static void test_single_kernel(void **state)
{
	struct strbuf err = STRBUF_INIT, t = STRBUF_INIT, h = STRBUF_INIT;
	json_t *s, *r, *res;
	size_t i;
	(void)state;

	if (report_load("tests/fixtures/reports/session-one.json", &s, &err))
		fail_msg("%s", err.buf);
	r = fixture_analyze(s);
	assert_true(json_array_size(json_object_get(r, "results")) > 0);
	json_array_foreach(json_object_get(r, "results"), i, res) {
		/* Nothing was compared, so there is no verdict, not an "invalid" one. */
		assert_null(json_object_get(res, "verdict"));
		assert_true(json_is_number(json_object_get(json_object_get(res, "baseline"), "median")));
	}
	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	assert_non_null(strstr(t.buf, "one kernel, no comparison"));
	fixture_render_html(r, &h);
	assert_non_null(strstr(h.buf, "one kernel, no comparison"));
	sb_release(&err);
	sb_release(&t);
	sb_release(&h);
	json_decref(r);
	json_decref(s);
}

/* The reports' verdict words come from the stats table, by JSON id. */
static void test_verdict_display(void **state)
{
	(void)state;
	for (int v = VERDICT_IMPROVEMENT; v <= VERDICT_INVALID; v++) {
		const char *id = stats_verdict_id(v);

		assert_string_equal(verdict_symbol(id), stats_verdict_name(v));
		assert_string_equal(verdict_marker(id), stats_verdict_marker(v));
		assert_string_equal(verdict_label(id), stats_verdict_label(v));
	}
	assert_string_equal(verdict_symbol("within-noise"), "\u2248");
	assert_string_equal(verdict_marker("nonsense"), "!");
	assert_string_equal(verdict_symbol(NULL), "invalid");
}

/* The result line of benchmark @name (with its trailing space) in @b, or NULL. */
static const char *bench_line(const char *b, const char *name)
{
	for (const char *l = strstr(b, name); l; l = strstr(l + 1, name))
		if (l == b || l[-1] == '\n')
			return l;
	return NULL;
}

/* Does the result line at @l hold the pair " VALUE UNIT"? */
static int line_has(const char *l, const char *pair)
{
	const char *end = strchr(l, '\n'), *p = strstr(l, pair);
	size_t len = strlen(pair);

	return p && p < end && (p[len] == ' ' || p[len] == '\n');
}

/* Every unit of every result line is one word with exactly @dashes '-'. */
static void check_unit_dashes(const char *b, int dashes)
{
	for (const char *l = strstr(b, "\nBenchmark"); l; l = strstr(l + 1, "\nBenchmark")) {
		const char *end = strchr(l + 1, '\n'), *w = strchr(l + 1, ' ');
		int field = 0;

		for (; w && w < end; w = strchr(w + 1, ' ')) {
			const char *next = strchr(w + 1, ' ');
			int n = 0, idx = field++;

			if (!next || next > end)
				next = end;
			if (idx == 0 || idx % 2 == 1)
				continue;	/* the iteration count or a value */
			for (const char *p = w + 1; p < next; p++)
				n += *p == '-';
			if (n != dashes)
				fail_msg("unit '%.*s' has %d '-'", (int)(next - w - 1), w + 1, n);
		}
	}
}

/*
 * The Go benchmark format's units (issue 29): "METRIC-UNIT" where UNIT is
 * one benchstat scales (sec/op for seconds, ms converted; B for MiB and
 * KiB; rates such as ops/s kept), one Unit line per unit with the metric's
 * direction, and counters only when asked. The units used to be the bare
 * metric names ("elapsed_s"), which benchstat can neither scale nor tidy.
 */
static void test_benchfmt_units(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf b = STRBUF_INIT, c = STRBUF_INIT;
	const char *l;
	(void)state;

	rename_kernel(s, "patched", "v6-2");
	r = fixture_analyze(s);
	fixture_render_benchfmt(r, NULL, &b);
	assert_non_null(strstr(b.buf, "\nUnit elapsed_s-sec/op better=lower\n"));
	assert_non_null(strstr(b.buf, "\nUnit avg_ms_per_gen-sec/op better=lower\n"));
	assert_non_null(strstr(b.buf, "\nUnit ops_per_sec-ops/s better=higher\n"));
	assert_non_null(strstr(b.buf, "\nUnit cs_per_sec_per_cpu_2cpu-switches/s better=higher\n"));
	assert_null(strstr(b.buf, " elapsed_s\n"));
	assert_null(strstr(b.buf, " elapsed_s "));
	/* 2.3884 ms per generation is 2.3884e-3 sec/op, as exact as the input */
	l = bench_line(b.buf, "BenchmarkAging/kernel=base ");
	assert_non_null(l);
	assert_true(line_has(l, " 2.3884e-3 avg_ms_per_gen-sec/op"));
	/* a last "-2" would be GOMAXPROCS to x/perf: the kernel is v6_2 in the name */
	assert_non_null(bench_line(b.buf, "BenchmarkKbuild/kernel=v6_2 1 "));
	assert_null(strstr(b.buf, "kernel=v6-2"));
	assert_non_null(strstr(b.buf, "\nmglrulab-kernel-v6-2: v6-2 "));
	check_unit_dashes(b.buf, 1);
	assert_null(strstr(b.buf, "vmstat.pgfault"));
	/* --benchfmt-counters: the counters after the metrics, no unit part */
	fixture_render_benchfmt(r, &(struct report_benchfmt_opts){ .counters = 1 }, &c);
	l = bench_line(c.buf, "BenchmarkYp_shared/kernel=base ");
	assert_non_null(l);
	assert_true(line_has(l, " 49236 vmstat.pgfault"));
	assert_true(line_has(l, " 2471705 tracepoints.sched:sched_switch"));
	assert_int_equal(strncmp(c.buf, b.buf, (size_t)(strstr(b.buf, "\nBenchmark") - b.buf)), 0);
	sb_release(&b);
	sb_release(&c);
	json_decref(r);
	json_decref(s);
}

/* An "attribution" member as run --attribute writes it, with hostile names in it. */
static json_t *with_attribution(json_t *s)
{
	json_t *fns = json_pack("[{s:s, s:f, s:f, s:f, s:f, s:f}, {s:o, s:f, s:f, s:f, s:n, s:f}]",
		"function", "__x64_sys_sched_yield", "base", 19.0, "patched", 120.0, "delta", 101.0,
		"share_of_change", 0.97, "spread", 0.0,
		"function", raw_string(hostile), "base", 3.0, "patched", 5.0, "delta", 2.0,
		"share_of_change", "spread", 4.5);
	json_t *win = json_pack("{s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:o, "
		"s:{s:o, s:f, s:f, s:f}}", "window", 1,
		"base_per_unit", 2600.0, "patched_per_unit", 2704.0, "base_kernel_per_unit", 2100.0,
		"patched_kernel_per_unit", 2203.0, "noise", 4.5, "threshold", 6.75, "beyond_noise", 1,
		"nfunctions", 900,
		"more", 898, "functions", fns, "accounts", "metric", raw_string(hostile),
		"measured_pct", -3.74, "predicted_pct", -3.85, "predicted_kernel_pct", -4.67);

	json_object_set_new(s, "attribution", json_pack(
		"{s:s, s:s, s:i, s:s, s:[s, s], s:[{s:s, s:[{s:s, s:o, s:f}], s:{s:f, s:f}, s:[o]},"
		" {s:o, s:[], s:s}]}",
		"method", "QEMU TCG plugin", "which", "changed", "runs_per_kernel", 2,
		"cannot_see", "instructions only", "kernels", "baseline", "patched",
		"workloads", "workload", "yield_shared", "primaries", "metric", "switches_per_s",
		"verdict", raw_string(hostile), "delta_pct", -3.8, "seconds", "baseline", 24.0,
		"patched", 25.0, "windows", win,
		"workload", raw_string(hostile), "primaries", "skipped", "no primary changed"));
	return s;
}

/* @text with every line break and the indent after it as one space: wrapped words joined. */
static char *unwrapped(const char *text)
{
	char *out = malloc(strlen(text) + 1), *o = out;

	assert_non_null(out);
	for (const char *p = text; *p; p++) {
		if (*p != '\n') {
			*o++ = *p;
			continue;
		}
		while (p[1] == ' ')
			p++;
		*o++ = ' ';
	}
	*o = '\0';
	return out;
}

static void test_attribution_rendered(void **state)
{
	json_t *s = with_attribution(fixture_session_ab()), *r = fixture_analyze(s);
	struct strbuf t = STRBUF_INIT, h = STRBUF_INIT;
	(void)state;

	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	assert_non_null(strstr(t.buf, "\nAttribution (instructions per unit, 2 runs per kernel"));
	assert_non_null(strstr(t.buf, "      19.0      120.0    +101.0    97%     0.0  "
				      "__x64_sys_sched_yield\n"));
	assert_non_null(strstr(t.buf, "1 kernel function moved by more than 6.8 per unit (1.5"));
	assert_non_null(strstr(t.buf, "no primary changed"));
	assert_non_null(strstr(t.buf, "What this cannot see: instructions only."));
	/* the prediction from the table beside the measured change (words may wrap) */
	char *flat = unwrapped(t.buf);
	assert_non_null(strstr(flat, "this table predicts <script>"));
	assert_non_null(strstr(flat, "-3.9% (from the kernel's instructions alone -4.7%), "
				     "measured -3.7%."));
	free(flat);
	fixture_render_html(r, &h);
	assert_true(valid_utf8(h.buf, h.len));
	assert_null(strstr(h.buf, "<script"));
	assert_non_null(strstr(h.buf, "<section id=\"attribution\">"));
	assert_non_null(strstr(h.buf, "<code>__x64_sys_sched_yield</code>"));
	assert_non_null(strstr(h.buf, "<strong>+101.0</strong>"));
	assert_non_null(strstr(h.buf, "-3.9% (from the kernel's instructions alone -4.7%), "
				      "measured -3.7%."));
	/* a member from before the confirming runs says nothing of them */
	assert_null(strstr(t.buf, "to confirm"));
	assert_null(strstr(h.buf, "to confirm"));
	sb_release(&t);
	sb_release(&h);
	json_decref(r);
	json_decref(s);
}

/*
 * A table whose noise set bursty functions aside names whose spread the
 * noise is and how many it left out, and takes a row's "named" as it is:
 * a bursty row past the threshold but not its own spread is not bold.
 */
static void test_attribution_bursts(void **state)
{
	json_t *s = with_attribution(fixture_session_ab()), *r;
	json_t *w = json_array_get(json_object_get(json_object_get(s, "attribution"), "workloads"), 0);
	json_t *win = json_array_get(json_object_get(w, "windows"), 0);
	json_t *fns = json_object_get(win, "functions");
	struct strbuf t = STRBUF_INIT, h = STRBUF_INIT;
	(void)state;

	json_object_set_new(win, "noise_function", raw_string(hostile));
	json_object_set_new(win, "bursts", json_integer(2));
	json_object_set_new(json_array_get(fns, 0), "named", json_true());
	json_object_set_new(json_array_get(fns, 1), "named", json_false());
	json_array_insert_new(fns, 1, json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:b, s:b}",
		"function", "crc32_body", "base", 1576.0, "patched", 0.0, "delta", -1576.0,
		"share_of_change", -15.0, "spread", 3152.0, "bursty", 1, "named", 0));
	r = fixture_analyze(s);
	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	char *flat = unwrapped(t.buf);
	assert_non_null(strstr(flat, "(1.5 times the noise, 4.5: the largest spread between runs "
				     "of one kernel, <script>"));
	assert_non_null(strstr(flat, " 2 functions that ran in bursts (a spread at least their "
				     "mean) are held to their own spread instead."));
	free(flat);
	/* named by the row's own flag: one, not crc32_body's -1576 past 6.75 */
	struct view_attribution va;
	struct strbuf err = STRBUF_INIT, b = STRBUF_INIT;

	assert_int_equal(report_attr_decode(s, &va, &err), 0);
	report_attr_brief(&va, &b, 0);
	flat = unwrapped(b.buf);
	assert_non_null(strstr(flat, "yield_shared, phase 1: __x64_sys_sched_yield +101.0"));
	assert_null(strstr(flat, "crc32_body"));
	free(flat);
	report_attr_release(&va);
	sb_release(&err);
	sb_release(&b);
	fixture_render_html(r, &h);
	assert_null(strstr(h.buf, "<script"));
	assert_non_null(strstr(h.buf, "<strong>+101.0</strong>"));
	assert_null(strstr(h.buf, "<strong>-1576.0</strong>"));
	assert_non_null(strstr(h.buf, "of one kernel, &lt;script&gt;"));
	json_decref(r);
	json_decref(s);
	sb_release(&t);
	sb_release(&h);
}

/* A table confirmed with more runs says so, in the header and on its workload's line. */
static void test_attribution_confirmed(void **state)
{
	json_t *s = with_attribution(fixture_session_ab()), *r;
	json_t *a = json_object_get(s, "attribution");
	struct strbuf t = STRBUF_INIT, h = STRBUF_INIT;
	(void)state;

	json_object_set_new(a, "confirm_runs_per_kernel", json_integer(5));
	json_object_set_new(json_array_get(json_object_get(a, "workloads"), 0), "runs_per_kernel",
			    json_integer(5));
	r = fixture_analyze(s);
	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	char *flat = unwrapped(t.buf);
	assert_non_null(strstr(flat, "Attribution (instructions per unit, 2 runs per kernel; "
				     "docs/attribution.md): (5 runs per kernel where the first "
				     "look names a function, to confirm it) "));
	assert_non_null(strstr(flat, "(attribution runs: 5 per kernel to confirm what 2 named; "
				     "24 s baseline, 25 s patched)"));
	free(flat);
	fixture_render_html(r, &h);
	assert_non_null(strstr(h.buf, "2 attribution runs per kernel, 5 to confirm where the first "
				      "look names a function after the verdicts"));
	assert_non_null(strstr(h.buf, "Attribution runs: 5 per kernel to confirm what 2 named; "
				      "24 s baseline, 25 s patched.</p>"));
	json_decref(r);

	/* not done: the header, then the reason alone, no word on confirming */
	json_t *un = json_deep_copy(s);
	json_t *ua = json_object_get(un, "attribution");

	json_object_set_new(ua, "unavailable", json_string("the attribution plugin is not built"));
	json_object_del(ua, "workloads");
	r = fixture_analyze(un);
	sb_reset(&t);
	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	flat = unwrapped(t.buf);
	assert_non_null(strstr(flat, "2 runs per kernel; docs/attribution.md): not done: the "
				     "attribution plugin is not built "));
	assert_null(strstr(flat, "to confirm"));
	free(flat);
	json_decref(r);
	json_decref(un);
	sb_release(&t);
	sb_release(&h);

	/* a workload's runs that are not a number: refused, naming the member */
	struct view_attribution va;
	struct strbuf err = STRBUF_INIT;

	json_object_set_new(json_array_get(json_object_get(a, "workloads"), 0), "runs_per_kernel",
			    json_string("five"));
	assert_int_equal(report_attr_decode(s, &va, &err), -1);
	assert_non_null(strstr(err.buf, "attribution.workloads[0].runs_per_kernel: expected a "
					"number"));
	report_attr_release(&va);
	sb_release(&err);
	json_decref(s);
}

/* A bisection's brief of the same member: the named row, the skipped workload, escaped. */
static void test_attribution_brief(void **state)
{
	json_t *s = with_attribution(fixture_session_ab());
	struct view_attribution va;
	struct strbuf err = STRBUF_INIT, t = STRBUF_INIT, h = STRBUF_INIT;
	(void)state;

	assert_int_equal(report_attr_decode(s, &va, &err), 0);
	report_attr_brief(&va, &t, 0);
	report_attr_brief(&va, &h, 1);
	check_text_safe(&t, 80);
	char *flat = unwrapped(t.buf);
	/* __x64_sys_sched_yield passes the threshold of 6.75; the hostile row's +2.0 does not */
	assert_non_null(strstr(flat, "yield_shared, phase 1: __x64_sys_sched_yield +101.0 "
				     "instructions per unit (97% of the change); all instructions "
				     "per unit +4.0%; named past 6.8 per unit (1.5 times the noise)."));
	assert_non_null(strstr(flat, ": no primary changed"));
	free(flat);
	assert_null(strstr(h.buf, "<script"));
	assert_non_null(strstr(h.buf, "<li>&lt;script&gt;"));
	report_attr_release(&va);

	/* unavailable: the reason alone */
	json_object_set_new(json_object_get(s, "attribution"), "unavailable",
			    json_string("the attribution plugin is not built"));
	json_object_del(json_object_get(s, "attribution"), "workloads");
	assert_int_equal(report_attr_decode(s, &va, &err), 0);
	sb_reset(&t);
	report_attr_brief(&va, &t, 0);
	assert_string_equal(t.buf, "  not done: the attribution plugin is not built\n");
	report_attr_release(&va);
	sb_release(&err);
	sb_release(&t);
	sb_release(&h);
	json_decref(s);
}

/* A malformed attribution member: the analysis refuses it, naming the member. */
static void test_attribution_malformed(void **state)
{
	json_t *s = with_attribution(fixture_session_ab());
	json_t *w = json_array_get(json_object_get(json_object_get(s, "attribution"), "workloads"), 0);
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(json_array_get(json_object_get(w, "windows"), 0), "noise",
			    json_string("big"));
	assert_null(report_analyze(s, &err));
	assert_non_null(strstr(err.buf, "attribution.workloads[0].windows[0].noise: expected a "
					"number or null, got a string"));
	sb_release(&err);
	json_decref(s);

	/* a phase number that is no count: refused, not cast */
	s = with_attribution(fixture_session_ab());
	w = json_array_get(json_object_get(json_object_get(s, "attribution"), "workloads"), 0);
	json_object_set_new(json_array_get(json_object_get(w, "windows"), 0), "window",
			    json_real(1e300));
	assert_null(report_analyze(s, &err));
	assert_non_null(strstr(err.buf, "attribution.workloads[0].windows[0].window: expected a "
					"phase number from 1"));
	sb_release(&err);
	json_decref(s);
}

/* A one-kernel attribution (mglrulab profile): a Profile table, by cost, names escaped. */
static void test_profile_rendered(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf t = STRBUF_INIT, h = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;

	json_object_set_new(s, "attribution", json_pack(
		"{s:s, s:s, s:i, s:s, s:[s], s:[{s:s, s:[], s:{s:f}, s:[{s:i, s:[i, i], s:f, s:f, "
		"s:f, s:i, s:i, s:[{s:s, s:f, s:f, s:f}, {s:o, s:f, s:f, s:f}]}]}]}",
		"method", "QEMU TCG plugin", "which", "all", "runs_per_kernel", 2,
		"cannot_see", "instructions only", "kernels", "slow5",
		"workloads", "workload", "yield_shared", "primaries", "seconds", "baseline", 14.0,
		"profiles", "window", 1, "units", 1000, 1001, "per_unit", 2756.6,
		"kernel_per_unit", 2205.8, "noise", 19.6, "nfunctions", 1700, "more", 1698,
		"functions", "function", "__x64_sys_sched_yield", "per_unit", 105.0, "share", 0.038,
		"spread", 0.0, "function", raw_string(hostile), "per_unit", 3.0, "share", 0.001,
		"spread", 1.5));
	r = fixture_analyze(s);
	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	assert_non_null(strstr(t.buf, "\nProfile (instructions per unit, 2 runs; "));
	assert_non_null(strstr(t.buf, "  yield_shared: (attribution runs: 14 s)\n"));
	assert_non_null(strstr(t.buf, "      105.0     4%     0.0  __x64_sys_sched_yield\n"));
	assert_non_null(strstr(t.buf, "(1698 more: "));
	char *flat = unwrapped(t.buf);
	assert_non_null(strstr(flat, "phase 1: 2756.6 instructions per unit, kernel 2205.8. A "
				     "kernel function's figure is good to about 19.6 per unit"));
	free(flat);
	fixture_render_html(r, &h);
	assert_true(valid_utf8(h.buf, h.len));
	assert_null(strstr(h.buf, "<script"));
	assert_non_null(strstr(h.buf, "<h2>Profile: where the instructions went</h2>"));
	assert_non_null(strstr(h.buf, "<code>__x64_sys_sched_yield</code></td><td class=\"num\">"
				      "105.0</td>"));
	json_decref(r);

	/* a profile row of the wrong type is refused, naming it */
	json_t *p = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(
		s, "attribution"), "workloads"), 0), "profiles"), 0);
	json_object_set_new(json_array_get(json_object_get(p, "functions"), 0), "share",
			    json_true());
	assert_null(report_analyze(s, &err));
	assert_non_null(strstr(err.buf, "attribution.workloads[0].profiles[0].functions[0].share: "
					"expected a number or null, got a boolean"));
	sb_release(&err);
	sb_release(&t);
	sb_release(&h);
	json_decref(s);
}

/* [run] note and the icount caveat: beside the guest in text and HTML, escaped. */
static void test_note_and_icount(void **state)
{
	json_t *s = fixture_session_ab(), *r;
	struct strbuf t = STRBUF_INIT, h = STRBUF_INIT;
	(void)state;

	json_object_set_new(s, "note", raw_string(hostile));
	json_object_set_new(json_object_get(s, "guest"), "icount_shift", json_integer(2));
	r = fixture_analyze(s);
	fixture_render_text(r, &t);
	check_text_safe(&t, 80);
	assert_non_null(strstr(t.buf, "\nnote     <script>"));
	char *flat = unwrapped(t.buf);
	assert_non_null(strstr(flat, "(icount, 2^2 ns each): cache misses, cache-line bouncing, "
				     "false sharing and memory latency cost no instructions and do "
				     "not show"));
	free(flat);
	fixture_render_html(r, &h);
	assert_true(valid_utf8(h.buf, h.len));
	assert_null(strstr(h.buf, "<script"));
	assert_non_null(strstr(h.buf, "<dt>Note</dt><dd>&lt;script&gt;"));
	assert_non_null(strstr(h.buf, "(icount): cache misses, cache-line bouncing"));
	json_decref(r);
	/* not a string: refused, named */
	struct strbuf err = STRBUF_INIT;
	json_object_set_new(s, "note", json_integer(3));
	assert_null(report_analyze(s, &err));
	assert_non_null(strstr(err.buf, "note: expected a string, got an integer"));
	sb_release(&err);
	sb_release(&t);
	sb_release(&h);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_display),
		cmocka_unit_test(test_hostile_html),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_benchfmt_config_keys),
		cmocka_unit_test(test_benchfmt_units),
		cmocka_unit_test(test_many_metrics_fast),
		cmocka_unit_test(test_report_shares_session),
		cmocka_unit_test(test_byte_identical),
		cmocka_unit_test(test_reanalyze_idempotent),
		cmocka_unit_test(test_fixture_verdicts),
		cmocka_unit_test(test_per_workload_runs_shown),
		cmocka_unit_test(test_budget_stop_says_resume),
		cmocka_unit_test(test_busy_host_noted),
		cmocka_unit_test(test_partners_shown),
		cmocka_unit_test(test_all_failed_is_invalid),
		cmocka_unit_test(test_single_kernel),
		cmocka_unit_test(test_partial_session_warns),
		cmocka_unit_test(test_attribution_rendered),
		cmocka_unit_test(test_attribution_malformed),
		cmocka_unit_test(test_attribution_brief),
		cmocka_unit_test(test_attribution_confirmed),
		cmocka_unit_test(test_attribution_bursts),
		cmocka_unit_test(test_profile_rendered),
		cmocka_unit_test(test_note_and_icount),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
