// SPDX-License-Identifier: GPL-2.0
/*
 * kbuild_mtime.c on a real git tree: after switching the shared work tree
 * between kernels, a file is stamped "now" exactly when its content differs
 * from what the build folder last compiled, and pushed back to an ancient
 * stamp when only the switch rewrote it. A mistake either way costs a full
 * kernel rebuild or, worse, a stale object in a measured kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "kbuild_mtime.h"
#include "ksource.h"
#include "run_command.h"
#include "util.h"

#define ANCIENT 946684800	/* what kbuild_mtime.c stamps: 2000-01-01 */

/* The lab's defaults: git runs in the sandbox, as its build user when we are root. */
static const struct sandbox_policy sp;

struct repo {
	char dir[64];
	char base[41], s1[41], s2[41];	/* mglrulab-base, series 1 (a.c), series 2 (b.c) */
};

static void git(const char *dir, const char *const *args, struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(ksource_git(&sp, dir, args, out ? out : &sb), 0);
	sb_trim_trailing_newlines(out ? out : &sb);
	sb_release(&sb);
}

static void put(const struct repo *r, const char *name, const char *text)
{
	char *p = path_join(r->dir, name);

	assert_int_equal(write_file_atomic(p, text, strlen(text)), 0);
	free(p);
}

static void commit(const struct repo *r, char out[41])
{
	struct strbuf sb = STRBUF_INIT;

	git(r->dir, (const char *[]){ "add", "-A", NULL }, NULL);
	git(r->dir, (const char *[]){ "commit", "-q", "-m", "x", NULL }, NULL);
	git(r->dir, (const char *[]){ "rev-parse", "HEAD", NULL }, &sb);
	assert_int_equal(sb.len, 40);
	memcpy(out, sb.buf, 41);
	sb_release(&sb);
}

static void checkout(const struct repo *r, const char *rev)
{
	git(r->dir, (const char *[]){ "checkout", "-q", "-f", "--detach", rev, NULL }, NULL);
}

static time_t mtime(const struct repo *r, const char *name)
{
	char *p = path_join(r->dir, name);
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	free(p);
	return st.st_mtime;
}

