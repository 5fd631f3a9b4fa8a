// SPDX-License-Identifier: GPL-2.0
/*
 * The report view's one decoder (report_view.h). The top-level members of
 * an analysed report are read here and in the analysis that writes them,
 * nowhere else in the renderers. At the end, the decoder of what the
 * analysis and the comparison of sessions read of their input
 * (session_input_decode()).
 *
 * Reading is typed and total, as in report_result.c: each member is what
 * reports/SCHEMA.md says, absent or null ("none"), or an error naming it
 * with its path from the top. Each member is read through its table
 * (view_fields.c, the codec of session_doc.h); what a table cannot say
 * is code beside it, with why. The first error is kept; the later tables
 * are still read, so that every array the view holds is its own to
 * release.
 */
#include "report_view.h"
#include "report_priv.h"
#include "session_doc.h"
#include "view_decode.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A top-level member's row: the member read through its own table (view_fields.c). */
#define VIEW(f) .offset = offsetof(struct report_view, f)

/*
 * The context's members read whole by their tables, in the order they
 * are read: the first that is wrong is the one named.
 */
static const struct sdoc_field context_members[] = {
	{ "schema", SK_STRING, VIEW(schema) },
	{ "note", SK_STRING, VIEW(note) },
	{ "claim", SK_OBJECT, VIEW(claim), .sub = view_claim_fields, .has_present = 1 },
	{ "session", SK_OBJECT, VIEW(session), .sub = sdoc_session_fields },
	{ "generator", SK_OBJECT, VIEW(generator), .sub = sdoc_generator_fields },
	{ "host", SK_OBJECT, VIEW(host), .sub = sdoc_host_fields },
	{ "guest", SK_OBJECT, VIEW(guest.doc), .sub = sdoc_guest_fields },
	{ NULL },
};

/*
 * guest.nodes typed, the one member of the guest session.json keeps as
 * JSON (struct view_guest): read again by a row of its own; present is
 * the guest row's has_present.
 */
static const struct sdoc_field guest_nodes_fields[] = {
	{ "nodes", SK_ARRAY, offsetof(struct view_guest, nodes_rows), .sub = view_node_fields,
	  .elem_size = sizeof(struct view_node) },
	{ NULL },
};

static const struct sdoc_field guest_nodes_member[] = {
	{ "guest", SK_OBJECT, VIEW(guest), .sub = guest_nodes_fields, .has_present = 1 },
	{ NULL },
};

/*
 * An integer's none in a table is SDOC_NONE; the view says it by a has_
 * flag (or not at all) and shows 0. Whether @x was there; 0 in it if not.
 */
static int had(long long *x)
{
	if (*x != SDOC_NONE)
		return 1;
	*x = 0;
	return 0;
}

/*
 * Every integer of session.json's rows @fields (SK_INT, its objects'
 * too) in @base that is absent 0, as the view has always shown them:
 * design's and statistics' members (struct sdoc_design, sdoc_statistics).
 */
static void ints_absent_zero(const struct sdoc_field *fields, void *base)
{
	for (const struct sdoc_field *f = fields; f->key; f++) {
		if (f->kind == SK_INT)
			had((long long *)((char *)base + f->offset));
		else if (f->kind == SK_OBJECT)
			ints_absent_zero(f->sub, (char *)base + f->offset);
	}
}

/*
 * The view keeps plain arrays, as the analysis makes them: an array a
 * table decoded (@a) is moved into one of *@n elements, @a left empty.
 */
static void *take(struct sdoc_array *a, size_t *n)
{
	void *v = a->v;

	*n = a->n;
	*a = (struct sdoc_array){ 0 };
	return v;
}

static void read_context_members(struct vd *d, const json_t *r, struct report_view *v)
{
	vd_table(d, context_members, r, v);
	vd_table(d, guest_nodes_member, r, v);
	/* the table's none of a boolean is -1: only "complete": false is a partial report */
	v->session.complete = v->session.complete != 0;
	had(&v->guest.doc.vcpus);	/* shown as 0 when absent, as before */
	v->guest.has_icount_shift = had(&v->guest.doc.icount_shift);
	v->guest.nodes = take(&v->guest.nodes_rows, &v->guest.nnodes);
}

