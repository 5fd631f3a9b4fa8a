// SPDX-License-Identifier: GPL-2.0
/*
 * Library code returns its errors and lets the caller decide (lab/lib/util.h,
 * "Errors"). These failures used to die() inside the library, ending the
 * process (and this test) instead of returning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "guest_job.h"
#include "guest_protocol.h"
#include "util.h"

static char saved_cwd[PATH_MAX];
static char gone[64];

/* Stand in a folder that no longer exists: getcwd() fails with ENOENT. */
static int enter_removed_folder(void **state)
{
	(void)state;
	assert_non_null(getcwd(saved_cwd, sizeof(saved_cwd)));
	strcpy(gone, "/tmp/mglrulab-gone-XXXXXX");
	assert_non_null(mkdtemp(gone));
	assert_int_equal(chdir(gone), 0);
	assert_int_equal(rmdir(gone), 0);
	return 0;
}

static int leave_removed_folder(void **state)
{
	(void)state;
	return chdir(saved_cwd);
}

static void test_path_absolute_without_cwd(void **state)
{
	char *p;
	(void)state;

	errno = 0;
	assert_null(path_absolute(NULL, "lab.conf"));
	assert_int_equal(errno, ENOENT);
	assert_null(path_absolute("rel", "x"));
	/* what needs no current folder still works */
	p = path_absolute("/base", "a/../b");
	assert_string_equal(p, "/base/b");
	free(p);
	p = path_absolute(NULL, "/abs/./x");
	assert_string_equal(p, "/abs/x");
	free(p);
}

static void test_config_load_without_cwd(void **state)
{
	struct lab_config cfg;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(config_load("lab.conf", &cfg, &err), LAB_EUSER);
	assert_non_null(strstr(sb_str(&err), "lab.conf: cannot read the current folder"));
	assert_non_null(strstr(sb_str(&err), strerror(ENOENT)));
	config_release(&cfg);
	sb_release(&err);
}

static void test_job_not_utf8(void **state)
{
	const char *args[] = { "--ok=1", "--name=caf\xe9", NULL };
	(void)state;

	/* It used to come back without the argument: jansson dropped it silently. */
	errno = 0;
	assert_null(guest_job_json("s/0001", "yield_pingpong", args, 30));
	assert_int_equal(errno, EILSEQ);
	errno = 0;
	assert_null(guest_job_json("s/\xff", "yield_pingpong", NULL, 30));
	assert_int_equal(errno, EILSEQ);
	errno = 0;
	assert_null(guest_job_json("s/0001", "\xc0\xaf", NULL, 30));
	assert_int_equal(errno, EILSEQ);
}

static void test_job_utf8_kept(void **state)
{
	const char *args[] = { "--ok=1", "--name=caf\xc3\xa9", NULL };
	char *s = guest_job_json("s/0001", "yield_pingpong", args, 30);
	json_t *j = json_loads(s, 0, NULL), *a = json_object_get(j, GUEST_JOB_ARGS);
	(void)state;

	assert_int_equal(json_array_size(a), 2);
	assert_string_equal(json_string_value(json_array_get(a, 1)), "--name=caf\xc3\xa9");
	json_decref(j);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_path_absolute_without_cwd,
						enter_removed_folder, leave_removed_folder),
		cmocka_unit_test_setup_teardown(test_config_load_without_cwd,
						enter_removed_folder, leave_removed_folder),
		cmocka_unit_test(test_job_not_utf8),
		cmocka_unit_test(test_job_utf8_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
