// SPDX-License-Identifier: GPL-2.0
/*
 * The run record's one decoder (run_record.h). session_record.c writes the
 * keys, compare writes its renumbered copies; the validation, the
 * analysis's collection of values, the host-state adjustment, history, and
 * the stopping rule read struct run_record. (The renderers' run tables,
 * report_model.c's summary, warnings, geometric means and look position,
 * and the scheduler's done flags still read keys: issue 28.) The checks
 * and their messages are the ones report_load() always made: its errors
 * name a JSON path ("runs[3].metrics.ops: expected a number or null, got
 * a string"), and the tests and fuzzers hold it to them.
 */
#include "run_record.h"
#include "escape.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum want { W_STRING, W_STRING_OR_NULL, W_INT, W_NUMBER_OR_NULL, W_BOOL, W_OBJECT, W_ARRAY };

static const char *const want_names[] = {
	[W_STRING] = "a string",
	[W_STRING_OR_NULL] = "a string or null",
	[W_INT] = "an integer",
	[W_NUMBER_OR_NULL] = "a number or null",
	[W_BOOL] = "true or false",
	[W_OBJECT] = "an object",
	[W_ARRAY] = "an array",
};

static int type_ok(const json_t *j, enum want w)
{
	switch (w) {
	case W_STRING: return json_is_string(j);
	case W_STRING_OR_NULL: return json_is_string(j) || json_is_null(j);
	case W_INT:
		if (json_is_integer(j))
			return 1;
		/* 5.0 is an integer too: other writers may not distinguish. */
		return json_is_real(j) && json_real_value(j) == floor(json_real_value(j)) &&
			fabs(json_real_value(j)) < 9e15;
	case W_NUMBER_OR_NULL: return json_is_number(j) || json_is_null(j);
	case W_BOOL: return json_is_boolean(j);
	case W_OBJECT: return json_is_object(j);
	case W_ARRAY: return json_is_array(j);
	}
	return 0;
}

/* The decoding of one array: the path of what is being read, and where errors go. */
struct dec {
	struct strbuf path;	/* "runs[3].metrics", or "" for a lone record */
	struct strbuf *err;
	const struct run_kernel_names *kernels;
};

static int fail(struct dec *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct dec *d, const char *fmt, ...)
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

/*
 * @key of @obj, its type checked. Absent and optional: *@out = NULL and 0;
 * a null for an optional key that may not be null counts as absent, since
 * writers commonly emit null for "not known".
 */
static int get(struct dec *d, const json_t *obj, const char *key, enum want w, int required,
	       const json_t **out)
{
	const json_t *j = json_object_get(obj, key);
	size_t old;
	int ret = 0;

	*out = NULL;
	if (j && json_is_null(j) && !required && w != W_STRING_OR_NULL && w != W_NUMBER_OR_NULL)
		j = NULL;
	if (!j && !required)
		return 0;
	old = xjson_path_key(&d->path, key);
	if (!j)
		ret = fail(d, "missing (expected %s)", want_names[w]);
	else if (!type_ok(j, w))
		ret = fail(d, "expected %s, got %s", want_names[w], xjson_type_name(j));
	else
		*out = j;
	xjson_path_pop(&d->path, old);
	return ret;
}

/* A string member: NULL when absent (or null, where it may be). */
static int get_string(struct dec *d, const json_t *obj, const char *key, enum want w,
		      int required, const char **out)
{
	const json_t *j;

	if (get(d, obj, key, w, required, &j))
		return -1;
	*out = json_string_value(j);
	return 0;
}

/* A number of a member that passed W_NUMBER_OR_NULL; NaN for null or absent. */
static double number_or_nan(const json_t *j)
{
	return json_is_number(j) ? json_number_value(j) : NAN;
}

/* seq to started, in the order report_load() always checked them. */
static int decode_scalars(struct dec *d, const json_t *r, struct run_record *out,
			  const char **status)
{
	const json_t *seq, *block, *warmup;

	if (get(d, r, "seq", W_INT, 1, &seq) || get(d, r, "block", W_INT, 0, &block) ||
	    get_string(d, r, "kernel", W_STRING, 1, &out->kernel) ||
	    get_string(d, r, "workload", W_STRING, 1, &out->workload) ||
	    get(d, r, "warmup", W_BOOL, 0, &warmup) ||
	    get_string(d, r, "status", W_STRING, 1, status) ||
	    get_string(d, r, "failure", W_STRING_OR_NULL, 0, &out->failure) ||
	    get_string(d, r, "started", W_STRING, 0, &out->started))
		return -1;
	out->seq = (long)json_number_value(seq);
	out->block = block ? (long)json_number_value(block) : -1;
	out->warmup = json_is_true(warmup);
	return 0;
}

