// SPDX-License-Identifier: GPL-2.0
/*
 * From report files to series of nights, and their change points
 * (history.h). Report files are untrusted: each goes through
 * report_load(), which validates every field used here (schema 1 and 2),
 * and one that does not load is skipped with the reason, never fatal.
 */
#include "history.h"
#include "escape.h"
#include "fsutil.h"
#include "report.h"
#include "report_view.h"
#include "run_record.h"
#include "xjson.h"
#include "sha256.h"

#include <math.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_MAX_DEPTH 6

void history_opts_default(struct history_opts *o)
{
	memset(o, 0, sizeof(*o));
	stats_cp_settings_default(&o->cp);
	o->last = 14;
}

void history_init(struct history *h, const struct history_opts *o)
{
	memset(h, 0, sizeof(*h));
	h->o = *o;
	h->ix = json_object();
	h->seen = json_object();
	h->skipped = json_array();
	h->contexts = json_object();
	h->latest = (size_t)-1;
}

void history_release(struct history *h)
{
	for (size_t i = 0; i < h->ns; i++) {
		free(h->s[i].id);
		free(h->s[i].created);
		free(h->s[i].path);
		free(h->s[i].html);
		json_decref(h->s[i].host);
		json_decref(h->s[i].kernels);
		report_view_release(&h->s[i].ctx);
	}
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];

		free(s->key);
		free(s->line);
		free(s->kernel);
		free(s->workload);
		free(s->metric);
		free(s->unit);
		json_decref(s->context);
		for (size_t j = 0; j < s->nn; j++)
			free(s->nights[j].v);
		free(s->nights);
		for (size_t j = 0; j < s->ncp; j++)
			strvec_clear(&s->cps[j].diff);
		free(s->cps);
		free(s->drifts);
		free(s->seg);
	}
	free(h->s);
	free(h->series);
	json_decref(h->ix);
	json_decref(h->seen);
	json_decref(h->skipped);
	json_decref(h->contexts);
	json_decref(h->cache);
	json_decref(h->cache_out);
	free(h->cache_path);
	free(h->cache_invalid_first);
	free(h->state_path);
	free(h->state_invalid_first);
}

static void skip(struct history *h, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void skip(struct history *h, const char *file, const char *fmt, ...)
{
	struct strbuf why = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&why, fmt, ap);
	va_end(ap);
	warning("%s: %s; skipped", file, sb_str(&why));
	json_array_append_new(h->skipped, xjson_pack("{s:o,s:o}", "file", json_string_lossy(file),
						     "reason", json_string_lossy(sb_str(&why))));
	sb_release(&why);
}

/*
 * "[RFC PATCH v2 1/3] mm: foo" -> "mm: foo": what stays the same when a
 * series is re-posted or grows a patch.
 */
static const char *subject_core(const char *s)
{
	for (;;) {
		s += strspn(s, " \t");
		if (*s != '[' || !strchr(s, ']'))
			return s;
		s = strchr(s, ']') + 1;
	}
}

static char *series_subject(const struct view_kernel *kernel)
{
	const char *s = kernel && kernel->nseries ? kernel->series[0].subject : NULL;

	s = s ? subject_core(s) : NULL;
	return s && *s ? xstrdup(s) : NULL;
}

/*
 * What must be equal for two nights to be comparable, and its short id:
 * host members as stored (a memory_mib written 2048 or 2048.0 hashes as
 * the file has it, so an id does not change with the reader).
 */
static json_t *context_of(const struct report_view *v, const struct view_workload *wl,
			  char id[13])
{
	static const char *const host_keys[] = { "hostname", "cpu", "cpus", "memory_mib",
						 "accel" };
	json_t *host = json_object(), *ctx;
	char *text;
	char hex[SHA256_HEX_LEN + 1];

	for (size_t i = 0; host && i < ARRAY_SIZE(host_keys); i++) {
		const json_t *m = json_object_get(v->host_json, host_keys[i]);

		json_object_set_new(host, host_keys[i], m ? json_incref((json_t *)m) : json_null());
	}
	ctx = host ? xjson_pack("{s:o,s:O?,s:{s:s?,s:O?}}", "host", host,
				"guest", v->guest_json,
				"workload", "type", wl ? wl->type : NULL,
				"params", wl ? wl->params : NULL) : NULL;
	text = ctx ? json_dumps(ctx, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
	if (!ctx || !text)
		die("out of memory building a series context");
	sha256_hex_of(text, strlen(text), hex);
	memcpy(id, hex, 12);
	id[12] = '\0';
	free(text);
	return ctx;
}

/*
 * A report's digest: what the history takes from one report.json, and all
 * it takes (the digest cache keeps it, history_cache.c), so that a report
 * read and a report found in the cache give the same series:
 *
 *   {"id", "created", "host", "kernels", "runs", "failed",
 *    "counts": {"kernel\nworkload": [ok runs, failed runs]},
 *    "nights": [[context id, line, kernel, workload, metric, better,
 *                unit, primary, "values"], ...]}
 *
 * one night per series the session has a night on, in the order the runs
 * first reach them (which orders the series of the page), with the runs'
 * values in run order: as text, each the shortest "%.15g" to "%.17g" that
 * reads back as the same double, one space apart (a third of the size of
 * JSON reals, and no JSON value per run to parse and free). The contexts
 * are in h->contexts by id.
 */

/* @arr's numbers as the text of a digest's night. */
static json_t *values_text(const json_t *arr)
{
	struct strbuf sb = STRBUF_INIT;
	const json_t *v;
	size_t i;
	json_t *t;

	json_array_foreach(arr, i, v) {
		double x = json_real_value(v);
		char buf[32];

		for (int prec = 15; prec <= 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, x);
			if (strtod(buf, NULL) == x)
				break;
		}
		sb_adds(&sb, i ? " " : "");
		sb_adds(&sb, buf);
	}
	t = json_string(sb_str(&sb));
	sb_release(&sb);
	if (!t)
		die("out of memory");
	return t;
}

