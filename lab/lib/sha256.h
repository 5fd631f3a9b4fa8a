/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256 (FIPS 180-4), for content-addressed caches. Our own small
 * implementation so the cache keys need no crypto library.
 */
#ifndef LAB_SHA256_H
#define LAB_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t total;
	unsigned char block[64];
	size_t used;
};

#define SHA256_HEX_LEN 64

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, unsigned char out[32]);
void sha256_final_hex(struct sha256 *c, char out[SHA256_HEX_LEN + 1]);
/* Hash a length-prefixed field, so that ("ab","c") and ("a","bc") differ. */
void sha256_field(struct sha256 *c, const char *tag, const void *data, size_t len);
void sha256_field_str(struct sha256 *c, const char *tag, const char *s);
/* Hash a whole file into @hex; returns 0, or -1 with errno set. */
int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1]);
void sha256_hex_of(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1]);

#endif