/*
 * kernels[] is session.json's, copied: read through its rows, so that a
 * kernel has one definition (struct sdoc_kernel) and one table.
 */
static const struct sdoc_field kernels_member[] = {
	{ "kernels", SK_ARRAY, 0, .sub = sdoc_kernel_fields, .elem_size = sizeof(struct sdoc_kernel) },
	{ NULL },
};

static void read_kernels(struct vd *d, const json_t *r, struct report_view *v)
{
	struct sdoc_array a;

	vd_table(d, kernels_member, r, &a);
	v->kernels = take(&a, &v->nkernels);
}

static const struct sdoc_field workloads_member[] = {
	{ "workloads", SK_ARRAY, 0, .sub = sdoc_workload_fields,
	  .elem_size = sizeof(struct sdoc_workload) },
	{ NULL },
};

static void read_workloads(struct vd *d, const json_t *r, struct report_view *v)
{
	struct sdoc_array a;

	vd_table(d, workloads_member, r, &a);
	v->workloads = take(&a, &v->nworkloads);
}

static const struct sdoc_field design_member[] = {
	{ "design", SK_OBJECT, VIEW(design), .sub = sdoc_design_fields },
	{ NULL },
};

static void read_design(struct vd *d, const json_t *r, struct report_view *v)
{
	struct sdoc_design *o = &v->design;
	const json_t *e;
	size_t i;

	vd_table(d, design_member, r, v);
	/* an absent seed shows as 0, slots not recorded as 0 (one guest) */
	ints_absent_zero(sdoc_design_fields, o);
	/* a row says an array, not of what: the names are checked here */
	json_array_foreach(o->alone, i, e)
		if (!json_is_string(e)) {
			vd_fail(d, "design", "alone", "an array of workload names", e);
			o->alone = NULL;
			break;
		}
}

static const struct sdoc_field statistics_member[] = {
	{ "statistics", SK_OBJECT, VIEW(statistics), .sub = sdoc_statistics_fields },
	{ NULL },
};

static void read_statistics(struct vd *d, const json_t *r, struct report_view *v)
{
	vd_table(d, statistics_member, r, v);
	ints_absent_zero(sdoc_statistics_fields, &v->statistics);	/* an absent seed too */
}

static const struct sdoc_field summary_member[] = {
	{ "summary", SK_OBJECT, VIEW(summary), .sub = view_summary_fields },
	{ NULL },
};

/* The strings of a geomean's "of", for its encoder. */
static void read_of_names(struct view_geomean *o)
{
	const json_t *e;
	size_t i;

	o->of_names = xcalloc(json_array_size(o->of) + 1, sizeof(*o->of_names));
	json_array_foreach(o->of, i, e)
		if (json_is_string(e))
			o->of_names[o->nof++] = json_string_value(e);
}

static const struct sdoc_field geomean_member[] = {
	{ "geomean", SK_ARRAY, 0, .sub = view_geomean_fields,
	  .elem_size = sizeof(struct view_geomean) },
	{ NULL },
};

static void read_geomean(struct vd *d, const json_t *r, struct report_view *v)
{
	struct sdoc_array a;

	vd_table(d, geomean_member, r, &a);
	v->geomean = take(&a, &v->ngeomean);
	for (size_t i = 0; i < v->ngeomean; i++)
		read_of_names(&v->geomean[i]);
}

/* Report-level warnings: a message is what every renderer shows. */
static const struct sdoc_field warnings_member[] = {
	{ "warnings", SK_ARRAY, 0, .sub = view_warning_fields,
	  .elem_size = sizeof(struct result_warning) },
	{ NULL },
};

static void read_warnings(struct vd *d, const json_t *r, struct report_view *v)
{
	struct sdoc_array a;

	/* a missing kind or message is shown as "", which the table's none (NULL) does not say */
	vd_table(d, warnings_member, r, &a);
	v->warnings = take(&a, &v->nwarnings);
	for (size_t i = 0; i < v->nwarnings; i++) {
		if (!v->warnings[i].kind)
			v->warnings[i].kind = "";
		if (!v->warnings[i].message)
			v->warnings[i].message = "";
	}
}