/*
 * A digest night's values: how many, or -1 when the text is not finite
 * numbers one space apart. Stored into @out (room for as many) when not
 * NULL.
 */
static long values_parse(const char *s, double *out)
{
	long n = 0;

	while (*s) {
		char *end;
		double x;

		if (*s == ' ' || *s == '\t' || *s == '\n')
			return -1;
		x = strtod(s, &end);
		if (end == s || !isfinite(x) || (*end && *end != ' ') || (*end && !end[1]))
			return -1;
		if (out)
			out[n] = x;
		n++;
		s = *end ? end + 1 : end;
	}
	return n;
}
struct session_ctx {
	struct history *h;
	const struct report_view *v;
	json_t *lines;		/* kernel name -> line */
	json_t *contexts;	/* workload name -> context id */
	json_t *counts;		/* "kernel\nworkload" -> [ok, failed] */
	json_t *ix;		/* series key -> index in nights */
	json_t *nights;
};

/* The first kernel of the report named @name; NULL: none. */
static const struct view_kernel *kernel_named(const struct report_view *v, const char *name)
{
	for (size_t i = 0; i < v->nkernels; i++)
		if (!strcmp(v->kernels[i].name ? v->kernels[i].name : "", name))
			return &v->kernels[i];
	return NULL;
}

static const char *line_of(struct session_ctx *c, const char *kernel)
{
	json_t *l = json_object_get(c->lines, kernel);
	char *subj;

	if (l)
		return json_string_value(l);
	subj = c->h->o.by_name ? NULL : series_subject(kernel_named(c->v, kernel));
	if (subj) {
		char *t = xasprintf("%s + %s", kernel, subj);
		json_object_set_new(c->lines, kernel, json_string_lossy(t));
		free(t);
	} else {
		json_object_set_new(c->lines, kernel, json_string_lossy(kernel));
	}
	free(subj);
	return json_string_value(json_object_get(c->lines, kernel));
}

static const char *ctx_of(struct session_ctx *c, const char *workload)
{
	json_t *e = json_object_get(c->contexts, workload);
	char id[13];

	if (!e) {
		json_t *ctx = context_of(c->v, report_view_workload(c->v, workload), id);

		if (!json_object_get(c->h->contexts, id))
			json_object_set(c->h->contexts, id, ctx);
		json_decref(ctx);
		e = json_string(id);
		json_object_set_new(c->contexts, workload, e);
	}
	return json_string_value(e);
}

/* The night of this session on (kernel, workload, metric): its values. */
static json_t *night_of(struct session_ctx *c, const char *kernel, const char *workload,
			const char *metric)
{
	const char *id = ctx_of(c, workload), *line = line_of(c, kernel), *unit = "";
	char *key = xasprintf("%s\n%s\n%s\n%s", id, line, workload, metric);
	json_t *ix = json_object_get(c->ix, key), *n;
	int primary = 0, better;

	if (ix) {
		free(key);
		return json_array_get(json_array_get(c->nights, (size_t)json_integer_value(ix)), 8);
	}
	json_object_set_new(c->ix, key, json_integer((json_int_t)json_array_size(c->nights)));
	free(key);
	better = report_metric_info(c->v->json, workload, metric, &unit, &primary);
	n = xjson_pack("[s,o,o,o,o,i,o,b,[]]", id, json_string_lossy(line),
		       json_string_lossy(kernel), json_string_lossy(workload),
		       json_string_lossy(metric), better, json_string_lossy(unit), primary);
	json_array_append_new(c->nights, n);
	return json_array_get(n, 8);
}

static json_t *count_of(json_t *counts, const char *kernel, const char *workload)
{
	char *key = xasprintf("%s\n%s", kernel, workload);
	json_t *e = json_object_get(counts, key);

	if (!e) {
		e = xjson_pack("[i,i]", 0, 0);
		json_object_set_new(counts, key, e);
	}
	free(key);
	return e;
}

static void bump(json_t *arr, size_t i)
{
	json_t *n = json_array_get(arr, i);

	json_integer_set(n, json_integer_value(n) + 1);
}

