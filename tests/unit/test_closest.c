// SPDX-License-Identifier: GPL-2.0
/* closest: "did you mean" for mistyped commands (issue 50: `reprot` got none). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "closest.h"
#include "util.h"

static const char *const commands[] = {
	"config", "kernel", "report", "compare", "history", "guest", "host", "doctor",
	"run", "bisect", "attribute", "profile", "watch", "help", "version",
};

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(str_edit_distance("report", "report"), 0);
	assert_int_equal(str_edit_distance("reprot", "report"), 1);	/* a swap */
	assert_int_equal(str_edit_distance("repor", "report"), 1);
	assert_int_equal(str_edit_distance("rxport", "report"), 1);
	assert_int_equal(str_edit_distance("", "run"), 3);
	assert_int_equal(str_edit_distance("kitten", "sitting"), 3);
}

static void test_closest(void **state)
{
	static const struct {
		const char *word, *want;
	} cases[] = {
		{ "reprot", "report" }, { "doctr", "doctor" }, { "bisetc", "bisect" },
		{ "rn", "run" }, { "comapre", "compare" },
		{ "attr", "attribute" },	/* begins one name only */
		{ "h", NULL },			/* begins three: no guess */
		{ "xyzzy", NULL }, { "ls", NULL },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = str_closest(cases[i].word, commands, ARRAY_SIZE(commands));

		if (cases[i].want ? !got || strcmp(got, cases[i].want) : got != NULL)
			fail_msg("%s: got %s, expected %s", cases[i].word, got ? got : "none",
				 cases[i].want ? cases[i].want : "none");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_closest),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
