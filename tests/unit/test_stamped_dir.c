// SPDX-License-Identifier: GPL-2.0
/*
 * The session's and the bisection's shared folder handling (stamped_dir.h):
 * the first free stamped name, the latest link replaced in place, stdout
 * kept and given back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "stamped_dir.h"
#include "util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-stamped-dir-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

/* "<stamp>-what", then "<stamp>-what-1" once it exists (the same second: retried on a tick). */
static void test_free_name(void **state)
{
	char *a, *b;
	(void)state;

	do {
		a = stamped_dir_free(dir, "bisect");
		assert_non_null(a);
		assert_int_equal(mkdir(a, 0755), 0);
		b = stamped_dir_free(dir, "bisect");
		assert_non_null(b);
		if (strlen(b) == strlen(a) + 2)
			break;
		/* the second ticked over between the two: another stamp, try again */
		free(a);
		free(b);
	} while (1);
	assert_int_equal(strncmp(a, b, strlen(a)), 0);
	assert_string_equal(b + strlen(a), "-1");
	assert_int_equal(strncmp(path_basename(a) + 15, "-bisect", 7), 0);
	assert_false(path_exists(b));
	free(a);
	free(b);
}

static void test_link_replaced(void **state)
{
	char target[PATH_MAX], *link = xasprintf("%s/latest", dir);
	ssize_t n;
	(void)state;

	stamped_dir_link(dir, "latest", "one");
	stamped_dir_link(dir, "latest", "two");
	n = readlink(link, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "two");
	/* no temporary link left beside it */
	char *tmp = xasprintf("%s/.latest.%ld", dir, (long)getpid());
	assert_false(path_exists(tmp));
	free(tmp);
	free(link);
}

/* What is printed between the two goes to stderr; stdout is the same file after. */
static void test_stdout_kept(void **state)
{
	struct stat before, during, after;
	int saved, none = -1;
	(void)state;

	assert_int_equal(fstat(1, &before), 0);
	saved = stdout_to_stderr();
	assert_true(saved >= 0);
	assert_int_equal(fstat(1, &during), 0);
	struct stat err;
	assert_int_equal(fstat(2, &err), 0);
	assert_true(during.st_ino == err.st_ino && during.st_dev == err.st_dev);
	stdout_restore(&saved);
	assert_int_equal(saved, -1);
	assert_int_equal(fstat(1, &after), 0);
	assert_true(after.st_ino == before.st_ino && after.st_dev == before.st_dev);
	stdout_restore(&none);	/* nothing saved: nothing done */
	assert_int_equal(none, -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_free_name),
		cmocka_unit_test(test_link_replaced),
		cmocka_unit_test(test_stdout_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
