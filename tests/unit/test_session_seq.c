// SPDX-License-Identifier: GPL-2.0
/*
 * The stopping rule of `run --until decided` (session_seq.c) as a user
 * sees it: the line a look prints shows the interval the verdict came
 * from (the pooled one on several hosts, as the report does), and its
 * state file failing is an error naming the file, never an interruption
 * that `--resume` would only repeat. A look analyses the records the
 * scheduler holds decoded, and refuses a hand-edited one, naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "report.h"
#include "report_result.h"
#include "report_view.h"
#include "run_record.h"
#include "session_doc.h"
#include "session_done.h"
#include "session_seq.h"
#include "session_priv.h"
#include "util.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-seq-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

/* What fd 2 receives between capture_begin() and capture_end(), as a string to free. */
struct stderr_capture {
	int saved;
	char path[96];
};

static void capture_begin(struct stderr_capture *c)
{
	int fd;

	snprintf(c->path, sizeof(c->path), "%s/stderr.XXXXXX", dir);
	fd = mkstemp(c->path);
	assert_true(fd >= 0);
	fflush(stderr);
	c->saved = dup(2);
	dup2(fd, 2);
	close(fd);
}

static char *capture_end(struct stderr_capture *c)
{
	struct strbuf sb = STRBUF_INIT;

	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	assert_int_equal(read_file(c->path, &sb, 0), 0);
	unlink(c->path);
	fputs(sb_str(&sb), stderr);	/* still shown with the test's output */
	return sb.buf ? sb.buf : xstrdup("");
}

/* --- the line a look prints --- */

/*
 * A primary analysed on two hosts: per-host-blind "comparison" of every
 * run -3 % [-5 %, -1 %], the pooled estimate (van Elteren, the verdict's
 * basis) -8 % [-10 %, -6 %]. The line must show the pooled one.
 */
static json_t *two_host_result(const char *basis)
{
	return json_pack("{s:s, s:s, s:b, s:b, s:s, s:{s:f, s:f, s:{s:f, s:f}},"
			 " s:{s:s, s:i, s:f, s:f, s:{s:f, s:f}}, s:[{s:s}, {s:s}]}",
			 "workload", "yield", "metric", "cs_per_sec", "primary", 1, "final", 1,
			 "verdict", "regression",
			 "comparison", "ratio", 0.97, "delta_pct", -3.0, "ci", "lo", 0.95, "hi", 0.99,
			 "pooled", "basis", basis, "hosts", 2, "ratio", 0.92, "delta_pct", -8.0,
			 "ci", "lo", 0.90, "hi", 0.94,
			 "hosts", "host", "a", "host", "b");
}

/* The line of a result as a look decodes it. */
static void primary_line(const json_t *res, struct strbuf *sb)
{
	struct result_record rec;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(result_record_decode(res, &rec, &err), 0);
	assert_int_equal(rec.verdict, VERDICT_REGRESSION);
	session_seq_primary_line(&rec, sb);
	result_record_release(&rec);
	sb_release(&err);
}

static void test_primary_line_uses_pooled(void **state)
{
	json_t *res = two_host_result("pooled");
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	primary_line(res, &sb);
	print_message("%s", sb_str(&sb));
	assert_non_null(strstr(sb_str(&sb), "  yield cs_per_sec: "));
	assert_non_null(strstr(sb_str(&sb), " -8.0 % [-10.0 %, -6.0 %]\n"));
	assert_null(strstr(sb_str(&sb), "-3.0"));
	assert_null(strstr(sb_str(&sb), "-5.0"));
	sb_release(&sb);
	json_decref(res);

	/* pooled only in name (too few hosts with runs): the comparison of all runs */
	res = two_host_result("all-runs");
	primary_line(res, &sb);
	assert_non_null(strstr(sb_str(&sb), " -3.0 % [-5.0 %, -1.0 %]\n"));
	sb_release(&sb);
	json_decref(res);
}

/* --- sequential.json --- */

