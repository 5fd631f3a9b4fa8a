// SPDX-License-Identifier: GPL-2.0
/*
 * sequential.json's codec (lab/session/seq_state.c): a state the session
 * wrote reads back whole and is written again byte for byte (a resumed
 * session's file and the report's "sequential" member do not change
 * shape), and a hand-edited or damaged one is refused naming the member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seq_state.h"

/* As session_seq.c writes it (session_write_json(): indented, keys in order). */
#define GOOD "{\"workloads\": {\"yield\": {\"stopped\": true, \"why\": \"decided\", " \
	"\"look\": 2, \"look_block\": 8, \"runs_per_kernel\": 8}, \"build\": {\"stopped\": " \
	"true, \"why\": \"below-first-look\", \"look\": 0, \"runs_per_kernel\": 2}, " \
	"\"idle\": {\"stopped\": false, \"why\": null, \"look\": 0}}, \"looks\": [" \
	"{\"workload\": \"yield\", \"look\": 1, \"runs_per_kernel\": 6, \"alpha\": 0.0125, " \
	"\"verdicts\": {\"cs\": \"inconclusive\"}}, {\"workload\": \"yield\", \"look\": 2, " \
	"\"runs_per_kernel\": 8, \"alpha\": 0.05, \"verdicts\": {\"cs\": \"regression\", " \
	"\"lat\": \"invalid\"}}], \"budget_spent\": false, \"spent_s\": 120.5}"

static json_t *parse(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	return j;
}

static void test_good(void **state)
{
	json_t *j = parse(GOOD);
	struct seq_state s;
	struct strbuf err = STRBUF_INIT;
	struct seq_workload *w;

	(void)state;
	assert_int_equal(seq_state_decode(j, &s, &err), 0);
	assert_int_equal(s.nw, 3);
	w = seq_state_find(&s, "yield");
	assert_non_null(w);
	assert_true(w->stopped);
	assert_int_equal(w->why, SEQ_WHY_DECIDED);
	assert_int_equal(w->look, 2);
	assert_int_equal(w->look_block, 8);
	assert_int_equal(w->runs_per_kernel, 8);
	w = seq_state_find(&s, "build");
	assert_int_equal(w->why, SEQ_WHY_BELOW_FIRST_LOOK);
	assert_int_equal(w->look_block, -1);
	w = seq_state_find(&s, "idle");
	assert_false(w->stopped);
	assert_int_equal(w->why, SEQ_WHY_NONE);
	assert_int_equal(w->runs_per_kernel, -1);
	assert_null(seq_state_find(&s, "other"));
	assert_int_equal(s.nlooks, 2);
	assert_string_equal(s.looks[1].workload, "yield");
	assert_int_equal(s.looks[1].look, 2);
	assert_int_equal(s.looks[1].runs_per_kernel, 8);
	assert_true(s.looks[1].alpha == 0.05);
	assert_int_equal(s.looks[1].nverdicts, 2);
	assert_string_equal(s.looks[1].verdicts[1].metric, "lat");
	assert_string_equal(s.looks[1].verdicts[1].verdict, "invalid");
	assert_int_equal(s.budget_spent, 0);
	assert_true(s.spent_s == 120.5);
	seq_state_release(&s);
	json_decref(j);
	sb_release(&err);
}

/* Encoded again, the text is the same: the order of members included. */
static void test_round_trip(void **state)
{
	json_t *j = parse(GOOD), *e;
	struct seq_state s;
	struct strbuf err = STRBUF_INIT;
	char *a, *b;

	(void)state;
	assert_int_equal(seq_state_decode(j, &s, &err), 0);
	e = seq_state_encode(&s);
	a = json_dumps(j, JSON_INDENT(2));
	b = json_dumps(e, JSON_INDENT(2));
	assert_string_equal(b, a);
	free(a);
	free(b);
	json_decref(e);
	seq_state_release(&s);
	/* a fresh state: what a new session writes first */
	seq_state_init(&s);
	seq_state_workload(&s, "yield");
	e = seq_state_encode(&s);
	a = json_dumps(e, JSON_COMPACT);
	assert_string_equal(a, "{\"workloads\":{\"yield\":{\"stopped\":false,\"why\":null,"
			    "\"look\":0}},\"looks\":[]}");
	free(a);
	json_decref(e);
	seq_state_release(&s);
	json_decref(j);
	sb_release(&err);
}

/* @key of the object at @path ("" the top) set to @val (NULL: removed): refused, naming @want. */
static void bad(const char *path, const char *key, json_t *val, const char *want)
{
	json_t *j = parse(GOOD), *o = j;
	struct seq_state s;
	struct strbuf err = STRBUF_INIT;
	char *p = strdup(path), *tok, *save;

	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		o = json_is_array(o) ? json_array_get(o, strtoul(tok, NULL, 10)) :
			json_object_get(o, tok);
	if (val)
		json_object_set_new(o, key, val);
	else
		json_object_del(o, key);
	assert_int_equal(seq_state_decode(j, &s, &err), -1);
	if (strcmp(sb_str(&err), want))
		fail_msg("%s.%s: got \"%s\", want \"%s\"", path, key, sb_str(&err), want);
	assert_int_equal(s.nw, 0);
	assert_int_equal(s.nlooks, 0);
	free(p);
	json_decref(j);
	sb_release(&err);
}

