// SPDX-License-Identifier: GPL-2.0
/*
 * Balanced partners (issue 49, session_twins.h): which runs of a block
 * start together on a pair of slots, and the scheduler (session_runs.c)
 * running them so: under icount a run's emulator state follows what the
 * other slot runs, so every A run's partner must be the same workload on
 * B and vice versa, never whatever the other slot happened to run.
 *
 * No guest boots: the test links with -Wl,--wrap=session_run_one (the
 * Makefile), so each run is a record written at once, after a short
 * wait that lets runs started together overlap; the scheduler, the
 * plan, the records on disk and the partners are the real ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fsutil.h"
#include "session_plan.h"
#include "run_record.h"
#include "session_priv.h"
#include "session_seq.h"
#include "session_twins.h"
#include "util.h"

/* The steps of @n runs as "(0,1) (2)": the runs' indices, started together in brackets. */
static char *steps_str(size_t n, int slots, int alone)
{
	struct twin_step *st = xcalloc(n + 1, sizeof(*st));
	size_t k = twin_steps(n, slots, alone, st);
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < k; i++) {
		assert_true(st[i].n == 1 || st[i].n == 2);
		if (st[i].n == 2)
			sb_addf(&sb, "%s(%zu,%zu)", i ? " " : "", st[i].run[0], st[i].run[1]);
		else
			sb_addf(&sb, "%s(%zu)", i ? " " : "", st[i].run[0]);
	}
	free(st);
	return sb_detach(&sb);
}

/* @kernels ("ABBA") in steps on a pair: "AB BA". */
static char *kernel_steps(const char *kernels, int slots, int alone)
{
	size_t n = strlen(kernels);
	struct twin_step *st = xcalloc(n + 1, sizeof(*st));
	size_t k = twin_steps(n, slots, alone, st);
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < k; i++) {
		if (i)
			sb_addc(&sb, ' ');
		for (size_t j = 0; j < st[i].n; j++)
			sb_addc(&sb, kernels[st[i].run[j]]);
	}
	free(st);
	return sb_detach(&sb);
}

static void expect_steps(char *got, const char *want)
{
	if (strcmp(got, want))
		fail_msg("steps \"%s\", want \"%s\"", got, want);
	free(got);
}

static void test_steps(void **state)
{
	(void)state;
	/* A pair of blocks as the plan orders them: A beside B, then B beside A */
	expect_steps(kernel_steps("ABBA", 2, 0), "AB BA");
	expect_steps(kernel_steps("BAAB", 2, 0), "BA AB");
	/* the first run of a step on the even slot: each kernel on each slot once */
	expect_steps(steps_str(4, 2, 0), "(0,1) (2,3)");
	/* one block, the scheduler's unit: one step */
	expect_steps(kernel_steps("AB", 2, 0), "AB");
	/* a warm-up (a block of one run), or what a resume or a dropped host left */
	expect_steps(steps_str(1, 2, 0), "(0)");
	expect_steps(kernel_steps("BBA", 2, 0), "BB A");
	expect_steps(steps_str(0, 2, 0), "");
	/* a workload that takes the host alone: one run at a time, nothing beside */
	expect_steps(kernel_steps("ABBA", 2, 1), "A B B A");
	/* a slot on its own (a host of one slot, partners = free): one at a time */
	expect_steps(kernel_steps("AB", 1, 0), "A B");
	/*
	 * Three kernels: still consecutive runs, two at a time; the balance is
	 * exact for two kernels only (here C runs alone, A and B side by side).
	 */
	expect_steps(kernel_steps("ABC", 2, 0), "AB C");
	expect_steps(kernel_steps("ABCCBA", 2, 0), "AB CC BA");
}

/* --- the scheduler, with session_run_one() wrapped --- */

static char dir[64];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int in_flight, max_in_flight;
/* a run waits (up to 5 s) until this many run at once: runs started together overlap */
static int overlap;
static int show;		/* MGLRULAB_TEST_SHOW: print each run, to compare schedules */

json_t *__wrap_session_run_one(struct session *s, struct session_host *h, int slot,
			       const struct plan_entry *p, int seq, const struct run_partners *pt,
			       struct strbuf *dropped);
json_t *__wrap_session_run_one(struct session *s, struct session_host *h, int slot,
			       const struct plan_entry *p, int seq, const struct run_partners *pt,
			       struct strbuf *dropped)
{
	json_t *rec = json_deep_copy(p->json), *partners = json_array();

