// SPDX-License-Identifier: GPL-2.0
/*
 * A built kernel stored as its cache entry: the image, .config,
 * System.map and log copied in, and meta.json (kbuild_meta_json(), read
 * back by kcache_meta.c).
 */
#include "kbuild_priv.h"
#include "xjson.h"
#include "escape.h"
#include "fsutil.h"
#include "kcache.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Patch subjects may be Latin-1 (mail is old): kept, with U+FFFD for bad bytes. */
static json_t *strvec_to_json(const struct strvec *sv)
{
	json_t *a = json_array();

	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, json_string_lossy(sv->v[i]));
	return a;
}

static json_t *files_json(const struct strvec *paths, const struct strvec *texts)
{
	json_t *a = json_array();
	char hex[SHA256_HEX_LEN + 1];

	for (size_t i = 0; i < paths->n; i++) {
		sha256_hex_of(texts->v[i], strlen(texts->v[i]), hex);
		json_array_append_new(a, xjson_pack("{s:o, s:s}", "file", json_string_lossy(paths->v[i]),
						   "sha256", hex));
	}
	return a;
}

static json_t *opt_string_lossy(const char *s)
{
	return s ? json_string_lossy(s) : json_null();
}

static const char *kind_name(enum source_kind k)
{
	return k == SOURCE_ARCHIVE ? "archive" : k == SOURCE_GIT ? "git" : "directory";
}

json_t *kbuild_meta_json(const struct kbuild_meta *m, json_error_t *jerr)
{
	const struct ksource *src = m->src;

	/*
	 * Every string that comes from outside (paths, the ref, the compiler's
	 * banner, patch subjects) goes in lossily: jansson refuses invalid
	 * UTF-8, and a NULL here would throw away a whole kernel build.
	 */
	return json_pack_ex(jerr, 0,
		"{s:s, s:s, s:s, s:o, s:{s:s, s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:o, s:s, s:o,"
		" s:o, s:{s:f, s:f, s:f, s:f}, s:{s:I}, s:s, s:s, s:o, s:o}",
		"schema", KCACHE_VERSION, "key", m->key, "input_key", m->input_key,
		"name", json_string_lossy(m->name),
		"source", "kind", kind_name(src->kind), "path", json_string_lossy(src->path),
		"id", json_string_lossy(src->id), "ref", opt_string_lossy(src->ref),
		"commit", opt_string_lossy(src->commit),
		"series", files_json(m->series, m->series_text),
		"subjects", strvec_to_json(m->subjects),
		"config_base", json_string_lossy(m->config_base),
		"fragments", files_json(m->fragments, m->fragment_text),
		"config_sha256", m->config_sha256, "compiler", json_string_lossy(m->compiler),
		"head_commit", opt_string_lossy(m->head_commit),
		"seconds", "unpack", m->t_unpack, "apply", m->t_apply, "configure", m->t_config,
		"compile", m->t_compile,
		"sizes", "bzImage", (json_int_t)m->image_size, "bzImage_sha256", m->image_sha256,
		"built_at", m->built_at, "tree", json_string_lossy(src->tree),
		"build_dir", json_string_lossy(m->build_dir));
}

int kbuild_store_entry(struct build_ctx *b, const char *config_text)
{
	const char *cache = b->cfg->cache_dir;
	char *entry = kcache_entry_dir(cache, b->key);
	char *tmp = xasprintf("%s.tmp.%ld", entry, (long)getpid());
	char stamp[32], cfg_hex[SHA256_HEX_LEN + 1];
	int r = LAB_OK;
	static const struct { const char *from, *to; } files[] = {
		{ "arch/x86/boot/bzImage", "bzImage" }, { ".config", "config" },
		{ "System.map", "System.map" },
	};

	rm_rf(tmp);
	if (mkdir_new(tmp, 0755)) {
		r = lab_error("cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("%s/%s", b->build_dir, files[i].from);
		char *to = xasprintf("%s/%s", tmp, files[i].to);
		/* the sandbox wrote the folder: a link there could name any host file */
		int cr = copy_file_beneath(b->build_dir, files[i].from, to, 0644);
		if (cr)
			r = lab_error("cannot copy %s to the cache: %s", from, strerror(errno));
		free(from);
		free(to);
		if (r)
			goto out;
	}
	char *log_copy = xasprintf("%s/build.log", tmp);
	/* the log only explains the entry: without it the entry still holds */
	if (copy_file(b->log, log_copy, 0644))
		warning("cannot copy %s to the cache: %s", b->log, strerror(errno));
	free(log_copy);

	char *img = xasprintf("%s/bzImage", tmp);
	long long size = file_size(img);
	char img_hex[SHA256_HEX_LEN + 1];
	int hr = sha256_file_hex(img, img_hex);
	if (hr)
		r = lab_error("cannot hash %s: %s", img, strerror(errno));
	free(img);
	if (hr)
		goto out;
	iso8601_now(stamp);
	sha256_hex_of(config_text, strlen(config_text), cfg_hex);
	struct kbuild_meta m = {
		.key = b->key, .input_key = b->ikey, .name = b->k->name, .src = &b->src,
		.series = &b->k->series, .series_text = &b->series_text, .subjects = &b->subjects,
		.fragments = &b->k->fragments, .fragment_text = &b->fragment_text,
		.config_base = b->k->config, .config_sha256 = cfg_hex, .compiler = b->compiler,
		.head_commit = b->head_commit, .t_unpack = b->t_unpack, .t_apply = b->t_apply,
		.t_config = b->t_config, .t_compile = b->t_compile, .image_size = size,
		.image_sha256 = img_hex, .built_at = stamp, .build_dir = b->build_dir,
	};
	json_error_t jerr;
	json_t *meta = kbuild_meta_json(&m, &jerr);
	char *text = meta ? json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	char *meta_path = xasprintf("%s/meta.json", tmp);
	if (!text)
		r = lab_error("cannot encode %s: %s", meta_path, meta ? "out of memory" : jerr.text);
	else if (write_file_atomic(meta_path, text, strlen(text)))
		r = lab_error("cannot write %s: %s", meta_path, strerror(errno));
	free(meta_path);
	free(text);
	json_decref(meta);
	if (r)
		goto out;
	rm_rf(entry);	/* an incomplete entry left by a crash */
	if (rename(tmp, entry))
		r = lab_error("cannot move %s to %s: %s", tmp, entry, strerror(errno));
out:
	if (r)
		rm_rf(tmp);
	free(tmp);
	free(entry);
	return r;
}
