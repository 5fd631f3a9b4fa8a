// SPDX-License-Identifier: GPL-2.0
/*
 * The reply mail goes to the series' author and reproduces on someone
 * else's machine (issue 50). The session records the From of the series'
 * cover letter, else its first patch (kernels[].series_author,
 * mbox_thread_json()), salvaged so that a forged From adds no header and
 * no recipient; the mail's To is that author unless lab.conf's [report]
 * names one. The recipe names the base by its archive's digest or commit,
 * the series and lab.conf by their digests, or by the session's copies
 * under [report] base_url.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbox.h"
#include "report.h"
#include "report_headline.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

#define PATCH \
	"\n---\n" \
	"diff --git a/mm/x.c b/mm/x.c\n" \
	"--- a/mm/x.c\n" \
	"+++ b/mm/x.c\n" \
	"@@ -1 +1 @@\n" \
	"-a\n" \
	"+b\n"

static const char series[] =
	"From mglrulab Thu Jan  1 00:00:00 1970\n"
	"From: Ann Author <ann@example.org>\n"
	"To: linux-mm@kvack.org\n"
	"Cc: Andrew Morton <akpm@example.org>\n"
	"Subject: [PATCH 0/1] mm: a fix\n"
	"Message-Id: <cover.1@example.org>\n"
	"\n"
	"A fix.\n"
	"\n"
	"From mglrulab Thu Jan  1 00:00:00 1970\n"
	"From: Someone Else <else@example.org>\n"
	"To: linux-mm@kvack.org\n"
	"Subject: [PATCH 1/1] mm: the fix\n"
	"Message-Id: <p1.1@example.org>\n"
	PATCH;

/*
 * A forged From: a second address after a comma, and an encoded word
 * that decodes to CR LF and a Bcc header in the name.
 */
static const char forged[] =
	"From mglrulab Thu Jan  1 00:00:00 1970\n"
	"From: =?UTF-8?B?TWFsbG9yeQ0KQmNjOiBzcHlAZXhhbXBsZS5uZXQ=?= <m@example.org>,"
	" victim@example.net\n"
	"To: linux-mm@kvack.org, <<bad>>, \"x\" <a@b@c>\n"
	"Subject: [PATCH 1/1] mm: the fix\n"
	"Message-Id: <p1.1@example.org>\n"
	PATCH;

/* The fixture's session with @mbox recorded for its patched kernel, as a session records it. */
static json_t *session_with(const char *mbox, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	struct patch_list pl = { 0 };
	json_t *s;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	mbox_split_buffer("series.mbox", mbox, len, &pl);
	json_t *k1 = json_array_get(json_object_get(s, "kernels"), 1);

	mbox_thread_json(&pl, k1, json_object_get(k1, "series"));
	patch_list_release(&pl);
	/* the fixture's own first author would stand in for an older report's */
	json_object_del(json_array_get(json_object_get(json_array_get(json_object_get(s, "kernels"),
		1), "series"), 0), "author");
	sb_release(&err);
	return s;
}

static char *mail_of(json_t *s, const struct report_mail_opts *o)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, why = STRBUF_INIT;
	json_t *r = report_analyze(s, &err);

	if (!r)
		fail_msg("%s", err.buf);
	report_render_mail(r, o, &out, &why);
	json_decref(r);
	sb_release(&err);
	sb_release(&why);
	return sb_detach(&out);
}

