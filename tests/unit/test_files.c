// SPDX-License-Identifier: GPL-2.0
/* Files the lab writes and reads back: run records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "session.h"
#include "util.h"

static char *scratch(void)
{
	char tmpl[] = "/tmp/mglrulab-test-files.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

/* Records past run 9,999 have five-digit names; all must be read back. */
static void test_load_runs_past_9999(void **state)
{
	static const int seqs[] = { 1, 9999, 10000, 123456 };
	char *dir = scratch(), *runs = xasprintf("%s/runs", dir), *tmp;
	struct strbuf err = STRBUF_INIT;
	json_t *got;

	(void)state;
	assert_int_equal(mkdir_p(runs, 0755), 0);
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++) {
		char *path = session_run_path(dir, seqs[i]);
		json_t *rec = json_pack("{s:i}", "seq", seqs[i]);

		assert_int_equal(session_write_json(path, rec), 0);
		json_decref(rec);
		free(path);
	}
	/* Not records: a leftover temporary file and a stray name. */
	tmp = xasprintf("%s/10001.json.tmp.Ab12Cd", runs);
	assert_int_equal(write_file_atomic(tmp, "{\"seq\": 10001}", 14), 0);
	free(tmp);
	tmp = xasprintf("%s/notes.json", runs);
	assert_int_equal(write_file_atomic(tmp, "{\"seq\": 7}", 10), 0);
	free(tmp);

	got = session_load_runs(dir, &err);
	assert_string_equal(sb_str(&err), "");
	assert_int_equal(json_array_size(got), ARRAY_SIZE(seqs));
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(got, i), "seq")),
				 seqs[i]);
	json_decref(got);
	sb_release(&err);
	assert_int_equal(rm_rf(dir), 0);
	free(runs);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_runs_past_9999),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