/* @val: NaN when the run has no number for @key. */
static void add_value(struct session_ctx *c, const char *k, const char *w, const char *key,
		      int ok, double val)
{
	json_t *v = night_of(c, k, w, key);

	if (ok && !isnan(val))
		json_array_append_new(v, json_real(val));
}

/* The digest of a loaded (validated, complete) report, its context in @v. */
static json_t *digest_of(struct history *h, const struct report_view *v)
{
	struct session_ctx c = { .h = h, .v = v };
	const json_t *r = v->json;
	const char *key;
	json_t *val, *counts;
	struct run_records rs;
	size_t i, runs = 0, failed = 0;

	const char *kname[2] = { v->design.baseline ? v->design.baseline : "",
				 v->design.patched };
	json_t *hs_info, *derived;

	c.lines = json_object();
	c.contexts = json_object();
	c.counts = json_object();
	c.ix = json_object();
	c.nights = json_array();
	/* The host-adjusted primaries exist only as the report derives them. */
	/* Validated by report_load(): every run decodes. */
	run_records_decode_valid(json_object_get(r, "runs"), &rs);
	derived = report_hoststate(r, &rs, kname, &hs_info);
	for (i = 0; i < rs.n; i++) {
		const struct run_record *run = &rs.v[i];
		const char *k = run->kernel, *w = run->workload;

		if (run->warmup)
			continue;
		runs++;
		failed += !run->ok;
		bump(count_of(c.counts, k, w), run->ok ? 0 : 1);
		for (size_t j = 0; j < run->nr_metrics; j++)
			add_value(&c, k, w, run->metrics[j].name, run->ok, run->metrics[j].value);
		json_object_foreach(json_array_get(derived, i), key, val)
			add_value(&c, k, w, key, run->ok,
				  json_is_number(val) ? json_number_value(val) : NAN);
	}
	json_decref(derived);
	run_records_release(&rs);
	json_decref(hs_info);
	/* A declared metric whose every run failed still has its night: failed. */
	json_object_foreach(c.counts, key, counts) {
		const char *nl = strchr(key, '\n');
		char *k = xstrndup(key, (size_t)(nl - key));
		const struct view_workload *wl = report_view_workload(v, nl + 1);

		for (i = 0; wl && i < wl->nmetrics; i++)
			night_of(&c, k, nl + 1, wl->metrics[i].name ? wl->metrics[i].name : "");
		free(k);
	}
	json_array_foreach(c.nights, i, val)
		json_array_set_new(val, 8, values_text(json_array_get(val, 8)));
	json_decref(c.lines);
	json_decref(c.contexts);
	json_decref(c.ix);
	return xjson_pack("{s:s,s:s,s:O*,s:O*,s:I,s:I,s:o,s:o}",
			  "id", v->session.id,
			  "created", v->session.created,
			  "host", v->host_json,
			  "kernels", v->kernels_json,
			  "runs", (json_int_t)runs, "failed", (json_int_t)failed,
			  "counts", c.counts, "nights", c.nights);
}

static int is_count(const json_t *j)
{
	return json_is_integer(j) && json_integer_value(j) >= 0;
}

/*
 * A digest from the cache file is untrusted input like a report: every
 * field used is checked before any is, so that a bad one leaves the
 * history as it was (and the report is read instead).
 */
static int digest_valid(const struct history *h, const json_t *d)
{
	const json_t *n, *e;
	const char *key;
	size_t i, j;

	if (!json_is_object(d) || !json_is_string(json_object_get(d, "id")) ||
	    !json_is_string(json_object_get(d, "created")) ||
	    !is_count(json_object_get(d, "runs")) || !is_count(json_object_get(d, "failed")) ||
	    !json_is_object(json_object_get(d, "counts")) ||
	    !json_is_array(json_object_get(d, "nights")))
		return 0;
	if ((json_object_get(d, "host") && !json_is_object(json_object_get(d, "host"))) ||
	    (json_object_get(d, "kernels") && !json_is_array(json_object_get(d, "kernels"))))
		return 0;
	json_object_foreach((json_t *)json_object_get(d, "counts"), key, e)
		if (!strchr(key, '\n') || json_array_size(e) != 2 ||
		    !is_count(json_array_get(e, 0)) || !is_count(json_array_get(e, 1)))
			return 0;
	json_array_foreach(json_object_get(d, "nights"), i, n) {
		if (json_array_size(n) != 9)
			return 0;
		for (j = 0; j < 5; j++)
			if (!json_is_string(json_array_get(n, j)))
				return 0;
		if (!json_object_get(h->contexts, json_string_value(json_array_get(n, 0))) ||
		    !json_is_integer(json_array_get(n, 5)) ||
		    json_integer_value(json_array_get(n, 5)) < -1 ||
		    json_integer_value(json_array_get(n, 5)) > 1 ||
		    !json_is_string(json_array_get(n, 6)) || !json_is_boolean(json_array_get(n, 7)) ||
		    !json_is_string(json_array_get(n, 8)) ||
		    values_parse(json_string_value(json_array_get(n, 8)), NULL) < 0)
			return 0;
	}
	return 1;
}

