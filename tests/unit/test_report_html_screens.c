// SPDX-License-Identifier: GPL-2.0
/*
 * A report of a few screens (issue 50): a workload's long parameter
 * string wraps instead of widening the page, the primaries' and the other
 * metrics' forest plots share one axis, and the claimed effect is marked
 * on the forest plot of the metric it is claimed for.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures_report.h"
#include "report.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

/* The fixture with yp_shared's 2-CPU metric primary and a claim on it, as HTML. */
static void render(struct strbuf *h)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *r, *w;
	size_t i;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	json_object_set_new(s, "schema", json_string(REPORT_SCHEMA));
	json_array_foreach(json_object_get(s, "workloads"), i, w)
		if (!strcmp(json_string_value(json_object_get(w, "name")), "yp_shared"))
			json_object_set_new(w, "primary", json_pack("[s]", "cs_per_sec_per_cpu_2cpu"));
	json_object_set_new(s, "claim", json_pack("{s:s, s:s, s:s, s:f, s:s, s:s}", "workload",
		"yp_shared", "metric", "cs_per_sec_per_cpu_%dcpu", "direction", "higher",
		"size_pct", 2.3, "mechanism", "cache-lines", "source", "seed 000"));
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	json_decref(s);
	fixture_render_html(r, h);
	json_decref(r);
	sb_release(&err);
}

/* The heading of the plots' column of the table after @from, as a new string. */
static char *axis_after(const char *html, const char *from)
{
	const char *a = strstr(html, from), *b, *e;

	if (!a || !(b = strstr(a, "<th class=\"plot\">")) || !(e = strstr(b, "</th>")))
		return NULL;
	return strndup(b, (size_t)(e - b));
}

static void test_params_wrap(void **state)
{
	struct strbuf h = STRBUF_INIT;

	(void)state;
	render(&h);
	assert_non_null(strstr(h.buf, "<td class=\"params\"><code>"));
	assert_non_null(strstr(h.buf, "td.params{overflow-wrap:anywhere"));
	sb_release(&h);
}

static void test_one_axis(void **state)
{
	struct strbuf h = STRBUF_INIT;
	char *p, *o;

	(void)state;
	render(&h);
	p = axis_after(h.buf, "<section id=\"primary\">");
	o = axis_after(h.buf, "<section id=\"results\">");
	assert_non_null(p);
	assert_non_null(o);
	assert_string_equal(p, o);
	free(p);
	free(o);
	sb_release(&h);
}

static void test_claim_marked(void **state)
{
	struct strbuf h = STRBUF_INIT;
	const char *prim, *other;

	(void)state;
	render(&h);
	prim = strstr(h.buf, "<section id=\"primary\">");
	other = strstr(h.buf, "<section id=\"results\">");
	assert_non_null(prim);
	assert_non_null(other);
	/* On the primary's plot, once: the claim names the 2-CPU metric's pattern. */
	assert_non_null(strstr(prim, "<g class=\"claim\"><title>claimed +2.3%</title>"));
	assert_true(strstr(prim, "<g class=\"claim\">") < other);
	sb_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_wrap),
		cmocka_unit_test(test_one_axis),
		cmocka_unit_test(test_claim_marked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
