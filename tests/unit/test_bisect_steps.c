// SPDX-License-Identifier: GPL-2.0
/*
 * What a bisection decides when a step fails (bisect_main(), bisect.c):
 * a step's status is never read as an outcome. A user error inside a
 * step (a step session whose kernel is gone from the cache on --resume, a
 * prefix whose patches no longer apply) stops the bisection with exit
 * status 1, as `mglrulab run` would: not 0 as if the series' change was
 * "not confirmed", and not a prefix recorded as unbuildable. A prefix
 * that does not build is still skipped, as git bisect skip does.
 *
 * No kernel is built and no guest booted: the test links with
 * -Wl,--wrap=session_main,--wrap=kbuild_kernel (the Makefile), so each
 * step's session and each prefix's build is what the test says it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "bisect_doc.h"
#include "fsutil.h"
#include "kbuild.h"
#include "session.h"
#include "util.h"

static char dir[64];
static char *conf;

/* What the wrapped session_main() and kbuild_kernel() do, and how often they were called. */
static int session_status;
static int sessions;
static int build_status, build_failed;
static enum kbuild_failure build_failure;
static const char *build_fails;		/* the kernel whose build fails; NULL: every one */
static int builds;
/* --coherence of each step session (session_opts.coherence), in the order run */
static int coherence_of[8];
/*
 * Each session measures what its kernels' patches do (test_whole_bisection):
 * patch 2 of three is a regression, the others nothing.
 */
static int by_patches;

/* The patches of yield-three a kernel of the bisection has: base, three@K, three. */
static long patches_of(const char *kernel)
{
	const char *at = strchr(kernel, '@');

	return at ? atol(at + 1) : !strcmp(kernel, "three") ? 3 : 0;
}

/* The report of a session of @a against @b whose kernels differ by patch 2 or not. */
static json_t *report_of(const char *a, const char *b)
{
	int moved = patches_of(a) < 2 && patches_of(b) >= 2;
	double ratio = moved ? 0.6 : 1.005, lo = moved ? 0.55 : 0.99, hi = moved ? 0.65 : 1.02;

	return json_pack("{s:[{s:s, s:s, s:b, s:s, s:{s:f, s:f, s:{s:f, s:f}}}]}", "results",
			 "workload", "yield_pingpong", "metric", "cs_per_sec", "primary", 1,
			 "verdict", stats_verdict_id(moved ? VERDICT_REGRESSION : VERDICT_NO_CHANGE),
			 "comparison", "ratio", ratio, "delta_pct", 100 * (ratio - 1),
			 "ci", "lo", lo, "hi", hi);
}

int __wrap_session_main(struct session_opts *o);
int __wrap_session_main(struct session_opts *o)
{
	if (sessions < 8)
		coherence_of[sessions] = o->coherence;
	sessions++;
	if (session_status == LAB_EUSER)
		return user_error("run --resume: [kernel base] is no longer in the kernel cache");
	if (session_status == LAB_OK) {
		/* a session that measured no change: <reports_dir>/latest/report.json */
		char *d = xasprintf("%s/latest", o->reports_dir), *path = xasprintf("%s/report.json", d);
		json_t *rep = by_patches ?
			report_of(o->kernel_names.v[0], o->kernel_names.v[1]) :
			json_pack("{s:[{s:s, s:s, s:b, s:s, s:f}]}", "results",
				  "workload", "yield_pingpong", "metric", "cs_per_sec",
				  "primary", 1, "verdict", stats_verdict_id(VERDICT_NO_CHANGE),
				  "delta_pct", 0.5);

		assert_int_equal(mkdir_p(d, 0755), 0);
		assert_int_equal(json_dump_file(rep, path, 0), 0);
		json_decref(rep);
		free(path);
		free(d);
	}
	return session_status;
}

int __wrap_kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
			 struct kbuild_result *res);
