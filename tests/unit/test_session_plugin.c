// SPDX-License-Identifier: GPL-2.0
/*
 * What the attribution's and the coherence's runs after the verdicts
 * share (session_plugin_run.c): which workloads, the plugin's path, why
 * a session cannot have the table, and the primaries of a workload. One
 * copy for both since issue 48; each case is checked with both kinds'
 * words where they differ.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "report_result.h"
#include "session_priv.h"

static const struct plugin_kind kind = {
	.env = "MGLRULAB_TEST_PLUGIN",
	.so = "build/plugin/test.so",
	.not_one_or_two = "one or two",
	.no_icount = "no icount",
	.not_built = "not built",
};

/* The command line, else the session's start, else lab.conf. */
static void test_which(void **state)
{
	(void)state;
	assert_int_equal(session_plugin_which(RUN_ATTRIBUTE_ALL, "off", RUN_ATTRIBUTE_CHANGED),
			 RUN_ATTRIBUTE_ALL);
	assert_int_equal(session_plugin_which(RUN_ATTRIBUTE_OFF, "all", RUN_ATTRIBUTE_ALL),
			 RUN_ATTRIBUTE_OFF);
	assert_int_equal(session_plugin_which(-1, "changed", RUN_ATTRIBUTE_ALL),
			 RUN_ATTRIBUTE_CHANGED);
	assert_int_equal(session_plugin_which(-1, NULL, RUN_ATTRIBUTE_ALL), RUN_ATTRIBUTE_ALL);
	assert_int_equal(session_plugin_which(-1, "bogus", RUN_ATTRIBUTE_OFF), RUN_ATTRIBUTE_OFF);
}

/* $ENV wins when set and not empty; else beside the program. */
static void test_path(void **state)
{
	char *p;
	(void)state;

	assert_int_equal(setenv(kind.env, "/x/y.so", 1), 0);
	p = session_plugin_path(&kind);
	assert_string_equal(p, "/x/y.so");
	free(p);
	assert_int_equal(setenv(kind.env, "", 1), 0);
	p = session_plugin_path(&kind);
	assert_true(strlen(p) > strlen(kind.so));
	assert_string_equal(p + strlen(p) - strlen(kind.so), kind.so);
	free(p);
	assert_int_equal(unsetenv(kind.env), 0);
}

/* Each prerequisite in turn, with the kind's words, then the maps. */
static void test_unavailable(void **state)
{
	static struct session s;
	struct session_kernel_image k[3] = { { "a", NULL }, { "b", NULL }, { "c", NULL } };
	char plugin[] = "/tmp/test-session-plugin.XXXXXX";
	int fd = mkstemp(plugin);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	s.jobs.k = k;
	s.jobs.nk = 3;
	assert_string_equal(session_plugin_unavailable(&s, &kind, plugin), "one or two");
	s.jobs.nk = 2;
	s.lab.accel = ACCEL_KVM;
	assert_string_equal(session_plugin_unavailable(&s, &kind, plugin), "no icount");
	s.lab.accel = ACCEL_TCG;
	s.topo.icount_shift = -1;
	assert_string_equal(session_plugin_unavailable(&s, &kind, plugin), "no icount");
	s.topo.icount_shift = 0;
	assert_string_equal(session_plugin_unavailable(&s, &kind, "/nonexistent/p.so"),
			    "not built");
	assert_string_equal(session_plugin_unavailable(&s, &kind, plugin),
			    "a kernel's image is not recorded");
	unlink(plugin);
}

/* A workload's primaries, in order, whether one changed, and the records kept. */
static void test_primaries(void **state)
{
	struct result_record r[4] = {
		{ .workload = "w", .metric = "ops", .primary = 1, .verdict = VERDICT_NO_CHANGE,
		  .verdict_id = "no_change" },
		{ .workload = "w", .metric = "lat", .primary = 0, .verdict = VERDICT_REGRESSION },
		{ .workload = "v", .metric = "ops", .primary = 1, .verdict = VERDICT_REGRESSION },
		{ .workload = "w", .metric = "ns", .primary = 1, .verdict = VERDICT_IMPROVEMENT,
		  .verdict_id = "improvement" },
	};
	const struct result_record *mine[1];
	size_t nmine = 9;
	json_t *out = json_array();
	(void)state;

	r[0].change.delta_pct = 1.5;
	r[3].change.delta_pct = -20;
	assert_int_equal(session_primaries_of(r, 4, "w", out, mine, 1, &nmine), 1);
	assert_int_equal(json_array_size(out), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 0), "metric")),
			    "ops");
	assert_string_equal(json_string_value(json_object_get(json_array_get(out, 1), "verdict")),
			    "improvement");
	assert_int_equal(nmine, 1);
	assert_ptr_equal(mine[0], &r[0]);
	json_array_clear(out);
	/* without records kept (coherence), and a workload with no change */
	r[3].verdict = VERDICT_NO_CHANGE;
	assert_int_equal(session_primaries_of(r, 4, "w", out, NULL, 0, NULL), 0);
	assert_int_equal(json_array_size(out), 2);
	json_decref(out);
}

/*
 * A coherence run whose workload says a window was skewed, one thread
 * waiting or preempted while the other ran (coh_calib's "window_skewed"), is named, so the session runs it
 * again; a run without one, or without results, is not.
 */
static void test_skewed(void **state)
{
	static const char head[] =
		"{\"runner\":\"1\",\"uptime_s\":1.7,\"v\":1,\"seq\":0,\"t\":0.1,\"type\":\"hello\"}\n"
		"{\"record\":{\"type\":\"info\",\"name\":\"coh_case\",\"case\":\"shared\","
		"\"late_spins\":0},\"v\":1,\"seq\":1,\"t\":0.2,\"type\":\"workload\"}\n";
	static const char skew[] =
		"{\"record\":{\"type\":\"info\",\"name\":\"window_skewed\",\"window\":\"false\","
		"\"spins\":81234},\"v\":1,\"seq\":2,\"t\":0.3,\"type\":\"workload\"}\n";
	char dir[] = "/tmp/test_session_plugin.XXXXXX";
	char *path, *text, *why;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_null(session_plugin_skewed(dir));	/* no results.jsonl */
	path = xasprintf("%s/results.jsonl", dir);
	assert_int_equal(write_file_atomic(path, head, strlen(head)), 0);
	assert_null(session_plugin_skewed(dir));
	text = xasprintf("%s%s", head, skew);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	why = session_plugin_skewed(dir);
	assert_non_null(why);
	assert_string_equal(why, "in a window, one thread waited or was preempted while the "
				 "other ran (the workload's window_skewed record)");
	free(why);
	free(text);
	assert_int_equal(unlink(path), 0);
	free(path);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_which),
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_unavailable),
		cmocka_unit_test(test_primaries),
		cmocka_unit_test(test_skewed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
