// SPDX-License-Identifier: GPL-2.0
/*
 * lab_git_env (ksource.h): every git the lab runs has background
 * maintenance off, whatever the user's own configuration says. A `git am`
 * that starts `gc --auto` daemonizes a repack of the whole kernel tree
 * during the build, and its zombie ends up with the lab.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "ksource.h"
#include "run_command.h"
#include "util.h"

/* What `git config --get KEY` says in @dir under the lab's environment. */
static char *git_config(const char *dir, const char *key)
{
	const char *argv[] = { "git", "config", "--get", key, NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .dir = dir, .env = lab_git_env, .out = &out,
			   .null_stdout = 1 };

	assert_int_equal(run_command(&c), 0);
	sb_trim_trailing_newlines(&out);
	return sb_detach(&out);
}

static void test_maintenance_off_over_user_config(void **state)
{
	char dir[] = "/tmp/mglrulab-gitenv.XXXXXX";
	const char *init[] = { "git", "init", "-q", NULL };
	(void)state;

	assert_non_null(mkdtemp(dir));
	struct child c = { .argv = init, .dir = dir, .env = lab_git_env, .null_stdout = 1 };
	assert_int_equal(run_command(&c), 0);
	/* the repository itself asks for the opposite */
	const char *set1[] = { "git", "config", "gc.auto", "1", NULL };
	const char *set2[] = { "git", "config", "maintenance.auto", "true", NULL };
	struct child s1 = { .argv = set1, .dir = dir, .null_stdout = 1 };
	struct child s2 = { .argv = set2, .dir = dir, .null_stdout = 1 };
	assert_int_equal(run_command(&s1), 0);
	assert_int_equal(run_command(&s2), 0);

	char *v = git_config(dir, "gc.auto");
	assert_string_equal(v, "0");
	free(v);
	v = git_config(dir, "maintenance.auto");
	assert_string_equal(v, "false");
	free(v);
	v = git_config(dir, "gc.autodetach");
	assert_string_equal(v, "false");
	free(v);
	rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maintenance_off_over_user_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
