// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads' parameter tables (common/workload_params.c), shared by the
 * host's lab.conf check and the guest programs' option parsing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "workload_def.h"
#include "workload_params.h"

/* Every default is a value its own check accepts: the programs rely on it. */
static void test_defaults_valid(void **state)
{
	(void)state;
	for (const struct workload_def *w = workload_defs; w->name; w++) {
		assert_non_null(w->summary);
		for (const struct param_def *p = w->params; p->name; p++) {
			if (param_check(p, p->def))
				fail_msg("%s: --%s default '%s' is refused by its own table", w->name,
					 p->name, p->def);
			assert_non_null(p->help);
			assert_ptr_equal(workload_param(w, p->name), p);
		}
		assert_non_null(param_find(w->params, "counters"));
		assert_non_null(param_find(w->params, "tracepoints"));
	}
}

static void test_int(void **state)
{
	const struct param_def *p = param_find(yield_pingpong_params, "warmup");
	char buf[128];
	(void)state;

	assert_int_equal(param_check(p, "0"), 0);
	assert_int_equal(param_check(p, "600"), 0);
	assert_int_equal(param_check(p, "-1"), -1);
	assert_int_equal(param_check(p, "601"), -1);
	assert_int_equal(param_check(p, "2s"), -1);
	assert_int_equal(param_check(p, ""), -1);
	assert_int_equal(param_check(p, "99999999999999999999"), -1);
	param_expected(p, buf, sizeof(buf));
	assert_string_equal(buf, "an integer from 0 to 600");
}

/* yield_pingpong's duration: seconds to the millisecond, 0.1 to 3600. */
static void test_seconds(void **state)
{
	const struct param_def *p = param_find(yield_pingpong_params, "duration");
	char buf[128];
	long ms = -1;
	(void)state;

	assert_int_equal(p->type, PARAM_SECONDS);
	assert_int_equal(param_check(p, "1"), 0);
	assert_int_equal(param_check(p, "0.5"), 0);
	assert_int_equal(param_check(p, "0.1"), 0);
	assert_int_equal(param_check(p, "3600"), 0);
	assert_int_equal(param_check(p, "3600.000"), 0);
	assert_int_equal(param_check(p, "0"), -1);
	assert_int_equal(param_check(p, "0.099"), -1);
	assert_int_equal(param_check(p, "3600.001"), -1);
	assert_int_equal(param_check(p, "2s"), -1);
	assert_int_equal(param_check(p, ""), -1);
	assert_int_equal(param_check(p, "."), -1);
	assert_int_equal(param_check(p, ".5"), -1);
	assert_int_equal(param_check(p, "-1"), -1);
	assert_int_equal(param_check(p, "+1"), -1);
	assert_int_equal(param_check(p, "1e3"), -1);
	assert_int_equal(param_check(p, "0.0001"), -1);
	assert_int_equal(param_check(p, "99999999999999999999"), -1);
	assert_int_equal(param_parse_ms("1.25", &ms), 0);
	assert_int_equal(ms, 1250);
	assert_int_equal(param_parse_ms("2.", &ms), 0);
	assert_int_equal(ms, 2000);
	assert_int_equal(param_parse_ms("0.007", &ms), 0);
	assert_int_equal(ms, 7);
	param_expected(p, buf, sizeof(buf));
	assert_string_equal(buf, "seconds from 0.1 to 3600, to the millisecond (such as 0.5)");
}

static void test_list(void **state)
{
	const struct param_def *p = param_find(yield_pingpong_params, "cpus");
	long v[4];
	char buf[128];
	(void)state;

	assert_int_equal(param_parse_list(p, "1,2", v, 4), 2);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[1], 2);
	/* blanks around items and empty items, as lab.conf has always allowed */
	assert_int_equal(param_parse_list(p, " 1 , 4096,,8", v, 4), 3);
	assert_int_equal(v[1], 4096);
	assert_int_equal(v[2], 8);
	/* more items than room: counted, not stored */
	assert_int_equal(param_parse_list(p, "1,2,3,4,5,6", v, 4), 6);
	assert_int_equal(param_parse_list(p, "1 2", NULL, 0), -1);
	assert_int_equal(param_parse_list(p, "1,,x", NULL, 0), -1);
	assert_int_equal(param_parse_list(p, "0", NULL, 0), -1);
	assert_int_equal(param_parse_list(p, "4097", NULL, 0), -1);
	assert_int_equal(param_parse_list(p, "", NULL, 0), -1);
	assert_int_equal(param_parse_list(p, " , ", NULL, 0), -1);
	assert_int_equal(param_check(p, "1,2"), 0);
	assert_int_equal(param_check(p, "1 2"), -1);
	param_expected(p, buf, sizeof(buf));
	assert_string_equal(buf, "a comma-separated list of integers from 1 to 4096");
}