	(void)h;
	(void)dropped;
	pthread_mutex_lock(&mu);
	max_in_flight = ++in_flight > max_in_flight ? in_flight : max_in_flight;
	pthread_cond_broadcast(&cv);
	if (overlap > 1) {
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 5;
		while (max_in_flight < overlap && !pthread_cond_timedwait(&cv, &mu, &until))
			;
	}
	pthread_mutex_unlock(&mu);
	usleep(5000);	/* a guest's while: what starts beside it now is its partner */
	pthread_mutex_lock(&mu);
	in_flight--;
	pthread_mutex_unlock(&mu);
	/* what session_run_one.c records: the runs beside it, read under the scheduler's lock */
	pthread_mutex_lock(pt->lock);
	for (size_t i = 0; i + 1 < pt->v->n; i += 2)
		json_array_append_new(partners, json_pack("{s:s, s:s}", "workload", pt->v->v[i],
							  "kernel", pt->v->v[i + 1]));
	pthread_mutex_unlock(pt->lock);
	json_object_set_new(rec, "partners", partners);
	json_object_set_new(rec, "status", json_string("ok"));
	json_object_set_new(rec, "metrics", json_object());
	json_object_set_new(rec, "timings", json_pack("{s:f}", "workload_s", 1.0));
	json_object_set_new(rec, "slot", json_integer(slot));
	assert_int_equal(session_write_run(s->dir, seq, rec), 0);
	return rec;
}

/*
 * Every run record decoded, counted: run_record_decode() called from
 * another file, and each element run_records_decode_valid() decodes (its
 * own calls to run_record_decode() are not wrapped).
 */
static size_t decoded;

int __real_run_record_decode(const json_t *r, struct run_record *out, struct strbuf *err);
int __wrap_run_record_decode(const json_t *r, struct run_record *out, struct strbuf *err);
int __wrap_run_record_decode(const json_t *r, struct run_record *out, struct strbuf *err)
{
	decoded++;
	return __real_run_record_decode(r, out, err);
}

