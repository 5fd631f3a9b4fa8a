// SPDX-License-Identifier: GPL-2.0
/* The default guest-program folder: one answer, whatever the current folder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lab_paths.h"
#include "util.h"

static void test_exe_path(void **state)
{
	char *exe = lab_exe_path();
	(void)state;

	assert_non_null(exe);
	assert_true(exe[0] == '/');
	assert_true(str_ends_with(exe, "/build/tests/test_lab_paths"));
	free(exe);
}

static void test_guest_bin_dir_beside_executable(void **state)
{
	char *exe = lab_exe_path(), *bin, *want, cwd[PATH_MAX];
	(void)state;

	unsetenv("MGLRULAB_GUEST_BIN");
	want = xasprintf("%.*s/build/guest", (int)(strrchr(exe, '/') - exe), exe);
	bin = lab_guest_bin_dir();
	assert_string_equal(bin, want);
	free(bin);
	/* not relative to the current folder */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir("/"), 0);
	bin = lab_guest_bin_dir();
	assert_string_equal(bin, want);
	assert_int_equal(chdir(cwd), 0);
	free(bin);
	free(want);
	free(exe);
}

static void test_guest_bin_dir_from_environment(void **state)
{
	char *bin;
	(void)state;

	setenv("MGLRULAB_GUEST_BIN", "/opt/lab/guest", 1);
	bin = lab_guest_bin_dir();
	assert_string_equal(bin, "/opt/lab/guest");
	free(bin);
	setenv("MGLRULAB_GUEST_BIN", "", 1);	/* empty: as if unset */
	bin = lab_guest_bin_dir();
	assert_true(str_ends_with(bin, "/build/tests/build/guest"));
	free(bin);
	unsetenv("MGLRULAB_GUEST_BIN");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exe_path),
		cmocka_unit_test(test_guest_bin_dir_beside_executable),
		cmocka_unit_test(test_guest_bin_dir_from_environment),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
