// SPDX-License-Identifier: GPL-2.0
/*
 * What a bisection reads back. bisect.json for `bisect --resume`
 * (bisect_doc_load(), bisect_state.c): a field of the wrong type
 * (a number among settings.workloads crashed the resume) is an error
 * naming the file and the field. A step's results (bisect_step_results()):
 * the change and interval of the comparison the verdict rests on, the
 * pooled one in a session on several hosts.
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
#include <unistd.h>

#include "bisect.h"
#include "bisect_doc.h"
#include "fsutil.h"
#include "util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-bisect-state-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* A bisect.json as start() and the steps write it: one step done, one running. */
static json_t *good_state(void)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:i, s:{s:i, s:f, s:b, s:[s]},"
			 " s:[{s:i, s:o, s:o}, {s:i, s:s, s:n}],"
			 " s:[{s:i, s:s, s:s, s:s, s:s, s:s, s:s, s:[{s:s, s:s, s:b, s:s, s:f, s:f, s:n}]},"
			 "    {s:i, s:s, s:s, s:s, s:s, s:s}],"
			 " s:{s:{s:s, s:b}}, s:[{s:i, s:s}], s:[], s:b}",
			 "schema", BISECT_SCHEMA, "config", "lab.conf", "baseline", "base",
			 "series_kernel", "three", "n", 2,
			 "settings", "max_runs", 8, "budget_s", 0.0, "per_patch", 0, "workloads", "yield",
			 "patches", "position", 1, "subject", json_string("mm: one"), "message_id", json_null(),
			 "position", 2, "subject", "mm: two", "message_id",
			 "steps", "step", 1, "purpose", "confirm", "a", "base", "b", "three",
			 "dir", "steps/01-confirm", "state", "done", "session", "/r/steps/01-confirm/x",
			 "results", "workload", "yield", "metric", "cs_per_sec", "primary", 1,
			 "verdict", "regression", "delta_pct", -12.5, "ci_lo_pct", -14.0, "ci_hi_pct",
			 "step", 2, "purpose", "probe-base", "a", "base", "b", "three@1",
			 "dir", "steps/02-probe-base", "state", "running",
			 "prefixes", "1", "kernel", "three@1", "builds", 1,
			 "probes", "prefix", 1, "class", "baseline",
			 "tracked", "complete", 0);
}

/* Write @st to <dir>/NAME/bisect.json; the path, to free. */
static char *write_state(const char *name, const json_t *st)
{
	char *d = xasprintf("%s/%s", dir, name), *path = xasprintf("%s/bisect.json", d);

	assert_int_equal(mkdir_p(d, 0755), 0);
	assert_int_equal(json_dump_file(st, path, 0), 0);
	free(d);
	return path;
}

/* @st (one field spoiled) as <dir>/NAME/bisect.json is refused, naming the file and @field. */
static void expect_refused(const char *name, json_t *st, const char *field, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	char *path = write_state(name, st);
	struct bisect_doc d;

	assert_int_equal(bisect_doc_load(path, &d, &err), -1);
	print_message("%s\n", sb_str(&err));
	/* refused: left absent, nothing kept */
	assert_null(d.owned);
	assert_null(d.steps.v);
	assert_non_null(strstr(sb_str(&err), path));
	assert_non_null(strstr(sb_str(&err), field));
	if (what)
		assert_non_null(strstr(sb_str(&err), what));
	sb_release(&err);
	free(path);
	json_decref(st);
}

static void test_good_state_loads(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *st = good_state(), *again;
	char *path = write_state("good", st);
	struct bisect_doc d;
	(void)state;

	assert_int_equal(bisect_doc_load(path, &d, &err), 0);
	assert_int_equal(err.len, 0);
	assert_non_null(d.owned);
	assert_true(json_equal(d.owned, st));
	/* the state the bisection goes on with: the file, as its table encodes it */
	again = bisect_doc_encode(&d);
	assert_true(json_equal(again, st));
	json_decref(again);
	bisect_doc_release(&d);
	json_decref(st);
	free(path);
}

/* The crash of issue 27: a number among the workloads went to strvec_push() as NULL. */
static void test_workloads_not_strings(void **state)
{
	json_t *st = good_state();
	(void)state;

	json_array_append_new(json_object_get(json_object_get(st, "settings"), "workloads"),
			      json_integer(7));
	expect_refused("wl-int", st, "settings.workloads[1]", "expected a workload name");

	st = good_state();
	json_object_set_new(json_object_get(st, "settings"), "workloads", json_string("yield"));
	expect_refused("wl-str", st, "settings.workloads", "expected an array");

	st = good_state();
	json_array_append_new(json_object_get(json_object_get(st, "settings"), "workloads"),
			      json_null());
	expect_refused("wl-null", st, "settings.workloads[1]", NULL);
}

