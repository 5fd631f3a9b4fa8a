// SPDX-License-Identifier: GPL-2.0
/* Cache keys: stable for equal inputs, sensitive to every input that matters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "kbuild.h"
#include "kcache.h"

static const char *series[] = { "From x\nSubject: [PATCH 1/2] a\n\n+x\n", "From y\nSubject: b\n\n+y\n" };
static const char config[] = "#\n# Automatically generated file\n#\nCONFIG_64BIT=y\n"
			     "# General setup\nCONFIG_LRU_GEN=y\n# CONFIG_SWAP is not set\n";

static void fill(struct kcache_inputs *in)
{
	memset(in, 0, sizeof(*in));
	in->source_id = "tar:0123";
	in->series = series;
	in->nr_series = 2;
	in->config_text = config;
	in->config_base = "tinyconfig";
	in->compiler = "gcc (Debian 12.2.0-14) 12.2.0";
}

static void key_of(const struct kcache_inputs *in, char *out)
{
	kcache_key(in, out);
}

static void test_stable(void **state)
{
	struct kcache_inputs a, b;
	char ka[65], kb[65];
	(void)state;

	fill(&a);
	fill(&b);
	key_of(&a, ka);
	key_of(&b, kb);
	assert_string_equal(ka, kb);
	/* A key is 64 hex digits (the pinned values are in test_sha256.c). */
	assert_int_equal(strlen(ka), 64);
}

static void test_sensitive_to_patch_byte(void **state)
{
	struct kcache_inputs a;
	char k0[65], k1[65], k2[65];
	const char *changed[] = { series[0], "From y\nSubject: b\n\n+z\n" };
	const char *reordered[] = { series[1], series[0] };
	(void)state;

	fill(&a);
	key_of(&a, k0);
	a.series = changed;
	key_of(&a, k1);
	assert_string_not_equal(k0, k1);
	a.series = reordered;
	key_of(&a, k2);
	assert_string_not_equal(k0, k2);
	assert_string_not_equal(k1, k2);
}

static void test_sensitive_to_config_option(void **state)
{
	struct kcache_inputs a;
	char k0[65], k1[65], k2[65];
	(void)state;

	fill(&a);
	key_of(&a, k0);
	a.config_text = "#\n# Automatically generated file\n#\nCONFIG_64BIT=y\n"
			"# General setup\nCONFIG_LRU_GEN=y\nCONFIG_SWAP=y\n";
	key_of(&a, k1);
	assert_string_not_equal(k0, k1);
	/* Comments and blank lines do not change what is built. */
	a.config_text = "# another generator's header\nCONFIG_64BIT=y\n\n"
			"# Memory options\nCONFIG_LRU_GEN=y\n# CONFIG_SWAP is not set\n";
	key_of(&a, k2);
	assert_string_equal(k0, k2);
}

static void test_sensitive_to_source_and_compiler(void **state)
{
	struct kcache_inputs a;
	char k0[65], k1[65], k2[65];
	(void)state;

	fill(&a);
	key_of(&a, k0);
	a.source_id = "tar:0124";
	key_of(&a, k1);
	assert_string_not_equal(k0, k1);
	fill(&a);
	a.compiler = "gcc (Debian 13.1.0) 13.1.0";
	key_of(&a, k2);
	assert_string_not_equal(k0, k2);
}

static void test_field_boundaries(void **state)
{
	/* ("ab","c") and ("a","bc") must not collide. */
	const char *s1[] = { "ab", "c" }, *s2[] = { "a", "bc" };
	struct kcache_inputs a;
	char k1[65], k2[65];
	(void)state;

	fill(&a);
	a.series = s1;
	key_of(&a, k1);
	a.series = s2;
	key_of(&a, k2);
	assert_string_not_equal(k1, k2);
}

static void test_input_key_ignores_merged_config(void **state)
{
	struct kcache_inputs a;
	char k0[65], k1[65], k2[65];
	const char *frag1[] = { "CONFIG_NUMA=y\n" }, *frag2[] = { "CONFIG_NUMA=n\n" };
	(void)state;

	fill(&a);
	a.fragments = frag1;
	a.nr_fragments = 1;
	kcache_input_key(&a, k0);
	a.config_text = "CONFIG_OTHER=y\n";
	kcache_input_key(&a, k1);
	assert_string_equal(k0, k1);
	a.fragments = frag2;
	kcache_input_key(&a, k2);
	assert_string_not_equal(k0, k2);
	/* The two kinds of key never coincide. */
	kcache_key(&a, k1);
	assert_string_not_equal(k1, k2);
}

