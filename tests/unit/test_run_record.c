// SPDX-License-Identifier: GPL-2.0
/*
 * The run record's decoder (run_record.c): every member typed as the
 * schema says, null where a writer may not know, and a hand-edited or
 * hostile member an error naming it with the path report_load() always
 * gave, never a crash or a silent zero. Built with ASan: what a record
 * allocates, run_record_release() frees, on success and on error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "run_record.h"
#include "util.h"

static json_t *full_run(void)
{
	json_t *r = json_pack("{s:i, s:i, s:s, s:s, s:b, s:s, s:n, s:s, s:i, s:s, s:i,"
			      " s:{s:f, s:f, s:f, s:f, s:f}, s:{s:f, s:n, s:i},"
			      " s:{s:{s:i}, s:{}}, s:[s, s], s:{s:[i]}}",
			      "seq", 7, "block", 3, "kernel", "base", "workload", "yield",
			      "warmup", 0, "status", "ok", "failure", "started",
			      "2026-12-01T10:00:00Z", "exit_status", 0, "host", "rack-a", "slot", 2,
			      "timings", "boot_s", 1.5, "workload_s", 20.25, "host_overhead_s", 0.5,
			      "wall_s", 23.0, "boot_wall_s", 2.25,
			      "metrics", "ops_per_sec", 1234.5, "p99_us", "switches", 42,
			      "counters", "vmstat", "pgfault", 10, "tracepoints",
			      "guest_messages", "hello", "world",
			      "series", "gen_ms", 3);

	assert_non_null(r);
	return r;
}

static void test_decode_full(void **state)
{
	json_t *r = full_run();
	struct run_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(run_record_decode(r, &rec, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(rec.seq, 7);
	assert_int_equal(rec.block, 3);
	assert_string_equal(rec.kernel, "base");
	assert_string_equal(rec.workload, "yield");
	assert_false(rec.warmup);
	assert_true(rec.ok);
	assert_null(rec.failure);
	assert_string_equal(rec.started, "2026-12-01T10:00:00Z");
	assert_int_equal(rec.exit_status, 0);
	assert_true(rec.timings.wall_s == 23.0);
	assert_string_equal(rec.host, "rack-a");
	assert_int_equal(rec.slot, 2);
	assert_true(rec.timings.boot_s == 1.5 && rec.timings.workload_s == 20.25 &&
		    rec.timings.host_overhead_s == 0.5);
	/* The boot on the host's clock, beside the guest's. */
	assert_true(rec.timings.boot_wall_s == 2.25);
	/* In the record's order, null kept as NaN (a missing value, not zero). */
	assert_int_equal(rec.nr_metrics, 3);
	assert_string_equal(rec.metrics[0].name, "ops_per_sec");
	assert_true(rec.metrics[0].value == 1234.5);
	assert_string_equal(rec.metrics[1].name, "p99_us");
	assert_true(isnan(rec.metrics[1].value));
	assert_string_equal(rec.metrics[2].name, "switches");
	assert_true(rec.metrics[2].value == 42);
	assert_ptr_equal(rec.counters, json_object_get(r, "counters"));
	assert_int_equal(rec.nr_guest_messages, 2);
	/* What the record does not type is in the element it points to. */
	assert_ptr_equal(rec.json, r);
	/* Strings point into the JSON: no copies to free. */
	assert_ptr_equal(rec.kernel, json_string_value(json_object_get(r, "kernel")));
	run_record_release(&rec);
	assert_null(rec.metrics);
	assert_int_equal(rec.nr_metrics, 0);
	run_record_release(&rec);	/* twice is harmless */
	sb_release(&err);
	json_decref(r);
}

