// SPDX-License-Identifier: GPL-2.0
/* Guest JSON lines -> counters JSON for the report (counters_delta_json, counters_flat_json). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "counters.h"
#include "test_counters_fixture.h"

static void add_snapshot(struct counters *c, const char *phase, const char *label,
			 const char *source, const char *tp, const char *fixture_name)
{
	size_t len;
	char *t = fixture(fixture_name, &len);
	json_t *o = json_pack("{s:s, s:s, s:s, s:s%}", "type", "snapshot", "phase", phase,
			      "source", source, "text", t, len);

	if (label)
		json_object_set_new(o, "label", json_string(label));
	if (tp)
		json_object_set_new(o, "tracepoint", json_string(tp));
	assert_int_equal(counters_add_line(c, o), 0);
	json_decref(o);
	free(t);
}

static json_t *path(json_t *o, const char *const *keys)
{
	for (; *keys && o; keys++)
		o = json_object_get(o, *keys);
	return o;
}

#define P(o, ...) path((o), (const char *const[]){ __VA_ARGS__, NULL })

static void test_pipeline(void **state)
{
	struct counters *c = counters_new();
	const char *lines =
		"{\"type\":\"info\",\"tracepoint\":\"vmscan:mm_vmscan_lru_gen_walk_empty\","
		"\"absent\":true,\"reason\":\"absent: no such event in this kernel\"}\n"
		"{\"type\":\"info\",\"name\":\"counter_overhead\",\"before_ms\":1.5,"
		"\"after_ms\":2.5,\"total_ms\":4}\n"
		"{\"type\":\"metric\",\"name\":\"x\",\"value\":1,\"unit\":\"u\"}\n"
		"not json at all\n";
	json_t *j, *node1;

	(void)state;
	add_snapshot(c, "before", NULL, "/proc/vmstat", NULL, "vmstat.before");
	add_snapshot(c, "after", NULL, "/proc/vmstat", NULL, "vmstat.after");
	add_snapshot(c, "before", NULL, "/sys/devices/system/node/node0/vmstat", NULL,
		     "node0_vmstat.txt");
	add_snapshot(c, "after", NULL, "/sys/devices/system/node/node0/vmstat", NULL,
		     "node0_vmstat.txt");
	add_snapshot(c, "before", NULL, "/sys/kernel/debug/lru_gen_full", NULL, "lru_gen_full.before");
	add_snapshot(c, "after", NULL, "/sys/kernel/debug/lru_gen_full", NULL, "lru_gen_full.after");
	add_snapshot(c, "after", NULL, "/sys/kernel/tracing/events/sched/sched_switch/hist",
		     "sched:sched_switch", "hist_single.txt");
	/* A labelled phase with only a "before": a problem, not a crash. */
	add_snapshot(c, "before", "2cpu", "/proc/vmstat", NULL, "vmstat.before");
	counters_add_text(c, lines, strlen(lines));

	j = counters_delta_json(c);
	assert_non_null(j);
	assert_true(json_integer_value(P(j, "phases", "main", "vmstat", "events", "pgfault")) > 0);
	assert_non_null(P(j, "phases", "main", "vmstat", "gauges", "nr_free_pages", "before"));
	assert_int_equal(json_integer_value(P(j, "phases", "main", "nodes", "0", "events", "numa_hit")), 0);
	assert_int_equal(json_integer_value(P(j, "phases", "main", "tracepoints", "sched:sched_switch",
					      "count")), 48213);
	assert_true(json_is_true(P(j, "phases", "main", "tracepoints",
				   "vmscan:mm_vmscan_lru_gen_walk_empty", "absent")));
	assert_true(json_number_value(P(j, "phases", "main", "overhead_ms", "total")) == 4.0);

	/* memcg 7 node 1 aged 3 -> 6: walk stats of seq 3, 4 and 5. */
	node1 = json_array_get(P(json_array_get(P(j, "phases", "main", "lru_gen", "memcgs"), 1),
				 "nodes"), 1);
	assert_int_equal(json_integer_value(P(node1, "node")), 1);
	assert_int_equal(json_integer_value(P(node1, "generations_added")), 3);
	assert_int_equal(json_integer_value(P(node1, "mm_walk", "leaf_total")), 1238 * (3 + 4 + 5));
	/* The memcg created during the phase is marked new. */
	assert_true(json_is_true(P(json_array_get(P(j, "phases", "main", "lru_gen", "memcgs"), 2),
				   "new")));
	/* No will-it-scale output was fed: no such member. */
	assert_null(P(j, "will_it_scale"));
	/* Missing "after" and the non-JSON line are reported. */
	assert_int_equal(json_array_size(P(j, "problems")), 2);
	json_decref(j);
	counters_free(c);
}