static void test_kconfig_verify(void **state)
{
	const char *frags[] = { "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=y\nCONFIG_N=64\n",
				"CONFIG_C=m\n" };
	struct strbuf dropped = STRBUF_INIT;
	(void)state;

	assert_int_equal(kconfig_verify(frags, 2, "CONFIG_A=y\nCONFIG_C=m\nCONFIG_N=64\n", &dropped), 0);
	assert_string_equal(sb_str(&dropped), "");
	assert_int_equal(kconfig_verify(frags, 2, "CONFIG_B=y\nCONFIG_C=y\nCONFIG_N=8\n", &dropped), 4);
	assert_string_equal(sb_str(&dropped),
			    "CONFIG_A: requested y, got nothing (unmet dependencies)\n"
			    "CONFIG_B: requested n (not set), got y\n"
			    "CONFIG_C: requested m, got y\n"
			    "CONFIG_N: requested 64, got 8\n");
	sb_release(&dropped);
}

/*
 * meta.json after a build: a Latin-1 patch subject was dropped, and a
 * non-UTF-8 path or compiler banner made the whole object NULL (then
 * strlen(NULL)) after the kernel had been built. Now all of it is kept.
 */
static void test_meta_not_utf8(void **state)
{
	struct strvec files = STRVEC_INIT, texts = STRVEC_INIT, subjects = STRVEC_INIT;
	struct strvec none = STRVEC_INIT;
	struct ksource src = { SOURCE_ARCHIVE, "/src/linux-caf\xe9.tar.xz", NULL, "tar:01", NULL,
			       "/cache/trees/01" };
	struct kbuild_meta m = {
		.key = "k", .input_key = "i", .name = "patched", .src = &src, .series = &files,
		.series_text = &texts, .subjects = &subjects, .fragments = &none,
		.fragment_text = &none, .config_base = "tinyconfig", .config_sha256 = "c",
		.compiler = "gcc (Debian) 12 \xa9 FSF", .head_commit = NULL, .image_size = 3,
		.image_sha256 = "s", .built_at = "2026-11-30T00:00:00Z", .build_dir = "/b",
	};
	json_error_t jerr;
	json_t *j;
	(void)state;

	strvec_push(&files, "/series/0001-r\xe9" "duire.patch");
	strvec_push(&texts, "From x\nSubject: mm: r\xe9" "duire\n");
	strvec_push(&subjects, "mm: r\xe9" "duire les \xe9" "critures");
	strvec_push(&subjects, "mm: plain");
	j = kbuild_meta_json(&m, &jerr);
	if (!j)
		fail_msg("meta.json not encodable: %s", jerr.text);
	assert_int_equal(json_array_size(json_object_get(j, "subjects")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "subjects"), 0)),
			    "mm: r\xef\xbf\xbd" "duire les \xef\xbf\xbd" "critures");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "source"), "path")),
			    "/src/linux-caf\xef\xbf\xbd.tar.xz");
	assert_string_equal(json_string_value(json_object_get(j, "compiler")),
			    "gcc (Debian) 12 \xef\xbf\xbd FSF");
	assert_true(json_is_null(json_object_get(j, "head_commit")));
	json_decref(j);
	strvec_clear(&files);
	strvec_clear(&texts);
	strvec_clear(&subjects);
}

/* A prefix kernel has keys of its own, one per K; the whole series keeps today's. */
static void test_series_prefix(void **state)
{
	struct kcache_inputs a;
	char whole[65], p0[65], p1[65], p1i[65], wi[65];
	(void)state;

	fill(&a);
	key_of(&a, whole);
	kcache_input_key(&a, wi);
	a.series_cut = 1;
	a.series_prefix = 0;
	key_of(&a, p0);
	a.series_prefix = 1;
	key_of(&a, p1);
	kcache_input_key(&a, p1i);
	assert_string_not_equal(whole, p0);
	assert_string_not_equal(whole, p1);
	assert_string_not_equal(p0, p1);
	assert_string_not_equal(wi, p1i);
	a.series_cut = 0;
	key_of(&a, p1);
	assert_string_equal(whole, p1);
}

/* A cache in a fresh folder with one complete entry: its folder (caller frees). */
static char *new_cache(char *dir, const char *key)
{
	char *entry, *f;

	assert_non_null(mkdtemp(dir));
	entry = xasprintf("%s/entries/%s", dir, key);
	assert_int_equal(mkdir_p(entry, 0755), 0);
	f = xasprintf("%s/meta.json", entry);
	assert_int_equal(write_file_atomic(f, "{}\n", 3), 0);
	free(f);
	f = xasprintf("%s/bzImage", entry);
	assert_int_equal(write_file_atomic(f, "image", 5), 0);
	free(f);
	return entry;
}

