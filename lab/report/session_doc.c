// SPDX-License-Identifier: GPL-2.0
/*
 * session.json's one definition (session_doc.h): the tables below drive
 * its encoder (session_new() fills a struct session_doc and writes what
 * this makes of it) and its decoder, which the session's readers share
 * (a resumed session's checks, its jobs, the budget raised on --resume,
 * the attribution and coherence runs' choices). The rows are in the
 * order session.json has always been written, which the encoder keeps:
 * a row's place is its member's place in the file. The checks' messages
 * are run_record.c's and report_load()'s: "PATH: expected TYPE, got TYPE",
 * "PATH: missing (expected TYPE)".
 */
#include "session_doc.h"
#include "escape.h"
#include "xjson.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define DOC(f) .offset = offsetof(struct session_doc, f)
#define GEN(f) .offset = offsetof(struct sdoc_generator, f)
#define SES(f) .offset = offsetof(struct sdoc_session, f)
#define HOST(f) .offset = offsetof(struct sdoc_host, f)
#define GST(f) .offset = offsetof(struct sdoc_guest, f)
#define SEQ(f) .offset = offsetof(struct sdoc_sequential, f)
#define DES(f) .offset = offsetof(struct sdoc_design, f)
#define STA(f) .offset = offsetof(struct sdoc_statistics, f)

/*
 * The report's view reads the report's generator, session, design and
 * statistics (session.json's, copied; the statistics the analysis' own,
 * report_model.c's settings_json(), every member of which is a row here)
 * through these rows too.
 */
const struct sdoc_field sdoc_generator_fields[] = {
	{ "name", SK_STRING, GEN(name), SN_REQUIRED },
	{ "version", SK_STRING, GEN(version), SN_REQUIRED },
	{ NULL },
};

const struct sdoc_field sdoc_session_fields[] = {
	{ "id", SK_STRING, SES(id) },
	{ "created", SK_STRING, SES(created) },
	{ "mode", SK_STRING, SES(mode) },
	{ "command", SK_STRING, SES(command) },
	{ "lab_conf_sha256", SK_STRING_OR_NULL, SES(lab_conf_sha256) },
	{ "finished", SK_STRING, SES(finished) },
	{ "complete", SK_BOOL, SES(complete) },
	{ NULL },
};

/* The report's view reads the report's host (session.json's, copied) through these rows too. */
const struct sdoc_field sdoc_host_fields[] = {
	{ "hostname", SK_STRING, HOST(hostname) },
	{ "cpu", SK_STRING, HOST(cpu) },
	{ "cpus", SK_INT, HOST(cpus) },
	{ "memory_mib", SK_INT_NUMBER, HOST(memory_mib) },
	{ "kernel", SK_STRING, HOST(kernel) },
	{ "qemu_version", SK_STRING, HOST(qemu_version) },
	{ "libvirt_version", SK_STRING, HOST(libvirt_version) },
	{ "libvirt_uri", SK_STRING, HOST(libvirt_uri) },
	{ "accel", SK_STRING, HOST(accel), SN_REQUIRED },
	{ "accel_reason", SK_STRING, HOST(accel_reason) },
	{ NULL },
};

/* The report's view reads the report's guest (session.json's, copied) through these rows too. */
const struct sdoc_field sdoc_guest_fields[] = {
	{ "name", SK_STRING, GST(name) },
	{ "file", SK_STRING, GST(file) },
	{ "vcpus", SK_INT, GST(vcpus) },
	{ "memory_mib", SK_INT_NUMBER, GST(memory_mib) },
	{ "nodes", SK_JSON, GST(nodes), .json_type = "array" },
	{ "accel", SK_STRING, GST(accel) },
	{ "icount_shift", SK_INT, GST(icount_shift) },
	{ NULL },
};

