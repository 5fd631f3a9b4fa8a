// SPDX-License-Identifier: GPL-2.0
/*
 * From report files to series of nights, and their change points
 * (history.h). Report files are untrusted: each goes through
 * report_load(), which validates every field used here (schema 1 and 2),
 * and one that does not load is skipped with the reason, never fatal.
 */
#include "history.h"
#include "history_context.h"
#include "history_digest.h"
#include "history_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "report.h"
#include "report_view.h"
#include "run_record.h"
#include "xjson.h"

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
	strmap_clear(&h->ix);
	strmap_clear(&h->seen);
	for (size_t i = 0; i < h->nskipped; i++) {
		free(h->skipped[i].file);
		free(h->skipped[i].reason);
	}
	free(h->skipped);
	json_decref(h->contexts);
	json_decref(h->cache);
	json_decref(h->cache_out);
	free(h->cache_path);
	free(h->cache_invalid_first);
	free(h->state_path);
	free(h->state_invalid_first);
}

/* @s as valid UTF-8, a new string: file names and reasons go into JSON as they are. */
static char *utf8_lossy(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_utf8_lossy(&sb, s, strlen(s));
	return sb_detach(&sb);
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
	ALLOC_GROW(h->skipped, h->nskipped + 1, h->skipalloc);
	h->skipped[h->nskipped++] = (struct history_skip){ utf8_lossy(file),
							   utf8_lossy(sb_str(&why)) };
	sb_release(&why);
}

const char *history_subject_core(const char *s)
{
	for (;;) {
		s += strspn(s, " \t");
		if (*s != '[' || !strchr(s, ']'))
			return s;
		s = strchr(s, ']') + 1;
	}
}

static char *series_subject(const struct sdoc_kernel *kernel)
{
	const char *s = kernel && kernel->series.n ? sdoc_patch_at(kernel, 0)->subject : NULL;

	s = s ? history_subject_core(s) : NULL;
	return s && *s ? xstrdup(s) : NULL;
}

/*
 * A report's digest (history_digest.h): what the history takes from one
 * report.json, and all it takes. The contexts its nights name are in
 * h->contexts by id.
 */

/* A string table: a name's place in @v, found through @ix. */
struct strtab {
	struct strmap ix;
	struct strvec v;
};

static const char *strtab_get(const struct strtab *t, const char *key)
{
	size_t i;

	return strmap_get(&t->ix, key, &i) ? t->v.v[i] : NULL;
}

static const char *strtab_put(struct strtab *t, const char *key, const char *val)
{
	strmap_put(&t->ix, key, t->v.n);
	strvec_push(&t->v, val);
	return t->v.v[t->v.n - 1];
}

static void strtab_clear(struct strtab *t)
{
	strmap_clear(&t->ix);
	strvec_clear(&t->v);
}

struct session_ctx {
	struct history *h;
	const struct report_view *v;
	struct history_digest *d;
	struct strtab lines;		/* kernel name -> line */
	struct strtab contexts;		/* workload name -> context id */
	struct strmap counts;		/* "kernel\nworkload" -> index in d->counts */
	struct strmap ix;		/* series key -> index in d->nights */
};

const struct sdoc_kernel *history_kernel_named(const struct report_view *v, const char *name)
{
	for (size_t i = 0; i < v->nkernels; i++)
		if (!strcmp(v->kernels[i].name ? v->kernels[i].name : "", name))
			return &v->kernels[i];
	return NULL;
}

static const char *line_of(struct session_ctx *c, const char *kernel)
{
	const char *l = strtab_get(&c->lines, kernel);
	char *subj, *t;

	if (l)
		return l;
	subj = c->h->o.by_name ? NULL : series_subject(history_kernel_named(c->v, kernel));
	t = subj ? xasprintf("%s + %s", kernel, subj) : xstrdup(kernel);
	l = strtab_put(&c->lines, kernel, t);
	free(t);
	free(subj);
	return l;
}

