// SPDX-License-Identifier: GPL-2.0
/*
 * The caps on what QEMU writes for a guest (console.log, results.jsonl):
 * the default caps exist and are the header's values, a file over its cap
 * is named with the limit, and the test knobs only ever lower a cap.
 * Files over the default caps are sparse: no disk is filled.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "domain_run.h"
#include "fsutil.h"
#include "guest_protocol.h"

struct files {
	char dir[64];
	char *console, *channel;
};

static void sized(const char *path, long long size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
}

static int setup(void **state)
{
	struct files *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/test-domain-output.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->console = path_join(f->dir, "console.log");
	f->channel = path_join(f->dir, "results.jsonl");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct files *f = *state;

	rm_rf(f->dir);
	free(f->console);
	free(f->channel);
	free(f);
	return 0;
}

static void test_default_caps(void **state)
{
	struct files *f = *state;
	struct strbuf why = STRBUF_INIT;
	char want[200];

	/* absent files (QEMU has not opened them yet) are within */
	assert_int_equal(guest_output_over(f->console, GUEST_CONSOLE_LOG_MAX, f->channel,
					   GUEST_RESULT_FILE_MAX, &why), 0);
	/* exactly at the caps: still within */
	sized(f->console, GUEST_CONSOLE_LOG_MAX);
	sized(f->channel, GUEST_RESULT_FILE_MAX);
	assert_int_equal(guest_output_over(f->console, GUEST_CONSOLE_LOG_MAX, f->channel,
					   GUEST_RESULT_FILE_MAX, &why), 0);
	assert_int_equal(why.len, 0);

	/* one byte over the console's default cap */
	sized(f->console, GUEST_CONSOLE_LOG_MAX + 1);
	assert_int_equal(guest_output_over(f->console, GUEST_CONSOLE_LOG_MAX, f->channel,
					   GUEST_RESULT_FILE_MAX, &why), 1);
	snprintf(want, sizeof(want), "%s grew to %lld bytes, over GUEST_CONSOLE_LOG_MAX (%lld bytes)",
		 f->console, GUEST_CONSOLE_LOG_MAX + 1, GUEST_CONSOLE_LOG_MAX);
	assert_string_equal(sb_str(&why), want);
	sb_reset(&why);

	/* the channel's */
	sized(f->console, 100);
	sized(f->channel, GUEST_RESULT_FILE_MAX + 4096);
	assert_int_equal(guest_output_over(f->console, GUEST_CONSOLE_LOG_MAX, f->channel,
					   GUEST_RESULT_FILE_MAX, &why), 1);
	snprintf(want, sizeof(want), "%s grew to %lld bytes, over GUEST_RESULT_FILE_MAX (%lld bytes)",
		 f->channel, GUEST_RESULT_FILE_MAX + 4096, GUEST_RESULT_FILE_MAX);
	assert_string_equal(sb_str(&why), want);
	sb_release(&why);

	/* the defaults are what docs/security.md promises */
	assert_true(GUEST_CONSOLE_LOG_MAX == 16 * 1024 * 1024);
	assert_true(GUEST_RESULT_FILE_MAX == 256 * 1024 * 1024);
}

static void test_lowered_cap(void **state)
{
	struct files *f = *state;
	struct strbuf why = STRBUF_INIT;

	sized(f->console, 5000);
	sized(f->channel, 10);
	assert_int_equal(guest_output_over(f->console, 4096, f->channel, GUEST_RESULT_FILE_MAX, &why), 1);
	assert_non_null(strstr(sb_str(&why), "over GUEST_CONSOLE_LOG_MAX (4096 bytes, lowered by "
					     "$MGLRULAB_TEST_CONSOLE_MAX from 16777216)"));
	sb_release(&why);
}

static void test_knob_only_lowers(void **state)
{
	(void)state;
	unsetenv("MGLRULAB_TEST_X_MAX");
	assert_true(guest_output_cap("MGLRULAB_TEST_X_MAX", GUEST_CONSOLE_LOG_MAX) == GUEST_CONSOLE_LOG_MAX);
	setenv("MGLRULAB_TEST_X_MAX", "65536", 1);
	assert_true(guest_output_cap("MGLRULAB_TEST_X_MAX", GUEST_CONSOLE_LOG_MAX) == 65536);
	/* above the default, zero, negative, not a number: the default */
	setenv("MGLRULAB_TEST_X_MAX", "99999999999", 1);
	assert_true(guest_output_cap("MGLRULAB_TEST_X_MAX", GUEST_CONSOLE_LOG_MAX) == GUEST_CONSOLE_LOG_MAX);
	setenv("MGLRULAB_TEST_X_MAX", "0", 1);
	assert_true(guest_output_cap("MGLRULAB_TEST_X_MAX", GUEST_CONSOLE_LOG_MAX) == GUEST_CONSOLE_LOG_MAX);
	setenv("MGLRULAB_TEST_X_MAX", "-5", 1);
	assert_true(guest_output_cap("MGLRULAB_TEST_X_MAX", GUEST_CONSOLE_LOG_MAX) == GUEST_CONSOLE_LOG_MAX);
	setenv("MGLRULAB_TEST_X_MAX", "1M", 1);
	assert_true(guest_output_cap("MGLRULAB_TEST_X_MAX", GUEST_CONSOLE_LOG_MAX) == GUEST_CONSOLE_LOG_MAX);
	unsetenv("MGLRULAB_TEST_X_MAX");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_default_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lowered_cap, setup, teardown),
		cmocka_unit_test(test_knob_only_lowers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
