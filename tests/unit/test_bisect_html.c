// SPDX-License-Identifier: GPL-2.0
/* bisect.html: the answer first, the steps and their links, the levels and waterfall, escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bisect.h"
#include "bisect_doc.h"
#include "strbuf.h"

/*
 * @text, the members a test is about, completed with the required ones
 * it leaves out and decoded by bisect.json's table, as bisect_html()
 * takes it; @d keeps the tree (bisect_doc_release()).
 */
static void load_doc(const char *text, struct bisect_doc *d)
{
	json_t *st = json_loads(text, 0, NULL);
	json_t *rest = json_pack("{s:s, s:s, s:s, s:i, s:{s:i, s:f, s:b, s:[]}, s:[], s:{}, s:[], s:[]}",
				 "schema", BISECT_SCHEMA, "baseline", "", "series_kernel", "",
				 "n", 0, "settings", "max_runs", 0, "budget_s", 0.0, "per_patch", 0,
				 "workloads", "steps", "prefixes", "probes", "patches");
	struct strbuf err = STRBUF_INIT;

	json_object_update_missing(st, rest);
	json_decref(rest);
	if (bisect_doc_decode(st, d, &err))
		fail_msg("%s", sb_str(&err));
	d->owned = st;
	sb_release(&err);
}

static const char state_json[] =
	"{\"baseline\": \"base\", \"series_kernel\": \"new<b>\","
	" \"patches\": [{\"subject\": \"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\"}, {\"subject\": \"<script>two</script>\"}],"
	" \"tracked\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"regression\","
	"   \"delta_pct\": -50.0, \"ci_lo_pct\": -60.0, \"ci_hi_pct\": -40.0}],"
	" \"result\": {\"outcome\": \"per-patch\", \"waterfall\": ["
	"  {\"from\": 0, \"to\": 1, \"results\": [{\"workload\": \"yield\", \"metric\": \"cs\","
	"    \"verdict\": \"inconclusive\", \"delta_pct\": 0.0, \"ci_lo_pct\": -10.0, \"ci_hi_pct\": 10.0}]},"
	"  {\"from\": 1, \"to\": 2, \"results\": [{\"workload\": \"yield\", \"metric\": \"cs\","
	"    \"verdict\": \"regression\", \"delta_pct\": -50.0, \"ci_lo_pct\": -60.0, \"ci_hi_pct\": -40.0}]}]}}";

