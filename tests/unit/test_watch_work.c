// SPDX-License-Identifier: GPL-2.0
/*
 * What `mglrulab watch` does with a series when a step fails
 * (watch_work_next(), watch_work.c): each step's status is told apart
 * from where it leaves the series. A series that does not apply is
 * failed with its reply (the series' fault: the watch goes on); a
 * session or a bisection that fails, a user error inside it included, is
 * the lab's: the watch stops with a status and the series stays in its
 * state for the next watch, until WATCH_LAB_ATTEMPTS such failures fail
 * it with a reply saying the lab could not measure it.
 *
 * No kernel is built and no guest booted: the test links with
 * -Wl,--wrap=session_main,--wrap=kbuild_kernel,--wrap=bisect_main (the
 * Makefile), so each build, session and bisection is what the test says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "config.h"
#include "fsutil.h"
#include "kbuild.h"
#include "report.h"
#include "session.h"
#include "util.h"
#include "watch_db.h"
#include "watch_work.h"

static char dir[64];
static char *conf;

/* What the wrapped stages return, and how often each was called. */
static int series_build_status;		/* the series' kernel; the baseline always builds */
static int session_status, bisect_status;
static int builds, sessions, bisections;

int __wrap_kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
			 struct kbuild_result *res);
int __wrap_kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
			 struct kbuild_result *res)
{
	(void)cfg;
	memset(res, 0, sizeof(*res));
	res->hold_fd = -1;
	builds++;
	if (strncmp(k->name, "watch-", 6) || !series_build_status)
		return LAB_OK;
	res->failure = KBUILD_FAIL_APPLY;
	res->public_reason = xstrdup("patch 1/2 does not apply: mm/x.c:1");
	return user_error("[kernel %s] series: patch 1/2 does not apply", k->name);
}

/* @text as @dir/@name, its folder made. */
static void write_in(const char *d, const char *name, const char *text, size_t len)
{
	char *path = xasprintf("%s/%s", d, name);

	assert_int_equal(mkdir_p(d, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, len), 0);
	free(path);
}

/*
 * A session that decides: its report as the session writes it,
 * reports/latest/report.json, session-ab.json analysed (its kbuild
 * elapsed_s regressed; no workload declares primaries).
 */
static int session_decides(const struct session_opts *o)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	char *latest = xasprintf("%s/latest", o->reports_dir);
	json_t *s = NULL, *r;

	if (report_load("tests/fixtures/reports/session-ab.json", &s, &err) ||
	    !(r = report_analyze(s, &err)))
		fail_msg("%s", sb_str(&err));
	report_dump(r, &sb);
	write_in(latest, "report.json", sb.buf, sb.len);
	json_decref(r);
	json_decref(s);
	free(latest);
	sb_release(&sb);
	sb_release(&err);
	return session_status;
}

int __wrap_session_main(struct session_opts *o);
int __wrap_session_main(struct session_opts *o)
{
	sessions++;
	if (session_status == LAB_OK || session_status == LAB_REGRESSION)
		return session_decides(o);
	return error_status(session_status, "run: [kernel base] is no longer in the kernel cache");
}

/* A bisection that finds patch 2: tests/fixtures/bisect/ as reports/latest-bisect/. */
static int bisect_finds(const struct bisect_opts *o)
{
	struct strbuf sb = STRBUF_INIT;
	char *latest = xasprintf("%s/latest-bisect", o->reports_dir);

	assert_int_equal(read_file("tests/fixtures/bisect/bisect-found.json", &sb, 0), 0);
	write_in(latest, "bisect.json", sb.buf, sb.len);
	write_in(latest, "bisect.txt", "culprit: patch 2\n", 17);
	free(latest);
	sb_release(&sb);
	return LAB_OK;
}