static const char *ctx_of(struct session_ctx *c, const char *workload)
{
	const char *e = strtab_get(&c->contexts, workload);
	char id[HISTORY_CONTEXT_ID_LEN + 1];

	if (!e) {
		json_t *ctx = history_context_encode(c->v, report_view_workload(c->v, workload), id);

		history_context_add(c->h->contexts, id, ctx);
		json_decref(ctx);
		e = strtab_put(&c->contexts, workload, id);
	}
	return e;
}

/* The night of this session on (kernel, workload, metric). */
static struct digest_night *night_of(struct session_ctx *c, const char *kernel,
				     const char *workload, const char *metric)
{
	const char *id = ctx_of(c, workload), *line = line_of(c, kernel), *unit = "";
	char *key = xasprintf("%s\n%s\n%s\n%s", id, line, workload, metric);
	struct digest_night *n;
	size_t ix;

	if (strmap_get(&c->ix, key, &ix)) {
		free(key);
		return &c->d->nights[ix];
	}
	strmap_put(&c->ix, key, c->d->nnights);
	free(key);
	n = history_digest_add_night(c->d);
	n->better = report_metric_info(c->v->json, workload, metric, &unit, &n->primary);
	n->ctx = xstrdup(id);
	n->line = xstrdup(line);
	n->kernel = xstrdup(kernel);
	n->workload = xstrdup(workload);
	n->metric = xstrdup(metric);
	n->unit = xstrdup(unit);
	return n;
}

static struct digest_count *count_of(struct session_ctx *c, const char *kernel,
				     const char *workload)
{
	char *key = xasprintf("%s\n%s", kernel, workload);
	struct digest_count *e;
	size_t ix;

	if (strmap_get(&c->counts, key, &ix)) {
		e = &c->d->counts[ix];
	} else {
		strmap_put(&c->counts, key, c->d->ncounts);
		e = history_digest_add_count(c->d);
		e->kernel = xstrdup(kernel);
		e->workload = xstrdup(workload);
	}
	free(key);
	return e;
}

/* @val: NaN when the run has no number for @key (a digest keeps finite values). */
static void add_value(struct session_ctx *c, const char *k, const char *w, const char *key,
		      int ok, double val)
{
	struct digest_night *n = night_of(c, k, w, key);

	if (ok && isfinite(val)) {
		ALLOC_GROW(n->v, n->n + 1, n->alloc);
		n->v[n->n++] = val;
	}
}

/* The runs of a loaded (validated, complete) report, its context in @v, into @c->d. */
static void digest_runs(struct session_ctx *c, const struct report_view *v)
{
	const char *kname[2] = { v->design.baseline ? v->design.baseline : "",
				 v->design.patched };
	struct run_records rs;
	json_t *hs_info, *derived, *val;
	const char *key;

	/* The host-adjusted primaries exist only as the report derives them. */
	/* Validated by report_load(): every run decodes. */
	run_records_of_report(v->json, &rs);
	derived = report_hoststate(v->json, &rs, kname, &hs_info);
	for (size_t i = 0; i < rs.n; i++) {
		const struct run_record *run = &rs.v[i];
		const char *k = run->kernel, *w = run->workload;
		struct digest_count *cnt;

		if (run->warmup)
			continue;
		c->d->runs++;
		c->d->failed += !run->ok;
		cnt = count_of(c, k, w);
		*(run->ok ? &cnt->ok : &cnt->failed) += 1;
		for (size_t j = 0; j < run->nr_metrics; j++)
			add_value(c, k, w, run->metrics[j].name, run->ok, run->metrics[j].value);
		json_object_foreach(json_array_get(derived, i), key, val)
			add_value(c, k, w, key, run->ok,
				  json_is_number(val) ? json_number_value(val) : NAN);
	}
	json_decref(derived);
	run_records_release(&rs);
	json_decref(hs_info);
}

