// SPDX-License-Identifier: GPL-2.0
/* May an ordinary user's libguestfs read a host kernel? (appliance_kernel.h) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appliance_kernel.h"
#include "util.h"

/* Someone who owns none of the files and is in none of their groups. */
#define STRANGER 54321

static char boot[] = "/tmp/test_appliance_kernel.XXXXXX";

static void put(const char *name, mode_t mode)
{
	char *p = xasprintf("%s/%s", boot, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs("not a kernel\n", f);
	fclose(f);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

static void clear(void)
{
	const char *const names[] = { "vmlinuz-6.1.0-a", "vmlinuz-6.1.0-b", "config-6.1.0-a" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = xasprintf("%s/%s", boot, names[i]);

		unlink(p);
		free(p);
	}
	unsetenv("SUPERMIN_KERNEL");
}

static int check(uid_t uid, gid_t gid, struct strbuf *err)
{
	sb_reset(err);
	return appliance_kernel_check(boot, uid, gid, err);
}

static void test_root_only_kernel_refused_with_the_fix(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	clear();
	put("vmlinuz-6.1.0-a", 0600);
	put("config-6.1.0-a", 0644);	/* not a kernel: does not count */
	assert_int_equal(check(STRANGER, STRANGER, &err), -1);
	assert_non_null(strstr(sb_str(&err), "vmlinuz-6.1.0-a"));
	assert_non_null(strstr(sb_str(&err), "dpkg-statoverride --update --add root root 0644"));
	assert_non_null(strstr(sb_str(&err), "SUPERMIN_KERNEL"));
	/* root reads it; so does its owner */
	assert_int_equal(check(0, 0, &err), 0);
	assert_int_equal(check(geteuid(), STRANGER, &err), 0);
	sb_release(&err);
}

static void test_one_readable_kernel_is_enough(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	clear();
	put("vmlinuz-6.1.0-a", 0600);
	put("vmlinuz-6.1.0-b", 0644);
	assert_int_equal(check(STRANGER, STRANGER, &err), 0);
	/* group-readable, and the user in that group */
	clear();
	put("vmlinuz-6.1.0-a", 0640);
	assert_int_equal(check(STRANGER, getegid(), &err), 0);
	assert_int_equal(check(STRANGER, STRANGER, &err), -1);
	sb_release(&err);
}

static void test_no_kernel_left_to_libguestfs(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	clear();
	assert_int_equal(check(STRANGER, STRANGER, &err), 0);
	assert_int_equal(appliance_kernel_check("/nonexistent/boot", STRANGER, STRANGER, &err), 0);
	sb_release(&err);
}

static void test_supermin_kernel_wins(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *k = xasprintf("%s/vmlinuz-6.1.0-b", boot);
	(void)state;

	clear();
	put("vmlinuz-6.1.0-a", 0644);
	put("vmlinuz-6.1.0-b", 0600);
	setenv("SUPERMIN_KERNEL", k, 1);
	/* the one named is root's: refused, though another one is readable */
	assert_int_equal(check(STRANGER, STRANGER, &err), -1);
	assert_non_null(strstr(sb_str(&err), "SUPERMIN_KERNEL="));
	assert_int_equal(chmod(k, 0644), 0);
	assert_int_equal(check(STRANGER, STRANGER, &err), 0);
	setenv("SUPERMIN_KERNEL", "/nonexistent/vmlinuz", 1);
	assert_int_equal(check(STRANGER, STRANGER, &err), -1);
	assert_non_null(strstr(sb_str(&err), "No such file"));
	clear();
	free(k);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_only_kernel_refused_with_the_fix),
		cmocka_unit_test(test_one_readable_kernel_is_enough),
		cmocka_unit_test(test_no_kernel_left_to_libguestfs),
		cmocka_unit_test(test_supermin_kernel_wins),
	};
	int r;

	if (!mkdtemp(boot))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	clear();
	rmdir(boot);
	return r;
}
