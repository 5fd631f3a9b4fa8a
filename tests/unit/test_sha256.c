// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-256 known answers (FIPS 180-2, appendix B, and its one-million-'a'
 * message), and the cache keys of fixed inputs as earlier builds wrote them:
 * a change of digest, of field framing or of hex form would orphan every
 * cached kernel and guest image, so these are pinned byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcache.h"
#include "sha256.h"

static const char empty_hex[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
static const char abc_hex[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char msg448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
static const char msg448_hex[] = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
static const char million_a_hex[] = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";

static void oneshot_is(const char *msg, const char *want)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex_of(msg, strlen(msg), hex);
	assert_string_equal(hex, want);
}

static void test_fips_oneshot(void **state)
{
	(void)state;
	oneshot_is("", empty_hex);
	oneshot_is("abc", abc_hex);
	oneshot_is(msg448, msg448_hex);
}

/* The incremental interface, fed in pieces that straddle the 64-byte blocks. */
static void test_fips_streamed(void **state)
{
	static const size_t pieces[] = { 1, 63, 64, 65, 997, 4096 };
	char chunk[4096], hex[SHA256_HEX_LEN + 1];
	struct sha256 c;
	size_t left = 1000000, k = 0;
	(void)state;

	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&c);
	while (left) {
		size_t n = pieces[k++ % ARRAY_SIZE(pieces)];

		n = n < left ? n : left;
		sha256_update(&c, chunk, n);
		left -= n;
	}
	sha256_final_hex(&c, hex);
	assert_string_equal(hex, million_a_hex);

	/* "abc" one byte at a time, and the empty message through init/final */
	sha256_init(&c);
	sha256_update(&c, "a", 1);
	sha256_update(&c, "b", 1);
	sha256_update(&c, "c", 1);
	sha256_final_hex(&c, hex);
	assert_string_equal(hex, abc_hex);
	sha256_init(&c);
	sha256_final_hex(&c, hex);
	assert_string_equal(hex, empty_hex);
}

static void test_raw_digest(void **state)
{
	unsigned char d[SHA256_LEN];
	struct sha256 c;
	(void)state;

	sha256_init(&c);
	sha256_update(&c, "abc", 3);
	sha256_final(&c, d);
	assert_int_equal(d[0], 0xba);
	assert_int_equal(d[31], 0xad);
}

static void test_file(void **state)
{
	char path[] = "/tmp/mglrulab-sha256-XXXXXX", hex[SHA256_HEX_LEN + 1];
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, msg448, strlen(msg448)), (ssize_t)strlen(msg448));
	close(fd);
	assert_int_equal(sha256_file_hex(path, hex), 0);
	assert_string_equal(hex, msg448_hex);
	/* the same from the descriptor, whatever its position; a file shorter than asked is EIO */
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 7, SEEK_SET), 7);
	memset(hex, 0, sizeof(hex));
	assert_int_equal(sha256_fd_hex(fd, strlen(msg448), hex), 0);
	assert_string_equal(hex, msg448_hex);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 7);
	errno = 0;
	assert_int_equal(sha256_fd_hex(fd, strlen(msg448) + 1, hex), -1);
	assert_int_equal(errno, EIO);
	close(fd);
	unlink(path);
	assert_int_equal(sha256_file_hex(path, hex), -1);
}

/* A hash given up half way (an error path) is released without a leak (ASan). */
static void test_release(void **state)
{
	struct sha256 c;
	(void)state;

	sha256_init(&c);
	sha256_update(&c, "abc", 3);
	sha256_release(&c);
	sha256_release(&c);	/* twice is harmless */
	assert_null(c.md);
}

/*
 * Field framing: ("ab","c") and ("a","bc") differ, and the framed bytes are
 * exactly "tag:len:data", which every existing cache key depends on.
 */
static void test_field_framing(void **state)
{
	char a[SHA256_HEX_LEN + 1], b[SHA256_HEX_LEN + 1], want[SHA256_HEX_LEN + 1];
	struct sha256 c;
	(void)state;

	sha256_init(&c);
	sha256_field_str(&c, "x", "ab");
	sha256_field_str(&c, "x", "c");
	sha256_final_hex(&c, a);
	sha256_init(&c);
	sha256_field_str(&c, "x", "a");
	sha256_field_str(&c, "x", "bc");
	sha256_final_hex(&c, b);
	assert_string_not_equal(a, b);
	sha256_hex_of("x:2:abx:1:c", 11, want);
	assert_string_equal(a, want);
	sha256_init(&c);
	sha256_field_str(&c, "none", NULL);
	sha256_final_hex(&c, a);
	sha256_hex_of("none:0:", 7, want);
	assert_string_equal(a, want);
}

/*
 * Kernel cache keys of fixed inputs, as computed by the lab's own SHA-256
 * before it moved to libcrypto (commit 1924894): the cache layout.
 */
static void test_kcache_keys_unchanged(void **state)
{
	static const char *series[] = { "From x\nSubject: [PATCH 1/2] a\n\n+x\n",
					"From y\nSubject: b\n\n+y\n" };
	static const char *frag[] = { "CONFIG_X=y\n" };
	struct kcache_inputs in = {
		.source_id = "tar:0123", .series = series, .nr_series = 2,
		.config_text = "#\n# Automatically generated file\n#\nCONFIG_64BIT=y\n"
			       "# General setup\nCONFIG_LRU_GEN=y\n# CONFIG_SWAP is not set\n",
		.config_base = "tinyconfig", .fragments = frag, .nr_fragments = 1,
		.compiler = "gcc (Debian 12.2.0-14) 12.2.0",
	};
	char key[SHA256_HEX_LEN + 1];
	(void)state;

	kcache_key(&in, key);
	assert_string_equal(key, "6facdae33206ddaa811377a54a56e6eac9b57bce7f7c6f32585450e3d6da9aa1");
	kcache_input_key(&in, key);
	assert_string_equal(key, "a4d0d6d83ad891ed4c85668a302c38f1efd4ec0532284f29f84cdc7062ec06dc");
}

/* HMAC-SHA-256 known answers: RFC 4231 test cases 1, 2 and 6 (a key longer than a block). */
static void hmac_is(const void *key, size_t keylen, const char *msg, const char *want)
{
	struct hmac_sha256 c;
	char hex[SHA256_HEX_LEN + 1];
	size_t n = strlen(msg);

	hmac_sha256_init(&c, key, keylen);
	/* in two pieces: the MAC is of the concatenation */
	hmac_sha256_update(&c, msg, n / 3);
	hmac_sha256_update(&c, msg + n / 3, n - n / 3);
	hmac_sha256_final_hex(&c, hex);
	assert_string_equal(hex, want);
}

static void test_hmac_rfc4231(void **state)
{
	unsigned char k1[20], k6[131];
	(void)state;

	memset(k1, 0x0b, sizeof(k1));
	memset(k6, 0xaa, sizeof(k6));
	hmac_is(k1, sizeof(k1), "Hi There",
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_is("Jefe", 4, "what do ya want for nothing?",
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	hmac_is(k6, sizeof(k6), "Test Using Larger Than Block-Size Key - Hash Key First",
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fips_oneshot),
		cmocka_unit_test(test_fips_streamed),
		cmocka_unit_test(test_raw_digest),
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_field_framing),
		cmocka_unit_test(test_kcache_keys_unchanged),
		cmocka_unit_test(test_hmac_rfc4231),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