/* The mail's headers alone (up to the first empty line), as a new string. */
static char *headers_of(const char *mail)
{
	const char *end = strstr(mail, "\n\n");

	assert_non_null(end);
	return strndup(mail, (size_t)(end - mail) + 1);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_to_the_author(void **state)
{
	struct report_mail_opts o = { .from = "Lab <lab@example.org>" };
	json_t *s = session_with(series, sizeof(series) - 1);
	json_t *a = json_object_get(json_array_get(json_object_get(s, "kernels"), 1), "series_author");
	char *mail, *h;
	(void)state;

	/* the cover letter's From, not the first patch's */
	assert_non_null(a);
	assert_string_equal(json_string_value(json_object_get(a, "name")), "Ann Author");
	assert_string_equal(json_string_value(json_object_get(a, "address")), "ann@example.org");
	mail = mail_of(s, &o);
	h = headers_of(mail);
	assert_non_null(strstr(h, "\nTo: Ann Author <ann@example.org>\n"));
	assert_non_null(strstr(h, "\nCc: linux-mm@kvack.org, Andrew Morton <akpm@example.org>\n"));
	free(h);
	free(mail);
	/* lab.conf's own To wins */
	o.to = "list@example.org";
	mail = mail_of(s, &o);
	h = headers_of(mail);
	assert_non_null(strstr(h, "\nTo: list@example.org\n"));
	assert_null(strstr(h, "ann@example.org"));
	free(h);
	free(mail);
	json_decref(s);
}

/* Each header line of @h: one To at most, with one address, and no Bcc. */
static void assert_one_recipient(const char *h, const char *to)
{
	assert_null(strstr(h, "\nBcc"));
	assert_int_equal(count(h, "\nTo:"), to ? 1 : 0);
	assert_null(strchr(h, '\r'));
	if (to)
		assert_non_null(strstr(h, to));
}

static void test_forged_from(void **state)
{
	struct report_mail_opts o = { .from = "Lab <lab@example.org>" };
	json_t *s = session_with(forged, sizeof(forged) - 1), *k;
	char *mail, *h;
	(void)state;

	mail = mail_of(s, &o);
	h = headers_of(mail);
	/* one address, the name a plain phrase: "Mallory Bcc: ..." quoted */
	assert_one_recipient(h, "\nTo: \"Mallory Bcc: spy@example.net\" <m@example.org>\n");
	assert_null(strstr(h, "victim@"));
	/* and only the well-formed address of where it was posted */
	assert_non_null(strstr(h, "\nCc: linux-mm@kvack.org\n"));
	free(h);
	free(mail);

	/* a report.json edited by hand: salvaged again, or no To at all */
	k = json_array_get(json_object_get(s, "kernels"), 1);
	json_object_set_new(k, "series_author", json_pack("{s:s, s:s}", "name",
		"Evil\" <x@example.org>, \"victim\r\nBcc: victim@example.net", "address",
		"m@example.org"));
	json_object_set_new(k, "posted_to", json_string("a@example.org,\r\nBcc: victim@example.net"));
	mail = mail_of(s, &o);
	h = headers_of(mail);
	assert_one_recipient(h, "\nTo: \"Evil x@example.org, victim Bcc: victim@example.net\" "
			     "<m@example.org>\n");
	assert_non_null(strstr(h, "\nCc: a@example.org\n"));
	free(h);
	free(mail);
	json_object_set_new(k, "series_author", json_pack("{s:s, s:s}", "name", "N",
		"address", "m@example.org>\r\nBcc: victim@example.net"));
	mail = mail_of(s, &o);
	h = headers_of(mail);
	assert_one_recipient(h, NULL);
	free(h);
	free(mail);

	/* a report from before series_author: its first patch's author, one address of it */
	json_object_del(k, "series_author");
	json_object_set_new(json_array_get(json_object_get(k, "series"), 0), "author",
			    json_string("Mallory <m@example.org>, victim@example.net"));
	mail = mail_of(s, &o);
	h = headers_of(mail);
	assert_one_recipient(h, "\nTo: Mallory <m@example.org>\n");
	assert_null(strstr(h, "victim@"));
	free(h);
	free(mail);
	json_decref(s);
}

#define TARBALL "c93391b6a4884e6428ffbfbb8ce6340229ad28dc421e9f19bc081740b1ab34b2"
#define SERIES "71dafa1b0ec35df1866a82c2cbb8373bcf2ba201de082556085c4cb14c5c5ab4"
#define LABCONF "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"

static void test_recipe_digests(void **state)
{
	struct report_mail_opts o = { .from = "Lab <lab@example.org>" };
	json_t *s = session_with(series, sizeof(series) - 1), *ks = json_object_get(s, "kernels");
	char *mail;
	(void)state;

	for (size_t i = 0; i < 2; i++)
		json_object_set_new(json_array_get(ks, i), "source_id", json_string("tar:" TARBALL));
	json_object_set_new(json_array_get(ks, 1), "series_files",
			    json_pack("[{s:s, s:s}]", "file", "/home/alice/p/v1.mbox", "sha256", SERIES));
	json_object_set_new(json_object_get(s, "session"), "lab_conf_sha256", json_string(LABCONF));
	mail = mail_of(s, &o);
	assert_non_null(strstr(mail, "\n  patched: linux-source-6.12.tar.xz (sha256:c93391b6a488) at "
			       "v6.12, config\n    sha256:5b0e7c1d\n"));
	assert_non_null(strstr(mail, "\n    series sha256:71dafa1b0ec3 v1.mbox\n"));
	assert_non_null(strstr(mail, "\n  lab.conf sha256:abcdef012345\n"));
	assert_null(strstr(mail, "/home/alice"));
	free(mail);

	/* published: the session's copies of its inputs instead */
	o.base_url = "https://example.org/r";
	mail = mail_of(s, &o);
	assert_non_null(strstr(mail, "\n      https://example.org/r/2026-11-29T184628Z-ab/inputs/"
			       "71dafa1b0ec3.mbox\n"));
	assert_non_null(strstr(mail, "\n  lab.conf https://example.org/r/2026-11-29T184628Z-ab/"
			       "inputs/lab.conf\n"));
	free(mail);

	/* a session id that is not a folder's name links nothing: the digests stay */
	json_object_set_new(json_object_get(s, "session"), "id", json_string(".."));
	mail = mail_of(s, &o);
	assert_null(strstr(mail, "inputs/"));
	assert_non_null(strstr(mail, "\n  lab.conf sha256:abcdef012345\n"));
	free(mail);

	/* a session from before the copies (no lab.conf digest) has no inputs/ to link */
	json_object_set_new(json_object_get(s, "session"), "id", json_string("2026-11-29T184628Z-ab"));
	json_object_del(json_object_get(s, "session"), "lab_conf_sha256");
	mail = mail_of(s, &o);
	assert_null(strstr(mail, "inputs/"));
	assert_non_null(strstr(mail, "\n    series sha256:71dafa1b0ec3 v1.mbox\n"));
	free(mail);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_to_the_author),
		cmocka_unit_test(test_forged_from),
		cmocka_unit_test(test_recipe_digests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
