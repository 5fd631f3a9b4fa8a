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
	/* Golden value: the key format is part of the cache layout. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_sensitive_to_patch_byte),
		cmocka_unit_test(test_sensitive_to_config_option),
		cmocka_unit_test(test_sensitive_to_source_and_compiler),
		cmocka_unit_test(test_field_boundaries),
		cmocka_unit_test(test_input_key_ignores_merged_config),
		cmocka_unit_test(test_kconfig_verify),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
