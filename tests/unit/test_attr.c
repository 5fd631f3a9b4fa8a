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
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attr.h"
#include "fsutil.h"
#include "report_view.h"
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

/* A run folder @name under dir with window 1: @units, then the block lines. */
static char *run_with(const char *name, const char *window)
{
	char *d = xasprintf("%s/%s", dir, name), *f;

	assert_int_equal(mkdir_p(d, 0755), 0);
	f = xasprintf("%s/attr.1", d);
	assert_int_equal(write_file_atomic(f, window, strlen(window)), 0);
	free(f);
	return d;
}

static const json_t *row_named(const json_t *t, const char *fn)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(t, "functions"), i, r)
		if (!strcmp(json_string_value(json_object_get(r, "function")), fn))
			return r;
	fail_msg("no row %s", fn);
	return NULL;
}

static double num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

/*
 * Two runs per kernel: do_sched_yield +10 per unit in both patched runs,
 * __schedule wobbling by 3 between the baseline's runs (the noise), user
 * space by 50 (not the kernel's noise), weak_fn only in the patched kernel,
 * by 4: past the noise but not 1.5 times it, so not named.
 */
static void test_compare(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *map = put("System.map", MAP);
	/* per unit (10 units): __schedule 40/43, yield 20, user 5/10 */
	char *b1 = run_with("b1", "units 10\nffffffff81002000 4 100\nffffffff81001000 2 100\n"
			    "401000 5 10\nend\n");
	char *b2 = run_with("b2", "units 10\nffffffff81002000 43 10\nffffffff81001000 2 100\n"
			    "401000 10 10\nend\n");
	char *p1 = run_with("p1", "units 20\nffffffff81002000 4 200\nffffffff81001000 6 100\n"
			    "401000 5 20\nffffffff81003000 1 80\nend\n");
	char *p2 = run_with("p2", "units 10\nffffffff81002000 4 100\nffffffff81001000 3 100\n"
			    "401000 5 10\nffffffff81003000 1 40\nend\n");
	const char *bd[] = { b1, b2 }, *pd[] = { p1, p2 };
	struct attr_side base = { bd, 2, map }, patched = { pd, 2, map };
	json_t *t;
	(void)state;

	t = attr_compare_json(&base, &patched, 1, 2, &err);
	assert_non_null(t);
	/* by |delta|: do_sched_yield +10, weak_fn +4, user space -2.5, __schedule -1.5 */
	assert_int_equal(json_array_size(json_object_get(t, "functions")), 2);
	assert_int_equal(json_integer_value(json_object_get(t, "more")), 2);
	const json_t *y = json_array_get(json_object_get(t, "functions"), 0);
	assert_string_equal(json_string_value(json_object_get(y, "function")), "do_sched_yield");
	assert_true(num(y, "base") == 20.0 && num(y, "patched") == 30.0 && num(y, "delta") == 10.0);
	assert_true(num(y, "spread") == 0.0);
	assert_true(num(t, "noise") == 3.0);		/* __schedule 40 vs 43; user's 5 not counted */
	assert_true(num(t, "threshold") == ATTR_NOISE_MULTIPLE * 3.0);
	/* do_sched_yield alone: weak_fn's 4 passes the noise, not the threshold */
	assert_int_equal(json_integer_value(json_object_get(t, "beyond_noise")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(t, "functions"), 1), "function")), "weak_fn");
	/* totals: base (65+73)/2 = 69, patched (79+79)/2 = 79 */
	assert_true(num(t, "base_per_unit") == 69.0 && num(t, "patched_per_unit") == 79.0);
	assert_true(num(t, "base_kernel_per_unit") == 61.5);
	assert_true(num(t, "patched_kernel_per_unit") == 74.0);
	assert_true(fabs(num(y, "share_of_change") - 10.0 / 10.0) < 1e-12);
	/* the session reads its table back as the report does (session_attribute.c) */
	struct view_attr_window w;
	assert_int_equal(report_attr_window_decode(t, "table", &w, &err), 0);
	assert_true(w.base_per_unit == 69.0 && w.patched_per_unit == 79.0);
	assert_true(w.base_kernel == 61.5 && w.patched_kernel == 74.0);
	assert_true(w.beyond_noise == 1.0);
	assert_int_equal(w.nrows, 2);
	assert_string_equal(w.rows[0].function, "do_sched_yield");
	report_attr_window_release(&w);
	/* a member of the wrong type is refused by its path, not read as 0 */
	json_object_set_new(t, "beyond_noise", json_string("1"));
	assert_int_equal(report_attr_window_decode(t, "table", &w, &err), -1);
	assert_non_null(strstr(sb_str(&err), "table.beyond_noise"));
	report_attr_window_release(&w);
	sb_reset(&err);
	assert_int_equal(report_attr_window_decode(json_object_get(t, "functions"), "table",
						   &w, &err), -1);
	assert_string_equal(sb_str(&err), "table: expected an object, got an array");
	sb_reset(&err);
	json_decref(t);

	t = attr_compare_json(&base, &patched, 1, 100, &err);
	assert_non_null(t);
	assert_true(num(row_named(t, "weak_fn"), "base") == 0.0);
	assert_true(num(row_named(t, "weak_fn"), "patched") == 4.0);
	assert_true(num(row_named(t, "__schedule"), "spread") == 3.0);
	json_decref(t);

	/* one run per kernel: no noise claimed */
	base.n = patched.n = 1;
	t = attr_compare_json(&base, &patched, 1, 100, &err);
	assert_non_null(t);
	assert_true(json_is_null(json_object_get(t, "noise")));
	assert_true(json_is_null(json_object_get(t, "threshold")));
	assert_true(json_is_null(json_object_get(row_named(t, "__schedule"), "spread")));
	/* no noise, nothing beyond it: NaN, which the session counts as none named */
	assert_int_equal(report_attr_window_decode(t, "table", &w, &err), 0);
	assert_true(isnan(w.beyond_noise) && isnan(w.noise));
	report_attr_window_release(&w);
	json_decref(t);

	/* a window without unit marks: no table, the file and the reason named */
	char *nounits = run_with("n1", "units 0\nffffffff81002000 4 100\nend\n");
	const char *nd[] = { nounits };
	struct attr_side bare = { nd, 1, map };
	assert_null(attr_compare_json(&bare, &patched, 1, 10, &err));
	assert_non_null(strstr(sb_str(&err), "n1/attr.1: no unit marks in the window"));
	sb_reset(&err);
	free(nounits);

	/* a window the runs did not write: the file named */
	assert_null(attr_compare_json(&base, &patched, 2, 10, &err));
	assert_non_null(strstr(sb_str(&err), "b1/attr.2"));
	sb_release(&err);
	free(b1);
	free(b2);
	free(p1);
	free(p2);
	free(map);
}

