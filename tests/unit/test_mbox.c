// SPDX-License-Identifier: GPL-2.0
/* mbox splitting: multi-patch mbox, cover letter, folded subjects, bare diffs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mail_decode.h"
#include "mbox.h"
#include "strbuf.h"
#include "util.h"

#define DIFF(file) \
	"---\n " file " | 1 +\n\ndiff --git a/" file " b/" file "\n--- a/" file "\n+++ b/" file "\n" \
	"@@ -1,1 +1,2 @@\n a\n+b\n"

static const char series[] =
	"From mglrulab Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Subject: [RFC PATCH 0/2] mm: a cover letter\n"
	"\n"
	"Blurb. A body line that starts a sentence:\n"
	"From the numbers below it follows that...\n"
	"\n"
	"From mglrulab Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Subject: [RFC PATCH 1/2] mm: first patch with a subject\n"
	" that is folded\n"
	"\n"
	"Body.\n" DIFF("mm/a.c")
	"\n"
	"From mglrulab Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Date: Thu, 5 Nov 2026 21:22:18 +0800\n"
	"\n"
	"A patch without a subject.\n" DIFF("mm/b.c");

static void test_multi_patch_mbox(void **state)
{
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("s.mbox", series, strlen(series), &pl);
	assert_int_equal(pl.n, 3);
	assert_true(pl.v[0].is_cover);
	assert_false(pl.v[0].has_diff);
	assert_string_equal(pl.v[0].subject, "[RFC PATCH 0/2] mm: a cover letter");
	/* The body line "From the numbers" must not start a new message. */
	assert_non_null(strstr(pl.v[0].text, "From the numbers below"));

	assert_false(pl.v[1].is_cover);
	assert_true(pl.v[1].has_diff);
	assert_true(pl.v[1].has_headers);
	assert_int_equal(pl.v[1].index, 2);
	assert_string_equal(pl.v[1].subject,
			    "[RFC PATCH 1/2] mm: first patch with a subject that is folded");
	assert_true(str_starts_with(pl.v[1].text, "From mglrulab "));

	assert_false(pl.v[2].is_cover);
	assert_null(pl.v[2].subject);
	char *label = patch_label(&pl.v[2]);
	assert_string_equal(label, "\"(no subject)\" (s.mbox, message 3)");
	free(label);
	patch_list_release(&pl);
}

/* Every CRLF becomes LF, a lone CR stays, and the length follows. */
static void test_crlf_to_lf(void **state)
{
	const char in[] = "a\r\nb\rc\r\n\r\nd\r";
	size_t len = sizeof(in) - 1;
	char *out = mail_crlf_to_lf(in, &len);
	(void)state;

	assert_string_equal(out, "a\nb\rc\n\nd\r");
	assert_int_equal(len, strlen("a\nb\rc\n\nd\r"));
	free(out);
	len = 0;
	out = mail_crlf_to_lf("", &len);
	assert_string_equal(out, "");
	assert_int_equal(len, 0);
	free(out);
}

/* series[] with every LF as CRLF, as a Windows mail client saves it. */
static void test_crlf_mbox(void **state)
{
	struct strbuf crlf = STRBUF_INIT;
	struct patch_list pl = { 0 };
	(void)state;

	for (const char *c = series; *c; c++) {
		if (*c == '\n')
			sb_addc(&crlf, '\r');
		sb_addc(&crlf, *c);
	}
	mbox_split_buffer("w.mbox", crlf.buf, crlf.len, &pl);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.v[0].subject, "[RFC PATCH 0/2] mm: a cover letter");
	assert_true(pl.v[0].is_cover);
	assert_string_equal(pl.v[1].subject,
			    "[RFC PATCH 1/2] mm: first patch with a subject that is folded");
	assert_false(pl.v[1].is_cover);
	/* git am gets LF lines: a CR would end up in every patched line. */
	assert_null(strchr(pl.v[1].text, '\r'));
	assert_non_null(strstr(pl.v[1].text, "\n+++ b/mm/a.c\n@@ -1,1 +1,2 @@\n a\n+b\n"));
	sb_release(&crlf);
	patch_list_release(&pl);
}