/* The digest of a loaded (validated, complete) report, its context in @v. */
static void digest_of(struct history *h, const struct report_view *v, struct history_digest *d)
{
	struct session_ctx c = { .h = h, .v = v, .d = d };

	memset(d, 0, sizeof(*d));
	d->id = xstrdup(v->session.id);
	d->created = xstrdup(v->session.created);
	d->host = json_incref((json_t *)v->host_json);
	d->kernels = json_incref((json_t *)v->kernels_json);
	digest_runs(&c, v);
	/* A declared metric whose every run failed still has its night: failed. */
	for (size_t i = 0; i < d->ncounts; i++) {
		const char *k = d->counts[i].kernel, *w = d->counts[i].workload;
		const struct sdoc_workload *wl = report_view_workload(v, w);

		for (size_t j = 0; wl && j < wl->metrics.n; j++)
			night_of(&c, k, w, sdoc_metric_at(wl, j)->name);
	}
	strtab_clear(&c.lines);
	strtab_clear(&c.contexts);
	strmap_clear(&c.counts);
	strmap_clear(&c.ix);
}

/*
 * A digest from the cache file decoded (history_digest_decode()); its
 * nights must name contexts this history has (a context's id is its hash,
 * checked by history_cache_load()).
 */
static int digest_usable(const struct history *h, const struct history_digest *d)
{
	for (size_t i = 0; i < d->nnights; i++)
		if (!history_context_find(h->contexts, d->nights[i].ctx))
			return 0;
	return 1;
}

/* The series of night @n, made when new. */
static struct history_series *series_of(struct history *h, const struct digest_night *n)
{
	char *key = xasprintf("%s\n%s\n%s\n%s", n->ctx, n->line, n->workload, n->metric);
	struct history_series *s;
	size_t ix, l;

	if (strmap_get(&h->ix, key, &ix)) {
		free(key);
		return &h->series[ix];
	}
	ALLOC_GROW(h->series, h->nseries + 1, h->alloc);
	strmap_put(&h->ix, key, h->nseries);
	s = &h->series[h->nseries++];
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->line = xstrdup(n->line);
	s->kernel = xstrdup(n->kernel);
	s->workload = xstrdup(n->workload);
	s->metric = xstrdup(n->metric);
	l = strnlen(n->ctx, sizeof(s->ctx_id) - 1);
	memcpy(s->ctx_id, n->ctx, l);
	s->ctx_id[l] = '\0';
	s->context = json_incref((json_t *)history_context_find(h->contexts, n->ctx));
	s->better = -1;
	s->unit = xstrdup("");
	return s;
}

static const struct digest_count *count_in(const struct history_digest *d, const char *kernel,
					   const char *workload)
{
	for (size_t i = 0; i < d->ncounts; i++)
		if (!strcmp(d->counts[i].kernel, kernel) &&
		    !strcmp(d->counts[i].workload, workload))
			return &d->counts[i];
	return NULL;
}

/* A night's failed and missing runs, and its median with its interval. */
static void night_finish(struct history_night *night, const struct digest_count *cnt)
{
	size_t ok = cnt ? cnt->ok : 0;
	struct stats_summary sum;

	night->failed = cnt ? cnt->failed : 0;
	night->missing = ok > night->n ? ok - night->n : 0;
	if (night->n && !stats_summarize(night->v, NULL, night->n, 0.95, &sum, NULL)) {
		night->median = sum.median;
		night->lo = sum.median_ci.lo;
		night->hi = sum.median_ci.hi;
	}
}

/* A (valid) digest's nights into the series, as session @session. */
static void add_digest(struct history *h, const struct history_digest *d, size_t session)
{
	size_t *touched = NULL, ntouched = 0, talloc = 0, i;

	for (i = 0; i < d->nnights; i++) {
		const struct digest_night *n = &d->nights[i];
		struct history_series *s = series_of(h, n);
		struct history_night *night;

		/* Unit, direction and primary as the newest session declares them. */
		if (n->better >= 0 || s->better < 0) {
			s->better = n->better;
			free(s->unit);
			s->unit = xstrdup(n->unit);
		}
		s->primary |= n->primary;
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
		ALLOC_GROW(night->v, night->n + n->n, night->alloc);
		if (n->n)
			memcpy(night->v + night->n, n->v, n->n * sizeof(*n->v));
		night->n += n->n;
	}
	for (i = 0; i < ntouched; i++) {
		struct history_series *s = &h->series[touched[i]];

		night_finish(&s->nights[s->nn - 1], count_in(d, s->kernel, s->workload));
	}
	free(touched);
}

