/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: pure functions of their arguments.
 *
 * UTF-8 validity, the one host-side check: guest output, report files,
 * patch subjects and lab.conf are untrusted, and JSON (jansson) accepts
 * only valid UTF-8. Strict: overlong forms and surrogates are classic
 * filter bypasses and are refused, as are code points beyond U+10FFFF and
 * sequences cut short. (The guest programs carry their own copy in
 * workloads/lib/jsonl.c and guests/runner/: they link nothing of lab/.)
 */
#ifndef LAB_UTF8_H
#define LAB_UTF8_H

#include <stddef.h>

/*
 * Decode one UTF-8 sequence at @s (at most @len bytes, @len > 0). Returns
 * its length and stores the code point in *@cp, or returns 0 for an
 * invalid sequence (overlong, surrogate, beyond U+10FFFF, truncated).
 */
size_t utf8_decode(const unsigned char *s, size_t len, unsigned *cp);

/*
 * Bytes of @s (@len bytes) before the first invalid UTF-8 sequence: @len
 * when all of it is valid, else the offset of the first bad byte.
 */
size_t utf8_valid_len(const char *s, size_t len);

#endif
