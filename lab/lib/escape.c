// SPDX-License-Identifier: GPL-2.0
#include "escape.h"
#include "util.h"

#include <string.h>

#define REPLACEMENT "\xEF\xBF\xBD"	/* U+FFFD */

void sb_add_utf8_lossy(struct strbuf *sb, const char *s, size_t len)
{
	for (;;) {
		size_t good = utf8_valid_len(s, len);

		sb_add(sb, s, good);
		if (good == len)
			return;
		sb_adds(sb, REPLACEMENT);
		s += good + 1;
		len -= good + 1;
	}
}

json_t *json_string_lossy(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *j;

	s = s ? s : "";
	sb_add_utf8_lossy(&sb, s, strlen(s));
	/* Valid UTF-8 now, and no NUL (strlen): jansson cannot refuse it. */
	j = json_stringn(sb.buf ? sb.buf : "", sb.len);
	sb_release(&sb);
	if (!j)
		die("out of memory");
	return j;
}

static int is_control(unsigned cp)
{
	return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) ||
		/* bidi overrides and isolates can reorder what a reader sees */
		(cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

void sb_add_xml(struct strbuf *sb, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len = strlen((const char *)s);

	while (len) {
		unsigned cp;
		size_t n = utf8_decode(s, len, &cp);

		if (!n) {
			sb_adds(sb, REPLACEMENT);
			s++, len--;
			continue;
		}
		switch (cp) {
		case '&': sb_adds(sb, "&amp;"); break;
		case '<': sb_adds(sb, "&lt;"); break;
		case '>': sb_adds(sb, "&gt;"); break;
		case '"': sb_adds(sb, "&quot;"); break;
		case '\'': sb_adds(sb, "&#39;"); break;
		case '\t': case '\n': sb_addc(sb, (char)cp); break;
		default:
			if (is_control(cp))
				sb_adds(sb, REPLACEMENT);
			else
				sb_add(sb, s, n);
		}
		s += n, len -= n;
	}
}

/*
 * The one filter for text: sb_add_text_fit(), sb_add_text_safe() and
 * sb_add_term_safe() differ only in the width and in whether line breaks
 * and tabs survive.
 */
static size_t add_text(struct strbuf *sb, const char *str, size_t width, int keep_lines)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len = strlen((const char *)s), cols = 0;
	size_t total = width == (size_t)-1 ? 0 : text_safe_width(str);

	while (len && cols < width) {
		unsigned cp;
		size_t n = utf8_decode(s, len, &cp);

		if (total > width && cols + 1 == width) {
			sb_addc(sb, '~');
			return width;
		}
		if (keep_lines && n && cp == '\r' && len > 1 && s[1] == '\n') {
			/* CRLF (a serial console's line end) is a line end, not a '?'. */
			s++, len--;
			continue;
		}
		if (keep_lines && n && (cp == '\n' || cp == '\t')) {
			sb_addc(sb, (char)cp);
		} else if (!n || is_control(cp)) {
			sb_addc(sb, '?');
			n = n ? n : 1;
		} else {
			sb_add(sb, s, n);
		}
		s += n, len -= n, cols++;
	}
	return cols;
}

size_t sb_add_text_fit(struct strbuf *sb, const char *s, size_t width)
{
	return add_text(sb, s, width, 0);
}

void sb_add_text_safe(struct strbuf *sb, const char *s)
{
	add_text(sb, s, (size_t)-1, 0);
}

void sb_add_term_safe(struct strbuf *sb, const char *s)
{
	add_text(sb, s, (size_t)-1, 1);
}

void term_vprintf(FILE *f, const char *fmt, va_list ap)
{
	struct strbuf raw = STRBUF_INIT, safe = STRBUF_INIT;

	sb_vaddf(&raw, fmt, ap);
	sb_add_term_safe(&safe, sb_str(&raw));
	fwrite(sb_str(&safe), 1, safe.len, f);
	sb_release(&raw);
	sb_release(&safe);
}

void term_printf(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	term_vprintf(f, fmt, ap);
	va_end(ap);
}

size_t text_safe_width(const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");
	size_t len = strlen((const char *)s), cols = 0;

	while (len) {
		unsigned cp;
		size_t n = utf8_decode(s, len, &cp);

		n = n ? n : 1;
		s += n, len -= n, cols++;
	}
	return cols;
}

void sb_add_bench_token(struct strbuf *sb, const char *str)
{
	const unsigned char *s = (const unsigned char *)(str ? str : "");

	if (!*s) {
		sb_addc(sb, '_');
		return;
	}
	for (; *s; s++) {
		unsigned char c = *s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("_-.+,:", c))
			sb_addc(sb, (char)c);
		else
			sb_addc(sb, '_');
	}
}

void sb_add_url_path(struct strbuf *sb, const char *s, int keep_slash)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    strchr("-._~:", c) || (keep_slash && c == '/'))
			sb_addc(sb, (char)c);
		else
			sb_addf(sb, "%%%02X", c);
	}
}
