// SPDX-License-Identifier: GPL-2.0
/* The result channel parser: good streams parse, every kind of garbage is rejected, nothing crashes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "guest_result.h"
#include "guest_protocol.h"
#include "guest_job.h"
#include "strbuf.h"

#define HELLO "{\"v\":1,\"seq\":0,\"type\":\"hello\",\"uptime_s\":1.25}\n"
#define TOPO "{\"v\":1,\"seq\":1,\"type\":\"topology\",\"vcpus_online\":2,\"nodes\":[" \
	"{\"id\":0,\"cpus\":\"0\",\"memory_kib\":460000,\"distances\":[10,20]}," \
	"{\"id\":1,\"cpus\":\"1\",\"memory_kib\":500000,\"distances\":[20,10]}]}\n"
#define METRIC "{\"v\":1,\"seq\":2,\"type\":\"workload\",\"record\":{\"type\":\"metric\",\"name\":\"x\",\"value\":3,\"unit\":\"s\"}}\n"
#define EXIT "{\"v\":1,\"seq\":3,\"type\":\"exit\",\"status\":0}\n"
#define EXIT0 "{\"v\":1,\"seq\":0,\"type\":\"exit\",\"status\":0}\n"
#define DONE "{\"v\":1,\"seq\":4,\"type\":\"done\",\"records\":4}\n"

static void parse(struct guest_result *r, const char *text, size_t len)
{
	guest_result_init(r);
	guest_result_feed(r, text, len);
	guest_result_finish(r);
}

static int has_bad(const struct guest_result *r, const char *needle)
{
	for (size_t i = 0; i < r->bad.n; i++)
		if (strstr(r->bad.v[i], needle))
			return 1;
	return 0;
}

static void expect_bad(const char *text, size_t len, const char *needle)
{
	struct guest_result r;

	parse(&r, text, len);
	if (!has_bad(&r, needle)) {
		for (size_t i = 0; i < r.bad.n; i++)
			print_message("  bad: %s\n", r.bad.v[i]);
		fail_msg("expected a rejected line containing '%s'", needle);
	}
	guest_result_release(&r);
}

static void expect_bads(const char *text, const char *needle)
{
	expect_bad(text, strlen(text), needle);
}

static void test_good_stream(void **state)
{
	const char text[] = HELLO TOPO METRIC EXIT DONE;
	struct guest_result r;
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	/* fed one byte at a time: line assembly must not depend on chunking */
	guest_result_init(&r);
	for (size_t i = 0; i < sizeof(text) - 1; i++)
		guest_result_feed(&r, text + i, 1);
	guest_result_finish(&r);
	assert_int_equal(r.bad.n, 0);
	assert_int_equal(r.valid, 5);
	assert_true(r.done);
	assert_int_equal(json_array_size(r.records), 1);
	assert_true(guest_result_uptime(&r) == 1.25);
	assert_int_equal(guest_result_topology(&r, &t, &err), 0);
	assert_int_equal(t.nr_nodes, 2);
	assert_int_equal(t.vcpus, 2);
	assert_int_equal(t.nodes[1].distances[0], 20);
	assert_true(cpuset_has(&t.nodes[1].cpus, 1));
	guest_result_release(&r);
	sb_release(&err);
}

/*
 * The topology record's strings, decoded as it is kept: one of another
 * type reads as absent, and a later record replaces the earlier one's.
 */
static void test_topology_strings(void **state)
{
	const char text[] =
		"{\"v\":1,\"seq\":0,\"type\":\"topology\",\"nodes\":[],"
		"\"kernel_release\":\"6.12.57\",\"lru_gen\":\"0x0007\"}\n"
		"{\"v\":1,\"seq\":1,\"type\":\"topology\",\"nodes\":[],"
		"\"kernel_release\":\"6.13.0\",\"lru_gen\":7}\n";
	struct guest_result r;

	(void)state;
	parse(&r, text, strlen(text));
	assert_int_equal(r.bad.n, 0);
	assert_string_equal(r.kernel_release, "6.13.0");
	assert_null(r.lru_gen);
	guest_result_release(&r);

	parse(&r, HELLO, strlen(HELLO));
	assert_null(r.kernel_release);
	assert_null(r.lru_gen);
	guest_result_release(&r);
}