const struct sdoc_field sdoc_sequential_fields[] = {
	{ "until", SK_STRING, SEQ(until) },
	{ "method", SK_STRING, SEQ(method) },
	{ "alpha", SK_NUMBER, SEQ(alpha), SN_REQUIRED },
	{ "min_runs", SK_INT, SEQ(min_runs), SN_REQUIRED },
	{ "max_runs", SK_INT, SEQ(max_runs), SN_REQUIRED },
	{ "step", SK_INT, SEQ(step), SN_REQUIRED },
	{ "rho", SK_NUMBER, SEQ(rho), SN_REQUIRED },
	{ "budget_s", SK_NUMBER_OR_NULL, SEQ(budget_s) },
	{ "placement", SK_JSON, SEQ(placement), .json_type = "array" },
	{ NULL },
};

/*
 * config_partners_name()'s words (lab/config, which this layer does not
 * include): test_session_doc_table checks that every one of them decodes.
 */
static const char *const partners_choices[] = { "balanced", "free", NULL };

const struct sdoc_field sdoc_design_fields[] = {
	{ "baseline", SK_STRING, DES(baseline), SN_REQUIRED },
	{ "patched", SK_STRING_OR_NULL, DES(patched) },
	{ "runs_per_kernel", SK_INT, DES(runs_per_kernel) },
	{ "warmups", SK_INT, DES(warmups) },
	{ "order", SK_STRING, DES(order) },
	{ "seed", SK_INT, DES(seed) },
	{ "blocks", SK_INT, DES(blocks) },
	{ "attribute", SK_STRING, DES(attribute) },
	{ "profile", SK_BOOL, DES(profile) },
	{ "coherence", SK_STRING, DES(coherence) },
	{ "slots", SK_INT, DES(slots) },
	{ "alone", SK_JSON, DES(alone), .json_type = "array" },
	{ "partners", SK_STRING, DES(partners), .choices = partners_choices },
	{ "sequential", SK_OBJECT, DES(sequential), .sub = sdoc_sequential_fields, .has_present = 1 },
	{ NULL },
};

const struct sdoc_field sdoc_statistics_fields[] = {
	{ "alpha", SK_NUMBER, STA(alpha) },
	{ "confidence", SK_NUMBER, STA(confidence) },
	{ "resamples", SK_INT, STA(resamples) },
	{ "seed", SK_INT, STA(seed) },
	{ "threshold", SK_NUMBER, STA(threshold) },
	{ "max_failed_fraction", SK_NUMBER, STA(max_failed_fraction) },
	{ "counter_resamples", SK_INT, STA(counter_resamples) },
	{ "power", SK_NUMBER, STA(power) },
	{ "min_runs", SK_INT, STA(min_runs) },
	{ "mw_exact_max", SK_INT, STA(mw_exact_max) },
	{ "wilcoxon_exact_max", SK_INT, STA(wilcoxon_exact_max) },
	{ "bootstrap", SK_STRING, STA(bootstrap) },
	{ "median_ci", SK_STRING, STA(median_ci) },
	{ "test", SK_STRING, STA(test) },
	{ "threshold_source", SK_STRING, STA(threshold_source) },
	{ "multiple_comparisons", SK_STRING, STA(multiple_comparisons) },
	{ "outliers", SK_STRING, STA(outliers) },
	{ NULL },
};

#define PAT(f) .offset = offsetof(struct sdoc_patch, f)
#define SFI(f) .offset = offsetof(struct sdoc_series_file, f)
#define AUT(f) .offset = offsetof(struct sdoc_series_author, f)
#define COV(f) .offset = offsetof(struct sdoc_cover, f)
#define KER(f) .offset = offsetof(struct sdoc_kernel, f)
#define MET(f) .offset = offsetof(struct sdoc_metric, f)
#define SHR(f) .offset = offsetof(struct sdoc_share, f)
#define WKL(f) .offset = offsetof(struct sdoc_workload, f)
#define HST(f) .offset = offsetof(struct sdoc_host_entry, f)

static const struct sdoc_field patch_fields[] = {
	{ "subject", SK_STRING, PAT(subject), SN_REQUIRED },
	{ "hash", SK_STRING, PAT(hash) },
	{ "author", SK_STRING, PAT(author) },
	{ "message_id", SK_STRING, PAT(message_id) },
	{ NULL },
};

static const struct sdoc_field series_file_fields[] = {
	{ "file", SK_STRING_OR_NULL, SFI(file) },
	{ "sha256", SK_STRING_OR_NULL, SFI(sha256) },
	{ NULL },
};

