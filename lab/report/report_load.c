// SPDX-License-Identifier: GPL-2.0
/*
 * Reading and validating report JSON. Reports travel (mailed, attached to CI
 * jobs, edited by hand), so the reader trusts nothing: every field the
 * renderers use is checked here once, with an error that names the JSON
 * path, and the renderers can then assume the types. Unknown fields are
 * ignored so that newer writers stay readable. Each run is checked by
 * decoding it (run_record.c), in the same words.
 */
#include "report.h"
#include "report_priv.h"
#include "run_record.h"
#include "session_doc.h"
#include "escape.h"
#include "stats_defaults.h"
#include "util.h"
#include "xjson.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct vctx {
	struct strbuf path;	/* "runs[3].metrics" */
	struct strbuf *err;
};

static int vfail(struct vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int vfail(struct vctx *v, const char *fmt, ...)
{
	va_list ap;

	sb_add_text_safe(v->err, v->path.len ? sb_str(&v->path) : "(top level)");
	sb_adds(v->err, ": ");
	va_start(ap, fmt);
	sb_vaddf(v->err, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Look up @key in @obj and check its type. Missing optional keys give
 * *@out = NULL and 0; a JSON null for an optional non-nullable key counts
 * as missing, since writers commonly emit null for "not known".
 */
static int get(struct vctx *v, const json_t *obj, const char *key, enum xjson_want w,
	       int required, json_t **out)
{
	json_t *j = json_object_get(obj, key);
	size_t old;
	int ret = 0;

	*out = NULL;
	if (j && json_is_null(j) && !required && w != XJ_STRING_OR_NULL && w != XJ_NUMBER_OR_NULL)
		j = NULL;
	if (!j && !required)
		return 0;
	old = xjson_path_key(&v->path, key);
	if (!j)
		ret = vfail(v, "missing (expected %s)", xjson_want_name(w));
	else if (!xjson_is(j, w))
		ret = vfail(v, "expected %s, got %s", xjson_want_name(w), xjson_type_name(j));
	else
		*out = j;
	xjson_path_pop(&v->path, old);
	return ret;
}

/* Optional scalar fields of one object, all checked the same way. */
struct field {
	const char *key;
	enum xjson_want want;
	int required;
};

static int check_fields(struct vctx *v, const json_t *obj, const struct field *f)
{
	json_t *j;

	for (; f->key; f++)
		if (get(v, obj, f->key, f->want, f->required, &j))
			return -1;
	return 0;
}

/* Run @fn on each element of the array @key (if present), with the path set. */
static int each(struct vctx *v, const json_t *obj, const char *key, int required,
		int (*fn)(struct vctx *, const json_t *, void *), void *data)
{
	json_t *arr, *el;
	size_t i, old;

	if (get(v, obj, key, XJ_ARRAY, required, &arr))
		return -1;
	if (!arr)
		return 0;
	old = xjson_path_key(&v->path, key);
	json_array_foreach(arr, i, el) {
		size_t o = xjson_path_index(&v->path, i);
		int ret;

		if (!json_is_object(el))
			ret = vfail(v, "expected an object, got %s", xjson_type_name(el));
		else
			ret = fn(v, el, data);
		xjson_path_pop(&v->path, o);
		if (ret) {
			xjson_path_pop(&v->path, old);
			return -1;
		}
	}
	xjson_path_pop(&v->path, old);
	return 0;
}

static int check_node(struct vctx *v, const json_t *n, void *data)
{
	static const struct field f[] = {
		{ "id", XJ_INT, 1 }, { "cpus", XJ_STRING, 0 },
		{ "memory_mib", XJ_NUMBER, 0 }, { NULL, 0, 0 },
	};
	(void)data;
	return check_fields(v, n, f);
}

/* A metric's better (NULL: none, higher) is one of the two directions. */
static int check_better(struct vctx *v, const char *better)
{
	size_t old;
	int ret;

	if (!better || !strcmp(better, "higher") || !strcmp(better, "lower"))
		return 0;
	old = xjson_path_key(&v->path, "better");
	ret = vfail(v, "expected \"higher\" or \"lower\"");
	xjson_path_pop(&v->path, old);
	return ret;
}

/*
 * A metric's better: session.json's rows (session_doc_check(), which has
 * checked the rest of workloads[]) leave it a string, the renderers know
 * two.
 */
static int check_metric_better(struct vctx *v, const json_t *m, void *data)
{
	(void)data;
	return check_better(v, json_string_value(json_object_get(m, "better")));
}

static int check_workload_better(struct vctx *v, const json_t *w, void *data)
{
	return each(v, w, "metrics", 0, check_metric_better, data);
}

/*
 * kernels[] by name, sorted once: every run names its kernel, and a
 * crafted report may hold as many kernels as runs, so looking each one up
 * by a scan (or checking names pairwise) is quadratic.
 */
struct kernel_ix {
	const char *name;
	size_t index;
};

struct kernel_names {
	struct kernel_ix *k;
	size_t n;
};

static int cmp_kernel_ix(const void *a, const void *b)
{
	const struct kernel_ix *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* @kernels has passed session.json's rows (session_doc_check()): every name is a string. */
static void kernel_names_build(struct kernel_names *kn, const json_t *kernels)
{
	const json_t *k;
	size_t i;

	kn->n = json_array_size(kernels);
	kn->k = xcalloc(kn->n + 1, sizeof(*kn->k));
	json_array_foreach(kernels, i, k) {
		kn->k[i].name = json_string_value(json_object_get(k, "name"));
		kn->k[i].index = i;
	}
	qsort(kn->k, kn->n, sizeof(*kn->k), cmp_kernel_ix);
}

/* The same of a session's document (session_doc_decode(): every name is a string). */
static void kernel_names_of_doc(struct kernel_names *kn, const struct session_doc *doc)
{
	kn->n = doc->kernels.n;
	kn->k = xcalloc(kn->n + 1, sizeof(*kn->k));
	for (size_t i = 0; i < kn->n; i++) {
		kn->k[i].name = sdoc_kernel_at(doc, i)->name;
		kn->k[i].index = i;
	}
	qsort(kn->k, kn->n, sizeof(*kn->k), cmp_kernel_ix);
}

static int has_kernel(const struct kernel_names *kn, const char *name)
{
	size_t lo = 0, hi = kn->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(kn->k[mid].name, name);

		if (!c)
			return 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/*
 * Runs name their kernel: two kernels of one name cannot be told apart.
 * Reports the first kernel (in file order) whose name an earlier one has.
 */
static int check_unique_kernels(struct vctx *v, const struct kernel_names *kn)
{
	size_t best = (size_t)-1, first = 0;

	for (size_t i = 1; i < kn->n; i++) {
		/* Sorted by name, then index: the group's first two are its earliest. */
		if (strcmp(kn->k[i].name, kn->k[i - 1].name) ||
		    (i >= 2 && !strcmp(kn->k[i - 1].name, kn->k[i - 2].name)))
			continue;
		if (kn->k[i].index < best) {
			best = kn->k[i].index;
			first = kn->k[i - 1].index;
		}
	}
	if (best == (size_t)-1)
		return 0;
	size_t old = xjson_path_key(&v->path, "kernels"), o = xjson_path_index(&v->path, best);
	size_t k = xjson_path_key(&v->path, "name");
	int ret = vfail(v, "also the name of kernels[%zu]", first);
	xjson_path_pop(&v->path, k);
	xjson_path_pop(&v->path, o);
	xjson_path_pop(&v->path, old);
	return ret;
}

/* @name (NULL: not a string, not checked here) is one of kernels[]: else said at @key. */
static int check_kernel_ref(struct vctx *v, const struct kernel_names *kn, const char *name,
			    const char *key)
{
	size_t old;
	int ret = 0;

	if (!name || has_kernel(kn, name))
		return 0;
	old = xjson_path_key(&v->path, key);
	ret = vfail(v, "no kernel named \"");
	sb_add_text_safe(v->err, name);
	sb_adds(v->err, "\" in kernels[]");
	xjson_path_pop(&v->path, old);
	return ret;
}

/*
 * design.baseline and design.patched (NULL: not a string) name kernels,
 * and two different ones: runs are told apart by kernel name.
 */
static int check_design_kernels(struct vctx *v, const struct kernel_names *kn,
				const char *baseline, const char *patched)
{
	size_t old = xjson_path_key(&v->path, "design");
	int ret = check_kernel_ref(v, kn, baseline, "baseline") ||
		  check_kernel_ref(v, kn, patched, "patched");

	/* An A/A session names the build twice. */
	if (!ret && patched && !strcmp(baseline ? baseline : "", patched)) {
		size_t o = xjson_path_key(&v->path, "patched");
		ret = vfail(v, "the same kernel as design.baseline (for an A/A comparison, "
			    "list the build twice under two names)");
		xjson_path_pop(&v->path, o);
	}
	xjson_path_pop(&v->path, old);
	return ret;
}

struct seq_ix {
	long seq;
	size_t index;
};

static int cmp_seq(const void *a, const void *b)
{
	const struct seq_ix *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Run ids name runs in every report; two runs with one id would be confused. */
static int check_unique_seq(struct vctx *v, const struct run_records *runs)
{
	size_t n = runs->n, i;
	struct seq_ix *s = xcalloc(n + 1, sizeof(*s));
	int ret = 0;

	for (i = 0; i < n; i++) {
		s[i].seq = runs->v[i].seq;
		s[i].index = i;
	}
	qsort(s, n, sizeof(*s), cmp_seq);
	for (i = 1; i < n && !ret; i++) {
		if (s[i].seq == s[i - 1].seq) {
			size_t old = xjson_path_key(&v->path, "runs"), o = xjson_path_index(&v->path, s[i].index);
			size_t k = xjson_path_key(&v->path, "seq");

			ret = vfail(v, "%ld is also the seq of runs[%zu]", s[i].seq, s[i - 1].index);
			xjson_path_pop(&v->path, k);
			xjson_path_pop(&v->path, o);
			xjson_path_pop(&v->path, old);
		}
	}
	free(s);
	return ret;
}

/*
 * Each host is a stratum of every metric, with its own bootstrap: a
 * crafted report naming a host per run would multiply the analysis by the
 * number of runs.
 */
static int check_host_count(struct vctx *v, const struct run_records *runs)
{
	json_t *seen = json_object();
	size_t i;
	int ret = 0;

	for (i = 0; i < runs->n; i++) {
		const char *h = runs->v[i].host;

		if (!h || json_object_get(seen, h))
			continue;
		json_object_set_new(seen, h, json_true());
		if (json_object_size(seen) > REPORT_MAX_HOSTS) {
			size_t old = xjson_path_key(&v->path, "runs"), o = xjson_path_index(&v->path, i), k = xjson_path_key(&v->path, "host");

			ret = vfail(v, "host number %d; a session has at most %d hosts",
				    REPORT_MAX_HOSTS + 1, REPORT_MAX_HOSTS);
			xjson_path_pop(&v->path, k);
			xjson_path_pop(&v->path, o);
			xjson_path_pop(&v->path, old);
			break;
		}
	}
	json_decref(seen);
	return ret;
}

/*
 * The runs, decoded with the kernel names checked in each (run_record.h):
 * the decoder's errors carry their path from the top, as vfail()'s do.
 */
static int kernel_known(const char *name, const void *data)
{
	return has_kernel(data, name);
}

/*
 * Records decoded without kernel names (a session's own): each names one of
 * kernels[], said as the decoder says it ("runs[3].kernel: no kernel
 * named ...").
 */
static int check_given_kernels(struct vctx *v, const struct kernel_names *kn,
			       const struct run_records *runs)
{
	for (size_t i = 0; i < runs->n; i++) {
		if (has_kernel(kn, runs->v[i].kernel))
			continue;
		sb_addf(v->err, "runs[%zu].kernel: no kernel named \"", i);
		sb_add_text_safe(v->err, runs->v[i].kernel);
		sb_adds(v->err, "\" in kernels[]");
		return -1;
	}
	return 0;
}

static int check_runs(struct vctx *v, const json_t *root, const struct kernel_names *kn,
		      struct run_records *runs)
{
	const struct run_kernel_names known = { kernel_known, kn };

	return run_records_decode(json_object_get(root, "runs"), &known, runs, v->err) ||
	       check_host_count(v, runs) || check_unique_seq(v, runs) ? -1 : 0;
}

/* The analysis would have to ignore a count outside the limits lab.conf has too. */
static int check_resamples_value(struct vctx *v, const char *key, double n)
{
	size_t old, k;
	int ret;

	if (n >= STATS_MIN_RESAMPLES && n <= STATS_MAX_RESAMPLES)
		return 0;
	old = xjson_path_key(&v->path, "statistics");
	k = xjson_path_key(&v->path, key);
	ret = vfail(v, "expected an integer from %d to %d, got %.0f", STATS_MIN_RESAMPLES,
		    STATS_MAX_RESAMPLES, n);
	xjson_path_pop(&v->path, k);
	xjson_path_pop(&v->path, old);
	return ret;
}

static int check_resamples(struct vctx *v, const json_t *stats, const char *key)
{
	const json_t *j = json_object_get(stats, key);

	return json_is_number(j) ? check_resamples_value(v, key, json_number_value(j)) : 0;
}

/*
 * Member @key of @root as session.json's table defines it (session_doc.c:
 * the session's members of a report are its); *@out the object, NULL when
 * absent or null.
 */
static int check_doc_member(struct vctx *v, const json_t *root, const char *key, json_t **out)
{
	json_t *o;

	if (session_doc_check(root, key, v->err))
		return -1;
	o = json_object_get(root, key);
	if (out)
		*out = json_is_object(o) ? o : NULL;
	return 0;
}

/* Everything after kernels[], which the rest refers to. */
static int validate_rest(struct vctx *v, const json_t *root, const struct kernel_names *kn,
			 struct run_records *runs)
{
	json_t *guest, *design, *stats;

	if (check_unique_kernels(v, kn))
		return -1;
	if (check_doc_member(v, root, "guest", &guest))
		return -1;
	if (guest) {
		size_t old = xjson_path_key(&v->path, "guest");
		int ret = each(v, guest, "nodes", 0, check_node, NULL);
		xjson_path_pop(&v->path, old);
		if (ret)
			return -1;
	}
	if (check_doc_member(v, root, "workloads", NULL) ||
	    each(v, root, "workloads", 0, check_workload_better, NULL))
		return -1;
	/* No patched kernel: a single-kernel session, statistics without comparison. */
	if (check_doc_member(v, root, "design", &design))
		return -1;
	if (check_design_kernels(v, kn, json_string_value(json_object_get(design, "baseline")),
				 json_string_value(json_object_get(design, "patched"))))
		return -1;
	if (check_doc_member(v, root, "statistics", &stats) ||
	    check_resamples(v, stats, "resamples") || check_resamples(v, stats, "counter_resamples"))
		return -1;
	return check_runs(v, root, kn, runs);
}

static int check_schema(struct vctx *v, const char *schema)
{
	if (!strcmp(schema, REPORT_SCHEMA) || !strcmp(schema, REPORT_SCHEMA_V1))
		return 0;
	sb_adds(v->err, "schema: \"");
	sb_add_text_fit(v->err, schema, 60);
	sb_adds(v->err, "\" is not \"" REPORT_SCHEMA "\" or \"" REPORT_SCHEMA_V1
		"\" (a newer or foreign file?)");
	return -1;
}

static int validate(struct vctx *v, const json_t *root, struct run_records *runs)
{
	json_t *schema, *kernels;
	struct kernel_names kn = { NULL, 0 };
	int ret;

	if (!json_is_object(root))
		return vfail(v, "expected an object, got %s", xjson_type_name(root));
	if (get(v, root, "schema", XJ_STRING, 1, &schema))
		return -1;
	if (check_schema(v, json_string_value(schema)))
		return -1;
	if (check_doc_member(v, root, "generator", NULL) ||
	    check_doc_member(v, root, "session", NULL) ||
	    check_doc_member(v, root, "host", NULL))
		return -1;
	/* kernels[] through session.json's rows: one definition of a kernel */
	if (get(v, root, "kernels", XJ_ARRAY, 1, &kernels) ||
	    check_doc_member(v, root, "kernels", NULL))
		return -1;
	if (!json_array_size(kernels))
		return vfail(v, "kernels: empty (expected at least one kernel)");
	kernel_names_build(&kn, kernels);
	ret = validate_rest(v, root, &kn, runs);
	free(kn.k);
	return ret;
}

int report_validate_runs(const json_t *root, struct run_records *runs, struct strbuf *err)
{
	struct vctx v = { STRBUF_INIT, err };
	int ret;

	runs->v = NULL;
	runs->n = 0;
	sb_grow(&v.path, 64);
	v.path.buf[0] = '\0';
	ret = validate(&v, root, runs);
	sb_release(&v.path);
	if (ret)
		run_records_release(runs);
	return ret;
}

/* Each workload's metrics' better of @doc, as check_metric_decl() checks a tree's. */
static int check_doc_metrics(struct vctx *v, const struct session_doc *doc)
{
	int ret = 0;

	for (size_t i = 0; i < doc->workloads.n && !ret; i++) {
		const struct sdoc_workload *w = sdoc_workload_at(doc, i);
		const struct sdoc_metric *m = w->metrics.v;
		size_t a = xjson_path_key(&v->path, "workloads"), b = xjson_path_index(&v->path, i);
		size_t c = xjson_path_key(&v->path, "metrics");

		for (size_t j = 0; j < w->metrics.n && !ret; j++) {
			size_t d = xjson_path_index(&v->path, j);

			ret = check_better(v, m[j].better);
			xjson_path_pop(&v->path, d);
		}
		xjson_path_pop(&v->path, c);
		xjson_path_pop(&v->path, b);
		xjson_path_pop(&v->path, a);
	}
	return ret;
}

/* validate()'s checks in its order, but for the types session_doc_decode() checked. */
static int validate_doc(struct vctx *v, const struct session_doc *doc,
			const struct kernel_names *kn, const struct run_records *runs)
{
	const struct sdoc_statistics *st = &doc->statistics;

	if (check_schema(v, doc->schema))
		return -1;
	if (!doc->kernels.n)
		return vfail(v, "kernels: empty (expected at least one kernel)");
	if (check_unique_kernels(v, kn) || check_doc_metrics(v, doc) ||
	    check_design_kernels(v, kn, doc->design.baseline, doc->design.patched))
		return -1;
	if ((st->resamples != SDOC_NONE &&
	     check_resamples_value(v, "resamples", (double)st->resamples)) ||
	    (st->counter_resamples != SDOC_NONE &&
	     check_resamples_value(v, "counter_resamples", (double)st->counter_resamples)))
		return -1;
	return check_given_kernels(v, kn, runs) || check_host_count(v, runs) ||
	       check_unique_seq(v, runs) ? -1 : 0;
}

int report_validate_doc(const struct session_doc *doc, const struct run_records *runs,
			struct strbuf *err)
{
	struct vctx v = { STRBUF_INIT, err };
	struct kernel_names kn;
	int ret;

	sb_grow(&v.path, 64);
	v.path.buf[0] = '\0';
	kernel_names_of_doc(&kn, doc);
	ret = validate_doc(&v, doc, &kn, runs);
	free(kn.k);
	sb_release(&v.path);
	return ret;
}

int report_validate(const json_t *root, struct strbuf *err)
{
	struct run_records runs = RUN_RECORDS_INIT;
	int ret = report_validate_runs(root, &runs, err);

	run_records_release(&runs);
	return ret;
}

int report_load_buffer(const char *buf, size_t len, json_t **out, struct strbuf *err)
{
	json_error_t jerr;
	json_t *root;

	*out = NULL;
	/* Duplicate keys would make "what the file says" ambiguous. */
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		sb_addf(err, "line %d, column %d: ", jerr.line, jerr.column);
		sb_add_text_safe(err, jerr.text);
		return -1;
	}
	if (report_validate(root, err)) {
		json_decref(root);
		return -1;
	}
	*out = root;
	return 0;
}

/* Feeds jansson from the file as it parses, so the text is never held whole. */
struct report_reader {
	int fd;
	size_t total;
	int too_big, error;
};

static size_t read_chunk(void *buffer, size_t len, void *data)
{
	struct report_reader *r = data;
	ssize_t n;

	do
		n = read(r->fd, buffer, len);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		r->error = errno;
		return (size_t)-1;
	}
	r->total += (size_t)n;
	if (r->total > REPORT_MAX_BYTES) {
		r->too_big = 1;
		return (size_t)-1;
	}
	return (size_t)n;
}

int report_load(const char *path, json_t **out, struct strbuf *err)
{
	struct report_reader rd = { open(path, O_RDONLY | O_CLOEXEC), 0, 0, 0 };
	struct strbuf e = STRBUF_INIT;
	json_error_t jerr;
	json_t *root;

	*out = NULL;
	if (rd.fd < 0) {
		rd.error = errno;
		goto fail;
	}
	/* Duplicate keys would make "what the file says" ambiguous. */
	root = json_load_callback(read_chunk, &rd, JSON_REJECT_DUPLICATES, &jerr);
	close(rd.fd);
	if (!root && !rd.too_big && !rd.error) {
		sb_addf(&e, "line %d, column %d: ", jerr.line, jerr.column);
		sb_add_text_safe(&e, jerr.text);
		goto fail;
	}
	if (!root)
		goto fail;
	if (report_validate(root, &e)) {
		json_decref(root);
		goto fail;
	}
	*out = root;
	return 0;
fail:
	sb_add_text_safe(err, path);
	if (rd.too_big)
		sb_addf(err, ": larger than REPORT_MAX_BYTES (%u MiB): not a report a session writes",
			REPORT_MAX_BYTES >> 20);
	else if (rd.error)
		sb_addf(err, ": %s", strerror(rd.error));
	else
		sb_addf(err, ": %s", sb_str(&e));
	sb_release(&e);
	return -1;
}