/*
 * A session's document with a valid sequential plan (min 6, max 10, budget
 * @budget_s), no workloads, and an empty plan, @plan (the caller's).
 */
static void seq_doc(struct session_doc *doc, double budget_s, const json_t *plan)
{
	session_doc_init(doc);
	doc->design.sequential = (struct sdoc_sequential){ .present = 1, .alpha = 0.05,
		.min_runs = 6, .max_runs = 10, .step = 2, .rho = 2.0, .budget_s = budget_s };
	doc->workloads.present = 1;
	doc->plan = plan;
}

static char *session_dir(const char *sub)
{
	char *d = xasprintf("%s/%s", dir, sub), *runs = xasprintf("%s/runs", d);

	assert_int_equal(mkdir_p(runs, 0755), 0);
	free(runs);
	return d;
}

static void write_text_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void test_open_corrupt_state(void **state)
{
	char *d = session_dir("corrupt"), *path = xasprintf("%s/sequential.json", d);
	struct session_doc doc, fixed;
	struct session_seq *q = (void *)1;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	seq_doc(&doc, 0, NULL);
	write_text_file(path, "{\"workloads\": {\"yield\": {\"stopped\": tr");
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_EUSER);
	assert_null(q);
	assert_non_null(strstr(sb_str(&err), path));

	sb_reset(&err);
	write_text_file(path, "[1, 2]");
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_EUSER);
	assert_non_null(strstr(sb_str(&err), path));

	/* A hand-edited member is named, not read as "not stopped" or a NaN block. */
	sb_reset(&err);
	write_text_file(path, "{\"workloads\": {\"yield\": {\"stopped\": true, "
			"\"why\": \"decided\", \"look\": 1, \"look_block\": \"six\"}}}");
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_EUSER);
	assert_null(q);
	assert_non_null(strstr(sb_str(&err), "workloads.yield.look_block: expected an integer"));

	/* no file yet: a fresh state; a fixed-N session: none */
	unlink(path);
	sb_reset(&err);
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_OK);
	assert_non_null(q);
	session_seq_free(q);
	session_doc_init(&fixed);
	assert_int_equal(session_seq_open(d, &fixed, &q, &err), LAB_OK);
	assert_null(q);
	assert_int_equal(err.len, 0);

	sb_release(&err);
	free(path);
	free(d);
}

/*
 * The whole stage: session_run_plan() on a corrupt sequential.json is the
 * status of an error naming the file, and not "stopped" (which
 * session_finish() reports as an interruption to continue with --resume).
 */
static void test_run_plan_corrupt_state(void **state)
{
	struct session_opts o = { 0 };
	struct session s = { .o = &o, .saved_stdout = -1, .lock_fd = -1 };
	struct stderr_capture cap;
	char *path, *said;
	enum plan_end end = PLAN_STOPPED;
	int r;
	(void)state;

	s.dir = session_dir("plan");
	json_t *plan = json_array();

	seq_doc(&s.doc, 0, plan);
	path = xasprintf("%s/sequential.json", s.dir);
	write_text_file(path, "not json at all");
	capture_begin(&cap);
	r = session_run_plan(&s, &end);
	said = capture_end(&cap);
	assert_int_equal(r, LAB_EUSER);
	assert_int_equal(end, PLAN_DONE);
	assert_null(s.seq);
	assert_non_null(strstr(said, path));
	assert_null(strstr(said, "interrupted"));
	free(said);
	free(path);
	json_decref(plan);
	free(s.dir);
}

/*
 * The budget is spent, and sequential.json cannot be written (its folder
 * is gone): -1 and a message naming the file, not a silent 1 that leaves
 * the state on disk behind the session's.
 */