static int count(const char *s, const char *what)
{
	int n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_waterfall(void **state)
{
	struct bisect_doc d;
	struct strbuf h = STRBUF_INIT;
	(void)state;

	load_doc(state_json, &d);
	bisect_html(&h, &d, NULL, 0);
	const char *s = sb_str(&h);
	/* Two patches and the whole series, on one axis; the legend's swatches apart. */
	assert_int_equal(count(s, "<td class=\"plot\"><svg class=\"bar "), 3);
	assert_int_equal(count(s, "<svg class=\"bar v-regression\" width=\"320\""), 2);
	assert_int_equal(count(s, "<svg class=\"bar v-other\" width=\"320\""), 1);
	assert_int_equal(count(s, "class=\"wf-legend\""), 1);
	/* Patch 2 steps from 0 % to -50 %; its interval is applied at its own level. */
	assert_non_null(strstr(s, "2. &lt;script&gt;two&lt;/script&gt;: +0.0 % to -50.0 %"));
	/* Nothing from the mail or the names gets through unescaped. */
	assert_null(strstr(s, "<script>"));
	assert_null(strstr(s, "new<b>"));
	assert_non_null(strstr(s, "new&lt;b&gt;"));
	/* Labels wrap beside the plot: a long subject is whole, never cut. */
	assert_non_null(strstr(s, ">1. \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9</td>"));
	assert_null(strstr(s, "\xe2\x80\xa6"));
	/* The answer names the patch that moved the metric before the waterfall. */
	assert_true(strstr(s, "Per patch:") < strstr(s, "id=\"waterfall\""));
	sb_release(&h);
	bisect_doc_release(&d);
}

/* Prefix 1 did not build: one step added patches 1 and 2, and its label says both. */
static void test_waterfall_merged(void **state)
{
	struct bisect_doc d;
	const char *text = "{\"baseline\": \"a\", \"series_kernel\": \"b\", \"n\": 2,"
		" \"patches\": [{\"subject\": \"one\"}, {\"subject\": \"two\"}],"
		" \"tracked\": [{\"workload\": \"w\", \"metric\": \"m\","
		" \"verdict\": \"regression\", \"delta_pct\": -9.0}],"
		" \"result\": {\"outcome\": \"per-patch\", \"waterfall\": [{\"from\": 0,"
		" \"to\": 2, \"a\": \"a\", \"b\": \"b\", \"results\": [{\"workload\": \"w\","
		" \"metric\": \"m\", \"verdict\": \"regression\", \"delta_pct\": -9.0}]}]}}";
	struct strbuf h = STRBUF_INIT;
	(void)state;

	load_doc(text, &d);
	bisect_html(&h, &d, NULL, 0);
	assert_non_null(strstr(sb_str(&h), ">1..2. two</td>"));
	sb_release(&h);
	bisect_doc_release(&d);
}

/*
 * A search-mode bisection: bisect.html used to be the text summary in a
 * <pre>, with no steps and no links. It now says the culprit first, then
 * every step with its runs and a link to its report, and the levels.
 */
#define SUBJECT60 "[PATCH 2/3] mm: <b>\"a & b\"</b> make the lru walk lazy again!"
static const char search_json[] =
	"{\"baseline\": \"base\", \"series_kernel\": \"s\", \"n\": 3,"
	" \"settings\": {\"max_runs\": 8, \"budget_s\": 0, \"per_patch\": false, \"workloads\": []},"
	" \"patches\": [{\"subject\": \"one\"}, {\"subject\": \"[PATCH 2/3] mm: <b>\\\"a & b\\\"</b>"
	" make the lru walk lazy again!\", \"message_id\": \"<id2@x>\"}, {\"subject\": \"three\"}],"
	" \"tracked\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"regression\","
	"   \"delta_pct\": -50.0, \"ci_lo_pct\": -60.0, \"ci_hi_pct\": -40.0}],"
	" \"prefixes\": {\"1\": {\"kernel\": \"s@1\", \"builds\": true},"
	"   \"2\": {\"kernel\": \"s@2\", \"builds\": true}},"
	" \"probes\": [{\"prefix\": 1, \"class\": \"at-baseline\"},"
	"   {\"prefix\": 2, \"class\": \"at-series-end\"}],"
	" \"steps\": ["
	"  {\"step\": 1, \"purpose\": \"confirm\", \"a\": \"base\", \"b\": \"s\","
	"   \"dir\": \"steps/01-confirm\", \"state\": \"done\", \"session\": \"/x/steps/01-confirm/ID1\","
	"   \"results\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"regression\","
	"   \"delta_pct\": -50.0, \"ci_lo_pct\": -60.0, \"ci_hi_pct\": -40.0}]},"
	"  {\"step\": 2, \"purpose\": \"probe-base\", \"a\": \"base\", \"b\": \"s@1\","
	"   \"dir\": \"steps/02-probe-base\", \"state\": \"done\", \"session\": \"/x/y/ID2\","
	"   \"results\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"no-change\","
	"   \"delta_pct\": 0.5, \"ci_lo_pct\": -1.0, \"ci_hi_pct\": 2.0}]},"
	"  {\"step\": 3, \"purpose\": \"probe-base\", \"a\": \"base\", \"b\": \"s@2\","
	"   \"dir\": \"steps/03-probe-base\", \"state\": \"done\", \"session\": \"/x/y/ID3\","
	"   \"results\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"regression\","
	"   \"delta_pct\": -49.0, \"ci_lo_pct\": -55.0, \"ci_hi_pct\": -45.0}]},"
	"  {\"step\": 4, \"purpose\": \"own-effect\", \"a\": \"s@1\", \"b\": \"s@2\","
	"   \"dir\": \"steps/04-own-effect\", \"state\": \"done\", \"session\": \"/x/y/ID4\","
	"   \"results\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"regression\","
	"   \"delta_pct\": -48.0, \"ci_lo_pct\": -52.0, \"ci_hi_pct\": -44.0}]}],"
	" \"result\": {\"outcome\": \"found\", \"first\": 2, \"last\": 2, \"culprit\": 2,"
	"   \"own_effect\": [{\"workload\": \"yield\", \"metric\": \"cs\", \"verdict\": \"regression\","
	"   \"delta_pct\": -48.0, \"ci_lo_pct\": -52.0, \"ci_hi_pct\": -44.0}]}}";

static void test_search(void **state)
{
	struct bisect_doc d;
	const struct bisect_step_runs runs[] = { { 12, 0 }, { 16, 0 }, { 14, 2 }, { 12, 0 } };
	struct strbuf h = STRBUF_INIT;
	(void)state;

	assert_int_equal(strlen(SUBJECT60), 60);
	load_doc(search_json, &d);
	bisect_html(&h, &d, runs, 4);
	const char *s = sb_str(&h);
	assert_null(strstr(s, "<pre"));
	/* The answer first: the culprit, whole and escaped, its Message-Id and own effect. */
	const char *culprit = strstr(s, "Culprit:"), *steps = strstr(s, "id=\"steps\"");
	assert_non_null(culprit);
	assert_non_null(steps);
	assert_true(culprit < steps);
	const char *subj = strstr(s, "[PATCH 2/3] mm: &lt;b&gt;&quot;a &amp; b&quot;&lt;/b&gt; "
				  "make the lru walk lazy again!");
	assert_non_null(subj);
	assert_true(subj < steps);
	assert_non_null(strstr(s, "&lt;id2@x&gt;"));
	assert_true(strstr(s, "-48.0&#160;% [-52.0, -44.0]") < steps);
	assert_null(strstr(s, "<b>\"a"));
	/* Every step links its own report, relative to bisect.html. */
	assert_non_null(strstr(s, "href=\"./steps/01-confirm/ID1/report.html\""));
	assert_non_null(strstr(s, "href=\"./steps/02-probe-base/ID2/report.html\""));
	assert_non_null(strstr(s, "href=\"./steps/03-probe-base/ID3/report.html\""));
	assert_non_null(strstr(s, "href=\"./steps/04-own-effect/ID4/report.html\""));
	/* Runs per step, failed ones said. */
	assert_non_null(strstr(s, ">16</td>"));
	assert_non_null(strstr(s, "14 <span class=\"v-regression\">+2 failed</span>"));
	/* The levels: each probe and the whole series, with a legend. */
	assert_non_null(strstr(s, "prefix 1 (patches 1..1): at-baseline"));
	assert_non_null(strstr(s, "prefix 2 (patches 1..2): at-series-end"));
	assert_int_equal(count(s, "<td class=\"plot\"><svg class=\"bar "), 3);
	assert_int_equal(count(s, "class=\"wf-legend\""), 1);
	sb_release(&h);
	bisect_doc_release(&d);
}

/*
 * bisect --attribute: where the culprit's instructions moved, from the own
 * step's report's member kept in result.attribution; one that does not
 * decode is said, by its path.
 */
static char *with_attribution(json_t *attribution)
{
	json_t *st = json_loads(search_json, 0, NULL);
	char *text;

	assert_non_null(st);
	json_object_set_new(json_object_get(st, "result"), "attribution", attribution);
	text = json_dumps(st, 0);
	json_decref(st);
	return text;
}

static void test_attribution(void **state)
{
	char *good = with_attribution(json_pack("{s:s, s:s, s:i, s:[s, s], s:[]}", "method", "perf",
						"which", "changed", "runs_per_kernel", 2,
						"kernels", "s@1", "s@2", "workloads"));
	char *bad = with_attribution(json_pack("{s:i}", "method", 5));
	struct strbuf h = STRBUF_INIT;
	struct bisect_doc d;
	(void)state;

	load_doc(good, &d);
	bisect_html(&h, &d, NULL, 0);
	assert_non_null(strstr(sb_str(&h), "<h3>Where its instructions moved</h3>"));
	assert_null(strstr(sb_str(&h), "Not shown:"));
	bisect_doc_release(&d);
	sb_reset(&h);
	load_doc(bad, &d);
	bisect_html(&h, &d, NULL, 0);
	assert_non_null(strstr(sb_str(&h), "<h3>Where its instructions moved</h3>"));
	assert_non_null(strstr(sb_str(&h), "Not shown: attribution.method"));
	bisect_doc_release(&d);
	sb_reset(&h);
	load_doc(search_json, &d);
	bisect_html(&h, &d, NULL, 0);
	assert_null(strstr(sb_str(&h), "instructions moved"));
	bisect_doc_release(&d);
	sb_release(&h);
	free(good);
	free(bad);
}

/* A series that moves nothing: the answer says so, and the confirm step is on the page. */
static void test_not_confirmed(void **state)
{
	struct bisect_doc d;
	const char *text = "{\"baseline\": \"a\", \"series_kernel\": \"b\", \"n\": 2,"
		" \"steps\": [{\"step\": 1, \"purpose\": \"confirm\", \"a\": \"a\","
		" \"b\": \"b\", \"dir\": \"steps/01-confirm\", \"state\": \"done\","
		" \"results\": [{\"workload\": \"w\", \"metric\": \"m\","
		" \"verdict\": \"no-change\", \"delta_pct\": 0.1}]}],"
		" \"result\": {\"outcome\": \"not-confirmed\"}}";
	struct strbuf h = STRBUF_INIT;
	(void)state;

	load_doc(text, &d);
	bisect_html(&h, &d, NULL, 0);
	const char *s = sb_str(&h);
	assert_null(strstr(s, "<pre"));
	/*
	 * No prefix probed: no probe's bar. (bisect.json always has prefixes,
	 * {} here, so the levels show the whole series' bar alone, as the
	 * page of a real not-confirmed bisection always did.)
	 */
	assert_null(strstr(s, "prefix 1 ("));
	assert_true(strstr(s, "Not confirmed:") < strstr(s, "id=\"steps\""));
	/* No session recorded: no link, and the metric is still shown. */
	assert_null(strstr(s, "report.html"));
	assert_non_null(strstr(s, "+0.1&#160;%"));
	/* The steps show the metric the confirm step saw, not "nothing tracked". */
	assert_non_null(strstr(strstr(s, "id=\"steps\""), "badge v-no-change"));
	sb_release(&h);
	bisect_doc_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waterfall),
		cmocka_unit_test(test_waterfall_merged),
		cmocka_unit_test(test_search),
		cmocka_unit_test(test_attribution),
		cmocka_unit_test(test_not_confirmed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