/* The series of @key, made when new. */
static struct history_series *series_of(struct history *h, const json_t *n)
{
	const char *id = json_string_value(json_array_get(n, 0));
	char *key = xasprintf("%s\n%s\n%s\n%s", id, json_string_value(json_array_get(n, 1)),
			      json_string_value(json_array_get(n, 3)),
			      json_string_value(json_array_get(n, 4)));
	json_t *ix = json_object_get(h->ix, key);
	struct history_series *s;

	if (ix) {
		free(key);
		return &h->series[json_integer_value(ix)];
	}
	ALLOC_GROW(h->series, h->nseries + 1, h->alloc);
	json_object_set_new(h->ix, key, json_integer((json_int_t)h->nseries));
	s = &h->series[h->nseries++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->line = xstrdup(json_string_value(json_array_get(n, 1)));
	s->kernel = xstrdup(json_string_value(json_array_get(n, 2)));
	s->workload = xstrdup(json_string_value(json_array_get(n, 3)));
	s->metric = xstrdup(json_string_value(json_array_get(n, 4)));
	{
		size_t l = strnlen(id, sizeof(s->ctx_id) - 1);

		memcpy(s->ctx_id, id, l);
		s->ctx_id[l] = '\0';
	}
	s->context = json_incref(json_object_get(h->contexts, id));
	s->better = -1;
	s->unit = xstrdup("");
	return s;
}

/* A (valid) digest's nights into the series, as session @session. */
static void add_digest(struct history *h, const json_t *d, size_t session)
{
	const json_t *n, *counts = json_object_get(d, "counts");
	size_t *touched = NULL, ntouched = 0, talloc = 0, i, count;
	const char *text;

	json_array_foreach(json_object_get(d, "nights"), i, n) {
		struct history_series *s = series_of(h, n);
		int better = (int)json_integer_value(json_array_get(n, 5));
		struct history_night *night;

		/* Unit, direction and primary as the newest session declares them. */
		if (better >= 0 || s->better < 0) {
			s->better = better;
			free(s->unit);
			s->unit = xstrdup(json_string_value(json_array_get(n, 6)));
		}
		s->primary |= json_is_true(json_array_get(n, 7));
		if (!s->nn || s->nights[s->nn - 1].session != session) {
			ALLOC_GROW(s->nights, s->nn + 1, s->alloc);
			night = &s->nights[s->nn++];
			memset(night, 0, sizeof(*night));
			night->session = session;
			night->median = night->lo = night->hi = NAN;
			ALLOC_GROW(touched, ntouched + 1, talloc);
			touched[ntouched++] = (size_t)(s - h->series);
		}
		night = &s->nights[s->nn - 1];
		text = json_string_value(json_array_get(n, 8));
		count = (size_t)values_parse(text, NULL);
		ALLOC_GROW(night->v, night->n + count, night->alloc);
		night->n += (size_t)values_parse(text, night->v + night->n);
	}
	for (i = 0; i < ntouched; i++) {
		struct history_series *s = &h->series[touched[i]];
		struct history_night *night = &s->nights[s->nn - 1];
		char *key = xasprintf("%s\n%s", s->kernel, s->workload);
		const json_t *cnt = json_object_get(counts, key);
		size_t ok = (size_t)json_integer_value(json_array_get(cnt, 0));
		struct stats_summary sum;

		free(key);
		night->failed = (size_t)json_integer_value(json_array_get(cnt, 1));
		night->missing = ok > night->n ? ok - night->n : 0;
		if (night->n && !stats_summarize(night->v, NULL, night->n, 0.95, &sum, NULL)) {
			night->median = sum.median;
			night->lo = sum.median_ci.lo;
			night->hi = sum.median_ci.hi;
		}
	}
	free(touched);
}

/*
 * @path's digest: from the cache when its entry is for this very file
 * (device, inode, size, mtime and ctime: a report rewritten in place
 * changes its ctime, whatever its mtime says) and valid, else from the
 * report itself (NULL, with a warning and h->skipped, when it is skipped).
 */
static json_t *digest_for(struct history *h, const char *path, const char *real)
{
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	int have_st = real && !stat(path, &st);
	json_t *r = NULL, *d = NULL, *key = NULL;
	struct report_view v = { 0 };
	const json_t *e;

	if (have_st)
		key = history_cache_key(&st);
	e = key ? json_object_get(h->cache, real) : NULL;
	/*
	 * An entry (its MAC checked when the cache was loaded: this history
	 * made it) is used only for a file last changed before the cache was
	 * written: one changed in the same clock tick would show the times it
	 * had when its digest was made (as Git's racy index).
	 */
	if (e && json_equal(json_object_get(e, "file"), key) &&
	    json_integer_value(json_array_get(key, 3)) < h->cache_mtime &&
	    json_integer_value(json_array_get(key, 4)) < h->cache_mtime) {
		d = json_object_get(e, "digest");
		if (digest_valid(h, d)) {
			json_object_set(h->cache_out, real, (json_t *)e);
			h->cached++;
			json_decref(key);
			return json_incref(d);
		}
		history_cache_reject(h, path, "its digest does not validate");
		d = NULL;
	}
	if (report_load(path, &r, &err)) {
		const char *why = sb_str(&err);
		size_t n = strlen(path);

		/* report_load() names the file already. */
		if (!strncmp(why, path, n) && why[n] == ':')
			why += n + 1 + (why[n + 1] == ' ');
		skip(h, path, "%s", why);
		goto out;
	}
	/*
	 * report_load() checked these members' types: an error here leaves
	 * the member none, as the checks below expect of a missing one.
	 */
	if (report_view_decode_context(r, &v, &err))
		sb_reset(&err);
	if (!v.session.complete) {
		skip(h, path, "a partial report (the session was interrupted, or is running "
		     "again after mglrulab run --resume)");
		goto out;
	}
	if (!v.session.id || !v.session.created) {
		skip(h, path, "session.id and session.created are needed to place it in time");
		goto out;
	}
	d = digest_of(h, &v);
	if (key && h->cache_out) {
		json_object_set_new(h->cache_out, real,
				    xjson_pack("{s:O,s:O}", "file", key, "digest", d));
		h->cache_dirty = 1;
	}
out:
	report_view_release(&v);
	json_decref(key);
	json_decref(r);
	sb_release(&err);
	return d;
}

/*
 * @s's host and kernels typed, from its digest's copies (checked by
 * digest_valid() or made from a loaded report): a member of another type
 * reads as none, as the differences between nights read it before.
 */
static void session_ctx_decode(struct history_session *s)
{
	json_t *w = xjson_pack("{s:O*,s:O*}", "host", s->host, "kernels", s->kernels);
	struct strbuf err = STRBUF_INIT;

	if (report_view_decode_context(w, &s->ctx, &err))
		sb_reset(&err);
	s->ctx.json = NULL;	/* @w goes: the strings stay in s->host and s->kernels */
	json_decref(w);
	sb_release(&err);
}

int history_add_file(struct history *h, const char *path)
{
	char *real = realpath(path, NULL), *dir, *html;
	const char *id, *created;
	struct history_session *s;
	json_t *d = NULL;
	int added = 0;

	if (real && json_object_get(h->seen, real))
		goto out;
	d = digest_for(h, path, real);
	if (!d)
		goto out;
	id = jget_str(d, "id", NULL);
	created = jget_str(d, "created", NULL);
	if (h->o.since && strcmp(created, h->o.since) < 0) {
		h->before_since++;
		goto out;
	}
	{
		char *sid = xasprintf("session\n%s\n%s", id, created);
		json_t *first = json_object_get(h->seen, sid);

		if (first) {
			skip(h, path, "the same session as %s", json_string_value(first));
			free(sid);
			goto out;
		}
		json_object_set_new(h->seen, sid, json_string_lossy(path));
		free(sid);
	}
	if (real)
		json_object_set_new(h->seen, real, json_true());
	ALLOC_GROW(h->s, h->ns + 1, h->salloc);
	s = &h->s[h->ns];
	memset(s, 0, sizeof(*s));
	s->id = xstrdup(id);
	s->created = xstrdup(created);
	s->path = xstrdup(path);
	dir = path_dirname(path);
	html = path_join(dir, "report.html");
	s->html = is_regular_file(html) ? html : (free(html), NULL);
	free(dir);
	s->host = json_incref(json_object_get(d, "host"));
	s->kernels = json_incref(json_object_get(d, "kernels"));
	session_ctx_decode(s);
	s->runs = (size_t)json_integer_value(json_object_get(d, "runs"));
	s->failed = (size_t)json_integer_value(json_object_get(d, "failed"));
	add_digest(h, d, h->ns);
	h->ns++;
	added = 1;
out:
	free(real);
	json_decref(d);
	return added;
}

static int is_session_dir(const char *dir, char **report)
{
	char *rep = path_join(dir, "report.json"), *ses = path_join(dir, "session.json");
	int r = 0;

	if (is_regular_file(rep)) {
		*report = rep;
		rep = NULL;
		r = 1;
	} else if (is_regular_file(ses)) {
		*report = NULL;
		r = 1;
	}
	free(rep);
	free(ses);
	return r;
}

/*
 * reports/<stamp>-bisect/ (bisect.json): each step under steps/ is a
 * session with a report.json, measured on purpose against a prefix of a
 * series, not a night: counted, a step could become "tonight" for
 * --fail-on-new. Found by its state file, not by its name.
 */
static int is_bisection_dir(const char *dir)
{
	char *state = path_join(dir, "bisect.json");
	int r = is_regular_file(state);

	free(state);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(struct history *h, const char *dir, int depth)
{
	struct strvec sub = STRVEC_INIT;
	struct dirent *de;
	char *report;
	DIR *d;

	if (is_session_dir(dir, &report)) {
		if (report)
			history_add_file(h, report);
		else
			skip(h, dir, "session.json but no report.json: the session is still "
			     "running, or stopped before its first report");
		free(report);
		return 0;
	}
	if (depth > WALK_MAX_DEPTH)
		return 0;
	if (depth && is_bisection_dir(dir)) {
		debug("history: %s is a bisection; its steps are not nights", dir);
		return 0;
	}
	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = path_join(dir, de->d_name);
		/* lstat: reports/latest is a link to a session already walked. */
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			strvec_push(&sub, p);
		free(p);
	}
	closedir(d);
	if (sub.n)
		qsort(sub.v, sub.n, sizeof(*sub.v), cmp_str);
	for (size_t i = 0; i < sub.n; i++)
		if (walk(h, sub.v[i], depth + 1))
			skip(h, sub.v[i], "cannot read the folder: %s", strerror(errno));
	strvec_clear(&sub);
	return 0;
}

int history_add_dir(struct history *h, const char *dir)
{
	if (!is_dir(dir)) {
		errno = path_exists(dir) ? ENOTDIR : ENOENT;
		return -1;
	}
	return walk(h, dir, 0);
}

/* ---------------------------------------------------------------- */

static int cmp_session(const void *a, const void *b)
{
	const struct history_session *x = a, *y = b;
	int c = strcmp(x->created, y->created);

	if (!c)
		c = strcmp(x->id, y->id);
	return c ? c : strcmp(x->path, y->path);
}

static int cmp_night(const void *a, const void *b)
{
	const struct history_night *x = a, *y = b;

	return (x->session > y->session) - (x->session < y->session);
}

/* Sessions in time order, and every night's session index with them. */
static void sort_sessions(struct history *h)
{
	size_t *rank = xmalloc((h->ns + 1) * sizeof(*rank));

	for (size_t i = 0; i < h->ns; i++)
		h->s[i].loaded = i;
	if (h->ns)
		qsort(h->s, h->ns, sizeof(*h->s), cmp_session);
	for (size_t i = 0; i < h->ns; i++)
		rank[h->s[i].loaded] = i;
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];

