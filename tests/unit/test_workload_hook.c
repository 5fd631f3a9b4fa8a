// SPDX-License-Identifier: GPL-2.0
/* kernel_build's prepare_run hook: the chroot, shares and parameters a session gives it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "workload_def.h"

static int prepared_calls, prepare_status;
static char prepared_for[64];

static int fake_prepare(const struct workload_run_env *env, const char *workload, char **dir)
{
	prepared_calls++;
	assert_ptr_equal(env->data, &prepared_calls);
	snprintf(prepared_for, sizeof(prepared_for), "%s", workload);
	if (prepare_status)
		return prepare_status;
	*dir = xstrdup("/cache/prepared/k1");
	return LAB_OK;
}

static const struct workload_run_env env = {
	.kernel_tree = "/cache/trees/tar-1", .kernel_entry = "/cache/entries/e1",
	.prepare_build_dir = fake_prepare, .data = &prepared_calls,
};

/* A [workload NAME] section of type kernel_build with @kv ("key", "value", ..., NULL) set. */
static void section(struct workload_cfg *w, const char *const *kv)
{
	memset(w, 0, sizeof(*w));
	w->name = "kb";
	w->def = workload_find("kernel_build");
	assert_non_null(w->def);
	for (; kv && *kv; kv += 2) {
		strvec_push(&w->keys, kv[0]);
		strvec_push(&w->values, kv[1]);
	}
}

static void release(struct workload_cfg *w, struct workload_run_setup *s)
{
	strvec_clear(&w->keys);
	strvec_clear(&w->values);
	strvec_clear(&s->set);
	strvec_clear(&s->shares);
}

static int run_hook(struct workload_cfg *w, struct workload_run_setup *s, const struct workload_run_env *e)
{
	memset(s, 0, sizeof(*s));
	prepared_calls = 0;
	struct workload_section sec = { w->name, &w->keys, &w->values };

	return w->def->prepare_run(w->def, &sec, e, s);
}

static void assert_vec(const struct strvec *v, const char *const *want)
{
	size_t n = 0;

	for (; want[n]; n++) {
		assert_true(n < v->n);
		assert_string_equal(v->v[n], want[n]);
	}
	assert_int_equal(v->n, n);
}

static void test_only_kernel_build_has_a_hook(void **state)
{
	(void)state;
	for (const struct workload_def *d = workload_defs; d->name; d++)
		if (strcmp(d->name, "kernel_build"))
			assert_null(d->prepare_run);
		else
			assert_non_null(d->prepare_run);
}

static void test_default_chroot(void **state)
{
	struct workload_cfg w;
	struct workload_run_setup s;
	(void)state;

	section(&w, NULL);
	assert_int_equal(run_hook(&w, &s, &env), LAB_OK);
	assert_int_equal(prepared_calls, 0);
	assert_vec(&s.set, (const char *const[]){
		"chroot", "usrbin:/usr/bin,usrlib:/usr/lib,usrlib64:/usr/lib64,usrlibexec:/usr/libexec,"
		"usrinclude:/usr/include,usrshare:/usr/share,hostalt:/etc/alternatives,ksrc:/cache/trees/tar-1",
		"src", "/cache/trees/tar-1", NULL });
	assert_vec(&s.shares, (const char *const[]){ "usrbin", "/usr/bin", "usrlib", "/usr/lib", "usrlib64", "/usr/lib64",
		"usrlibexec", "/usr/libexec", "usrinclude", "/usr/include", "usrshare", "/usr/share",
		"hostalt", "/etc/alternatives",
		"ksrc", "/cache/trees/tar-1", NULL });
	release(&w, &s);
}

static void test_prepared_host(void **state)
{
	struct workload_cfg w;
	struct workload_run_setup s;
	(void)state;

	section(&w, (const char *const[]){ "prepared", "host", "src", "/mnt/mysrc", NULL });
	prepare_status = LAB_OK;
	assert_int_equal(run_hook(&w, &s, &env), LAB_OK);
	assert_int_equal(prepared_calls, 1);
	assert_string_equal(prepared_for, "kb");
	/* src is lab.conf's: not replaced */
	assert_vec(&s.set, (const char *const[]){
		"chroot", "usrbin:/usr/bin,usrlib:/usr/lib,usrlib64:/usr/lib64,usrlibexec:/usr/libexec,"
		"usrinclude:/usr/include,usrshare:/usr/share,hostalt:/etc/alternatives,ksrc:/cache/trees/tar-1,"
		"kprep:/prep",
		"prepared", "/prep", NULL });
	assert_vec(&s.shares, (const char *const[]){ "usrbin", "/usr/bin", "usrlib", "/usr/lib", "usrlib64", "/usr/lib64",
		"usrlibexec", "/usr/libexec", "usrinclude", "/usr/include", "usrshare", "/usr/share",
		"hostalt", "/etc/alternatives",
		"ksrc", "/cache/trees/tar-1", "kprep", "/cache/prepared/k1", NULL });
	release(&w, &s);

	/* a guest path in prepared: nothing made on the host */
	section(&w, (const char *const[]){ "prepared", "/guest/dir", NULL });
	assert_int_equal(run_hook(&w, &s, &env), LAB_OK);
	assert_int_equal(prepared_calls, 0);
	assert_int_equal(s.set.n, 4);
	release(&w, &s);
}

