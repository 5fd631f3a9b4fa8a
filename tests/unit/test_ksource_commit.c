// SPDX-License-Identifier: GPL-2.0
/*
 * ksource_git_commit() (ksource.h): the commit a series' base-commit names
 * in the baseline's git source, or NULL when the source is no git
 * repository, has no such commit, or the name could pass for an option.
 * `mglrulab watch` builds a series on that commit only when it is found.
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

static void git(const char *dir, const char *const *argv, struct strbuf *out)
{
	struct child c = { .argv = argv, .dir = dir, .env = lab_git_env, .out = out,
			   .null_stdout = !out };

	assert_int_equal(run_command(&c), 0);
	if (out)
		sb_trim_trailing_newlines(out);
}

static void test_commit_of_a_repository(void **state)
{
	char dir[] = "/tmp/mglrulab-ksrc.XXXXXX";
	struct strbuf first = STRBUF_INIT, second = STRBUF_INIT;
	char *c, *plain, *archive;
	(void)state;

	assert_non_null(mkdtemp(dir));
	git(dir, (const char *const[]){ "git", "init", "-q", NULL }, NULL);
	git(dir, (const char *const[]){ "git", "commit", "-q", "--allow-empty", "-m", "one", NULL },
	    NULL);
	git(dir, (const char *const[]){ "git", "rev-parse", "HEAD", NULL }, &first);
	git(dir, (const char *const[]){ "git", "commit", "-q", "--allow-empty", "-m", "two", NULL },
	    NULL);
	git(dir, (const char *const[]){ "git", "rev-parse", "HEAD", NULL }, &second);
	assert_int_equal(first.len, 40);

	/* an abbreviated name of an older commit: its full name */
	char *abbrev = xstrndup(first.buf, 12);
	c = ksource_git_commit(dir, abbrev);
	assert_non_null(c);
	assert_string_equal(c, first.buf);
	free(c);
	free(abbrev);
	c = ksource_git_commit(dir, "HEAD");
	assert_string_equal(c, second.buf);
	free(c);
	/* a commit the repository has not, and a name that looks like an option */
	assert_null(ksource_git_commit(dir, "0123456789abcdef0123456789abcdef01234567"));
	assert_null(ksource_git_commit(dir, "--output=/tmp/x"));

	/* no git repository: a plain folder, an archive */
	plain = xasprintf("%s/plain", dir);
	archive = xasprintf("%s/linux.tar.xz", dir);
	assert_int_equal(mkdir_p(plain, 0755), 0);
	assert_int_equal(write_file_atomic(archive, "x", 1), 0);
	assert_null(ksource_git_commit(plain, "HEAD"));
	assert_null(ksource_git_commit(archive, first.buf));
	assert_int_equal(rm_rf(dir), 0);
	free(plain);
	free(archive);
	sb_release(&first);
	sb_release(&second);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_of_a_repository),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