		for (size_t j = 0; j < s->nn; j++)
			s->nights[j].session = rank[s->nights[j].session];
		qsort(s->nights, s->nn, sizeof(*s->nights), cmp_night);
	}
	free(rank);
	h->latest = h->ns ? h->ns - 1 : (size_t)-1;
}

/* The kernel entry of @name in session @s. */
static const struct view_kernel *kernel_in(const struct history_session *s, const char *name)
{
	return kernel_named(&s->ctx, name);
}

/* A patch's subject; "" for none. */
static const char *subject_of(const struct view_kernel *k, size_t i)
{
	return k->series[i].subject ? k->series[i].subject : "";
}

static int has_subject(const struct view_kernel *k, const char *subject)
{
	for (size_t i = 0; k && i < k->nseries; i++)
		if (!strcmp(subject_core(subject_of(k, i)), subject_core(subject)))
			return 1;
	return 0;
}

/* @a and @b: a member of either night, NULL for none (as ""). */
static void diff_field(struct strvec *d, const char *what, const char *a, const char *b)
{
	const char *x = a ? a : "", *y = b ? b : "";

	if (strcmp(x, y))
		strvec_pushf(d, "%s: %s -> %s", what, *x ? x : "(none)", *y ? y : "(none)");
}

/* Plain text (renderers escape it): what differs between two nights. */
static void night_diff(const struct history *h, const struct history_series *s, size_t before,
		       size_t after, struct strvec *d)
{
	const struct history_session *a = &h->s[before], *b = &h->s[after];
	static const struct view_kernel none;
	const struct view_kernel *ka = kernel_in(a, s->kernel), *kb = kernel_in(b, s->kernel);
	const struct view_host *ha = &a->ctx.host, *hb = &b->ctx.host;

	ka = ka ? ka : &none;
	kb = kb ? kb : &none;
	for (size_t i = 0; i < kb->nseries; i++)
		if (!has_subject(ka, subject_of(kb, i)))
			strvec_pushf(d, "+ %s", subject_of(kb, i));
	for (size_t i = 0; i < ka->nseries; i++)
		if (!has_subject(kb, subject_of(ka, i)))
			strvec_pushf(d, "- %s", subject_of(ka, i));
	diff_field(d, "source", ka->source, kb->source);
	diff_field(d, "ref", ka->ref, kb->ref);
	diff_field(d, "version", ka->version, kb->version);
	diff_field(d, "config", ka->config_hash, kb->config_hash);
	if (!d->n)
		diff_field(d, "build", ka->cache_key, kb->cache_key);
	diff_field(d, "host kernel", ha->kernel, hb->kernel);
	diff_field(d, "QEMU", ha->qemu_version, hb->qemu_version);
	diff_field(d, "libvirt", ha->libvirt_version, hb->libvirt_version);
}