static const struct sdoc_field series_author_fields[] = {
	{ "name", SK_STRING_OR_NULL, AUT(name) },
	{ "address", SK_STRING, AUT(address), SN_REQUIRED },
	{ NULL },
};

static const struct sdoc_field cover_fields[] = {
	{ "subject", SK_STRING, COV(subject) },
	{ "message_id", SK_STRING, COV(message_id) },
	{ NULL },
};

/*
 * In session.json's order (session_kernels.c fills the rows). The
 * report's view reads its kernels[] (session.json's, copied) through the
 * same rows (report_view.c's read_kernels()).
 */
const struct sdoc_field sdoc_kernel_fields[] = {
	{ "name", SK_STRING, KER(name), SN_REQUIRED },
	{ "role", SK_STRING, KER(role) },
	{ "source", SK_STRING, KER(source) },
	{ "ref", SK_STRING_OR_NULL, KER(ref) },
	{ "series", SK_ARRAY, KER(series), .sub = patch_fields,
	  .elem_size = sizeof(struct sdoc_patch) },
	{ "config_hash", SK_STRING_OR_NULL, KER(config_hash) },
	{ "cache_key", SK_STRING, KER(cache_key) },
	{ "bzImage", SK_STRING, KER(bzimage) },
	{ "config_name", SK_STRING, KER(config_name) },
	{ "series_files", SK_ARRAY, KER(series_files), .sub = series_file_fields,
	  .elem_size = sizeof(struct sdoc_series_file) },
	{ "source_id", SK_STRING, KER(source_id) },
	{ "posted_to", SK_STRING, KER(posted_to) },
	{ "series_author", SK_OBJECT, KER(series_author), .sub = series_author_fields,
	  .has_present = 1 },
	{ "cover", SK_OBJECT, KER(cover), .sub = cover_fields, .has_present = 1 },
	{ "version", SK_STRING, KER(version) },
	{ NULL },
};

static const struct sdoc_field metric_fields[] = {
	{ "name", SK_STRING, MET(name), SN_REQUIRED },
	{ "unit", SK_STRING, MET(unit) },
	{ "better", SK_STRING, MET(better) },
	{ "primary", SK_BOOL, MET(primary) },
	{ "threshold", SK_NUMBER, MET(threshold) },
	{ "help", SK_STRING, MET(help) },
	{ NULL },
};

static const struct sdoc_field share_fields[] = {
	{ "tag", SK_STRING, SHR(tag), SN_REQUIRED },
	{ "host_dir", SK_STRING, SHR(host_dir), SN_REQUIRED },
	{ NULL },
};

/*
 * In the order session_workloads.c writes them. The report's view reads
 * the report's workloads[] (session.json's, copied) through these rows
 * too. report_validate() never checked a workload's primary, args,
 * coherence_args or shares, and the view never read them: a report's are
 * left unread (.report_unread), so that one holding anything there still
 * renders.
 */
const struct sdoc_field sdoc_workload_fields[] = {
	{ "name", SK_STRING, WKL(name), SN_REQUIRED },
	{ "type", SK_STRING, WKL(type) },
	{ "params", SK_JSON, WKL(params), .json_type = "object" },
	{ "metrics", SK_ARRAY, WKL(metrics), .sub = metric_fields,
	  .elem_size = sizeof(struct sdoc_metric) },
	{ "primary", SK_JSON, WKL(primary), .json_type = "array", .report_unread = 1 },
	{ "args", SK_JSON, WKL(args), .json_type = "array", .report_unread = 1 },
	{ "coherence_args", SK_JSON, WKL(coherence_args), .json_type = "array",
	  .report_unread = 1 },
	{ "threshold", SK_NUMBER, WKL(threshold) },
	{ "shares", SK_ARRAY, WKL(shares), .sub = share_fields,
	  .elem_size = sizeof(struct sdoc_share), .report_unread = 1 },
	{ "runs", SK_INT, WKL(runs) },
	{ NULL },
};