static void test_malformed(void **state)
{
	(void)state;
	/* truncated: the guest died mid-record */
	expect_bads(HELLO "{\"v\":1,\"seq\":1,\"ty", "truncated");
	/* invalid JSON */
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"hello\",}\n", "invalid JSON");
	expect_bads("garbage\n", "invalid JSON");
	expect_bads("[1,2]\n", "not a JSON object");
	/* invalid UTF-8: a lone continuation byte, an overlong '/', a surrogate, a cut sequence */
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"he\x80llo\"}\n", "invalid UTF-8 at byte 25");
	expect_bads("\xc0\xaf\n", "invalid UTF-8 at byte 0");
	expect_bads("\xed\xa0\x80\n", "invalid UTF-8");
	expect_bads("ab\xe2\x82\n", "invalid UTF-8 at byte 2");
	/* NUL inside */
	expect_bad("{\"v\":1}\0\n", 9, "NUL byte");
	/* protocol violations */
	expect_bads("{\"v\":2,\"seq\":0,\"type\":\"hello\"}\n", "protocol version");
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"bogus\"}\n", "unknown record type");
	expect_bads("{\"v\":1,\"seq\":0}\n", "no \"type\"");
	expect_bads(HELLO HELLO, "repeated sequence number");
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"hello\",\"type\":\"done\"}\n", "invalid JSON");
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"workload\",\"record\":{\"type\":\"metric\",\"name\":\"x\",\"value\":\"3\"}}\n",
		    "numeric \"value\"");
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"workload\",\"record\":7}\n", "not an object");
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"done\",\"records\":5}\n", "does not count");
	expect_bads("{\"v\":1,\"seq\":0,\"type\":\"done\",\"records\":0}\n" HELLO,
		    "after \"done\"");
	expect_bads("{\"v\":1,\"seq\":3,\"type\":\"hello\"}\n", "records 0 to 2 were lost");
	/* deep nesting must not overflow the stack (jansson caps the depth) */
	{
		size_t n = 100000;
		char *deep = malloc(2 * n + 2);
		memset(deep, '[', n);
		memset(deep + n, ']', n);
		deep[2 * n] = '\n';
		expect_bad(deep, 2 * n + 1, "invalid JSON");
		free(deep);
	}
}

/*
 * A guest's "seq" is any JSON integer: the largest one must not overflow
 * the next expected number (UBSan), and what comes after it must not be
 * accepted as if the count had started again.
 */
static void test_seq_overflow(void **state)
{
	struct guest_result r;
	const char text[] = "{\"v\":1,\"seq\":9223372036854775807,\"type\":\"hello\"}\n" HELLO;

	(void)state;
	parse(&r, text, sizeof(text) - 1);
	assert_true(has_bad(&r, "line 1: sequence number 9223372036854775807 out of range"));
	/* the replayed seq 0 is the first valid record, not a second stream */
	assert_non_null(r.hello);
	assert_int_equal(r.valid, 1);
	guest_result_release(&r);

	/* after a record at the highest accepted seq, a replayed seq 0 is a repeat */
	{
		char *big = xasprintf("{\"v\":1,\"seq\":%lld,\"type\":\"hello\"}\n" HELLO,
				      (long long)GUEST_SEQ_MAX);
		parse(&r, big, strlen(big));
		assert_true(has_bad(&r, "line 2: missing or repeated sequence number"));
		assert_int_equal(r.valid, 1);
		guest_result_release(&r);
		free(big);
	}
	expect_bads("{\"v\":1,\"seq\":-1,\"type\":\"hello\"}\n", "out of range");
}

/*
 * The workload's records and its exit, decoded once by the parser: the
 * session reads these members (session_record()), never the JSON by key.
 */