int __wrap_kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
			 struct kbuild_result *res)
{
	(void)cfg;
	memset(res, 0, sizeof(*res));
	res->hold_fd = -1;
	builds++;
	if (!build_status || (build_fails && strcmp(k->name, build_fails)))
		return LAB_OK;
	res->build_failed = build_failed;
	res->failure = build_failure;
	return error_status(build_status, "[kernel %s]: %s", k->name,
			    build_failed ? "make bzImage failed" : "patch 1 does not apply");
}

/* A lab file that names the kernels: nothing in it is ever built. */
static int setup(void **state)
{
	char series[PATH_MAX], guest[PATH_MAX];
	char *src, *text;

	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-bisect-steps-XXXXXX");
	if (!mkdtemp(dir) || !realpath("tests/fixtures/series/yield-three.mbox", series) ||
	    !realpath("guests/tiny.conf", guest))
		return -1;
	src = xasprintf("%s/src", dir);
	if (mkdir_p(src, 0755))
		return -1;
	conf = xasprintf("%s/lab.conf", dir);
	text = xasprintf("[lab]\nstate_dir = %s/state\ncache_dir = %s/cache\nreports_dir = %s/reports\n\n"
			 "[kernel base]\nsource = %s\n\n"
			 "[kernel three]\nfrom = base\nseries = %s\n\n"
			 "[guest tiny]\nfile = %s\n\n"
			 "[run]\nkernels = base three\nguest = tiny\nworkloads = yield_pingpong\n",
			 dir, dir, dir, src, series, guest);
	if (write_file_atomic(conf, text, strlen(text)))
		return -1;
	free(text);
	free(src);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(conf);
	return 0;
}

/*
 * <reports>/NAME/bisect.json: a bisection of base..three (3 patches)
 * whose confirm step is done and found a regression, so that --resume
 * goes on to the prefixes without a session.
 */
static void write_confirmed(const char *name, int per_patch)
{
	char *d = xasprintf("%s/reports/%s", dir, name), *path = xasprintf("%s/bisect.json", d);
	json_t *st = json_pack(
		"{s:s, s:s, s:s, s:s, s:i, s:{s:i, s:f, s:b, s:[s]},"
		" s:[{s:i, s:s, s:n}, {s:i, s:s, s:n}, {s:i, s:s, s:n}],"
		" s:[{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:b, s:s, s:f, s:f, s:f}]}],"
		" s:{}, s:[], s:[], s:b}",
		"schema", BISECT_SCHEMA, "config", conf, "baseline", "base", "series_kernel", "three",
		"n", 3, "settings", "max_runs", 8, "budget_s", 0.0, "per_patch", per_patch,
		"workloads", "yield_pingpong",
		"patches", "position", 1, "subject", "mm: one", "message_id",
		"position", 2, "subject", "mm: two", "message_id",
		"position", 3, "subject", "mm: three", "message_id",
		"steps", "step", 1, "purpose", "confirm", "a", "base", "b", "three",
		"dir", "steps/01-confirm", "state", "done", "session", "/nonexistent/x",
		"results", "workload", "yield_pingpong", "metric", "cs_per_sec", "primary", 1,
		"verdict", "regression", "delta_pct", -40.0, "ci_lo_pct", -45.0, "ci_hi_pct", -35.0,
		"prefixes", "probes", "tracked", "complete", 0);

	assert_non_null(st);
	assert_int_equal(mkdir_p(d, 0755), 0);
	assert_int_equal(json_dump_file(st, path, 0), 0);
	json_decref(st);
	free(d);
	free(path);
}

static json_t *read_state(const char *name)
{
	char *path = xasprintf("%s/reports/%s/bisect.json", dir, name);
	json_error_t jerr;
	json_t *st = json_load_file(path, 0, &jerr);

	assert_non_null(st);
	free(path);
	return st;
}

/* bisect --resume NAME: its exit status. */
static int resume(const char *name)
{
	struct bisect_opts o = { .config = conf, .attribute = -1, .resume = 1, .resume_id = name };
	int r = bisect_main(&o);

	strvec_clear(&o.workloads);
	return r;
}

/* The number of probes[] recorded with class @cls. */
static size_t probes_of(const json_t *st, const char *cls)
{
	const json_t *p;
	size_t i, n = 0;

	json_array_foreach(json_object_get(st, "probes"), i, p)
		n += !strcmp(json_string_value(json_object_get(p, "class")), cls);
	return n;
}

