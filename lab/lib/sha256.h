/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe on distinct contexts; sha256_file_hex() and the one-shot
 * functions from any thread.
 *
 * SHA-256 for content-addressed caches (kernel cache keys, guest image
 * hashes, source ids), computed by libcrypto (OpenSSL's EVP interface):
 * a maintained, tested implementation instead of one of our own. The
 * digest is the same function whoever computes it, so keys written by
 * earlier builds stay valid (tests/unit/test_sha256.c pins known answers).
 *
 * An incremental hash holds a libcrypto context: sha256_final() and
 * sha256_final_hex() free it; a hash abandoned before then (an error path)
 * is freed with sha256_release(). Like xmalloc(), these abort when
 * libcrypto cannot allocate: there is nothing a lab tool can do then.
 */
#ifndef LAB_SHA256_H
#define LAB_SHA256_H

#include "util.h"

#include <stddef.h>

struct sha256 {
	void *md;	/* EVP_MD_CTX *, kept opaque so callers need no OpenSSL header */
};

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, unsigned char out[SHA256_LEN]);
void sha256_final_hex(struct sha256 *c, char out[SHA256_HEX_LEN + 1]);
/* Drop a hash that will not be finished; harmless after sha256_final(). */
void sha256_release(struct sha256 *c);
/* Hash a length-prefixed field, so that ("ab","c") and ("a","bc") differ. */
void sha256_field(struct sha256 *c, const char *tag, const void *data, size_t len);
void sha256_field_str(struct sha256 *c, const char *tag, const char *s);
/* Hash a whole file into @hex; returns 0, or -1 with errno set. */
LAB_MUST_CHECK
int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1]);
/*
 * Hash the first @len bytes of open file @fd (from offset 0, with pread:
 * the file position is not moved). -1 with errno set on a read error, or
 * EIO when the file ends before @len bytes.
 */
LAB_MUST_CHECK
int sha256_fd_hex(int fd, unsigned long long len, char hex[SHA256_HEX_LEN + 1]);
void sha256_hex_of(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

/*
 * HMAC-SHA-256 (RFC 2104), for files the lab writes and reads back and
 * that someone else may have written in between (history's digest cache
 * and state): a plain checksum anyone can recompute, a MAC only the holder
 * of the key. Keys longer than a block are hashed first, as the RFC says.
 */
struct hmac_sha256 {
	struct sha256 inner;
	unsigned char okey[64];		/* the key XOR opad */
};

void hmac_sha256_init(struct hmac_sha256 *c, const void *key, size_t keylen);
void hmac_sha256_update(struct hmac_sha256 *c, const void *data, size_t len);
void hmac_sha256_final_hex(struct hmac_sha256 *c, char out[SHA256_HEX_LEN + 1]);

#endif
