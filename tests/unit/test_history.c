// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab history's series (lab/history/history.c): which nights go
 * together, what is skipped and why, failed runs kept visible, and the
 * incremental state.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "history.h"

static char tmpl[] = "/tmp/mglrulab-test-history.XXXXXX";
static char *root;

/*
 * One session: kernel "next" (@subject: its first patch), one workload
 * yield_pingpong with @duration, on host @hostname, @runs runs of value
 * @base + i (the last @failed of them failed).
 */
static void session(const char *name, int day, const char *hostname, const char *duration,
		    const char *subject, double base, int runs, int failed, const char *complete)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = xasprintf("%s/%s", root, name), *path = xasprintf("%s/report.json", dir);

	sb_addf(&sb, "{\"schema\":\"mglrulab-report/%d\",\"generator\":{\"name\":\"t\",\"version\":\"0\"},"
		"\"session\":{\"id\":\"%s\",\"created\":\"2026-11-%02dT01:00:00Z\"%s%s},"
		"\"host\":{\"hostname\":\"%s\",\"accel\":\"kvm\"},"
		"\"kernels\":[{\"name\":\"next\",\"series\":[{\"subject\":\"[PATCH 1/1] %s\"}]}],"
		"\"workloads\":[{\"name\":\"yield\",\"type\":\"yield_pingpong\","
		"\"params\":{\"duration\":\"%s\"},\"metrics\":[{\"name\":\"cs\",\"unit\":\"1/s\","
		"\"better\":\"higher\"}],\"primary\":[\"cs\"]}],"
		"\"design\":{\"baseline\":\"next\"},\"runs\":[", 1 + day % 2, name, day,
		complete ? ",\"complete\":" : "", complete ? complete : "", hostname, subject,
		duration);
	for (int i = 0; i < runs; i++) {
		int ok = i < runs - failed;

		sb_addf(&sb, "%s{\"seq\":%d,\"kernel\":\"next\",\"workload\":\"yield\","
			"\"status\":\"%s\",\"metrics\":{", i ? "," : "", i + 1, ok ? "ok" : "failed");
		if (ok)
			sb_addf(&sb, "\"cs\":%g", base + i);
		sb_adds(&sb, "}}");
	}
	sb_adds(&sb, "]}\n");
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file_atomic(path, sb.buf, sb.len), 0);
	sb_release(&sb);
	free(dir);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	strcpy(tmpl + strlen(tmpl) - 6, "XXXXXX");
	root = mkdtemp(tmpl);
	return root ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(root);
	return 0;
}

static struct history_series *find(struct history *h, const char *hostname, const char *line)
{
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];
		const json_t *host = json_object_get(json_object_get(s->context, "host"), "hostname");

		if (!strcmp(json_string_value(host), hostname) && !strcmp(s->line, line))
			return s;
	}
	return NULL;
}

static void build(struct history *h, int by_name, const json_t *state)
{
	struct history_opts o;

	history_opts_default(&o);
	o.by_name = by_name;
	history_init(h, &o);
	assert_int_equal(history_add_dir(h, root), 0);
	history_build(h, state);
}