static void test_settings_fields(void **state)
{
	json_t *st;
	(void)state;

	st = good_state();
	json_object_set_new(json_object_get(st, "settings"), "max_runs", json_string("8"));
	expect_refused("max-runs", st, "settings.max_runs", "expected an integer");

	st = good_state();
	json_object_set_new(json_object_get(st, "settings"), "max_runs", json_integer(-3));
	expect_refused("max-runs-neg", st, "settings.max_runs", NULL);

	st = good_state();
	json_object_del(json_object_get(st, "settings"), "budget_s");
	expect_refused("budget", st, "settings.budget_s", NULL);

	st = good_state();
	json_object_set_new(json_object_get(st, "settings"), "budget_s", json_real(-1));
	expect_refused("budget-neg", st, "settings.budget_s", NULL);

	st = good_state();
	json_object_set_new(json_object_get(st, "settings"), "per_patch", json_integer(1));
	expect_refused("per-patch", st, "settings.per_patch", "expected true or false");

	st = good_state();
	json_object_del(st, "settings");
	expect_refused("no-settings", st, "settings", NULL);
}

/* The other fields bisect.c reads back with strcmp() or as counts. */
static void test_other_fields(void **state)
{
	json_t *st;
	(void)state;

	st = good_state();
	json_object_set_new(st, "baseline", json_integer(1));
	expect_refused("baseline", st, "baseline", "expected a string");

	st = good_state();
	json_object_set_new(st, "n", json_integer(3));
	expect_refused("n", st, "patches", "but n is 3");

	st = good_state();
	json_object_del(json_array_get(json_object_get(st, "steps"), 1), "state");
	expect_refused("step-state", st, "steps[1].state", "missing");

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(st, "steps"), 1), "a", json_true());
	expect_refused("step-a", st, "steps[1].a", NULL);

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(st, "steps"), 1), "dir",
			    json_string("../../elsewhere"));
	expect_refused("step-dir", st, "steps[1].dir", "inside the bisection");

	st = good_state();
	json_object_del(json_array_get(json_object_get(st, "steps"), 0), "results");
	expect_refused("step-results", st, "steps[0].results", NULL);

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(st, "steps"), 0),
							  "results"), 0), "metric", json_integer(2));
	expect_refused("result-metric", st, "steps[0].results[0].metric", NULL);

	st = good_state();
	json_object_set_new(st, "tracked", json_pack("[{s:s}]", "workload", "yield"));
	expect_refused("tracked", st, "tracked[0].metric", "missing");

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(st, "probes"), 0), "prefix",
			    json_string("1"));
	expect_refused("probe", st, "probes[0].prefix", NULL);

	st = good_state();
	json_object_set_new(json_object_get(st, "prefixes"), "2", json_integer(0));
	expect_refused("prefix", st, "prefixes.2", NULL);

	st = good_state();
	json_object_set_new(st, "schema", json_string("mglrulab-bisect/0"));
	expect_refused("schema", st, "schema " BISECT_SCHEMA, NULL);
}

/*
 * What the hand-written checks never looked at and bisect.json's table
 * (bisect_doc.h) types: the result's own effect and patch, a patch's
 * position, a result's primary, the probes' class.
 */
static void test_table_types(void **state)
{
	json_t *st;
	(void)state;

	st = good_state();
	json_object_set_new(st, "result", json_pack("{s:s, s:[{s:s}]}", "outcome", "found",
						    "own_effect", "workload", "yield"));
	expect_refused("own-effect", st, "result.own_effect[0].metric", "missing");

	st = good_state();
	json_object_set_new(st, "result", json_pack("{s:s, s:s}", "outcome", "found", "patch", "2"));
	expect_refused("result-patch", st, "result.patch", "expected an object, got a string");

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(st, "patches"), 0), "position",
			    json_string("1"));
	expect_refused("position", st, "patches[0].position", "expected an integer");

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(json_array_get(json_object_get(st, "steps"), 0),
							  "results"), 0), "primary", json_string("yes"));
	expect_refused("primary", st, "steps[0].results[0].primary", "expected true or false");

	st = good_state();
	json_object_set_new(json_array_get(json_object_get(st, "probes"), 0), "class", json_null());
	expect_refused("class", st, "probes[0].class", "expected a string, got null");
}

