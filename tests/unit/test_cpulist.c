// SPDX-License-Identifier: GPL-2.0
/* The cpulist parser the host and the guest programs share (common/cpulist.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cpulist.h"

static void test_ids(void **state)
{
	int ids[16];
	(void)state;

	assert_int_equal(cpulist_ids("0-3,8,10-11", 64, ids, 16), 7);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[3], 3);
	assert_int_equal(ids[4], 8);
	assert_int_equal(ids[6], 11);
	/* as sysfs prints it: a trailing newline */
	assert_int_equal(cpulist_ids("0-1\n", 64, ids, 16), 2);
	assert_int_equal(cpulist_ids(" 2 , 4-5 ", 64, ids, 16), 3);
	assert_int_equal(ids[0], 2);
	/* a memory-only node's cpulist is an empty line */
	assert_int_equal(cpulist_ids("\n", 64, ids, 16), 0);
	assert_int_equal(cpulist_ids("", 64, ids, 16), 0);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"1,", ",1", "1,,2", "1 2", "3-1", "-1", "+1", "1-", "0 - 1", "a", "1-2-3", "0x1",
		"99999999999999999999",
	};
	int ids[16];
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (cpulist_ids(bad[i], 64, ids, 16) != -1)
			fail_msg("'%s' was accepted", bad[i]);
	/* a number at or over the limit, more ids than room */
	assert_int_equal(cpulist_ids("63", 64, ids, 16), 1);
	assert_int_equal(cpulist_ids("64", 64, ids, 16), -1);
	assert_int_equal(cpulist_ids("0-15", 64, ids, 16), 16);
	assert_int_equal(cpulist_ids("0-16", 64, ids, 16), -1);
}

/* Item by item, for callers that keep a bitmap (lab/guest/guest_conf.c). */
static void test_next(void **state)
{
	const char *s = "0-1, 4";
	long lo, hi;
	(void)state;

	assert_int_equal(cpulist_next(&s, 8, &lo, &hi), 1);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 1);
	assert_int_equal(cpulist_next(&s, 8, &lo, &hi), 1);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 4);
	assert_int_equal(cpulist_next(&s, 8, &lo, &hi), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_next),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