static void set_mtime(const struct repo *r, const char *name, time_t t)
{
	char *p = path_join(r->dir, name);
	struct timespec ts[2] = { { t, 0 }, { t, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
	free(p);
}

/* base: a.c b.c c.c; s1 = base + a.c changed; s2 = base + b.c changed. */
static int setup(void **state)
{
	struct repo *r = xcalloc(1, sizeof(*r));

	strcpy(r->dir, "/tmp/mglrulab-mtime-XXXXXX");
	assert_non_null(mkdtemp(r->dir));
	struct strbuf err = STRBUF_INIT;
	/* the sandbox's user owns it, as the lab's work trees */
	if (sandbox_adopt(&sp, r->dir, &err) < 0)
		fail_msg("%s", sb_str(&err));
	sb_release(&err);
	git(r->dir, (const char *[]){ "init", "-q", NULL }, NULL);
	put(r, "a.c", "a\n");
	put(r, "b.c", "b\n");
	put(r, "c.c", "c\n");
	commit(r, r->base);
	git(r->dir, (const char *[]){ "tag", "-f", "mglrulab-base", "HEAD", NULL }, NULL);
	put(r, "a.c", "a patched\n");
	commit(r, r->s1);
	checkout(r, "mglrulab-base");
	put(r, "b.c", "b patched\n");
	commit(r, r->s2);
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	struct repo *r = *state;

	rm_rf(r->dir);
	free(r);
	return 0;
}

static void stamp_all_old(const struct repo *r, time_t t)
{
	set_mtime(r, "a.c", t);
	set_mtime(r, "b.c", t);
	set_mtime(r, "c.c", t);
}

/*
 * The folder last built series 2; the tree went to series 1 for another
 * kernel and now back to series 2: a.c and b.c were rewritten, but both
 * hold what this folder compiled. Nothing may rebuild.
 */
static void test_switch_back_rebuilds_nothing(void **state)
{
	struct repo *r = *state;
	time_t old = time(NULL) - 3600;

	checkout(r, r->s1);
	checkout(r, r->s2);
	stamp_all_old(r, old);
	set_mtime(r, "a.c", time(NULL));	/* as the switch left them: "now" */
	set_mtime(r, "b.c", time(NULL));
	struct strvec renewed = STRVEC_INIT;
	assert_int_equal(kbuild_settle_mtimes(&sp, r->dir, r->s1, r->s2, r->s2, 0, &renewed), 2);
	assert_int_equal(renewed.n, 0);	/* nothing to compile again */
	assert_int_equal(mtime(r, "a.c"), ANCIENT);
	assert_int_equal(mtime(r, "b.c"), ANCIENT);
	assert_int_equal(mtime(r, "c.c"), old);	/* never touched by a series: kept */
}

/* The folder last built series 1, the tree is at series 2: both files changed for it. */
static void test_changed_content_is_new(void **state)
{
	struct repo *r = *state;
	time_t old = time(NULL) - 3600, t0 = time(NULL);

	struct strvec renewed = STRVEC_INIT;

	checkout(r, r->s2);
	stamp_all_old(r, old);
	assert_int_equal(kbuild_settle_mtimes(&sp, r->dir, r->s1, r->s2, r->s1, 0, &renewed), 2);
	/* what make compiles again, for the build's estimate */
	assert_int_equal(renewed.n, 2);
	assert_string_equal(renewed.v[0], "a.c");
	assert_string_equal(renewed.v[1], "b.c");
	strvec_clear(&renewed);
	assert_true(mtime(r, "a.c") >= t0);
	assert_true(mtime(r, "b.c") >= t0);
	assert_int_equal(mtime(r, "c.c"), old);
}

/*
 * A series that failed half way (git am, then a reset to the base) leaves
 * c.c rewritten with a new stamp and no commit that says so: anything
 * stamped after the folder's last build counts as rewritten, and c.c's
 * content is what the folder compiled, so it goes back to ancient.
 */
static void test_stamped_since_last_build(void **state)
{
	struct repo *r = *state;
	time_t built = time(NULL) - 600;

	checkout(r, r->s2);
	stamp_all_old(r, built - 3600);
	set_mtime(r, "c.c", built + 60);
	assert_int_equal(kbuild_settle_mtimes(&sp, r->dir, NULL, r->s2, r->s2, built, NULL), 2);
	assert_int_equal(mtime(r, "c.c"), ANCIENT);
	assert_int_equal(mtime(r, "b.c"), ANCIENT);	/* series 2's own file: same content */
	assert_int_equal(mtime(r, "a.c"), built - 3600);
	/* git's own files are not the kernel's: left alone */
	char *head = path_join(r->dir, ".git/HEAD");
	struct stat st;
	assert_int_equal(stat(head, &st), 0);
	assert_true(st.st_mtime != ANCIENT);
	free(head);
}

/* Without a known last build, nothing is changed: make rebuilds more, never less. */
static void test_unknown_last_build(void **state)
{
	struct repo *r = *state;
	time_t now = time(NULL);

	checkout(r, r->s2);
	stamp_all_old(r, now);
	assert_int_equal(kbuild_settle_mtimes(&sp, r->dir, r->s1, r->s2, NULL, 0, NULL), -1);
	assert_int_equal(kbuild_settle_mtimes(&sp, r->dir, r->s1, r->s2,
					      "0123456789012345678901234567890123456789", 0, NULL), -1);
	assert_int_equal(mtime(r, "a.c"), now);
	assert_int_equal(mtime(r, "b.c"), now);
}

static void test_state_file(void **state)
{
	struct repo *r = *state;
	char *build = path_join(r->dir, "build"), *got, *p;
	(void)state;

	assert_int_equal(mkdir_p(build, 0755), 0);
	assert_null(kbuild_state_read(build));
	assert_int_equal(kbuild_state_write(build, r->s1), 0);
	got = kbuild_state_read(build);
	assert_string_equal(got, r->s1);
	free(got);
	p = path_join(build, ".mglrulab-state");
	assert_int_equal(write_file_atomic(p, "\n", 1), 0);
	assert_null(kbuild_state_read(build));	/* empty: unknown */
	free(p);
	free(build);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switch_back_rebuilds_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_content_is_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stamped_since_last_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_last_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