/*
 * The digest of the cache's entry for @real when it is for this very
 * file (@key) and usable: 0 and @d, else -1 (an entry that does not
 * decode is rejected with the reason).
 */
static int digest_cached(struct history *h, const char *path, const char *real,
			 const json_t *key, struct history_digest *d)
{
	const json_t *digest, *e = history_cache_entry(h, real, key, &digest);
	struct strbuf err = STRBUF_INIT;

	if (!e)
		return -1;
	if (!history_digest_decode(digest, d, &err)) {
		if (digest_usable(h, d)) {
			json_object_set(h->cache_out, real, (json_t *)e);
			h->cached++;
			sb_release(&err);
			return 0;
		}
		history_digest_release(d);
	}
	debug("%s: its cached digest: %s", path, err.len ? sb_str(&err) : "an unknown context");
	history_cache_reject(h, path, "its digest does not validate");
	sb_release(&err);
	return -1;
}

/*
 * @path's digest: from the cache when its entry is for this very file
 * (device, inode, size, mtime and ctime: a report rewritten in place
 * changes its ctime, whatever its mtime says) and valid, else from the
 * report itself. 0, or -1 when it is skipped (with a warning and
 * h->skipped).
 */
static int digest_for(struct history *h, const char *path, const char *real,
		      struct history_digest *d)
{
	struct strbuf err = STRBUF_INIT;
	struct stat st;
	int have_st = real && !stat(path, &st), ret = -1;
	json_t *r = NULL, *key = NULL;
	struct report_view v = { 0 };

	if (have_st)
		key = history_cache_key(&st);
	if (key && !digest_cached(h, path, real, key, d)) {
		json_decref(key);
		return 0;
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
	digest_of(h, &v, d);
	ret = 0;
	if (key && h->cache_out) {
		json_object_set_new(h->cache_out, real,
				    xjson_pack("{s:O,s:o}", "file", key, "digest",
					       history_digest_encode(d)));
		h->cache_dirty = 1;
	}
out:
	report_view_release(&v);
	json_decref(key);
	json_decref(r);
	sb_release(&err);
	return ret;
}

/*
 * @s's host and kernels typed, from its digest's copies (checked by
 * history_digest_decode() or made from a loaded report): a member of
 * another type reads as none, as the differences between nights read it
 * before.
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

/* 0 when @d is a session not seen yet; else why it is skipped, said. */
static int session_seen(struct history *h, const char *path, const struct history_digest *d)
{
	char *sid = xasprintf("session\n%s\n%s", d->id, d->created);
	size_t first;

	if (strmap_get(&h->seen, sid, &first)) {
		skip(h, path, "the same session as %s", h->s[first].path);
		free(sid);
		return 1;
	}
	strmap_put(&h->seen, sid, h->ns);
	free(sid);
	return 0;
}

int history_add_file(struct history *h, const char *path)
{
	char *real = realpath(path, NULL), *dir, *html;
	struct history_digest d = { 0 };
	struct history_session *s;
	int added = 0;

	if (real && strmap_get(&h->seen, real, NULL))
		goto out;
	if (digest_for(h, path, real, &d))
		goto out;
	if (h->o.since && strcmp(d.created, h->o.since) < 0) {
		h->before_since++;
		goto out;
	}
	if (session_seen(h, path, &d))
		goto out;
	if (real)
		strmap_put(&h->seen, real, (size_t)-1);
	ALLOC_GROW(h->s, h->ns + 1, h->salloc);
	s = &h->s[h->ns];
	memset(s, 0, sizeof(*s));
	s->id = xstrdup(d.id);
	s->created = xstrdup(d.created);
	s->path = xstrdup(path);
	dir = path_dirname(path);
	html = path_join(dir, "report.html");
	s->html = is_regular_file(html) ? html : (free(html), NULL);
	free(dir);
	s->host = json_incref(d.host);
	s->kernels = json_incref(d.kernels);
	session_ctx_decode(s);
	s->runs = d.runs;
	s->failed = d.failed;
	add_digest(h, &d, h->ns);
	h->ns++;
	added = 1;
out:
	free(real);
	history_digest_release(&d);
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
