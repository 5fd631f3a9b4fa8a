// SPDX-License-Identifier: GPL-2.0
/* Cache keys: stable for equal inputs, sensitive to every input that matters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
