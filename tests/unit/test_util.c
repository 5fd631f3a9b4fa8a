// SPDX-License-Identifier: GPL-2.0
/* Small parsers of util.c that user input goes through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "util.h"

static void test_parse_duration(void **state)
{
	static const struct { const char *in; double s; } good[] = {
		{ "900", 900 }, { "90s", 90 }, { "15m", 900 }, { "1h", 3600 },
		{ "1h30m", 5400 }, { "1h30m15s", 5415 }, { "2m30", 150 }, { "0h1s", 1 },
	};
	static const char *const bad[] = {
		"", "0", "0s", "m", "15x", "-5m", "1m1h", "1h1h", "1.5h", " 5m", "5m ", "15mm",
		"99999999999h", "1s30",
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_duration),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
