// SPDX-License-Identifier: GPL-2.0
/* mbox splitting: multi-patch mbox, cover letter, folded subjects, bare diffs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "mbox.h"
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
	patch_list_free(&pl);
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
	patch_list_free(&pl);
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
	patch_list_free(&pl);
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
	patch_list_free(&pl);
}

static void test_no_patch_is_an_error(void **state)
{
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(mbox_split("/nonexistent/series.mbox", &pl, &err), -1);
	assert_non_null(strstr(sb_str(&err), "/nonexistent/series.mbox: cannot read"));
	sb_release(&err);
	patch_list_free(&pl);
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
	patch_list_free(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multi_patch_mbox),
		cmocka_unit_test(test_cover_letter_with_diffstat_only),
		cmocka_unit_test(test_numbered_patch_is_not_cover),
		cmocka_unit_test(test_bare_diff),
		cmocka_unit_test(test_no_patch_is_an_error),
		cmocka_unit_test(test_bundled_example_series),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