/*
 * A function that ran in a burst in one boot (weak_fn: 100 per unit in
 * the baseline's second run, nothing in the other three; a spread at
 * least its mean) is held to its own spread and left out of the noise:
 * do_sched_yield's +10 with a spread of 0 is named against __schedule's
 * noise of 3, not hidden behind weak_fn's 100 as the plain largest
 * spread would (CI, 2026-12-05: crc32_body hid lru_gen_update_size).
 */
static void test_compare_burst(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *map = put("System.map", MAP);
	char *b1 = run_with("b1", "units 10\nffffffff81002000 4 100\nffffffff81001000 2 100\nend\n");
	char *b2 = run_with("b2", "units 10\nffffffff81002000 43 10\nffffffff81001000 2 100\n"
			    "ffffffff81003000 100 10\nend\n");
	char *p1 = run_with("p1", "units 10\nffffffff81002000 4 100\nffffffff81001000 3 100\nend\n");
	char *p2 = run_with("p2", "units 10\nffffffff81002000 4 100\nffffffff81001000 3 100\nend\n");
	const char *bd[] = { b1, b2 }, *pd[] = { p1, p2 };
	struct attr_side base = { bd, 2, map }, patched = { pd, 2, map };
	json_t *t;
	(void)state;

	t = attr_compare_json(&base, &patched, 1, 100, &err);
	assert_non_null(t);
	assert_true(num(t, "noise") == 3.0);
	assert_string_equal(json_string_value(json_object_get(t, "noise_function")), "__schedule");
	assert_int_equal(json_integer_value(json_object_get(t, "bursts")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "beyond_noise")), 1);
	const json_t *w = row_named(t, "weak_fn"), *y = row_named(t, "do_sched_yield");
	assert_true(num(w, "delta") == -50.0 && num(w, "spread") == 100.0);
	assert_true(json_is_true(json_object_get(w, "bursty")));
	assert_true(json_is_false(json_object_get(w, "named")));	/* 50 < 1.5 x 100 */
	assert_true(json_is_false(json_object_get(y, "bursty")));
	assert_true(json_is_true(json_object_get(y, "named")));	/* 10 > 1.5 x 3 */
	assert_true(json_is_false(json_object_get(row_named(t, "__schedule"), "named")));
	json_decref(t);

	/* one kernel's profile: the same noise */
	t = attr_profile_json(&base, 1, 100, &err);
	assert_non_null(t);
	assert_true(num(t, "noise") == 3.0);
	assert_int_equal(json_integer_value(json_object_get(t, "bursts")), 1);
	json_decref(t);
	sb_release(&err);
	free(b1);
	free(b2);
	free(p1);
	free(p2);
	free(map);
}

