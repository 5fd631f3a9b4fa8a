// SPDX-License-Identifier: GPL-2.0
#include "mbox.h"
#include "fsutil.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A "Key: value" mail header line. */
static int is_header_line(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && (isalnum((unsigned char)*p) || *p == '-'))
		p++;
	return p > s && p + 1 < end && p[0] == ':' && (p[1] == ' ' || p[1] == '\t');
}

static const char *line_end(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl : end;
}

/*
 * An mbox separator: "From " at the start of the buffer or after an empty
 * line, followed by a header line. Body lines that merely start with
 * "From " (mboxrd escapes most of them anyway) rarely satisfy both.
 */
static int is_separator(const char *buf, const char *s, const char *end)
{
	if (end - s < 5 || memcmp(s, "From ", 5))
		return 0;
	if (s != buf && !(s - buf >= 2 && s[-1] == '\n' && s[-2] == '\n'))
		return 0;
	const char *le = line_end(s, end);
	if (le == end)
		return 0;
	const char *next = le + 1;
	return is_header_line(next, line_end(next, end));
}

static char *header_value(const char *msg, const char *msg_end, const char *name)
{
	size_t nl = strlen(name);
	const char *s = msg;

	/* Skip the mbox "From " line. */
	if (msg_end - s >= 5 && !memcmp(s, "From ", 5))
		s = line_end(s, msg_end) + 1;
	while (s < msg_end) {
		const char *le = line_end(s, msg_end);
		if (le == s || (le - s == 1 && *s == '\r'))
			break;	/* end of headers */
		if ((size_t)(le - s) > nl && !strncasecmp(s, name, nl) && s[nl] == ':') {
			struct strbuf v = STRBUF_INIT;
			const char *p = s + nl + 1;
			for (;;) {
				while (p < le && (*p == ' ' || *p == '\t'))
					p++;
				const char *e = le;
				while (e > p && (e[-1] == '\r' || e[-1] == ' '))
					e--;
				if (v.len && e > p)
					sb_addc(&v, ' ');
				sb_add(&v, p, (size_t)(e - p));
				/* RFC 5322 folding: continuation lines start with whitespace. */
				if (le + 1 < msg_end && (le[1] == ' ' || le[1] == '\t')) {
					p = le + 1;
					le = line_end(p, msg_end);
					continue;
				}
				break;
			}
			return sb_detach(&v);
		}
		s = le + 1;
	}
	return NULL;
}

static int contains_diff(const char *s, const char *end)
{
	for (const char *p = s; p < end; p = line_end(p, end) + 1) {
		if (end - p >= 11 && !memcmp(p, "diff --git ", 11))
			return 1;
		if (end - p >= 4 && !memcmp(p, "--- ", 4)) {
			const char *n = line_end(p, end) + 1;
			if (end - n >= 4 && !memcmp(n, "+++ ", 4))
				return 1;
		}
		if (line_end(p, end) == end)
			break;
	}
	return 0;
}

/* "[PATCH 0/3]", "[RFC PATCH v2 00/12]": the numerator is all zeros. */
static int is_cover_subject(const char *subject)
{
	const char *b = subject ? strchr(subject, '[') : NULL;
	const char *e = b ? strchr(b, ']') : NULL;

	if (!b || !e)
		return 0;
	for (const char *p = b; p < e; p++) {
		if (*p != '0' || (p > b && isdigit((unsigned char)p[-1])))
			continue;
		const char *q = p;
		while (q < e && *q == '0')
			q++;
		if (q < e && *q == '/')
			return 1;
	}
	return 0;
}

static void add_message(struct patch_list *out, const char *file, int index,
			const char *s, const char *end)
{
	struct patch *p;

	/* Trim the blank lines that separate messages. */
	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end == s)
		return;
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	p = &out->v[out->n++];
	memset(p, 0, sizeof(*p));
	p->file = xstrdup(file);
	p->index = index;
	p->text = xasprintf("%.*s\n", (int)(end - s), s);
	p->has_headers = is_header_line(s, line_end(s, end)) ||
			 (end - s > 5 && !memcmp(s, "From ", 5));
	p->subject = p->has_headers ? header_value(s, end, "Subject") : NULL;
	if (p->subject && !*p->subject) {
		free(p->subject);
		p->subject = NULL;
	}
	p->has_diff = contains_diff(s, end);
	p->is_cover = !p->has_diff || is_cover_subject(p->subject);
}

void mbox_split_buffer(const char *file, const char *buf, size_t len, struct patch_list *out)
{
	const char *end = buf + len, *start = buf, *s = buf;
	int index = 0;

	while (s < end) {
		const char *le = line_end(s, end);
		if (s != start && is_separator(buf, s, end)) {
			add_message(out, file, ++index, start, s);
			start = s;
		}
		s = le + 1;
	}
	add_message(out, file, ++index, start, end);
}

int mbox_split(const char *path, struct patch_list *out, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	size_t before = out->n;

	if (read_file(path, &sb, 64 << 20)) {
		sb_addf(err, "%s: cannot read: %s", path, strerror(errno));
		sb_release(&sb);
		return -1;
	}
	mbox_split_buffer(path, sb_str(&sb), sb.len, out);
	sb_release(&sb);
	for (size_t i = before; i < out->n; i++)
		if (!out->v[i].is_cover)
			return 0;
	sb_addf(err, "%s: no patch found (expected an mbox or .patch file with a diff)", path);
	return -1;
}

void patch_list_free(struct patch_list *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->v[i].file);
		free(pl->v[i].subject);
		free(pl->v[i].text);
	}
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

char *patch_label(const struct patch *p)
{
	return xasprintf("\"%s\" (%s, message %d)", p->subject ? p->subject : "(no subject)",
			 p->file, p->index);
}