/* What an old or partial writer leaves out, and null where it may: "none". */
static void test_decode_nulls_and_absent(void **state)
{
	json_t *r = json_pack("{s:f, s:n, s:s, s:s, s:n, s:s, s:n, s:n, s:n, s:n,"
			      " s:{s:n, s:n}, s:n, s:n, s:n}",
			      "seq", 9.0, "block", "kernel", "base", "workload", "yield",
			      "warmup", "status", "failed", "failure", "started", "host", "slot",
			      "timings", "boot_s", "workload_s", "metrics", "counters",
			      "guest_messages");
	struct run_record rec;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(run_record_decode(r, &rec, &err), 0);
	assert_int_equal(rec.seq, 9);	/* 9.0: an integer from another writer */
	assert_int_equal(rec.block, -1);
	assert_false(rec.warmup);
	assert_false(rec.ok);
	assert_null(rec.failure);
	assert_null(rec.started);
	/* Records from before exit_status: the workload's exit unknown, not 0. */
	assert_int_equal(rec.exit_status, -1);
	assert_null(rec.host);
	assert_int_equal(rec.slot, -1);
	assert_true(isnan(rec.timings.boot_s) && isnan(rec.timings.workload_s) &&
		    isnan(rec.timings.host_overhead_s));
	/* Records from before boot_wall_s load: none, not 0. */
	assert_true(isnan(rec.timings.boot_wall_s));
	/* A failed run need not say what it measured. */
	assert_int_equal(rec.nr_metrics, 0);
	assert_null(rec.metrics);
	assert_null(rec.counters);
	assert_null(rec.guest_messages);
	assert_int_equal(rec.nr_guest_messages, 0);
	run_record_release(&rec);

	/* Warm-ups are written with block 0: a block, not an absent one. */
	json_object_set_new(r, "block", json_integer(0));
	json_object_set_new(r, "warmup", json_true());
	json_object_set_new(r, "failure", json_string("boot timeout"));
	assert_int_equal(run_record_decode(r, &rec, &err), 0);
	assert_int_equal(rec.block, 0);
	assert_true(rec.warmup);
	assert_string_equal(rec.failure, "boot timeout");
	run_record_release(&rec);
	sb_release(&err);
	json_decref(r);
}

/* One member of a good record replaced, and the error that names it. */
struct hostile {
	const char *key;	/* top-level member to set */
	const char *json;	/* its value (NULL: delete it) */
	const char *error;
};