static int check_kernel(struct dec *d, const char *name)
{
	size_t old;

	if (!d->kernels || d->kernels->known(name, d->kernels->data))
		return 0;
	old = xjson_path_key(&d->path, "kernel");
	fail(d, "no kernel named \"");
	sb_add_text_safe(d->err, name);
	sb_adds(d->err, "\" in kernels[]");
	xjson_path_pop(&d->path, old);
	return -1;
}

/*
 * Where a run ran: "host" names the lab.conf [host] section (records from
 * before hosts have none: the one implicit host "local") and "slot" its
 * 0-based slot there ([host] slots is at most 1024). Host names reach every
 * renderer, so they are kept short and printable here.
 */
static int decode_host_slot(struct dec *d, const json_t *r, struct run_record *out)
{
	const json_t *host, *slot;
	size_t old, len, i;
	int ret = 0;

	if (get(d, r, "host", W_STRING, 0, &host) || get(d, r, "slot", W_INT, 0, &slot))
		return -1;
	out->host = json_string_value(host);
	len = json_string_length(host);
	for (i = 0; i < len && out->host[i] >= 0x20 && out->host[i] < 0x7f; i++)
		;
	if (host && (!len || len > RUN_HOST_MAX || i < len)) {
		old = xjson_path_key(&d->path, "host");
		ret = fail(d, "expected a host name of 1 to %d printable ASCII characters",
			   RUN_HOST_MAX);
		xjson_path_pop(&d->path, old);
		return ret;
	}
	if (slot && (json_number_value(slot) < 0 || json_number_value(slot) >= RUN_SLOT_MAX)) {
		old = xjson_path_key(&d->path, "slot");
		ret = fail(d, "expected a slot from 0 to %d, got %.0f", RUN_SLOT_MAX - 1,
			   json_number_value(slot));
		xjson_path_pop(&d->path, old);
		return ret;
	}
	out->slot = slot ? (int)json_number_value(slot) : -1;
	return 0;
}

static int decode_timings(struct dec *d, const json_t *r, struct run_timings *t)
{
	/* (NULL: a failed get() stops the chain below before the later ones set theirs) */
	const json_t *tim, *boot = NULL, *work = NULL, *host = NULL, *wall = NULL;
	size_t old;
	int ret;

	t->boot_s = t->workload_s = t->host_overhead_s = t->boot_wall_s = NAN;
	if (get(d, r, "timings", W_OBJECT, 0, &tim))
		return -1;
	if (!tim)
		return 0;
	old = xjson_path_key(&d->path, "timings");
	ret = get(d, tim, "boot_s", W_NUMBER_OR_NULL, 0, &boot) ||
	      get(d, tim, "workload_s", W_NUMBER_OR_NULL, 0, &work) ||
	      get(d, tim, "host_overhead_s", W_NUMBER_OR_NULL, 0, &host) ||
	      get(d, tim, "boot_wall_s", W_NUMBER_OR_NULL, 0, &wall) ? -1 : 0;
	xjson_path_pop(&d->path, old);
	t->boot_s = number_or_nan(boot);
	t->workload_s = number_or_nan(work);
	t->host_overhead_s = number_or_nan(host);
	t->boot_wall_s = number_or_nan(wall);
	return ret;
}

/* Every member of @obj must be a number or null (metrics, counter groups). */
static int check_number_map(struct dec *d, const json_t *obj)
{
	const char *key;
	const json_t *val;

	json_object_foreach((json_t *)obj, key, val) {
		if (!type_ok(val, W_NUMBER_OR_NULL)) {
			size_t old = xjson_path_key(&d->path, key);
			int ret = fail(d, "expected a number or null, got %s", xjson_type_name(val));
			xjson_path_pop(&d->path, old);
			return ret;
		}
	}
	return 0;
}