static void test_records_typed(void **state)
{
	const char text[] =
		"{\"v\":1,\"seq\":0,\"type\":\"workload\",\"record\":{\"type\":\"metric\","
		"\"name\":\"ops\",\"value\":12}}\n"
		"{\"v\":1,\"seq\":1,\"type\":\"workload\",\"record\":{\"type\":\"metric\","
		"\"name\":\"lat\",\"value\":1.5}}\n"
		"{\"v\":1,\"seq\":2,\"type\":\"workload\",\"record\":{\"type\":\"series\","
		"\"name\":\"s\",\"values\":[1,2]}}\n"
		"{\"v\":1,\"seq\":3,\"type\":\"workload\",\"record\":{\"type\":\"series\","
		"\"name\":\"t\",\"values\":\"no\"}}\n"
		"{\"v\":1,\"seq\":4,\"type\":\"workload\",\"record\":{\"type\":\"error\","
		"\"reason\":\"disk full\"}}\n"
		"{\"v\":1,\"seq\":5,\"type\":\"workload\",\"record\":{\"type\":\"info\","
		"\"name\":\"counter_overhead\"}}\n"
		"{\"v\":1,\"seq\":6,\"type\":\"workload\",\"record\":{\"type\":\"novel\"}}\n"
		"{\"v\":1,\"seq\":7,\"type\":\"exit\",\"status\":3,\"elapsed_s\":2.5}\n";
	struct guest_result r;

	(void)state;
	parse(&r, text, sizeof(text) - 1);
	assert_int_equal(r.bad.n, 0);
	assert_int_equal(r.nrecs, 7);
	assert_int_equal(r.recs[0].type, GUEST_RECORD_METRIC);
	assert_string_equal(r.recs[0].name, "ops");
	assert_true(r.recs[0].value_is_int && r.recs[0].ivalue == 12 && r.recs[0].value == 12);
	assert_false(r.recs[1].value_is_int);
	assert_true(r.recs[1].value == 1.5);
	assert_int_equal(r.recs[2].type, GUEST_RECORD_SERIES);
	assert_int_equal(json_array_size(r.recs[2].values), 2);
	assert_null(r.recs[3].values);	/* not an array: none */
	assert_int_equal(r.recs[4].type, GUEST_RECORD_ERROR);
	assert_string_equal(r.recs[4].reason, "disk full");
	assert_int_equal(r.recs[5].type, GUEST_RECORD_INFO);
	assert_ptr_equal(r.recs[5].json, json_array_get(r.records, 5));
	assert_int_equal(r.recs[6].type, GUEST_RECORD_OTHER);
	assert_true(r.exit.seen);
	assert_int_equal(r.exit.status, 3);
	assert_true(r.exit.elapsed_s == 2.5);
	guest_result_release(&r);

	/* no exit record: not seen; one without elapsed_s: NaN */
	parse(&r, HELLO, strlen(HELLO));
	assert_false(r.exit.seen);
	guest_result_release(&r);
	parse(&r, EXIT0, strlen(EXIT0));
	assert_int_equal(r.bad.n, 0);
	assert_true(r.exit.seen);
	assert_true(isnan(r.exit.elapsed_s));
	guest_result_release(&r);
}

/* The host holds the runner's cap on workload records again: its memory is bounded by it. */
static void test_records_cap(void **state)
{
	struct guest_result r;
	char line[160];

	(void)state;
	guest_result_init(&r);
	for (long i = 0; i <= GUEST_WORKLOAD_RECORDS_MAX; i++) {
		int n = snprintf(line, sizeof(line),
				 "{\"v\":1,\"seq\":%ld,\"type\":\"workload\",\"record\":{\"type\":\"info\"}}\n", i);
		guest_result_feed(&r, line, (size_t)n);
	}
	guest_result_finish(&r);
	assert_int_equal(json_array_size(r.records), GUEST_WORKLOAD_RECORDS_MAX);
	assert_int_equal(r.bad.n, 1);
	assert_non_null(strstr(r.bad.v[0], "more workload records than GUEST_WORKLOAD_RECORDS_MAX (100000)"));
	guest_result_release(&r);
}