static const struct sdoc_field host_states_member[] = {
	{ "host_states", SK_ARRAY, 0, .sub = view_host_state_fields,
	  .elem_size = sizeof(struct view_host_state) },
	{ NULL },
};

static void read_host_states(struct vd *d, const json_t *r, struct report_view *v)
{
	const json_t *elems = json_object_get(r, "host_states");
	struct sdoc_array a;

	vd_table(d, host_states_member, r, &a);
	v->host_state_recs = take(&a, &v->nhost_states);
	/* the elements as they are, beside their records: no row keeps the JSON it read */
	v->host_states = v->nhost_states ? xcalloc(v->nhost_states, sizeof(*v->host_states)) : NULL;
	for (size_t i = 0; i < v->nhost_states; i++) {
		struct view_host_state *o = &v->host_state_recs[i];

		v->host_states[i] = o->json = json_array_get(elems, i);
		o->own_states = take(&o->own_states_rows, &o->nown_states);
	}
}

static const struct sdoc_field sequential_member[] = {
	{ "sequential", SK_OBJECT, VIEW(sequential), .sub = view_sequential_fields,
	  .has_present = 1 },
	{ NULL },
};

static void read_sequential(struct vd *d, const json_t *r, struct report_view *v)
{
	struct view_sequential *o = &v->sequential;

	vd_table(d, sequential_member, r, v);
	o->workloads = take(&o->workloads_rows, &o->nworkloads);
}

/* Every element of @key, strictly: the first that does not decode is the error. */
static void read_results(struct vd *d, const json_t *r, const char *key,
			 struct result_record **out, size_t *n)
{
	const json_t *a = vd_arr(d, r, "", key), *res;
	struct strbuf err = STRBUF_INIT;
	size_t i;

	*n = json_array_size(a);
	*out = *n ? xcalloc(*n, sizeof(**out)) : NULL;
	json_array_foreach(a, i, res) {
		sb_reset(&err);
		if (result_record_decode(res, &(*out)[i], &err) && !d->failed++)
			sb_addf(d->err, "%s[%zu].%s", key, i, err.buf);
	}
	sb_release(&err);
}

static void read_runs(struct vd *d, const json_t *r, struct run_records *runs)
{
	struct strbuf err = STRBUF_INIT;

	if (run_records_decode(json_object_get(r, "runs"), NULL, runs, &err) && !d->failed++)
		sb_add(d->err, err.buf, err.len);
	sb_release(&err);
}

