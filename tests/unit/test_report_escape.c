// SPDX-License-Identifier: GPL-2.0
/* Escaping of untrusted strings for HTML, text and benchfmt (lab/lib/escape.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "escape.h"
#include "strbuf.h"

#define FFFD "\xEF\xBF\xBD"

static void html_is(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_xml(&sb, in);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

static void text_is(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_text_safe(&sb, in);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

static void test_html_markup(void **state)
{
	(void)state;
	html_is("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	html_is("a \"quoted\" 'single' & amp", "a &quot;quoted&quot; &#39;single&#39; &amp; amp");
	html_is("&amp;", "&amp;amp;");
	html_is("</td><img src=x onerror=alert(1)>", "&lt;/td&gt;&lt;img src=x onerror=alert(1)&gt;");
	html_is("", "");
	html_is(NULL, "");
}

static void test_html_controls(void **state)
{
	(void)state;
	html_is("\x1b[31mred", FFFD "[31mred");
	html_is("bell\a", "bell" FFFD);
	html_is("del\x7f", "del" FFFD);
	html_is("c1\xc2\x85", "c1" FFFD);			/* U+0085 NEL */
	html_is("bidi\xe2\x80\xae" "x", "bidi" FFFD "x");	/* U+202E RLO */
	html_is("tab\tnl\n", "tab\tnl\n");
}

static void test_html_invalid_utf8(void **state)
{
	(void)state;
	html_is("\xff\xfe", FFFD FFFD);
	html_is("\xc0\xaf", FFFD FFFD);			/* overlong '/' */
	html_is("\xed\xa0\x80", FFFD FFFD FFFD);		/* surrogate */
	html_is("\xe2\x82", FFFD FFFD);			/* truncated */
	html_is("\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD);	/* beyond U+10FFFF */
	html_is("ok \xe4\xbd\x95 \xf0\x9f\x98\x80", "ok \xe4\xbd\x95 \xf0\x9f\x98\x80");
	html_is("<\xff>", "&lt;" FFFD "&gt;");
}

static void test_text_safe(void **state)
{
	(void)state;
	text_is("<script>&\"'", "<script>&\"'");	/* plain text needs no entities */
	text_is("a\nb\tc\rd", "a?b?c?d");
	text_is("\x1b]0;title\a", "?]0;title?");
	text_is("\xff\xc0\xaf", "???");
	text_is("caf\xc3\xa9", "caf\xc3\xa9");
	text_is("\xe2\x80\xae" "evil", "?evil");
	assert_int_equal(text_safe_width("caf\xc3\xa9"), 4);
	assert_int_equal(text_safe_width("\xff\xfe"), 2);
}

static void test_text_fit(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_int_equal(sb_add_text_fit(&sb, "abcdef", 4), 4);
	assert_string_equal(sb.buf, "abc~");
	sb_reset(&sb);
	assert_int_equal(sb_add_text_fit(&sb, "abcd", 4), 4);
	assert_string_equal(sb.buf, "abcd");
	sb_reset(&sb);
	sb_add_text_fit(&sb, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3);
	assert_string_equal(sb.buf, "\xc3\xa9\xc3\xa9~");
	sb_release(&sb);
}

static void test_bench_token(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	sb_add_bench_token(&sb, "lat<b>\"p99\" x/y=z\xc3\xa9");
	assert_string_equal(sb.buf, "lat_b__p99__x_y_z__");
	sb_reset(&sb);
	sb_add_bench_token(&sb, "");
	assert_string_equal(sb.buf, "_");
	sb_release(&sb);
}

/* Latin-1 patch subjects and the like: kept, with U+FFFD for each bad byte. */
static void test_utf8_lossy(void **state)
{
	static const char latin1[] = "mm: r\xe9" "duire \xe0 z\xe9" "ro";
	json_t *j;
	(void)state;

	assert_int_equal(utf8_valid_len("ok \xc3\xa9", 5), 5);
	assert_int_equal(utf8_valid_len(latin1, strlen(latin1)), 5);
	/* An overlong '/', a surrogate and a sequence cut short are invalid too. */
	assert_int_equal(utf8_valid_len("a\xc0\xaf", 3), 1);
	assert_int_equal(utf8_valid_len("a\xed\xa0\x80", 4), 1);
	assert_int_equal(utf8_valid_len("ab\xe2\x82", 4), 2);
	/* What jansson does with it: nothing at all. */
	assert_null(json_string(latin1));
	j = json_string_lossy(latin1);
	assert_non_null(j);
	assert_string_equal(json_string_value(j),
			    "mm: r\xef\xbf\xbd" "duire \xef\xbf\xbd z\xef\xbf\xbd" "ro");
	json_decref(j);
	j = json_string_lossy("a\xc0\xaf\xff");
	assert_string_equal(json_string_value(j), "a\xef\xbf\xbd" "\xef\xbf\xbd" "\xef\xbf\xbd");
	json_decref(j);
	j = json_string_lossy(NULL);
	assert_string_equal(json_string_value(j), "");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_markup),
		cmocka_unit_test(test_html_controls),
		cmocka_unit_test(test_html_invalid_utf8),
		cmocka_unit_test(test_text_safe),
		cmocka_unit_test(test_text_fit),
		cmocka_unit_test(test_bench_token),
		cmocka_unit_test(test_utf8_lossy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
