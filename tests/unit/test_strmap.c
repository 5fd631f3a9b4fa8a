// SPDX-License-Identifier: GPL-2.0
/* strmap: the string index lab.conf's parse looks sections and keys up in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "strmap.h"
#include "util.h"

static void test_empty(void **state)
{
	struct strmap m = STRMAP_INIT;
	size_t v = 7;

	(void)state;
	assert_int_equal(strmap_get(&m, "a", &v), 0);
	assert_int_equal(v, 7);
	strmap_clear(&m);
	strmap_put(&m, "", 3);	/* the empty string is a key like any other */
	assert_int_equal(strmap_get(&m, "", &v), 1);
	assert_int_equal(v, 3);
	assert_int_equal(strmap_get(&m, "a", NULL), 0);
	strmap_clear(&m);
	assert_int_equal(strmap_get(&m, "", NULL), 0);
}

/* Many keys (through several growths), each found with its value; replacing keeps one. */
static void test_many(void **state)
{
	struct strmap m = STRMAP_INIT;
	char key[32];
	size_t v;

	(void)state;
	for (size_t i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "host h%05zu\nuri", i);
		strmap_put(&m, key, i);
	}
	assert_int_equal(m.n, 20000);
	assert_true(m.cap >= 2 * m.n);
	for (size_t i = 0; i < 20000; i++) {
		snprintf(key, sizeof(key), "host h%05zu\nuri", i);
		assert_int_equal(strmap_get(&m, key, &v), 1);
		assert_int_equal(v, i);
	}
	assert_int_equal(strmap_get(&m, "host h20000\nuri", NULL), 0);
	assert_int_equal(strmap_get(&m, "host h00001", NULL), 0);
	strmap_put(&m, "host h00001\nuri", 42);
	assert_int_equal(m.n, 20000);
	assert_int_equal(strmap_get(&m, "host h00001\nuri", &v), 1);
	assert_int_equal(v, 42);
	strmap_clear(&m);
	assert_int_equal(m.n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
