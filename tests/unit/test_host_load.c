// SPDX-License-Identifier: GPL-2.0
/* host_load: /proc/stat parsing and when a run counts as taken on a busy host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "host_load.h"

static void test_parse_proc_stat(void **state)
{
	unsigned long long busy, steal;
	(void)state;

	/* user nice system idle iowait irq softirq steal guest guest_nice */
	assert_int_equal(host_parse_proc_stat("cpu  100 2 30 5000 7 1 2 40 9 9\ncpu0 1 2 3 4\n",
					      &busy, &steal), 0);
	assert_int_equal(busy, 100 + 2 + 30 + 1 + 2 + 40);	/* idle, iowait, guest out */
	assert_int_equal(steal, 40);
	assert_int_equal(host_parse_proc_stat("cpu0 1 2 3 4\n", &busy, &steal), -1);
	assert_int_equal(host_parse_proc_stat("cpu  1 2\n", &busy, &steal), -1);
	assert_int_equal(host_parse_proc_stat(NULL, &busy, &steal), -1);
}

static struct host_sample sample(double wall, double busy, double steal)
{
	struct host_sample s = { .wall = wall, .busy_s = busy, .steal_s = steal, .ok = 1 };

	return s;
}

static void test_busy(void **state)
{
	struct host_sample a = sample(100, 1000, 0);
	struct host_sample b = sample(110, 1000 + 15, 0);	/* 1.5 CPUs for 10 s */
	json_t *j;
	(void)state;

	/* The guest's QEMU used those 15 s: the host was not busy. */
	j = host_load_json(&a, &b, 14.9);
	assert_non_null(j);
	assert_true(json_is_false(json_object_get(j, "busy")));
	assert_true(json_real_value(json_object_get(j, "other_cpus")) < 0.05);
	json_decref(j);
	/* Without QEMU's time it is somebody else's: busy (the bug this guards). */
	j = host_load_json(&a, &b, 0);
	assert_true(json_is_true(json_object_get(j, "busy")));
	assert_true(fabs(json_real_value(json_object_get(j, "other_cpus")) - 1.5) < 1e-9);
	json_decref(j);
	/* Steal beyond 5 % of the run's CPU time is busy too. */
	b = sample(110, 1000 + 15, 2);
	j = host_load_json(&a, &b, 13);
	assert_true(json_is_true(json_object_get(j, "busy")));
	json_decref(j);
	/* No /proc/stat: nothing to say. */
	a.ok = 0;
	assert_null(host_load_json(&a, &b, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_proc_stat),
		cmocka_unit_test(test_busy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
