// SPDX-License-Identifier: GPL-2.0
#include "kcache.h"
#include "fsutil.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Only the CONFIG_ assignments and "# CONFIG_X is not set" lines decide
 * what gets built; section comments and blank lines do not, so they stay
 * out of the key.
 */
static void hash_config_lines(struct sha256 *c, const char *text)
{
	const char *s = text;

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if ((len > 7 && !strncmp(s, "CONFIG_", 7)) ||
		    (len > 9 && !strncmp(s, "# CONFIG_", 9) && len > 11 &&
		     !strncmp(s + len - 11, " is not set", 11)))
			sha256_field(c, "config-line", s, len);
		s = nl ? nl + 1 : NULL;
	}
}

static void hash_common(struct sha256 *c, const struct kcache_inputs *in, const char *kind)
{
	sha256_init(c);
	sha256_field_str(c, "version", KCACHE_VERSION);
	sha256_field_str(c, "kind", kind);
	sha256_field_str(c, "source", in->source_id);
	for (size_t i = 0; i < in->nr_series; i++)
		sha256_field_str(c, "series", in->series[i]);
	/* Absent for a whole series: the keys of existing entries stay. */
	if (in->series_cut) {
		char k[32];

		snprintf(k, sizeof(k), "%ld", in->series_prefix);
		sha256_field_str(c, "series-prefix", k);
	}
	sha256_field_str(c, "compiler", in->compiler);
}

void kcache_key(const struct kcache_inputs *in, char key[SHA256_HEX_LEN + 1])
{
	struct sha256 c;

	hash_common(&c, in, "entry");
	hash_config_lines(&c, in->config_text);
	sha256_final_hex(&c, key);
}

void kcache_input_key(const struct kcache_inputs *in, char key[SHA256_HEX_LEN + 1])
{
	struct sha256 c;

	hash_common(&c, in, "input");
	sha256_field_str(&c, "config-base", in->config_base);
	for (size_t i = 0; i < in->nr_fragments; i++)
		sha256_field_str(&c, "fragment", in->fragments[i]);
	sha256_final_hex(&c, key);
}

char *kcache_entry_dir(const char *cache_dir, const char *key)
{
	return xasprintf("%s/entries/%s", cache_dir, key);
}

int kcache_entry_exists(const char *cache_dir, const char *key)
{
	char *meta = xasprintf("%s/entries/%s/meta.json", cache_dir, key);
	char *img = xasprintf("%s/entries/%s/bzImage", cache_dir, key);
	int ok = is_regular_file(meta) && is_regular_file(img);

	free(meta);
	free(img);
	return ok;
}

int kcache_index_put(const char *cache_dir, const char *ikey, const char *key)
{
	char *dir = xasprintf("%s/index", cache_dir);
	char *path = xasprintf("%s/%s", dir, ikey);
	char *line = xasprintf("%s\n", key);
	int r = mkdir_p(dir, 0755) ? -1 : write_file_atomic(path, line, strlen(line));

	free(dir);
	free(path);
	free(line);
	return r;
}

int kcache_index_get(const char *cache_dir, const char *ikey, char key[SHA256_HEX_LEN + 1])
{
	char *path = xasprintf("%s/index/%s", cache_dir, ikey);
	struct strbuf sb = STRBUF_INIT;
	int r = -1;

	if (!read_file(path, &sb, 4096)) {
		sb_trim_trailing_newlines(&sb);
		if (sb.len == SHA256_HEX_LEN) {
			memcpy(key, sb.buf, SHA256_HEX_LEN + 1);
			r = 0;
		}
	}
	sb_release(&sb);
	free(path);
	return r;
}

static char *opt_string(const json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s ? xstrdup(s) : NULL;
}

int kcache_entry_meta(const char *entry_dir, struct kcache_meta *m, struct strbuf *err)
{
	char *path = xasprintf("%s/meta.json", entry_dir);
	json_error_t jerr;
	json_t *meta = json_load_file(path, 0, &jerr), *v;
	size_t i;

	memset(m, 0, sizeof(*m));
	if (!json_is_object(meta)) {
		sb_addf(err, "%s: %s", path, meta ? "not a JSON object" : jerr.text);
		json_decref(meta);
		free(path);
		return -1;
	}
	json_array_foreach(json_object_get(meta, "subjects"), i, v)
		if (json_is_string(v))
			strvec_push(&m->subjects, json_string_value(v));
	m->series = xcalloc(json_array_size(json_object_get(meta, "series")) + 1, sizeof(*m->series));
	json_array_foreach(json_object_get(meta, "series"), i, v) {
		struct kcache_series_file *f = &m->series[m->nr_series];

		f->file = opt_string(v, "file");
		f->sha256 = opt_string(v, "sha256");
		if (f->file || f->sha256)
			m->nr_series++;
	}
	m->config_sha256 = opt_string(meta, "config_sha256");
	m->tree = opt_string(meta, "tree");
	json_decref(meta);
	free(path);
	return 0;
}

void kcache_meta_release(struct kcache_meta *m)
{
	strvec_clear(&m->subjects);
	for (size_t i = 0; i < m->nr_series; i++) {
		free(m->series[i].file);
		free(m->series[i].sha256);
	}
	free(m->series);
	free(m->config_sha256);
	free(m->tree);
	memset(m, 0, sizeof(*m));
}
