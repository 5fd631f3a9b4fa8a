// SPDX-License-Identifier: GPL-2.0
/* ini_schema: the key tables lab.conf and the guest topology files are checked with. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ini_schema.h"
#include "util.h"

struct sample {
	char *name;
	char *dir;
	struct strvec files;
	int files_set;
	struct strvec words;
	long count;
	int small;
	uint64_t big;
	double frac;
	char *mode;
	int level;
	int even;
};

static int parse_even(const char *value, void *field)
{
	long v;

	if (parse_long(value, 0, 100, &v) || v % 2)
		return -1;
	*(int *)field = (int)v;
	return 0;
}

#define S(f) .offset = offsetof(struct sample, f)
static const struct ini_key keys[] = {
	{ "name", INI_STRING, S(name) },
	{ "dir", INI_PATH, S(dir) },
	{ "files", INI_PATHS, S(files), .set_flag = INI_FLAG(struct sample, files_set) },
	{ "words", INI_WORDS, S(words) },
	{ "count", INI_LONG, S(count), .min = 1, .max = 10 },
	{ "small", INI_INT, S(small), .min = -5, .max = 5 },
	{ "big", INI_U64, S(big) },
	{ "frac", INI_FRACTION, S(frac) },
	{ "mode", INI_ENUM, S(mode), .choices = "fast|slow" },
	{ "level", INI_CHOICE, S(level), .choices = "low|mid|high" },
	{ "even", INI_CUSTOM, S(even), .parse = parse_even, .expected = "an even number up to 100" },
	{ NULL },
};

static struct strbuf err = STRBUF_INIT;
static struct ini_check chk;
static struct sample smp;

static int setup(void **state)
{
	(void)state;
	memset(&smp, 0, sizeof(smp));
	sb_reset(&err);
	chk = (struct ini_check){ .path = "x.conf", .dir = "/base", .err = &err };
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(smp.name);
	free(smp.dir);
	free(smp.mode);
	strvec_clear(&smp.files);
	strvec_clear(&smp.words);
	ini_check_release(&chk);
	sb_release(&err);
	return 0;
}

static int set(const char *key, const char *value, int line)
{
	return ini_check_set(&chk, &smp, keys, "sec tion", key, value, line);
}

static void test_kinds(void **state)
{
	(void)state;
	assert_int_equal(set("name", "", 1), 0);	/* text may be empty */
	assert_int_equal(set("dir", "d", 2), 0);
	assert_int_equal(set("files", "a /abs", 3), 0);
	assert_int_equal(set("files", "b", 4), 0);	/* lists accumulate */
	assert_int_equal(set("words", "x, y z", 5), 0);
	assert_int_equal(set("count", "10", 6), 0);
	assert_int_equal(set("small", "-5", 7), 0);
	assert_int_equal(set("big", "18446744073709551615", 8), 0);
	assert_int_equal(set("frac", "5%", 9), 0);
	assert_int_equal(set("mode", "slow", 10), 0);
	assert_int_equal(set("level", "high", 11), 0);
	assert_int_equal(set("even", "42", 12), 0);
	assert_string_equal(sb_str(&err), "");
	assert_string_equal(smp.name, "");
	assert_string_equal(smp.dir, "/base/d");
	assert_int_equal(smp.files.n, 3);
	assert_string_equal(smp.files.v[1], "/abs");
	assert_string_equal(smp.files.v[2], "/base/b");
	assert_int_equal(smp.files_set, 1);
	assert_int_equal(smp.words.n, 3);
	assert_int_equal(smp.count, 10);
	assert_int_equal(smp.small, -5);
	assert_true(smp.big == UINT64_MAX);
	assert_true(smp.frac > 0.0499 && smp.frac < 0.0501);
	assert_string_equal(smp.mode, "slow");
	assert_int_equal(smp.level, 2);
	assert_int_equal(smp.even, 42);
	assert_int_equal(ini_check_line(&chk, "sec tion", "files"), 3);	/* the first */
	assert_int_equal(ini_check_line(&chk, "sec tion", "count"), 6);
	assert_int_equal(ini_check_line(&chk, "other", "count"), 0);
}