static int index_cmp(const void *a, const void *b)
{
	const struct view_index *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* @n names, @stride bytes apart from @first: sorted by name, then place. */
static struct view_index *index_build(const void *first, size_t stride, size_t n)
{
	struct view_index *ix = n ? xcalloc(n, sizeof(*ix)) : NULL;

	for (size_t i = 0; i < n; i++) {
		const char *name = *(const char *const *)((const char *)first + i * stride);

		ix[i] = (struct view_index){ name ? name : "", i };
	}
	if (n)
		qsort(ix, n, sizeof(*ix), index_cmp);
	return ix;
}

/* The members that describe the session: read by both decoders. */
static void read_context(struct vd *d, const json_t *report, struct report_view *out)
{
	read_context_members(d, report, out);
	read_kernels(d, report, out);
	read_workloads(d, report, out);
	read_design(d, report, out);
	out->host_json = json_object_get(report, "host");
	out->guest_json = json_object_get(report, "guest");
	out->kernels_json = json_object_get(report, "kernels");
	out->workload_ix = index_build(out->workloads ? &out->workloads[0].name : NULL,
				       sizeof(*out->workloads), out->nworkloads);
}

int report_view_decode_context(const json_t *report, struct report_view *out,
			       struct strbuf *err)
{
	struct vd d = { .err = err };

	memset(out, 0, sizeof(*out));
	out->json = report;
	if (!json_is_object(report)) {
		sb_addf(err, "expected an object, got %s", xjson_type_name(report));
		return -1;
	}
	read_context(&d, report, out);
	return d.failed ? -1 : 0;
}

void report_view_set_geomean(struct report_view *v, struct view_geomean *g, size_t n)
{
	for (size_t i = 0; i < v->ngeomean; i++)
		free(v->geomean[i].of_names);
	free(v->geomean);
	free(v->geomean_ix);
	v->geomean = g;
	v->ngeomean = n;
	v->geomean_ix = index_build(g ? &g[0].workload : NULL, sizeof(*g), n);
}

/* report_view_decode(), its runs decoded too when @runs is set. */
static int decode_view(const json_t *report, struct report_view *out, struct strbuf *err,
		       int runs)
{
	struct vd d = { .err = err };

	memset(out, 0, sizeof(*out));
	out->json = report;
	if (!json_is_object(report)) {
		sb_addf(err, "expected an object, got %s", xjson_type_name(report));
		return -1;
	}
	read_context(&d, report, out);
	read_statistics(&d, report, out);
	vd_table(&d, summary_member, report, out);
	read_geomean(&d, report, out);
	read_warnings(&d, report, out);
	read_host_states(&d, report, out);
	read_sequential(&d, report, out);
	if (!d.failed && report_attr_decode(report, &out->attribution, err))
		d.failed++;
	if (runs)
		read_runs(&d, report, &out->runs);
	read_results(&d, report, "results", &out->results, &out->nresults);
	read_results(&d, report, "counter_results", &out->counters, &out->ncounters);
	for (size_t i = 0; i < out->nresults; i++)
		out->several_hosts |= out->results[i].nhosts > 0;
	out->geomean_ix = index_build(out->geomean ? &out->geomean[0].workload : NULL,
				      sizeof(*out->geomean), out->ngeomean);
	return d.failed ? -1 : 0;
}

int report_view_decode(const json_t *report, struct report_view *out, struct strbuf *err)
{
	return decode_view(report, out, err, 1);
}

int report_view_decode_but_runs(const json_t *report, struct report_view *out,
				struct strbuf *err)
{
	return decode_view(report, out, err, 0);
}

void report_view_release(struct report_view *v)
{
	for (size_t i = 0; i < v->nkernels; i++)
		sdoc_fields_release(sdoc_kernel_fields, &v->kernels[i]);
	free(v->kernels);
	free(v->guest.nodes);
	for (size_t i = 0; i < v->nworkloads; i++)
		sdoc_fields_release(sdoc_workload_fields, &v->workloads[i]);
	free(v->workloads);
	for (size_t i = 0; i < v->ngeomean; i++)
		free(v->geomean[i].of_names);
	free(v->geomean);
	free(v->warnings);
	free(v->host_states);
	for (size_t i = 0; i < v->nhost_states; i++)
		free(v->host_state_recs[i].own_states);
	free(v->host_state_recs);
	free(v->sequential.workloads);
	report_attr_release(&v->attribution);
	run_records_release(&v->runs);
	result_records_free(v->results, v->nresults);
	result_records_free(v->counters, v->ncounters);
	free(v->workload_ix);
	free(v->geomean_ix);
	if (v->strings)
		result_strings_release(v->strings);
	free(v->strings);
	json_decref(v->own_json);
	memset(v, 0, sizeof(*v));
}

/* The first element of @ix named @name, and how many are: a binary search. */
static const struct view_index *index_find(const struct view_index *ix, size_t n,
					   const char *name, size_t *count)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && !strcmp(ix[end].name, name); end++)
		;
	*count = end - lo;
	return *count ? &ix[lo] : NULL;
}

const struct sdoc_workload *report_view_workload(const struct report_view *v, const char *name)
{
	size_t n;
	const struct view_index *e = index_find(v->workload_ix, v->nworkloads, name, &n);

	return e ? &v->workloads[e->i] : NULL;
}