static const struct hostile hostile[] = {
	{ "seq", NULL, "seq: missing (expected an integer)" },
	{ "seq", "\"7\"", "seq: expected an integer, got a string" },
	{ "seq", "7.5", "seq: expected an integer, got a number" },
	{ "seq", "1e300", "seq: expected an integer, got a number" },
	{ "block", "[]", "block: expected an integer, got an array" },
	{ "kernel", NULL, "kernel: missing (expected a string)" },
	{ "kernel", "null", "kernel: expected a string, got null" },
	{ "workload", "1", "workload: expected a string, got an integer" },
	{ "warmup", "\"yes\"", "warmup: expected true or false, got a string" },
	{ "status", NULL, "status: missing (expected a string)" },
	{ "status", "\"passed\"", "status: expected \"ok\" or \"failed\"" },
	{ "failure", "{}", "failure: expected a string or null, got an object" },
	{ "started", "0", "started: expected a string, got an integer" },
	{ "exit_status", "\"2\"", "exit_status: expected an integer, got a string" },
	{ "exit_status", "256", "exit_status: expected an integer from 0 to 255, got 256" },
	{ "exit_status", "-1", "exit_status: expected an integer from 0 to 255, got -1" },
	{ "host", "7", "host: expected a string, got an integer" },
	{ "host", "\"\"", "host: expected a host name of 1 to 64 printable ASCII characters" },
	{ "host", "\"a\\u001b[2Jb\"", "host: expected a host name of 1 to 64 printable" },
	{ "host", "\"h\\u00e9\"", "host: expected a host name of 1 to 64 printable" },
	{ "slot", "-1", "slot: expected a slot from 0 to 1023, got -1" },
	{ "slot", "1024", "slot: expected a slot from 0 to 1023, got 1024" },
	{ "slot", "\"0\"", "slot: expected an integer, got a string" },
	{ "timings", "[]", "timings: expected an object, got an array" },
	{ "timings", "{\"boot_s\": \"1\"}", "timings.boot_s: expected a number or null, got a string" },
	{ "timings", "{\"boot_wall_s\": \"1\"}",
	  "timings.boot_wall_s: expected a number or null, got a string" },
	{ "timings", "{\"host_overhead_s\": true}",
	  "timings.host_overhead_s: expected a number or null, got a boolean" },
	{ "metrics", NULL, "metrics: missing (expected an object)" },
	{ "metrics", "null", "metrics: expected an object, got null" },
	{ "metrics", "{\"a\": 1, \"ops\": \"fast\"}", "metrics.ops: expected a number or null, got a string" },
	/* A name from the file is filtered in the message, as every path is. */
	{ "metrics", "{\"\\u001b[2Jx\": []}", "metrics.?[2Jx: expected a number or null, got an array" },
	{ "counters", "1", "counters: expected an object, got an integer" },
	{ "counters", "{\"vmstat\": 3}", "counters.vmstat: expected an object, got an integer" },
	{ "counters", "{\"vmstat\": {\"pgfault\": {}}}",
	  "counters.vmstat.pgfault: expected a number or null, got an object" },
	{ "guest_messages", "\"hi\"", "guest_messages: expected an array, got a string" },
	{ "guest_messages", "[\"a\", 1]", "guest_messages[1]: expected a string, got an integer" },
	{ "partners", "{}", "partners: expected an array, got an object" },
	{ "partners", "[{\"workload\": \"y\", \"kernel\": \"base\"}, {\"workload\": 1}]",
	  "partners[1]: expected an object {workload, kernel} of strings, got an object" },
	{ "partners", "[\"y\"]", "partners[0]: expected an object {workload, kernel} of strings, got a string" },
};

static void test_hostile_members(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++) {
		const struct hostile *h = &hostile[i];
		json_t *r = full_run();
		struct run_record rec;

		if (h->json) {
			json_t *v = json_loads(h->json, JSON_DECODE_ANY, NULL);

			assert_non_null(v);
			json_object_set_new(r, h->key, v);
		} else {
			json_object_del(r, h->key);
		}
		sb_reset(&err);
		if (run_record_decode(r, &rec, &err) != -1)
			fail_msg("%s = %s decoded", h->key, h->json ? h->json : "(absent)");
		if (strncmp(sb_str(&err), h->error, strlen(h->error)))
			fail_msg("%s = %s: \"%s\", expected \"%s\"", h->key,
				 h->json ? h->json : "(absent)", sb_str(&err), h->error);
		/* Nothing to release on error: ASan would see a leak otherwise. */
		json_decref(r);
	}
	sb_reset(&err);
	{
		struct run_record rec;
		json_t *arr = json_array();

		assert_int_equal(run_record_decode(arr, &rec, &err), -1);
		assert_string_equal(sb_str(&err), "expected an object, got an array");
		json_decref(arr);
	}
	sb_release(&err);
}

static int known(const char *name, const void *data)
{
	(void)data;
	return !strcmp(name, "base") || !strcmp(name, "patched");
}