int __wrap_bisect_main(struct bisect_opts *o);
int __wrap_bisect_main(struct bisect_opts *o)
{
	bisections++;
	if (bisect_status == LAB_OK)
		return bisect_finds(o);
	return error_status(bisect_status, "bisect --resume: [kernel watch-1] is no longer in "
			    "lab.conf");
}

static int setup(void **state)
{
	char guest[PATH_MAX];
	char *src, *text;

	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-watch-work-XXXXXX");
	if (!mkdtemp(dir) || !realpath("guests/tiny.conf", guest))
		return -1;
	src = xasprintf("%s/src", dir);
	if (mkdir_p(src, 0755))
		return -1;
	conf = xasprintf("%s/lab.conf", dir);
	text = xasprintf("[lab]\nstate_dir = %s/state\ncache_dir = %s/cache\nreports_dir = %s/reports\n\n"
			 "[kernel base]\nsource = %s\n\n"
			 "[guest tiny]\nfile = %s\n\n"
			 "[run]\nkernels = base\nguest = tiny\nworkloads = yield_pingpong\n\n"
			 "[report]\nmail_from = lab@example.org\n\n"
			 "[watch]\nbaseline = base\nbisect = regression\n",
			 dir, dir, dir, src, guest);
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

/* A queue in <dir>/NAME holding series 1 (two patches) in @state. */
static void queue_with(const char *name, const char *state, struct watch_db *w)
{
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/%s/" WATCH_DB_FILE, dir, name), *d = xasprintf("%s/%s", dir, name);
	char *sql = xasprintf(
		"INSERT INTO series(id, root, version, n, title, title_key, author, state, first_seen,"
		" updated) VALUES (1, 'c@x', 1, 2, 'mm: foo', 'mm: foo', 'ann@example.org', '%s', 1, 1);"
		"INSERT INTO messages(message_id, refs, subject, from_addr, is_patch, is_reply,"
		" version, k, n, rfc, title, paths, trailers, origin, raw, seen_at, series_id) VALUES"
		" ('p1@x', '', '[PATCH 1/2] mm: one', 'ann@example.org', 1, 0, 1, 1, 2, 0, 'mm: one',"
		"  'mm/x.c', '', 'test', 'Subject: [PATCH 1/2] mm: one\n\n', 1, 1),"
		" ('p2@x', '', '[PATCH 2/2] mm: two', 'ann@example.org', 1, 0, 1, 2, 2, 0, 'mm: two',"
		"  'mm/x.c', '', 'test', 'Subject: [PATCH 2/2] mm: two\n\n', 1, 1);", state);

	assert_int_equal(mkdir_p(d, 0755), 0);
	if (watch_db_open(path, w, &err) || watch_db_exec(w, sql, &err))
		fail_msg("%s", sb_str(&err));
	sb_release(&err);
	free(sql);
	free(path);
	free(d);
}

static char *series_column(struct watch_db *w, const char *col)
{
	struct strbuf err = STRBUF_INIT;
	char *sql = xasprintf("SELECT %s FROM series WHERE id = 1", col);
	sqlite3_stmt *st = watch_db_prepare(w, sql, &err);
	char *out = NULL;

	assert_non_null(st);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		out = xstrdup(watch_col_text(st, 0));
	sqlite3_finalize(st);
	sb_release(&err);
	free(sql);
	return out;
}

static void expect_state(struct watch_db *w, const char *want)
{
	char *got = series_column(w, "state");

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

/* One watch_work_next() on the queue @name with lab.conf: its result. */
static int work(const char *name, struct watch_db *w)
{
	struct lab_config cfg;
	char *d = xasprintf("%s/%s", dir, name);
	struct watch_work_opts o = { .config = conf, .dir = d, .cfg = &cfg };
	int r;

	assert_int_equal(config_load_or_report(conf, &cfg), LAB_OK);
	r = watch_work_next(w, &o);
	config_release(&cfg);
	free(d);
	return r;
}

/* A series that does not apply: failed, with its reply; the watch goes on (1). */
static void test_does_not_apply(void **state)
{
	struct watch_db w;
	char *reply = xasprintf("%s/apply/series/1/reply.eml", dir), *verdict;
	(void)state;

	queue_with("apply", "queued", &w);
	series_build_status = LAB_EUSER;
	builds = sessions = 0;
	assert_int_equal(work("apply", &w), 1);
	assert_int_equal(builds, 2);
	assert_int_equal(sessions, 0);
	expect_state(&w, "failed");
	verdict = series_column(&w, "verdict");
	assert_string_equal(verdict, "it does not apply to the baseline");
	assert_true(is_regular_file(reply));
	/* nothing left to work on */
	assert_int_equal(work("apply", &w), 0);
	free(verdict);
	free(reply);
	watch_db_close(&w);
}

/*
 * A session that fails with a user error: the lab's failure. The watch
 * stops (status 2) and the series stays running, resumed by the next
 * watch; the third time it is failed with a reply, and the watch goes on.
 */
static void test_session_user_error(void **state)
{
	struct watch_db w;
	char *reply = xasprintf("%s/session/series/1/reply.eml", dir), *verdict;
	(void)state;

	queue_with("session", "running", &w);
	session_status = LAB_EUSER;
	builds = sessions = 0;
	for (int i = 1; i < WATCH_LAB_ATTEMPTS; i++) {
		assert_int_equal(work("session", &w), -LAB_ELAB);
		expect_state(&w, "running");
		assert_false(is_regular_file(reply));
	}
	assert_int_equal(work("session", &w), 1);
	assert_int_equal(builds, 0);
	assert_int_equal(sessions, WATCH_LAB_ATTEMPTS);
	expect_state(&w, "failed");
	verdict = series_column(&w, "verdict");
	assert_string_equal(verdict, "the lab failed to measure it");
	assert_true(is_regular_file(reply));
	free(verdict);
	free(reply);
	watch_db_close(&w);
}

/* A bisection that fails with a user error: the lab's too; the series stays bisecting. */
static void test_bisection_user_error(void **state)
{
	struct watch_db w;
	(void)state;

	queue_with("bisect", "bisecting", &w);
	bisect_status = LAB_EUSER;
	builds = sessions = bisections = 0;
	assert_int_equal(work("bisect", &w), -LAB_ELAB);
	assert_int_equal(builds + sessions, 0);
	assert_int_equal(bisections, 1);
	expect_state(&w, "bisecting");
	watch_db_close(&w);
}

/*
 * A session that found a regression, then its bisection: the series'
 * verdict is read from the session's report.json and its note from the
 * bisection's bisect.json (watch_verdict.c), the files the two wrote.
 */
static void test_verdict_and_note(void **state)
{
	struct watch_db w;
	char *verdict, *note;
	(void)state;

	queue_with("decide", "running", &w);
	session_status = LAB_REGRESSION;
	bisect_status = LAB_OK;
	builds = sessions = bisections = 0;
	assert_int_equal(work("decide", &w), 1);
	assert_int_equal(sessions, 1);
	assert_int_equal(bisections, 1);
	expect_state(&w, "decided");
	verdict = series_column(&w, "verdict");
	assert_non_null(verdict);
	assert_non_null(strstr(verdict, "kbuild elapsed_s: regression +3.5% [+1.8%, +4.9%]"));
	assert_non_null(strstr(verdict, "yp_shared cs_per_sec_per_cpu_1cpu: "));
	note = series_column(&w, "note");
	assert_non_null(note);
	assert_string_equal(note, "culprit: patch 2 of 2, [PATCH 2/3] sched: add a fixed 10us "
			    "delay to sched_yield() (mglrulab test series)");
	free(verdict);
	free(note);
	watch_db_close(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_does_not_apply),
		cmocka_unit_test(test_session_user_error),
		cmocka_unit_test(test_bisection_user_error),
		cmocka_unit_test(test_verdict_and_note),
	};

	lab_quiet = 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
