// SPDX-License-Identifier: GPL-2.0
/*
 * What the analysis reads of a session, two ways (report_view.h): decoded
 * from session.json's tree (session_input_decode(), the reports' path) and
 * made from the session's typed document (session_input_from_doc(), the
 * stopping rule's looks). For real session.json files and reports, and
 * for variants of them that take the lenient reader's other branches, the
 * two inputs agree member by member, but for the tree members a document
 * does not have (NULL by the contract): the test that keeps the two in
 * step when either grows a member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <string.h>

#include "report_view.h"
#include "session_doc.h"
#include "strbuf.h"

static const char *const files[] = {
	"tests/fixtures/session/ab-claim.json",
	"tests/fixtures/session/ab-sequential.json",
	"tests/fixtures/session/ab-note.json",
	"tests/fixtures/session/one-alone.json",
	"tests/fixtures/reports/session-ab.json",
	"tests/fixtures/reports/session-one.json",
	"tests/fixtures/reports/session-small.json",
	"tests/fixtures/reports/nightly-a.json",
	"tests/fixtures/reports/nightly-b.json",
};

/* Two numbers the same: equal, or both NaN ("none"). */
static void same_num(double a, double b, const char *what, const char *file)
{
	if (isnan(a) && isnan(b))
		return;
	if (a != b)
		fail_msg("%s: %s: tree %.17g, document %.17g", file, what, a, b);
}

static void same_str(const char *a, const char *b, const char *what, const char *file)
{
	if (!a && !b)
		return;
	if (!a || !b || strcmp(a, b))
		fail_msg("%s: %s: tree \"%s\", document \"%s\"", file, what, a ? a : "(null)",
			 b ? b : "(null)");
}

static void same_workload(const struct input_workload *t, const struct input_workload *d,
			  const char *file)
{
	same_str(t->name, d->name, "workloads[].name", file);
	same_str(t->type, d->type, "workloads[].type", file);
	same_num(t->threshold, d->threshold, "workloads[].threshold", file);
	assert_int_equal(t->nprimary, d->nprimary);
	for (size_t i = 0; i < t->nprimary; i++)
		same_str(t->primary[i], d->primary[i], "workloads[].primary[]", file);
	assert_int_equal(t->nmetrics, d->nmetrics);
	for (size_t i = 0; i < t->nmetrics; i++) {
		const struct input_metric_decl *a = &t->metrics[i], *b = &d->metrics[i];

		same_str(a->name, b->name, "metrics[].name", file);
		same_str(a->unit, b->unit, "metrics[].unit", file);
		assert_int_equal(a->better_lower, b->better_lower);
		same_num(a->threshold, b->threshold, "metrics[].threshold", file);
	}
	assert_null(d->json);
}

/* Every member of struct session_input, tree against document. */
static void same_input(const struct session_input *t, const struct session_input *d,
		       const char *file)
{
	const struct input_statistics *ts = &t->statistics, *ds = &d->statistics;
	const struct input_seq_plan *tq = &t->sequential, *dq = &d->sequential;

	same_str(t->baseline, d->baseline, "design.baseline", file);
	same_str(t->patched, d->patched, "design.patched", file);
	same_num(ts->alpha, ds->alpha, "statistics.alpha", file);
	same_num(ts->confidence, ds->confidence, "statistics.confidence", file);
	same_num(ts->resamples, ds->resamples, "statistics.resamples", file);
	same_num(ts->counter_resamples, ds->counter_resamples, "statistics.counter_resamples", file);
	same_num(ts->threshold, ds->threshold, "statistics.threshold", file);
	same_num(ts->max_failed_fraction, ds->max_failed_fraction, "statistics.max_failed_fraction",
		 file);
	same_num(ts->power, ds->power, "statistics.power", file);
	same_num(ts->min_runs, ds->min_runs, "statistics.min_runs", file);
	same_num(ts->seed, ds->seed, "statistics.seed", file);
	assert_int_equal(ts->has_int_seed, ds->has_int_seed);
	if (ts->has_int_seed)
		assert_int_equal(ts->int_seed, ds->int_seed);
	same_str(ts->threshold_source, ds->threshold_source, "statistics.threshold_source", file);
	assert_int_equal(tq->present, dq->present);
	same_num(tq->alpha, dq->alpha, "design.sequential.alpha", file);
	same_num(tq->min_runs, dq->min_runs, "design.sequential.min_runs", file);
	same_num(tq->max_runs, dq->max_runs, "design.sequential.max_runs", file);
	same_num(tq->step, dq->step, "design.sequential.step", file);
	same_num(tq->rho, dq->rho, "design.sequential.rho", file);
	same_num(tq->budget_s, dq->budget_s, "design.sequential.budget_s", file);
	same_str(t->accel, d->accel, "host.accel", file);
	same_str(t->accel_reason, d->accel_reason, "host.accel_reason", file);
	same_str(t->id, d->id, "session.id", file);
	same_str(t->created, d->created, "session.created", file);
	assert_int_equal(t->incomplete, d->incomplete);
	assert_int_equal(t->has_icount_shift, d->has_icount_shift);
	assert_int_equal(t->nplan, d->nplan);
	assert_int_equal(t->nworkloads, d->nworkloads);
	for (size_t i = 0; i < t->nworkloads; i++)
		same_workload(&t->workloads[i], &d->workloads[i], file);
	/* What only a comparison of sessions reads: the tree's alone (the contract). */
	assert_null(d->host_json);
	assert_null(d->guest_json);
	assert_null(d->statistics_json);
	assert_null(d->runs_json);
	assert_null(d->runs_per_kernel);
	assert_null(d->seed);
}

