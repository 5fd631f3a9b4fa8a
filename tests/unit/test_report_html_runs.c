// SPDX-License-Identifier: GPL-2.0
/*
 * The primaries' per-run strips in report.html (issue 50): under each
 * primary's name, an inline SVG with one dot per run that has a value,
 * the baseline's on one line and the patched kernel's on the other, each
 * with a <title> naming its kernel, run and value, escaped. The dots are
 * counted against the raw runs of report.json, not against the analysis.
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
#define HOSTILE "b<&>\"'"

static size_t count_in(const char *s, size_t len, const char *what)
{
	size_t n = 0, w = strlen(what);

	for (size_t i = 0; i + w <= len; i++)
		n += !memcmp(s + i, what, w);
	return n;
}

/* The measured runs of @kernel with a number for @workload's @metric. */
static size_t runs_with_value(const json_t *s, const char *kernel, const char *workload,
			      const char *metric)
{
	const json_t *run;
	size_t i, n = 0;

	json_array_foreach(json_object_get(s, "runs"), i, run) {
		if (json_is_true(json_object_get(run, "warmup")) ||
		    strcmp(json_string_value(json_object_get(run, "status")), "ok") ||
		    strcmp(json_string_value(json_object_get(run, "kernel")), kernel) ||
		    strcmp(json_string_value(json_object_get(run, "workload")), workload))
			continue;
		n += json_is_number(json_object_get(json_object_get(run, "metrics"), metric));
	}
	return n;
}

/* The fixture with its baseline renamed @name everywhere (kernels, design, runs). */
static json_t *session_named(const char *name)
{
	struct strbuf err = STRBUF_INIT;
	json_t *s, *run, *wl;
	size_t i;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	json_object_set_new(json_array_get(json_object_get(s, "kernels"), 0), "name",
			    json_string(name));
	json_object_set_new(json_object_get(s, "design"), "baseline", json_string(name));
	json_array_foreach(json_object_get(s, "runs"), i, run)
		if (!strcmp(json_string_value(json_object_get(run, "kernel")), "base"))
			json_object_set_new(run, "kernel", json_string(name));
	/* two primaries, as the demo's lab.conf declares them; the rest are not */
	json_array_foreach(json_object_get(s, "workloads"), i, wl) {
		const char *n = json_string_value(json_object_get(wl, "name"));

		if (!strcmp(n, "yp_shared"))
			json_object_set_new(wl, "primary", json_pack("[s]", "cs_per_sec_per_cpu_2cpu"));
		else if (!strcmp(n, "kbuild"))
			json_object_set_new(wl, "primary", json_pack("[s]", "elapsed_s"));
	}
	sb_release(&err);
	return s;
}

static void test_one_dot_per_run(void **state)
{
	struct strbuf err = STRBUF_INIT, html = STRBUF_INIT;
	json_t *s = session_named(HOSTILE), *r = report_analyze(s, &err), *res;
	const char *p;
	size_t i, strips = 0;
	(void)state;

	if (!r)
		fail_msg("%s", err.buf);
	fixture_render_html(r, &html);
	p = html.buf;
	json_array_foreach(json_object_get(r, "results"), i, res) {
		const char *wl = json_string_value(json_object_get(res, "workload"));
		const char *m = json_string_value(json_object_get(res, "metric"));
		size_t want0, want1, len;
		const char *end;

		if (!json_is_true(json_object_get(res, "primary")))
			continue;
		/* the strips come in the primaries' order */
		p = strstr(p, "<svg class=\"runs\"");
		assert_non_null(p);
		end = strstr(p, "</svg>");
		assert_non_null(end);
		len = (size_t)(end - p);
		want0 = runs_with_value(s, HOSTILE, wl, m);
		want1 = runs_with_value(s, "patched", wl, m);
		assert_true(want0 > 0 && want1 > 0);
		assert_int_equal(count_in(p, len, "<circle"), want0 + want1);
		assert_int_equal(count_in(p, len, "<circle class=\"pt k0\""), want0);
		assert_int_equal(count_in(p, len, "<circle class=\"pt k1\""), want1);
		/* each dot's title: its kernel (escaped), run and value */
		assert_int_equal(count_in(p, len, "<title>b&lt;&amp;&gt;&quot;&#39; run #"), want0);
		assert_int_equal(count_in(p, len, "<title>patched run #"), want1);
		p = end;
		strips++;
	}
	assert_int_equal(strips, 2);
	/* only the primaries have them; nothing a CSP of default-src 'none' would refuse */
	assert_null(strstr(p, "<svg class=\"runs\""));
	assert_null(strstr(html.buf, "<script"));
	assert_null(strstr(html.buf, "<title>b<"));
	json_decref(r);
	json_decref(s);
	sb_release(&html);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_dot_per_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
