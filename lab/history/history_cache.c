// SPDX-License-Identifier: GPL-2.0
/*
 * The digest cache of mglrulab history (history.h): the file, its
 * checksum and what of it may be trusted. The digests themselves are made
 * and checked in history.c.
 */
#include "history.h"
#include "fsutil.h"
#include "report_priv.h"
#include "sha256.h"
#include "xjson.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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

/* A context's id is its hash (context_of() in history.c): one that is not is not used. */
static void load_contexts(struct history *h, const json_t *contexts)
{
	const char *id;
	json_t *ctx;

	json_object_foreach((json_t *)contexts, id, ctx) {
		char *text = json_dumps(ctx, JSON_SORT_KEYS | JSON_COMPACT);
		char hex[SHA256_HEX_LEN + 1];

		if (!text)
			continue;
		sha256_hex_of(text, strlen(text), hex);
		free(text);
		if (json_is_object(ctx) && strlen(id) == 12 && !strncmp(hex, id, 12) &&
		    !json_object_get(h->contexts, id))
			json_object_set(h->contexts, id, ctx);
	}
}

/*
 * 1,000 sessions x 30 metrics x 20 runs make a 14 MB cache: this bound is
 * tens of thousands of sessions, and keeps a damaged or planted file from
 * being read whole into memory (it is then not used, like a corrupt one).
 */
#define HISTORY_CACHE_MAX ((size_t)1 << 30)

/* The cache's JSON, or NULL with a warning saying why it is not used. */
static json_t *cache_read(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1];
	const char *nl, *body;
	size_t head = strlen(HISTORY_CACHE_SCHEMA);
	struct stat st;
	json_error_t e;
	json_t *j = NULL;

	/* stat first: a sparse file of any size is then refused without reading it */
	int too_big = !stat(path, &st) && (uint64_t)st.st_size > HISTORY_CACHE_MAX;

	if (too_big || read_file(path, &sb, HISTORY_CACHE_MAX)) {
		if (too_big)
			errno = EFBIG;
		warning("%s: %s; reading every report", path,
			errno == EFBIG ? "larger than the lab ever writes" : strerror(errno));
		goto out;
	}
	nl = sb.len ? memchr(sb.buf, '\n', sb.len) : NULL;
	if (!nl || (size_t)(nl - sb.buf) != head + 1 + SHA256_HEX_LEN ||
	    memcmp(sb.buf, HISTORY_CACHE_SCHEMA " ", head + 1)) {
		warning("%s: line 1: expected '%s' and a SHA-256; reading every report", path,
			HISTORY_CACHE_SCHEMA);
		goto out;
	}
	body = nl + 1;
	sha256_hex_of(body, sb.len - (size_t)(body - sb.buf), hex);
	if (memcmp(hex, sb.buf + head + 1, SHA256_HEX_LEN)) {
		warning("%s: corrupt (its SHA-256 does not match); reading every report", path);
		goto out;
	}
	j = json_loadb(body, sb.len - (size_t)(body - sb.buf), JSON_REJECT_DUPLICATES, &e);
	if (!j)
		warning("%s:%d: %s; reading every report", path, e.line + 1, e.text);
out:
	sb_release(&sb);
	return j;
}

void history_cache_load(struct history *h, const char *path)
{
	struct stat st;
	json_t *j, *want;

	free(h->cache_path);
	h->cache_path = xstrdup(path);
	json_decref(h->cache_out);
	h->cache_out = json_object();
	if (stat(path, &st))
		return;
	h->cache_mtime = (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	j = cache_read(path);
	if (!j)
		return;
	want = cache_settings(h);
	if (!json_equal(json_object_get(j, "settings"), want) ||
	    !json_is_object(json_object_get(j, "contexts")) ||
	    !json_is_object(json_object_get(j, "reports"))) {
		info("%s: other settings or contents; reading every report", path);
	} else {
		load_contexts(h, json_object_get(j, "contexts"));
		json_decref(h->cache);
		h->cache = json_incref(json_object_get(j, "reports"));
	}
	json_decref(want);
	json_decref(j);
}

int history_cache_save(const struct history *h)
{
	json_t *contexts, *e, *n, *j;
	const char *path;
	struct strbuf sb = STRBUF_INIT;
	char hex[SHA256_HEX_LEN + 1], *body;
	size_t i;
	int r;

	if (h->cache_invalid)
		warning("%s: %zu entr%s did not validate (the first for %s); %s read", h->cache_path,
			h->cache_invalid, h->cache_invalid == 1 ? "y" : "ies", h->cache_invalid_first,
			h->cache_invalid == 1 ? "its report was" : "their reports were");
	if (!h->cache_out || !h->cache_path ||
	    (!h->cache_dirty && json_object_size(h->cache_out) == json_object_size(h->cache)))
		return 0;
	/* Only the contexts the digests name: a report gone takes its own along. */
	contexts = json_object();
	json_object_foreach(h->cache_out, path, e)
		json_array_foreach(json_object_get(json_object_get(e, "digest"), "nights"), i, n) {
			const char *id = json_string_value(json_array_get(n, 0));

			if (id && !json_object_get(contexts, id) && json_object_get(h->contexts, id))
				json_object_set(contexts, id, json_object_get(h->contexts, id));
		}
	j = xjson_pack("{s:o,s:o,s:O}", "settings", cache_settings(h), "contexts", contexts,
		       "reports", h->cache_out);
	body = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!body) {
		errno = ENOMEM;
		return -1;
	}
	sha256_hex_of(body, strlen(body), hex);
	sb_addf(&sb, "%s %s\n", HISTORY_CACHE_SCHEMA, hex);
	sb_adds(&sb, body);
	free(body);
	r = write_file_atomic(h->cache_path, sb.buf, sb.len);
	sb_release(&sb);
	return r;
}