static void test_budget_spent_unwritable(void **state)
{
	char *d = session_dir("budget"), *path = xasprintf("%s/sequential.json", d);
	json_t *runs;
	struct session_doc doc;
	struct run_records rs;
	struct session_seq *q;
	struct strbuf err = STRBUF_INIT;
	struct stderr_capture cap;
	char *said;
	(void)state;

	seq_doc(&doc, 10, NULL);
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_OK);
	assert_non_null(q);
	runs = json_pack("[{s:i, s:s, s:s, s:s, s:{}, s:{s:f, s:f, s:f}}]", "seq", 1,
			 "kernel", "base", "workload", "yield", "status", "ok", "metrics", "timings",
			 "boot_s", 3.0, "workload_s", 9.0, "host_overhead_s", 0.5);
	assert_int_equal(run_records_decode_valid(runs, &rs), 0);
	/* spent and recorded */
	assert_int_equal(session_seq_budget_spent(q, &rs), 1);
	assert_true(path_exists(path));

	/* a second record, the state to write again, and nowhere to write it */
	session_seq_free(q);
	unlink(path);
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_OK);
	assert_int_equal(rm_rf(d), 0);
	capture_begin(&cap);
	int r = session_seq_budget_spent(q, &rs);
	said = capture_end(&cap);
	assert_int_equal(r, -1);
	assert_non_null(strstr(said, path));
	free(said);

	session_seq_free(q);
	run_records_release(&rs);
	json_decref(runs);
	sb_release(&err);
	free(path);
	free(d);
}

/* --- a look on the scheduler's records --- */

/*
 * What a look decodes and copies: run_records_decode() (each a whole
 * "runs" array decoded), json_deep_copy() and json_copy() called from the
 * lab.
 */
static size_t decodes, deep_copies, copies;

int __real_run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
			      struct run_records *out, struct strbuf *err);
int __wrap_run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
			      struct run_records *out, struct strbuf *err);
int __wrap_run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
			      struct run_records *out, struct strbuf *err)
{
	decodes++;
	return __real_run_records_decode(runs, kernels, out, err);
}

json_t *__real_json_deep_copy(const json_t *j);
json_t *__wrap_json_deep_copy(const json_t *j);
json_t *__wrap_json_deep_copy(const json_t *j)
{
	deep_copies++;
	return __real_json_deep_copy(j);
}

json_t *__real_json_copy(json_t *j);
json_t *__wrap_json_copy(json_t *j);
json_t *__wrap_json_copy(json_t *j)
{
	copies++;
	return __real_json_copy(j);
}

/*
 * A real session.json of `--until decided` (min_runs 6) and, for each of
 * its plan's entries up to block 6, the run record the lab would write:
 * the first look is due.
 */
static json_t *look_session_to(long last, json_t **runs)
{
	json_t *ctx = json_load_file("tests/fixtures/session/ab-sequential.json", 0, NULL);
	const json_t *p;
	size_t i;

	assert_non_null(ctx);
	*runs = json_array();
	json_array_foreach(json_object_get(ctx, "plan"), i, p) {
		json_t *r, *rest;

		if (json_integer_value(json_object_get(p, "block")) > last)
			break;
		r = json_deep_copy(p);
		rest = json_pack(
			"{s:s, s:{s:f, s:f}, s:{s:f, s:f, s:f}}", "status", "ok", "metrics",
			"cs_per_sec_per_cpu_1cpu", 1000.0 + (double)(i % 4),
			"cs_per_sec_per_cpu_1cpu_mean", 1000.0, "timings", "boot_s", 1.0,
			"workload_s", 2.0, "host_overhead_s", 0.5);
		json_object_update(r, rest);
		json_decref(rest);
		json_array_append_new(*runs, r);
	}
	assert_int_equal(json_array_size(*runs), 2 * last);
	return ctx;
}

static json_t *look_session(json_t **runs)
{
	return look_session_to(6, runs);
}

