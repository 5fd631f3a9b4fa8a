// SPDX-License-Identifier: GPL-2.0
/*
 * lockfile_take(): the one lock-file helper (kernel builds, sessions, the
 * embedded libvirt root). flock() locks belong to an open file description,
 * so a second open in this same process competes like another process would.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "lockfile.h"
#include "util.h"

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/mglrulab-lock-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static void test_held_lock_names_holder(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/x.lock", dir);
	struct strbuf held = STRBUF_INIT, text = STRBUF_INIT;
	int a, b;
	(void)state;

	assert_int_equal(lockfile_take(path, 0, "pid 11, session s1\n", &held, &a), LOCKFILE_TAKEN);
	assert_true(a >= 0);
	assert_int_equal(held.len, 0);
	assert_int_equal(read_file(path, &text, 0), 0);
	assert_string_equal(sb_str(&text), "pid 11, session s1\n");

	/* taken: LOCKFILE_HELD and the holder's first line, the file untouched */
	b = 0;
	assert_int_equal(lockfile_take(path, 0, "pid 22\n", &held, &b), LOCKFILE_HELD);
	assert_int_equal(b, -1);
	assert_string_equal(sb_str(&held), "pid 11, session s1");
	sb_reset(&text);
	assert_int_equal(read_file(path, &text, 0), 0);
	assert_string_equal(sb_str(&text), "pid 11, session s1\n");

	/* released when the holder's descriptor closes (as when it dies) */
	close(a);
	sb_reset(&held);
	assert_int_equal(lockfile_take(path, 0, "pid 22\n", &held, &b), LOCKFILE_TAKEN);
	assert_true(b >= 0);
	sb_reset(&text);
	assert_int_equal(read_file(path, &text, 0), 0);
	assert_string_equal(sb_str(&text), "pid 22\n");	/* the longer old line is gone */
	close(b);

	rm_rf(dir);
	sb_release(&held);
	sb_release(&text);
	free(path);
	free(dir);
}

static void test_unknown_holder(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/x.lock", dir);
	struct strbuf held = STRBUF_INIT;
	int a, b;
	(void)state;

	assert_int_equal(lockfile_take(path, 0, "", &held, &a), LOCKFILE_TAKEN);
	assert_true(a >= 0);
	assert_int_equal(lockfile_take(path, 0, "pid 2\n", &held, &b), LOCKFILE_HELD);
	assert_string_equal(sb_str(&held), "holder unknown");
	close(a);
	rm_rf(dir);
	sb_release(&held);
	free(path);
	free(dir);
}

/* The holder line is written into the file: never through a planted symlink. */
static void test_refuses_symlink(void **state)
{
	char *dir = tmpdir(), *path = xasprintf("%s/x.lock", dir);
	char *victim = xasprintf("%s/victim", dir);
	struct strbuf held = STRBUF_INIT, text = STRBUF_INIT;
	int fd;
	(void)state;

	assert_int_equal(write_file_atomic(victim, "keep\n", 5), 0);
	assert_int_equal(symlink(victim, path), 0);
	errno = 0;
	assert_int_equal(lockfile_take(path, 0, "pid 3\n", &held, &fd), LOCKFILE_FAILED);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(read_file(victim, &text, 0), 0);
	assert_string_equal(sb_str(&text), "keep\n");
	rm_rf(dir);
	sb_release(&held);
	sb_release(&text);
	free(victim);
	free(path);
	free(dir);
}

static void test_missing_folder(void **state)
{
	struct strbuf held = STRBUF_INIT;
	int fd;
	(void)state;

	errno = 0;
	assert_int_equal(lockfile_take("/nonexistent-mglrulab/x.lock", 0, "pid 4\n", &held, &fd),
			 LOCKFILE_FAILED);
	assert_int_equal(errno, ENOENT);
	sb_release(&held);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_lock_names_holder),
		cmocka_unit_test(test_unknown_holder),
		cmocka_unit_test(test_refuses_symlink),
		cmocka_unit_test(test_missing_folder),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