/*
 * A paragraph of the body that starts with "From " and is followed by a
 * line that looks like a header is not a new message: it is no From_ line.
 * mboxrd-quoted lines lose one '>'.
 */
/* Blank lines before the first message are no message: numbering starts at 1 (fuzz find). */
static void test_leading_blank_lines(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct patch_list pl = { 0 };
	(void)state;

	sb_adds(&sb, "\n\n");
	sb_adds(&sb, series);
	mbox_split_buffer("lead.mbox", sb.buf, sb.len, &pl);
	assert_int_equal(pl.n, 3);
	for (size_t i = 0; i < pl.n; i++)
		assert_int_equal(pl.v[i].index, (int)i + 1);
	sb_release(&sb);
	patch_list_release(&pl);
}

static void test_body_from_paragraph(void **state)
{
	static const char mbox[] =
		"From 1a2b3c Mon Sep 17 00:00:00 2001\n"
		"From: A <a@example.org>\n"
		"Subject: [PATCH 1/1] mm: keep the body\n"
		"\n"
		"Blurb.\n"
		"\n"
		"From 6.12 on, the bitmap is stored on every switch.\n"
		"Note: this line looks like a header.\n"
		"\n"
		">From the numbers below it follows that...\n"
		">>From here on: quoted twice\n"
		"> From a reply, not mboxrd quoting\n"
		"\n"
		">From git@z Thu Jan  1 00:00:00 1970\n"
		">From the numbers below, 12:30 09:00 2001\n"
		">From x Mon Sep 17 00:00:00 80\n"
		"\n"
		"Signed-off-by: A <a@example.org>\n" DIFF("mm/a.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("b.mbox", mbox, strlen(mbox), &pl);
	assert_int_equal(pl.n, 1);
	assert_false(pl.v[0].is_cover);
	const char *t = pl.v[0].text;
	assert_non_null(strstr(t, "\n\nFrom 6.12 on, the bitmap"));
	assert_non_null(strstr(t, "\nFrom the numbers below it follows that...\n"));
	assert_non_null(strstr(t, "\n>From here on: quoted twice\n"));
	assert_non_null(strstr(t, "\n> From a reply, not mboxrd quoting\n"));
	/*
	 * Lines git's mailsplit takes for separators are unquoted too: the
	 * text is the author's; mbox_quote_rd() protects them from git am.
	 */
	assert_non_null(strstr(t, "\nFrom git@z Thu Jan  1 00:00:00 1970\n"));
	assert_non_null(strstr(t, "\nFrom the numbers below, 12:30 09:00 2001\n"));
	assert_non_null(strstr(t, "\nFrom x Mon Sep 17 00:00:00 80\n"));
	assert_null(strstr(t, "\n>From the numbers below, 12:30"));
	assert_non_null(strstr(t, "\n+++ b/mm/a.c\n"));
	patch_list_release(&pl);
}

/*
 * What git am reads (--patch-format=mboxrd): every line after the first
 * that starts with ">*From " gains a '>', which git mailsplit --mboxrd
 * removes; "> From", "From" without a space and the From_ line stay.
 */
static void test_quote_rd(void **state)
{
	static const char text[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH] q\n"
		"\n"
		"From the numbers below, 12:30 09:00 2001\n"
		">From here\n"
		">>From there\n"
		"> From a reply\n"
		"From\n"
		"\n"
		"From no newline";
	static const char want[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH] q\n"
		"\n"
		">From the numbers below, 12:30 09:00 2001\n"
		">>From here\n"
		">>>From there\n"
		"> From a reply\n"
		"From\n"
		"\n"
		">From no newline";
	struct strbuf out = STRBUF_INIT;
	(void)state;

	mbox_quote_rd(&out, text);
	assert_string_equal(sb_str(&out), want);
	sb_release(&out);
}

/* Real separators: lore and git format-patch From_ lines, after a blank line. */
static void test_from_line_forms(void **state)
{
	static const char mbox[] =
		"From git@z Thu Jan  1 00:00:00 1970\nSubject: [PATCH 1/2] one\n\n" DIFF("a.c")
		"\n"
		"From 0123456789abcdef0123456789abcdef01234567 Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 2/2] two\n\n" DIFF("b.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("l.mbox", mbox, strlen(mbox), &pl);
	assert_int_equal(pl.n, 2);
	assert_string_equal(pl.v[0].subject, "[PATCH 1/2] one");
	assert_string_equal(pl.v[1].subject, "[PATCH 2/2] two");
	patch_list_release(&pl);
}

/*
 * RFC 5322 allows a header without a space after the colon: a mail whose
 * first header is "X-Mailer:git-send-email 2.39.5" still starts a message
 * (it used to be merged into the one before, its diff and all). The body
 * line after a blank line "From 6.12 on, ..." followed by "Note:x" stays
 * body text: it is no From_ line.
 */
static const char nospace_mbox[] =
	"From git@z Thu Jan  1 00:00:00 1970\n"
	"X-Mailer:git-send-email 2.39.5\n"
	"Subject:[PATCH 1/2] one\n"
	"\n"
	"From 6.12 on, the bitmap is stored.\n"
	"Note:looks like a header\n"
	"\n" DIFF("a.c")
	"\n"
	"From git@z Thu Jan  1 00:00:00 1970\n"
	"X-Mailer:git-send-email 2.39.5\n"
	"Subject:[PATCH 2/2] two\n"
	"Message-ID:\n <2@example.org>\n"
	"\n" DIFF("b.c")
	"\n"
	"From git@z Thu Jan  1 00:00:00 1970\n"
	"Received:\n"
	" from x\n"
	"Subject: [PATCH 3/2] three\n"
	"\n" DIFF("c.c");

static void check_nospace(const struct patch_list *pl)
{
	assert_int_equal(pl->n, 3);
	assert_string_equal(pl->v[0].subject, "[PATCH 1/2] one");
	assert_non_null(strstr(pl->v[0].text, "\n\nFrom 6.12 on, the bitmap"));
	assert_null(strstr(pl->v[0].text, "b.c"));
	assert_string_equal(pl->v[1].subject, "[PATCH 2/2] two");
	assert_string_equal(pl->v[1].message_id, "<2@example.org>");
	assert_true(pl->v[1].has_diff);
	assert_string_equal(pl->v[2].subject, "[PATCH 3/2] three");
}

static void test_header_without_space(void **state)
{
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("n.mbox", nospace_mbox, strlen(nospace_mbox), &pl);
	check_nospace(&pl);
	patch_list_release(&pl);
}

/* The same as a saved series file, through mbox_split() (run --ab, bisect). */
static void test_header_without_space_file(void **state)
{
	char path[] = "/tmp/test_mbox_nospace.XXXXXX";
	int fd = mkstemp(path);
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, nospace_mbox, sizeof(nospace_mbox) - 1),
			 (ssize_t)sizeof(nospace_mbox) - 1);
	close(fd);
	assert_int_equal(mbox_split(path, &pl, &err), 0);
	unlink(path);
	check_nospace(&pl);
	sb_release(&err);
	patch_list_release(&pl);
}

