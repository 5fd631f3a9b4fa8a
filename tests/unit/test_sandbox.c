// SPDX-License-Identifier: GPL-2.0
/*
 * sandbox_run() (sandbox.h), the wall between a series' build and the lab
 * host, tried as the series would: who it runs as, what it sees and may
 * write, its network, its environment, its time. And kbuild_public_error()
 * (kbuild.h), the second wall: what of a failed build's log may be said in
 * public. Each assertion fails on a command run as run_command() alone.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "kbuild.h"
#include "run_command.h"
#include "sandbox.h"
#include "util.h"

static const struct sandbox_policy defaults;

struct box {
	char dir[64];
	char *rw, *ro, *secret;
};

static int setup(void **state)
{
	struct box *b = xcalloc(1, sizeof(*b));
	struct strbuf err = STRBUF_INIT;

	strcpy(b->dir, "/tmp/mglrulab-sandbox.XXXXXX");
	/* 0700, the lab's own: the binds are handed over, not reached */
	assert_non_null(mkdtemp(b->dir));
	b->rw = path_join(b->dir, "rw");
	b->ro = path_join(b->dir, "ro");
	b->secret = path_join(b->dir, "secret");
	assert_int_equal(mkdir(b->rw, 0755), 0);
	assert_int_equal(mkdir(b->ro, 0755), 0);
	assert_int_equal(write_file_atomic(b->secret, "hush\n", 5), 0);
	assert_int_equal(chmod(b->secret, 0600), 0);
	if (sandbox_adopt(&defaults, b->rw, &err) < 0)
		fail_msg("%s", sb_str(&err));
	sb_release(&err);
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	struct box *b = *state;

	rm_rf(b->dir);
	free(b->rw);
	free(b->ro);
	free(b->secret);
	free(b);
	return 0;
}

/* sh -c @script in the box (rw writable, ro read-only); its status, output in @out. */
static int run_in(struct box *b, const struct sandbox_policy *p, const char *script,
		  const char *const *env, struct strbuf *out, struct sandbox_cmd *sc_out)
{
	const char *argv[] = { "sh", "-c", script, NULL };
	const struct sandbox_bind binds[] = {
		{ .path = b->rw, .writable = 1 }, { .path = b->ro, .writable = 0 },
	};
	struct sandbox_cmd sc = { .policy = p, .binds = binds, .nr_binds = ARRAY_SIZE(binds) };
	struct child c = { .argv = argv, .dir = b->rw, .env = env, .out = out,
			   .merge_stderr = 1 };
	struct strbuf err = STRBUF_INIT;
	int r = sandbox_run(&sc, &c, &err);

	if (r < 0)
		fail_msg("sandbox_run: %s", sb_str(&err));
	sb_release(&err);
	if (sc_out)
		*sc_out = sc;
	return r;
}

/* Never root: as the build user when we are root, else as ourselves. */
static void test_runs_unprivileged(void **state)
{
	struct strbuf out = STRBUF_INIT;

	assert_int_equal(run_in(*state, &defaults, "id -u; id -G", NULL, &out, NULL), 0);
	sb_trim_trailing_newlines(&out);
	assert_false(strstr(sb_str(&out), "\n0") || !strncmp(sb_str(&out), "0\n", 2));
	if (geteuid() == 0) {
		struct strbuf want = STRBUF_INIT;

		assert_int_equal(run_capture((const char *const[]){ "id", "-u", SANDBOX_DEFAULT_USER,
								     NULL }, NULL, &want), 0);
		assert_true(!strncmp(sb_str(&out), sb_str(&want), want.len));
		sb_release(&want);
	}
	sb_release(&out);
}

/* The host's files: only /usr and the binds; the lab's own secrets out of sight. */
static void test_sees_only_its_binds(void **state)
{
	struct box *b = *state;
	struct strbuf out = STRBUF_INIT;
	char *script = xasprintf("for f in /root /home /etc/shadow /etc/passwd %s /var; do "
				 "test -e $f && echo seen:$f; done; cat %s 2>/dev/null; "
				 "test -d /usr/bin && echo usr", b->secret, b->secret);

	assert_int_equal(run_in(b, &defaults, script, NULL, &out, NULL), 0);
	assert_string_equal(sb_str(&out), "usr\n");
	free(script);
	sb_release(&out);
}

