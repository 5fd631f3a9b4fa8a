// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML pages' shared pieces (lab/report/html_kit.c): what bisect.html
 * and history's page write through them, data escaped and markup kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_badge_muted_link),
		cmocka_unit_test(test_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
