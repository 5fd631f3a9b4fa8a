// SPDX-License-Identifier: GPL-2.0
/* kcache_entry_meta(): reads back what kbuild writes into an entry's meta.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "kbuild.h"
#include "kcache.h"
#include "sha256.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/mglrulab-test-kcache-meta-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static void write_meta(const char *text)
{
	char *path = xasprintf("%s/meta.json", dir);

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

/* The writer is kbuild_meta_json(): what it writes, the reader must find. */
static void test_round_trip(void **state)
{
	struct ksource src = { .kind = SOURCE_ARCHIVE, .path = "/usr/src/linux.tar.xz",
			       .id = "tar:00", .tree = "/cache/trees/tar-00" };
	struct strvec series = STRVEC_INIT, texts = STRVEC_INIT, subjects = STRVEC_INIT, none = STRVEC_INIT;
	char hex[SHA256_HEX_LEN + 1];
	struct kbuild_meta m = { .key = "k", .input_key = "ik", .name = "patched", .src = &src,
				 .series = &series, .series_text = &texts, .subjects = &subjects,
				 .fragments = &none, .fragment_text = &none, .config_base = "tinyconfig",
				 .config_sha256 = "c0ff", .compiler = "gcc 12", .image_sha256 = "ab", .image_size = 4194304,
				 .built_at = "2026-01-01T00:00:00Z", .build_dir = "/b" };
	struct kcache_meta km;
	struct strbuf err = STRBUF_INIT;
	json_error_t jerr;
	(void)state;

	strvec_push(&series, "/s/1.patch");
	strvec_push(&texts, "one");
	strvec_push(&series, "/s/2.patch");
	strvec_push(&texts, "two");
	strvec_push(&subjects, "[PATCH 1/2] mm: first");
	strvec_push(&subjects, "[PATCH 2/2] mm: caf\xe9");	/* Latin-1: stored lossily */
	json_t *j = kbuild_meta_json(&m, &jerr);
	assert_non_null(j);
	char *text = json_dumps(j, JSON_INDENT(2));
	write_meta(text);

	assert_int_equal(kcache_entry_meta(dir, &km, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(km.subjects.n, 2);
	assert_string_equal(km.subjects.v[0], "[PATCH 1/2] mm: first");
	assert_string_equal(km.subjects.v[1], "[PATCH 2/2] mm: caf\xef\xbf\xbd");
	assert_int_equal(km.nr_series, 2);
	assert_string_equal(km.series[0].file, "/s/1.patch");
	sha256_hex_of("one", 3, hex);
	assert_string_equal(km.series[0].sha256, hex);
	assert_string_equal(km.series[1].file, "/s/2.patch");
	sha256_hex_of("two", 3, hex);
	assert_string_equal(km.series[1].sha256, hex);
	assert_string_equal(km.config_sha256, "c0ff");
	assert_string_equal(km.tree, "/cache/trees/tar-00");
	/* what `kernel list` and `kernel gc` print of an entry */
	assert_string_equal(km.name, "patched");
	assert_string_equal(km.built_at, "2026-01-01T00:00:00Z");
	assert_true(km.image_size == 4194304);
	kcache_meta_release(&km);
	assert_null(km.tree);

	free(text);
	json_decref(j);
	strvec_clear(&series);
	strvec_clear(&texts);
	strvec_clear(&subjects);
	sb_release(&err);
}

/* A file edited by hand or half written: what is usable, and never a crash. */
static void test_wrong_types(void **state)
{
	struct kcache_meta km;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	write_meta("{\"subjects\": [\"a\", 7, null, \"b\"], \"series\": [{\"file\": \"/f\"}, 3, {}],"
		   " \"config_sha256\": 5, \"tree\": [\"/t\"], \"name\": 1, \"built_at\": {},"
		   " \"sizes\": {\"bzImage\": \"big\"}}");
	assert_int_equal(kcache_entry_meta(dir, &km, &err), 0);
	assert_int_equal(km.subjects.n, 2);
	assert_string_equal(km.subjects.v[1], "b");
	assert_int_equal(km.nr_series, 1);
	assert_string_equal(km.series[0].file, "/f");
	assert_null(km.series[0].sha256);
	assert_null(km.config_sha256);
	assert_null(km.tree);
	assert_null(km.name);
	assert_null(km.built_at);
	assert_true(km.image_size == 0);
	kcache_meta_release(&km);
	sb_release(&err);
}

static void test_unreadable(void **state)
{
	struct kcache_meta km;
	struct strbuf err = STRBUF_INIT;
	char *path = xasprintf("%s/meta.json", dir);
	(void)state;

	unlink(path);
	assert_int_equal(kcache_entry_meta(dir, &km, &err), -1);
	assert_non_null(strstr(sb_str(&err), path));
	assert_int_equal(km.subjects.n, 0);
	assert_int_equal(km.nr_series, 0);
	assert_null(km.tree);
	kcache_meta_release(&km);

	sb_reset(&err);
	write_meta("[1, 2]");
	assert_int_equal(kcache_entry_meta(dir, &km, &err), -1);
	assert_non_null(strstr(sb_str(&err), "not a JSON object"));
	kcache_meta_release(&km);

	sb_reset(&err);
	write_meta("{\"tree\": ");
	assert_int_equal(kcache_entry_meta(dir, &km, &err), -1);
	assert_non_null(strstr(sb_str(&err), path));
	kcache_meta_release(&km);
	free(path);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_unreadable),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