static void test_oversized(void **state)
{
	struct guest_result r;
	size_t big = GUEST_RECORD_MAX + 10;
	char *text = malloc(big + sizeof(HELLO) + sizeof(TOPO));

	(void)state;
	/* an over-long line is dropped without buffering it whole; the next line still parses */
	memset(text, 'x', big);
	text[big] = '\n';
	memcpy(text + big + 1, HELLO, sizeof(HELLO) - 1);
	guest_result_init(&r);
	for (size_t off = 0; off < big + sizeof(HELLO); off += 4096) {
		size_t n = big + sizeof(HELLO) - off;
		guest_result_feed(&r, text + off, n > 4096 ? 4096 : n);
	}
	guest_result_finish(&r);
	assert_true(has_bad(&r, "line 1: longer than"));
	assert_non_null(r.hello);
	assert_true(r.pending.alloc <= 2 * GUEST_RECORD_MAX + 65536);	/* bounded */
	guest_result_release(&r);
	free(text);
}

static void test_random_garbage(void **state)
{
	unsigned int seed = 12345;
	char buf[4096];

	(void)state;
	/* random bytes: only rejections, never a crash or a sanitizer report */
	for (int round = 0; round < 300; round++) {
		struct guest_result r;
		struct guest_topology t;
		struct strbuf err = STRBUF_INIT;

		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245 + 12345;
			buf[i] = (char)(seed >> 16);
			if (round % 2 && (seed >> 8) % 7 == 0)
				buf[i] = "{}[]\":,\n1v"[(seed >> 4) % 10];
		}
		parse(&r, buf, sizeof(buf));
		assert_int_equal(r.valid, 0);
		assert_int_equal(guest_result_topology(&r, &t, &err), -1);
		guest_result_release(&r);
		sb_release(&err);
	}
}

static void test_bad_topology(void **state)
{
	const char *texts[] = {
		"{\"v\":1,\"seq\":0,\"type\":\"topology\",\"nodes\":[]}\n",
		"{\"v\":1,\"seq\":0,\"type\":\"topology\",\"nodes\":[{\"id\":1,\"cpus\":\"0\"}]}\n",
		"{\"v\":1,\"seq\":0,\"type\":\"topology\",\"nodes\":[{\"id\":0,\"cpus\":\"0-9999\"}]}\n",
		"{\"v\":1,\"seq\":0,\"type\":\"topology\",\"nodes\":[{\"id\":0,\"cpus\":7}]}\n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct guest_result r;
		struct guest_topology t;
		struct strbuf err = STRBUF_INIT;

		parse(&r, texts[i], strlen(texts[i]));
		assert_int_equal(guest_result_topology(&r, &t, &err), -1);
		assert_true(err.len > 0);
		guest_result_release(&r);
		sb_release(&err);
	}
}

/* One check, one wording, for `guest boot|run` and session runs alike. */
static void test_topology_problem(void **state)
{
	struct guest_result r, none;
	struct guest_topology declared;
	struct strbuf err = STRBUF_INIT;
	char *msg;
	(void)state;

	parse(&r, HELLO TOPO, strlen(HELLO TOPO));
	assert_int_equal(guest_result_topology(&r, &declared, &err), 0);
	declared.name = strdup("numa2");
	assert_null(guest_result_topology_problem(&r, &declared));

	declared.nr_nodes = 1;
	msg = guest_result_topology_problem(&r, &declared);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "the guest's topology does not match numa2:\n"
				    "declared 1 NUMA nodes, the guest shows 2\n"));
	assert_non_null(strstr(msg, "\ndeclared:\n  2 vCPUs, 937 MiB, 1 node\n"));
	assert_non_null(strstr(msg, "\nthe guest shows:\n  2 vCPUs, 937 MiB, 2 nodes\n"));
	assert_non_null(strstr(msg, "\n  node 1: cpus 1,"));
	free(msg);

	/* no topology record: the reason, then what was declared, on lines of their own */
	parse(&none, HELLO, strlen(HELLO));
	msg = guest_result_topology_problem(&none, &declared);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "does not match numa2:\nthe guest did not report its topology\n"
				    "declared:\n"));
	assert_non_null(strstr(msg, "the guest shows:\n  (nothing reported)"));
	free(msg);

	guest_topology_release(&declared);
	guest_result_release(&r);
	guest_result_release(&none);
	sb_release(&err);
}