/* A run that completed must say what it measured, even if nothing. */
static int decode_metrics(struct dec *d, const json_t *r, struct run_record *out)
{
	const json_t *metrics, *val;
	const char *key;
	size_t old;

	if (get(d, r, "metrics", W_OBJECT, out->ok, &metrics))
		return -1;
	if (!metrics)
		return 0;
	old = xjson_path_key(&d->path, "metrics");
	if (check_number_map(d, metrics)) {
		xjson_path_pop(&d->path, old);
		return -1;
	}
	xjson_path_pop(&d->path, old);
	if (!json_object_size(metrics))
		return 0;
	out->metrics = xcalloc(json_object_size(metrics), sizeof(*out->metrics));
	json_object_foreach((json_t *)metrics, key, val)
		out->metrics[out->nr_metrics++] = (struct run_metric){ key, number_or_nan(val) };
	return 0;
}

static int decode_counters(struct dec *d, const json_t *r, struct run_record *out)
{
	const json_t *counters, *group;
	const char *gname;
	size_t old;

	if (get(d, r, "counters", W_OBJECT, 0, &counters))
		return -1;
	out->counters = counters;
	if (!counters)
		return 0;
	old = xjson_path_key(&d->path, "counters");
	json_object_foreach((json_t *)counters, gname, group) {
		size_t o = xjson_path_key(&d->path, gname);
		int ret = json_is_object(group) ? check_number_map(d, group) :
			fail(d, "expected an object, got %s", xjson_type_name(group));

		xjson_path_pop(&d->path, o);
		if (ret) {
			xjson_path_pop(&d->path, old);
			return -1;
		}
	}
	xjson_path_pop(&d->path, old);
	return 0;
}

static int decode_messages(struct dec *d, const json_t *r, struct run_record *out)
{
	const json_t *msgs, *el;
	size_t i;

	if (get(d, r, "guest_messages", W_ARRAY, 0, &msgs))
		return -1;
	json_array_foreach(msgs, i, el) {
		if (!json_is_string(el)) {
			size_t old = xjson_path_key(&d->path, "guest_messages"), o = xjson_path_index(&d->path, i);

			fail(d, "expected a string, got %s", xjson_type_name(el));
			xjson_path_pop(&d->path, o);
			xjson_path_pop(&d->path, old);
			return -1;
		}
	}
	out->guest_messages = msgs;
	out->nr_guest_messages = json_array_size(msgs);
	return 0;
}

/* host_load: shown, never checked, so never an error. */
static void decode_host_load(const json_t *r, struct run_host_load *out)
{
	const json_t *load = json_object_get(r, "host_load");

	out->busy = json_is_true(json_object_get(load, "busy"));
	out->other_cpus = number_or_nan(json_object_get(load, "other_cpus"));
	out->steal_s = number_or_nan(json_object_get(load, "steal_s"));
}

static int decode(struct dec *d, const json_t *r, struct run_record *out)
{
	const char *status;
	size_t old;

	memset(out, 0, sizeof(*out));
	out->json = r;
	out->block = -1;
	out->slot = -1;
	if (!json_is_object(r))
		return fail(d, "expected an object, got %s", xjson_type_name(r));
	if (decode_scalars(d, r, out, &status) || check_kernel(d, out->kernel) ||
	    decode_host_slot(d, r, out))
		return -1;
	out->ok = !strcmp(status, "ok");
	if (!out->ok && strcmp(status, "failed")) {
		old = xjson_path_key(&d->path, "status");
		fail(d, "expected \"ok\" or \"failed\"");
		xjson_path_pop(&d->path, old);
		return -1;
	}
	if (decode_timings(d, r, &out->timings) || decode_metrics(d, r, out) ||
	    decode_counters(d, r, out) || decode_messages(d, r, out)) {
		run_record_release(out);
		return -1;
	}
	decode_host_load(r, &out->host_load);
	return 0;
}

int run_record_decode(const json_t *r, struct run_record *out, struct strbuf *err)
{
	struct dec d = { STRBUF_INIT, err, NULL };
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
	struct dec d = { STRBUF_INIT, err, kernels };
	const json_t *r;
	size_t i;
	int ret = 0;

	out->v = NULL;
	out->n = 0;
	sb_adds(&d.path, "runs");
	if (!runs)
		ret = fail(&d, "missing (expected an array)");
	else if (!json_is_array(runs))
		ret = fail(&d, "expected an array, got %s", xjson_type_name(runs));
	if (ret) {
		sb_release(&d.path);
		return ret;
	}
	out->v = xcalloc(json_array_size(runs) + 1, sizeof(*out->v));
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

	out->v = xcalloc(json_array_size(runs) + 1, sizeof(*out->v));
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

void run_records_release(struct run_records *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		run_record_release(&rs->v[i]);
	free(rs->v);
	rs->v = NULL;
	rs->n = 0;
}