/* A host's members, in session.json's order (session_host_rec.c makes a row a host_cfg). */
static const struct sdoc_field host_entry_fields[] = {
	{ "name", SK_STRING, HST(name), SN_REQUIRED },
	{ "uri", SK_STRING, HST(uri), SN_REQUIRED },
	{ "slots", SK_INT, HST(slots), SN_REQUIRED },
	{ "cpus", SK_STRING_OR_NULL, HST(cpus) },
	{ "pool", SK_STRING, HST(pool) },
	{ "pool_dir", SK_STRING, HST(pool_dir) },
	{ "accel", SK_STRING_OR_NULL, HST(accel) },
	{ "accel_reason", SK_STRING_OR_NULL, HST(accel_reason) },
	{ NULL },
};

const struct sdoc_field session_doc_fields[] = {
	{ "schema", SK_STRING, DOC(schema), SN_REQUIRED },
	{ "generator", SK_OBJECT, DOC(generator), SN_REQUIRED, .sub = sdoc_generator_fields },
	{ "session", SK_OBJECT, DOC(session), .sub = sdoc_session_fields },
	{ "host", SK_OBJECT, DOC(host), SN_REQUIRED, .sub = sdoc_host_fields },
	{ "kernels", SK_ARRAY, DOC(kernels), SN_REQUIRED, .sub = sdoc_kernel_fields,
	  .elem_size = sizeof(struct sdoc_kernel) },
	{ "guest", SK_OBJECT, DOC(guest), .sub = sdoc_guest_fields },
	{ "workloads", SK_ARRAY, DOC(workloads), .sub = sdoc_workload_fields,
	  .elem_size = sizeof(struct sdoc_workload) },
	{ "design", SK_OBJECT, DOC(design), SN_REQUIRED, .sub = sdoc_design_fields },
	{ "statistics", SK_OBJECT, DOC(statistics), .sub = sdoc_statistics_fields },
	{ "plan", SK_JSON, DOC(plan), .json_type = "array" },
	{ "hosts", SK_ARRAY, DOC(hosts), .sub = host_entry_fields,
	  .elem_size = sizeof(struct sdoc_host_entry) },
	{ "note", SK_STRING, DOC(note) },
	{ "claim", SK_JSON, DOC(claim), .json_type = "object" },
	{ NULL },
};

/* Every member of @fields at @base absent; objects' members too. */
static void init_fields(const struct sdoc_field *fields, void *base)
{
	for (const struct sdoc_field *f = fields; f->key; f++) {
		void *p = (char *)base + f->offset;

		switch (f->kind) {
		case SK_STRING: case SK_STRING_OR_NULL: *(const char **)p = NULL; break;
		case SK_INT: *(long long *)p = SDOC_NONE; break;
		case SK_INT_NUMBER: case SK_NUMBER: case SK_NUMBER_OR_NULL: *(double *)p = NAN; break;
		case SK_BOOL: *(int *)p = -1; break;
		case SK_OBJECT:
			if (f->has_present)
				*(int *)p = 0;
			init_fields(f->sub, p);
			break;
		case SK_JSON: *(const json_t **)p = NULL; break;
		case SK_LONG: case SK_COUNT: *(long *)p = 0; break;
		case SK_FLAG: *(int *)p = 0; break;
		case SK_TEXT: *(const char **)p = NULL; break;
		case SK_CODEC: break;	/* its decode of nothing is its none */
		case SK_ARRAY: *(struct sdoc_array *)p = (struct sdoc_array){ 0 }; break;
		case SK_MAP: *(struct sdoc_array *)p = (struct sdoc_array){ 0 }; break;
		}
	}
}

/* Nothing kept: what session_doc_release() frees besides the arrays. */
static void keep_nothing(struct session_doc *d)
{
	d->owned = NULL;
	d->strings = (struct strvec)STRVEC_INIT;
	d->json = NULL;
}

void session_doc_init(struct session_doc *d)
{
	init_fields(session_doc_fields, d);
	keep_nothing(d);
}

void sdoc_fields_init(const struct sdoc_field *fields, void *base)
{
	init_fields(fields, base);
}

void session_doc_release(struct session_doc *d)
{
	sdoc_fields_release(session_doc_fields, d);
	json_decref(d->owned);
	strvec_clear(&d->strings);
	json_decref(d->json);
	keep_nothing(d);
}

