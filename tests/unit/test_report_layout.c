// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads' own tables (lab/report/report_layout.c): built from the
 * results of the report fixture, they hold exactly the medians and
 * changes of the results, in the rows and groups the layouts declare
 * (yield_pingpong's CPU counts, shared against private mm; kernel_build's
 * three rows); the text and HTML show them, safely for hostile parameters.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "escape.h"
#include "fixtures_report.h"
#include "report.h"
#include "report_layout.h"
#include "report_priv.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

static json_t *analyzed(void (*edit)(json_t *session))
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *r;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	if (edit)
		edit(s);
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	json_decref(s);
	sb_release(&err);
	return r;
}

static const json_t *result(const json_t *r, const char *w, const char *m)
{
	const json_t *res;
	size_t i;

	json_array_foreach(json_object_get(r, "results"), i, res)
		if (!strcmp(jget_str(res, "workload", ""), w) && !strcmp(jget_str(res, "metric", ""), m))
			return res;
	return NULL;
}

static const struct layout_table *table_of(const struct layout_table *t, size_t n, const char *title)
{
	for (size_t i = 0; i < n; i++)
		if (!strncmp(t[i].title.buf, title, strlen(title)))
			return &t[i];
	fail_msg("no table '%s'", title);
	return NULL;
}

static void same_cell(const struct layout_cell *c, const json_t *res)
{
	assert_non_null(res);
	assert_true(c->base == jget_num(json_object_get(res, "baseline"), "median"));
	assert_true(c->patched == jget_num(json_object_get(res, "patched"), "median"));
	assert_true(c->delta_pct == jget_num(json_object_get(res, "comparison"), "delta_pct"));
	assert_string_equal(c->verdict, jget_str(res, "verdict", "?"));
}

static void test_sweep_grouped(void **state)
{
	json_t *r = analyzed(NULL);
	struct layout_table *t;
	size_t n = fixture_layout_tables(r, &t);
	const struct layout_table *y = table_of(t, n, "yp_shared, yp_private: Context switches");
	const char *w[] = { "yp_shared", "yp_private" };

	(void)state;
	/* Both yield_pingpong workloads in one table, labelled by their mm. */
	assert_int_equal(y->groups.n, 2);
	assert_string_equal(y->groups.v[0], "mm=shared");
	assert_string_equal(y->groups.v[1], "mm=private");
	assert_int_equal(y->rows.n, 2);
	assert_string_equal(y->rows.v[0], "1");
	assert_string_equal(y->rows.v[1], "2");
	for (size_t g = 0; g < 2; g++) {
		/* Item 0, the host-adjusted rate, needs cells the fixture's runs lack. */
		assert_true(isnan(layout_cell(y, 0, g, 0)->base));
		same_cell(layout_cell(y, 0, g, 1), result(r, w[g], "cs_per_sec_per_cpu_1cpu"));
		same_cell(layout_cell(y, 1, g, 1), result(r, w[g], "cs_per_sec_per_cpu_2cpu"));
	}
	/* One table per type: the second yield workload did not add another. */
	{
		size_t tables = 0;

		for (size_t i = 0; i < n; i++)
			tables += strstr(t[i].title.buf, "Context switches") != NULL;
		assert_int_equal(tables, 1);
	}
	layout_tables_free(t, n);
	json_decref(r);
}

static void test_rows(void **state)
{
	json_t *r = analyzed(NULL);
	struct layout_table *t;
	size_t n = fixture_layout_tables(r, &t);
	const struct layout_table *k = table_of(t, n, "kbuild: Kernel build");

	(void)state;
	assert_int_equal(k->rows.n, 3);
	assert_string_equal(k->rows.v[0], "build time (s)");
	assert_string_equal(k->rows.v[1], "pgpgin");
	assert_int_equal(k->groups.n, 1);
	same_cell(layout_cell(k, 0, 0, 0), result(r, "kbuild", "elapsed_s"));
	same_cell(layout_cell(k, 1, 0, 0), result(r, "kbuild", "pgpgin"));
	/* Not in the fixture's results: shown as missing, not as 0. */
	assert_null(result(r, "kbuild", "pgmajfault"));
	assert_true(isnan(layout_cell(k, 2, 0, 0)->base));
	assert_null(layout_cell(k, 2, 0, 0)->verdict);
	/* will_it_scale declares no layout. */
	for (size_t i = 0; i < n; i++)
		assert_null(strstr(t[i].title.buf, "wis_ctx1"));
	layout_tables_free(t, n);
	json_decref(r);
}

/* A default parameter (mm unset in lab.conf) labels its group with the default. */
static void drop_mm(json_t *s)
{
	json_object_del(json_object_get(json_array_get(json_object_get(s, "workloads"), 0), "params"), "mm");
}

static void test_default_group(void **state)
{
	json_t *r = analyzed(drop_mm);
	struct layout_table *t;
	size_t n = fixture_layout_tables(r, &t);

	(void)state;
	assert_string_equal(table_of(t, n, "yp_shared")->groups.v[0], "mm=shared");
	layout_tables_free(t, n);
	json_decref(r);
}

static void hostile_mm(json_t *s)
{
	json_object_set_new(json_object_get(json_array_get(json_object_get(s, "workloads"), 1), "params"),
			    "mm", json_stringn_nocheck("<b>x\x1b[31m\xff", 10));
}