const struct view_index *report_view_geomeans(const struct report_view *v, const char *name,
					      size_t *n)
{
	return index_find(v->geomean_ix, v->ngeomean, name, n);
}

void input_workload_decode(const json_t *w, struct input_workload *out)
{
	const json_t *a = json_object_get(w, "primary"), *e;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->json = w;
	out->name = jget_str(w, "name", "");
	out->type = jget_str(w, "type", "");
	out->threshold = jget_num(w, "threshold");
	out->primary = json_array_size(a) ? xcalloc(json_array_size(a), sizeof(*out->primary)) : NULL;
	json_array_foreach(a, i, e)
		if (json_is_string(e))
			out->primary[out->nprimary++] = json_string_value(e);
	a = json_object_get(w, "metrics");
	out->nmetrics = json_array_size(a);
	out->metrics = out->nmetrics ? xcalloc(out->nmetrics, sizeof(*out->metrics)) : NULL;
	json_array_foreach(a, i, e) {
		struct input_metric_decl *d = &out->metrics[i];

		d->name = jget_str(e, "name", "");
		d->unit = jget_str(e, "unit", "");
		d->better_lower = !strcmp(jget_str(e, "better", "higher"), "lower");
		d->threshold = jget_num(e, "threshold");
	}
}

void input_workload_release(struct input_workload *w)
{
	free(w->primary);
	free(w->metrics);
	memset(w, 0, sizeof(*w));
}

static void input_statistics(const json_t *st, struct input_statistics *o)
{
	const json_t *seed = json_object_get(st, "seed");

	o->alpha = jget_num(st, "alpha");
	o->confidence = jget_num(st, "confidence");
	o->resamples = jget_num(st, "resamples");
	o->counter_resamples = jget_num(st, "counter_resamples");
	o->threshold = jget_num(st, "threshold");
	o->max_failed_fraction = jget_num(st, "max_failed_fraction");
	o->power = jget_num(st, "power");
	o->min_runs = jget_num(st, "min_runs");
	o->seed = jget_num(st, "seed");
	o->has_int_seed = json_is_integer(seed);
	o->int_seed = json_integer_value(seed);
	o->threshold_source = jget_str(st, "threshold_source", NULL);
}

void input_seq_plan_decode(const json_t *session, struct input_seq_plan *o)
{
	const json_t *j = json_object_get(json_object_get(session, "design"), "sequential");

	o->present = json_is_object(j);
	o->alpha = jget_num(j, "alpha");
	o->min_runs = jget_num(j, "min_runs");
	o->max_runs = jget_num(j, "max_runs");
	o->step = jget_num(j, "step");
	o->rho = jget_num(j, "rho");
	o->budget_s = jget_num(j, "budget_s");
}

void session_input_decode(const json_t *session, struct session_input *out)
{
	const json_t *design = json_object_get(session, "design"), *host, *w;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->baseline = jget_str(design, "baseline", "");
	out->patched = jget_str(design, "patched", NULL);
	input_statistics(json_object_get(session, "statistics"), &out->statistics);
	input_seq_plan_decode(session, &out->sequential);
	host = json_object_get(session, "host");
	out->host_json = host;
	out->guest_json = json_object_get(session, "guest");
	out->runs_json = json_object_get(session, "runs");
	out->statistics_json = json_object_get(session, "statistics");
	out->runs_per_kernel = json_object_get(design, "runs_per_kernel");
	out->seed = json_object_get(design, "seed");
	out->id = jget_str(json_object_get(session, "session"), "id", NULL);
	out->created = jget_str(json_object_get(session, "session"), "created", NULL);
	out->accel = jget_str(host, "accel", NULL);
	out->accel_reason = jget_str(host, "accel_reason", NULL);
	out->incomplete = json_is_false(jpath(session, "session.complete"));
	out->nplan = json_array_size(json_object_get(session, "plan"));
	out->has_icount_shift = json_is_integer(jpath(session, "guest.icount_shift"));
	w = json_object_get(session, "workloads");
	out->nworkloads = json_array_size(w);
	out->workloads = out->nworkloads ? xcalloc(out->nworkloads, sizeof(*out->workloads)) : NULL;
	for (i = 0; i < out->nworkloads; i++)
		input_workload_decode(json_array_get(w, i), &out->workloads[i]);
}