/* --- encoding --- */

static json_t *encode_object(const struct sdoc_field *fields, const void *base);

/* An SK_ARRAY member: its elements, each its row's .sub encoded. */
static json_t *encode_array(const struct sdoc_field *f, const struct sdoc_array *a)
{
	json_t *arr;

	if (!a->present)
		return NULL;
	if (a->present < 0)
		return json_null();
	arr = json_array();
	for (size_t i = 0; i < a->n; i++)
		json_array_append_new(arr, encode_object(f->sub, (const char *)a->v + i * f->elem_size));
	return arr;
}

/* An SK_MAP member: an object of its elements, each under the name it begins with. */
static json_t *encode_map(const struct sdoc_field *f, const struct sdoc_array *a)
{
	json_t *obj;

	if (!a->present)
		return NULL;
	obj = json_object();
	for (size_t i = 0; i < a->n; i++) {
		const char *el = (const char *)a->v + i * f->elem_size;
		const char *name = *(const char *const *)el;

		json_object_set_new(obj, name ? name : "", encode_object(f->sub, el));
	}
	return obj;
}

/* Row @f of @base as JSON; NULL when its value is the absent one. */
static json_t *encode_value(const struct sdoc_field *f, const void *base)
{
	const void *p = (const char *)base + f->offset;
	const char *s = NULL;
	long long n;
	double x = NAN;

	if (f->when && !f->when(base))
		return NULL;
	if (f->kind == SK_STRING || f->kind == SK_STRING_OR_NULL || f->kind == SK_TEXT)
		s = *(const char *const *)p;
	if (f->kind == SK_INT_NUMBER || f->kind == SK_NUMBER || f->kind == SK_NUMBER_OR_NULL)
		x = *(const double *)p;
	switch (f->kind) {
	case SK_STRING: return s ? json_string_lossy(s) : NULL;
	case SK_STRING_OR_NULL: return s ? json_string_lossy(s) : json_null();
	case SK_INT:
		n = *(const long long *)p;
		return n == SDOC_NONE ? NULL : json_integer(n);
	case SK_INT_NUMBER:
		if (isnan(x))
			return NULL;
		/* an integer as written; a number read that no integer holds stays one */
		return fabs(x) < 9e15 && x == floor(x) ? json_integer((json_int_t)x) : json_real(x);
	case SK_NUMBER: return isnan(x) ? NULL : json_real(x);
	/* jansson has no infinity: null, as jnum() writes it */
	case SK_NUMBER_OR_NULL: return isfinite(x) ? json_real(x) : json_null();
	case SK_BOOL: return *(const int *)p < 0 ? NULL : json_boolean(*(const int *)p);
	case SK_OBJECT:
		if (f->has_present && !*(const int *)p)
			return f->or_null ? json_null() : NULL;
		return encode_object(f->sub, p);
	case SK_JSON:
		return *(json_t *const *)p ? json_incref(*(json_t *const *)p) : NULL;
	case SK_LONG: case SK_COUNT: return json_integer((json_int_t)*(const long *)p);
	case SK_FLAG: return json_boolean(*(const int *)p);
	case SK_TEXT: return json_string_lossy(s ? s : f->if_null ? f->if_null : "");
	case SK_CODEC: return f->encode(p);
	case SK_ARRAY: return encode_array(f, p);
	case SK_MAP: return encode_map(f, p);
	}
	return NULL;
}

static json_t *encode_object(const struct sdoc_field *fields, const void *base)
{
	json_t *obj = json_object();

	for (const struct sdoc_field *f = fields; f->key; f++) {
		json_t *v = encode_value(f, base);

		if (v)
			json_object_set_new(obj, f->key, v);
	}
	return obj;
}

json_t *session_doc_encode(const struct session_doc *d)
{
	return encode_object(session_doc_fields, d);
}

json_t *sdoc_fields_encode(const struct sdoc_field *fields, const void *base)
{
	return encode_object(fields, base);
}

json_t *session_doc_member_encode(const struct session_doc *d, const char *key)
{
	for (const struct sdoc_field *f = session_doc_fields; f->key; f++)
		if (!strcmp(f->key, key))
			return encode_value(f, d);
	return NULL;
}