static void test_not_json(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *d = xasprintf("%s/cut", dir), *path = xasprintf("%s/bisect.json", d);
	struct bisect_doc doc;
	FILE *f;
	(void)state;

	assert_int_equal(mkdir_p(d, 0755), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"schema\": \"mglrulab-bisect/1\", \"settings\": {", f);
	fclose(f);
	assert_int_equal(bisect_doc_load(path, &doc, &err), -1);
	assert_non_null(strstr(sb_str(&err), path));
	sb_release(&err);
	free(path);
	free(d);
}

/* --- a step's results --- */

static void test_step_results_pooled(void **state)
{
	json_t *rep = json_pack("{s:[{s:s, s:s, s:b, s:s, s:{s:f, s:f, s:{s:f, s:f}},"
				"     s:{s:s, s:i, s:f, s:f, s:{s:f, s:f}}},"
				"    {s:s, s:s, s:b, s:s, s:{s:f, s:f, s:{s:f, s:f}},"
				"     s:{s:s, s:i, s:f, s:f, s:{s:f, s:f}}}]}",
				"results",
				"workload", "yield", "metric", "cs_per_sec", "primary", 1,
				"verdict", "regression",
				"comparison", "ratio", 0.97, "delta_pct", -3.0, "ci", "lo", 0.95, "hi", 0.99,
				"pooled", "basis", "pooled", "hosts", 2, "ratio", 0.92, "delta_pct", -8.0,
				"ci", "lo", 0.90, "hi", 0.94,
				"workload", "yield", "metric", "wall_s", "primary", 0,
				"verdict", "no-change",
				"comparison", "ratio", 1.01, "delta_pct", 1.0, "ci", "lo", 0.99, "hi", 1.03,
				"pooled", "basis", "all-runs", "hosts", 2, "ratio", 1.02, "delta_pct", 2.0,
				"ci", "lo", 1.0, "hi", 1.04);
	json_t *res = bisect_step_results(rep), *r;
	(void)state;

	assert_int_equal(json_array_size(res), 2);
	r = json_array_get(res, 0);
	assert_string_equal(json_string_value(json_object_get(r, "verdict")), "regression");
	assert_float_equal(json_number_value(json_object_get(r, "delta_pct")), -8.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(r, "ci_lo_pct")), -10.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(r, "ci_hi_pct")), -6.0, 1e-9);
	/* a pooled object whose basis is not "pooled": the comparison of all runs */
	r = json_array_get(res, 1);
	assert_float_equal(json_number_value(json_object_get(r, "delta_pct")), 1.0, 1e-9);
	assert_float_equal(json_number_value(json_object_get(r, "ci_lo_pct")), -1.0, 1e-9);

	/* read back as bisect.c reads a step: the pooled change, typed by bisect.json's table */
	struct step_results rs;
	struct sdoc_array a;
	const struct step_result *x;

	json_array_append_new(res, json_pack("{s:s, s:i}", "workload", "yield", "metric", 3));
	/* an element without strings is not a result: the table refuses it */
	assert_int_equal(bisect_doc_results(res, &a), -1);
	assert_null(a.v);
	json_array_remove(res, 2);
	json_array_append_new(res, json_pack("{s:s, s:s, s:s, s:n}", "workload", "w", "metric", "m",
					     "verdict", "looks-fine", "delta_pct"));
	assert_int_equal(bisect_doc_results(res, &a), 0);
	step_results_of(&a, &rs);
	assert_int_equal(rs.n, 3);
	x = step_results_find(&rs, "yield", "cs_per_sec");
	assert_non_null(x);
	assert_true(x->primary);
	assert_int_equal(x->verdict, VERDICT_REGRESSION);
	assert_float_equal(x->delta_pct, -8.0, 1e-9);
	assert_float_equal(x->lo_pct, -10.0, 1e-9);
	assert_float_equal(x->hi_pct, -6.0, 1e-9);
	/* its strings are the results' own */
	assert_ptr_equal(x->workload,
			 json_string_value(json_object_get(json_array_get(res, 0), "workload")));
	/* an unknown verdict is never a pass; null is NaN */
	x = step_results_find(&rs, "w", "m");
	assert_int_equal(x->verdict, VERDICT_INVALID);
	assert_string_equal(x->verdict_id, "invalid");
	assert_true(isnan(x->delta_pct));
	assert_null(step_results_find(&rs, "yield", "nothing"));
	step_results_release(&rs);
	bisect_doc_results_release(&a);
	json_decref(res);
	json_decref(rep);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_state_loads),
		cmocka_unit_test(test_workloads_not_strings),
		cmocka_unit_test(test_settings_fields),
		cmocka_unit_test(test_other_fields),
		cmocka_unit_test(test_table_types),
		cmocka_unit_test(test_not_json),
		cmocka_unit_test(test_step_results_pooled),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
