// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report's plots read like plots (issue 29): every forest plot of
 * a table on one scale with ticks and a unit in the heading, no "better"
 * on counters, strip and run-order plots with more than two labels, a unit
 * and a grid, the distributions outside collapsed <details>, no heading
 * without content under it, and the answer before the metadata.
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

#include "fixtures_report.h"
#include "report.h"
#include "report_view.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

/* The fixture, analysed, rendered as HTML into @h; its decoded view in @v. */
static json_t *render(struct strbuf *h, struct report_view *v)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *r;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	json_decref(s);
	if (report_view_decode(r, v, &err))
		fail_msg("%s", err.buf);
	fixture_render_html(r, h);
	sb_release(&err);
	return r;
}

/* The text between @from and the first @to after it, as a new string (NULL: none). */
static char *between(const char *s, const char *from, const char *to)
{
	const char *a = strstr(s, from), *b;

	if (!a)
		return NULL;
	b = strstr(a, to);
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	while ((s = strstr(s, what)))
		n++, s++;
	return n;
}

/*
 * The plot's units per unit of log ratio in metric row @i: its interval
 * bar (the first line of the "ci" group) against the result's interval.
 * NaN: the row has no bar to measure (no interval, zero width, clipped).
 */
static double row_scale(const char *html, size_t i, const struct result_record *res)
{
	char id[64], *row;
	const char *g;
	double x1, x2, scale = NAN;

	snprintf(id, sizeof(id), "<tr class=\"metric\" id=\"m%zu\"", i);
	row = between(html, id, "</tr>");
	assert_non_null(row);
	g = strstr(row, "<g class=\"ci");
	if (g && !strstr(row, "class=\"clip\"") && res->change.hi > res->change.lo * 1.001 &&
	    sscanf(strstr(g, "<line"), "<line x1=\"%lf\" y1=\"%*[^\"]\" x2=\"%lf\"", &x1, &x2) == 2)
		scale = (x2 - x1) / (log(res->change.hi) - log(res->change.lo));
	free(row);
	return scale;
}

