// SPDX-License-Identifier: GPL-2.0
/*
 * A mail's body decoded to text (mail_decode.h). We decode ourselves for
 * the same reasons mbox.c splits ourselves: the watch decides in process,
 * for every mail of a list, whether it carries a diff, and git mailinfo
 * (which decodes too) is a child per mail that would hand us files to
 * parse. The result is one text/plain 8bit mail, which git am applies as
 * it would the original and our splitter reads without knowing MIME.
 */
#include "mail_decode.h"
#include "mbox.h"
#include "util.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static const char *line_end(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl : end;
}

/* The body of the entity @s..@end: after its first empty line; NULL when none. */
static const char *body_of(const char *s, const char *end)
{
	while (s < end) {
		const char *le = line_end(s, end);

		if (le == s)
			return le + 1 <= end ? le + 1 : end;
		if (le == end)
			return NULL;
		s = le + 1;
	}
	return NULL;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* @v (a header value) is the MIME type @type, parameters or not. */
static int is_type(const char *v, const char *type)
{
	size_t n = strlen(type);

	v = skip_ws(v);
	return !strncasecmp(v, type, n) && (!v[n] || v[n] == ';' || v[n] == ' ' || v[n] == '\t');
}

/* A part that carries text a patch is made of; no Content-Type is text/plain. */
static int is_text_part(const char *ct)
{
	return !ct || is_type(ct, "text/plain") || is_type(ct, "text/x-patch") ||
	       is_type(ct, "text/x-diff");
}

/* Parameter @name of Content-Type value @ct ("boundary", "charset"); NULL when none. */
static char *ct_param(const char *ct, const char *name)
{
	size_t nl = strlen(name);

	for (const char *p = strchr(ct, ';'); p; p = strchr(p + 1, ';')) {
		const char *q = skip_ws(p + 1);

		if (strncasecmp(q, name, nl) || q[nl] != '=')
			continue;
		q += nl + 1;
		if (*q == '"') {
			const char *e = strchr(q + 1, '"');

			return e ? xstrndup(q + 1, (size_t)(e - q - 1)) : NULL;
		}
		return xstrndup(q, strcspn(q, "; \t"));
	}
	return NULL;
}

/* A charset we may write back into a header: a short token, else none. */
static char *charset_of(const char *ct)
{
	char *cs = ct ? ct_param(ct, "charset") : NULL;
	size_t len = cs ? strlen(cs) : 0;

	if (!len || len > 40 || strspn(cs, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "0123456789-_.:") != len) {
		free(cs);
		return NULL;
	}
	return cs;
}

char *mail_crlf_to_lf(const char *buf, size_t *len)
{
	char *out = xmalloc(*len + 1);
	size_t n = 0;

	for (size_t i = 0; i < *len; i++)
		if (!(buf[i] == '\r' && i + 1 < *len && buf[i + 1] == '\n'))
			out[n++] = buf[i];
	out[n] = '\0';
	*len = n;
	return out;
}

int mail_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int mail_b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* RFC 2045: characters outside the alphabet (line ends) are ignored. */
static void add_base64(struct strbuf *out, const char *s, const char *e)
{
	unsigned acc = 0;
	int bits = 0;

	for (; s < e; s++) {
		int v = mail_b64val((unsigned char)*s);

		if (*s == '=') {	/* padding: the quantum ends */
			acc = 0;
			bits = 0;
			continue;
		}
		if (v < 0)
			continue;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			sb_addc(out, (char)((acc >> bits) & 0xFF));
		}
	}
}

/*
 * Quoted-printable: "=XX" a byte, "=" at a line's end a soft break; any
 * other "=" is kept. Trailing white space is kept too (RFC 2045 says to
 * drop it, but a diff's context line of an empty line is one space, and
 * an encoder writes trailing space as "=20" anyway).
 */
static void add_qp(struct strbuf *out, const char *s, const char *e)
{
	for (; s < e; s++) {
		if (*s == '=') {
			const char *t = s + 1;

			while (t < e && (*t == ' ' || *t == '\t'))
				t++;
			if (t < e && *t == '\n') {
				s = t;
				continue;
			}
			if (e - s >= 3 && mail_hexval((unsigned char)s[1]) >= 0 &&
			    mail_hexval((unsigned char)s[2]) >= 0) {
				sb_addc(out, (char)(mail_hexval((unsigned char)s[1]) * 16 +
						    mail_hexval((unsigned char)s[2])));
				s += 2;
				continue;
			}
		}
		sb_addc(out, *s);
	}
}

