// SPDX-License-Identifier: GPL-2.0
/*
 * A series' context (history_context.c): encoded from a report's host,
 * guest and workload with its id, decoded for the page, checked against
 * its id when read back from the digest cache, and kept once per id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "history_context.h"
#include "report.h"
#include "report_view.h"

#define FIXTURE "tests/fixtures/reports/session-ab.json"

static json_t *context_of(const char *workload, char id[HISTORY_CONTEXT_ID_LEN + 1],
			  json_t **report)
{
	struct strbuf err = STRBUF_INIT;
	struct report_view v;
	json_t *ctx;

	if (report_load(FIXTURE, report, &err) || report_view_decode_context(*report, &v, &err))
		fail_msg("%s", sb_str(&err));
	ctx = history_context_encode(&v, report_view_workload(&v, workload), id);
	report_view_release(&v);
	sb_release(&err);
	return ctx;
}

static void test_encode_decode(void **state)
{
	char id[HISTORY_CONTEXT_ID_LEN + 1];
	json_t *report, *ctx = context_of("yp_shared", id, &report);
	struct history_context c;
	(void)state;

	assert_int_equal(strlen(id), HISTORY_CONTEXT_ID_LEN);
	assert_int_equal(strspn(id, "0123456789abcdef"), HISTORY_CONTEXT_ID_LEN);
	history_context_decode(ctx, &c);
	assert_string_equal(c.hostname, "ci-runner-3");
	assert_string_equal(c.accel, "tcg");
	assert_string_equal(c.guest, "tiny");
	assert_string_equal(c.type, "yield_pingpong");
	assert_string_equal(json_string_value(json_object_get(c.params, "mm")), "shared");
	/* only what makes nights comparable: not the host's kernel or libvirt */
	assert_null(json_object_get(json_object_get(ctx, "host"), "kernel"));
	json_decref(ctx);
	/* nothing to decode: no string, no parameters */
	history_context_decode(NULL, &c);
	assert_null(c.hostname);
	assert_null(c.type);
	assert_null(c.params);
	json_decref(report);
}

/* The id is the context's hash: another workload's differs, an edited context is not valid. */
static void test_valid(void **state)
{
	char id[HISTORY_CONTEXT_ID_LEN + 1], other[HISTORY_CONTEXT_ID_LEN + 1];
	json_t *r1, *r2, *ctx = context_of("yp_shared", id, &r1);
	json_t *ctx2 = context_of("yp_private", other, &r2);
	(void)state;

	assert_string_not_equal(id, other);
	assert_true(history_context_valid(id, ctx));
	assert_false(history_context_valid(other, ctx));
	assert_false(history_context_valid("abc", ctx));
	assert_false(history_context_valid(id, ctx2));
	json_decref(r2);
	r2 = json_integer(1);
	assert_false(history_context_valid(id, r2));	/* not an object */
	/* 24576 and 24576.0 are not the same bytes: another id */
	json_object_set_new(json_object_get(ctx, "host"), "memory_mib", json_real(24576));
	assert_false(history_context_valid(id, ctx));
	json_decref(ctx);
	json_decref(ctx2);
	json_decref(r1);
	json_decref(r2);
}

/* The first context of an id stays. */
static void test_add_find(void **state)
{
	json_t *contexts = json_object(), *a = json_pack("{s:i}", "a", 1),
	       *b = json_pack("{s:i}", "b", 2);
	(void)state;

	assert_null(history_context_find(contexts, "0123456789ab"));
	history_context_add(contexts, "0123456789ab", a);
	history_context_add(contexts, "0123456789ab", b);
	assert_ptr_equal(history_context_find(contexts, "0123456789ab"), a);
	json_decref(a);
	json_decref(b);
	json_decref(contexts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_decode),
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_add_find),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
