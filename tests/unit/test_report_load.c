// SPDX-License-Identifier: GPL-2.0
/*
 * The report reader (lab/report/report_load.c): a valid session loads, unknown
 * fields are tolerated, and every broken input gives an error naming the
 * JSON path instead of a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include <time.h>

#include "report.h"
#include "stats_defaults.h"

/* The smallest valid session: two kernels, one workload, four runs. */
static const char *base_session =
	"{\"schema\": \"mglrulab-report/1\","
	" \"generator\": {\"name\": \"mglrulab\", \"version\": \"0.1.0\"},"
	" \"host\": {\"accel\": \"kvm\"},"
	" \"kernels\": [{\"name\": \"base\"}, {\"name\": \"patched\"}],"
	" \"design\": {\"baseline\": \"base\", \"patched\": \"patched\"},"
	" \"runs\": ["
	"  {\"seq\": 1, \"kernel\": \"base\", \"workload\": \"w\", \"status\": \"ok\","
	"   \"metrics\": {\"ops_per_sec\": 100}},"
	"  {\"seq\": 2, \"kernel\": \"patched\", \"workload\": \"w\", \"status\": \"ok\","
	"   \"metrics\": {\"ops_per_sec\": 101}},"
	"  {\"seq\": 3, \"kernel\": \"patched\", \"workload\": \"w\", \"status\": \"failed\","
	"   \"failure\": \"timeout\"},"
	"  {\"seq\": 4, \"kernel\": \"base\", \"workload\": \"w\", \"status\": \"ok\","
	"   \"metrics\": {\"ops_per_sec\": 99}, \"counters\": {\"vmstat\": {\"pgfault\": 12}}}"
	" ]}";

static json_t *parse(const char *s)
{
	json_t *j = json_loads(s, 0, NULL);

	assert_non_null(j);
	return j;
}

/* Validate @root and expect an error containing @want (NULL: expect success). */
static void expect(json_t *root, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	int ret = report_validate(root, &err);

	if (!want) {
		if (ret)
			fail_msg("unexpected error: %s", err.buf);
	} else {
		assert_int_equal(ret, -1);
		if (!strstr(sb_str(&err), want))
			fail_msg("error \"%s\" does not contain \"%s\"", sb_str(&err), want);
	}
	sb_release(&err);
	json_decref(root);
}

static json_t *run(json_t *root, size_t i)
{
	return json_array_get(json_object_get(root, "runs"), i);
}

static void test_valid(void **state)
{
	(void)state;
	expect(parse(base_session), NULL);
}

static void test_unknown_fields_tolerated(void **state)
{
	json_t *r = parse(base_session);
	(void)state;

	json_object_set_new(r, "future_field", json_pack("{s:[i,i]}", "x", 1, 2));
	json_object_set_new(run(r, 0), "energy_j", json_real(3.5));
	json_object_set_new(json_object_get(r, "host"), "numa", json_true());
	/* Stored results are recomputed, never trusted, so their shape does not matter. */
	json_object_set_new(r, "results", json_string("whatever"));
	expect(r, NULL);
}

static void test_missing_fields(void **state)
{
	json_t *r;
	(void)state;

	r = parse(base_session);
	json_object_del(run(r, 3), "kernel");
	expect(r, "runs[3].kernel: missing (expected a string)");

	r = parse(base_session);
	json_object_del(r, "runs");
	expect(r, "runs: missing (expected an array)");

	r = parse(base_session);
	json_object_del(json_object_get(r, "host"), "accel");
	expect(r, "host.accel: missing");

	r = parse(base_session);
	json_object_del(run(r, 1), "metrics");
	expect(r, "runs[1].metrics: missing (expected an object)");

	r = parse(base_session);
	json_object_del(r, "schema");
	expect(r, "schema: missing");
}

/* @r with workloads[] set to @json; @r is returned. */
static json_t *with_workloads(json_t *r, const char *json)
{
	json_object_set_new(r, "workloads", parse(json));
	return r;
}

/*
 * workloads[] is checked through session.json's rows (session_doc_check(),
 * sdoc_workload_fields[]), which the view reads it by: a workload's
 * threshold and a metric's primary, which main's report_validate() let
 * through and the view then refused, are refused on load (both fail on
 * main); a workload's primary, args, coherence_args and shares, which
 * neither checked nor read, still load.
 */