static void test_rendered(void **state)
{
	json_t *r = analyzed(hostile_mm);
	struct strbuf txt = STRBUF_INIT, html = STRBUF_INIT;
	const json_t *res = result(r, "yp_shared", "cs_per_sec_per_cpu_2cpu");
	char b[32];

	(void)state;
	fixture_render_text(r, &txt);
	fixture_render_html(r, &html);
	assert_non_null(strstr(txt.buf, "As the threads showed them"));
	assert_non_null(strstr(txt.buf, "  CPUs "));
	/* The shared-mm 2-CPU median appears on the "2" row of the table. */
	fmt_num(b, sizeof(b), jget_num(json_object_get(res, "baseline"), "median"));
	{
		const char *sec = strstr(txt.buf, "As the threads showed them");
		const char *row = strstr(sec, "\n       2 ");

		assert_non_null(row);
		assert_true(strstr(row, b) && strstr(row, b) < strchr(row + 1, '\n'));
	}
	/* Every line within 80 columns, no escape byte, no raw markup in HTML. */
	for (char *l = txt.buf, *e; l && *l; l = e ? e + 1 : NULL) {
		e = strchr(l, '\n');
		if (e)
			*e = '\0';
		assert_in_range(text_safe_width(l), 0, 80);
		if (e)
			*e = '\n';
	}
	assert_null(strchr(txt.buf, '\x1b'));
	assert_non_null(strstr(html.buf, "<section id=\"threads\">"));
	assert_null(strstr(html.buf, "<b>x"));
	assert_non_null(strstr(html.buf, "mm=&lt;b&gt;x"));
	sb_release(&txt);
	sb_release(&html);
	json_decref(r);
}

/*
 * A thp_scale workload with three measured runs per kernel (thpscale's
 * table: each run's value under its kernel), one run missing elapsed_s.
 */
static void add_thp(json_t *s)
{
	json_t *runs = json_object_get(s, "runs"), *tmpl = NULL, *run;
	size_t i;

	json_array_append_new(json_object_get(s, "workloads"),
		json_pack("{s:s, s:s, s:{}, s:[{s:s, s:s, s:s}, {s:s, s:s, s:s}, {s:s, s:s, s:s}]}",
			  "name", "thp", "type", "thp_scale", "params", "metrics",
			  "name", "user_s", "unit", "s", "better", "lower",
			  "name", "sys_s", "unit", "s", "better", "lower",
			  "name", "elapsed_s", "unit", "s", "better", "lower"));
	json_array_foreach(runs, i, run)
		if (!json_is_true(json_object_get(run, "warmup")) &&
		    !strcmp(jget_str(run, "status", ""), "ok")) {
			tmpl = run;
			break;
		}
	assert_non_null(tmpl);
	for (int k = 0; k < 6; k++) {
		json_t *r = json_deep_copy(tmpl), *m = json_object();

		json_object_set_new(r, "seq", json_integer(1000 + k));
		json_object_set_new(r, "workload", json_string("thp"));
		json_object_set_new(r, "kernel", json_string(k % 2 ? "patched" : "base"));
		json_object_set_new(m, "user_s", json_real(14.0 + k));
		json_object_set_new(m, "sys_s", json_real(84.0 + k));
		if (k != 3)
			json_object_set_new(m, "elapsed_s", json_real(98.0 + k));
		json_object_set_new(r, "metrics", m);
		json_object_set_new(r, "counters", json_object());
		json_array_append_new(runs, r);
	}
}

static void test_per_run(void **state)
{
	json_t *r = analyzed(add_thp);
	struct layout_table *t;
	size_t n = fixture_layout_tables(r, &t), cols;
	const struct layout_table *thp = table_of(t, n, "thp: thpscale");
	long long seqs[3];
	struct strbuf txt = STRBUF_INIT, html = STRBUF_INIT;
	const char *sec, *row;

	(void)state;
	assert_string_equal(thp->rows.v[2], "Duration Elapsed");
	/* Run 1003 has no elapsed_s, yet is a column: the other rows have it. */
	assert_int_equal(layout_run_columns(thp, 1, seqs, 3, &cols), 0);
	assert_int_equal(cols, 3);
	assert_true(seqs[0] == 1001 && seqs[1] == 1003 && seqs[2] == 1005);
	assert_true(isnan(layout_run_value(layout_cell(thp, 2, 0, 0), 1, 1003)));
	assert_true(layout_run_value(layout_cell(thp, 2, 0, 0), 1, 1005) == 103.0);
	assert_true(layout_run_value(layout_cell(thp, 0, 0, 0), 0, 1002) == 16.0);
	assert_int_equal(layout_run_columns(thp, 1, seqs, 2, &cols), -1);
	layout_tables_free(t, n);

	fixture_render_text(r, &txt);
	fixture_render_html(r, &html);
	sec = strstr(txt.buf, "thp: thpscale");
	assert_non_null(sec);
	assert_non_null(strstr(sec, "each run:"));
	assert_non_null(strstr(sec, "   #1000    #1002    #1004    #1001    #1003    #1005"));
	row = strstr(strstr(sec, "each run:"), "\n  Duration Elapsed");
	assert_non_null(row);
	/* base 98, 100, 102; patched 99, (none), 103 */
	assert_non_null(strstr(row, "Duration Elapsed             98      100      102       99        -      103\n"));
	assert_non_null(strstr(html.buf, "<th>Each run</th>"));
	sb_release(&txt);
	sb_release(&html);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_grouped),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_default_group),
		cmocka_unit_test(test_rendered),
		cmocka_unit_test(test_per_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