size_t __real_run_records_decode_valid(const json_t *runs, struct run_records *out);
size_t __wrap_run_records_decode_valid(const json_t *runs, struct run_records *out);
size_t __wrap_run_records_decode_valid(const json_t *runs, struct run_records *out)
{
	decoded += json_array_size(runs);
	return __real_run_records_decode_valid(runs, out);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-twins-XXXXXX");
	show = getenv("MGLRULAB_TEST_SHOW") != NULL;
	lab_quiet = 1;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static const char *const kernels[] = { "baseline", "patched" };
/* make_session()'s members of session.json, which its s->doc points into */
static json_t *made;

/*
 * A session in @dir of @nw workloads (@types) with @runs runs per kernel
 * and @warmups warm-ups, planned as session_new() plans it, on one host
 * of @slots slots with [run] partners @partners. Returns the plan's size.
 */
static size_t make_session(struct session *s, const char *const *types, int nw, int runs,
			   int warmups, long slots, const char *partners)
{
	struct session_plan plan;
	int wruns[8];
	json_t *pl = json_array(), *wls = json_array();
	struct strbuf err = STRBUF_INIT;
	char name[16];

	memset(s, 0, sizeof(*s));
	for (int w = 0; w < nw; w++) {
		wruns[w] = runs;
		snprintf(name, sizeof(name), "w%d", w);
		json_array_append_new(wls, json_pack("{s:s, s:s, s:[]}", "name", name, "type",
						     types[w], "args"));
	}
	session_plan_make(&plan, 2, nw, wruns, warmups, 7);
	for (size_t i = 0; i < plan.n; i++) {
		snprintf(name, sizeof(name), "w%d", plan.runs[i].workload);
		json_array_append_new(pl, plan_entry_encode(&plan.runs[i],
							    kernels[plan.runs[i].kernel], name));
	}
	size_t n = plan.n;
	session_plan_release(&plan);
	char *runs_dir = xasprintf("%s/runs", dir);

	rm_rf(runs_dir);	/* a test that failed left its records */
	assert_int_equal(mkdir_p(runs_dir, 0755), 0);
	free(runs_dir);
	s->dir = dir;
	s->id = "twins";
	made = json_pack("{s:o, s:o, s:[{s:s}, {s:s}]}", "plan", pl, "workloads", wls,
			 "kernels", "name", kernels[0], "name", kernels[1]);
	/* what session_doc_decode() makes of them: the scheduler reads the struct */
	session_doc_init(&s->doc);
	assert_int_equal(session_doc_member_decode(made, "workloads", &s->doc, &err), 0);
	assert_int_equal(session_doc_member_decode(made, "kernels", &s->doc, &err), 0);
	s->doc.design.partners = partners;
	s->doc.plan = json_object_get(made, "plan");	/* and the plan, the scheduler's */
	assert_int_equal(session_jobs_of(&s->doc, &s->jobs, &err), 0);
	s->hosts.v = xcalloc(1, sizeof(*s->hosts.v));
	s->hosts.n = 1;
	s->hosts.nr_slots = (size_t)slots;
	s->hosts.v[0].cfg.name = "local";
	s->hosts.v[0].cfg.slots = slots;
	sb_release(&err);
	in_flight = max_in_flight = overlap = 0;
	return n;
}

static void session_done(struct session *s)
{
	session_doc_release(&s->doc);
	session_jobs_release(&s->jobs);
	json_decref(made);
	made = NULL;
	free(s->hosts.v);
	char *runs = xasprintf("%s/runs", dir);
	rm_rf(runs);
	free(runs);
}

/* Run the plan; the records on disk, by seq. */
static json_t *run_plan(struct session *s, size_t n)
{
	enum plan_end end;
	struct strbuf err = STRBUF_INIT;
	json_t *runs, *r;
	size_t i;

	assert_int_equal(session_run_plan(s, &end), LAB_OK);
	assert_int_equal(end, PLAN_DONE);
	runs = session_load_runs(dir, &err);
	assert_string_equal(sb_str(&err), "");
	assert_int_equal(json_array_size(runs), n);
	json_array_foreach(runs, i, r) {
		assert_int_equal(json_integer_value(json_object_get(r, "seq")), (json_int_t)i + 1);
		if (show) {
			char *pt = json_dumps(json_object_get(r, "partners"), JSON_COMPACT);

			printf("seq %2zu %-3s block %2lld %-8s slot %lld beside %s\n", i + 1,
			       json_string_value(json_object_get(r, "workload")),
			       json_integer_value(json_object_get(r, "block")),
			       json_string_value(json_object_get(r, "kernel")),
			       json_integer_value(json_object_get(r, "slot")), pt);
			free(pt);
			fflush(stdout);
		}
	}
	sb_release(&err);
	return runs;
}

static const char *rs(const json_t *r, const char *key)
{
	return json_string_value(json_object_get(r, key));
}

/* Is @r's partner list exactly its own workload on the other kernel? */
static int beside_its_twin(const json_t *r)
{
	const json_t *pt = json_object_get(r, "partners"), *p = json_array_get(pt, 0);

	return json_array_size(pt) == 1 && !strcmp(rs(p, "workload"), rs(r, "workload")) &&
	       strcmp(rs(p, "kernel"), rs(r, "kernel"));
}

/*
 * The session the report quotes: 2 slots, 3 workloads, 6 runs per
 * kernel. Each run's partner is its block's other run (the same
 * workload, the other kernel), so the partner workloads A runs saw are
 * those B runs saw; each kernel takes each slot equally often.
 */
static void test_balanced_schedule(void **state)
{
	const char *const types[] = { "yield_pingpong", "will_it_scale", "mglru_aging" };
	struct session s;
	size_t n = make_session(&s, types, 3, 6, 0, 2, "balanced");
	json_t *runs, *r;
	/* [workload][kernel]: partners seen per partner workload; runs per slot */
	int seen[3][2][3] = { { { 0 } } }, slot[3][2][2] = { { { 0 } } };
	size_t i;

	(void)state;
	overlap = 2;	/* the first two runs overlap before either ends */
	runs = run_plan(&s, n);
	assert_int_equal(n, 36);
	assert_int_equal(max_in_flight, 2);
	json_array_foreach(runs, i, r) {
		int w = rs(r, "workload")[1] - '0', k = !strcmp(rs(r, "kernel"), "patched");
		const json_t *p;
		size_t j;

		if (!beside_its_twin(r))
			fail_msg("run %zu (%s on %s) ran beside %s, not its block's other kernel", i + 1,
				 rs(r, "workload"), rs(r, "kernel"),
				 json_dumps(json_object_get(r, "partners"), JSON_COMPACT));
		json_array_foreach(json_object_get(r, "partners"), j, p)
			seen[w][k][rs(p, "workload")[1] - '0']++;
		slot[w][k][json_integer_value(json_object_get(r, "slot"))]++;
		/* the two runs of a step are the block's two runs, one on each slot */
		if (i % 2)
			assert_int_not_equal(json_integer_value(json_object_get(r, "slot")),
					     json_integer_value(json_object_get(json_array_get(runs, i - 1),
										"slot")));
	}
	for (int w = 0; w < 3; w++) {
		assert_memory_equal(seen[w][0], seen[w][1], sizeof(seen[w][0]));
		assert_int_equal(slot[w][0][0], 3);
		assert_int_equal(slot[w][0][1], 3);
		assert_int_equal(slot[w][1][0], 3);
	}
	json_decref(runs);
	session_done(&s);
}

/*
 * What runs alone on the pair has nothing beside it: warm-ups (a block
 * each) and a workload that takes the host alone (kernel_build); the
 * others still run beside their twins.
 */
static void test_lone_runs(void **state)
{
	const char *const types[] = { "yield_pingpong", "kernel_build" };
	struct session s;
	size_t n = make_session(&s, types, 2, 2, 1, 2, "balanced");
	json_t *runs = run_plan(&s, n), *r;
	size_t i;

	(void)state;
	assert_int_equal(n, 12);
	json_array_foreach(runs, i, r) {
		int lone = json_is_true(json_object_get(r, "warmup")) ||
			   !strcmp(rs(r, "workload"), "w1");

		if (lone)
			assert_int_equal(json_array_size(json_object_get(r, "partners")), 0);
		else
			assert_true(beside_its_twin(r));
	}
	json_decref(runs);
	session_done(&s);
}

/*
 * A resumed session skips the runs done: a block with one run left runs
 * it alone on the pair, and the blocks after it pair up as before.
 */
static void test_resume_remainder(void **state)
{
	const char *const types[] = { "yield_pingpong" };
	struct session s;
	size_t n = make_session(&s, types, 1, 4, 0, 2, "balanced");
	json_t *rec = json_deep_copy(json_array_get(s.doc.plan, 0)), *runs, *r;
	size_t i;

	(void)state;
	json_object_set_new(rec, "status", json_string("ok"));
	json_object_set_new(rec, "partners", json_array());
	assert_int_equal(session_write_run(dir, 1, rec), 0);
	json_decref(rec);
	runs = run_plan(&s, n);
	json_array_foreach(runs, i, r)
		if (i < 2)
			assert_int_equal(json_array_size(json_object_get(r, "partners")), 0);
		else
			assert_true(beside_its_twin(r));
	json_decref(runs);
	session_done(&s);
}

/*
 * [run] partners = free, today's scheduler before issue 49: each slot its
 * own blocks, a block's runs one after the other on one slot; a run is
 * never beside its own block's other run.
 */
static void test_partners_free(void **state)
{
	const char *const types[] = { "yield_pingpong", "will_it_scale" };
	struct session s;
	size_t n = make_session(&s, types, 2, 2, 0, 2, "free");
	json_t *runs = run_plan(&s, n), *r;
	size_t i;

	(void)state;
	json_array_foreach(runs, i, r)
		if (i % 2)
			assert_int_equal(json_integer_value(json_object_get(r, "slot")),
					 json_integer_value(json_object_get(json_array_get(runs, i - 1),
									    "slot")));
	json_decref(runs);
	session_done(&s);
}

/* One slot: one run at a time, balanced or not; nothing beside any. */
static void test_one_slot(void **state)
{
	const char *const types[] = { "yield_pingpong" };
	struct session s;
	size_t n = make_session(&s, types, 1, 2, 0, 1, "balanced");
	json_t *runs = run_plan(&s, n), *r;
	size_t i;

	(void)state;
	assert_int_equal(max_in_flight, 1);
	json_array_foreach(runs, i, r)
		assert_int_equal(json_array_size(json_object_get(r, "partners")), 0);
	json_decref(runs);
	session_done(&s);
}

/*
 * Issue 48: the scheduler decodes each run record once, when it is
 * written or read back on resume, however often the budget, the stopping
 * rule and the progress lines read it: a sequential session with a
 * budget, resumed after its first run, and its progress shown.
 */
static void test_records_decoded_once(void **state)
{
	const char *const types[] = { "yield_pingpong" };
	struct session s;
	size_t n = make_session(&s, types, 1, 4, 0, 1, "free");
	json_t *rec = json_deep_copy(json_array_get(s.doc.plan, 0)), *runs;
	char *seq_path = xasprintf("%s/sequential.json", dir);
	int quiet = lab_quiet;

	(void)state;
	/* below its first look: the rule stops it at its cap, with no analysis to run */
	s.doc.design.sequential = (struct sdoc_sequential){ .present = 1, .alpha = 0.05,
		.min_runs = 6, .max_runs = 10, .step = 2, .rho = 2.0, .budget_s = 1000.0 };
	/* the rule reads its cap from the document */
	((struct sdoc_workload *)s.doc.workloads.v)[0].runs = 4;
	json_object_set_new(rec, "status", json_string("ok"));
	json_object_set_new(rec, "metrics", json_object());
	assert_int_equal(session_write_run(dir, 1, rec), 0);
	json_decref(rec);
	decoded = 0;
	lab_quiet = 0;
	runs = run_plan(&s, n);
	lab_quiet = quiet;
	assert_int_equal(n, 8);
	assert_int_equal(decoded, n);
	assert_true(session_seq_stopped(s.seq, "w0"));
	session_seq_free(s.seq);
	unlink(seq_path);
	free(seq_path);
	json_decref(runs);
	session_done(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_balanced_schedule),
		cmocka_unit_test(test_lone_runs),
		cmocka_unit_test(test_resume_remainder),
		cmocka_unit_test(test_partners_free),
		cmocka_unit_test(test_one_slot),
		cmocka_unit_test(test_records_decoded_once),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
