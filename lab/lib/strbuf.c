// SPDX-License-Identifier: GPL-2.0
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sb_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < sb->len + extra + 1)
		n *= 2;
	sb->buf = xrealloc(sb->buf, n);
	sb->alloc = n;
}

void sb_add(struct strbuf *sb, const void *data, size_t len)
{
	sb_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_addc(struct strbuf *sb, char c)
{
	sb_add(sb, &c, 1);
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		die("invalid format string");
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

void sb_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

char *sb_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");

	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return s;
}

const char *sb_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

void sb_trim_trailing_newlines(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		sb->buf[--sb->len] = '\0';
}

size_t sb_sink_threshold = SB_SINK_THRESHOLD;

void sb_set_sink(struct strbuf *sb, int fd)
{
	sb->sink = fd + 1;
	sb->sink_errno = 0;
}

/*
 * Write all @sb holds to the sink and empty it. A failure is remembered,
 * and what is held or added afterwards is dropped: it can never be
 * written, and a renderer carrying on must not grow @sb to the whole
 * output.
 */
static int sink_write(struct strbuf *sb)
{
	const char *p = sb->buf;
	size_t left = sb->len;

	while (left && !sb->sink_errno) {
		ssize_t n = write(sb->sink - 1, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			p += n;
			left -= (size_t)n;
		} else {
			/* 0 for a non-empty write() says nothing: call it an I/O error. */
			sb->sink_errno = n < 0 ? errno : EIO;
		}
	}
	sb_reset(sb);
	return sb->sink_errno ? -1 : 0;
}

int sb_flush_point(struct strbuf *sb)
{
	if (!sb->sink)
		return 0;
	if (sb->sink_errno || sb->len > sb_sink_threshold)
		return sink_write(sb);
	return 0;
}

int sb_sink_finish(struct strbuf *sb)
{
	int r, e;

	if (!sb->sink)
		return 0;
	r = sink_write(sb);
	e = sb->sink_errno;
	sb->sink = 0;
	sb->sink_errno = 0;
	if (r)
		errno = e;
	return r;
}
