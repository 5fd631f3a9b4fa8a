// SPDX-License-Identifier: GPL-2.0
/* bisect.html: the per-patch waterfall's bars and levels, escaping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bisect.h"
#include "strbuf.h"

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
	json_t *st = json_loads(state_json, 0, NULL);
	struct strbuf h = STRBUF_INIT;
	(void)state;

	assert_non_null(st);
	bisect_html(&h, st, "culprit: <patch 2>");
	const char *s = sb_str(&h);
	assert_int_equal(count(s, "<svg"), 1);
	/* Two patches and the whole series. */
	assert_int_equal(count(s, "<rect"), 3);
	assert_int_equal(count(s, "class=\"v-regression\""), 2);
	assert_int_equal(count(s, "class=\"v-other\""), 1);
	/* Patch 2 steps from 0 % to -50 %; its interval is applied at its own level. */
	assert_non_null(strstr(s, "2. &lt;script&gt;two&lt;/script&gt;: +0.0 % to -50.0 %"));
	/* Nothing from the mail or the names gets through unescaped. */
	assert_null(strstr(s, "<script>"));
	assert_null(strstr(s, "new<b>"));
	assert_null(strstr(s, "<patch 2>"));
	/* Long labels are cut to fit left of the plot; the title keeps them whole. */
	assert_non_null(strstr(s, ">2. &lt;script&gt;two&lt;/script&gt;<"));
	assert_int_equal(count(s, "whole series (measured)"), 2);
	/* 3 + 25 two-byte characters: cut at 40 bytes, on a character boundary. */
	assert_non_null(strstr(s, ">1. \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				  "\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x80\xa6<"));
	sb_release(&h);
	json_decref(st);
}

/* A bisection that searched has no waterfall: the summary alone. */
static void test_no_waterfall(void **state)
{
	json_t *st = json_loads("{\"baseline\": \"a\", \"series_kernel\": \"b\", \"result\":"
				" {\"outcome\": \"found\"}}", 0, NULL);
	struct strbuf h = STRBUF_INIT;
	(void)state;

	bisect_html(&h, st, "culprit");
	assert_null(strstr(sb_str(&h), "<svg"));
	assert_non_null(strstr(sb_str(&h), "<pre>culprit</pre>"));
	sb_release(&h);
	json_decref(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waterfall),
		cmocka_unit_test(test_no_waterfall),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