void session_input_release(struct session_input *in)
{
	for (size_t i = 0; i < in->nworkloads; i++)
		input_workload_release(&in->workloads[i]);
	free(in->workloads);
	memset(in, 0, sizeof(*in));
}

/* A whole number of the document as session_input_decode() reads it: NaN when absent. */
static double doc_num(long long v)
{
	return v == SDOC_NONE ? NAN : (double)v;
}

static void input_statistics_from_doc(const struct sdoc_statistics *st, struct input_statistics *o)
{
	o->alpha = st->alpha;
	o->confidence = st->confidence;
	o->resamples = doc_num(st->resamples);
	o->counter_resamples = doc_num(st->counter_resamples);
	o->threshold = st->threshold;
	o->max_failed_fraction = st->max_failed_fraction;
	o->power = st->power;
	o->min_runs = doc_num(st->min_runs);
	o->seed = doc_num(st->seed);
	o->has_int_seed = st->seed != SDOC_NONE;
	o->int_seed = o->has_int_seed ? st->seed : 0;
	o->threshold_source = st->threshold_source;
}

void input_seq_plan_from_doc(const struct sdoc_sequential *sq, struct input_seq_plan *o)
{
	o->present = sq->present > 0;
	o->alpha = sq->present > 0 ? sq->alpha : NAN;
	o->min_runs = sq->present > 0 ? doc_num(sq->min_runs) : NAN;
	o->max_runs = sq->present > 0 ? doc_num(sq->max_runs) : NAN;
	o->step = sq->present > 0 ? doc_num(sq->step) : NAN;
	o->rho = sq->present > 0 ? sq->rho : NAN;
	o->budget_s = sq->present > 0 ? sq->budget_s : NAN;
}

static void input_workload_from_doc(const struct sdoc_workload *w, struct input_workload *out)
{
	const struct sdoc_metric *m = w->metrics.v;
	const json_t *e;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->name = w->name ? w->name : "";
	out->type = w->type ? w->type : "";
	out->threshold = w->threshold;
	out->primary = json_array_size(w->primary) ?
		       xcalloc(json_array_size(w->primary), sizeof(*out->primary)) : NULL;
	json_array_foreach(w->primary, i, e)
		if (json_is_string(e))
			out->primary[out->nprimary++] = json_string_value(e);
	out->nmetrics = w->metrics.n;
	out->metrics = out->nmetrics ? xcalloc(out->nmetrics, sizeof(*out->metrics)) : NULL;
	for (i = 0; i < out->nmetrics; i++) {
		struct input_metric_decl *d = &out->metrics[i];

		d->name = m[i].name ? m[i].name : "";
		d->unit = m[i].unit ? m[i].unit : "";
		d->better_lower = m[i].better && !strcmp(m[i].better, "lower");
		d->threshold = m[i].threshold;
	}
}

void session_input_from_doc(const struct session_doc *doc, struct session_input *out)
{
	memset(out, 0, sizeof(*out));
	out->baseline = doc->design.baseline ? doc->design.baseline : "";
	out->patched = doc->design.patched;
	input_statistics_from_doc(&doc->statistics, &out->statistics);
	input_seq_plan_from_doc(&doc->design.sequential, &out->sequential);
	out->id = doc->session.id;
	out->created = doc->session.created;
	out->accel = doc->host.accel;
	out->accel_reason = doc->host.accel_reason;
	out->incomplete = doc->session.complete == 0;
	out->nplan = json_array_size(doc->plan);
	out->has_icount_shift = doc->guest.icount_shift != SDOC_NONE;
	out->nworkloads = doc->workloads.n;
	out->workloads = out->nworkloads ? xcalloc(out->nworkloads, sizeof(*out->workloads)) : NULL;
	for (size_t i = 0; i < out->nworkloads; i++)
		input_workload_from_doc(sdoc_workload_at(doc, i), &out->workloads[i]);
}
