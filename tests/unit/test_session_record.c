// SPDX-License-Identifier: GPL-2.0
/* A guest's result channel into a run record (lab/session/session_record.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "domain_run.h"
#include "guest_conf.h"
#include "guest_result.h"
#include "session.h"
#include "strbuf.h"

static long seq;
/* The run's boot on the host's clock, as domain_run.c measured it (-1: not seen). */
static double boot_wall = -1;
/* What the runner's "exit" record says: the workload's status (-1: killed by a signal). */
static int exit_status;

static void line(struct strbuf *ch, const char *type, const char *body)
{
	sb_addf(ch, "{\"v\":1,\"seq\":%ld,\"type\":\"%s\"%s%s}\n", seq++, type, *body ? "," : "", body);
}

/* A finished, successful run whose workload printed @metrics, @series and @errors lines. */
static json_t *record_of(int metrics, int series, int errors)
{
	struct strbuf ch = STRBUF_INIT, err = STRBUF_INIT, b = STRBUF_INIT;
	struct guest_run run;
	struct guest_topology declared;
	json_t *planned, *rec;

	seq = 0;
	line(&ch, "hello", "\"uptime_s\":1.5");
	line(&ch, "topology", "\"vcpus_online\":1,\"nodes\":[{\"id\":0,\"cpus\":\"0\","
	     "\"memory_kib\":524288,\"distances\":[10]}]");
	for (int i = 0; i < metrics; i++) {
		sb_reset(&b);
		sb_addf(&b, "\"record\":{\"type\":\"metric\",\"name\":\"m%d\",\"value\":%d}", i, i);
		line(&ch, "workload", b.buf);
	}
	for (int i = 0; i < series; i++) {
		sb_reset(&b);
		sb_addf(&b, "\"record\":{\"type\":\"series\",\"name\":\"s%d\",\"values\":[1,2]}", i);
		line(&ch, "workload", b.buf);
	}
	for (int i = 0; i < errors; i++)
		line(&ch, "workload", "\"record\":{\"type\":\"error\",\"reason\":\"no\"}");
	sb_reset(&b);
	sb_addf(&b, "\"status\":%d,\"elapsed_s\":2", exit_status);
	line(&ch, "exit", b.buf);
	sb_reset(&b);
	sb_addf(&b, "\"records\":%ld", seq);
	line(&ch, "done", b.buf);

	memset(&run, 0, sizeof(run));
	guest_result_init(&run.result);
	guest_result_feed(&run.result, ch.buf, ch.len);
	guest_result_finish(&run.result);
	assert_int_equal(run.result.bad.n, 0);
	/* The guest shows exactly the declared topology. */
	assert_int_equal(guest_result_topology(&run.result, &declared, &err), 0);
	run.status = GUEST_RUN_OK;
	run.boot_s = 1.5;
	run.boot_wall_s = boot_wall;
	planned = json_pack("{s:i, s:s, s:s}", "seq", 1, "kernel", "base", "workload", "w");
	rec = session_record(planned, &run, &declared, "2026-11-30T00:00:00Z");
	json_decref(planned);
	guest_topology_release(&declared);
	guest_result_release(&run.result);
	sb_release(&ch);
	sb_release(&err);
	sb_release(&b);
	return rec;
}

static void test_ok_run(void **state)
{
	json_t *rec = record_of(3, 1, 0);
	(void)state;

	assert_string_equal(json_string_value(json_object_get(rec, "status")), "ok");
	assert_int_equal(json_object_size(json_object_get(rec, "metrics")), 3);
	assert_int_equal(json_object_size(json_object_get(rec, "series")), 1);
	assert_null(json_object_get(rec, "errors"));
	json_decref(rec);
}