static void test_enum(void **state)
{
	const struct param_def *p = param_find(numa_workload_params, "on_erange");
	char buf[128];
	(void)state;

	assert_int_equal(param_choice(p, "evict"), 0);
	assert_int_equal(param_choice(p, "force"), 1);
	assert_int_equal(param_choice(p, "skip"), 2);
	assert_int_equal(param_choice(p, "ski"), -1);
	assert_int_equal(param_choice(p, "skipp"), -1);
	assert_int_equal(param_choice(p, ""), -1);
	assert_int_equal(param_check(p, "force|skip"), -1);
	param_expected(p, buf, sizeof(buf));
	assert_string_equal(buf, "one of evict|force|skip");
}

/* The host's message is the table's: what lab.conf is told is what the program says. */
static void test_host_check(void **state)
{
	const struct param_def *p = param_find(will_it_scale_params, "mode");
	char *expected = NULL;
	(void)state;

	assert_int_equal(workload_param_check(p, "threads", &expected), 0);
	assert_null(expected);
	assert_int_equal(workload_param_check(p, "fibers", &expected), -1);
	assert_string_equal(expected, "one of threads|processes");
	free(expected);
	p = param_find(kernel_build_params, "artifact");
	assert_int_equal(workload_param_check(p, "anything at all", &expected), 0);
}

/*
 * memory_max is a size the guest writes to memory.max: "160MB" used to
 * pass the host's check (free text) and fail only in the guest. Host and
 * guest now share param_parse_size(); these are the forms it takes.
 */
static void test_size(void **state)
{
	const struct param_def *p = param_find(kernel_build_params, "memory_max");
	unsigned long long b = 0;
	char *expected = NULL;
	(void)state;

	assert_int_equal(p->type, PARAM_SIZE);
	assert_int_equal(param_parse_size("512M", &b), 0);
	assert_true(b == 512ULL << 20);
	assert_int_equal(param_parse_size("3g", &b), 0);
	assert_true(b == 3ULL << 30);
	assert_int_equal(param_parse_size("4096", &b), 0);
	assert_true(b == 4096);
	assert_int_equal(param_parse_size("1T", &b), 0);
	assert_true(b == 1ULL << 40);
	assert_int_equal(param_parse_size("max", &b), 0);
	assert_true(b == PARAM_SIZE_MAX);
	static const char *const bad[] = {
		"160MB", "", "M", "max ", " 1G", "1 G", "1.5G", "-1", "1GG", "0x10M", "1P",
		"16777216T", "99999999999999999999", "MAX",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (!param_parse_size(bad[i], NULL))
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(workload_param_check(p, "160MB", &expected), -1);
	assert_string_equal(expected, "a size in bytes with an optional K, M, G or T suffix "
			    "(such as 512M or 3G; no B), or max");
	free(expected);
}

/*
 * Values that passed lab.conf's check and failed only in the guest: a
 * reference loop of 3 MiB (not a power of two: "cannot allocate"), a make
 * variable among kernel_build's targets or as its config step, a
 * tracepoint that is not subsystem:event. The guest programs parse them
 * with these same checks (wl_args_parse()).
 */
static void test_guest_checked(void **state)
{
	const struct param_def *ref = param_find(yield_pingpong_params, "ref_mib");
	const struct param_def *tgt = param_find(kernel_build_params, "target");
	const struct param_def *cfg = param_find(kernel_build_params, "config");
	const struct param_def *tp = param_find(kernel_build_params, "tracepoints");
	char buf[160];
	(void)state;

	assert_int_equal(param_check(ref, "8"), 0);
	assert_int_equal(param_check(ref, "1"), 0);
	assert_int_equal(param_check(ref, "1024"), 0);
	assert_int_equal(param_check(ref, "3"), -1);
	assert_int_equal(param_check(ref, "2048"), -1);
	param_expected(ref, buf, sizeof(buf));
	assert_string_equal(buf, "a power of two from 1 to 1024");

	assert_int_equal(param_check(tgt, "mm/swap.o mm/workingset.o"), 0);
	assert_int_equal(param_check(tgt, "bzImage"), 0);
	assert_int_equal(param_check(tgt, ""), -1);
	assert_int_equal(param_check(tgt, "bzImage CC=evil"), -1);
	assert_int_equal(param_check(tgt, "-j8"), -1);
	assert_int_equal(param_check(tgt, "a b c d e f g h i j k l m n o p q"), -1);	/* 17 */
	param_expected(tgt, buf, sizeof(buf));
	assert_string_equal(buf, "1 to 16 make targets separated by blanks (not -OPTION or VAR=VALUE)");
	assert_int_equal(param_check(cfg, ""), 0);
	assert_int_equal(param_check(cfg, "defconfig"), 0);
	assert_int_equal(param_check(cfg, "defconfig kvm_guest.config"), -1);
	assert_int_equal(param_check(cfg, "O=/tmp"), -1);

	assert_int_equal(param_check(tp, ""), 0);
	assert_int_equal(param_check(tp, "sched:sched_switch, vmscan:mm_vmscan_lru_gen_scan"), 0);
	assert_int_equal(param_check(tp, "sched_switch"), -1);
	assert_int_equal(param_check(tp, "../../etc:passwd"), -1);
	assert_int_equal(param_check(tp, "sched:.hidden"), -1);
	assert_int_equal(param_tracepoint("sched:sched_switch", 18), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_valid),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_enum),
		cmocka_unit_test(test_host_check),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_guest_checked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