static const char key_a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/* gc removes an entry only when no one holds it; a dry run removes nothing. */
static void test_hold_keeps_entry(void **state)
{
	char dir[] = "/tmp/mglrulab-test-kcache-XXXXXX";
	char *entry = new_cache(dir, key_a), *missing = xasprintf("%s/entries/none", dir);
	int fd, fd2;
	(void)state;

	assert_int_equal(kcache_entry_hold(missing), -1);
	fd = kcache_entry_hold(entry);
	assert_true(fd >= 0);
	fd2 = kcache_entry_hold(entry);		/* shared: two users at once */
	assert_true(fd2 >= 0);
	assert_int_equal(kcache_entry_remove(entry, 0), 1);
	assert_int_equal(kcache_entry_remove(entry, 1), 1);
	close(fd);
	assert_int_equal(kcache_entry_remove(entry, 0), 1);
	assert_true(is_dir(entry));
	close(fd2);
	assert_int_equal(kcache_entry_remove(entry, 1), 0);
	assert_true(is_dir(entry));		/* dry run */
	assert_int_equal(kcache_entry_remove(entry, 0), 0);
	assert_false(path_exists(entry));
	assert_int_equal(kcache_entry_hold(entry), -1);
	assert_int_equal(rm_rf(dir), 0);
	free(missing);
	free(entry);
}

/* An entry without its image, or without meta.json, is not complete: no hold. */
static void test_hold_needs_complete_entry(void **state)
{
	char dir[] = "/tmp/mglrulab-test-kcache-XXXXXX";
	char *entry = new_cache(dir, key_a), *img = xasprintf("%s/bzImage", entry);
	(void)state;

	assert_int_equal(unlink(img), 0);
	assert_int_equal(kcache_entry_hold(entry), -1);
	/* Nothing to hold without meta.json either: gc removes such a folder. */
	char *meta = xasprintf("%s/meta.json", entry);
	assert_int_equal(unlink(meta), 0);
	assert_int_equal(kcache_entry_remove(entry, 0), 0);
	assert_false(path_exists(entry));
	assert_int_equal(rm_rf(dir), 0);
	free(meta);
	free(img);
	free(entry);
}

/*
 * The race: a user opens meta.json while gc holds it to remove the entry.
 * It waits for gc, then finds the entry gone and holds nothing (its build
 * then builds the kernel again) rather than a removed folder.
 */
static void test_hold_after_gc_removed(void **state)
{
	char dir[] = "/tmp/mglrulab-test-kcache-XXXXXX";
	char *entry = new_cache(dir, key_a), *meta = xasprintf("%s/meta.json", entry);
	char *moved = xasprintf("%s.gc.1", entry);
	int gc_fd = open(meta, O_RDONLY), status;
	pid_t pid;
	(void)state;

	assert_true(gc_fd >= 0);
	assert_int_equal(flock(gc_fd, LOCK_EX), 0);
	pid = fork();
	if (pid == 0) {
		close(gc_fd);	/* gc's lock is the parent's alone */
		_exit(kcache_entry_hold(entry) < 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	usleep(200 * 1000);			/* the child waits in flock() */
	assert_int_equal(rename(entry, moved), 0);
	close(gc_fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(rm_rf(dir), 0);
	free(moved);
	free(meta);
	free(entry);
}

/* Leftovers of a killed store or gc go; entries and anything else stay. */
static void test_sweep(void **state)
{
	char dir[] = "/tmp/mglrulab-test-kcache-XXXXXX";
	char *entry = new_cache(dir, key_a);
	const char *gone[] = { ".tmp.123", ".gc.9" }, *kept[] = { ".tmp.", ".tmp.12x", ".old", "x.gc.1" };
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(gone); i++) {
		char *p = xasprintf("%s%s/sub", entry, gone[i]);
		assert_int_equal(mkdir_p(p, 0755), 0);
		free(p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char *p = xasprintf("%s%s", entry, kept[i]);
		assert_int_equal(mkdir_p(p, 0755), 0);
		free(p);
	}
	assert_int_equal(kcache_sweep(dir), 2);
	assert_true(is_dir(entry));
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		char *p = xasprintf("%s%s", entry, kept[i]);
		assert_true(is_dir(p));
		free(p);
	}
	assert_int_equal(kcache_sweep(dir), 0);
	assert_int_equal(rm_rf(dir), 0);
	free(entry);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_series_prefix),
		cmocka_unit_test(test_sensitive_to_patch_byte),
		cmocka_unit_test(test_sensitive_to_config_option),
		cmocka_unit_test(test_sensitive_to_source_and_compiler),
		cmocka_unit_test(test_field_boundaries),
		cmocka_unit_test(test_input_key_ignores_merged_config),
		cmocka_unit_test(test_kconfig_verify),
		cmocka_unit_test(test_meta_not_utf8),
		cmocka_unit_test(test_hold_keeps_entry),
		cmocka_unit_test(test_hold_needs_complete_entry),
		cmocka_unit_test(test_hold_after_gc_removed),
		cmocka_unit_test(test_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
