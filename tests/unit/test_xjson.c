// SPDX-License-Identifier: GPL-2.0
/* xjson_pack(): what json_pack() would drop quietly stops the program instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xjson.h"

static void test_pack_ok(void **state)
{
	json_t *j = xjson_pack("{s:i, s:[s, s?]}", "n", 3, "v", "a", NULL);
	(void)state;

	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "n")), 3);
	assert_int_equal(json_array_size(json_object_get(j, "v")), 2);
	assert_true(json_is_null(json_array_get(json_object_get(j, "v"), 1)));
	json_decref(j);
}

/* A NULL for "s" makes json_pack() return NULL; xjson_pack() dies naming the format. */
static void test_pack_bad_dies(void **state)
{
	int pipefd[2], status;
	char msg[512] = "";
	pid_t pid;
	(void)state;

	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(pipefd[1], 2);
		xjson_pack("{s:s}", "metric", (const char *)NULL);
		_exit(0);	/* not reached when it works */
	}
	close(pipefd[1]);
	/* stderr is unbuffered: the message comes in several writes */
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(msg) - 1 && (n = read(pipefd[0], msg + len, sizeof(msg) - 1 - len)) > 0)
		len += (size_t)n;
	msg[len] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_not_equal(WEXITSTATUS(status), 0);
	assert_non_null(strstr(msg, "json_pack(\"{s:s}\")"));
}

/* The decoders' JSON path: pushes nest, a pop puts back exactly the old path. */
static void test_path(void **state)
{
	struct strbuf p = STRBUF_INIT;
	size_t a, b, c;
	(void)state;

	xjson_path_pop(&p, 0);	/* nothing pushed yet: no buffer to touch */
	a = xjson_path_key(&p, "runs");
	b = xjson_path_index(&p, 3);
	c = xjson_path_key(&p, "metrics");
	xjson_path_key(&p, "ops");
	assert_string_equal(sb_str(&p), "runs[3].metrics.ops");
	xjson_path_pop(&p, c);
	assert_string_equal(sb_str(&p), "runs[3]");
	xjson_path_pop(&p, b);
	assert_string_equal(sb_str(&p), "runs");
	xjson_path_pop(&p, a);
	assert_string_equal(sb_str(&p), "");
	assert_int_equal(xjson_path_index(&p, 0), 0);
	assert_string_equal(sb_str(&p), "[0]");
	sb_release(&p);
}

/* A decoder's first error is written with its path; later ones only count. */
static void test_fail_first_only(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct xjson_err d = { .err = &err };
	json_t *n = json_integer(3);

	(void)state;
	xjson_fail(&d, "a string", n, "%s.%s", "workloads", "name");
	xjson_fail(&d, "an array", NULL, "looks");
	assert_int_equal(d.failed, 2);
	assert_string_equal(sb_str(&err), "workloads.name: expected a string, got an integer");
	sb_reset(&err);
	d.failed = 0;
	xjson_fail(&d, "an array", NULL, "looks");
	assert_string_equal(sb_str(&err), "looks: expected an array, got nothing");
	json_decref(n);
	sb_release(&err);
}

/*
 * What the report's and the run record's decoders accept for each
 * expectation, and the words of their errors: one table for both.
 */
static void test_want(void **state)
{
	json_t *s = json_string("x"), *n = json_null(), *i = json_integer(5);
	json_t *r5 = json_real(5.0), *r = json_real(5.5), *big = json_real(1e16);
	json_t *b = json_true(), *o = json_object(), *a = json_array();
	(void)state;

	assert_true(xjson_is(s, XJ_STRING) && !xjson_is(n, XJ_STRING));
	assert_true(xjson_is(s, XJ_STRING_OR_NULL) && xjson_is(n, XJ_STRING_OR_NULL));
	assert_false(xjson_is(i, XJ_STRING_OR_NULL));
	/* 5.0 is an integer as other writers write it; 5.5 and 1e16 are not */
	assert_true(xjson_is(i, XJ_INT) && xjson_is(r5, XJ_INT));
	assert_false(xjson_is(r, XJ_INT) || xjson_is(big, XJ_INT) || xjson_is(s, XJ_INT));
	assert_true(xjson_is(r, XJ_NUMBER) && xjson_is(i, XJ_NUMBER) && !xjson_is(n, XJ_NUMBER));
	assert_true(xjson_is(n, XJ_NUMBER_OR_NULL) && xjson_is(r, XJ_NUMBER_OR_NULL));
	assert_false(xjson_is(s, XJ_NUMBER_OR_NULL));
	assert_true(xjson_is(b, XJ_BOOL) && !xjson_is(i, XJ_BOOL));
	assert_true(xjson_is(o, XJ_OBJECT) && !xjson_is(a, XJ_OBJECT));
	assert_true(xjson_is(a, XJ_ARRAY) && !xjson_is(o, XJ_ARRAY));
	assert_string_equal(xjson_want_name(XJ_STRING_OR_NULL), "a string or null");
	assert_string_equal(xjson_want_name(XJ_INT), "an integer");
	assert_string_equal(xjson_want_name(XJ_NUMBER), "a number");
	assert_string_equal(xjson_want_name(XJ_BOOL), "true or false");
	assert_string_equal(xjson_want_name(XJ_ARRAY), "an array");
	json_decref(s), json_decref(n), json_decref(i), json_decref(r5);
	json_decref(r), json_decref(big), json_decref(b), json_decref(o), json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_ok),
		cmocka_unit_test(test_pack_bad_dies),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_fail_first_only),
		cmocka_unit_test(test_want),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
