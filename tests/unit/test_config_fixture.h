/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab.conf texts loaded from a temporary folder, for the config tests
 * (test_config.c, test_config_hosts.c). Include after cmocka.h; each test
 * file's setup() creates tmpdir and the files its configs refer to.
 */
#ifndef TEST_CONFIG_FIXTURE_H
#define TEST_CONFIG_FIXTURE_H

#include <string.h>

#include "config.h"
#include "fsutil.h"

static char tmpdir[64];

static int teardown(void **state)
{
	(void)state;
	rm_rf(tmpdir);
	return 0;
}

/* Write @text as lab.conf, load it; return the error text (caller frees). */
static char *load(const char *text, struct lab_config *cfg, int *status)
{
	char *path = xasprintf("%s/lab.conf", tmpdir);
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	*status = config_load(path, cfg, &err);
	free(path);
	return sb_detach(&err);
}

/* @text must be refused, with "<tmpdir>/lab.conf:@message" among the errors. */
static void expect_error(const char *text, const char *message)
{
	struct lab_config cfg;
	int status;
	char *err = load(text, &cfg, &status);
	char *want = xasprintf("%s/lab.conf:%s\n", tmpdir, message);

	assert_int_equal(status, LAB_EUSER);
	if (!strstr(err, want))
		fail_msg("expected\n  %s\ngot\n  %s", want, err);
	free(want);
	free(err);
	config_release(&cfg);
}

#endif
