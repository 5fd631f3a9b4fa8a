/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: no shared state; each call writes only the caller's strbuf
 * or FILE.
 *
 * Making untrusted strings safe for output. Patch subjects, metric names,
 * config values and anything a guest printed end up in reports; none of
 * them may inject markup, terminal escapes or broken UTF-8 into a mail.
 */
#ifndef LAB_ESCAPE_H
#define LAB_ESCAPE_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include "strbuf.h"
#include "utf8.h"

/*
 * Append @s escaped for XML and HTML alike, text and attribute values (in
 * either quotes): & < > " ' become entities, the apostrophe as &#39;, which
 * both languages accept. Invalid UTF-8, C0/C1 control characters (other
 * than tab and newline; XML 1.0 forbids most of them), DEL and bidi
 * overrides become U+FFFD, so what the reader sees shows that something was
 * there. NULL appends nothing. The one markup escaper: the HTML report and
 * its SVG, the libvirt domain XML, the JUnit file.
 */
void sb_add_xml(struct strbuf *sb, const char *s);

/*
 * Append @s for plain text (mail, terminal): valid UTF-8 printable
 * characters are kept; every control character (newline and tab included,
 * since one report line is one table row) and every invalid byte becomes '?'.
 */
void sb_add_text_safe(struct strbuf *sb, const char *s);
/*
 * @s as a URL path: every byte but the unreserved ones (RFC 3986: letters,
 * digits, "-._~") and ':' percent-encoded, and '/' too unless @keep_slash.
 * A '#', '?' or '%' in a folder name then stays part of the path.
 */
void sb_add_url_path(struct strbuf *sb, const char *s, int keep_slash);

/*
 * Same as sb_add_text_safe() but keeps newline and tab: for multi-line text
 * bound for a terminal (error messages, log and console tails). CRLF
 * becomes LF; ESC, a lone CR, backspace, C1 controls, bidi overrides and
 * invalid bytes become '?'.
 */
void sb_add_term_safe(struct strbuf *sb, const char *s);

/*
 * printf to @f (a terminal, usually) through sb_add_term_safe(): every
 * string a patch, a guest, a report file or lab.conf supplied reaches the
 * operator's terminal this way or through util.h's error()/warning()/info(),
 * which filter the same. Our own cursor control ("\r\033[K") is written
 * with fputs() beside it, never through it.
 */
void term_vprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void term_printf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Same as sb_add_text_safe() but keeps at most @width display columns
 * (one per code point) and marks a cut with "~". Returns the columns used.
 */
size_t sb_add_text_fit(struct strbuf *sb, const char *s, size_t width);

/* Display columns sb_add_text_safe() would produce (one per code point). */
size_t text_safe_width(const char *s);

/*
 * Append @s as one Go benchmark-format name component: ASCII letters,
 * digits and "_-.+,:" are kept, everything else (spaces, '/', '=', non-ASCII)
 * becomes '_', so benchstat parses the line as intended.
 */
void sb_add_bench_token(struct strbuf *sb, const char *s);

/*
 * Append @s (@len bytes) with every byte that is not part of a valid UTF-8
 * sequence replaced by U+FFFD. For text that may legitimately be in another
 * encoding (a Latin-1 patch subject, a console) and must still go into
 * JSON, which jansson would otherwise refuse (json_string() gives NULL).
 */
void sb_add_utf8_lossy(struct strbuf *sb, const char *s, size_t len);

/* json_string() of sb_add_utf8_lossy(@s): never NULL, whatever the bytes. */
json_t *json_string_lossy(const char *s);

#endif