/*
 * The confirm step's session fails with a user error: the bisection
 * stops with status 1. It exited 0, "not confirmed", since LAB_EUSER is
 * also the 1 that meant "not confirmed".
 */
static void test_confirm_user_error(void **state)
{
	struct bisect_opts o = { .config = conf, .attribute = -1 };
	int r;
	(void)state;

	session_status = LAB_EUSER;
	sessions = builds = 0;
	r = bisect_main(&o);
	strvec_clear(&o.workloads);
	assert_int_equal(sessions, 1);
	assert_int_equal(r, LAB_EUSER);

	/* and it said nothing was confirmed nowhere: no result, not complete */
	json_t *st = read_state("latest-bisect");
	assert_null(json_object_get(st, "result"));
	assert_true(json_is_false(json_object_get(st, "complete")));
	json_decref(st);
}

/* A whole series whose change was not confirmed: said so, done, status 0. */
static void test_not_confirmed(void **state)
{
	struct bisect_opts o = { .config = conf, .attribute = -1 };
	json_t *st;
	int r;
	(void)state;

	session_status = LAB_OK;
	sessions = builds = 0;
	r = bisect_main(&o);
	strvec_clear(&o.workloads);
	assert_int_equal(sessions, 1);
	assert_int_equal(builds, 0);
	assert_int_equal(r, LAB_OK);
	/*
	 * Issue 51: the confirm session runs the coherence model as lab.conf's
	 * [run] coherence says (-1), as run --ab does; it got 0, "off".
	 */
	assert_int_equal(coherence_of[0], -1);
	st = read_state("latest-bisect");
	assert_string_equal(json_string_value(json_object_get(json_object_get(st, "result"),
							      "outcome")), "not-confirmed");
	assert_true(json_is_true(json_object_get(st, "complete")));
	json_decref(st);
}

/* The same session failing for the lab's reasons: status 2, as before. */
static void test_confirm_lab_error(void **state)
{
	struct bisect_opts o = { .config = conf, .attribute = -1 };
	int r;
	(void)state;

	session_status = LAB_ELAB;
	sessions = 0;
	r = bisect_main(&o);
	strvec_clear(&o.workloads);
	assert_int_equal(sessions, 1);
	assert_int_equal(r, LAB_ELAB);
}

/*
 * A prefix whose patches no longer apply (kbuild's user error, no build
 * failed): the bisection stops with status 1, and the prefix is not
 * recorded as one that does not build. It was, and the bisection ended
 * "skipped-only" with status 0.
 */
static void test_prefix_user_error(void **state)
{
	json_t *st;
	(void)state;

	write_confirmed("apply", 0);
	build_status = LAB_EUSER;
	build_failed = 0;
	build_failure = KBUILD_FAIL_APPLY;
	sessions = builds = 0;
	assert_int_equal(resume("apply"), LAB_EUSER);
	assert_int_equal(sessions, 0);
	assert_int_equal(builds, 1);
	st = read_state("apply");
	assert_int_equal(probes_of(st, "unbuildable"), 0);
	assert_int_equal(json_object_size(json_object_get(st, "prefixes")), 0);
	assert_null(json_object_get(st, "result"));
	json_decref(st);
}

/*
 * A prefix that does not build (its inputs make no kernel) is skipped, as
 * before: with every prefix so, the change cannot be told apart from the
 * patches, the bisection completes and exits 0.
 */
static void test_prefix_does_not_build(void **state)
{
	json_t *st;
	(void)state;

	write_confirmed("skip", 0);
	build_status = LAB_ELAB;
	build_failed = 1;
	build_failure = KBUILD_FAIL_COMPILE;
	sessions = builds = 0;
	assert_int_equal(resume("skip"), LAB_OK);
	assert_int_equal(sessions, 0);
	assert_true(builds >= 1);
	st = read_state("skip");
	assert_int_equal(probes_of(st, "unbuildable"), (size_t)builds);
	assert_string_equal(json_string_value(json_object_get(json_object_get(st, "result"),
							      "outcome")), "skipped-only");
	json_decref(st);
}

