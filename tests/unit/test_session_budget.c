// SPDX-License-Identifier: GPL-2.0
/*
 * run --resume --budget (session_raise_budget(), lab/session/session.c):
 * the session's document is its state, so the raised budget is written by
 * encoding it. session.json afterwards is the file it was, byte for byte,
 * but for design.sequential.budget_s; a session that is not sequential, or
 * a budget that is not larger, is refused and the file left as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "session_priv.h"
#include "util.h"

#define FIXTURE "tests/fixtures/session/ab-sequential.json"

static char dir[] = "/tmp/test_session_budget.XXXXXX";

static char *read_all(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 1 << 24), 0);
	return sb_detach(&sb);
}

/* @j as session_write_json() writes it; allocated. */
static char *as_written(const json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER), *out;

	assert_non_null(text);
	out = xasprintf("%s\n", text);
	free(text);
	return out;
}

/*
 * <dir>/session.json as the lab writes it today: the fixture decoded and
 * encoded (it is from before session.lab_conf_sha256, which the encoder
 * writes null); @sequential 0: without design.sequential. Its text.
 */
static char *write_session(int sequential)
{
	json_t *j = json_load_file(FIXTURE, 0, NULL), *out;
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/session.json", dir), *text;

	assert_non_null(j);
	assert_int_equal(session_doc_decode(j, &d, &err), 0);
	if (!sequential)
		d.design.sequential.present = 0;
	out = session_doc_encode(&d);
	text = as_written(out);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	session_doc_release(&d);
	json_decref(out);
	json_decref(j);
	sb_release(&err);
	free(path);
	return text;
}

/* session_raise_budget() of <dir>/session.json read as --resume reads it, to @budget_s. */
static int raise(double budget_s)
{
	struct session_opts o = { .budget_s = budget_s };
	struct session s = { .o = &o, .dir = dir };
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/session.json", dir);
	int r;

	if (session_doc_load_file(path, &s.doc, &err))
		fail_msg("%s", sb_str(&err));
	r = session_raise_budget(&s);
	session_doc_release(&s.doc);
	sb_release(&err);
	free(path);
	return r;
}

static void test_raised(void **state)
{
	char *before = write_session(1), *path = xasprintf("%s/session.json", dir), *after, *want;
	json_t *j;
	(void)state;

	assert_int_equal(raise(3600), LAB_OK);
	after = read_all(path);
	/* the file before, its budget alone set: the member in its place */
	j = json_loads(before, 0, NULL);
	assert_non_null(j);
	json_object_set_new(json_object_get(json_object_get(j, "design"), "sequential"),
			    "budget_s", json_real(3600));
	want = as_written(j);
	assert_string_equal(after, want);
	free(after);

	/* not more than the budget it has now: refused, the file as it was */
	assert_int_equal(raise(3600), LAB_EUSER);
	assert_int_equal(raise(60), LAB_EUSER);
	after = read_all(path);
	assert_string_equal(after, want);
	free(after);
	free(want);
	json_decref(j);
	free(before);
	free(path);
}

static void test_not_sequential(void **state)
{
	char *before = write_session(0), *path = xasprintf("%s/session.json", dir), *after;
	(void)state;

	assert_int_equal(raise(3600), LAB_EUSER);
	after = read_all(path);
	assert_string_equal(after, before);
	free(after);
	free(before);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_raised),
		cmocka_unit_test(test_not_sequential),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
