// SPDX-License-Identifier: GPL-2.0
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* SHA-256 is in every libcrypto: a failure here is out of memory. */
static void check(int ok)
{
	if (!ok)
		die("libcrypto could not compute SHA-256 (out of memory?)");
}

void sha256_init(struct sha256 *c)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();

	check(md != NULL);
	check(EVP_DigestInit_ex(md, EVP_sha256(), NULL));
	c->md = md;
}

void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	check(EVP_DigestUpdate(c->md, data, len));
}

void sha256_final(struct sha256 *c, unsigned char out[SHA256_LEN])
{
	unsigned int n = 0;

	check(EVP_DigestFinal_ex(c->md, out, &n) && n == SHA256_LEN);
	sha256_release(c);
}

void sha256_release(struct sha256 *c)
{
	EVP_MD_CTX_free(c->md);
	c->md = NULL;
}

static void to_hex(const unsigned char d[SHA256_LEN], char out[SHA256_HEX_LEN + 1])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 0; i < SHA256_LEN; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[SHA256_HEX_LEN] = '\0';
}

void sha256_final_hex(struct sha256 *c, char out[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];

	sha256_final(c, d);
	to_hex(d, out);
}

void sha256_field(struct sha256 *c, const char *tag, const void *data, size_t len)
{
	char hdr[96];
	int n = snprintf(hdr, sizeof(hdr), "%s:%zu:", tag, len);

	sha256_update(c, hdr, (size_t)n);
	sha256_update(c, data, len);
}

void sha256_field_str(struct sha256 *c, const char *tag, const char *s)
{
	sha256_field(c, tag, s ? s : "", s ? strlen(s) : 0);
}

#define SHA256_FILE_BUF (1 << 16)

int sha256_file_hex(const char *path, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char *buf;	/* not static: worker threads hash files too */
	struct sha256 c;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	buf = xmalloc(SHA256_FILE_BUF);
	sha256_init(&c);
	while ((n = read(fd, buf, SHA256_FILE_BUF)) > 0)
		sha256_update(&c, buf, (size_t)n);
	free(buf);
	if (n < 0) {
		int e = errno;

		sha256_release(&c);
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	sha256_final_hex(&c, hex);
	return 0;
}

int sha256_fd_hex(int fd, unsigned long long len, char hex[SHA256_HEX_LEN + 1])
{
	size_t size = 1 << 16;
	char *buf = xmalloc(size);	/* not static: worker threads hash volumes */
	unsigned long long off = 0;
	struct sha256 c;
	ssize_t n = 0;

	sha256_init(&c);
	while (off < len) {
		size_t want = len - off < size ? (size_t)(len - off) : size;

		n = pread(fd, buf, want, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		sha256_update(&c, buf, (size_t)n);
		off += (unsigned long long)n;
	}
	free(buf);
	if (off < len) {
		int e = n < 0 ? errno : EIO;

		sha256_release(&c);
		errno = e;
		return -1;
	}
	sha256_final_hex(&c, hex);
	return 0;
}

void sha256_hex_of(const void *data, size_t len, char hex[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];
	unsigned int n = 0;

	check(EVP_Digest(data, len, d, &n, EVP_sha256(), NULL) && n == SHA256_LEN);
	to_hex(d, hex);
}

void hmac_sha256_init(struct hmac_sha256 *c, const void *key, size_t keylen)
{
	unsigned char k[64] = { 0 }, ikey[64];

	if (keylen > sizeof(k))
		check(EVP_Digest(key, keylen, k, NULL, EVP_sha256(), NULL));
	else if (keylen)
		memcpy(k, key, keylen);
	for (size_t i = 0; i < sizeof(k); i++) {
		ikey[i] = k[i] ^ 0x36;
		c->okey[i] = k[i] ^ 0x5c;
	}
	sha256_init(&c->inner);
	sha256_update(&c->inner, ikey, sizeof(ikey));
}

void hmac_sha256_update(struct hmac_sha256 *c, const void *data, size_t len)
{
	sha256_update(&c->inner, data, len);
}

void hmac_sha256_final_hex(struct hmac_sha256 *c, char out[SHA256_HEX_LEN + 1])
{
	unsigned char d[SHA256_LEN];
	struct sha256 outer;

	sha256_final(&c->inner, d);
	sha256_init(&outer);
	sha256_update(&outer, c->okey, sizeof(c->okey));
	sha256_update(&outer, d, sizeof(d));
	sha256_final_hex(&outer, out);
}
