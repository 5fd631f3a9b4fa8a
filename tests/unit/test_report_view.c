// SPDX-License-Identifier: GPL-2.0
/*
 * The report view's decoder (report_view.c): the fixture reports, through
 * report_analyze(), decode with the values their JSON has, and a hostile
 * member is an error naming it with its path, never a crash or a zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "report_headline.h"
#include "report_view.h"
#include "xjson.h"
#include "util.h"

static json_t *analysed(const char *name)
{
	struct strbuf err = STRBUF_INIT;
	char path[256];
	json_t *j, *r;

	snprintf(path, sizeof(path), "tests/fixtures/reports/%s", name);
	if (report_load(path, &j, &err))
		fail_msg("%s", err.buf);
	r = report_analyze(j, &err);
	if (!r)
		fail_msg("%s: %s", name, err.buf);
	json_decref(j);
	sb_release(&err);
	return r;
}

static void test_session_ab(void **state)
{
	json_t *r = analysed("session-ab.json");
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_ptr_equal(v.json, r);
	assert_string_equal(v.session.id, json_string_value(jpath(r, "session.id")));
	assert_string_equal(v.generator.name, json_string_value(jpath(r, "generator.name")));
	assert_string_equal(v.host.hostname, "ci-runner-3");
	assert_int_equal(v.host.cpus, 2);
	assert_true(v.host.memory_mib == 24576);
	assert_string_equal(v.host.accel, "tcg");
	assert_string_equal(v.host.qemu_version, "7.2.13");
	assert_int_equal(v.nkernels, 2);
	assert_string_equal(v.kernels[0].name, "base");
	assert_string_equal(v.kernels[0].version, "6.12.0-lab");
	assert_string_equal(v.kernels[0].cache_key, "b7d1e0c4a9f2");
	assert_int_equal(v.kernels[0].series.n, 0);
	assert_true(v.guest.present);
	assert_int_equal(v.guest.doc.vcpus, 2);
	assert_int_equal(v.guest.nnodes, 2);
	assert_string_equal(v.guest.nodes[1].cpus, "1");
	assert_false(v.guest.has_icount_shift);
	assert_string_equal(v.design.baseline, "base");
	assert_string_equal(v.design.patched, "patched");
	assert_int_equal(v.design.runs_per_kernel, 10);
	assert_int_equal(v.design.seed, 20261129);
	assert_int_equal(v.design.blocks, 5);
	assert_false(v.design.sequential.present);
	assert_true(fabs(v.statistics.alpha - 0.05) < 1e-12);
	assert_int_equal(v.statistics.resamples, 10000);
	assert_int_equal(v.nworkloads, json_array_size(json_object_get(r, "workloads")));
	assert_int_equal(v.runs.n, json_array_size(json_object_get(r, "runs")));
	assert_int_equal(v.nresults, json_array_size(json_object_get(r, "results")));
	assert_int_equal(v.ncounters, json_array_size(json_object_get(r, "counter_results")));
	assert_int_equal(v.summary.metrics, v.nresults);
	assert_int_equal(v.nwarnings, json_array_size(json_object_get(r, "warnings")));
	assert_int_equal(v.ngeomean, json_array_size(json_object_get(r, "geomean")));
	assert_true(v.nresults > 0);
	assert_string_equal(v.results[0].metric,
			    json_string_value(jpath(json_array_get(json_object_get(r, "results"), 0),
						    "metric")));
	for (size_t i = 0; i < v.nworkloads; i++) {
		size_t n;
		const struct view_index *g = report_view_geomeans(&v, v.workloads[i].name, &n);

		assert_ptr_equal(report_view_workload(&v, v.workloads[i].name), &v.workloads[i]);
		for (size_t k = 0; k < n; k++) {
			assert_string_equal(v.geomean[g[k].i].workload, v.workloads[i].name);
			assert_true(!k || g[k].i > g[k - 1].i);
		}
	}
	assert_null(report_view_workload(&v, "no such workload"));
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* The first workload of a name is the one found, as the scan found it. */
static void test_workload_first_of_name(void **state)
{
	json_t *r = analysed("session-ab.json");
	json_t *ws = json_object_get(r, "workloads");
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_array_append_new(ws, json_deep_copy(json_array_get(ws, 0)));
	json_array_insert_new(ws, 0, json_pack("{s:s, s:s}", "name", "zz", "type", "t"));
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_ptr_equal(report_view_workload(&v, v.workloads[1].name), &v.workloads[1]);
	assert_ptr_equal(report_view_workload(&v, "zz"), &v.workloads[0]);
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* A one-kernel session: no patched kernel, no verdicts. */
static void test_session_one(void **state)
{
	json_t *r = analysed("session-one.json");
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_null(v.design.patched);
	assert_non_null(v.design.baseline);
	for (size_t i = 0; i < v.nresults; i++)
		assert_null(v.results[i].verdict_id);
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* Every fixture report, analysed, decodes whole. */
static void test_every_fixture(void **state)
{
	static const char *const names[] = { "nightly-a.json", "nightly-b.json", "session-ab.json",
					     "session-one.json", "session-small.json" };
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		json_t *r = analysed(names[i]);
		struct report_view v;
		struct strbuf err = STRBUF_INIT;

		if (report_view_decode(r, &v, &err))
			fail_msg("%s: %s", names[i], err.buf);
		assert_int_equal(v.nresults, json_array_size(json_object_get(r, "results")));
		assert_int_equal(v.nhost_states, json_array_size(json_object_get(r, "host_states")));
		for (size_t k = 0; k < v.nhost_states; k++) {
			const struct view_host_state *hs = &v.host_state_recs[k];

			assert_ptr_equal(hs->json, v.host_states[k]);
			assert_string_equal(hs->metric, json_string_value(jpath(hs->json, "metric")));
			assert_int_equal(hs->nown_states, json_object_size(jpath(hs->json, "own_states")));
			assert_int_equal(hs->by_states, json_is_true(jpath(hs->json, "by_states")));
		}
		report_view_release(&v);
		json_decref(r);
		sb_release(&err);
	}
}

/* session-ab.json's report with @path's member @key set to @value, refused with @want. */
struct bad_member {
	const char *path, *key, *value, *want;
};

/*
 * Each case's report is refused by report_view_decode() with @want: its
 * start (@whole 0) or the whole message; @later, when not NULL, is a
 * second wrong member set after it, which must not be the one named.
 */
static void expect_refused(const struct bad_member *cases, size_t n, int whole,
			   const char *later)
{
	for (size_t i = 0; i < n; i++) {
		json_t *r = analysed("session-ab.json");
		json_t *obj = *cases[i].path ? json_object_get(r, cases[i].path) : r;
		struct report_view v;
		struct strbuf err = STRBUF_INIT;

		json_object_set_new(obj, cases[i].key, json_loads(cases[i].value, JSON_DECODE_ANY, NULL));
		if (later)
			json_object_set_new(r, later, json_integer(3));
		assert_int_equal(report_view_decode(r, &v, &err), -1);
		if (whole ? strcmp(err.buf, cases[i].want) :
			    strncmp(err.buf, cases[i].want, strlen(cases[i].want)))
			fail_msg("case %zu: \"%s\"", i, err.buf);
		report_view_release(&v);
		json_decref(r);
		sb_release(&err);
	}
}

/* Each hostile member is named, with its path from the top. */
static void test_hostile(void **state)
{
	static const struct bad_member cases[] = {
		{ "host", "cpus", "\"two\"", "host.cpus: expected an integer" },
		{ "design", "runs_per_kernel", "1.5", "design.runs_per_kernel: expected an integer" },
		{ "statistics", "alpha", "\"low\"", "statistics.alpha: expected a number" },
		{ "", "kernels", "{}", "kernels: expected an array" },
		{ "", "warnings", "[3]", "warnings[0]: expected an object" },
		{ "guest", "nodes", "[{\"cpus\": 1}]", "guest.nodes[0].cpus: expected a string" },
		/* the first error in the file is the one named */
		{ "guest", "nodes", "[{\"cpus\": 1}, 2]", "guest.nodes[0].cpus: expected a string" },
		{ "guest", "nodes", "[{}, 2, {\"id\": \"x\"}]", "guest.nodes[1]: expected an object" },
		{ "summary", "verdicts", "{\"regression\": \"x\"}",
		  "summary.verdicts.regression: expected an integer" },
		{ "", "session", "[]", "session: expected an object" },
	};
	(void)state;
	expect_refused(cases, ARRAY_SIZE(cases), 0, NULL);
}

/*
 * The members read through their field tables (view_fields.c's and
 * session.json's, session_doc.c's: schema, note, statistics, summary,
 * claim, session, generator, host, guest, kernels, workloads, warnings,
 * design, geomean, host_states, sequential) are refused
 * by the table codec, whole message: its path, the table's "expected"
 * (no "or null": null is none), what it got. With two wrong members, the
 * first read is the one named.
 */
static void test_table_members(void **state)
{
	static const struct bad_member cases[] = {
		{ "statistics", "alpha", "\"low\"", "statistics.alpha: expected a number, got a string" },
		{ "statistics", "seed", "1.5", "statistics.seed: expected an integer, got a number" },
		{ "summary", "timings", "{\"boot_s\": 3}",
		  "summary.timings.boot_s: expected an object, got an integer" },
		{ "summary", "primary_verdicts", "[]",
		  "summary.primary_verdicts: expected an object, got an array" },
		{ "", "claim", "{\"size_pct\": \"big\"}",
		  "claim.size_pct: expected a number, got a string" },
		{ "session", "complete", "\"yes\"",
		  "session.complete: expected true or false, got a string" },
		/* statistics: session.json's rows (sdoc_statistics_fields[]), whose resamples is an SK_INT */
		{ "statistics", "resamples", "1.5",
		  "statistics.resamples: expected an integer, got a number" },
		{ "statistics", "test", "1", "statistics.test: expected a string, got an integer" },
		{ "design", "slots", "\"2\"", "design.slots: expected an integer, got a string" },
		{ "design", "profile", "1", "design.profile: expected true or false, got an integer" },
		{ "", "generator", "{\"name\": 1}", "generator.name: expected a string, got an integer" },
		{ "session", "lab_conf_sha256", "1",
		  "session.lab_conf_sha256: expected a string or null, got an integer" },
		{ "summary", "verdicts", "{\"regression\": 2.5}",
		  "summary.verdicts.regression: expected an integer or null, got a number" },
		{ "", "warnings", "{}", "warnings: expected an array, got an object" },
		{ "", "geomean", "[{\"ratio\": 1.1}, {\"of\": \"x\"}]",
		  "geomean[1].of: expected an array, got a string" },
		{ "design", "sequential", "\"x\"", "design.sequential: expected an object, got a string" },
		{ "design", "alone", "[\"stream\", 1]",
		  "design.alone: expected an array of workload names, got an integer" },
		{ "", "warnings", "[{}, {\"kind\": 1}]",
		  "warnings[1].kind: expected a string or null, got an integer" },
		{ "", "schema", "3", "schema: expected a string, got an integer" },
		{ "", "note", "[]", "note: expected a string, got an array" },
		{ "host", "cpus", "\"two\"", "host.cpus: expected an integer, got a string" },
		{ "host", "memory_mib", "\"big\"", "host.memory_mib: expected a number, got a string" },
		{ "host", "accel", "true", "host.accel: expected a string, got a boolean" },
		{ "", "guest", "[]", "guest: expected an object, got an array" },
		{ "guest", "name", "1", "guest.name: expected a string, got an integer" },
		/* guest: session.json's rows (sdoc_guest_fields[]), whose vcpus is an SK_INT */
		{ "guest", "vcpus", "2.5", "guest.vcpus: expected an integer, got a number" },
		{ "guest", "icount_shift", "\"2\"",
		  "guest.icount_shift: expected an integer, got a string" },
		{ "guest", "nodes", "{}", "guest.nodes: expected an array, got an object" },
		{ "guest", "nodes", "[{\"id\": \"x\"}]",
		  "guest.nodes[0].id: expected an integer or null, got a string" },
		/* kernels[] through session.json's rows (sdoc_kernel_fields[]): a name is required */
		{ "", "kernels", "[{\"name\": \"a\"}, 2]", "kernels[1]: expected an object, got an integer" },
		{ "", "kernels", "[{\"name\": 1}]", "kernels[0].name: expected a string, got an integer" },
		{ "", "kernels", "[{\"name\": \"a\", \"series\": [{\"subject\": \"s\", \"hash\": 7}]}]",
		  "kernels[0].series[0].hash: expected a string, got an integer" },
		{ "", "kernels", "[{\"name\": \"a\", \"posted_to\": []}]",
		  "kernels[0].posted_to: expected a string, got an array" },
		{ "", "kernels", "[{\"name\": \"a\", \"series_author\": \"me\"}]",
		  "kernels[0].series_author: expected an object, got a string" },
		{ "", "kernels", "[{\"name\": \"a\", \"cover\": {\"subject\": []}}]",
		  "kernels[0].cover.subject: expected a string, got an array" },
		{ "", "kernels", "[{\"name\": \"a\", \"series_files\": [3]}]",
		  "kernels[0].series_files[0]: expected an object, got an integer" },
		/* workloads[] through session.json's rows (sdoc_workload_fields[]) */
		{ "", "workloads", "[{\"name\": \"w\", \"runs\": \"3\"}]",
		  "workloads[0].runs: expected an integer, got a string" },
		{ "", "workloads", "[{\"name\": \"w\", \"params\": []}]",
		  "workloads[0].params: expected an object, got an array" },
		{ "", "workloads", "[{\"name\": \"w\", \"metrics\": [{\"name\": \"m\", \"threshold\": \"x\"}]}]",
		  "workloads[0].metrics[0].threshold: expected a number, got a string" },
		{ "", "workloads", "[{\"name\": \"w\", \"metrics\": [{\"name\": \"m\", \"primary\": 1}]}]",
		  "workloads[0].metrics[0].primary: expected true or false, got an integer" },
		{ "", "host_states", "[2]", "host_states[0]: expected an object, got an integer" },
		{ "", "host_states", "[{\"slope\": \"x\"}]",
		  "host_states[0].slope: expected a number, got a string" },
		{ "", "host_states", "[{\"by_states\": 1}]",
		  "host_states[0].by_states: expected a boolean or null, got an integer" },
		{ "", "host_states", "[{\"modes\": 1}]",
		  "host_states[0].modes: expected an object, got an integer" },
		/* main read anything but false as decidable, silently */
		{ "", "host_states", "[{\"modes\": {\"decidable\": \"no\"}}]",
		  "host_states[0].modes.decidable: expected true or false, got a string" },
		{ "", "host_states", "[{\"own_states\": []}]",
		  "host_states[0].own_states: expected an object, got an array" },
		{ "", "host_states", "[{\"own_states\": {\"base\": {\"cells\": \"many\"}}}]",
		  "host_states[0].own_states.base.cells: expected a number, got a string" },
		{ "", "sequential", "[]", "sequential: expected an object, got an array" },
		{ "", "sequential", "{\"looks\": {}}", "sequential.looks: expected an array, got an object" },
		{ "", "sequential", "{\"workloads\": []}",
		  "sequential.workloads: expected an object, got an array" },
		{ "", "sequential", "{\"workloads\": {\"yp\": 3}}",
		  "sequential.workloads.yp: expected an object, got an integer" },
		{ "", "sequential", "{\"workloads\": {\"yp\": {\"why\": 1}}}",
		  "sequential.workloads.yp.why: expected a string, got an integer" },
		{ "", "sequential", "{\"workloads\": {\"yp\": {\"look\": \"2\"}}}",
		  "sequential.workloads.yp.look: expected an integer or null, got a string" },
	};
	(void)state;
	/* a later wrong member (results are read last) is not the one named */
	expect_refused(cases, ARRAY_SIZE(cases), 1, "results");
}

/*
 * kernels[] and host are read through session.json's own rows
 * (sdoc_kernel_fields[], sdoc_host_fields[]), one definition of each:
 * what session.json's reader requires or types, the view does too.
 * main's view rows took each of these (a kernel's name, a patch's subject,
 * the author's address and the host's accel optional; bzImage and
 * config_name not read); report_validate() already refuses the first
 * four in a report it loads, so no report that renders is refused.
 */
static void test_shared_session_rows(void **state)
{
	static const struct bad_member cases[] = {
		{ "", "kernels", "[{\"role\": \"baseline\"}]",
		  "kernels[0].name: missing (expected a string)" },
		{ "", "kernels", "[{\"name\": \"a\", \"series\": [{\"hash\": \"1\"}]}]",
		  "kernels[0].series[0].subject: missing (expected a string)" },
		{ "", "kernels", "[{\"name\": \"a\", \"series_author\": {\"name\": \"A\"}}]",
		  "kernels[0].series_author.address: missing (expected a string)" },
		{ "", "kernels", "[{\"name\": \"a\", \"bzImage\": 5}]",
		  "kernels[0].bzImage: expected a string, got an integer" },
		{ "", "kernels", "[{\"name\": \"a\", \"config_name\": []}]",
		  "kernels[0].config_name: expected a string, got an array" },
		/* host: session.json's rows too (sdoc_host_fields[]), its accel required */
		{ "host", "accel", "null", "host.accel: expected a string, got null" },
		/*
		 * generator, design (with sequential): session.json's rows
		 * (sdoc_generator_fields[], sdoc_design_fields[],
		 * sdoc_sequential_fields[]); main's view rows took these optional
		 */
		{ "", "generator", "{\"name\": \"mglrulab\"}",
		  "generator.version: missing (expected a string)" },
		{ "design", "baseline", "null", "design.baseline: expected a string, got null" },
		{ "design", "sequential", "{\"alpha\": 0.05, \"min_runs\": 4, \"max_runs\": 20}",
		  "design.sequential.step: missing (expected an integer)" },
		/*
		 * workloads[] (sdoc_workload_fields[]): main's view rows took a
		 * workload's and a metric's name optional (report_validate()
		 * required both)
		 */
		{ "", "workloads", "[{\"type\": \"t\"}]", "workloads[0].name: missing (expected a string)" },
		{ "", "workloads", "[{\"name\": \"w\", \"metrics\": [{\"unit\": \"s\"}]}]",
		  "workloads[0].metrics[0].name: missing (expected a string)" },
	};
	(void)state;
	expect_refused(cases, ARRAY_SIZE(cases), 1, NULL);
}

/*
 * And the other way: session.json's SK_INT (under 9e15), which
 * report_validate() holds a report to, and the rows' choices left
 * unchecked, as report_validate() leaves them. main's view rows (a .whole
 * SK_LONG, under 10^15) refused guest.vcpus, design.blocks and
 * statistics.min_runs of 10^15 in a report that loads, so it did not
 * render (main had the guest's fixed already, the other two are new). An
 * absent integer of design or statistics still shows as 0, not SDOC_NONE.
 */
static void test_shared_rows_accept(void **state)
{
	json_t *r = analysed("session-ab.json");
	json_t *design = json_object_get(r, "design"), *st = json_object_get(r, "statistics");
	json_t *w = json_array_get(json_object_get(r, "workloads"), 0);
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(json_object_get(r, "guest"), "vcpus",
			    json_integer(1000000000000000LL));
	json_object_set_new(design, "blocks", json_integer(1000000000000000LL));
	json_object_set_new(design, "partners", json_string("paired"));
	json_object_set_new(st, "min_runs", json_integer(1000000000000000LL));
	json_object_del(design, "slots");
	json_object_del(design, "warmups");
	json_object_del(st, "counter_resamples");
	/* never checked by report_validate(), never read by the view: left unread */
	json_object_set_new(w, "primary", json_integer(7));
	json_object_set_new(w, "args", json_string("--x"));
	json_object_set_new(w, "coherence_args", json_object());
	json_object_set_new(w, "shares", json_pack("[{s:i}]", "tag", 9));
	if (report_validate(r, &err))
		fail_msg("%s", err.buf);
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_true(v.guest.doc.vcpus == 1000000000000000LL);
	assert_true(v.design.blocks == 1000000000000000LL);
	assert_true(v.statistics.min_runs == 1000000000000000LL);
	assert_string_equal(v.design.partners, "paired");
	assert_true(v.design.slots == 0 && v.design.warmups == 0);
	assert_true(v.statistics.counter_resamples == 0);
	assert_false(v.design.sequential.present);
	assert_true(v.design.sequential.min_runs == 0 && v.design.sequential.step == 0);
	assert_string_equal(v.generator.name, "mglrulab");
	assert_null(v.workloads[0].primary);
	assert_null(v.workloads[0].args);
	assert_int_equal(v.workloads[0].shares.n, 0);
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/*
 * What a table reads as none is what the hand-written readers read: an
 * absent or null member is NULL, NaN or 0 and its has_ flag 0, never the
 * table's SDOC_NONE or -1; an integer written as 2.0 is an integer. The
 * host is session.json's struct (struct sdoc_host): its cpus' none is
 * SDOC_NONE, as session.json's reader has it, and the renderers say so.
 */
static void test_table_nones(void **state)
{
	json_t *r = analysed("session-ab.json");
	json_t *host = json_object_get(r, "host"), *guest = json_object_get(r, "guest");
	json_t *w = json_array_get(json_object_get(r, "workloads"), 0);
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_del(host, "cpus");
	json_object_set_new(host, "cpu", json_null());
	json_object_set_new(host, "memory_mib", json_null());
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_true(v.host.cpus == SDOC_NONE);
	assert_null(v.host.cpu);
	assert_true(isnan(v.host.memory_mib));
	assert_string_equal(v.host.accel, "tcg");
	report_view_release(&v);

	json_object_set_new(host, "cpus", json_real(2.0));
	json_object_set_new(guest, "vcpus", json_null());
	json_object_set_new(guest, "icount_shift", json_integer(2));
	json_object_del(json_array_get(json_object_get(guest, "nodes"), 0), "id");
	json_object_set_new(w, "runs", json_integer(3));
	json_object_set_new(json_array_get(json_object_get(w, "metrics"), 0), "primary", json_true());
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(v.workloads[0].runs, 3);
	assert_true(v.workloads[1].runs == SDOC_NONE);
	assert_true(isnan(v.workloads[0].threshold));
	assert_non_null(v.workloads[0].params);
	assert_int_equal(v.workloads[0].metrics.n, 2);
	assert_int_equal(sdoc_metric_at(&v.workloads[0], 0)->primary, 1);
	/* session.json's SK_BOOL: absent -1 (the view's SK_FLAG read 0; no renderer reads it) */
	assert_int_equal(sdoc_metric_at(&v.workloads[0], 1)->primary, -1);
	assert_null(sdoc_metric_at(&v.workloads[0], 1)->help);
	assert_string_equal(sdoc_metric_at(&v.workloads[0], 1)->unit, "switches/s");
	assert_int_equal(v.host.cpus, 2);
	assert_true(v.guest.present);
	assert_int_equal(v.guest.doc.vcpus, 0);
	assert_true(v.guest.has_icount_shift);
	assert_int_equal(v.guest.doc.icount_shift, 2);
	assert_int_equal(v.guest.nnodes, 2);
	assert_int_equal(v.guest.nodes[0].id, 0);
	assert_int_equal(v.guest.nodes[1].id, 1);
	report_view_release(&v);

	json_object_set_new(r, "guest", json_null());
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_false(v.guest.present);
	assert_false(v.guest.has_icount_shift);
	assert_int_equal(v.guest.doc.icount_shift, 0);
	assert_int_equal(v.guest.nnodes, 0);
	assert_null(v.guest.nodes);
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* A kernel's series, its files, cover and author land where the renderers read them. */
static void test_kernel_series(void **state)
{
	json_t *r = analysed("session-ab.json");
	json_t *k = json_array_get(json_object_get(r, "kernels"), 1);
	const struct sdoc_kernel *o;
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(k, "series", xjson_pack("[{s:s, s:s}, {s:s, s:s, s:s}]",
						    "subject", "mm: one", "hash", "aaa",
						    "subject", "mm: two", "author", "A <a@x>",
						    "message_id", "<2@x>"));
	json_object_set_new(k, "series_files", xjson_pack("[{s:s, s:s}]", "file", "0001.patch",
							  "sha256", "ff00"));
	json_object_set_new(k, "cover", xjson_pack("{s:s, s:s}", "subject", "[PATCH 0/2] mm",
						   "message_id", "<0@x>"));
	json_object_set_new(k, "series_author", xjson_pack("{s:s}", "address", "a@x"));
	json_object_set_new(k, "posted_to", json_string("linux-mm@kvack.org"));
	json_object_set_new(k, "source_id", json_string("git:abc"));
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	o = &v.kernels[1];
	assert_int_equal(o->series.n, 2);
	assert_string_equal(sdoc_patch_at(o, 0)->hash, "aaa");
	assert_null(sdoc_patch_at(o, 0)->author);
	assert_string_equal(sdoc_patch_at(o, 1)->message_id, "<2@x>");
	assert_int_equal(o->series_files.n, 1);
	assert_string_equal(sdoc_series_file_at(o, 0)->sha256, "ff00");
	assert_string_equal(o->cover.subject, "[PATCH 0/2] mm");
	assert_string_equal(o->cover.message_id, "<0@x>");
	assert_null(o->series_author.name);
	assert_string_equal(o->series_author.address, "a@x");
	assert_string_equal(o->posted_to, "linux-mm@kvack.org");
	assert_string_equal(o->source_id, "git:abc");
	assert_string_equal(o->name, "patched");
	assert_null(v.kernels[0].cover.subject);
	assert_false(v.kernels[0].cover.present);
	assert_int_equal(v.kernels[0].series_files.n, 0);
	assert_ptr_equal(v.kernels_json, json_object_get(r, "kernels"));
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* A host state decodes typed; its own_states entry is named by its kernel. */
static void test_host_state(void **state)
{
	json_t *r = analysed("session-ab.json");
	json_t *hs = json_pack("{s:s, s:s, s:s, s:f, s:b, s:{s:{s:f, s:i, s:i}, s:{s:f}}}",
			       "workload", "yp", "metric", "cs_hostadj", "method", "by states",
			       "slope", 0.0, "by_states", 1, "own_states", "base", "ratio", 1.5,
			       "slow_cells", 3, "cells", 40, "patched", "ratio", 1.25);
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(r, "host_states", json_pack("[o]", hs));
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(v.nhost_states, 1);
	assert_ptr_equal(v.host_state_recs[0].json, hs);
	assert_string_equal(v.host_state_recs[0].metric, "cs_hostadj");
	assert_true(v.host_state_recs[0].slope == 0 && v.host_state_recs[0].by_states);
	assert_true(isnan(v.host_state_recs[0].correlation));
	assert_int_equal(v.host_state_recs[0].nown_states, 2);
	assert_string_equal(v.host_state_recs[0].own_states[1].kernel, "patched");
	assert_true(v.host_state_recs[0].own_states[0].cells == 40);
	assert_true(isnan(v.host_state_recs[0].own_states[1].cells));
	assert_int_equal(v.host_state_recs[0].modes_decidable, -1);	/* not said */
	assert_ptr_equal(v.host_states[0], hs);
	report_view_release(&v);

	json_object_set_new(hs, "modes", json_pack("{s:b}", "decidable", 0));
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_int_equal(v.host_state_recs[0].modes_decidable, 0);
	report_view_release(&v);

	json_object_set_new(hs, "own_states", json_pack("{s:i}", "base", 3));
	sb_reset(&err);
	assert_int_equal(report_view_decode(r, &v, &err), -1);
	assert_string_equal(err.buf, "host_states[0].own_states.base: expected an object, got an integer");
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* A sequential session's workloads, keyed by name, in the report's order, with their nones. */
static void test_sequential(void **state)
{
	json_t *r = analysed("session-ab.json");
	const struct view_seq_workload *w;
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_false(v.sequential.present);
	assert_int_equal(v.sequential.nworkloads, 0);
	report_view_release(&v);

	json_object_set_new(r, "sequential",
			    xjson_pack("{s:[{s:i}], s:{s:{s:b, s:s, s:i, s:f}, s:{}}}",
				       "looks", "look", 1, "workloads", "yp", "stopped", 1,
				       "why", "decided", "look", 2, "runs_per_kernel", 6.0, "agg"));
	if (report_view_decode(r, &v, &err))
		fail_msg("%s", err.buf);
	assert_true(v.sequential.present);
	assert_int_equal(json_array_size(v.sequential.looks), 1);
	assert_int_equal(v.sequential.nworkloads, 2);
	w = v.sequential.workloads;
	assert_string_equal(w[0].name, "yp");
	assert_true(w[0].stopped && w[0].look == 2 && w[0].runs_per_kernel == 6);
	assert_string_equal(w[0].why, "decided");
	assert_string_equal(w[1].name, "agg");
	assert_true(!w[1].stopped && w[1].look == 0 && isnan(w[1].runs_per_kernel));
	assert_null(w[1].why);
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/* A result that does not decode is named by its index. */
static void test_hostile_result(void **state)
{
	json_t *r = analysed("session-ab.json");
	struct report_view v;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	json_object_set_new(json_array_get(json_object_get(r, "results"), 1), "p_used",
			    json_string("small"));
	assert_int_equal(report_view_decode(r, &v, &err), -1);
	assert_string_equal(err.buf, "results[1].p_used: expected a number or null, got a string");
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
}

/*
 * A report that does not decode is refused where it is read, and where is
 * said: the view renders nothing from it, and the mail (which reads a
 * report tree) says so instead of a mail with holes.
 */
static void test_render_undecodable(void **state)
{
	json_t *r = analysed("session-ab.json");
	struct strbuf err = STRBUF_INIT, mail = STRBUF_INIT, why = STRBUF_INIT;
	struct report_view v;
	(void)state;

	json_object_set_new(json_object_get(r, "host"), "cpus", json_string("two"));
	assert_int_equal(report_view_decode(r, &v, &err), -1);
	assert_string_equal(err.buf, "host.cpus: expected an integer, got a string");
	assert_int_equal(report_render_mail(r, &(struct report_mail_opts){ 0 }, &mail, &why), -1);
	assert_string_equal(why.buf, "the report does not decode: host.cpus: "
			    "expected an integer, got a string");
	assert_int_equal(mail.len, 0);
	report_view_release(&v);
	json_decref(r);
	sb_release(&err);
	sb_release(&mail);
	sb_release(&why);
}

/*
 * The analysis's input (session_input_decode()): lenient as the analysis
 * always was. Integers and reals are numbers; what is not of the expected
 * type reads as none, and only the string patterns of primary[] count.
 */
static void test_session_input(void **state)
{
	json_t *s = xjson_pack("{s:{s:b}, s:{s:s}, s:[], s:{s:s, s:n, s:I, s:{s:f, s:i}},"
			       " s:{s:i, s:f, s:s, s:i}, s:{s:i},"
			       " s:[{s:s, s:s, s:f, s:[s, i, s],"
			       " s:[{s:s, s:s, s:s}, {s:s, s:i}]}, {s:i}]}",
			       "session", "complete", 0,
			       "host", "accel", "kvm",
			       "plan",
			       "design", "baseline", "base", "patched", "seed", (json_int_t)-5,
			       "sequential", "alpha", 0.05, "min_runs", 4,
			       "statistics", "resamples", 200, "alpha", 0.01,
			       "threshold_source", "x", "seed", 7,
			       "guest", "icount_shift", 3,
			       "workloads", "name", "w", "type", "lat", "threshold", 0.02,
			       "primary", "p99", 7, "p%d",
			       "metrics", "name", "p99", "unit", "ns", "better", "lower",
			       "name", "qps", "threshold", 1,
			       "name", 3);
	struct session_input in;
	(void)state;

	session_input_decode(s, &in);
	assert_true(in.incomplete);
	assert_int_equal(in.nplan, 0);
	assert_string_equal(in.accel, "kvm");
	assert_null(in.accel_reason);
	assert_string_equal(in.baseline, "base");
	assert_null(in.patched);	/* null: a one-kernel session */
	assert_non_null(in.seed);
	assert_true(in.sequential.present);
	assert_true(in.sequential.alpha == 0.05 && in.sequential.min_runs == 4);
	assert_true(isnan(in.sequential.max_runs));
	assert_true(in.statistics.resamples == 200 && in.statistics.alpha == 0.01);
	assert_true(isnan(in.statistics.confidence));
	assert_string_equal(in.statistics.threshold_source, "x");
	assert_true(in.statistics.has_int_seed);
	assert_int_equal(in.statistics.int_seed, 7);
	assert_true(in.has_icount_shift);
	assert_int_equal(in.nworkloads, 2);
	assert_string_equal(in.workloads[0].name, "w");
	assert_true(in.workloads[0].threshold == 0.02);
	assert_int_equal(in.workloads[0].nprimary, 2);
	assert_string_equal(in.workloads[0].primary[1], "p%d");
	assert_int_equal(in.workloads[0].nmetrics, 2);
	assert_true(in.workloads[0].metrics[0].better_lower);
	assert_string_equal(in.workloads[0].metrics[0].unit, "ns");
	assert_false(in.workloads[0].metrics[1].better_lower);
	assert_string_equal(in.workloads[0].metrics[1].unit, "");
	assert_true(in.workloads[0].metrics[1].threshold == 1);
	assert_string_equal(in.workloads[1].name, "");	/* not a string */
	assert_ptr_equal(in.workloads[1].json, json_array_get(json_object_get(s, "workloads"), 1));
	session_input_release(&in);
	assert_int_equal(in.nworkloads, 0);
	json_decref(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_ab),
		cmocka_unit_test(test_session_one),
		cmocka_unit_test(test_workload_first_of_name),
		cmocka_unit_test(test_every_fixture),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_shared_session_rows),
		cmocka_unit_test(test_shared_rows_accept),
		cmocka_unit_test(test_table_members),
		cmocka_unit_test(test_table_nones),
		cmocka_unit_test(test_kernel_series),
		cmocka_unit_test(test_hostile_result),
		cmocka_unit_test(test_host_state),
		cmocka_unit_test(test_sequential),
		cmocka_unit_test(test_render_undecodable),
		cmocka_unit_test(test_session_input),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