static void test_will_it_scale_text(void **state)
{
	struct counters *c = counters_new();
	size_t len;
	char *t = fixture("wis_sched_yield.txt", &len);
	json_t *o = json_pack("{s:s, s:s, s:s%}", "type", "info", "name", "will_it_scale_output",
			      "text", t, len), *j;

	(void)state;
	assert_int_equal(counters_add_line(c, o), 0);
	j = counters_delta_json(c);
	assert_string_equal(json_string_value(P(j, "will_it_scale", "testcase")), "Yield");
	assert_int_equal(json_array_size(P(j, "will_it_scale", "measured_totals")), 3);
	assert_int_equal(json_array_size(P(j, "will_it_scale", "warmup_totals")), 3);
	assert_true(json_is_true(P(j, "will_it_scale", "consistent")));
	json_decref(j);
	json_decref(o);
	free(t);
	counters_free(c);
}

/* Real output of build/guest/yield_pingpong --cpus=1,2 on a host without tracefs. */
static void test_real_program_output(void **state)
{
	struct counters *c = counters_new();
	size_t len;
	char *t = fixture("yield_pingpong.jsonl", &len);
	json_t *j;

	(void)state;
	counters_add_text(c, t, len);
	j = counters_delta_json(c);
	assert_int_equal(json_array_size(P(j, "problems")), 0);
	assert_non_null(P(j, "phases", "1cpu", "vmstat", "events", "pgfault"));
	assert_non_null(P(j, "phases", "2cpu", "nodes", "0", "gauges", "nr_free_pages"));
	assert_int_equal(json_array_size(P(j, "phases", "2cpu", "vmstat", "flags")), 0);
	assert_true(json_is_true(P(j, "phases", "1cpu", "tracepoints", "sched:sched_switch", "absent")));
	assert_true(json_number_value(P(j, "phases", "2cpu", "overhead_ms", "total")) > 0);
	json_decref(j);
	free(t);
	counters_free(c);
}

static void test_malformed_snapshot(void **state)
{
	struct counters *c = counters_new();
	json_t *o = json_pack("{s:s, s:s}", "type", "snapshot", "phase", "during"), *j;

	(void)state;
	assert_int_equal(counters_add_line(c, o), -1);
	json_decref(o);
	j = counters_delta_json(c);
	assert_int_equal(json_array_size(json_object_get(j, "problems")), 1);
	assert_int_equal(json_object_size(json_object_get(j, "phases")), 0);
	json_decref(j);
	counters_free(c);
}

static void add_tiny(struct counters *c, const char *phase, const char *label, const char *source)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "snapshot", "phase", phase,
			      "label", label, "source", source, "text", "");

	counters_add_line(c, o);
	json_decref(o);
}

/* Pairs as before: the first "after" of a label and source, orphans on both sides. */
static void test_pairing(void **state)
{
	struct counters *c = counters_new();
	json_t *j, *problems;
	(void)state;

	add_tiny(c, "after", "p1", "/proc/vmstat");		/* paired: a "before" comes later */
	add_tiny(c, "before", "p1", "/proc/vmstat");
	add_tiny(c, "after", "p1", "/proc/vmstat");
	add_tiny(c, "before", "p2", "/proc/vmstat");		/* no "after" */
	add_tiny(c, "after", "p3", "/proc/vmstat");		/* no "before" */
	add_tiny(c, "before", "p1", "/sys/devices/system/node/node1/vmstat");
	add_tiny(c, "after", "p2", "/sys/devices/system/node/node1/vmstat");	/* other label */
	j = counters_delta_json(c);
	assert_non_null(P(j, "phases", "p1", "vmstat"));
	assert_null(P(j, "phases", "p2"));
	assert_null(P(j, "phases", "p3"));
	problems = json_object_get(j, "problems");
	assert_int_equal(json_array_size(problems), 4);
	assert_string_equal(json_string_value(json_array_get(problems, 0)),
			    "/proc/vmstat (p2): no \"after\" snapshot");
	assert_string_equal(json_string_value(json_array_get(problems, 1)),
			    "/proc/vmstat (p3): no \"before\" snapshot");
	assert_string_equal(json_string_value(json_array_get(problems, 2)),
			    "/sys/devices/system/node/node1/vmstat (p1): no \"after\" snapshot");
	assert_string_equal(json_string_value(json_array_get(problems, 3)),
			    "/sys/devices/system/node/node1/vmstat (p2): no \"before\" snapshot");
	json_decref(j);
	counters_free(c);
}

/*
 * 80,000 tiny unpaired snapshots (19.5 s to pair before, each looked for
 * its partner by a scan): the lines past COUNTERS_MAX_SNAPSHOTS are
 * ignored with one problem naming the limit, pairing is a sort, and the
 * problem list stays within COUNTERS_MAX_PROBLEMS however they arise.
 */