/*
 * Writes: the rw bind, and nowhere else the host keeps (a write to the
 * folder above the binds lands in the sandbox's own throwaway root).
 */
static void test_writes_only_where_allowed(void **state)
{
	struct box *b = *state;
	struct strbuf out = STRBUF_INIT;
	char *script = xasprintf("echo x > %s/made && echo rw-ok; echo x > %s/made || echo ro-refused;"
				 " echo x > %s/escaped; true", b->rw, b->ro, b->dir);
	char *made = path_join(b->rw, "made"), *escaped = path_join(b->dir, "escaped");
	char *ro_made = path_join(b->ro, "made");

	assert_int_equal(run_in(b, &defaults, script, NULL, &out, NULL), 0);
	assert_non_null(strstr(sb_str(&out), "rw-ok"));
	assert_non_null(strstr(sb_str(&out), "ro-refused"));
	assert_true(path_exists(made));
	assert_false(path_exists(ro_made));
	assert_false(path_exists(escaped));
	free(script);
	free(made);
	free(escaped);
	free(ro_made);
	sb_release(&out);
}

/* No network but lo; no nested user namespace to widen the kernel's surface. */
static void test_no_network(void **state)
{
	struct strbuf out = STRBUF_INIT;

	assert_int_equal(run_in(*state, &defaults,
				"tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '; "
				"unshare -U true 2>/dev/null && echo nested; true", NULL, &out, NULL), 0);
	assert_string_equal(sb_str(&out), "lo\n");
	sb_release(&out);
}

/* The lab's environment stays outside; the caller's entries go in. */
static void test_clean_environment(void **state)
{
	struct strbuf out = STRBUF_INIT;
	const char *env[] = { "KBUILD_BUILD_USER=mglrulab", NULL };

	assert_int_equal(setenv("MGLRULAB_TEST_SECRET", "hush", 1), 0);
	assert_int_equal(run_in(*state, &defaults, "env | sort | cut -d= -f1 | tr '\\n' ' '", env,
				&out, NULL), 0);
	unsetenv("MGLRULAB_TEST_SECRET");
	assert_null(strstr(sb_str(&out), "MGLRULAB_TEST_SECRET"));
	assert_non_null(strstr(sb_str(&out), "KBUILD_BUILD_USER"));
	assert_non_null(strstr(sb_str(&out), "PATH"));
	sb_release(&out);
}

/* The wall limit: a command that never ends is stopped, and says so. */
static void test_wall_limit(void **state)
{
	const struct sandbox_policy quick = { .wall_s = 1 };
	struct strbuf out = STRBUF_INIT;
	struct sandbox_cmd sc;
	double t0 = now_monotonic();
	int r = run_in(*state, &quick, "sleep 60", NULL, &out, &sc);

	assert_int_not_equal(r, 0);
	assert_true(sc.timed_out);
	assert_true(now_monotonic() - t0 < 30);
	sb_release(&out);
	/* and one that ends in time is not */
	assert_int_equal(run_in(*state, &quick, "true", NULL, &out, &sc), 0);
	assert_false(sc.timed_out);
	sb_release(&out);
}

/* Memory: one process cannot take more than build_memory. */
static void test_memory_limit(void **state)
{
	const struct sandbox_policy small = { .memory_mib = 64 };
	struct strbuf out = STRBUF_INIT;

	/* awk grows a string to 128 MiB: refused at 64 */
	assert_int_not_equal(run_in(*state, &small,
				    "awk 'BEGIN { s = \"x\"; while (length(s) < 134217728) s = s s;"
				    " print \"grew\" }'", NULL, &out, NULL), 0);
	assert_null(strstr(sb_str(&out), "grew"));
	sb_release(&out);
}

/*
 * A bind below a folder the build user cannot enter (a cache under /root)
 * still works: the lab opens it and hands it over; its siblings stay out
 * of sight.
 */
