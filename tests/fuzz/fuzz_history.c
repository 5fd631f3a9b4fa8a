// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for history's digest cache and state (history_seal.c,
 * history_cache.c, history_state.c). Whatever the files hold, history
 * must warn and go on, never crash, and render.
 *
 * A MAC stops almost every mutation at the first check, so the input is
 * sealed here with the key, as only a bug of ours or a holder of the key
 * could: what is fuzzed is what comes after the MAC. The input is lines:
 * the first is the state's line for a series, each other one a digest
 * (history_digest.h) put in the cache entry of one of the
 * reports, with the file identity the report has on disk, so that the
 * digest is checked and, when valid, made into series, searched and
 * rendered. An input starting with '!' is written as both files raw,
 * for the seal's own reader.
 *
 * FUZZ_HISTORY_DIR: a folder of reports (tests/integration/75-fuzz-history.sh
 * makes it, and the seeds). Build and run: that test.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fsutil.h"
#include "history.h"
#include "history_seal.h"
#include "xjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct {
	const char *dir;
	char *cache, *state;
	json_t *header;		/* the cache's header as history wrote it */
	json_t *entries;	/* [{path, file, digest}] */
	json_t *settings;	/* the state's */
} F;

static void opts(struct history_opts *o)
{
	history_opts_default(o);
	/* the checks are under test, not the permutations' speed */
	o->cp.permutations = 99;
	o->cp.alpha = 0.05;
}

/* A history of F.dir with the cache and state files, rendered. */
static void run(int use_state)
{
	struct history_opts o;
	struct history h;
	struct strbuf out = STRBUF_INIT;
	json_t *st;

	opts(&o);
	history_init(&h, &o);
	history_cache_load(&h, F.cache);
	history_add_dir(&h, F.dir);
	st = use_state ? history_state_load(&h, F.state) : NULL;
	history_build(&h, st);
	history_render_json(&h, &out);
	history_render_text(&h, &out);
	history_render_html(&h, "/tmp/history.html", &out);
	history_new_regressions(&h);
	json_decref(st);
	history_release(&h);
	sb_release(&out);
}

/* Once: the key, and a cache and state as history writes them. */
static void setup(void)
{
	char tmpl[] = "/tmp/mglrulab-fuzz-history.XXXXXX", *home;
	struct history_opts o;
	struct history h;
	struct seal_reader r;
	json_t *hd, *e, *u, *st;
	const char *why;

	F.dir = getenv("FUZZ_HISTORY_DIR");
	if (!F.dir || !mkdtemp(tmpl))
		abort();
	home = path_join(tmpl, "state");
	setenv("XDG_STATE_HOME", home, 1);
	free(home);
	F.cache = path_join(tmpl, "cache");
	F.state = path_join(tmpl, "state.json");
	opts(&o);
	history_init(&h, &o);
	history_cache_load(&h, F.cache);
	history_add_dir(&h, F.dir);
	if (history_cache_save(&h))
		abort();
	history_build(&h, NULL);
	st = history_state_json(&h);
	F.settings = json_incref(json_object_get(st, "settings"));
	json_decref(st);
	history_release(&h);
	if (seal_open(&r, F.cache, HISTORY_CACHE_SCHEMA, NULL, "", &F.header) != 1)
		abort();
	F.entries = json_array();
	while (seal_next(&r, &e, &why, &u)) {
		if (e)
			json_array_append_new(F.entries, e);
		json_decref(u);
	}
	seal_close(&r);
}

/* Without write_file_atomic()'s fsync: thousands of runs a minute. */
static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f))
		abort();
}

static void write_sealed(const char *path, const char *schema, json_t *header,
			 json_t *const *lines, size_t n)
{
	struct seal_writer w;

	if (seal_begin(&w, schema, header))
		abort();
	for (size_t i = 0; i < n; i++)
		if (lines[i])
			seal_add(&w, lines[i]);
	put(path, w.sb.buf, w.sb.len);
	seal_release(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *end = s + size;
	json_t *state_line = NULL, *hd, **cache_lines;
	size_t n, k = 0;

	if (!F.entries)
		setup();
	n = json_array_size(F.entries);
	if (size && s[0] == '!') {
		put(F.cache, data + 1, size - 1);
		put(F.state, data + 1, size - 1);
		run(1);
		return 0;
	}
	/* Every entry as history wrote it, then the input's digests in their place. */
	cache_lines = calloc(n + 1, sizeof(*cache_lines));
	for (size_t i = 0; i < n; i++)
		cache_lines[i] = json_deep_copy(json_array_get(F.entries, i));
	for (size_t line = 0; s < end; line++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);
		json_error_t e;
		json_t *j = json_loadb(s, len, JSON_DECODE_ANY, &e);

		if (line == 0) {
			state_line = j;
		} else if (j && k < n) {
			json_object_set_new(cache_lines[k++], "digest", j);
		} else {
			json_decref(j);
		}
		s += len + (nl != NULL);
	}
	hd = json_deep_copy(F.header);
	write_sealed(F.cache, HISTORY_CACHE_SCHEMA, hd, cache_lines, n);
	json_decref(hd);
	hd = xjson_pack("{s:O}", "settings", F.settings);
	write_sealed(F.state, HISTORY_STATE_SCHEMA, hd, &state_line, 1);
	json_decref(hd);
	run(1);
	for (size_t i = 0; i < n; i++)
		json_decref(cache_lines[i]);
	free(cache_lines);
	json_decref(state_line);
	return 0;
}
