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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pack_ok),
		cmocka_unit_test(test_pack_bad_dies),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_fail_first_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
