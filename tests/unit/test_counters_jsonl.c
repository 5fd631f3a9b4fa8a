// SPDX-License-Identifier: GPL-2.0
/*
 * The guest side of the contract: workloads/lib/jsonl.c must write lines
 * that jansson accepts whatever bytes the kernel text holds (control
 * bytes, invalid UTF-8, quotes), and must round-trip valid UTF-8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The guest library is not part of mglrulab: the Makefile links jsonl.o in. */
#include "../../workloads/lib/jsonl.h"

/* Run @fn with stdout captured; returns the captured text (caller frees). */
static char *capture(void (*fn)(const void *), const void *arg)
{
	FILE *tmp = tmpfile();
	int saved = dup(1);
	long n;
	char *buf;

	assert_non_null(tmp);
	fflush(stdout);
	dup2(fileno(tmp), 1);
	fn(arg);
	dup2(saved, 1);
	close(saved);
	n = ftell(tmp) > 0 ? ftell(tmp) : lseek(fileno(tmp), 0, SEEK_END);
	buf = calloc(1, (size_t)n + 1);
	lseek(fileno(tmp), 0, SEEK_SET);
	assert_int_equal(read(fileno(tmp), buf, (size_t)n), n);
	fclose(tmp);
	return buf;
}

struct bytes {
	const char *p;
	size_t n;
};

static void emit_snapshot(const void *arg)
{
	const struct bytes *b = arg;
	struct jl j;

	jl_begin(&j, "snapshot");
	jl_str(&j, "phase", "after");
	jl_strn(&j, "text", b->p, b->n);
	jl_dbl(&j, "nan", NAN);
	jl_end(&j);
}

static void test_all_bytes_valid_json(void **state)
{
	char all[256 + 16];
	struct bytes b = { all, sizeof(all) };
	json_error_t err;
	json_t *o;
	char *out;

	(void)state;
	for (int i = 0; i < 256; i++)
		all[i] = (char)i;
	/* Overlong, surrogate and cut sequences. */
	memcpy(all + 256, "\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82", 11);
	memcpy(all + 267, "\"\\ok\n", 5);
	out = capture(emit_snapshot, &b);
	assert_int_equal(out[strlen(out) - 1], '\n');
	assert_null(memchr(out, '\n', strlen(out) - 1));	/* exactly one line */
	o = json_loads(out, 0, &err);
	assert_non_null(o);
	assert_true(json_is_null(json_object_get(o, "nan")));
	assert_true(json_string_length(json_object_get(o, "text")) > 256);
	json_decref(o);
	free(out);
}

static void test_utf8_round_trip(void **state)
{
	const char *s = "memcg /caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x90\xa7 tab\tquote\"";
	struct bytes b = { s, strlen(s) };
	json_t *o;
	char *out;

	(void)state;
	out = capture(emit_snapshot, &b);
	o = json_loads(out, 0, NULL);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "text")), s);
	json_decref(o);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_bytes_valid_json),
		cmocka_unit_test(test_utf8_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