/* However many lines the guest sends, the record (and report.json) stays bounded. */
static void test_limits(void **state)
{
	json_t *rec = record_of(5000, 300, 150), *errors;
	(void)state;

	assert_int_equal(json_object_size(json_object_get(rec, "metrics")), 4096);
	assert_int_equal(json_object_size(json_object_get(rec, "series")), 256);
	errors = json_object_get(rec, "errors");
	assert_int_equal(json_array_size(errors), 100);
	assert_string_equal(json_string_value(json_array_get(errors, 0)),
			    "more than 4096 metrics (RECORD_MAX_METRICS): the rest are ignored");
	assert_string_equal(json_string_value(json_array_get(errors, 1)),
			    "more than 256 series (RECORD_MAX_SERIES): the rest are ignored");
	assert_string_equal(json_string_value(json_array_get(errors, 99)),
			    "53 more errors not listed (RECORD_MAX_ERRORS = 100)");
	json_decref(rec);
}

/*
 * The record keeps both clocks: boot_s the guest's uptime (under icount
 * not the host's time: "boot 161.8s" of a 15 s run), boot_wall_s the
 * host's, which the reports print; none when the host never saw it.
 */
static void test_boot_clocks(void **state)
{
	json_t *rec, *t;
	(void)state;

	boot_wall = 15.25;
	rec = record_of(1, 0, 0);
	t = json_object_get(rec, "timings");
	assert_true(json_real_value(json_object_get(t, "boot_s")) == 1.5);
	assert_true(json_real_value(json_object_get(t, "boot_wall_s")) == 15.25);
	json_decref(rec);
	boot_wall = -1;
	rec = record_of(1, 0, 0);
	assert_null(json_object_get(json_object_get(rec, "timings"), "boot_wall_s"));
	json_decref(rec);
}

/*
 * The bytes of a whole record, as session_record() wrote them before the
 * run record's table drove it (run_record_encode()): the members, their
 * order and their JSON types (0.0, not 0) are the published runs/NNNN.json.
 */
static void test_record_bytes(void **state)
{
	static const char want[] =
		"{\"seq\":1,\"kernel\":\"base\",\"workload\":\"w\",\"status\":\"ok\",\"failure\":"
		"null,\"started\":\"2026-11-30T00:00:00Z\",\"exit_status\":0,\"timings\":{\"boot_s\":1.5,\"workload"
		"_s\":2.0,\"host_overhead_s\":0.0,\"wall_s\":0.0,\"boot_wall_s\":15.25},\"metrics"
		"\":{\"m0\":0,\"m1\":1},\"series\":{\"s0\":[1,2]},\"counters\":{\"vmstat\":{},\"t"
		"racepoints\":{},\"lru_gen\":{}},\"counters_detail\":{\"phases\":{},\"problems\":"
		"[]},\"guest_topology\":{\"v\":1,\"seq\":1,\"type\":\"topology\",\"vcpus_online\""
		":1,\"nodes\":[{\"id\":0,\"cpus\":\"0\",\"memory_kib\":524288,\"distances\":[10]}"
		"]}}";
	json_t *rec;
	char *s;
	(void)state;

	boot_wall = 15.25;
	rec = record_of(2, 1, 0);
	s = json_dumps(rec, JSON_COMPACT);
	assert_string_equal(s, want);
	free(s);
	json_decref(rec);
	boot_wall = -1;
}

/*
 * The workload's exit status is a member of its own: a precondition unmet
 * (2) is told from a failure (1) without parsing "failure"; a workload that
 * did not exit (the runner's -1: a signal) has none.
 */
static void test_exit_status(void **state)
{
	static const struct { int status; long long want; const char *run; } cases[] = {
		{ 0, 0, "ok" }, { 1, 1, "failed" }, { 2, 2, "failed" }, { -1, -1, "failed" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *rec, *st;

		exit_status = cases[i].status;
		rec = record_of(1, 0, 0);
		st = json_object_get(rec, "exit_status");
		assert_string_equal(json_string_value(json_object_get(rec, "status")), cases[i].run);
		if (cases[i].want < 0)
			assert_null(st);
		else
			assert_int_equal(json_integer_value(st), cases[i].want);
		json_decref(rec);
	}
	exit_status = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boot_clocks),
		cmocka_unit_test(test_ok_run),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_record_bytes),
		cmocka_unit_test(test_exit_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