static void test_job_json(void **state)
{
	const char *args[] = { "--mm=shared", "--cpus=1,2", "--text=a\"b\\c", NULL };
	char *s = guest_job_json("sess/0001", "yield_pingpong", args, 30);
	json_t *j = json_loads(s, 0, NULL);

	(void)state;
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, GUEST_JOB_V)), GUEST_PROTOCOL_VERSION);
	assert_string_equal(json_string_value(json_object_get(j, GUEST_JOB_WORKLOAD)), "yield_pingpong");
	assert_string_equal(json_string_value(json_object_get(j, GUEST_JOB_RUN_ID)), "sess/0001");
	assert_int_equal(json_array_size(json_object_get(j, GUEST_JOB_ARGS)), 3);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, GUEST_JOB_ARGS), 2)),
			    "--text=a\"b\\c");
	assert_int_equal(json_integer_value(json_object_get(j, GUEST_JOB_TIMEOUT)), 30);
	assert_true(strlen(s) < GUEST_JOB_MAX);
	json_decref(j);
	free(s);
	s = guest_job_json(NULL, NULL, NULL, 0);	/* a topology-only boot */
	j = json_loads(s, 0, NULL);
	assert_string_equal(json_string_value(json_object_get(j, GUEST_JOB_WORKLOAD)), "");
	json_decref(j);
	free(s);
}

/* The tracepoints a job counts are enabled at boot; nothing else goes on the command line. */
static void test_job_cmdline(void **state)
{
	const char *tps[] = { "--mm=shared", "--tracepoints=sched:sched_switch, vmscan:mm_vmscan_lru_gen_age",
			      NULL };
	const char *off[] = { "--tracepoints=sched:sched_switch", "--counters=0", NULL };
	const char *none[] = { "--tracepoints=", "--counters=1", NULL };
	const char *bad[] = { "--tracepoints=sched:sched_switch,a b;reboot,x:y\"z", NULL };
	const char *many[3] = { NULL, NULL, NULL };
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	s = guest_job_cmdline(tps);
	assert_string_equal(s, "trace_event=sched:sched_switch,vmscan:mm_vmscan_lru_gen_age");
	free(s);
	assert_null(guest_job_cmdline(off));
	assert_null(guest_job_cmdline(none));
	assert_null(guest_job_cmdline(NULL));
	/* what is not sys:event never reaches the kernel's command line */
	s = guest_job_cmdline(bad);
	assert_string_equal(s, "trace_event=sched:sched_switch");
	free(s);
	/* a long list is cut well inside the kernel's 2,048 bytes */
	sb_adds(&sb, "--tracepoints=");
	for (int i = 0; i < 200; i++)
		sb_addf(&sb, "%ssys%d:event_number_%d", i ? "," : "", i, i);
	many[0] = sb_str(&sb);
	s = guest_job_cmdline(many);
	assert_non_null(s);
	assert_true(strlen(s) <= 1024);
	assert_true(strlen(s) > 900);
	assert_int_equal(strncmp(s, "trace_event=sys0:event_number_0,sys1:", 37), 0);
	free(s);
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_stream),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_seq_overflow),
		cmocka_unit_test(test_records_cap),
		cmocka_unit_test(test_records_typed),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_random_garbage),
		cmocka_unit_test(test_bad_topology),
		cmocka_unit_test(test_topology_strings),
		cmocka_unit_test(test_topology_problem),
		cmocka_unit_test(test_job_json),
		cmocka_unit_test(test_job_cmdline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