static void test_bind_below_private_folder(void **state)
{
	struct box *b = *state;
	char *hidden = path_join(b->dir, "hidden"), *inner = path_join(hidden, "tree");
	char *sibling = path_join(hidden, "sibling");
	const struct sandbox_bind binds[] = { { .path = inner, .writable = 1 } };
	struct sandbox_cmd sc = { .policy = &defaults, .binds = binds, .nr_binds = 1 };
	char *script = xasprintf("echo in > %s/made && test ! -e %s && echo ok", inner, sibling);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .merge_stderr = 1 };

	assert_int_equal(mkdir(hidden, 0700), 0);
	assert_int_equal(mkdir(inner, 0755), 0);
	assert_int_equal(mkdir(sibling, 0755), 0);
	if (sandbox_adopt(&defaults, inner, &err) < 0)
		fail_msg("%s", sb_str(&err));
	assert_int_equal(sandbox_run(&sc, &c, &err), 0);
	assert_string_equal(sb_str(&out), "ok\n");
	sb_release(&out);
	sb_release(&err);
	free(script);
	free(sibling);
	free(inner);
	free(hidden);
}

/* A missing build user is named, with the fix. */
static void test_missing_user(void **state)
{
	const struct sandbox_policy nobody = { .user = "mglrulab-no-such-user" };
	struct box *b = *state;
	struct sandbox_cmd sc = { .policy = &nobody };
	const char *argv[] = { "true", NULL };
	struct child c = { .argv = argv };
	struct strbuf err = STRBUF_INIT;

	(void)b;
	if (geteuid() != 0)
		skip();
	assert_int_equal(sandbox_run(&sc, &c, &err), -1);
	assert_non_null(strstr(sb_str(&err), "'mglrulab-no-such-user' does not exist"));
	sb_release(&err);
}

/* What a failed build may say in public, from its log. */
static void public(const char *log_text, const char *what, const char *want)
{
	char dir[] = "/tmp/mglrulab-public.XXXXXX";
	struct strbuf out = STRBUF_INIT;

	assert_non_null(mkdtemp(dir));
	char *log = path_join(dir, "build.log");
	assert_int_equal(write_file_atomic(log, log_text, strlen(log_text)), 0);
	kbuild_public_error(log, "/cache/trees/t", "/cache/build/t-k", what, &out);
	assert_string_equal(sb_str(&out), want);
	rm_rf(dir);
	free(log);
	sb_release(&out);
}

static void test_public_error(void **state)
{
	(void)state;
	/* the first error inside the tree, relative; make's lines are no news */
	public("make: Entering directory '/cache/trees/t'\n"
	       "/cache/trees/t/mm/vmscan.c:12:3: error: 'x' undeclared\n"
	       "mm/other.c:1:1: error: later\n",
	       "the kernel build failed",
	       "the kernel build failed: mm/vmscan.c:12:3: error: 'x' undeclared");
	/* an error in a file outside the tree (what #include "/etc/passwd" gives) */
	public("/etc/passwd:1:5: error: expected ';' before ':' token\n", "the kernel build failed",
	       "the kernel build failed");
	/* an error in the tree that names a host path */
	public("toy.c:1:10: fatal error: /root/.ssh/id_rsa: No such file or directory\n",
	       "the kernel build failed", "the kernel build failed");
	/* ".." out of the tree */
	public("../../etc/x:3: error: nope\n", "w", "w");
	/* a Kconfig error, relative to the tree; the build folder's paths are the tree's too */
	public("mm/Kconfig:40: syntax error\n", "make olddefconfig failed",
	       "make olddefconfig failed: mm/Kconfig:40: syntax error");
	public("/cache/build/t-k/include/generated/x.h:2:1: error: bad\n", "w",
	       "w: include/generated/x.h:2:1: error: bad");
	/* no error at a file and line: only what failed */
	public("leaking: hush\nmake: *** [Makefile:7: bzImage] Error 1\n", "w", "w");
	/* control characters never pass */
	public("a.c:1:1: error: \033]0;pwned\007\n", "w", "w: a.c:1:1: error: ?]0;pwned?");
	/* no log at all */
	public("", "w", "w");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_runs_unprivileged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sees_only_its_binds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writes_only_where_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_network, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clean_environment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wall_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_below_private_folder, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_user, setup, teardown),
		cmocka_unit_test(test_public_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