static void gather(const struct history_series *s, const size_t *map, size_t from, size_t to,
		   double **out, size_t *n)
{
	size_t total = 0;

	for (size_t i = from; i < to; i++)
		total += s->nights[map[i]].n;
	*out = xmalloc((total + 1) * sizeof(**out));
	*n = 0;
	for (size_t i = from; i < to; i++) {
		memcpy(*out + *n, s->nights[map[i]].v, s->nights[map[i]].n * sizeof(double));
		*n += s->nights[map[i]].n;
	}
}

/*
 * Size and interval of each change point: the runs of the segment before
 * against those of the segment after, up to SIZE_NIGHTS nights on either
 * side of it. The step is what happened between two nights: nights far
 * from it add drift, not information, and the Hodges-Lehmann estimator's
 * n1 n2 differences grow with the square of a year of nights.
 */
#define SIZE_NIGHTS 10
static void size_cps(struct history *h, struct history_series *s, const size_t *map,
		     size_t k, const size_t *at, size_t ncp)
{
	struct stats_settings st;

	stats_settings_default(&st);
	/* The medians and the Hodges-Lehmann interval only: no bootstrap. */
	st.resamples = 0;
	for (size_t i = 0; i < ncp; i++) {
		struct history_cp *cp = &s->cps[i];
		size_t from = i ? at[i - 1] : 0, to = i + 1 < ncp ? at[i + 1] : k, na, nb;
		struct stats_comparison c;
		double *a, *b;

		if (at[i] - from > SIZE_NIGHTS)
			from = at[i] - SIZE_NIGHTS;
		if (to - at[i] > SIZE_NIGHTS)
			to = at[i] + SIZE_NIGHTS;
		gather(s, map, from, at[i], &a, &na);
		gather(s, map, at[i], to, &b, &nb);
		stats_compare(a, na, b, nb, &st, stats_seed_for(h->o.cp.seed, s->key), &c);
		cp->before = c.median_base;
		cp->after = c.median_patched;
		if (isfinite(c.hl_ratio)) {
			cp->delta_pct = 100 * (c.hl_ratio - 1);
			cp->lo_pct = 100 * (c.hl_ratio_lo - 1);
			cp->hi_pct = 100 * (c.hl_ratio_hi - 1);
		} else if (c.median_base != 0 && isfinite(c.hl_shift)) {
			double m = fabs(c.median_base);

			cp->delta_pct = 100 * c.hl_shift / m;
			cp->lo_pct = 100 * c.hl_lo / m;
			cp->hi_pct = 100 * c.hl_hi / m;
		} else {
			cp->delta_pct = cp->lo_pct = cp->hi_pct = NAN;
		}
		free(a);
		free(b);
		if (s->better < 0 || !isfinite(cp->delta_pct))
			cp->kind = "change";
		else
			cp->kind = (cp->delta_pct > 0) == (s->better == 1) ? "improvement" : "regression";
		cp->at = map[at[i]];
		cp->is_new = s->nights[cp->at].session == h->latest;
		night_diff(h, s, s->nights[map[at[i] - 1]].session, s->nights[cp->at].session,
			   &cp->diff);
	}
}

