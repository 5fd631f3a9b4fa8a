// SPDX-License-Identifier: GPL-2.0
/*
 * The reply mail Ccs where the series was posted (issue 50): the session
 * records the To and Cc of the series' first mail (kernels[].posted_to,
 * mbox_thread_json()), and the mail's Cc is that list unless lab.conf's
 * [report] cc names one.
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
	"From: Ann Author <ann@example.org>\n"
	"To: linux-mm@kvack.org\n"
	"Subject: [PATCH 1/1] mm: the fix\n"
	"Message-Id: <p1.1@example.org>\n"
	"\n"
	"---\n"
	"diff --git a/mm/x.c b/mm/x.c\n"
	"--- a/mm/x.c\n"
	"+++ b/mm/x.c\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n";

/* The fixture's report with the series above recorded for its patched kernel. */
static json_t *report(void)
{
	struct strbuf err = STRBUF_INIT;
	struct patch_list pl = { 0 };
	json_t *s, *r;

	if (report_load(FIXTURE, &s, &err))
		fail_msg("%s", err.buf);
	mbox_split_buffer("series.mbox", series, sizeof(series) - 1, &pl);
	json_t *k1 = json_array_get(json_object_get(s, "kernels"), 1);

	mbox_thread_json(&pl, k1, json_object_get(k1, "series"));
	patch_list_release(&pl);
	const char *to = json_string_value(json_object_get(json_array_get(
		json_object_get(s, "kernels"), 1), "posted_to"));

	assert_non_null(to);
	assert_string_equal(to, "linux-mm@kvack.org, Andrew Morton <akpm@example.org>");
	r = report_analyze(s, &err);
	if (!r)
		fail_msg("%s", err.buf);
	json_decref(s);
	sb_release(&err);
	return r;
}

/* The header @name's line of @mail, as a new string (NULL: none). */
static char *header_of(const char *mail, const char *name)
{
	const char *a = strstr(mail, name), *b;

	if (!a)
		return NULL;
	b = strstr(a + 1, "\n");
	while (b && (b[1] == ' ' || b[1] == '\t'))
		b = strstr(b + 1, "\n");
	return strndup(a, b ? (size_t)(b - a) : strlen(a));
}

static void test_cc_the_list(void **state)
{
	struct strbuf out = STRBUF_INIT, why = STRBUF_INIT;
	struct report_mail_opts o = { .from = "lab <lab@example.org>", .date = "Thu, 1 Jan 1970 00:00:00 +0000" };
	json_t *r = report();
	char *cc;

	(void)state;
	report_render_mail(r, &o, &out, &why);
	cc = header_of(out.buf, "\nCc: ");
	assert_non_null(cc);
	assert_non_null(strstr(cc, "linux-mm@kvack.org"));
	assert_non_null(strstr(cc, "akpm@example.org"));
	free(cc);
	/* lab.conf's own Cc wins */
	sb_reset(&out);
	sb_reset(&why);
	o.cc = "other@example.org";
	report_render_mail(r, &o, &out, &why);
	cc = header_of(out.buf, "\nCc: ");
	assert_non_null(cc);
	assert_null(strstr(cc, "linux-mm"));
	free(cc);
	json_decref(r);
	sb_release(&out);
	sb_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cc_the_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