static void test_workloads_rows(void **state)
{
	(void)state;
	expect(with_workloads(parse(base_session), "[{\"name\": \"w\", \"threshold\": \"x\"}]"),
	       "workloads[0].threshold: expected a number, got a string");
	expect(with_workloads(parse(base_session),
			      "[{\"name\": \"w\", \"metrics\": [{\"name\": \"m\", \"primary\": 1}]}]"),
	       "workloads[0].metrics[0].primary: expected true or false, got an integer");
	expect(with_workloads(parse(base_session), "[{\"type\": \"t\"}]"),
	       "workloads[0].name: missing (expected a string)");
	expect(with_workloads(parse(base_session), "[{\"name\": \"w\", \"runs\": 2.5}]"),
	       "workloads[0].runs: expected an integer, got a number");
	expect(with_workloads(parse(base_session),
			      "[{\"name\": \"w\", \"metrics\": [{\"name\": \"m\", \"better\": \"up\"}]}]"),
	       "workloads[0].metrics[0].better: expected \"higher\" or \"lower\"");
	expect(with_workloads(parse(base_session),
			      "[{\"name\": \"w\", \"primary\": 7, \"args\": \"--x\","
			      " \"coherence_args\": {}, \"shares\": [5]}]"),
	       NULL);
}

static void test_wrong_types(void **state)
{
	json_t *r;
	(void)state;

	r = parse(base_session);
	json_object_set_new(json_object_get(run(r, 3), "metrics"), "ops_per_sec",
			    json_string("fast"));
	expect(r, "runs[3].metrics.ops_per_sec: expected a number or null, got a string");

	r = parse(base_session);
	json_object_set_new(run(r, 0), "seq", json_string("1"));
	expect(r, "runs[0].seq: expected an integer, got a string");

	r = parse(base_session);
	json_object_set_new(run(r, 0), "seq", json_real(1.5));
	expect(r, "runs[0].seq: expected an integer, got a number");

	r = parse(base_session);
	json_object_set_new(json_object_get(run(r, 3), "counters"), "vmstat", json_integer(3));
	expect(r, "runs[3].counters.vmstat: expected an object, got an integer");

	r = parse(base_session);
	json_object_set_new(run(r, 0), "status", json_string("maybe"));
	expect(r, "runs[0].status: expected \"ok\" or \"failed\"");

	r = parse(base_session);
	json_array_set_new(json_object_get(r, "kernels"), 1, json_string("patched"));
	expect(r, "kernels[1]: expected an object, got a string");

	r = parse(base_session);
	json_object_set_new(r, "statistics", json_pack("{s:s}", "alpha", "0.05"));
	expect(r, "statistics.alpha: expected a number, got a string");

	/* the session's members, every one session.json's table has (session_doc.c) */
	r = parse(base_session);
	json_object_set_new(json_object_get(r, "design"), "attribute", json_integer(5));
	expect(r, "design.attribute: expected a string, got an integer");

	r = parse(base_session);
	json_object_set_new(json_object_get(r, "design"), "sequential", json_pack("{s:f}", "alpha", 0.05));
	expect(r, "design.sequential.min_runs: missing (expected an integer)");

	r = parse(base_session);
	json_object_set_new(r, "guest", json_pack("{s:s, s:b}", "name", "tiny", "file", 1));
	expect(r, "guest.file: expected a string, got a boolean");
	/*
	 * kernels[] through session.json's rows too (one definition of a
	 * kernel): members report_validate() once had no row for are refused
	 * here, by their path, not later by the view (main: rendered).
	 */
	r = parse(base_session);
	json_object_set_new(json_array_get(json_object_get(r, "kernels"), 0), "bzImage",
			    json_integer(7));
	expect(r, "kernels[0].bzImage: expected a string, got an integer");

	r = parse(base_session);
	json_object_set_new(json_array_get(json_object_get(r, "kernels"), 1), "config_name",
			    json_true());
	expect(r, "kernels[1].config_name: expected a string, got a boolean");

	r = parse(base_session);
	json_object_set_new(json_array_get(json_object_get(r, "kernels"), 1), "series",
			    json_pack("[{s:i}]", "subject", 3));
	expect(r, "kernels[1].series[0].subject: expected a string, got an integer");

	/* a null ref or config_hash is what the lab writes for none */
	r = parse(base_session);
	json_object_set_new(json_array_get(json_object_get(r, "kernels"), 0), "ref", json_null());
	expect(r, NULL);
}