static void test_series_and_skips(void **state)
{
	struct history h;
	struct history_series *s;
	char *latest = xasprintf("%s/latest", root), *target = xasprintf("%s/s03", root);
	char *corrupt = xasprintf("%s/bad/report.json", root), *running = xasprintf("%s/run", root);
	char *sj = xasprintf("%s/run/session.json", root);
	json_t *e;
	size_t i;
	int seen_corrupt = 0, seen_partial = 0, seen_running = 0;
	(void)state;

	/* Written out of order: the series follows session.created. */
	session("s03", 3, "hostA", "1", "mm: series", 100, 6, 1, NULL);
	session("s01", 1, "hostA", "1", "mm: series", 100, 6, 0, "true");
	session("s02", 2, "hostA", "1", "mm: series", 100, 6, 6, NULL);	/* every run failed */
	session("s04", 4, "hostB", "1", "mm: series", 100, 6, 0, NULL);	/* another host */
	session("s05", 5, "hostA", "2", "mm: series", 100, 6, 0, NULL);	/* other parameters */
	session("s06", 6, "hostA", "1", "mm: other series", 100, 6, 0, NULL);
	session("s07", 7, "hostA", "1", "mm: series", 100, 6, 0, "false");	/* interrupted */
	/* A truncated report, and a session still running (no report.json yet). */
	assert_int_equal(mkdir_p(running, 0755), 0);
	assert_int_equal(write_file_atomic(sj, "{}", 2), 0);
	{
		char *bad = xasprintf("%s/bad", root);
		assert_int_equal(mkdir_p(bad, 0755), 0);
		free(bad);
	}
	assert_int_equal(write_file_atomic(corrupt, "{\"schema\": \"mglrulab-rep", 24), 0);
	/* reports/latest: a link to a session, not a second copy of it. */
	assert_int_equal(symlink(target, latest), 0);

	build(&h, 0, NULL);
	assert_int_equal(h.ns, 6);
	/* hostA/series, hostB/series, hostA duration 2, hostA other series. */
	assert_int_equal(h.nseries, 4);
	s = find(&h, "hostA", "next + mm: series");
	assert_non_null(s);
	assert_string_equal(s->workload, "yield");
	assert_string_equal(s->metric, "cs");
	assert_int_equal(s->better, 1);
	assert_true(s->primary);
	assert_int_equal(s->nn, 3);
	assert_string_equal(h.s[s->nights[0].session].id, "s01");
	assert_string_equal(h.s[s->nights[1].session].id, "s02");
	assert_string_equal(h.s[s->nights[2].session].id, "s03");
	/* Failed runs stay visible, also on a night with no value at all. */
	assert_int_equal(s->nights[1].n, 0);
	assert_int_equal(s->nights[1].failed, 6);
	assert_int_equal(s->nights[2].n, 5);
	assert_int_equal(s->nights[2].failed, 1);
	assert_true(s->nights[0].median == 102.5);
	assert_non_null(find(&h, "hostA", "next + mm: other series"));
	assert_non_null(find(&h, "hostB", "next + mm: series"));

	json_array_foreach(h.skipped, i, e) {
		const char *file = json_string_value(json_object_get(e, "file"));
		const char *why = json_string_value(json_object_get(e, "reason"));

		if (!strcmp(file, corrupt)) {
			seen_corrupt = 1;
			/* report_load()'s reason: line and column. */
			assert_non_null(strstr(why, "line 1, column 24"));
		}
		seen_partial |= strstr(file, "s07") && strstr(why, "partial");
		seen_running |= !strcmp(file, running) && strstr(why, "still running");
	}
	assert_true(seen_corrupt);
	assert_true(seen_partial);
	assert_true(seen_running);
	history_release(&h);

	/* --by-name: one line per kernel name, the two series together. */
	build(&h, 1, NULL);
	s = find(&h, "hostA", "next");
	assert_non_null(s);
	assert_int_equal(h.nseries, 3);
	assert_int_equal(s->nn, 4);
	history_release(&h);
	free(latest);
	free(target);
	free(corrupt);
	free(running);
	free(sj);
}

/*
 * A history with a step, then one more night: the second analysis keeps
 * the confirmed change point from the state and searches only after it.
 */
static void test_incremental(void **state)
{
	struct history h;
	struct history_series *s;
	json_t *st;
	char name[16];
	(void)state;

	for (int d = 1; d <= 20; d++) {
		snprintf(name, sizeof(name), "n%02d", d);
		session(name, d, "hostC", "1", "mm: inc", d <= 10 ? 1000 : 900, 8, 0, NULL);
	}
	build(&h, 0, NULL);
	s = find(&h, "hostC", "next + mm: inc");
	assert_non_null(s);
	assert_int_equal(s->ncp, 1);
	assert_int_equal(s->cps[0].at, 10);
	assert_string_equal(s->cps[0].kind, "regression");
	assert_true(s->cps[0].delta_pct < -8 && s->cps[0].delta_pct > -12);
	assert_false(s->resumed);
	assert_int_equal(h.searched, 20);
	st = history_state_json(&h);
	history_release(&h);

	session("n21", 21, "hostC", "1", "mm: inc", 900, 8, 0, NULL);
	build(&h, 0, st);
	s = find(&h, "hostC", "next + mm: inc");
	assert_true(s->resumed);
	assert_int_equal(s->ncp, 1);
	assert_true(s->cps[0].kept);
	assert_int_equal(s->cps[0].at, 10);
	/* Only the open segment, nights 10..20, was searched. */
	assert_int_equal(h.searched, 11);
	history_release(&h);

	/* Tonight steps again: a new, tentative regression. */
	session("n22", 22, "hostC", "1", "mm: inc", 700, 8, 0, NULL);
	build(&h, 0, st);
	s = find(&h, "hostC", "next + mm: inc");
	assert_int_equal(s->ncp, 2);
	assert_true(s->cps[1].is_new);
	assert_true(s->cps[1].tentative);
	assert_int_equal(history_new_regressions(&h), 1);
	history_release(&h);
	json_decref(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_series_and_skips, setup, teardown),
		cmocka_unit_test_setup_teardown(test_incremental, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