/* session_seq_after_run() of @ctx and @runs (taken), its status; what it said in *@said. */
static int after_run(const char *sub, json_t *ctx, json_t *runs, char **said)
{
	char *d = session_dir(sub);
	struct session_seq *q;
	struct session_done done;
	struct session_doc doc;
	struct strbuf err = STRBUF_INIT;
	struct stderr_capture cap;
	int r;

	assert_int_equal(session_doc_decode(ctx, &doc, &err), 0);
	assert_int_equal(session_seq_open(d, &doc, &q, &err), LAB_OK);
	session_done_init(&done, runs);
	decodes = deep_copies = copies = 0;
	capture_begin(&cap);
	r = session_seq_after_run(q, &doc, &done, "yield");
	*said = capture_end(&cap);
	session_doc_release(&doc);
	session_done_release(&done);
	session_seq_free(q);
	sb_release(&err);
	free(d);
	return r;
}

/*
 * The look analyses the session's document and the scheduler's decoded
 * records: no run decoded again, session.json neither deep-copied nor
 * copied at all (before: two decodings and a deep copy per look, then one
 * decoding, the view's; then none, but two shallow copies of the tree per
 * look, the session with its runs set in and the report's shell: this
 * fails on the code before the look took struct session_doc).
 */
static void test_look_takes_decoded_runs(void **state)
{
	json_t *runs, *ctx = look_session(&runs);
	char *said;
	(void)state;

	assert_int_equal(after_run("look", ctx, runs, &said), LAB_OK);
	assert_non_null(strstr(said, "look 1 of"));
	assert_int_equal(decodes, 0);
	assert_int_equal(deep_copies, 0);
	assert_int_equal(copies, 0);
	free(said);
	json_decref(ctx);
}

static void same_number(double a, double b)
{
	if (!(isnan(a) && isnan(b)))
		assert_memory_equal(&a, &b, sizeof(a));
}

/*
 * What a look reads of each result is what the report's analysis
 * (report_analyze_view(), of session.json's tree with the runs set in, as
 * the look did before) gives for the same session and runs: workload,
 * metric, primary, final, the verdict, the change it rests on and the
 * estimate of the runs needed, and so the line the look prints.
 */
static void test_look_decides_as_the_report(void **state)
{
	json_t *runs, *ctx = look_session(&runs), *tree, *r;
	struct run_records recs = RUN_RECORDS_INIT;
	struct strbuf err = STRBUF_INIT;
	struct session_doc doc;
	struct session_input in;
	struct report_results an;
	struct report_view v;
	size_t i, primaries = 0;
	(void)state;

	/*
	 * The patched kernel 5 % slower, and the primary a metric the runs
	 * have (the host-adjusted one needs the host's load), so that the
	 * verdicts and intervals say something.
	 */
	json_object_set_new(json_array_get(json_object_get(ctx, "workloads"), 0), "primary",
			    json_pack("[s]", "cs_per_sec_per_cpu_1cpu"));
	json_array_foreach(runs, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "kernel")), "slow5"))
			json_object_set_new(json_object_get(r, "metrics"), "cs_per_sec_per_cpu_1cpu",
					    json_real(950.0 + (double)(i % 3)));
	assert_int_equal(session_doc_decode(ctx, &doc, &err), 0);
	assert_int_equal(run_records_decode(runs, NULL, &recs, &err), 0);
	assert_int_equal(report_validate_doc(&doc, &recs, &err), 0);
	session_input_from_doc(&doc, &in);
	report_analyze_results(&in, &recs, &an);

	tree = json_copy(ctx);
	json_object_set(tree, "runs", runs);
	assert_int_equal(report_analyze_view(tree, &v, &err), 0);

	assert_int_equal(an.nresults, v.nresults);
	for (i = 0; i < v.nresults; i++) {
		const struct result_record *a = &an.results[i], *b = &v.results[i];
		struct strbuf la = STRBUF_INIT, lb = STRBUF_INIT;

		assert_string_equal(a->workload, b->workload);
		assert_string_equal(a->metric, b->metric);
		assert_int_equal(a->primary, b->primary);
		assert_int_equal(a->final, b->final);
		assert_int_equal(a->verdict, b->verdict);
		assert_true((!a->verdict_id && !b->verdict_id) ||
			    (a->verdict_id && b->verdict_id && !strcmp(a->verdict_id, b->verdict_id)));
		same_number(a->change.delta_pct, b->change.delta_pct);
		same_number(a->change.lo, b->change.lo);
		same_number(a->change.hi, b->change.hi);
		assert_int_equal(a->runs_needed, b->runs_needed);
		session_seq_primary_line(a, &la);
		session_seq_primary_line(b, &lb);
		assert_string_equal(sb_str(&la), sb_str(&lb));
		if (a->primary && isfinite(a->change.lo)) {
			print_message("%s", sb_str(&la));
			primaries++;
		}
		sb_release(&la);
		sb_release(&lb);
	}
	/* a primary with an interval was compared, not only empty results */
	assert_true(primaries > 0);

	report_view_release(&v);
	json_decref(tree);
	report_results_release(&an);
	session_input_release(&in);
	session_doc_release(&doc);
	run_records_release(&recs);
	json_decref(runs);
	sb_release(&err);
	json_decref(ctx);
}

