// SPDX-License-Identifier: GPL-2.0
/*
 * The digest cache of mglrulab history (history.h): the file, its
 * checksum and what of it may be trusted. The digests themselves are made
 * in history.c and decoded by history_digest_decode() (history_digest.c).
 */
#include "history.h"
#include "history_context.h"
#include "history_seal.h"
#include "fsutil.h"
#include "xjson.h"

#include <math.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

json_t *history_cache_key(const struct stat *st)
{
	return xjson_pack("[I,I,I,I,I]", (json_int_t)st->st_dev, (json_int_t)st->st_ino,
			  (json_int_t)st->st_size,
			  (json_int_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
			  (json_int_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec);
}

static json_t *cache_settings(const struct history *h)
{
	return xjson_pack("{s:b}", "by_name", h->o.by_name);
}

/* A context's id is its hash (history_context.h): one that is not is not used. */
static void load_contexts(struct history *h, const json_t *contexts)
{
	const char *id;
	json_t *ctx;

	json_object_foreach((json_t *)contexts, id, ctx)
		if (history_context_valid(id, ctx))
			history_context_add(h->contexts, id, ctx);
}

const json_t *history_cache_entry(const struct history *h, const char *real, const json_t *key,
				  const json_t **digest)
{
	const json_t *e = json_object_get(h->cache, real);

	/*
	 * An entry (its MAC checked when the cache was loaded: this history
	 * made it) is used only for a file last changed before the cache was
	 * written: one changed in the same clock tick would show the times it
	 * had when its digest was made (as Git's racy index).
	 */
	if (!e || !json_equal(json_object_get(e, "file"), key) ||
	    json_integer_value(json_array_get(key, 3)) >= h->cache_mtime ||
	    json_integer_value(json_array_get(key, 4)) >= h->cache_mtime)
		return NULL;
	*digest = json_object_get(e, "digest");
	return e;
}

/* Counted, and said once by history_cache_save(): an old or damaged cache may have many. */
void history_cache_reject(struct history *h, const char *what, const char *why)
{
	if (!h->cache_invalid++) {
		h->cache_invalid_first = xstrdup(what);
		h->cache_invalid_why = why;
	}
}

/* An entry as the cache writes it; its digest is decoded when used (digest_cached()). */
static int entry_ok(const json_t *e)
{
	const json_t *f = json_object_get(e, "file"), *x;
	size_t i;

	if (!json_is_string(json_object_get(e, "path")) || json_array_size(f) != 5 ||
	    !json_is_object(json_object_get(e, "digest")))
		return 0;
	json_array_foreach(f, i, x)
		if (!json_is_integer(x))
			return 0;
	return 1;
}

/* What a rejected line was about, for the warning: its report, if it names one. */
static char *entry_name(const struct seal_reader *r, const json_t *e)
{
	const char *p = json_string_value(json_object_get(e, "path"));

	return p ? xstrdup(p) : xasprintf("line %zu", r->line);
}

static void cache_entries(struct history *h, struct seal_reader *r)
{
	json_t *e, *u;
	const char *why;

	while (seal_next(r, &e, &why, &u)) {
		const char *p = json_string_value(json_object_get(e, "path"));

		if (e && (!entry_ok(e) || json_object_get(h->cache, p)))
			why = !entry_ok(e) ? "expected path, file and digest" : "a second entry for it";
		if (why) {
			char *name = entry_name(r, e ? e : u);

			history_cache_reject(h, name, why);
			free(name);
		} else {
			json_object_set(h->cache, p, e);
		}
		json_decref(e);
		json_decref(u);
	}
}

void history_cache_load(struct history *h, const char *path)
{
	struct seal_reader r;
	struct stat st;
	json_t *hd = NULL, *want;
	json_int_t written;

	free(h->cache_path);
	h->cache_path = xstrdup(path);
	json_decref(h->cache_out);
	h->cache_out = json_object();
	if (seal_open(&r, path, HISTORY_CACHE_SCHEMA, "mglrulab-history-cache/1 ",
		      "reading every report", &hd) <= 0)
		goto out;
	want = cache_settings(h);
	written = json_integer_value(json_object_get(hd, "written"));
	if (!json_equal(json_object_get(hd, "settings"), want) ||
	    !json_is_object(json_object_get(hd, "contexts")) || written <= 0) {
		debug("%s: other settings; reading every report", path);
	} else if (!stat(path, &st)) {
		/*
		 * The time its entries are trusted up to (digest_for()): the
		 * sealed one, so that touching the file cannot move it later.
		 */
		h->cache_mtime = (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		if (written < h->cache_mtime)
			h->cache_mtime = written;
		load_contexts(h, json_object_get(hd, "contexts"));
		json_decref(h->cache);
		h->cache = json_object();
		cache_entries(h, &r);
	}
	json_decref(want);
out:
	json_decref(hd);
	seal_close(&r);
}

static long long now_ns(void)
{
	struct timespec t;

	/* The clock file times come from (coarse: never ahead of them). */
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	return (long long)t.tv_sec * 1000000000 + t.tv_nsec;
}

int history_cache_save(const struct history *h)
{
	struct seal_writer w;
	json_t *contexts, *e, *n, *hd;
	const char *path;
	size_t i;
	int r;

	if (h->cache_invalid)
		warning("%s: %zu entr%s not used (the first, for %s: %s); %s", h->cache_path,
			h->cache_invalid, h->cache_invalid == 1 ? "y" : "ies", h->cache_invalid_first,
			h->cache_invalid_why, h->cache_invalid == 1 ? "its report is read instead" :
			"their reports are read instead");
	if (!h->cache_out || !h->cache_path ||
	    (!h->cache_dirty && !h->cache_invalid &&
	     json_object_size(h->cache_out) == json_object_size(h->cache)))
		return 0;
	/* Only the contexts the digests name: a report gone takes its own along. */
	contexts = json_object();
	json_object_foreach(h->cache_out, path, e)
		json_array_foreach(json_object_get(json_object_get(e, "digest"), "nights"), i, n) {
			const char *id = json_string_value(json_array_get(n, 0));

			if (id && !json_object_get(contexts, id) && json_object_get(h->contexts, id))
				json_object_set(contexts, id, json_object_get(h->contexts, id));
		}
	hd = xjson_pack("{s:o,s:I,s:o}", "settings", cache_settings(h), "written",
			(json_int_t)now_ns(), "contexts", contexts);
	if (seal_begin(&w, HISTORY_CACHE_SCHEMA, hd)) {
		json_decref(hd);
		return 0;	/* no key: said by history_key() */
	}
	json_decref(hd);
	json_object_foreach(h->cache_out, path, e) {
		json_t *line = xjson_pack("{s:s,s:O,s:O}", "path", path, "file",
					  json_object_get(e, "file"), "digest",
					  json_object_get(e, "digest"));

		seal_add(&w, line);
		json_decref(line);
	}
	r = seal_write(&w, h->cache_path);
	return r;
}
