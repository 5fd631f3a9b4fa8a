// SPDX-License-Identifier: GPL-2.0
/*
 * A cache entry's meta.json as its users read it (kcache.h, struct
 * kcache_meta): the one place its members are looked up by name. The
 * file is written by kbuild_meta_json() (lab/kernel/kbuild_meta.c).
 */
#include "kcache.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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
	m->source_id = opt_string(json_object_get(meta, "source"), "id");
	m->name = opt_string(meta, "name");
	m->built_at = opt_string(meta, "built_at");
	v = json_object_get(json_object_get(meta, "sizes"), "bzImage");
	m->image_size = json_is_number(v) ? json_number_value(v) : 0;
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
	free(m->source_id);
	free(m->name);
	free(m->built_at);
	memset(m, 0, sizeof(*m));
}