/* A whole array: the path from the top, the kernel names, and nothing left allocated. */
static void test_records_decode(void **state)
{
	const struct run_kernel_names names = { known, NULL };
	json_t *runs = json_array(), *bad;
	struct run_records rs = RUN_RECORDS_INIT;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	for (int i = 0; i < 3; i++) {
		json_t *r = full_run();

		json_object_set_new(r, "seq", json_integer(i + 1));
		json_array_append_new(runs, r);
	}
	json_object_set_new(json_array_get(runs, 1), "kernel", json_string("patched"));
	assert_int_equal(run_records_decode(runs, &names, &rs, &err), 0);
	assert_int_equal(rs.n, 3);
	assert_int_equal(rs.v[2].seq, 3);
	assert_string_equal(rs.v[1].kernel, "patched");
	run_records_release(&rs);
	assert_null(rs.v);
	assert_int_equal(rs.n, 0);

	/* The third run's fault, after two runs' metrics were allocated: freed. */
	json_object_set_new(json_object_get(json_array_get(runs, 2), "metrics"), "ops_per_sec",
			    json_string("x"));
	assert_int_equal(run_records_decode(runs, &names, &rs, &err), -1);
	assert_string_equal(sb_str(&err),
			    "runs[2].metrics.ops_per_sec: expected a number or null, got a string");
	assert_int_equal(rs.n, 0);
	assert_null(rs.v);

	/* A kernel not in kernels[], named (filtered) before the host is looked at. */
	sb_reset(&err);
	json_object_set_new(json_array_get(runs, 2), "metrics", json_object());
	json_object_set_new(json_array_get(runs, 0), "kernel", json_string("gh\x7fost"));
	json_object_set_new(json_array_get(runs, 0), "host", json_string(""));
	assert_int_equal(run_records_decode(runs, &names, &rs, &err), -1);
	assert_string_equal(sb_str(&err), "runs[0].kernel: no kernel named \"gh?ost\" in kernels[]");
	/* Unchecked names: then the host is the first fault. */
	sb_reset(&err);
	assert_int_equal(run_records_decode(runs, NULL, &rs, &err), -1);
	assert_string_equal(sb_str(&err), "runs[0].host: expected a host name of 1 to 64 "
			    "printable ASCII characters");

	/* The elements themselves, and the array. */
	sb_reset(&err);
	bad = json_loads("[{}, 3]", 0, NULL);
	assert_int_equal(run_records_decode(bad, NULL, &rs, &err), -1);
	assert_string_equal(sb_str(&err), "runs[0].seq: missing (expected an integer)");
	sb_reset(&err);
	json_array_remove(bad, 0);
	assert_int_equal(run_records_decode(bad, NULL, &rs, &err), -1);
	assert_string_equal(sb_str(&err), "runs[0]: expected an object, got an integer");
	sb_reset(&err);
	assert_int_equal(run_records_decode(NULL, NULL, &rs, &err), -1);
	assert_string_equal(sb_str(&err), "runs: missing (expected an array)");
	sb_reset(&err);
	assert_int_equal(run_records_decode(json_object_get(json_array_get(runs, 1), "kernel"),
					    NULL, &rs, &err), -1);
	assert_string_equal(sb_str(&err), "runs: expected an array, got a string");
	json_decref(bad);
	json_decref(runs);
	sb_release(&err);
}

/* A session's own records: those that decode, in order; the rest counted. */
static void test_records_decode_valid(void **state)
{
	json_t *runs = json_array();
	struct run_records rs;
	(void)state;

	json_array_append_new(runs, full_run());
	json_array_append_new(runs, json_pack("{s:s}", "status", "ok"));
	json_array_append_new(runs, full_run());
	json_object_set_new(json_array_get(runs, 2), "seq", json_integer(8));
	assert_int_equal(run_records_decode_valid(runs, &rs), 1);
	assert_int_equal(rs.n, 2);
	assert_int_equal(rs.v[0].seq, 7);
	assert_int_equal(rs.v[1].seq, 8);
	assert_ptr_equal(rs.v[1].json, json_array_get(runs, 2));
	/* the room it allocated, recorded: a holder grows the array from it (session_done.c) */
	assert_int_equal(rs.alloc, json_array_size(runs) + 1);
	run_records_release(&rs);
	assert_int_equal(rs.alloc, 0);
	assert_int_equal(run_records_decode_valid(NULL, &rs), 0);
	assert_int_equal(rs.n, 0);
	run_records_release(&rs);
	json_decref(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_full),
		cmocka_unit_test(test_decode_nulls_and_absent),
		cmocka_unit_test(test_hostile_members),
		cmocka_unit_test(test_records_decode),
		cmocka_unit_test(test_records_decode_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