static void test_flood(void **state)
{
	struct counters *c = counters_new();
	char label[32];
	json_t *j, *problems;
	clock_t t0 = clock();
	double secs;
	(void)state;

	for (int i = 0; i < 80000; i++) {
		snprintf(label, sizeof(label), "l%d", i);
		add_tiny(c, i % 2 ? "after" : "before", label, "/proc/vmstat");
	}
	j = counters_delta_json(c);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	problems = json_object_get(j, "problems");
	assert_int_equal(json_array_size(problems), COUNTERS_MAX_PROBLEMS);
	assert_string_equal(json_string_value(json_array_get(problems, 0)),
			    "more than 16384 snapshot lines (COUNTERS_MAX_SNAPSHOTS): the rest are ignored");
	assert_string_equal(json_string_value(json_array_get(problems, COUNTERS_MAX_PROBLEMS - 1)),
			    "16286 more problems not listed (COUNTERS_MAX_PROBLEMS = 100)");
	assert_int_equal(json_object_size(json_object_get(j, "phases")), 0);
	if (secs > 5)
		fail_msg("80,000 snapshot lines took %.1f s of CPU", secs);
	json_decref(j);
	counters_free(c);
}

/* The sum over the memcgs of node @nid's member @key (an mm_walk column when @walk). */
static double node_sum(json_t *phase, int nid, const char *key, int walk)
{
	json_t *m, *n;
	size_t i, k;
	double sum = 0;

	json_array_foreach(P(phase, "lru_gen", "memcgs"), i, m)
		json_array_foreach(P(m, "nodes"), k, n)
			if (json_integer_value(P(n, "node")) == nid)
				sum += json_number_value(walk ? P(n, "mm_walk", key) : P(n, key));
	return sum;
}

/*
 * A run record's "counters" (counters_flat_json()): two phases of the same
 * snapshots add up, per vmstat event, tracepoint and node; an absent
 * tracepoint and a flagged event add nothing; every number a real; names
 * in the order the first phase lists them.
 */
static void test_flat(void **state)
{
	static const char *const labels[] = { "1cpu", "2cpu" };
	struct counters *c = counters_new();
	json_t *j, *flat, *one, *absent;
	const char *key;
	json_t *v;

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		add_snapshot(c, "before", labels[i], "/proc/vmstat", NULL, "vmstat.before");
		add_snapshot(c, "after", labels[i], "/proc/vmstat", NULL, "vmstat.after");
		add_snapshot(c, "before", labels[i], "/sys/kernel/debug/lru_gen_full", NULL,
			     "lru_gen_full.before");
		add_snapshot(c, "after", labels[i], "/sys/kernel/debug/lru_gen_full", NULL,
			     "lru_gen_full.after");
		add_snapshot(c, "after", labels[i], "/sys/kernel/tracing/events/sched/sched_switch/hist",
			     "sched:sched_switch", "hist_single.txt");
	}
	absent = json_pack("{s:s, s:s, s:s, s:b, s:s}", "type", "info", "label", "2cpu",
			   "tracepoint", "vmscan:mm_vmscan_lru_gen_walk_empty", "absent", 1,
			   "reason", "absent: no such event in this kernel");
	assert_int_equal(counters_add_line(c, absent), 0);
	json_decref(absent);
	j = counters_delta_json(c);
	flat = counters_flat_json(j);
	one = P(j, "phases", "1cpu");

	json_object_foreach(P(one, "vmstat", "events"), key, v)
		assert_true(json_number_value(P(flat, "vmstat", key)) == 2.0 * json_number_value(v));
	assert_int_equal(json_object_size(P(flat, "vmstat")),
			 json_object_size(P(one, "vmstat", "events")));
	assert_string_equal(json_object_iter_key(json_object_iter(P(flat, "vmstat"))),
			    json_object_iter_key(json_object_iter(P(one, "vmstat", "events"))));
	assert_true(json_is_real(P(flat, "tracepoints", "sched:sched_switch")));
	assert_true(json_real_value(P(flat, "tracepoints", "sched:sched_switch")) == 2 * 48213.0);
	assert_null(P(flat, "tracepoints", "vmscan:mm_vmscan_lru_gen_walk_empty"));
	assert_int_equal(json_object_size(P(flat, "tracepoints")), 1);
	/* memcg 7 node 1 aged 3 -> 6 (test_pipeline), summed with the other memcgs' node 1 */
	assert_true(node_sum(one, 1, "leaf_total", 1) >= 1238 * (3 + 4 + 5));
	assert_true(json_real_value(P(flat, "lru_gen", "node1.leaf_total")) ==
		    2 * node_sum(one, 1, "leaf_total", 1));
	assert_true(json_real_value(P(flat, "lru_gen", "node1.generations_added")) ==
		    2 * node_sum(one, 1, "generations_added", 0));
	json_object_foreach(P(flat, "lru_gen"), key, v)
		assert_true(json_is_real(v));
	json_decref(flat);

	/* nothing measured: the three groups, empty */
	json_decref(j);
	j = json_pack("{s:{}, s:[]}", "phases", "problems");
	flat = counters_flat_json(j);
	assert_int_equal(json_object_size(flat), 3);
	assert_int_equal(json_object_size(P(flat, "vmstat")), 0);
	assert_int_equal(json_object_size(P(flat, "lru_gen")), 0);
	json_decref(flat);
	json_decref(j);
	counters_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipeline),
		cmocka_unit_test(test_will_it_scale_text),
		cmocka_unit_test(test_real_program_output),
		cmocka_unit_test(test_malformed_snapshot),
		cmocka_unit_test(test_pairing),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_flat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
