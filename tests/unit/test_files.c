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
#include <fcntl.h>
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

/*
 * An output the user names that exists and is not a regular file is
 * written in place, never renamed over: a FIFO stands in for /dev/null
 * (which as root became a regular file for the whole machine).
 */
static void test_user_file_keeps_special_files(void **state)
{
	char *dir = scratch(), *fifo = xasprintf("%s/fifo", dir);
	char *reg = xasprintf("%s/out.txt", dir), got[16] = { 0 };
	struct stat st;
	int rd;
	(void)state;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* The read end, open first and non-blocking, so the writer's open succeeds. */
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(write_user_file(fifo, "report\n", 7), 0);
	assert_int_equal(read(rd, got, sizeof(got) - 1), 7);
	assert_string_equal(got, "report\n");
	close(rd);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(fifo);
	/* A regular file (new or old) still goes through the atomic path. */
	assert_int_equal(write_user_file(reg, "a\n", 2), 0);
	assert_int_equal(write_user_file(reg, "b\n", 2), 0);
	free(fifo);
	fifo = slurp(reg);
	assert_string_equal(fifo, "b\n");
	/* A directory is refused, not replaced. */
	errno = 0;
	assert_int_equal(write_user_file(dir, "x", 1), -1);
	assert_int_equal(errno, EISDIR);
	unlink(reg);
	rmdir(dir);
	free(fifo);
	free(reg);
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
		cmocka_unit_test(test_user_file_keeps_special_files),
		cmocka_unit_test(test_copy_file_refuses_symlink),
		cmocka_unit_test(test_mkdir_new_is_exclusive),
		cmocka_unit_test(test_load_runs_past_9999),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