/* A NUL would cut the text git am gets while the diff was found past it. */
static void test_nul_byte_is_an_error(void **state)
{
	static const char mbox[] =
		"From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH 1/2] one\n\n" DIFF("a.c")
		"\n"
		"From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH 2/2] two\n\nBody\0hidden\n"
		DIFF("b.c");
	char path[] = "/tmp/test_mbox_nul.XXXXXX";
	int fd = mkstemp(path);
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, mbox, sizeof(mbox) - 1), (ssize_t)sizeof(mbox) - 1);
	close(fd);
	assert_int_equal(mbox_split(path, &pl, &err), -1);
	unlink(path);
	char *want = xasprintf("%s:17: message 2 contains a NUL byte", path);
	assert_non_null(strstr(sb_str(&err), want));
	assert_int_equal(pl.v[0].nul_line, 0);
	assert_int_equal(pl.v[1].nul_line, 17);
	free(want);
	sb_release(&err);
	patch_list_release(&pl);
}

/*
 * RFC 2047 subjects, folded over lines. A v2 cover letter carries an
 * interdiff, so only its "[PATCH v2 0/2]" says it is no patch.
 */
static void test_encoded_subjects(void **state)
{
	static const char mbox[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: =?UTF-8?q?=5BPATCH_v2_0/2=5D_mm:_caf=C3=A9?=\n"
		" =?UTF-8?b?IGxldHRlcg==?=\n"
		"\n"
		"Interdiff against v1:\n" DIFF("mm/a.c")
		"\n"
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: =?utf-8?B?W1BBVENIIHYyIDEvMl0gbW06IG9uZQ==?=\n"
		"\n" DIFF("mm/a.c")
		"\n"
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: =?iso-8859-1?q?=5BPATCH_v2_2/2=5D_na=EFve?= and =?x-unknown?q?kept?=\n"
		"\n" DIFF("mm/b.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("e.mbox", mbox, strlen(mbox), &pl);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.v[0].subject, "[PATCH v2 0/2] mm: caf\xc3\xa9 letter");
	assert_true(pl.v[0].has_diff);
	assert_true(pl.v[0].is_cover);
	assert_string_equal(pl.v[1].subject, "[PATCH v2 1/2] mm: one");
	assert_false(pl.v[1].is_cover);
	assert_string_equal(pl.v[2].subject,
			    "[PATCH v2 2/2] na\xc3\xafve and =?x-unknown?q?kept?=");
	patch_list_release(&pl);
}

/* A subject that would retitle the terminal is printed harmless. */
static void test_label_filters_escapes(void **state)
{
	static const char mbox[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH] =?UTF-8?q?=1B]0;pwned=07=1B[2J?=x\n\n" DIFF("a.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("t\x1b[31m.mbox", mbox, strlen(mbox), &pl);
	assert_int_equal(pl.n, 1);
	char *label = patch_label(&pl.v[0]);
	assert_null(strchr(label, '\x1b'));
	assert_null(strchr(label, '\a'));
	/* The subject's controls are spaces already (one line); the file name's are filtered. */
	assert_string_equal(label, "\"[PATCH]  ]0;pwned  [2Jx\" (t?[31m.mbox, message 1)");
	free(label);
	patch_list_release(&pl);
}

/*
 * A subject is one line everywhere: a control character decoded from an
 * encoded word (=0A, =0D, a tab, ESC, DEL, Latin-1's NEL =85) or left in
 * the raw header becomes a space. Before, "=0A" reached `kernel list` and
 * meta.json as a line break: a fake line under the patch.
 */
static void test_encoded_subject_is_one_line(void **state)
{
	static const char mbox[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 1/3] =?UTF-8?q?mm:_one=0Anext-20261130_fake=0D=09line?=\n"
		"\n" DIFF("mm/a.c")
		"\n"
		"From x Mon Sep 17 00:00:00 2001\n"
		/* "[PATCH 2/3] b64\n\x7f\x01two" */
		"Subject: =?utf-8?b?W1BBVENIIDIvM10gYjY0Cn8BdHdv?=\n"
		"\n" DIFF("mm/b.c")
		"\n"
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 3/3] =?iso-8859-1?q?nel=85x?= \x1b[2Jraw\n"
		"\n" DIFF("mm/c.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("nl.mbox", mbox, strlen(mbox), &pl);
	assert_int_equal(pl.n, 3);
	assert_string_equal(pl.v[0].subject, "[PATCH 1/3] mm: one next-20261130 fake  line");
	assert_string_equal(pl.v[1].subject, "[PATCH 2/3] b64   two");
	assert_string_equal(pl.v[2].subject, "[PATCH 3/3] nel x  [2Jraw");
	for (size_t i = 0; i < pl.n; i++)
		for (const unsigned char *c = (const unsigned char *)pl.v[i].subject; *c; c++)
			assert_true(*c >= 0x20 && *c != 0x7f && !(c[0] == 0xc2 && c[1] < 0xa0));
	patch_list_release(&pl);
}

static void test_cover_letter_with_diffstat_only(void **state)
{
	static const char cover[] =
		"From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH v3 00/12] big series\n\n"
		" mm/vmscan.c | 205 +++++++++---\n 1 file changed\n";
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("c.mbox", cover, strlen(cover), &pl);
	assert_int_equal(pl.n, 1);
	assert_true(pl.v[0].is_cover);
	patch_list_release(&pl);
}

static void test_numbered_patch_is_not_cover(void **state)
{
	static const char p10[] =
		"From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH 10/12] not a cover\n\n" DIFF("a.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("p.mbox", p10, strlen(p10), &pl);
	assert_int_equal(pl.n, 1);
	assert_false(pl.v[0].is_cover);
	patch_list_release(&pl);
}

static void test_bare_diff(void **state)
{
	static const char bare[] = "diff --git a/x.c b/x.c\n--- a/x.c\n+++ b/x.c\n@@ -1 +1 @@\n-a\n+b\n";
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("x.patch", bare, strlen(bare), &pl);
	assert_int_equal(pl.n, 1);
	assert_false(pl.v[0].has_headers);
	assert_true(pl.v[0].has_diff);
	assert_false(pl.v[0].is_cover);
	patch_list_release(&pl);
}

static void test_no_patch_is_an_error(void **state)
{
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(mbox_split("/nonexistent/series.mbox", &pl, &err), -1);
	assert_non_null(strstr(sb_str(&err), "/nonexistent/series.mbox: cannot read"));
	sb_release(&err);
	patch_list_release(&pl);
}

static void test_bundled_example_series(void **state)
{
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(mbox_split("kernels/patches/lru-gen-use-mm/v1.mbox", &pl, &err), 0);
	assert_int_equal(pl.n, 2);
	assert_true(pl.v[0].is_cover);
	assert_false(pl.v[1].is_cover);
	assert_string_equal(pl.v[1].subject,
			    "[PATCH 1/1] mm/mglru: avoid the redundant bitmap store in lru_gen_use_mm()");
	assert_non_null(strstr(pl.v[1].text, "+\t\tWRITE_ONCE(mm->lru_gen.bitmap, -1UL);"));
	sb_release(&err);
	patch_list_release(&pl);
}

/* The Message-Id a bisection names its culprit by: case-insensitive, folded, absent is NULL. */
static void test_message_id(void **state)
{
	static const char buf[] =
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"Message-ID:\n <20261130.1@example.org>\n"
		"Subject: [PATCH 1/2] mm: one\n"
		"\n"
		"Body.\n" DIFF("mm/a.c")
		"\n"
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 2/2] mm: two\n"
		"\n"
		"Body.\n" DIFF("mm/b.c");
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("ids.mbox", buf, sizeof(buf) - 1, &pl);
	assert_int_equal(pl.n, 2);
	assert_non_null(pl.v[0].message_id);
	assert_string_equal(pl.v[0].message_id, "<20261130.1@example.org>");
	assert_null(pl.v[1].message_id);
	patch_list_release(&pl);
}

/*
 * mbox_thread(): the cover letter's To, Cc and From (salvaged), the
 * Message-Ids of the patches in order (none: NULL) and the cover's own,
 * as the session fills its kernels[] rows from them.
 */
static void test_thread(void **state)
{
	static const char buf[] =
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"From: Ann Author <ann@example.org>\n"
		"To: linux-mm@kvack.org\n"
		"Cc: someone@example.net\n"
		"Message-Id: <c.0@example.org>\n"
		"Subject: [PATCH 0/2] mm: the series\n"
		"\n"
		"Cover.\n"
		"\n"
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"From: Ann Author <ann@example.org>\n"
		"Message-Id: <p.1@example.org>\n"
		"Subject: [PATCH 1/2] mm: one\n"
		"\n"
		"Body.\n" DIFF("mm/a.c")
		"\n"
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 2/2] mm: two\n"
		"\n"
		"Body.\n" DIFF("mm/b.c");
	struct patch_list pl = { 0 };
	struct mbox_thread t;
	(void)state;

	mbox_split_buffer("thread.mbox", buf, sizeof(buf) - 1, &pl);
	mbox_thread(&pl, &t);
	assert_string_equal(t.posted_to, "linux-mm@kvack.org, someone@example.net");
	assert_int_equal(t.has_author, 1);
	assert_string_equal(t.author_name, "Ann Author");
	assert_string_equal(t.author_address, "ann@example.org");
	assert_int_equal(t.n, 2);
	assert_string_equal(t.message_ids[0], "<p.1@example.org>");
	assert_null(t.message_ids[1]);
	assert_int_equal(t.has_cover, 1);
	assert_string_equal(t.cover_subject, "[PATCH 0/2] mm: the series");
	assert_string_equal(t.cover_message_id, "<c.0@example.org>");
	mbox_thread_release(&t);
	patch_list_release(&pl);
}

/*
 * mail_decode(): what is left alone (plain text, a binary part, a
 * multipart mail without a boundary or text part), and the edges of
 * quoted-printable (a soft break after white space, a stray "=") and
 * base64 (line ends, padding), with the From_ line and headers kept.
 */
static void test_mail_decode(void **state)
{
	static const char *const unchanged[] = {
		"Subject: x\n\nplain =3D text\n",
		"Subject: x\nContent-Transfer-Encoding: quoted-printable\n",
		"Subject: x\nContent-Type: application/octet-stream\n"
		"Content-Transfer-Encoding: base64\n\nAAAA\n",
		"Subject: x\nContent-Type: multipart/mixed\n\n--b\n\nx\n--b--\n",
		"Subject: x\nContent-Type: multipart/mixed; boundary=b\n\n--b\n"
		"Content-Type: image/png\n\nx\n--b--\n",
	};
	static const char qp[] =
		"From x Mon Sep 17 00:00:00 2001\n"
		"Subject: q\n"
		"Content-Transfer-Encoding:\n quoted-printable\n"
		"X-After: kept\n"
		"\n"
		"soft =  \nbreak, =3d, a stray = and =ZZ\n";
	static const char b64[] =
		"Subject: b\nContent-Type: text/x-diff\nContent-Transfer-Encoding: BASE64\n\n"
		"ZGlm\nZiAt\nLWdp\ndAo=\n";
	struct strbuf out = STRBUF_INIT;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(unchanged); i++) {
		if (mail_decode(unchanged[i], strlen(unchanged[i]), &out))
			fail_msg("decoded: '%s'", unchanged[i]);
		assert_int_equal(out.len, 0);
	}
	assert_int_equal(mail_decode(qp, strlen(qp), &out), 1);
	assert_string_equal(sb_str(&out), "From x Mon Sep 17 00:00:00 2001\nSubject: q\n"
			    "X-After: kept\nContent-Type: text/plain\n"
			    "Content-Transfer-Encoding: 8bit\n\n"
			    "soft break, =, a stray = and =ZZ\n");
	sb_release(&out);
	assert_int_equal(mail_decode(b64, strlen(b64), &out), 1);
	assert_string_equal(sb_str(&out), "Subject: b\nContent-Type: text/plain\n"
			    "Content-Transfer-Encoding: 8bit\n\ndiff --git\n");
	sb_release(&out);
}

/*
 * A saved series (run --ab's `series =`, bisect) whose patch came base64,
 * inline or as a multipart mail's text/x-patch part, as some mail clients
 * send it: the patch is its decoded text, with its diff, not a message
 * without one (which read as a cover letter and was left out of git am).
 */
static void test_base64_patch(void **state)
{
	static const char inline_b64[] =
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"From: A <a@example.org>\n"
		"Subject: [PATCH 1/2] mm: base64 inline\n"
		"Content-Type: text/plain; charset=utf-8\n"
		"Content-Transfer-Encoding: base64\n"
		"\n"
		"Qm9keS4KLS0tCiBtbS9hLmMgfCAxICsKCmRpZmYgLS1naXQgYS9tbS9hLmMg\n"
		"Yi9tbS9hLmMKLS0tIGEvbW0vYS5jCisrKyBiL21tL2EuYwpAQCAtMSwxICsx\n"
		"LDIgQEAKIGEKK2IK\n"
		"\n"
		"From mglrulab Mon Sep 17 00:00:00 2001\n"
		"From: A <a@example.org>\n"
		"Subject: [PATCH 2/2] mm: an attachment\n"
		"Content-Type: multipart/mixed; boundary=\"zz\"\n"
		"\n"
		"--zz\n"
		"Content-Type: text/plain\n"
		"\n"
		"Body.\n"
		"--zz\n"
		"Content-Type: text/x-patch; name=a.patch\n"
		"Content-Disposition: attachment; filename=a.patch\n"
		"Content-Transfer-Encoding: base64\n"
		"\n"
		"Qm9keS4KLS0tCiBtbS9hLmMgfCAxICsKCmRpZmYgLS1naXQgYS9tbS9hLmMg\n"
		"Yi9tbS9hLmMKLS0tIGEvbW0vYS5jCisrKyBiL21tL2EuYwpAQCAtMSwxICsx\n"
		"LDIgQEAKIGEKK2IK\n"
		"--zz--\n";
	struct patch_list pl = { 0 };
	(void)state;

	mbox_split_buffer("b.mbox", inline_b64, strlen(inline_b64), &pl);
	assert_int_equal(pl.n, 2);
	for (size_t i = 0; i < pl.n; i++) {
		assert_true(pl.v[i].has_diff);
		assert_false(pl.v[i].is_cover);
		assert_non_null(strstr(pl.v[i].text, "\n+++ b/mm/a.c\n@@ -1,1 +1,2 @@\n a\n+b\n"));
		assert_null(strstr(pl.v[i].text, "Encoding: base64"));
	}
	assert_string_equal(pl.v[1].subject, "[PATCH 2/2] mm: an attachment");
	patch_list_release(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multi_patch_mbox),
		cmocka_unit_test(test_message_id),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_cover_letter_with_diffstat_only),
		cmocka_unit_test(test_numbered_patch_is_not_cover),
		cmocka_unit_test(test_bare_diff),
		cmocka_unit_test(test_no_patch_is_an_error),
		cmocka_unit_test(test_bundled_example_series),
		cmocka_unit_test(test_crlf_to_lf),
		cmocka_unit_test(test_crlf_mbox),
		cmocka_unit_test(test_leading_blank_lines),
		cmocka_unit_test(test_body_from_paragraph),
		cmocka_unit_test(test_quote_rd),
		cmocka_unit_test(test_from_line_forms),
		cmocka_unit_test(test_header_without_space),
		cmocka_unit_test(test_header_without_space_file),
		cmocka_unit_test(test_nul_byte_is_an_error),
		cmocka_unit_test(test_encoded_subjects),
		cmocka_unit_test(test_label_filters_escapes),
		cmocka_unit_test(test_encoded_subject_is_one_line),
		cmocka_unit_test(test_mail_decode),
		cmocka_unit_test(test_base64_patch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
