/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not thread-safe on one strbuf; distinct strbufs may be used from any
 * thread.
 *
 * A growable, always NUL-terminated byte buffer (after git's strbuf).
 */
#ifndef LAB_STRBUF_H
#define LAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_grow(struct strbuf *sb, size_t extra);
void sb_add(struct strbuf *sb, const void *data, size_t len);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);
void sb_release(struct strbuf *sb);
/* Give the buffer away; the strbuf is empty afterwards. */
char *sb_detach(struct strbuf *sb);
/* Always-valid C string view (empty string when nothing was added). */
const char *sb_str(const struct strbuf *sb);
void sb_trim_trailing_newlines(struct strbuf *sb);

#endif