/* One kernel's table (mglrulab profile): by cost, shares of the whole, spread as noise. */
static void test_profile(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *map = put("System.map", MAP);
	/* per unit: __schedule 40 / 43, do_sched_yield 20, user space 5 / 10 */
	char *r1 = run_with("r1", "units 10\nffffffff81002000 4 100\nffffffff81001000 2 100\n"
			    "401000 5 10\nend\n");
	char *r2 = run_with("r2", "units 10\nffffffff81002000 43 10\nffffffff81001000 2 100\n"
			    "401000 10 10\nend\n");
	const char *dirs[] = { r1, r2 };
	struct attr_side side = { dirs, 2, map };
	json_t *t;
	(void)state;

	t = attr_profile_json(&side, 1, 2, &err);
	assert_non_null(t);
	const json_t *f = json_object_get(t, "functions");
	assert_int_equal(json_array_size(f), 2);
	assert_int_equal(json_integer_value(json_object_get(t, "more")), 1);
	assert_int_equal(json_integer_value(json_object_get(t, "nfunctions")), 3);
	/* largest per unit first: __schedule 41.5, do_sched_yield 20 */
	assert_string_equal(json_string_value(json_object_get(json_array_get(f, 0), "function")),
			    "__schedule");
	assert_true(num(json_array_get(f, 0), "per_unit") == 41.5);
	assert_true(num(json_array_get(f, 0), "spread") == 3.0);
	assert_true(num(json_array_get(f, 1), "per_unit") == 20.0);
	/* totals (65 + 73) / 2, kernel without user space's 7.5 */
	assert_true(num(t, "per_unit") == 69.0 && num(t, "kernel_per_unit") == 61.5);
	assert_true(fabs(num(json_array_get(f, 1), "share") - 20.0 / 69.0) < 1e-12);
	assert_true(num(t, "noise") == 3.0);	/* user space's spread of 5 is not the kernel's */
	json_decref(t);

	/* one run: no noise, no spread claimed */
	side.n = 1;
	t = attr_profile_json(&side, 1, 10, &err);
	assert_non_null(t);
	assert_true(json_is_null(json_object_get(t, "noise")));
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(t, "functions"), 0),
						 "spread")));
	json_decref(t);

	/* a window without unit marks is refused as for a comparison */
	char *bare = run_with("n2", "units 0\nffffffff81002000 4 100\nend\n");
	const char *bd[] = { bare };
	struct attr_side nounits = { bd, 1, map };
	assert_null(attr_profile_json(&nounits, 1, 10, &err));
	assert_non_null(strstr(sb_str(&err), "n2/attr.1: no unit marks in the window"));
	sb_reset(&err);
	side.n = 0;
	assert_null(attr_profile_json(&side, 1, 10, &err));
	assert_non_null(strstr(sb_str(&err), "1 to 16 runs, got 0"));
	sb_release(&err);
	free(bare);
	free(r1);
	free(r2);
	free(map);
}

/* A FIFO as the System.map or a window: refused at once, not a hang in open(). */
static void test_fifo_refused(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols s;
	struct attr_window w;
	char *fifo = xasprintf("%s/fifo", dir);
	(void)state;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(attr_symbols_load(fifo, &s, &err), -1);
	assert_non_null(strstr(sb_str(&err), "not a regular file"));
	sb_reset(&err);
	assert_int_equal(attr_window_load(fifo, &w, &err), -1);
	assert_non_null(strstr(sb_str(&err), "not a regular file"));
	sb_release(&err);
	free(fifo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_symbols_malformed),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_window_malformed),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_compare_burst),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_fifo_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