/*
 * As many kernels as runs, each run naming one: checking names pairwise
 * and looking each run's kernel up by a scan took minutes here (about
 * 10^10 comparisons); sorted once, it is a fraction of a second.
 */
static void test_many_kernels_fast(void **state)
{
	enum { N = 150000 };
	json_t *r = parse(base_session);
	json_t *kernels = json_object_get(r, "kernels"), *runs = json_object_get(r, "runs");
	char name[32];
	clock_t t0;
	double secs;
	(void)state;

	for (int i = 0; i < N; i++) {
		snprintf(name, sizeof(name), "k%07d", i);
		json_array_append_new(kernels, json_pack("{s:s}", "name", name));
		snprintf(name, sizeof(name), "k%07d", (int)(((long)i * 7919) % N));
		json_array_append_new(runs, json_pack("{s:i, s:s, s:s, s:s, s:{}}", "seq", 10 + i,
						      "kernel", name, "workload", "w", "status", "ok",
						      "metrics"));
	}
	t0 = clock();
	expect(r, NULL);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	/* Generous for a sanitizer build on a busy machine; quadratic is 100x over. */
	if (secs > 10)
		fail_msg("validating %d kernels and runs took %.1f s of CPU", N, secs);
}

/* The analysis must never ignore a setting: out-of-range counts are errors. */
static void test_resamples_limit(void **state)
{
	json_t *r;
	(void)state;

	r = parse(base_session);
	json_object_set_new(r, "statistics", json_pack("{s:i}", "resamples", STATS_MAX_RESAMPLES));
	expect(r, NULL);
	r = parse(base_session);
	json_object_set_new(r, "statistics", json_pack("{s:i}", "resamples", STATS_MAX_RESAMPLES + 1));
	expect(r, "statistics.resamples: expected an integer from 100 to 1000000, got 1000001");
	r = parse(base_session);
	json_object_set_new(r, "statistics", json_pack("{s:i}", "counter_resamples", 99));
	expect(r, "statistics.counter_resamples: expected an integer from 100 to 1000000, got 99");
}

/* base_session with @n more runs, each on a host of its own. */
static json_t *many_hosts(int n)
{
	json_t *r = parse(base_session);
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "h%d", i);
		json_array_append_new(json_object_get(r, "runs"),
			json_pack("{s:i, s:s, s:s, s:s, s:{}, s:s}", "seq", 100 + i, "kernel", "base",
				  "workload", "w", "status", "ok", "metrics", "host", name));
	}
	return r;
}

/* runs[].host and .slot: optional (old records), and checked when there. */
static void test_host_slot(void **state)
{
	char long_name[80];
	json_t *r;
	(void)state;

	r = parse(base_session);
	json_object_set_new(run(r, 0), "host", json_string("box-1.lab"));
	json_object_set_new(run(r, 0), "slot", json_integer(3));
	json_object_set_new(run(r, 1), "host", json_string("<b>\"x\"</b> &"));
	json_object_set_new(run(r, 1), "slot", json_real(0.0));
	expect(r, NULL);

	r = parse(base_session);
	json_object_set_new(run(r, 2), "host", json_integer(1));
	expect(r, "runs[2].host: expected a string, got an integer");

	r = parse(base_session);
	json_object_set_new(run(r, 1), "host", json_string(""));
	expect(r, "runs[1].host: expected a host name of 1 to 64 printable ASCII characters");

	r = parse(base_session);
	json_object_set_new(run(r, 1), "host", json_string("tab\there"));
	expect(r, "runs[1].host: expected a host name of 1 to 64 printable ASCII characters");

	r = parse(base_session);
	json_object_set_new(run(r, 1), "host", json_string("h\xc3\xa9"));
	expect(r, "runs[1].host: expected a host name");

	memset(long_name, 'h', 65);
	long_name[65] = '\0';
	r = parse(base_session);
	json_object_set_new(run(r, 3), "host", json_string(long_name));
	expect(r, "runs[3].host: expected a host name of 1 to 64");

	r = parse(base_session);
	json_object_set_new(run(r, 0), "slot", json_integer(-1));
	expect(r, "runs[0].slot: expected a slot from 0 to 1023, got -1");

	r = parse(base_session);
	json_object_set_new(run(r, 0), "slot", json_string("0"));
	expect(r, "runs[0].slot: expected an integer, got a string");

	r = parse(base_session);
	json_object_set_new(run(r, 0), "slot", json_real(1.5));
	expect(r, "runs[0].slot: expected an integer, got a number");

	/* At most REPORT_MAX_HOSTS hosts; the run naming one more is named. */
	expect(many_hosts(REPORT_MAX_HOSTS), NULL);
	expect(many_hosts(REPORT_MAX_HOSTS + 1),
	       "runs[260].host: host number 257; a session has at most 256 hosts");
}