/*
 * Change points kept from the state file: their compact indices, or 0
 * kept. The state is sealed (history_state.c): what reaches here was
 * written by this user's history. It is still only used for what the
 * reports confirm: the same sessions, with the same runs (its "values"
 * digest), as the change points were found in. A session removed or
 * inserted in the past is no error (the series is searched again);
 * anything else that does not hold is said (history_state_reject()).
 */
static size_t resume(struct history *h, const struct history_series *s, const size_t *map,
		     size_t k, const json_t *state, size_t *at, double *p)
{
	const json_t *st = json_object_get(json_object_get(state, "series"), s->key), *e;
	const json_t *ids = json_object_get(st, "sessions"), *conf = json_object_get(st, "confirmed");
	const char *vals = json_string_value(json_object_get(st, "values"));
	char hex[SHA256_HEX_LEN + 1];
	size_t i, n = 0, nids = json_array_size(ids);

	if (!st)
		return 0;
	if (!json_is_array(ids) || !json_is_array(conf) || !vals)
		return history_state_reject(h, s, "expected sessions, values and confirmed"), 0;
	json_array_foreach(ids, i, e)
		if (!json_is_string(e))
			return history_state_reject(h, s, "sessions[%zu]: expected a session id", i), 0;
	if (nids > k)
		return 0;
	json_array_foreach(ids, i, e)
		if (strcmp(json_string_value(e), h->s[s->nights[map[i]].session].id))
			return 0;
	json_array_foreach(conf, i, e) {
		const json_t *ja = json_object_get(e, "at"), *jp = json_object_get(e, "p");
		json_int_t a = json_integer_value(ja);
		double pv = json_number_value(jp);

		if (nids < 2)
			return history_state_reject(h, s, "confirmed[%zu]: expected none over %zu "
						    "night%s", i, nids, nids == 1 ? "" : "s"), 0;
		if (!json_is_integer(ja) || a <= 0 || (uint64_t)a >= nids ||
		    (n && (size_t)a <= at[n - 1]))
			return history_state_reject(h, s, "confirmed[%zu].at: expected a night from 1 to "
						    "%zu, after the one before", i, nids - 1), 0;
		if (!json_is_number(jp) || !(pv > 0 && pv <= 1))
			return history_state_reject(h, s, "confirmed[%zu].p: expected a p value above 0, "
						    "at most 1", i), 0;
		at[n] = (size_t)a;
		p[n++] = pv;
	}
	history_state_values(s, nids, hex);
	if (strcmp(hex, vals))
		return history_state_reject(h, s, "values: the runs of its first %zu nights are not "
					    "those its change points were found in (a report "
					    "changed)", nids), 0;
	return n ? n : (size_t)-1;	/* -1: resumable, nothing confirmed */
}