/* @j's two inputs agree; 1 when @j decodes as a session's document (else skipped). */
static int check_tree(const json_t *j, const char *file)
{
	struct session_doc doc;
	struct session_input t, d;
	struct strbuf err = STRBUF_INIT;

	if (session_doc_decode(j, &doc, &err)) {
		print_message("%s: not a session's document (%s)\n", file, err.buf);
		sb_release(&err);
		return 0;
	}
	session_input_decode(j, &t);
	session_input_from_doc(&doc, &d);
	same_input(&t, &d, file);
	session_input_release(&t);
	session_input_release(&d);
	session_doc_release(&doc);
	sb_release(&err);
	return 1;
}

static json_t *load(const char *file)
{
	json_error_t jerr;
	json_t *j = json_load_file(file, 0, &jerr);

	if (!j)
		fail_msg("%s: %s", file, jerr.text);
	return j;
}

static void test_real_files_agree(void **state)
{
	size_t checked = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		json_t *j = load(files[i]);

		checked += check_tree(j, files[i]);
		json_decref(j);
	}
	/* Every one of them is a session's document: none may drop out unseen. */
	assert_int_equal(checked, sizeof(files) / sizeof(files[0]));
}

/*
 * The other branches of both readers: what is absent (statistics,
 * sequential, the budget, a metric's unit and direction), null (the
 * patched kernel, the budget), an interrupted session, a guest under
 * icount, a metric better lower with its own band, a settings block with
 * every number.
 */
static void test_variants_agree(void **state)
{
	json_t *j = load("tests/fixtures/session/ab-sequential.json");
	json_t *design = json_object_get(j, "design"), *w, *m;
	(void)state;

	assert_int_equal(check_tree(j, "ab-sequential, as it is"), 1);

	json_object_set_new(json_object_get(design, "sequential"), "budget_s", json_null());
	json_object_set_new(json_object_get(j, "session"), "complete", json_false());
	json_object_set_new(json_object_get(j, "guest"), "icount_shift", json_integer(2));
	json_object_set_new(j, "statistics",
			    json_pack("{s:f, s:f, s:i, s:i, s:f, s:f, s:f, s:i, s:I, s:s}",
				      "alpha", 0.01, "confidence", 0.99, "resamples", 3000,
				      "counter_resamples", 500, "threshold", 0.02,
				      "max_failed_fraction", 0.25, "power", 0.9, "min_runs", 4,
				      "seed", (json_int_t)-7, "threshold_source", "a test"));
	w = json_array_get(json_object_get(j, "workloads"), 0);
	json_object_set_new(w, "threshold", json_real(0.03));
	m = json_array_get(json_object_get(w, "metrics"), 0);
	json_object_set_new(m, "better", json_string("lower"));
	json_object_set_new(m, "threshold", json_real(0.05));
	json_object_del(json_array_get(json_object_get(w, "metrics"), 1), "unit");
	assert_int_equal(check_tree(j, "ab-sequential, varied"), 1);

	json_object_del(design, "sequential");
	json_object_set_new(design, "patched", json_null());
	json_object_del(j, "statistics");
	json_object_del(j, "plan");
	json_object_del(json_object_get(j, "session"), "complete");
	assert_int_equal(check_tree(j, "ab-sequential, members left out"), 1);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_real_files_agree),
		cmocka_unit_test(test_variants_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
