// SPDX-License-Identifier: GPL-2.0
/*
 * Picking kbuild's per-directory environment out of the make recorder's
 * records: the right sub-make only, and none of the recorder's traces.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kbuild_prep.h"
#include "strbuf.h"

/* Build a record from NULL-terminated string lists. */
static void record(struct strbuf *sb, const char *const *args, const char *const *env)
{
	sb_reset(sb);
	for (; *args; args++)
		sb_add(sb, *args, strlen(*args) + 1);
	sb_add(sb, "--env--", 8);
	for (; *env; env++)
		sb_add(sb, *env, strlen(*env) + 1);
}

/* Is "KEY=VALUE" among the NUL-separated strings of @sb? */
static int has(const struct strbuf *sb, const char *kv)
{
	for (size_t i = 0; i < sb->len; i += strlen(sb->buf + i) + 1)
		if (!strcmp(sb->buf + i, kv))
			return 1;
	return 0;
}

static const char *const env[] = {
	"KBUILD_CFLAGS=-std=gnu11 -O2", "MAKE=/x/mglrulab __make-recorder",
	/* make escapes the space of a value in MAKEFLAGS. */
	"MAKEFLAGS=rR --no-print-directory -- obj=. O=/c/p MAKE=/x/mglrulab\\ __make-recorder need-builtin=1",
	"MGLRULAB_MAKE_RECORD=/c/p/.rec", "srctree=/t", NULL,
};

static void test_picks_the_lib_submake(void **state)
{
	struct strbuf rec = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;

	record(&rec, (const char *const[]){ "/c/p", "-f", "/t/scripts/Makefile.build", "obj=lib",
					    "need-builtin=1", "lib/ctype.o", NULL }, env);
	assert_int_equal(kbuild_make_env_pick(rec.buf, rec.len, &out), 0);
	assert_true(has(&out, "KBUILD_CFLAGS=-std=gnu11 -O2"));
	assert_true(has(&out, "srctree=/t"));
	/* The recorder leaves no trace: the guest's make must be plain make. */
	assert_true(has(&out, "MAKEFLAGS=rR --no-print-directory -- obj=. O=/c/p need-builtin=1"));
	assert_null(memmem(out.buf, out.len, "MAKE=/x", 7));
	assert_null(memmem(out.buf, out.len, "MGLRULAB_MAKE_RECORD", 20));
	sb_release(&rec);
	sb_release(&out);
}

static void test_other_submakes_are_not_picked(void **state)
{
	struct strbuf rec = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;

	/* The top level re-invoked in the build folder. */
	record(&rec, (const char *const[]){ "/c/p", "-f", "/t/Makefile", "lib/ctype.o", NULL }, env);
	assert_int_equal(kbuild_make_env_pick(rec.buf, rec.len, &out), -1);
	/* Another directory's sub-make. */
	record(&rec, (const char *const[]){ "/c/p", "-f", "/t/scripts/Makefile.build", "obj=scripts",
					    NULL }, env);
	assert_int_equal(kbuild_make_env_pick(rec.buf, rec.len, &out), -1);
	/* Truncated: no terminating NUL, or no environment. */
	record(&rec, (const char *const[]){ "/c/p", "-f", "/t/scripts/Makefile.build", "obj=lib",
					    "lib/ctype.o", NULL }, env);
	assert_int_equal(kbuild_make_env_pick(rec.buf, rec.len - 1, &out), -1);
	assert_int_equal(kbuild_make_env_pick(rec.buf, 20, &out), -1);
	assert_int_equal(out.len, 0);
	sb_release(&rec);
	sb_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_picks_the_lib_submake),
		cmocka_unit_test(test_other_submakes_are_not_picked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