/*
 * Hand-edited records on --resume: the look refuses the session, naming
 * what is wrong; one that does not decode by its file and member.
 */
static void test_look_refuses_edited_runs(void **state)
{
	json_t *runs, *ctx = look_session(&runs);
	char *said;
	(void)state;

	/* decodes, but names a kernel the session does not have */
	json_object_set_new(json_array_get(runs, 11), "kernel", json_string("evil"));
	assert_int_equal(after_run("edit-kernel", ctx, runs, &said), LAB_ELAB);
	assert_non_null(strstr(said, "runs[11].kernel: no kernel named \"evil\" in kernels[]"));
	free(said);

	/* a record of the next block whose metrics are not an object: its file named */
	json_decref(ctx);
	ctx = look_session(&runs);
	json_array_append_new(runs, json_pack("{s:i, s:i, s:s, s:s, s:b, s:s, s:s}", "seq", 13,
					      "block", 7, "kernel", "baseline", "workload",
					      "yield", "warmup", 0, "status", "ok", "metrics",
					      "fast"));
	assert_int_equal(after_run("edit-metrics", ctx, runs, &said), LAB_ELAB);
	assert_non_null(strstr(said, "edit-metrics/runs/0013.json: metrics: expected"));
	free(said);
	json_decref(ctx);
}

/*
 * A workload without its own runs (a session from before them) runs
 * design.runs_per_kernel (reports/SCHEMA.md). The rule read its cap as
 * a number that was not there, and stopped it after its first block as
 * "below the first look" (fails on the code before the rule read its
 * cap from struct session_doc).
 */
static void test_cap_of_a_workload_without_runs(void **state)
{
	json_t *runs, *ctx = look_session_to(2, &runs), *st;
	char *said, *path = xasprintf("%s/no-runs/sequential.json", dir);
	(void)state;

	json_object_del(json_array_get(json_object_get(ctx, "workloads"), 0), "runs");
	assert_int_equal(after_run("no-runs", ctx, runs, &said), LAB_OK);
	/* not stopped: nothing to save, or saved as running */
	st = json_load_file(path, 0, NULL);
	assert_false(json_is_string(json_object_get(json_object_get(json_object_get(st, "workloads"),
								    "yield"), "why")));
	assert_null(strstr(said, "look"));
	json_decref(st);
	free(said);
	free(path);
	json_decref(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primary_line_uses_pooled),
		cmocka_unit_test(test_open_corrupt_state),
		cmocka_unit_test(test_run_plan_corrupt_state),
		cmocka_unit_test(test_budget_spent_unwritable),
		cmocka_unit_test(test_look_takes_decoded_runs),
		cmocka_unit_test(test_look_decides_as_the_report),
		cmocka_unit_test(test_look_refuses_edited_runs),
		cmocka_unit_test(test_cap_of_a_workload_without_runs),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
