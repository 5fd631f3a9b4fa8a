// SPDX-License-Identifier: GPL-2.0
/* Tracepoint hist files and will-it-scale output: real, cut and garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "counters_hist.h"
#include "wis_parse.h"
#include "test_counters_fixture.h"

static void test_hist_single(void **state)
{
	size_t len;
	char *t = fixture("hist_single.txt", &len);
	struct hist_file f;
	uint64_t n = 0;

	(void)state;
	hist_parse(t, len, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.bad_lines, 0);
	assert_int_equal(hist_count(&f, "hist:keys=common_", &n), 0);
	assert_int_equal(n, 48213);
	assert_int_equal(f.h[0].sum_hitcount, 48213);
	free(t);
}

static void test_hist_multi_dropped(void **state)
{
	size_t len;
	char *t = fixture("hist_multi.txt", &len);
	struct hist_file f;
	uint64_t n = 0;

	(void)state;
	hist_parse(t, len, &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.bad_lines, 0);
	/* Ours is the second; its Dropped events count too. */
	assert_int_equal(hist_count(&f, "hist:keys=common_pid:", &n), 0);
	assert_int_equal(n, 1025);
	assert_int_equal(hist_count(&f, "hist:keys=common_pid.execname", &n), 0);
	assert_int_equal(n, 100);
	assert_int_equal(hist_count(&f, "hist:keys=nothing", &n), -1);
	free(t);
}

/* The runner's paused hold comes first in the file; it counted nothing. */
static void test_hist_held(void **state)
{
	size_t len;
	char *t = fixture("hist_held.txt", &len);
	struct hist_file f;
	uint64_t n = 0;

	(void)state;
	hist_parse(t, len, &f);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.bad_lines, 0);
	assert_int_equal(hist_count(&f, "hist:keys=common_", &n), 0);
	assert_int_equal(n, 203812);
	assert_int_equal(hist_count(&f, NULL, &n), 0);
	assert_int_equal(n, 203812);
	assert_int_equal(hist_count(&f, "hist:keys=common_cpu", &n), -1);
	free(t);
}

static void test_hist_truncated_garbage(void **state)
{
	size_t len;
	char *t = fixture("hist_truncated.txt", &len);
	struct hist_file f;
	uint64_t n = 0;

	(void)state;
	hist_parse(t, len, &f);
	assert_int_equal(f.n, 1);
	/* No Totals: partial count from the entries seen. */
	assert_int_equal(hist_count(&f, NULL, &n), 1);
	free(t);

	t = fixture("garbage.bin", &len);
	hist_parse(t, len, &f);
	assert_int_equal(hist_count(&f, NULL, &n), -1);
	free(t);

	t = fixture("hist_single.txt", &len);
	for (size_t k = 0; k <= len; k++)
		hist_parse(t, k, &f);
	free(t);
}

static void test_wis_ours(void **state)
{
	size_t len;
	char *t = fixture("wis_sched_yield.txt", &len);
	struct wis_result r;

	(void)state;
	assert_int_equal(wis_parse(t, len, &r), 0);
	assert_string_equal(r.testcase, "Yield");
	assert_true(r.has_warmup_marker);
	assert_true(r.has_measurement_marker);
	assert_int_equal(r.nwarmup, 3);
	assert_int_equal(r.nmeasured, 3);
	assert_true(r.has_average);
	/* average is the integer mean of the measured totals */
	assert_int_equal(r.average, (uint64_t)wis_mean(&r));
	assert_int_equal(r.bad_lines, 0);
	wis_release(&r);
	free(t);
}

static void test_wis_bad_lines(void **state)
{
	size_t len;
	char *t = fixture("wis_context_switch1.txt", &len);
	struct wis_result r;

	(void)state;
	assert_int_equal(wis_parse(t, len, &r), 0);
	assert_string_equal(r.testcase, "Context switch via pipes");
	assert_int_equal(r.nwarmup, 6);
	assert_int_equal(r.nmeasured, 2);
	assert_int_equal(r.bad_lines, 2);
	assert_int_equal(r.measured[0].min, 450);
	assert_int_equal(r.average, 1000);
	wis_release(&r);
	free(t);
}

static void test_wis_truncated_garbage(void **state)
{
	size_t len;
	char *t = fixture("wis_truncated.txt", &len);
	struct wis_result r;

	(void)state;
	assert_int_equal(wis_parse(t, len, &r), 0);
	assert_true(r.truncated);
	assert_int_equal(r.nwarmup, 1);
	assert_false(r.has_average);
	assert_true(wis_mean(&r) < 0);
	wis_release(&r);
	free(t);

	t = fixture("garbage.bin", &len);
	assert_int_equal(wis_parse(t, len, &r), 0);
	assert_int_equal(r.nmeasured, 0);
	assert_true(r.bad_lines > 0);
	wis_release(&r);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_single),
		cmocka_unit_test(test_hist_multi_dropped),
		cmocka_unit_test(test_hist_held),
		cmocka_unit_test(test_hist_truncated_garbage),
		cmocka_unit_test(test_wis_ours),
		cmocka_unit_test(test_wis_bad_lines),
		cmocka_unit_test(test_wis_truncated_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