static void test_references(void **state)
{
	json_t *r;
	(void)state;

	r = parse(base_session);
	json_object_set_new(json_object_get(r, "design"), "patched", json_string("nope"));
	expect(r, "design.patched: no kernel named \"nope\" in kernels[]");

	r = parse(base_session);
	json_object_set_new(json_object_get(r, "design"), "patched", json_string("base"));
	expect(r, "design.patched: the same kernel as design.baseline");

	r = parse(base_session);
	json_object_set_new(run(r, 2), "kernel", json_string("ghost"));
	expect(r, "runs[2].kernel: no kernel named \"ghost\"");

	r = parse(base_session);
	json_object_set_new(run(r, 3), "seq", json_integer(2));
	expect(r, "runs[3].seq: 2 is also the seq of runs[1]");

	r = parse(base_session);
	/* Schema 1 (base_session) and 2 load; anything else is refused. */
	json_object_set_new(r, "schema", json_string("mglrulab-report/3"));
	expect(r, "is not \"mglrulab-report/2\" or \"mglrulab-report/1\"");

	r = parse(base_session);
	json_array_append_new(json_object_get(r, "kernels"), json_pack("{s:s}", "name", "base"));
	expect(r, "kernels[2].name: also the name of kernels[0]");

	/* The first kernel (in file order) that repeats an earlier name. */
	r = parse(base_session);
	json_array_append_new(json_object_get(r, "kernels"), json_pack("{s:s}", "name", "c"));
	json_array_append_new(json_object_get(r, "kernels"), json_pack("{s:s}", "name", "c"));
	json_array_append_new(json_object_get(r, "kernels"), json_pack("{s:s}", "name", "patched"));
	json_array_append_new(json_object_get(r, "kernels"), json_pack("{s:s}", "name", "base"));
	expect(r, "kernels[3].name: also the name of kernels[2]");

	r = parse(base_session);
	json_object_set_new(r, "kernels", json_array());
	expect(r, "kernels: empty");

	expect(parse("[]"), "(top level): expected an object, got an array");
}

static void load_buf(const char *buf, size_t len, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	json_t *out = (json_t *)1;

	assert_int_equal(report_load_buffer(buf, len, &out, &err), -1);
	assert_null(out);
	if (!strstr(sb_str(&err), want))
		fail_msg("error \"%s\" does not contain \"%s\"", sb_str(&err), want);
	sb_release(&err);
}

static void test_garbage(void **state)
{
	static const char nul_inside[] = "{\"schema\": \"a\0b\"}";
	(void)state;

	load_buf("{not json", 9, "line 1, column");
	load_buf("", 0, "line");
	load_buf("\xff\xfe\x00\x01", 4, "line");
	load_buf(nul_inside, sizeof(nul_inside) - 1, "line");
	load_buf("{\"a\": 1, \"a\": 2}", 16, "duplicate");
	load_buf("42", 2, "line");	/* jansson rejects non-container roots */
}

static void test_load_file(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *out;
	char path[] = "/tmp/test_report_loadXXXXXX";
	int fd;
	(void)state;

	assert_int_equal(report_load("/nonexistent/report.json", &out, &err), -1);
	assert_non_null(strstr(err.buf, "/nonexistent/report.json: No such file"));
	sb_reset(&err);

	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, base_session, strlen(base_session)), (ssize_t)strlen(base_session));
	close(fd);
	assert_int_equal(report_load(path, &out, &err), 0);
	assert_non_null(out);
	json_decref(out);
	unlink(path);
	sb_release(&err);
}

static void test_fixture_loads(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *out;
	(void)state;

	if (report_load("tests/fixtures/reports/session-ab.json", &out, &err))
		fail_msg("%s", err.buf);
	json_decref(out);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_unknown_fields_tolerated),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_workloads_rows),
		cmocka_unit_test(test_resamples_limit),
		cmocka_unit_test(test_many_kernels_fast),
		cmocka_unit_test(test_host_slot),
		cmocka_unit_test(test_references),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_fixture_loads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
