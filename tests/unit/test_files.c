// SPDX-License-Identifier: GPL-2.0
/* Files the lab writes and reads back: atomic writes, run records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "session.h"
#include "util.h"

static char *scratch(void)
{
	char tmpl[] = "/tmp/mglrulab-test-files.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 0), 0);
	return sb_detach(&sb);
}

/*
 * A symlink planted at the name the temporary file used to have
 * (<path>.tmp.<pid>) must not be followed: its target stays as it was.
 */
static void test_atomic_write_ignores_planted_symlink(void **state)
{
	char *dir = scratch();
	char *victim = xasprintf("%s/victim", dir), *out = xasprintf("%s/out.html", dir);
	char *planted = xasprintf("%s.tmp.%ld", out, (long)getpid());
	char *text;
	struct stat st;

	(void)state;
	assert_int_equal(write_file_atomic(victim, "precious\n", 9), 0);
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(write_file_atomic(out, "report\n", 7), 0);
	text = slurp(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	text = slurp(out);
	assert_string_equal(text, "report\n");
	free(text);
	/* The usual permissions, not mkstemp's 0600 (umask 022 in this test). */
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* The planted link is left alone and no temporary file is left behind. */
	assert_int_equal(lstat(planted, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(rm_rf(dir), 0);
	free(planted);
	free(out);
	free(victim);
	free(dir);
}

static void test_copy_file_refuses_symlink(void **state)
{
	char *dir = scratch();
	char *victim = xasprintf("%s/victim", dir), *src = xasprintf("%s/src", dir);
	char *dst = xasprintf("%s/dst", dir), *text;

	(void)state;
	assert_int_equal(write_file_atomic(victim, "precious\n", 9), 0);
	assert_int_equal(write_file_atomic(src, "new\n", 4), 0);
	assert_int_equal(symlink(victim, dst), 0);
	assert_int_equal(copy_file(src, dst, 0644), -1);
	assert_int_equal(errno, ELOOP);
	text = slurp(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	assert_int_equal(rm_rf(dir), 0);
	free(dst);
	free(src);
	free(victim);
	free(dir);
}

static void test_mkdir_new_is_exclusive(void **state)
{
	char *dir = scratch();
	char *sub = xasprintf("%s/a/b.tmp", dir), *link = xasprintf("%s/l.tmp", dir);

	(void)state;
	assert_int_equal(mkdir_new(sub, 0755), 0);
	assert_true(is_dir(sub));
	assert_int_equal(mkdir_new(sub, 0755), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(symlink(sub, link), 0);
	assert_int_equal(mkdir_new(link, 0755), -1);
	assert_int_equal(rm_rf(dir), 0);
	free(link);
	free(sub);
	free(dir);
}

/* Records past run 9,999 have five-digit names; all must be read back. */
static void test_load_runs_past_9999(void **state)
{
	static const int seqs[] = { 1, 9999, 10000, 123456 };
	char *dir = scratch(), *runs = xasprintf("%s/runs", dir), *tmp;
	struct strbuf err = STRBUF_INIT;
	json_t *got;

	(void)state;
	assert_int_equal(mkdir_p(runs, 0755), 0);
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++) {
		char *path = session_run_path(dir, seqs[i]);
		json_t *rec = json_pack("{s:i}", "seq", seqs[i]);

		assert_int_equal(session_write_json(path, rec), 0);
		json_decref(rec);
		free(path);
	}
	/* Not records: a leftover temporary file and a stray name. */
	tmp = xasprintf("%s/10001.json.tmp.Ab12Cd", runs);
	assert_int_equal(write_file_atomic(tmp, "{\"seq\": 10001}", 14), 0);
	free(tmp);
	tmp = xasprintf("%s/notes.json", runs);
	assert_int_equal(write_file_atomic(tmp, "{\"seq\": 7}", 10), 0);
	free(tmp);

	got = session_load_runs(dir, &err);
	assert_string_equal(sb_str(&err), "");
	assert_int_equal(json_array_size(got), ARRAY_SIZE(seqs));
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(got, i), "seq")),
				 seqs[i]);
	json_decref(got);
	sb_release(&err);
	assert_int_equal(rm_rf(dir), 0);
	free(runs);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write_ignores_planted_symlink),
		cmocka_unit_test(test_copy_file_refuses_symlink),
		cmocka_unit_test(test_mkdir_new_is_exclusive),
		cmocka_unit_test(test_load_runs_past_9999),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
