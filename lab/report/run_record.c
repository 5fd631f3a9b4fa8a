// SPDX-License-Identifier: GPL-2.0
/*
 * The run record's one definition (run_record.h): the table below drives
 * the decoder, its checks and the encoder the session's writers call
 * (plan_entry_encode(), session_record(), session_run_one.c); compare
 * writes its renumbered copies; the validation, the
 * analysis's collection of values, the host-state adjustment, history, and
 * the stopping rule read struct run_record. (The renderers' run tables,
 * the analysis' summary, warnings, geometric means and look position,
 * and the scheduler's done flags still read keys: issue 28.) The checks
 * and their messages are the ones report_load() always made: its errors
 * name a JSON path ("runs[3].metrics.ops: expected a number or null, got
 * a string"), and the tests and fuzzers hold it to them. Each member is
 * checked whole, type then value, in the table's order: a record with two
 * faults names the first of them in that order (before the table, host
 * and slot came before the timings, and a kernel's name after "started").
 */
#include "run_record.h"
#include "escape.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The decoding of one array: the path of what is being read, and where errors go. */
struct run_decoder {
	struct strbuf path;	/* "runs[3].metrics", or "" for a lone record */
	struct strbuf *err;
	const struct run_kernel_names *kernels;
};

static int fail(struct run_decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct run_decoder *d, const char *fmt, ...)
{
	va_list ap;

	/* Member names come from the file: filtered, as everything said about it. */
	if (d->path.len) {
		sb_add_text_safe(d->err, sb_str(&d->path));
		sb_adds(d->err, ": ");
	}
	va_start(ap, fmt);
	sb_vaddf(d->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* A number of a member that passed XJ_NUMBER_OR_NULL; NaN for null or absent. */
static double number_or_nan(const json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

/* Every member of @obj must be a number or null (metrics, counter groups). */
static int check_number_map(struct run_decoder *d, const json_t *obj)
{
	const char *key;
	const json_t *val;

	json_object_foreach((json_t *)obj, key, val) {
		if (!xjson_is(val, XJ_NUMBER_OR_NULL)) {
			size_t old = xjson_path_key(&d->path, key);
			int ret = fail(d, "expected a number or null, got %s", xjson_type_name(val));
			xjson_path_pop(&d->path, old);
			return ret;
		}
	}
	return 0;
}

/* metrics: a run that completed must say what it measured, even if nothing. */
static int decode_metrics(struct run_decoder *d, const json_t *metrics, struct run_record *out)
{
	const json_t *val;
	const char *key;

	if (check_number_map(d, metrics))
		return -1;
	if (!json_object_size(metrics))
		return 0;
	out->metrics = xcalloc(json_object_size(metrics), sizeof(*out->metrics));
	json_object_foreach((json_t *)metrics, key, val)
		out->metrics[out->nr_metrics++] = (struct run_metric){ key, number_or_nan(val) };
	return 0;
}

static int decode_counters(struct run_decoder *d, const json_t *counters, struct run_record *out)
{
	const json_t *group;
	const char *gname;

	out->counters = counters;
	json_object_foreach((json_t *)counters, gname, group) {
		size_t o = xjson_path_key(&d->path, gname);
		int ret = json_is_object(group) ? check_number_map(d, group) :
			fail(d, "expected an object, got %s", xjson_type_name(group));

		xjson_path_pop(&d->path, o);
		if (ret)
			return -1;
	}
	return 0;
}

static int decode_messages(struct run_decoder *d, const json_t *msgs, struct run_record *out)
{
	const json_t *el;
	size_t i;

	json_array_foreach(msgs, i, el) {
		if (!json_is_string(el)) {
			size_t o = xjson_path_index(&d->path, i);

			fail(d, "expected a string, got %s", xjson_type_name(el));
			xjson_path_pop(&d->path, o);
			return -1;
		}
	}
	out->guest_messages = msgs;
	out->nr_guest_messages = json_array_size(msgs);
	return 0;
}

/* partners: each an object naming the workload and kernel of a run beside this one. */
static int decode_partners(struct run_decoder *d, const json_t *partners, struct run_record *out)
{
	const json_t *el;
	size_t i;

	json_array_foreach(partners, i, el) {
		if (!json_is_object(el) || !json_is_string(json_object_get(el, "workload")) ||
		    !json_is_string(json_object_get(el, "kernel"))) {
			size_t o = xjson_path_index(&d->path, i);

			fail(d, "expected an object {workload, kernel} of strings, got %s",
			     xjson_type_name(el));
			xjson_path_pop(&d->path, o);
			return -1;
		}
	}
	out->partners = partners;
	return 0;
}

/* host_load: shown, never checked, so never an error (a member of another type is none). */
static int decode_host_load(struct run_decoder *d, const json_t *load, struct run_record *out)
{
	(void)d;
	out->host_load.busy = json_is_true(json_object_get(load, "busy"));
	out->host_load.other_cpus = number_or_nan(json_object_get(load, "other_cpus"));
	out->host_load.steal_s = number_or_nan(json_object_get(load, "steal_s"));
	return 0;
}

#define RUN(f) .offset = offsetof(struct run_record, f)
#define TIM(f) .offset = offsetof(struct run_timings, f)

static const struct run_field timings_fields[] = {
	{ "boot_s", RK_NUMBER, TIM(boot_s) },
	{ "workload_s", RK_NUMBER, TIM(workload_s) },
	{ "host_overhead_s", RK_NUMBER, TIM(host_overhead_s) },
	{ "wall_s", RK_NUMBER, TIM(wall_s) },
	{ "boot_wall_s", RK_NUMBER, TIM(boot_wall_s) },
	{ NULL },
};

/*
 * In the order the members are checked (so the first error is the one
 * said) and written (each writer's members, in its own order).
 */
const struct run_field run_record_fields[] = {
	{ "seq", RK_LONG, RUN(seq), RN_REQUIRED, RW_PLAN },
	{ "block", RK_LONG, RUN(block), RN_OPTIONAL, RW_PLAN },
	{ "kernel", RK_STRING, RUN(kernel), RN_REQUIRED, RW_PLAN, .names_kernel = 1 },
	{ "workload", RK_STRING, RUN(workload), RN_REQUIRED, RW_PLAN },
	{ "warmup", RK_BOOL, RUN(warmup), RN_OPTIONAL, RW_PLAN },
	{ "status", RK_STATUS, RUN(ok), RN_REQUIRED, RW_RECORD },
	{ "failure", RK_STRING_OR_NULL, RUN(failure), RN_OPTIONAL, RW_RECORD },
	{ "started", RK_STRING, RUN(started), RN_OPTIONAL, RW_RECORD },
	{ "exit_status", RK_INT, RUN(exit_status), RN_OPTIONAL, RW_RECORD, .min = 0, .max = 255 },
	{ "timings", RK_OBJECT, RUN(timings), RN_OPTIONAL, RW_RECORD, .sub = timings_fields },
	{ "metrics", RK_CUSTOM, 0, RN_IF_OK, RW_OWNER, .json_type = "object",
	  .decode = decode_metrics },
	{ "counters", RK_CUSTOM, 0, RN_OPTIONAL, RW_OWNER, .json_type = "object",
	  .decode = decode_counters },
	{ "host", RK_STRING, RUN(host), RN_OPTIONAL, RW_HOST, .name_max = RUN_HOST_MAX },
	{ "slot", RK_INT, RUN(slot), RN_OPTIONAL, RW_HOST, .min = 0, .max = RUN_SLOT_MAX - 1,
	  .what = "a slot" },
	{ "guest_messages", RK_CUSTOM, 0, RN_OPTIONAL, RW_OWNER, .json_type = "array",
	  .decode = decode_messages },
	{ "host_load", RK_CUSTOM, 0, RN_OPTIONAL, RW_OWNER, .json_type = "object",
	  .decode = decode_host_load, .lenient = 1 },
	{ "partners", RK_CUSTOM, 0, RN_OPTIONAL, RW_OWNER, .json_type = "array",
	  .decode = decode_partners },
	{ NULL },
};

static enum xjson_want want_of(const struct run_field *f)
{
	switch (f->kind) {
	case RK_LONG: case RK_INT: return XJ_INT;
	case RK_STRING: case RK_STATUS: return XJ_STRING;
	case RK_STRING_OR_NULL: return XJ_STRING_OR_NULL;
	case RK_BOOL: return XJ_BOOL;
	case RK_NUMBER: return XJ_NUMBER_OR_NULL;
	case RK_OBJECT: return XJ_OBJECT;
	case RK_CUSTOM: return !strcmp(f->json_type, "array") ? XJ_ARRAY : XJ_OBJECT;
	}
	return XJ_OBJECT;
}

/* A member's value's own checks, past its type: bounds, names, the status, the kernels. */
static int check_value(struct run_decoder *d, const struct run_field *f, const json_t *j)
{
	const char *s = json_string_value(j);
	size_t len = json_string_length(j), i;

	if ((f->kind == RK_INT || f->kind == RK_LONG) && f->max > f->min &&
	    (json_number_value(j) < f->min || json_number_value(j) > f->max))
		return fail(d, "expected %s from %ld to %ld, got %.0f",
			    f->what ? f->what : "an integer", f->min, f->max, json_number_value(j));
	if (f->kind == RK_STRING && f->name_max) {
		for (i = 0; i < len && s[i] >= 0x20 && s[i] < 0x7f; i++)
			;
		if (!len || len > f->name_max || i < len)
			return fail(d, "expected a %s name of 1 to %zu printable ASCII characters",
				    f->key, f->name_max);
	}
	if (f->kind == RK_STATUS && strcmp(s, "ok") && strcmp(s, "failed"))
		return fail(d, "expected \"ok\" or \"failed\"");
	if (f->names_kernel && d->kernels && !d->kernels->known(s, d->kernels->data)) {
		fail(d, "no kernel named \"");
		sb_add_text_safe(d->err, s);
		sb_adds(d->err, "\" in kernels[]");
		return -1;
	}
	return 0;
}

static int decode_fields(struct run_decoder *d, const json_t *obj, const struct run_field *fields,
			 void *base, struct run_record *rec);

/* Member @j (NULL: absent) of row @f into @base; its type already checked. */
static int store(struct run_decoder *d, const struct run_field *f, const json_t *j, void *base,
		 struct run_record *rec)
{
	void *field = (char *)base + f->offset;

	if (j && check_value(d, f, j))
		return -1;
	switch (f->kind) {
	case RK_LONG: *(long *)field = j ? (long)json_number_value(j) : -1; break;
	case RK_INT: *(int *)field = j ? (int)json_number_value(j) : -1; break;
	case RK_STRING: case RK_STRING_OR_NULL: *(const char **)field = json_string_value(j); break;
	case RK_BOOL: *(int *)field = json_is_true(j); break;
	case RK_STATUS: *(int *)field = !strcmp(json_string_value(j), "ok"); break;
	case RK_NUMBER: *(double *)field = number_or_nan(j); break;
	case RK_OBJECT: return decode_fields(d, j, f->sub, field, rec);
	case RK_CUSTOM: return j ? f->decode(d, j, rec) : 0;
	}
	return 0;
}

/*
 * @key of @obj, its type checked. Absent and optional: *@out = NULL and 0;
 * a null for an optional key that may not be null counts as absent, since
 * writers commonly emit null for "not known".
 */
static int get(struct run_decoder *d, const json_t *obj, const char *key, enum xjson_want w, int required,
	       const json_t **out)
{
	const json_t *j = json_object_get(obj, key);
	int ret = 0;

	*out = NULL;
	if (j && json_is_null(j) && !required && w != XJ_STRING_OR_NULL && w != XJ_NUMBER_OR_NULL)
		j = NULL;
	if (!j && !required)
		return 0;
	if (!j)
		ret = fail(d, "missing (expected %s)", xjson_want_name(w));
	else if (!xjson_is(j, w))
		ret = fail(d, "expected %s, got %s", xjson_want_name(w), xjson_type_name(j));
	else
		*out = j;
	return ret;
}

/* Every row of @fields from @obj (NULL: all absent) into @base, in the table's order. */
static int decode_fields(struct run_decoder *d, const json_t *obj, const struct run_field *fields,
			 void *base, struct run_record *rec)
{
	for (const struct run_field *f = fields; f->key; f++) {
		int required = f->need == RN_REQUIRED || (f->need == RN_IF_OK && rec->ok);
		size_t old = xjson_path_key(&d->path, f->key);
		const json_t *j;
		int ret;

		if (f->lenient)
			ret = f->decode(d, json_object_get(obj, f->key), rec);
		else
			ret = get(d, obj, f->key, want_of(f), required, &j) ||
			      store(d, f, j, base, rec) ? -1 : 0;
		xjson_path_pop(&d->path, old);
		if (ret)
			return -1;
	}
	return 0;
}

static int decode(struct run_decoder *d, const json_t *r, struct run_record *out)
{
	memset(out, 0, sizeof(*out));
	out->json = r;
	out->block = -1;
	out->slot = -1;
	if (!json_is_object(r))
		return fail(d, "expected an object, got %s", xjson_type_name(r));
	if (decode_fields(d, r, run_record_fields, out, out)) {
		run_record_release(out);
		return -1;
	}
	return 0;
}

/* Row @f of @base into @obj, unless its value is the absent one. */
static void encode_field(const struct run_field *f, const void *base, json_t *obj)
{
	const void *field = (const char *)base + f->offset;
	json_t *v = NULL;

	switch (f->kind) {
	case RK_LONG: if (*(const long *)field != -1) v = json_integer(*(const long *)field); break;
	case RK_INT: if (*(const int *)field != -1) v = json_integer(*(const int *)field); break;
	case RK_STRING: v = *(const char *const *)field ? json_string_lossy(*(const char *const *)field) : NULL; break;
	case RK_STRING_OR_NULL:
		v = *(const char *const *)field ? json_string_lossy(*(const char *const *)field) : json_null();
		break;
	case RK_BOOL: v = json_boolean(*(const int *)field); break;
	case RK_STATUS: v = json_string(*(const int *)field ? "ok" : "failed"); break;
	case RK_NUMBER: if (!isnan(*(const double *)field)) v = json_real(*(const double *)field); break;
	case RK_OBJECT:
		v = json_object();
		for (const struct run_field *s = f->sub; s->key; s++)
			encode_field(s, field, v);
		break;
	case RK_CUSTOM: break;
	}
	if (v)
		json_object_set_new(obj, f->key, v);
}

void run_record_encode(const struct run_record *r, unsigned writers, json_t *obj)
{
	for (const struct run_field *f = run_record_fields; f->key; f++)
		if (f->writer & writers)
			encode_field(f, r, obj);
}

int run_record_decode(const json_t *r, struct run_record *out, struct strbuf *err)
{
	struct run_decoder d = { STRBUF_INIT, err, NULL };
	int ret = decode(&d, r, out);

	sb_release(&d.path);
	return ret;
}

void run_record_release(struct run_record *r)
{
	free(r->metrics);
	r->metrics = NULL;
	r->nr_metrics = 0;
}

int run_records_decode(const json_t *runs, const struct run_kernel_names *kernels,
		       struct run_records *out, struct strbuf *err)
{
	struct run_decoder d = { STRBUF_INIT, err, kernels };
	const json_t *r;
	size_t i;
	int ret = 0;

	out->v = NULL;
	out->n = 0;
	out->alloc = 0;
	sb_adds(&d.path, "runs");
	if (!runs)
		ret = fail(&d, "missing (expected an array)");
	else if (!json_is_array(runs))
		ret = fail(&d, "expected an array, got %s", xjson_type_name(runs));
	if (ret) {
		sb_release(&d.path);
		return ret;
	}
	out->alloc = json_array_size(runs) + 1;
	out->v = xcalloc(out->alloc, sizeof(*out->v));
	json_array_foreach(runs, i, r) {
		size_t old = xjson_path_index(&d.path, i);

		ret = decode(&d, r, &out->v[i]);
		xjson_path_pop(&d.path, old);
		if (ret)
			break;
		out->n++;
	}
	sb_release(&d.path);
	if (ret)
		run_records_release(out);
	return ret;
}

size_t run_records_decode_valid(const json_t *runs, struct run_records *out)
{
	struct strbuf err = STRBUF_INIT;
	const json_t *r;
	size_t i, bad = 0;

	out->alloc = json_array_size(runs) + 1;
	out->v = xcalloc(out->alloc, sizeof(*out->v));
	out->n = 0;
	json_array_foreach(runs, i, r) {
		sb_reset(&err);
		if (run_record_decode(r, &out->v[out->n], &err))
			bad++;
		else
			out->n++;
	}
	sb_release(&err);
	return bad;
}

/* A map of the guest's names, built by one writer and read here, with the record's codec. */
int run_record_map_room(const json_t *map, const char *name, size_t max)
{
	return json_object_size(map) < max || json_object_get(map, name);
}

size_t run_records_of_report(const json_t *report, struct run_records *out)
{
	return run_records_decode_valid(json_object_get(report, "runs"), out);
}

int run_record_seq(const json_t *r, long long *seq)
{
	const json_t *v = json_object_get(r, "seq");

	*seq = json_is_integer(v) ? (long long)json_integer_value(v) : 0;
	return json_is_integer(v) ? 0 : -1;
}

void run_records_release(struct run_records *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		run_record_release(&rs->v[i]);
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
	rs->alloc = 0;
}
