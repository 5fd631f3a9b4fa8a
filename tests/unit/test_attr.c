// SPDX-License-Identifier: GPL-2.0
/*
 * lab/attr: a System.map and the plugin's window files, read as untrusted
 * input (each malformed line named by FILE:LINE, a file cut short refused),
 * blocks summed per function and per unit, two tables side by side.
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

#include "attr.h"
#include "fsutil.h"
#include "util.h"

static char dir[64];

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-attr.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* A kernel's map, out of order as nm may leave it, with data symbols among the text. */
static const char MAP[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81002000 t __schedule\n"
	"ffffffff81001000 T do_sched_yield\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff81003000 W weak_fn\n"
	"0000000000000000 A fixed_percpu_data\n";

static void test_symbols(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols s;
	char *map = put("System.map", MAP);
	(void)state;

	assert_int_equal(attr_symbols_load(map, &s, &err), 0);
	assert_int_equal(s.n, 4);	/* T, t, T, W: not D nor A */
	assert_null(attr_symbols_find(&s, 0xffffffff80ffffffull));
	assert_string_equal(attr_symbols_find(&s, 0xffffffff81000000ull), "_stext");
	assert_string_equal(attr_symbols_find(&s, 0xffffffff81001fffull), "do_sched_yield");
	assert_string_equal(attr_symbols_find(&s, 0xffffffff81002010ull), "__schedule");
	assert_string_equal(attr_symbols_find(&s, 0xffffffff8100ffffull), "weak_fn");
	attr_symbols_release(&s);
	free(map);
}

static void expect_map_error(const char *text, const char *needle)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols s;
	char *map = put("bad.map", text);

	assert_int_equal(attr_symbols_load(map, &s, &err), -1);
	if (!strstr(sb_str(&err), needle))
		fail_msg("'%s' lacks '%s'", sb_str(&err), needle);
	assert_int_equal(s.n, 0);
	sb_release(&err);
	free(map);
}

static void test_symbols_malformed(void **state)
{
	(void)state;
	expect_map_error("ffffffff81000000 T a\nxyz T b\n", "bad.map:2: expected \"ADDRESS TYPE NAME\"");
	expect_map_error("ffffffff81000000 TT a\n", "bad.map:1: expected");
	expect_map_error("ffffffff81000000 T\n", "bad.map:1: expected");
	expect_map_error("ffffffff81000000 T a extra\n", "bad.map:1: expected");
	expect_map_error("1ffffffff81000000 T a\n", "bad.map:1: expected");	/* over 64 bits */
	expect_map_error("-1 T a\n", "bad.map:1: expected");
	expect_map_error("ffffffff82000000 D data\n", "no text symbol");
	expect_map_error("", "no text symbol");
}

static void test_table(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols s;
	struct attr_window w;
	struct attr_table t;
	char *map = put("System.map", MAP);
	/* 10 units; __schedule 2 blocks (3x100 + 5x20), yield 4x100, user 7x10, one block below _stext */
	char *win = put("attr.1", "units 10\n"
			"ffffffff81002000 3 100\n"
			"ffffffff81002040 5 20\n"
			"ffffffff81001000 4 100\n"
			"401000 7 10\n"
			"ffffffff80000000 2 5\n"
			"end\n");
	(void)state;

	assert_int_equal(attr_symbols_load(map, &s, &err), 0);
	assert_int_equal(attr_window_load(win, &w, &err), 0);
	assert_int_equal(w.units, 10);
	assert_int_equal(w.n, 5);
	attr_table_build(&w, &s, &t);
	assert_int_equal(t.total, 300 + 100 + 400 + 70 + 10);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.v[0].name, "__schedule");	/* 400, before do_sched_yield's 400 by name */
	assert_int_equal(t.v[0].insns, 400);
	assert_string_equal(t.v[1].name, "do_sched_yield");
	assert_string_equal(t.v[2].name, ATTR_ROW_USER);
	assert_int_equal(t.v[2].insns, 70);
	assert_string_equal(t.v[3].name, ATTR_ROW_UNKNOWN);
	assert_true(attr_per_unit(&t, t.total) == 88.0);
	attr_table_release(&t);
	attr_window_release(&w);
	attr_symbols_release(&s);
	free(map);
	free(win);
}

static void expect_window_error(const char *text, const char *needle)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_window w;
	char *path = put("attr.9", text);

	assert_int_equal(attr_window_load(path, &w, &err), -1);
	if (!strstr(sb_str(&err), needle))
		fail_msg("'%s' lacks '%s'", sb_str(&err), needle);
	assert_int_equal(w.n, 0);
	sb_release(&err);
	free(path);
}

static void test_window_malformed(void **state)
{
	(void)state;
	expect_window_error("", "attr.9:0: no \"end\" line");
	expect_window_error("units 3\nffffffff81000000 2 5\n", "attr.9:2: no \"end\" line: the file was cut short");
	expect_window_error("units x\nend\n", "attr.9:1: expected \"units N\"");
	expect_window_error("ffffffff81000000 2 5\nend\n", "attr.9:1: expected \"units N\"");
	expect_window_error("units 3\nffffffff81000000 0 5\nend\n", "attr.9:2: expected");	/* no instruction */
	expect_window_error("units 3\nffffffff81000000 5000 5\nend\n", "attr.9:2: expected");
	expect_window_error("units 3\nffffffff81000000 2 0\nend\n", "attr.9:2: expected");
	expect_window_error("units 3\nffffffff81000000 2 5 6\nend\n", "attr.9:2: expected");
	expect_window_error("units 3\nffffffff81000000 +2 5\nend\n", "attr.9:2: expected");
	expect_window_error("units 3\n<script> 2 5\nend\n", "attr.9:2: expected");
	expect_window_error("units 3\nend\nffffffff81000000 2 5\n", "attr.9:3: a line after \"end\"");
}

static void test_diff(void **state)
{
	struct attr_row br[] = { { "__schedule", 400 }, { "a_gone", 100 }, { "same", 50 } };
	struct attr_row pr[] = { { "__schedule", 520 }, { "same", 50 }, { "a_new", 40 } };
	struct attr_table b = { br, 3, 550, 10 }, p = { pr, 3, 610, 10 };
	struct attr_diff d;
	(void)state;

	attr_diff_build(&b, &p, &d);
	assert_int_equal(d.n, 4);
	assert_true(d.base_total == 55.0 && d.patched_total == 61.0);
	/* by |change|: __schedule +12, a_gone -10, a_new +4, same 0 */
	assert_string_equal(d.v[0].name, "__schedule");
	assert_true(d.v[0].base == 40.0 && d.v[0].patched == 52.0);
	assert_string_equal(d.v[1].name, "a_gone");
	assert_true(d.v[1].patched == 0.0);
	assert_string_equal(d.v[2].name, "a_new");
	assert_true(d.v[2].base == 0.0 && d.v[2].patched == 4.0);
	assert_string_equal(d.v[3].name, "same");
	attr_diff_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_symbols_malformed),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_window_malformed),
		cmocka_unit_test(test_diff),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
