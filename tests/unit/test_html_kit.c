// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML pages' shared pieces (lab/report/html_kit.c): what report.html,
 * bisect.html and history's page write through them, data escaped and
 * markup kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "html_kit.h"
#include "strbuf.h"

static void test_badge_muted_link(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	html_badge(&sb, "regression", "regression");
	assert_string_equal(sb_str(&sb), "<span class=\"badge v-regression\">regression</span>");
	sb_reset(&sb);
	/* a class or text from a file cannot leave its attribute or element */
	html_badge(&sb, "x\"><script>", "<b>&'");
	assert_string_equal(sb_str(&sb), "<span class=\"badge v-x&quot;&gt;&lt;script&gt;\">"
			    "&lt;b&gt;&amp;&#39;</span>");
	sb_reset(&sb);
	html_muted(&sb, "not measured");
	assert_string_equal(sb_str(&sb), "<span class=\"muted\">not measured</span>");
	sb_reset(&sb);
	/* "./" first: a folder named "javascript:x" stays a path */
	html_link_open(&sb, "javascript:x/\"report.html");
	assert_string_equal(sb_str(&sb), "<a href=\"./javascript:x/&quot;report.html\">");
	sb_reset(&sb);
	html_esc(&sb, NULL);
	assert_int_equal(sb.len, 0);
	sb_release(&sb);
}

static void test_table(void **state)
{
	static const struct html_col cols[] = {
		{ "Workload", 0 }, { "From &#8594; to", 1 }, { NULL, 0 },
	};
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	html_table_open(&sb, NULL, cols);
	html_table_close(&sb);
	assert_string_equal(sb_str(&sb), "<div class=\"tw\"><table><thead><tr><th>Workload</th>"
			    "<th class=\"num\">From &#8594; to</th></tr></thead><tbody>"
			    "</tbody></table></div>");
	sb_reset(&sb);
	html_table_open(&sb, "bars", cols + 2);
	assert_string_equal(sb_str(&sb), "<div class=\"tw\"><table class=\"bars\"><thead><tr>"
			    "</tr></thead><tbody>");
	sb_release(&sb);
}

/* report.html's verdict badges and cells, as its tables have always written them. */
static void test_verdicts_cells(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	html_verdict_badge(&sb, "within-noise");
	assert_string_equal(sb_str(&sb), "<span class=\"badge v-within-noise\" "
			    "title=\"significant, within noise\">\u2248</span>");
	sb_reset(&sb);
	/* a change shows its id; an id of no table is invalid, never echoed */
	html_verdict_badge(&sb, "increase");
	assert_non_null(strstr(sb_str(&sb), "\">increase</span>"));
	sb_reset(&sb);
	html_verdict_badge(&sb, "x\"><script>");
	assert_string_equal(sb_str(&sb), "<span class=\"badge v-invalid\" title=\"invalid\">"
			    "invalid</span>");
	assert_string_equal(html_verdict_class("no-change"), "no-change");
	assert_string_equal(html_verdict_class(NULL), "invalid");
	sb_reset(&sb);
	html_td_verdict(&sb, NULL);
	html_td_verdict(&sb, "regression");
	assert_string_equal(sb_str(&sb), "<td class=\"verdict\">-</td><td class=\"verdict\">"
			    "<span class=\"badge v-regression\" title=\"regression\">regression"
			    "</span></td>");
	sb_reset(&sb);
	html_td_num(&sb, NAN);
	html_td_num(&sb, 181234.4);
	html_td_text(&sb, "<b>");
	html_td_text(&sb, NULL);
	assert_string_equal(sb_str(&sb), "<td class=\"num\">-</td><td class=\"num\">181234</td>"
			    "<td>&lt;b&gt;</td><td></td>");
	sb_reset(&sb);
	html_li(&sb, "a & b");
	html_dl_item(&sb, "CPUs", "");
	html_dl_item(&sb, "host", "<x>");
	assert_string_equal(sb_str(&sb), "<li>a &amp; b</li><dt>CPUs</dt><dd>-</dd>"
			    "<dt>host</dt><dd>&lt;x&gt;</dd>");
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_badge_muted_link),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_verdicts_cells),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
