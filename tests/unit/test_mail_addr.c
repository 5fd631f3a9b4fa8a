// SPDX-License-Identifier: GPL-2.0
/*
 * mail_addr: the address lists of lab.conf's [report] and how the reply mail
 * writes them. Guards that a name is never encoded together with its address
 * (a reader would lose the address) and that every line fits 78 columns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "mail_addr.h"
#include "util.h"

static void test_parse(void **state)
{
	struct mail_addrs a;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(mail_addr_parse("a@b.org,  \"Doe, J.\" <j@d.org> , Jörg <x@y.z>", &a,
					 &err), 0);
	assert_int_equal(a.n, 3);
	assert_null(a.v[0].name);
	assert_string_equal(a.v[0].spec, "a@b.org");
	assert_string_equal(a.v[1].name, "Doe, J.");
	assert_string_equal(a.v[1].spec, "j@d.org");
	assert_string_equal(a.v[2].name, "Jörg");
	mail_addrs_release(&a);
	sb_release(&err);
}

static void expect_refused(const char *list, const char *why)
{
	struct mail_addrs a;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(mail_addr_parse(list, &a, &err), -1);
	if (!strstr(sb_str(&err), why))
		fail_msg("'%s': '%s' does not say '%s'", list, sb_str(&err), why);
	mail_addrs_release(&a);
	sb_release(&err);
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("", "no address");
	expect_refused("nobody", "the 1st address: expected user@domain");
	expect_refused("a@b.org, Jörg <jörg@example.org>", "the 2nd address: the address must be");
	expect_refused("A <a@b.org", "expected Name <user@domain>");
	expect_refused("\"A <a@b.org>", "a quote is not closed");
	expect_refused("A\tB <a@b.org>", "control character");
	expect_refused("\xff <a@b.org>", "not valid UTF-8");
	expect_refused("a@@b.org", "expected user@domain");
	expect_refused(" , ,", "the 1st address: no address");
}

/* A trailing comma or an empty element is no address and no error; a quoted name may hold '<'. */
static void test_lenient(void **state)
{
	struct mail_addrs a;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(mail_addr_parse("a@b.org, , \"x<y\" <c@d.org>,", &a, &err), 0);
	assert_int_equal(a.n, 2);
	assert_string_equal(a.v[0].spec, "a@b.org");
	assert_string_equal(a.v[1].name, "x<y");
	assert_string_equal(a.v[1].spec, "c@d.org");
	mail_addrs_release(&a);
	sb_release(&err);
}

static void test_header(void **state)
{
	struct mail_addrs a;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	const char *p;

	(void)state;
	assert_int_equal(mail_addr_parse("Jörg Müller <joerg@example.org>, J. Doe <jd@x.org>, "
					 "aaaaaaaaaaaaaaaaaaaa@example.org, "
					 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb@example.org", &a, &err), 0);
	mail_addr_header(&out, "Cc", &a, 78);
	assert_non_null(strstr(sb_str(&out), "Cc: =?UTF-8?B?SsO2cmcgTcO8bGxlcg==?= <joerg@example.org>,"));
	/* A name with a special is quoted; the address is never inside an encoded word. */
	assert_non_null(strstr(sb_str(&out), "\"J. Doe\" <jd@x.org>"));
	for (p = sb_str(&out); *p; ) {
		size_t n = strcspn(p, "\n");

		if (n > 78)
			fail_msg("line over 78 columns: %.*s", (int)n, p);
		p += n + (p[n] == '\n');
	}
	mail_addrs_release(&a);
	sb_release(&err);
	sb_release(&out);
}

/* A long name is several words, each of whole characters, each line in 78 columns. */
static void test_long_name(void **state)
{
	struct strbuf out = STRBUF_INIT;
	size_t col = 4;
	const char *p;

	(void)state;
	mail_encoded_words(&out, "ÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅÅ", &col, 78);
	for (p = sb_str(&out); *p; ) {
		size_t n = strcspn(p, "\n");

		assert_true(n <= 75);
		p += n + (p[n] == '\n');
	}
	/* 49 two-byte characters: words of 22, 22 (44 bytes, under the 45 allowed) and 5. */
	assert_non_null(strstr(sb_str(&out), "?=\n =?UTF-8?B?"));
	assert_int_equal(col, 1 + 12 + (5 * 2 + 2) / 3 * 4);
	sb_release(&out);
}

/*
 * A series' From salvaged: the first element only, and the address a mail
 * client shows. A backslash-quoted '"' inside a quoted name (RFC 5322's
 * quoted-pair) once ended the quote for the salvager alone, which then
 * mailed x@evil.org while a mail client showed real@example.org.
 */
static void test_salvage(void **state)
{
	struct mail_addr a;
	(void)state;

	assert_int_equal(mail_addr_salvage("\"a\\\" <x@evil.org>, b\" <real@example.org>", &a), 0);
	assert_string_equal(a.spec, "real@example.org");
	assert_null(strstr(a.name, "\""));
	mail_addr_release(&a);
	assert_int_equal(mail_addr_salvage("Mallory <m@example.org>, victim@example.net", &a), 0);
	assert_string_equal(a.spec, "m@example.org");
	assert_string_equal(a.name, "Mallory");
	mail_addr_release(&a);
	assert_int_equal(mail_addr_salvage("Eve\r\nBcc: x@y.z <e@example.org>", &a), 0);
	assert_string_equal(a.spec, "e@example.org");
	assert_null(strchr(a.name, '\n'));
	mail_addr_release(&a);
	assert_int_equal(mail_addr_salvage("no address here", &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_lenient),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_long_name),
		cmocka_unit_test(test_salvage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