/*
 * --per-patch: a prefix whose patches no longer apply stops the
 * bisection with status 1. It was taken for a prefix that does not build
 * ("measured with patch 2"), and a step's user error became status 2.
 */
static void test_per_patch_user_error(void **state)
{
	json_t *st;
	(void)state;

	write_confirmed("per-patch", 1);
	build_status = LAB_EUSER;
	build_failed = 0;
	build_failure = KBUILD_FAIL_APPLY;
	build_fails = "three@1";
	session_status = LAB_ELAB;
	sessions = builds = 0;
	assert_int_equal(resume("per-patch"), LAB_EUSER);
	assert_int_equal(sessions, 0);
	st = read_state("per-patch");
	assert_null(json_object_get(json_object_get(st, "prefixes"), "1"));
	assert_null(json_object_get(st, "result"));
	json_decref(st);
	build_fails = NULL;
}

static char *read_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 0), 0);
	return sb_detach(&sb);
}

/*
 * A whole bisection of three patches, whose second is the regression: the
 * confirm step, a probe per prefix placed against the midpoint, the
 * culprit's own step, and bisect.json written at each. What it wrote is
 * its table's encoding of itself, byte for byte (bisect_doc_load() and
 * bisect_doc_encode(): the state the bisection kept and the file agree),
 * and `--resume` of the complete bisection, which does every step again
 * from what it recorded, writes the same bytes.
 */
static void test_whole_bisection(void **state)
{
	struct bisect_opts o = { .config = conf, .attribute = -1 };
	struct strbuf err = STRBUF_INIT;
	struct bisect_doc d;
	char *path = xasprintf("%s/reports/latest-bisect/bisect.json", dir), *first, *again;
	const struct bisect_doc_step *st;
	json_t *j;
	int r;
	(void)state;

	by_patches = 1;
	session_status = LAB_OK;
	build_status = 0;
	sessions = builds = 0;
	r = bisect_main(&o);
	strvec_clear(&o.workloads);
	assert_int_equal(r, LAB_OK);
	first = read_text(path);
	assert_int_equal(bisect_doc_load(path, &d, &err), 0);
	assert_string_equal(d.result.outcome, "found");
	assert_int_equal(d.result.culprit, 2);
	assert_non_null(strstr(d.result.patch.subject, "2/3] sched: add a fixed 10us delay"));
	assert_int_equal(d.result.remaining.present, -1);	/* placed by the midpoint */
	assert_int_equal(d.tracked.n, 1);
	/* confirm, a probe of prefix 1 and one of 2 (one session each), the own effect */
	assert_int_equal(d.steps.n, 4);
	assert_int_equal(sessions, 4);
	st = d.steps.v;
	assert_string_equal(st[3].purpose, "own-effect");
	assert_string_equal(st[3].a, "three@1");
	assert_string_equal(st[3].b, "three@2");
	assert_string_equal(st[3].state, "done");
	assert_int_equal(d.probes.n, 2);
	assert_int_equal(json_object_size(d.prefixes), 2);
	j = bisect_doc_encode(&d);
	again = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	assert_int_equal(strncmp(first, again, strlen(again)), 0);
	assert_string_equal(first + strlen(again), "\n");
	free(again);
	json_decref(j);
	bisect_doc_release(&d);

	sessions = 0;
	assert_int_equal(resume("latest-bisect"), LAB_OK);
	assert_int_equal(sessions, 0);
	again = read_text(path);
	assert_string_equal(again, first);
	free(again);
	free(first);
	free(path);
	sb_release(&err);
	by_patches = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_confirm_user_error),
		cmocka_unit_test(test_confirm_lab_error),
		cmocka_unit_test(test_not_confirmed),
		cmocka_unit_test(test_prefix_user_error),
		cmocka_unit_test(test_prefix_does_not_build),
		cmocka_unit_test(test_per_patch_user_error),
		cmocka_unit_test(test_whole_bisection),
	};

	lab_quiet = 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