/*
 * Change points of one direction that a line over their span fits are a
 * drift (stats_cp_drifts()): they leave s->cps (the steps) for s->drifts.
 * s->seg keeps every change point, for the state file.
 */
static void find_drifts(struct history_series *s,
			const struct stats_cp_night *nights, const size_t *map, size_t k,
			const size_t *at)
{
	struct stats_cp_drift_settings ds;
	struct stats_cp_drift *d = NULL;
	size_t nd, w = 0;
	char *gone = xcalloc(s->ncp + 1, 1);

	s->seg = xcalloc(s->ncp + 1, sizeof(*s->seg));
	for (size_t i = 0; i < s->ncp; i++)
		s->seg[i] = (struct history_seg){ s->cps[i].at, s->cps[i].p, s->cps[i].tentative };
	s->nseg = s->ncp;
	stats_cp_drift_settings_default(&ds);
	nd = stats_cp_drifts(nights, k, at, s->ncp, &ds, &d);
	s->drifts = xcalloc(nd + 1, sizeof(*s->drifts));
	for (size_t i = 0; i < nd; i++) {
		struct history_drift *o = &s->drifts[i];

		o->from = map[d[i].from];
		o->to = map[d[i].to];
		o->slope_pct = 100 * expm1(d[i].slope);
		o->total_pct = 100 * expm1(d[i].slope * (double)(d[i].to - d[i].from));
		o->p = d[i].p;
		o->ncp = d[i].ncp;
		if (s->better < 0 || d[i].slope == 0)
			o->kind = "change";
		else
			o->kind = (d[i].slope > 0) == (s->better == 1) ? "improvement" : "regression";
		for (size_t j = d[i].first_cp; j < d[i].first_cp + d[i].ncp; j++) {
			o->is_new |= s->cps[j].is_new;
			gone[j] = 1;
		}
	}
	s->ndrift = nd;
	for (size_t i = 0; i < s->ncp; i++) {
		if (gone[i]) {
			strvec_clear(&s->cps[i].diff);
			continue;
		}
		s->cps[w++] = s->cps[i];
	}
	s->ncp = w;
	free(gone);
	free(d);
}

static void detect(struct history *h, struct history_series *s, const json_t *state)
{
	size_t *map = xmalloc((s->nn + 1) * sizeof(*map)), k = 0, nkept, from = 0, n, ncp;
	struct stats_cp_night *nights = xmalloc((s->nn + 1) * sizeof(*nights));
	size_t *at = xmalloc((s->nn + 1) * sizeof(*at));
	double *p = xmalloc((s->nn + 1) * sizeof(*p));
	struct stats_cp_settings cs = h->o.cp;
	struct stats_cp *found = NULL;

	/* Nights without a value (every run failed) stay in the chart, not in the test. */
	for (size_t i = 0; i < s->nn; i++) {
		if (!s->nights[i].n)
			continue;
		nights[k] = (struct stats_cp_night){ s->nights[i].v, s->nights[i].n };
		map[k++] = i;
	}
	nkept = state ? resume(h, s, map, k, state, at, p) : 0;
	if (nkept == (size_t)-1) {
		nkept = 0;
		s->resumed = 1;
	} else if (nkept) {
		s->resumed = 1;
		from = at[nkept - 1];
	}
	cs.seed = stats_seed_for(h->o.cp.seed, s->key);
	n = stats_changepoints(nights, k, from, &cs, &found);
	h->searched += k - from;
	h->resumed += s->resumed;
	ncp = nkept + n;
	s->cps = xcalloc(ncp + 1, sizeof(*s->cps));
	for (size_t i = 0; i < nkept; i++) {
		s->cps[i].p = p[i];
		s->cps[i].kept = 1;
	}
	for (size_t i = 0; i < n; i++) {
		at[nkept + i] = found[i].at;
		s->cps[nkept + i].p = found[i].p;
		s->cps[nkept + i].tentative = found[i].tentative;
	}
	s->ncp = ncp;
	size_cps(h, s, map, k, at, ncp);
	find_drifts(s, nights, map, k, at);
	free(found);
	free(map);
	free(nights);
	free(at);
	free(p);
}

void history_build(struct history *h, const json_t *state)
{
	sort_sessions(h);
	for (size_t i = 0; i < h->nseries; i++)
		detect(h, &h->series[i], state);
	if (h->state_invalid)
		warning("%s: the state of %zu series not used (the first, %s); %s searched from "
			"%s first night", h->state_path ? h->state_path : "the history state",
			h->state_invalid, h->state_invalid_first,
			h->state_invalid == 1 ? "it was" : "they were",
			h->state_invalid == 1 ? "its" : "their");
}

size_t history_new_regressions(const struct history *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ncp; j++)
			n += h->series[i].cps[j].is_new &&
			     !strcmp(h->series[i].cps[j].kind, "regression");
	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ndrift; j++)
			n += h->series[i].drifts[j].is_new &&
			     !strcmp(h->series[i].drifts[j].kind, "regression");
	return n;
}