/* All forest plots of a table share its scale, so bars compare down a column. */
static void test_forest_one_scale_per_table(void **state)
{
	struct report_view v;
	struct strbuf h = STRBUF_INIT;
	json_t *r = render(&h, &v);
	(void)state;

	for (int primary = 0; primary < 2; primary++) {
		double first = NAN;
		size_t rows = 0;

		for (size_t i = 0; i < v.nresults; i++) {
			double s;

			if (!!v.results[i].primary != primary)
				continue;
			s = row_scale(h.buf, i, &v.results[i]);
			if (isnan(s))
				continue;
			rows++;
			if (isnan(first))
				first = s;
			/* Coordinates have two decimals: a bar of 20 units is exact to 0.1%. */
			if (fabs(s / first - 1) > 0.02)
				fail_msg("row m%zu: %g units per log ratio, the table's first row %g",
					 i, s, first);
		}
		if (!primary)
			assert_true(rows >= 5);
	}
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

/* Each plotted table says its unit once, with tick labels and a zero. */
static void test_forest_axis_has_ticks_and_unit(void **state)
{
	static const char *const tables[] = { "<table class=\"results\">",
					       "<table class=\"counters\">" };
	struct report_view v;
	struct strbuf h = STRBUF_INIT;
	json_t *r = render(&h, &v);
	(void)state;

	for (size_t t = 0; t < sizeof(tables) / sizeof(*tables); t++) {
		char *head = between(h.buf, tables[t], "</thead>");

		assert_non_null(head);
		assert_non_null(strstr(head, "change, %"));
		assert_true(count(head, "%</text>") >= 2);
		assert_non_null(strstr(head, ">0</text>"));
		free(head);
	}
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

/* Counters have no better: their plots must not say which way is better. */
static void test_counters_have_no_better(void **state)
{
	struct report_view v;
	struct strbuf h = STRBUF_INIT;
	json_t *r = render(&h, &v);
	char *table = between(h.buf, "<table class=\"counters\">", "</table>");
	(void)state;

	assert_non_null(table);
	assert_true(count(table, "<svg class=\"forest\"") > 0);
	assert_null(strstr(table, "better"));
	free(table);
	/* ... while a metric's plot still does. */
	table = between(h.buf, "<table class=\"results\">", "</table>");
	assert_non_null(strstr(table, "better"));
	free(table);
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

/*
 * Issue 50: the counters' table was 730 rows, nearly all "?", 21,600 px of
 * the page. Those that did not move are folded and counted; none moved
 * here, and the section says so in one line.
 */
static void test_counters_folded(void **state)
{
	struct report_view v;
	struct strbuf h = STRBUF_INIT;
	json_t *r = render(&h, &v);
	char *sec = between(h.buf, "<section id=\"counters\">", "</section>");
	char *open;
	(void)state;

	assert_non_null(sec);
	assert_non_null(strstr(sec, "<p>No counter moved (q &lt; 0.05).</p>"));
	assert_non_null(strstr(sec, "<details><summary>50 counters that did not move (q &ge; "
				    "0.05), folded</summary>"));
	open = strstr(sec, "<details>");
	/* every row is inside the fold */
	assert_true(strstr(sec, "<tr class=\"counter\">") > open);
	assert_int_equal(count(open, "<tr class=\"counter\">"), 50);
	free(sec);
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

/* Strip and run-order plots: more labels than min and max, a unit, a grid. */
static void test_distribution_axes(void **state)
{
	static const char *const kinds[] = { "<svg class=\"strip\"", "<svg class=\"order\"" };
	struct report_view v;
	struct strbuf h = STRBUF_INIT;
	json_t *r = render(&h, &v);
	(void)state;

	for (size_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++) {
		size_t n = 0;

		for (const char *p = h.buf; (p = strstr(p, kinds[k])); p++) {
			char *svg = between(p, kinds[k], "</svg>");

			assert_non_null(svg);
			if (count(svg, "<circle class=\"pt") >= 2) {
				if (count(svg, "<text class=\"ax\"") < 4)
					fail_msg("%s with %zu labels", kinds[k],
						 count(svg, "<text class=\"ax\""));
				assert_true(count(svg, "class=\"gridl\"") >= 2);
				assert_non_null(strstr(svg, "<text class=\"unit\""));
				n++;
			}
			free(svg);
		}
		assert_true(n >= 5);
	}
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

/*
 * The primaries' distributions are on the page without a click and in
 * print: none of their strip plots sits inside a <details> that is not
 * open. The other metrics' fold under their headings (issue 50: open, they
 * were three quarters of the demo's page): each of their strips is inside
 * one, and its heading is the <summary>.
 */
static void test_distributions_not_collapsed(void **state)
{
	struct report_view v;
	struct strbuf h = STRBUF_INIT, err = STRBUF_INIT;
	json_t *s, *r, *w;
	size_t open = 0, folded = 0, primaries = 0, i;
	(void)state;

	/* the fixture with the demo's primaries declared (tests/integration/79's) */
	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	json_array_foreach(json_object_get(s, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), "yp_shared"))
			json_object_set_new(w, "primary", json_pack("[s]", "cs_per_sec_per_cpu_2cpu"));
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	json_decref(s);
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	fixture_render_html(r, &h);
	sb_release(&err);

	for (i = 0; i < v.nresults; i++)
		primaries += v.results[i].primary != 0;
	assert_true(primaries > 0 && primaries < v.nresults);
	for (const char *p = h.buf; (p = strstr(p, "<svg class=\"strip\"")); p++) {
		const char *d = NULL, *close = NULL;

		for (const char *q = h.buf; (q = strstr(q, "<details")) && q < p; q++)
			d = q;
		for (const char *q = d; q && (q = strstr(q, "</details>")) && q < p; q++)
			close = q;
		if (d && !close && strncmp(d, "<details open", 13)) {
			static const char folded_head[] = "<details class=\"detail\" id=\"d";

			assert_int_equal(strncmp(d, folded_head, sizeof(folded_head) - 1), 0);
			assert_non_null(strstr(d, "<summary><h3>"));
			folded++;
		} else {
			open++;
		}
	}
	assert_int_equal(open, primaries);
	assert_int_equal(folded, v.nresults - primaries);
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

/* The HTML of the report in @path, analysed. */
static void render_file(const char *path, struct strbuf *h)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *r;

	if (report_load(path, &s, &err))
		fail_msg("%s", err.buf);
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s: %s", path, err.buf);
	fixture_render_html(r, h);
	json_decref(r);
	json_decref(s);
	sb_release(&err);
}

/*
 * Every h2/h3 of every fixture's page (one kernel, two, few runs) has
 * something under it before the next heading of its level or the end of
 * its section.
 */
static void test_no_empty_headings(void **state)
{
	static const char *const fixtures[] = {
		FIXTURE, "tests/fixtures/reports/session-one.json",
		"tests/fixtures/reports/session-small.json", "tests/fixtures/reports/nightly-a.json",
	};
	(void)state;

	for (size_t f = 0; f < sizeof(fixtures) / sizeof(*fixtures); f++) {
		struct strbuf h = STRBUF_INIT;

		render_file(fixtures[f], &h);
		for (const char *p = h.buf; (p = strstr(p, "<h")); p++) {
			const char *end, *next;

			if (p[2] != '2' && p[2] != '3')
				continue;
			end = strstr(p, "</h");
			assert_non_null(end);
			assert_true(end > strchr(p, '>') + 1);	/* text inside */
			next = end + 5;
			while (*next == '\n')
				next++;
			/* Followed by one of its own level or above, or by its section's end. */
			if (!strncmp(next, "</section>", 10) || !strncmp(next, "<h2", 3) ||
			    (p[2] == '3' && !strncmp(next, "<h3", 3)))
				fail_msg("%s: empty heading: %.60s", fixtures[f], p);
		}
		sb_release(&h);
	}
}

/*
 * "As the threads showed them" in HTML: no row whose every cell is "-"
 * (session-small lacks pgmajfault and three of aging's rows; the page
 * showed them as rows of dashes, as the text report no longer does).
 */
static void test_thread_tables_no_dash_rows(void **state)
{
	struct strbuf h = STRBUF_INIT;
	const char *sec, *end;
	int rows = 0;
	(void)state;

	render_file("tests/fixtures/reports/session-small.json", &h);
	sec = strstr(h.buf, "<section id=\"threads\">");
	assert_non_null(sec);
	end = strstr(sec, "</section>");
	assert_non_null(end);
	for (const char *p = sec; (p = strstr(p, "<tr><td>")) && p < end; p++) {
		const char *stop = strstr(p, "</tr>");
		int values = 0;

		rows++;
		for (const char *c = strstr(p + 8, "<td"); c && c < stop; c = strstr(c + 3, "<td")) {
			const char *v = strchr(c, '>') + 1;

			values += strncmp(v, "-</td>", 6) != 0;
		}
		if (!values)
			fail_msg("a row of dashes: %.60s", p);
	}
	assert_true(rows > 0);
	assert_null(strstr(sec, "<td>pgmajfault</td>"));
	sb_release(&h);
}

/*
 * The answer comes first: before the session's metadata, one row per
 * metric it names, each linked to its details, and the warnings after it.
 */
static void test_answer_first(void **state)
{
	struct report_view v;
	struct strbuf h = STRBUF_INIT;
	json_t *r = render(&h, &v);
	const char *answer = strstr(h.buf, "<section id=\"answer\"");
	const char *meta = strstr(h.buf, "<dt>Compared</dt>");
	char *block;
	(void)state;

	assert_non_null(answer);
	assert_non_null(meta);
	assert_true(answer < meta);
	assert_true(strstr(h.buf, "id=\"warnings\"") > answer);
	block = between(answer, "<section id=\"answer\"", "</section>");
	assert_true(count(block, "<tr><td class=\"name\"><a href=\"#d") >= 1);
	assert_true(count(block, "class=\"badge v-") >= 1);
	free(block);
	report_view_release(&v);
	json_decref(r);
	sb_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forest_one_scale_per_table),
		cmocka_unit_test(test_forest_axis_has_ticks_and_unit),
		cmocka_unit_test(test_counters_have_no_better),
		cmocka_unit_test(test_counters_folded),
		cmocka_unit_test(test_distribution_axes),
		cmocka_unit_test(test_distributions_not_collapsed),
		cmocka_unit_test(test_no_empty_headings),
		cmocka_unit_test(test_thread_tables_no_dash_rows),
		cmocka_unit_test(test_answer_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
