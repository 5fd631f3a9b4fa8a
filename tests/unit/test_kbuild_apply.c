// SPDX-License-Identifier: GPL-2.0
/*
 * kbuild_apply_patch() (kbuild.h), the step of `kernel build` that puts a
 * series on the work tree, on a tiny git repository instead of a kernel.
 *
 * A commit message may hold a line that git's own mailsplit takes for a
 * message separator ("From the numbers below, 12:30 09:00 2001": digits
 * around the last ':' and a year above 90). Our splitter keeps it in its
 * patch; when git am re-split the message there, the patch came out
 * "Patch is empty" and a legitimate series was refused (issue 27, item 8).
 * Every "From " line must also reach the commit byte for byte: mboxrd
 * quoting in the file is undone once, never twice, never left behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fsutil.h"
#include "kbuild.h"
#include "ksource.h"
#include "mbox.h"
#include "util.h"

#define FROM_LINE "From the numbers below, 12:30 09:00 2001"

/* As the mbox holds it: format-patch leaves body lines unquoted, mboxrd quotes some. */
static const char series[] =
	"From 1111111111111111111111111111111111111111 Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Date: Thu, 5 Nov 2026 21:22:18 +0800\n"
	"Subject: [PATCH 1/2] a: first patch\n"
	"\n"
	"First paragraph.\n"
	"\n"
	FROM_LINE "\n"
	"the change is small.\n"
	">From here on, quoted once in the mbox\n"
	">>From twice\n"
	"From git@z Thu Jan  1 00:00:00 1970\n"
	"no header after it.\n"
	"\n"
	"Signed-off-by: A <a@example.org>\n"
	"---\n"
	"diff --git a/a.txt b/a.txt\n"
	"--- a/a.txt\n"
	"+++ b/a.txt\n"
	"@@ -1,3 +1,4 @@\n"
	" one\n"
	" two\n"
	" three\n"
	"+" FROM_LINE "\n"
	"\n"
	"From 2222222222222222222222222222222222222222 Mon Sep 17 00:00:00 2001\n"
	"From: A <a@example.org>\n"
	"Date: Thu, 5 Nov 2026 21:23:18 +0800\n"
	"Subject: [PATCH 2/2] b: second patch\n"
	"\n"
	"From 6.12 on, b has a fourth line.\n"
	"---\n"
	"diff --git a/b.txt b/b.txt\n"
	"--- a/b.txt\n"
	"+++ b/b.txt\n"
	"@@ -1,3 +1,4 @@\n"
	" one\n"
	" two\n"
	" three\n"
	"+four\n";

/* The first commit's message as it must be, byte for byte. */
static const char first_message[] =
	"a: first patch\n"
	"\n"
	"First paragraph.\n"
	"\n"
	FROM_LINE "\n"
	"the change is small.\n"
	"From here on, quoted once in the mbox\n"
	">From twice\n"
	"From git@z Thu Jan  1 00:00:00 1970\n"
	"no header after it.\n"
	"\n"
	"Signed-off-by: A <a@example.org>\n";

/* The lab's defaults: git runs in the sandbox, as its build user when we are root. */
static const struct sandbox_policy sp;

/* git @args in @tree with the lab's environment; its output, trailing newlines kept. */
static char *git(const char *tree, const char *const *args)
{
	struct strbuf out = STRBUF_INIT;

	if (ksource_git(&sp, tree, args, &out))
		fail_msg("git %s failed: %s", args[0], sb_str(&out));
	return sb_detach(&out);
}

/* The commit message of @rev exactly as stored: what follows the object's headers. */
static char *message(const char *tree, const char *rev)
{
	const char *args[] = { "cat-file", "commit", rev, NULL };
	char *obj = git(tree, args);
	const char *msg = strstr(obj, "\n\n");

	assert_non_null(msg);
	char *r = xstrdup(msg + 2);
	free(obj);
	return r;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *path = path_join(dir, name);

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

static char *slurp(const char *dir, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = path_join(dir, name);

	assert_int_equal(read_file(path, &sb, 1 << 20), 0);
	free(path);
	if (!sb.buf)
		sb_adds(&sb, "");
	return sb_detach(&sb);
}

static void test_series_with_from_lines_applies(void **state)
{
	char dir[] = "/tmp/mglrulab-apply.XXXXXX";
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;

	assert_non_null(mkdtemp(dir));
	char *tree = path_join(dir, "tree"), *mbox = path_join(dir, "series.mbox");
	char *tmpfile = path_join(dir, "tree.patch");
	/* the sandbox's user owns it, as the lab's work trees */
	assert_int_equal(mkdir(tree, 0755), 0);
	if (sandbox_adopt(&sp, tree, &err) < 0)
		fail_msg("%s", sb_str(&err));
	put(tree, "a.txt", "one\ntwo\nthree\n");
	put(tree, "b.txt", "one\ntwo\nthree\n");
	const char *init[] = { "init", "-q", NULL };
	const char *add[] = { "add", "-A", NULL };
	const char *commit[] = { "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", "base", NULL };
	free(git(tree, init));
	free(git(tree, add));
	free(git(tree, commit));

	put(dir, "series.mbox", series);
	assert_int_equal(mbox_split(mbox, &pl, &err), 0);
	assert_int_equal(pl.n, 2);
	for (size_t i = 0; i < pl.n; i++) {
		assert_false(pl.v[i].is_cover);
		sb_reset(&out);
		if (kbuild_apply_patch(&sp, tree, &pl.v[i], tmpfile, &out))
			fail_msg("patch %zu does not apply: %s", i + 1, sb_str(&out));
	}

	const char *count[] = { "rev-list", "--count", "HEAD", NULL };
	char *n = git(tree, count);
	assert_string_equal(n, "3\n");
	free(n);
	char *m1 = message(tree, "HEAD~1"), *m2 = message(tree, "HEAD");
	assert_string_equal(m1, first_message);
	assert_string_equal(m2, "b: second patch\n\nFrom 6.12 on, b has a fourth line.\n");
	free(m1);
	free(m2);
	/* The diffs: the "From " line is file content too. */
	char *a = slurp(tree, "a.txt"), *b = slurp(tree, "b.txt");
	assert_string_equal(a, "one\ntwo\nthree\n" FROM_LINE "\n");
	assert_string_equal(b, "one\ntwo\nthree\nfour\n");
	free(a);
	free(b);

	patch_list_release(&pl);
	sb_release(&err);
	sb_release(&out);
	free(tmpfile);
	free(mbox);
	free(tree);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_with_from_lines_applies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