/* A folder prepare_build_dir() made, for check_share. */
static int fake_is_build_dir(const struct workload_run_env *e, const char *dir)
{
	(void)e;
	return !strcmp(dir, "/cache/prepared/k1");
}

/*
 * What a resumed session may export (session_resume.c asks check_share):
 * every share the hook makes, and nothing else: not /usr whole, not
 * /usr/local, not a folder under another tag.
 */
static void test_check_share(void **state)
{
	struct workload_run_env e = env;
	const struct workload_def *kb = workload_find("kernel_build");
	struct workload_cfg w;
	struct workload_run_setup s;
	static const char *const refused[] = {
		"hostusr", "/usr", "usrlocal", "/usr/local", "usrbin", "/usr/local/bin",
		"usrbin", "/usr/bin/", "usrsbin", "/usr/sbin", "usrlib", "/usr/lib/../..",
		"hostalt", "/etc", "ksrc", "/cache/trees/tar-2", "kprep", "/cache/prepared/k2",
		"kprep", "/etc", "hostetc", "/etc", "", "/usr/bin", NULL,
	};
	(void)state;

	e.is_build_dir = fake_is_build_dir;
	prepare_status = LAB_OK;
	section(&w, (const char *const[]){ "prepared", "host", NULL });
	assert_int_equal(run_hook(&w, &s, &e), LAB_OK);
	assert_true(s.shares.n >= 8);
	for (size_t i = 0; i + 1 < s.shares.n; i += 2)
		if (!kb->check_share(s.shares.v[i], s.shares.v[i + 1], &e))
			fail_msg("the hook's own share %s:%s is refused", s.shares.v[i], s.shares.v[i + 1]);
	release(&w, &s);
	for (size_t i = 0; refused[i]; i += 2)
		if (kb->check_share(refused[i], refused[i + 1], &e))
			fail_msg("share %s:%s is accepted", refused[i], refused[i + 1]);
	/* without a tree or a prepared folder to compare with, neither is accepted */
	e.kernel_tree = NULL;
	e.is_build_dir = NULL;
	assert_false(kb->check_share("ksrc", "/cache/trees/tar-1", &e));
	assert_false(kb->check_share("kprep", "/cache/prepared/k1", &e));
	/* only kernel_build shares anything */
	for (const struct workload_def *d = workload_defs; d->name; d++)
		assert_true(!d->check_share == !d->prepare_run);
}

static void test_own_chroot(void **state)
{
	struct workload_cfg w;
	struct workload_run_setup s;
	struct workload_run_env no_tree = env;
	(void)state;

	no_tree.kernel_tree = NULL;
	/* lab.conf's chroot, even empty, is the user's: no tree needed, nothing set */
	section(&w, (const char *const[]){ "chroot", "", "prepared", "host", NULL });
	assert_int_equal(run_hook(&w, &s, &no_tree), LAB_OK);
	assert_int_equal(prepared_calls, 0);
	assert_int_equal(s.set.n, 0);
	assert_int_equal(s.shares.n, 0);
	release(&w, &s);
}

static void test_failures(void **state)
{
	struct workload_cfg w;
	struct workload_run_setup s;
	struct workload_run_env no_tree = env;
	(void)state;

	no_tree.kernel_tree = NULL;
	section(&w, NULL);
	assert_int_equal(run_hook(&w, &s, &no_tree), LAB_ELAB);
	assert_int_equal(s.set.n, 0);
	release(&w, &s);

	section(&w, (const char *const[]){ "prepared", "host", NULL });
	prepare_status = LAB_EUSER;
	assert_int_equal(run_hook(&w, &s, &env), LAB_EUSER);
	assert_int_equal(prepared_calls, 1);
	assert_int_equal(s.set.n, 0);
	assert_int_equal(s.shares.n, 0);
	prepare_status = LAB_OK;
	release(&w, &s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_only_kernel_build_has_a_hook),
		cmocka_unit_test(test_default_chroot),
		cmocka_unit_test(test_prepared_host),
		cmocka_unit_test(test_check_share),
		cmocka_unit_test(test_own_chroot),
		cmocka_unit_test(test_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