/* --- decoding --- */

struct decoder {
	struct strbuf path;	/* "design.sequential", "" at the top */
	struct strbuf *err;
	/*
	 * session.json's own reader: rows' choices enforced (the session
	 * parses them unchecked) and every row read. A report's copy of a
	 * member is read as before: a string, a value the lab never writes
	 * not shown; rows marked .report_unread left at their none.
	 */
	int own;
};

static int fail(struct decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct decoder *d, const char *fmt, ...)
{
	va_list ap;

	/* member names come from the file: filtered, as everything said about it */
	sb_add_text_safe(d->err, d->path.len ? sb_str(&d->path) : "(top level)");
	sb_adds(d->err, ": ");
	va_start(ap, fmt);
	sb_vaddf(d->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int is_integer(const json_t *j)
{
	/* 5.0 is an integer too: other writers may not distinguish */
	return json_is_integer(j) || (json_is_real(j) && json_real_value(j) == floor(json_real_value(j)) &&
				      fabs(json_real_value(j)) < 9e15);
}

/* What row @f reads, as the messages say it; whether @j is one. */
static const char *want(const struct sdoc_field *f, const json_t *j, int *ok)
{
	switch (f->kind) {
	case SK_STRING: *ok = json_is_string(j); return "a string";
	case SK_STRING_OR_NULL: *ok = json_is_string(j) || json_is_null(j); return "a string or null";
	case SK_INT: *ok = is_integer(j); return "an integer";
	case SK_INT_NUMBER: case SK_NUMBER: *ok = json_is_number(j); return "a number";
	case SK_NUMBER_OR_NULL: *ok = json_is_number(j) || json_is_null(j); return "a number or null";
	case SK_BOOL: *ok = json_is_boolean(j); return "true or false";
	case SK_OBJECT: *ok = json_is_object(j); return "an object";
	case SK_JSON: case SK_CODEC:
		*ok = !strcmp(f->json_type, "array") ? json_is_array(j) : json_is_object(j);
		return !strcmp(f->json_type, "array") ? "an array" : "an object";
	/* a count: what a long holds of any number (5.0, 5.5: 5) */
	case SK_LONG:
		*ok = (f->whole ? is_integer(j) : json_is_number(j)) &&
		      fabs(json_number_value(j)) < 1e15;
		return "an integer or null";
	case SK_COUNT: *ok = json_is_number(j); return "a number or null";
	case SK_FLAG: *ok = json_is_boolean(j); return "a boolean or null";
	case SK_TEXT: *ok = json_is_string(j); return "a string or null";
	case SK_ARRAY:
		*ok = json_is_array(j) || (f->nullable && json_is_null(j));
		return f->nullable ? "an array or null" : "an array";
	case SK_MAP: *ok = json_is_object(j); return "an object";
	}
	*ok = 0;
	return "?";
}

static int decode_object(struct decoder *d, const json_t *obj, const struct sdoc_field *fields,
			 void *base);

/* Whether @j is one of @f's choices, a string. */
static int chosen(const struct sdoc_field *f, const json_t *j)
{
	for (const char *const *c = f->choices; *c; c++)
		if (json_is_string(j) && !strcmp(json_string_value(j), *c))
			return 1;
	return 0;
}

/* "PATH: expected a, b or c, got TYPE": what @f may be is its choices. */
static int fail_choice(struct decoder *d, const struct sdoc_field *f, const json_t *j)
{
	struct strbuf words = STRBUF_INIT;
	int ret;

	for (const char *const *c = f->choices; *c; c++) {
		if (c != f->choices)
			sb_adds(&words, c[1] ? ", " : " or ");
		sb_adds(&words, *c);
	}
	ret = fail(d, "expected %s, got %s", sb_str(&words), xjson_type_name(j));
	sb_release(&words);
	return ret;
}

/* An SK_ARRAY member @j (an array, or null where the row keeps it) into @a. */
static int store_array(struct decoder *d, const struct sdoc_field *f, const json_t *j,
		       struct sdoc_array *a)
{
	a->present = json_is_null(j) ? -1 : 1;
	a->n = json_array_size(j);
	a->v = a->n ? xcalloc(a->n, f->elem_size) : NULL;
	for (size_t i = 0; i < a->n; i++) {
		void *el = (char *)a->v + i * f->elem_size;
		const json_t *o = json_array_get(j, i);
		size_t old = xjson_path_index(&d->path, i);
		int ret;

		init_fields(f->sub, el);
		ret = json_is_object(o) ? decode_object(d, o, f->sub, el) :
		      fail(d, "expected an object, got %s", xjson_type_name(o));
		xjson_path_pop(&d->path, old);
		if (ret)
			return -1;
	}
	return 0;
}

/* An SK_MAP member @j (an object) into @a: each member an element that begins with its key. */
static int store_map(struct decoder *d, const struct sdoc_field *f, const json_t *j,
		     struct sdoc_array *a)
{
	const char *key;
	json_t *o;
	size_t i = 0;

	a->present = 1;
	a->n = json_object_size(j);
	a->v = a->n ? xcalloc(a->n, f->elem_size) : NULL;
	json_object_foreach((json_t *)j, key, o) {
		char *el = (char *)a->v + i++ * f->elem_size;
		size_t old = xjson_path_key(&d->path, key);
		int bad = !json_is_object(o);

		init_fields(f->sub, el);
		*(const char **)el = key;
		if (bad)
			fail(d, "expected an object, got %s", xjson_type_name(o));
		else
			bad = decode_object(d, o, f->sub, el);
		xjson_path_pop(&d->path, old);
		if (bad)
			return -1;
	}
	return 0;
}

/* Member @j of row @f (type checked) into @base. */
static int store(struct decoder *d, const struct sdoc_field *f, const json_t *j, void *base)
{
	void *p = (char *)base + f->offset;
	double x;

	switch (f->kind) {
	case SK_STRING: case SK_STRING_OR_NULL: *(const char **)p = json_string_value(j); break;
	case SK_INT:
		*(long long *)p = json_is_integer(j) ? (long long)json_integer_value(j) :
			(long long)json_real_value(j);
		break;
	case SK_INT_NUMBER: case SK_NUMBER: case SK_NUMBER_OR_NULL:
		*(double *)p = json_is_number(j) ? json_number_value(j) : NAN;
		break;
	case SK_BOOL: *(int *)p = json_is_true(j); break;
	case SK_OBJECT:
		if (f->has_present)
			*(int *)p = 1;
		return decode_object(d, j, f->sub, p);
	case SK_JSON: *(const json_t **)p = j; break;
	case SK_LONG: *(long *)p = (long)json_number_value(j); break;
	case SK_COUNT:
		x = json_number_value(j);
		*(long *)p = isfinite(x) && x > 0 && x < 1e15 ? (long)x : 0;
		break;
	case SK_FLAG: *(int *)p = json_is_true(j); break;
	case SK_TEXT: *(const char **)p = json_string_value(j); break;
	case SK_CODEC: break;	/* decode_row() calls it */
	case SK_ARRAY: return store_array(d, f, j, p);
	case SK_MAP: return store_map(d, f, j, p);
	}
	return 0;
}

/* Row @f's codec on @j (NULL: absent), its complaint under the row's path. */
static int decode_codec(struct decoder *d, const struct sdoc_field *f, const json_t *j, void *base)
{
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	if (f->decode(j, (char *)base + f->offset, &why))
		ret = fail(d, "%s", sb_str(&why));
	sb_release(&why);
	return ret;
}

/*
 * Row @f of @obj into @base. A null for an optional member whose kind has
 * no null counts as absent: writers commonly emit null for "not known"
 * (reports/SCHEMA.md).
 */
static int decode_row(struct decoder *d, const json_t *obj, const struct sdoc_field *f, void *base)
{
	const json_t *j = json_object_get(obj, f->key);
	size_t old;
	int ok, ret = 0;
	const char *what = want(f, j, &ok);

	if (f->report_unread && !d->own)
		return 0;
	old = xjson_path_key(&d->path, f->key);

	if (j && json_is_null(j) && f->need != SN_REQUIRED && !ok)
		j = NULL;
	if (!j && f->need == SN_REQUIRED)
		ret = fail(d, "missing (expected %s)", what);
	else if (j && f->choices && d->own && !chosen(f, j))
		ret = fail_choice(d, f, j);
	else if (j && !ok)
		ret = fail(d, "expected %s, got %s", what, xjson_type_name(j));
	else if (f->kind == SK_CODEC)
		ret = decode_codec(d, f, j, base);
	else if (j)
		ret = store(d, f, j, base);
	xjson_path_pop(&d->path, old);
	return ret;
}

static int decode_object(struct decoder *d, const json_t *obj, const struct sdoc_field *fields,
			 void *base)
{
	for (const struct sdoc_field *f = fields; f->key; f++)
		if (decode_row(d, obj, f, base))
			return -1;
	return 0;
}

int session_doc_decode(const json_t *j, struct session_doc *doc, struct strbuf *err)
{
	keep_nothing(doc);
	return sdoc_fields_decode(session_doc_fields, j, doc, err);
}

static int fields_decode(const struct sdoc_field *fields, const json_t *j, void *base,
			 struct strbuf *err, int own)
{
	struct decoder d = { STRBUF_INIT, err, own };
	int ret;

	init_fields(fields, base);
	if (!json_is_object(j))
		ret = fail(&d, "expected an object, got %s", xjson_type_name(j));
	else
		ret = decode_object(&d, j, fields, base);
	sb_release(&d.path);
	if (ret)
		sdoc_fields_release(fields, base);
	return ret;
}

int sdoc_fields_decode(const struct sdoc_field *fields, const json_t *j, void *base,
		       struct strbuf *err)
{
	return fields_decode(fields, j, base, err, 1);
}

int sdoc_fields_decode_report(const struct sdoc_field *fields, const json_t *j, void *base,
			      struct strbuf *err)
{
	return fields_decode(fields, j, base, err, 0);
}

void sdoc_fields_release(const struct sdoc_field *fields, void *base)
{
	for (const struct sdoc_field *f = fields; f->key; f++) {
		void *p = (char *)base + f->offset;
		struct sdoc_array *a = p;

		if (f->kind == SK_OBJECT)
			sdoc_fields_release(f->sub, p);
		if (f->kind != SK_ARRAY && f->kind != SK_MAP)
			continue;
		for (size_t i = 0; i < a->n; i++)
			sdoc_fields_release(f->sub, (char *)a->v + i * f->elem_size);
		free(a->v);
		*a = (struct sdoc_array){ 0 };
	}
}

const char *sdoc_keep_string(struct strvec *strings, const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (!s)
		return NULL;
	sb_add_utf8_lossy(&sb, s, strlen(s));
	strvec_push(strings, sb_str(&sb));
	sb_release(&sb);
	return strings->v[strings->n - 1];
}

const json_t *sdoc_keep_json(json_t **json, json_t *j)
{
	if (!j)
		return NULL;
	if (!*json)
		*json = json_array();
	json_array_append_new(*json, j);
	return j;
}

int session_doc_member_decode(const json_t *j, const char *key, struct session_doc *doc,
			      struct strbuf *err)
{
	struct decoder d = { STRBUF_INIT, err, 1 };
	int ret = -1;

	for (const struct sdoc_field *f = session_doc_fields; f->key; f++) {
		if (strcmp(f->key, key))
			continue;
		ret = decode_row(&d, j, f, doc);
		if (ret) {
			/* what store_array() allocated before the element it refused */
			sdoc_fields_release((const struct sdoc_field[]){ *f, { NULL } }, doc);
			init_fields((const struct sdoc_field[]){ *f, { NULL } }, doc);
		}
	}
	sb_release(&d.path);
	return ret;
}

int session_doc_check(const json_t *j, const char *key, struct strbuf *err)
{
	struct decoder d = { STRBUF_INIT, err, 0 };
	struct session_doc doc;
	int ret = -1;

	session_doc_init(&doc);
	for (const struct sdoc_field *f = session_doc_fields; f->key; f++)
		if (!strcmp(f->key, key))
			ret = decode_row(&d, j, f, &doc);
	session_doc_release(&doc);
	sb_release(&d.path);
	return ret;
}
