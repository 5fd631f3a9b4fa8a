/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not thread-safe on one strbuf; distinct strbufs may be used from any
 * thread.
 *
 * A growable, always NUL-terminated byte buffer (after git's strbuf).
 *
 * An output too large to hold whole (a report's 200 MB HTML page) streams
 * to a file descriptor, its sink: sb_set_sink(), then the renderer calls
 * sb_flush_point() where it may let go of what it appended, and the
 * writer ends with sb_sink_finish(). The rule for a renderer: between two
 * flush points it may read back or rewrite what it appended (measure a
 * column from sb->len, trim a line's trailing spaces, sb->buf[i] = ...);
 * across one it may not, because the bytes before it may be gone. So a
 * flush point goes where no caller up the stack holds a position in the
 * buffer: after a whole row, a whole section. Without a sink a flush
 * point does nothing, and every strbuf stays one string as before.
 */
#ifndef LAB_STRBUF_H
#define LAB_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "must_check.h"

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	/* The sink's descriptor + 1: 0 (STRBUF_INIT's) is none. */
	int sink;
	/* The first failed write's errno, 0 while none failed: sticky. */
	int sink_errno;
};

/* The sink's fields are left to zero: no sink. */
#define STRBUF_INIT { NULL, 0, 0, 0, 0 }
/* What the buffer holds before a flush point writes it to the sink. */
#define SB_SINK_THRESHOLD	((size_t)1 << 20)
/*
 * SB_SINK_THRESHOLD, but for tests: 0 writes at every flush point, which
 * shows a renderer reading back across one. Nothing else changes it.
 */
extern size_t sb_sink_threshold;

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

/*
 * Stream @sb to @fd (not closed here, the caller owns it). What @sb holds
 * already goes there at the next flush point or sb_sink_finish().
 */
void sb_set_sink(struct strbuf *sb, int fd);
/*
 * A place where the renderer holds no position in @sb (see above): with a
 * sink and more than sb_sink_threshold bytes held, write them all (again
 * after EINTR and short writes) and empty @sb. 0, or -1 once a write to
 * the sink failed: then and at every later call, which writes nothing
 * (the error is sb_sink_finish()'s to report, so a renderer may ignore
 * the result).
 */
LAB_MUST_CHECK
int sb_flush_point(struct strbuf *sb);
/*
 * Write what @sb still holds to its sink, and detach the sink (@sb is
 * empty, without one, afterwards). 0, or -1 with errno when this or any
 * earlier write to the sink failed. Without a sink: 0, @sb untouched.
 */
LAB_MUST_CHECK
int sb_sink_finish(struct strbuf *sb);

#endif