static void test_bad_members(void **state)
{
	(void)state;
	bad("", "workloads", NULL, "workloads: expected an object, got nothing");
	bad("", "workloads", json_array(), "workloads: expected an object, got an array");
	bad("workloads", "yield", json_true(), "workloads.yield: expected an object, got a boolean");
	bad("workloads/yield", "stopped", json_integer(1),
	    "workloads.yield.stopped: expected a boolean, got an integer");
	bad("workloads/yield", "stopped", NULL,
	    "workloads.yield.stopped: expected a boolean, got nothing");
	bad("workloads/idle", "why", json_string("tired"),
	    "workloads.idle.why: expected null, \"decided\", \"max-runs\", \"budget\", "
	    "\"below-first-look\" or \"placed\", got a string");
	bad("workloads/yield", "look", json_integer(-1),
	    "workloads.yield.look: expected an integer from 0, got an integer");
	bad("workloads/yield", "look_block", json_real(8),
	    "workloads.yield.look_block: expected an integer from 0, got a number");
	bad("workloads/build", "runs_per_kernel", json_string("2"),
	    "workloads.build.runs_per_kernel: expected an integer from 0, got a string");
	bad("", "looks", json_object(), "looks: expected an array, got an object");
	bad("looks/0", "workload", NULL, "looks[0].workload: expected a string, got nothing");
	bad("looks/1", "look", json_integer(0),
	    "looks[1].look: expected an integer from 1, got an integer");
	bad("looks/1", "runs_per_kernel", json_null(),
	    "looks[1].runs_per_kernel: expected an integer from 0, got null");
	bad("looks/0", "alpha", json_real(1.5), "looks[0].alpha: expected a level from 0 to 1, "
	    "got a number");
	bad("looks/0", "verdicts", json_array(), "looks[0].verdicts: expected an object, got an array");
	bad("looks/1/verdicts", "cs", json_integer(1),
	    "looks[1].verdicts.cs: expected a verdict id, got an integer");
	bad("", "budget_spent", json_string("yes"), "budget_spent: expected a boolean, got a string");
	bad("", "spent_s", json_real(-1), "spent_s: expected seconds from 0, got a number");
}

static void test_not_an_object(void **state)
{
	json_t *j = json_pack("[i]", 1);
	struct seq_state s;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(seq_state_decode(j, &s, &err), -1);
	assert_string_equal(sb_str(&err), "the state: expected an object, got an array");
	assert_true(isnan(s.spent_s));
	json_decref(j);
	sb_release(&err);
}

/* design.sequential.placement of the session @j, as struct sdoc_sequential has it. */
static const json_t *placement_of(const json_t *j)
{
	return json_object_get(json_object_get(json_object_get(j, "design"), "sequential"),
			       "placement");
}

/* A bisection probe's placement list: read back as written, each wrong member named. */
static void expect_placement(const char *json, int rc, const char *want)
{
	json_error_t jerr;
	json_t *j = json_loads(json, 0, &jerr);
	struct seq_placements p;
	struct strbuf err = STRBUF_INIT;

	assert_non_null(j);
	assert_int_equal(seq_placements_decode(placement_of(j), &p, &err), rc);
	if (want && !strstr(sb_str(&err), want))
		fail_msg("'%s' does not say '%s'", sb_str(&err), want);
	seq_placements_release(&p);
	sb_release(&err);
	json_decref(j);
}

static void test_placement(void **state)
{
	json_error_t jerr;
	json_t *j = json_loads("{\"design\": {\"sequential\": {\"placement\": [{\"workload\": "
			       "\"yield\", \"metric\": \"cs\", \"midpoint\": 0.5}]}}}", 0, &jerr);
	struct seq_placements p;
	struct strbuf err = STRBUF_INIT;
	json_t *back;
	char *text;

	(void)state;
	assert_int_equal(seq_placements_decode(placement_of(j), &p, &err), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.v[0].workload, "yield");
	assert_string_equal(p.v[0].metric, "cs");
	assert_true(p.v[0].midpoint == 0.5);
	back = seq_placements_encode(&p);
	text = json_dumps(back, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_string_equal(text, "[{\"workload\":\"yield\",\"metric\":\"cs\",\"midpoint\":0.5}]");
	free(text);
	json_decref(back);
	seq_placements_release(&p);
	json_decref(j);
	sb_release(&err);
	/* None: a session that is not a bisection's probe. */
	expect_placement("{\"design\": {\"sequential\": {}}}", 0, NULL);
	expect_placement("{}", 0, NULL);
	expect_placement("{\"design\": {\"sequential\": {\"placement\": {}}}}", -1,
			 "design.sequential.placement: expected an array, got an object");
	expect_placement("{\"design\": {\"sequential\": {\"placement\": [1]}}}", -1,
			 "design.sequential.placement[0]: expected an object");
	expect_placement("{\"design\": {\"sequential\": {\"placement\": [{\"metric\": \"m\", "
			 "\"midpoint\": 1.1}]}}}", -1,
			 "design.sequential.placement[0].workload: expected a string");
	expect_placement("{\"design\": {\"sequential\": {\"placement\": [{\"workload\": \"w\", "
			 "\"metric\": \"m\", \"midpoint\": 1}]}}}", -1,
			 "placement[0].midpoint: expected a positive ratio other than 1");
	expect_placement("{\"design\": {\"sequential\": {\"placement\": [{\"workload\": \"w\", "
			 "\"metric\": \"m\", \"midpoint\": -2}]}}}", -1, "midpoint");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_members),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_placement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