/* One message style for every kind: FILE:LINE: [section] key: expected ..., not '...' */
static void test_messages(void **state)
{
	(void)state;
	assert_int_equal(set("count", "11", 1), -1);
	assert_int_equal(set("small", "x", 2), -1);
	assert_int_equal(set("big", "-1", 3), -1);
	assert_int_equal(set("frac", "1.5", 4), -1);
	assert_int_equal(set("mode", "medium", 5), -1);
	assert_int_equal(set("level", "top", 6), -1);
	assert_int_equal(set("even", "7", 7), -1);
	assert_int_equal(set("dir", "", 8), -1);
	assert_int_equal(set("cuont", "1", 9), -1);
	assert_int_equal(set("zzzzzz", "1", 10), -1);
	assert_string_equal(sb_str(&err),
		"x.conf:1: [sec tion] count: expected an integer from 1 to 10, not '11'\n"
		"x.conf:2: [sec tion] small: expected an integer from -5 to 5, not 'x'\n"
		"x.conf:3: [sec tion] big: expected a non-negative integer, not '-1'\n"
		"x.conf:4: [sec tion] frac: expected a fraction from 0 to 1 (0.05) or a percentage (5%), not '1.5'\n"
		"x.conf:5: [sec tion] mode: expected one of fast|slow, not 'medium'\n"
		"x.conf:6: [sec tion] level: expected one of low|mid|high, not 'top'\n"
		"x.conf:7: [sec tion] even: expected an even number up to 100, not '7'\n"
		"x.conf:8: [sec tion] dir: empty value\n"
		"x.conf:9: [sec tion] unknown key 'cuont' (did you mean 'count'?)\n"
		"x.conf:10: [sec tion] unknown key 'zzzzzz' (expected one of: name, dir, files, "
		"words, count, small, big, frac, mode, level, even)\n");
	assert_int_equal(smp.files_set, 0);
}

static void test_duplicates(void **state)
{
	(void)state;
	assert_int_equal(set("count", "1", 3), 0);
	assert_int_equal(set("count", "2", 7), -1);
	assert_int_equal(smp.count, 1);
	assert_int_equal(set("words", "a", 8), 0);	/* lists may repeat */
	assert_int_equal(set("words", "b", 9), 0);
	/* The same key in another section is another key. */
	assert_int_equal(ini_check_set(&chk, &smp, keys, "other", "count", "3", 10), 0);
	assert_int_equal(ini_check_once(&chk, "other", "extra", 11), 0);
	assert_int_equal(ini_check_once(&chk, "other", "extra", 12), -1);
	assert_string_equal(sb_str(&err),
		"x.conf:7: [sec tion] count: already set at line 3\n"
		"x.conf:12: [other] extra: already set at line 11\n");
}

/*
 * Each item of a list key keeps the line that wrote it, so an error about
 * one name of "kernels = a b" over two lines points at its own line.
 */
static void test_item_lines(void **state)
{
	(void)state;
	assert_int_equal(set("words", "a b", 4), 0);
	assert_int_equal(set("words", "c", 9), 0);
	assert_int_equal(ini_check_item_line(&chk, "sec tion", "words", 0), 4);
	assert_int_equal(ini_check_item_line(&chk, "sec tion", "words", 1), 4);
	assert_int_equal(ini_check_item_line(&chk, "sec tion", "words", 2), 9);
	assert_int_equal(ini_check_item_line(&chk, "sec tion", "words", 3), 4);	/* the key's */
	assert_int_equal(ini_check_item_line(&chk, "sec tion", "count", 0), 0);	/* not set */
}

/* A suggestion only for a likely typo: close, not the word itself, not for one letter. */
static void test_nearest(void **state)
{
	static const char *const names[] = { "baseline", "patched", "tiny", "b" };
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_string_equal(ini_nearest("pached", names, 4), "patched");
	assert_string_equal(ini_nearest("basline", names, 4), "baseline");
	assert_string_equal(ini_nearest("tinny", names, 4), "tiny");
	assert_null(ini_nearest("nosuch", names, 4));
	assert_null(ini_nearest("patched", names, 4));
	assert_null(ini_nearest("a", names, 4));
	assert_null(ini_nearest("x", NULL, 0));
	ini_did_you_mean(&sb, "pached", names, 4);
	ini_did_you_mean(&sb, "nosuch", names, 4);
	assert_string_equal(sb_str(&sb), " (did you mean 'patched'?)");
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_messages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(test_item_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nearest, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
