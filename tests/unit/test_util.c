// SPDX-License-Identifier: GPL-2.0
/* Small parsers of util.c that user input goes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "kbuild.h"
#include "util.h"

static void test_parse_duration(void **state)
{
	static const struct { const char *in; double s; } good[] = {
		{ "900", 900 }, { "90s", 90 }, { "15m", 900 }, { "1h", 3600 },
		{ "1h30m", 5400 }, { "1h30m15s", 5415 }, { "2m30", 150 }, { "0h1s", 1 },
		/* lab.conf's "grace = 2d", as its comment and docs/watch.md show it. */
		{ "2d", 172800 }, { "1d12h", 129600 }, { "1d30", 86430 },
	};
	static const char *const bad[] = {
		"", "0", "0s", "m", "15x", "-5m", "1m1h", "1h1h", "1.5h", " 5m", "5m ", "15mm",
		"99999999999h", "1s30", "1h1d", "1d1d", "d", "2D",
	};
	double v;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		v = -1;
		if (parse_duration(good[i].in, &v) || v != good[i].s)
			fail_msg("'%s': expected %g s, got %g", good[i].in, good[i].s, v);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (!parse_duration(bad[i], &v))
			fail_msg("'%s' was accepted as %g s", bad[i], v);
}

/* Byte order, not the locale's: the guest image hash lists programs this way. */
static void test_strvec_sort(void **state)
{
	struct strvec sv = STRVEC_INIT;
	(void)state;

	strvec_sort(&sv);	/* empty: nothing to do */
	strvec_split(&sv, "yield_pingpong mglrulab-runner Zeta a.c a.c \xc3\xa9t\xc3\xa9 _x", " ");
	strvec_sort(&sv);
	assert_int_equal(sv.n, 7);
	assert_string_equal(sv.v[0], "Zeta");
	assert_string_equal(sv.v[1], "_x");
	assert_string_equal(sv.v[2], "a.c");
	assert_string_equal(sv.v[3], "a.c");
	assert_string_equal(sv.v[4], "mglrulab-runner");
	assert_string_equal(sv.v[5], "yield_pingpong");
	assert_string_equal(sv.v[6], "\xc3\xa9t\xc3\xa9");
	assert_null(sv.v[7]);	/* still NULL-terminated */
	strvec_clear(&sv);
}

static void test_format_duration(void **state)
{
	char b[32];
	(void)state;

	format_duration(b, sizeof(b), 45.4);
	assert_string_equal(b, "45s");
	format_duration(b, sizeof(b), 187);
	assert_string_equal(b, "3m07s");
	format_duration(b, sizeof(b), 3720);
	assert_string_equal(b, "1h02m");
}

/* The build's progress: a total and an ETA once the last build's count is known. */
static void test_kbuild_progress(void **state)
{
	char b[160];
	(void)state;

	kbuild_progress_format(b, sizeof(b), 312, 0, 40);
	assert_string_equal(b, "312 steps, 40s");
	kbuild_progress_format(b, sizeof(b), 0, 1422, 3);
	assert_string_equal(b, "0/~1422 steps, 3s, ETA ?");
	/* 711 of 1422 in 60 s: as long again. */
	kbuild_progress_format(b, sizeof(b), 711, 1422, 60);
	assert_string_equal(b, "711/~1422 steps, 1m00s, ETA 1m00s");
	kbuild_progress_format(b, sizeof(b), 1500, 1422, 100);
	assert_string_equal(b, "1500/~1422 steps, 1m40s, past the estimate");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_duration),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_kbuild_progress),
		cmocka_unit_test(test_strvec_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