static void add_decoded(struct strbuf *out, const char *cte, const char *s, const char *e)
{
	size_t before = out->len;

	if (cte && is_type(cte, "base64"))
		add_base64(out, s, e);
	else if (cte && is_type(cte, "quoted-printable"))
		add_qp(out, s, e);
	else
		sb_add(out, s, (size_t)(e - s));
	/* the next part starts on a line of its own */
	if (out->len > before && out->buf[out->len - 1] != '\n')
		sb_addc(out, '\n');
}

struct decoded {
	struct strbuf body;
	char *charset;		/* the first text part's */
	int parts;		/* text parts taken */
};

static void walk(struct decoded *d, const char *s, const char *e, int depth);

/* The parts of multipart body @b..@e, each walked. */
static void walk_parts(struct decoded *d, const char *boundary, const char *b, const char *e,
		       int depth)
{
	size_t bl = strlen(boundary);
	const char *part = NULL;

	for (const char *p = b; p < e;) {
		const char *le = line_end(p, e);

		if ((size_t)(le - p) >= 2 + bl && p[0] == '-' && p[1] == '-' &&
		    !memcmp(p + 2, boundary, bl)) {
			const char *rest = p + 2 + bl;
			int close = le - rest >= 2 && rest[0] == '-' && rest[1] == '-';

			/* the line end before a delimiter belongs to the delimiter */
			if (part)
				walk(d, part, p > part ? p - 1 : p, depth + 1);
			part = close ? NULL : le < e ? le + 1 : e;
			if (close)
				return;
		}
		p = le + 1;
	}
	if (part)	/* no closing delimiter: the last part runs to the end */
		walk(d, part, e, depth + 1);
}

static void walk(struct decoded *d, const char *s, const char *e, int depth)
{
	char *ct = mbox_header(s, (size_t)(e - s), "Content-Type");
	char *cte = mbox_header(s, (size_t)(e - s), "Content-Transfer-Encoding");
	const char *b = body_of(s, e);

	if (ct && !strncasecmp(skip_ws(ct), "multipart/", 10)) {
		char *boundary = ct_param(ct, "boundary");

		if (b && boundary && *boundary && depth < MAIL_DECODE_MAX_DEPTH)
			walk_parts(d, boundary, b, e, depth);
		free(boundary);
	} else if (b && is_text_part(ct)) {
		if (!d->parts++)
			d->charset = charset_of(ct);
		add_decoded(&d->body, cte, b, e);
	}
	free(ct);
	free(cte);
}

/* Whether header line @s (not a continuation) is one the decoded mail replaces. */
static int replaced_header(const char *s, const char *le)
{
	static const char *const names[] = { "content-type:", "content-transfer-encoding:" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if ((size_t)(le - s) >= strlen(names[i]) &&
		    !strncasecmp(s, names[i], strlen(names[i])))
			return 1;
	return 0;
}

int mail_decode(const char *msg, size_t len, struct strbuf *out)
{
	const char *end = msg + len, *s = msg, *b = body_of(msg, end);
	char *ct = mbox_header(msg, len, "Content-Type");
	char *cte = mbox_header(msg, len, "Content-Transfer-Encoding");
	struct decoded d = { STRBUF_INIT, NULL, 0 };
	int multipart = ct && !strncasecmp(skip_ws(ct), "multipart/", 10);
	int encoded = cte && (is_type(cte, "base64") || is_type(cte, "quoted-printable"));

	/* a single part needs decoding only when encoded; only text is ours to decode */
	if (b && (multipart || (encoded && is_text_part(ct))))
		walk(&d, msg, end, 0);
	free(ct);
	free(cte);
	if (!d.parts) {
		sb_release(&d.body);
		free(d.charset);
		return 0;
	}
	if (len >= 5 && !memcmp(msg, "From ", 5)) {
		const char *le = line_end(msg, end);

		sb_add(out, msg, (size_t)(le - msg + 1));
		s = le + 1;
	}
	for (int drop = 0; s < b - 1;) {
		const char *le = line_end(s, end);

		if (*s != ' ' && *s != '\t')
			drop = replaced_header(s, le);
		if (!drop)
			sb_add(out, s, (size_t)(le - s + 1));
		s = le + 1;
	}
	sb_adds(out, "Content-Type: text/plain");
	if (d.charset)
		sb_addf(out, "; charset=%s", d.charset);
	sb_adds(out, "\nContent-Transfer-Encoding: 8bit\n\n");
	sb_add(out, d.body.buf ? d.body.buf : "", d.body.len);
	sb_release(&d.body);
	free(d.charset);
	return 1;
}
