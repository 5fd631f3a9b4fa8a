// SPDX-License-Identifier: GPL-2.0
/*
 * Our own mbox splitter, not git mailsplit + git mailinfo. Decided on what
 * they do with git 2.39 on the CI machine (figures from a busy 2-core host,
 * so upper bounds):
 *
 * - git mailsplit takes ANY line that looks like "From x ... dd:dd ... year"
 *   as a message separator, with or without a blank line before it: the body
 *   line "From the numbers below, 12:30 09:00 2001" cut a message in two in
 *   our test, with and without --mboxrd. That is the very bug we must not
 *   have, and it is mailsplit's design (mboxo heritage), not an option.
 * - Cost is no argument either way: one git mailinfo is about 8 ms here
 *   (100 runs took 0.84 s), next to minutes of kernel build. But mailsplit
 *   writes a file per message into a directory and mailinfo two files per
 *   message (msg, patch), so we would trade 150 lines for temporary
 *   directories, one child per message and parsing their output.
 * - mailinfo's output lacks what we need: it decodes RFC 2047 subjects and
 *   splits message from diff (an empty patch file is a cover letter), but it
 *   passes a NUL through silently and does not print the Message-Id.
 * - In process, the splitter is unit-tested and fuzzed (tests/fuzz/) without
 *   git; a child process can be neither.
 *
 * git am still runs mailsplit on each message we hand it (one per file).
 * p->text is the message as its author wrote it (quoting undone), and
 * mbox_quote_rd() quotes it again for `git am --patch-format=mboxrd`:
 * every line after the first that starts with ">*From " gains a '>',
 * which mailsplit --mboxrd takes off again. No line git reads then starts
 * with "From ", so mailsplit cannot cut the message ("Patch is empty")
 * and every body line reaches the commit byte for byte. (Before, such a
 * line was left quoted when it came quoted, and cut the message when it
 * came unquoted, as "From the numbers below, 12:30 09:00 2001" does in a
 * git format-patch file.)
 *
 * The rules (docs/security.md, "Patch series (mboxes)"):
 * - a message starts at the start of the file, or at a "From " line that
 *   follows an empty line, looks like a From_ line ("From <addr-or-hash>
 *   <asctime date>") and is followed by a header line ("Name:value", a
 *   space after the colon or not);
 * - mboxrd quoting: a line ^>+"From " loses one '>' (correct for mboxo too);
 * - a file whose first line ends in CRLF is CRLF throughout: CRLF -> LF;
 * - a base64 or quoted-printable body (or text part) is decoded
 *   (mail_decode()) before the diff is looked for and git am reads it;
 * - a NUL byte makes the message unusable (mbox_split() names file and line);
 * - RFC 2047 encoded words in Subject: (q and b; UTF-8, US-ASCII, Latin-1)
 *   are decoded, so "[PATCH 0/N]" cover letters written that way are found;
 *   a control character in a header value (decoded "=0A" included) becomes
 *   a space: a subject is one line everywhere.
 */
#include "mbox.h"
#include "mail_decode.h"
#include "escape.h"
#include "fsutil.h"
#include "mail_addr.h"
#include "util.h"
#include "xjson.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * A mail header line, "Name:value": RFC 5322 puts no space after the colon
 * (git send-email's "X-Mailer:git-send-email 2.39.5" is real), and the
 * value may be empty, folded onto the next line ("Message-ID:\n <id>").
 * Requiring ": " merged such a mail into the one before it. The From_ line
 * before it is what keeps prose ("Note:x") from starting a message.
 */
static int is_header_line(const char *s, const char *end)
{
	const char *p = s;

	while (p < end && (isalnum((unsigned char)*p) || *p == '-'))
		p++;
	return p > s && p < end && p[0] == ':';
}

static const char *line_end(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));

	return nl ? nl : end;
}

static int span(const char **p, const char *end, int (*cls)(int), int min, int max)
{
	int n = 0;

	while (*p < end && n < max && cls((unsigned char)**p))
		(*p)++, n++;
	return n >= min;
}

static int is_space_char(int c)
{
	return c == ' ';
}

/*
 * "From <addr-or-hash> <date>", the date as asctime() writes it:
 * "Mon Sep 17 00:00:00 2001" (mutt, git format-patch, lore all do).
 * Prose rarely has a weekday, a month and a time in that order.
 */
static int is_from_line(const char *s, const char *le)
{
	const char *p = s + 5;

	if (le - s < 5 || memcmp(s, "From ", 5))
		return 0;
	while (p < le && *p != ' ')
		p++;
	if (p == s + 5)
		return 0;
	return span(&p, le, is_space_char, 1, 64) &&
	       span(&p, le, isalpha, 3, 3) && span(&p, le, is_space_char, 1, 1) &&
	       span(&p, le, isalpha, 3, 3) && span(&p, le, is_space_char, 1, 2) &&
	       span(&p, le, isdigit, 1, 2) && span(&p, le, is_space_char, 1, 1) &&
	       span(&p, le, isdigit, 2, 2) && p < le && *p++ == ':' &&
	       span(&p, le, isdigit, 2, 2);
}

/* A message separator: see the rules at the top. */
static int is_separator(const char *buf, const char *s, const char *end)
{
	const char *le = line_end(s, end);

	if (s != buf && !(s - buf >= 2 && s[-1] == '\n' && s[-2] == '\n'))
		return 0;
	if (!is_from_line(s, le) || le == end)
		return 0;
	return is_header_line(le + 1, line_end(le + 1, end));
}

/* Append the decoded bytes of one encoded word; -1 if it is malformed. */
static int decode_word(struct strbuf *out, char enc, const char *s, const char *e)
{
	if (enc == 'q' || enc == 'Q') {
		for (; s < e; s++) {
			if (*s == '_') {
				sb_addc(out, ' ');
			} else if (*s == '=') {
				if (e - s < 3 || mail_hexval((unsigned char)s[1]) < 0 ||
				    mail_hexval((unsigned char)s[2]) < 0)
					return -1;
				sb_addc(out, (char)(mail_hexval((unsigned char)s[1]) * 16 +
						    mail_hexval((unsigned char)s[2])));
				s += 2;
			} else {
				sb_addc(out, *s);
			}
		}
		return 0;
	}
	if (enc != 'b' && enc != 'B')
		return -1;
	unsigned acc = 0;
	int bits = 0;
	for (; s < e && *s != '='; s++) {
		int v = mail_b64val((unsigned char)*s);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			sb_addc(out, (char)((acc >> bits) & 0xFF));
		}
	}
	return 0;
}

/* Latin-1 bytes as UTF-8. */
static void add_latin1(struct strbuf *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			sb_addc(out, (char)c);
		} else {
			sb_addc(out, (char)(0xC0 | (c >> 6)));
			sb_addc(out, (char)(0x80 | (c & 0x3F)));
		}
	}
}

/*
 * One "=?charset?enc?text?=" at @s: on success append its decoded text and
 * return the byte after it, else NULL (then the word is kept as it is).
 */
static const char *encoded_word(struct strbuf *out, const char *s)
{
	const char *cs = s + 2, *q1 = strchr(cs, '?');

	if (!q1 || !q1[1] || q1[2] != '?')
		return NULL;
	const char *text = q1 + 3, *close = strstr(text, "?=");
	if (!close || memchr(text, ' ', (size_t)(close - text)))
		return NULL;
	/* RFC 2231 adds "*language" to the charset. */
	size_t cslen = strcspn(cs, "*?");
	int latin1 = (cslen == 10 && !strncasecmp(cs, "iso-8859-1", 10)) ||
		     (cslen == 6 && !strncasecmp(cs, "latin1", 6));
	if (!latin1 && !(cslen == 5 && !strncasecmp(cs, "utf-8", 5)) &&
	    !(cslen == 8 && !strncasecmp(cs, "us-ascii", 8)))
		return NULL;
	struct strbuf raw = STRBUF_INIT;
	const char *next = NULL;
	if (!decode_word(&raw, q1[1], text, close)) {
		if (latin1)
			add_latin1(out, raw.buf ? raw.buf : "", raw.len);
		else
			sb_add(out, raw.buf ? raw.buf : "", raw.len);
		next = close + 2;
	}
	sb_release(&raw);
	return next;
}

/* RFC 2047: decode the encoded words of an unfolded header value. */
static char *rfc2047_decode(const char *s)
{
	struct strbuf out = STRBUF_INIT;
	int after_word = 0;

	while (*s) {
		const char *next = s[0] == '=' && s[1] == '?' ? encoded_word(&out, s) : NULL;
		if (next) {
			s = next;
			after_word = 1;
			continue;
		}
		/* White space between two encoded words is not part of the text. */
		if (after_word && (*s == ' ' || *s == '\t')) {
			const char *w = s + strspn(s, " \t");
			next = w[0] == '=' && w[1] == '?' ? encoded_word(&out, w) : NULL;
			if (next) {
				s = next;
				continue;
			}
		}
		after_word = 0;
		sb_addc(&out, *s++);
	}
	return sb_detach(&out);
}

/*
 * A header value is one line: every control character in it, decoded
 * ("=?utf-8?q?a=0Ab?=", Latin-1's NEL "=85") or raw (a tab, a stray CR,
 * ESC), becomes a space: C0, DEL, and C1 (U+0080-U+009F, the two bytes
 * C2 80-9F in UTF-8, one space for both). Other bytes stay as they are.
 */
static void one_line(char *s)
{
	char *w = s;

	for (const unsigned char *r = (const unsigned char *)s; *r; r++) {
		if (r[0] == 0xC2 && r[1] >= 0x80 && r[1] <= 0x9F) {
			*w++ = ' ';
			r++;
		} else {
			*w++ = *r < 0x20 || *r == 0x7F ? ' ' : (char)*r;
		}
	}
	*w = '\0';
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
		if (le == s)
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
			char *raw = sb_detach(&v), *dec = rfc2047_decode(raw);
			free(raw);
			one_line(dec);
			return dec;
		}
		s = le + 1;
	}
	return NULL;
}

char *mbox_header(const char *msg, size_t len, const char *name)
{
	return header_value(msg, msg + len, name);
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

int mbox_contains_diff(const char *msg, size_t len)
{
	return contains_diff(msg, msg + len);
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

/* The message text with mboxrd quoting undone (see the top of the file). */
static void unquote(struct strbuf *out, const char *s, const char *end)
{
	for (const char *p = s; p < end;) {
		const char *le = line_end(p, end);
		size_t len = (size_t)(le - p), q = 0;

		while (q < len && p[q] == '>')
			q++;

		if (p != s && q && q < len && len - q >= 5 && !memcmp(p + q, "From ", 5))
			p++, len--;
		sb_add(out, p, len);
		sb_addc(out, '\n');
		p = le + 1;
	}
}

void mbox_quote_rd(struct strbuf *out, const char *text)
{
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, "\n"), q = strspn(p, ">");

		/* The first line is the message's own From_ line (or a header). */
		if (p != text && !strncmp(p + q, "From ", 5))
			sb_addc(out, '>');
		if (p[len] == '\n')
			len++;
		sb_add(out, p, len);
		p += len;
	}
}

/* @index counts the messages added; blank space before the first is none. */
static void add_message(struct patch_list *out, const char *file, int *index,
			const char *buf, const char *s, const char *end)
{
	struct patch *p;
	struct strbuf text = STRBUF_INIT, dec = STRBUF_INIT;

	/* Trim the blank lines that separate messages. */
	while (end > s && end[-1] == '\n')
		end--;
	if (end == s)
		return;
	ALLOC_GROW(out->v, out->n + 1, out->alloc);
	p = &out->v[out->n++];
	memset(p, 0, sizeof(*p));
	p->file = xstrdup(file);
	p->index = ++*index;
	unquote(&text, s, end);
	/*
	 * A patch sent base64 or quoted-printable (inline, or a multipart
	 * mail's text/x-patch part) has no diff in its raw text: read as
	 * is, it was a "cover letter" and left out of git am. Decoded, it is
	 * the patch git am would read; headers and the From_ line are kept.
	 */
	if (mail_decode(text.buf, text.len, &dec) > 0) {
		sb_release(&text);
		text = dec;
	}
	p->text = sb_detach(&text);
	const char *nul = memchr(s, '\0', (size_t)(end - s));
	if (nul) {
		p->nul_line = 1;
		for (const char *c = buf; c < nul; c++)
			p->nul_line += *c == '\n';
	}
	p->has_headers = is_header_line(s, line_end(s, end)) ||
			 (end - s > 5 && !memcmp(s, "From ", 5));
	p->subject = p->has_headers ? header_value(s, end, "Subject") : NULL;
	if (p->subject && !*p->subject) {
		free(p->subject);
		p->subject = NULL;
	}
	p->message_id = p->has_headers ? header_value(s, end, "Message-Id") : NULL;
	if (p->message_id && !*p->message_id) {
		free(p->message_id);
		p->message_id = NULL;
	}
	p->has_diff = contains_diff(p->text, p->text + strlen(p->text));
	p->is_cover = !p->has_diff || is_cover_subject(p->subject);
}

void mbox_split_buffer(const char *file, const char *buf, size_t len, struct patch_list *out)
{
	const char *first_nl = memchr(buf, '\n', len);
	char *lf = NULL;

	if (first_nl && first_nl > buf && first_nl[-1] == '\r')
		buf = lf = mail_crlf_to_lf(buf, &len);

	const char *end = buf + len, *start = buf, *s = buf;
	int index = 0;

	while (s < end) {
		const char *le = line_end(s, end);
		if (s != start && is_separator(buf, s, end)) {
			add_message(out, file, &index, buf, start, s);
			start = s;
		}
		s = le + 1;
	}
	add_message(out, file, &index, buf, start, end);
	free(lf);
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
	mbox_split_buffer(path, sb.buf ? sb.buf : "", sb.len, out);
	sb_release(&sb);
	for (size_t i = before; i < out->n; i++) {
		if (out->v[i].nul_line) {
			sb_addf(err, "%s:%d: message %d contains a NUL byte (expected text: a mail"
				" or a diff)", path, out->v[i].nul_line, out->v[i].index);
			return -1;
		}
	}
	for (size_t i = before; i < out->n; i++)
		if (!out->v[i].is_cover)
			return 0;
	sb_addf(err, "%s: no patch found (expected an mbox or .patch file with a diff)", path);
	return -1;
}

void patch_list_release(struct patch_list *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		free(pl->v[i].file);
		free(pl->v[i].subject);
		free(pl->v[i].message_id);
		free(pl->v[i].text);
	}
	free(pl->v);
	memset(pl, 0, sizeof(*pl));
}

char *patch_label(const struct patch *p)
{
	struct strbuf sb = STRBUF_INIT;

	/* Subjects and file names go to the terminal: no escapes through. */
	sb_addc(&sb, '"');
	sb_add_text_safe(&sb, p->subject ? p->subject : "(no subject)");
	sb_adds(&sb, "\" (");
	sb_add_text_safe(&sb, p->file);
	sb_addf(&sb, ", message %d)", p->index);
	return sb_detach(&sb);
}

/* The first cover letter of @pl that carries a Message-Id or a subject. */
/*
 * The series' cover letter: a mail whose subject says [PATCH 0/N]. A mail
 * without a diff is skipped like one when the series is applied, but in a
 * thread saved from lore it may be a reviewer's reply: the reply mail must
 * not thread under that, so without a 0/N subject there is no cover (and
 * the reply goes under the first patch).
 */
static const struct patch *first_cover(const struct patch_list *pl)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->v[i].is_cover && pl->v[i].has_headers && pl->v[i].subject &&
		    is_cover_subject(pl->v[i].subject))
			return &pl->v[i];
	return NULL;
}

/*
 * The To and Cc of @msg (the cover letter, else the first patch), where
 * the series was posted, so that a reply mail can Cc the list; NULL when
 * @msg has neither.
 */
static char *posted_to(const struct patch *msg)
{
	struct strbuf sb = STRBUF_INIT;
	const char *names[] = { "To", "Cc" };

	if (!msg || !msg->has_headers || !msg->text)
		return NULL;
	for (size_t i = 0; i < 2; i++) {
		char *v = mbox_header(msg->text, strlen(msg->text), names[i]);

		if (v && *v)
			sb_addf(&sb, "%s%s", sb.len ? ", " : "", v);
		free(v);
	}
	return sb.len ? sb_detach(&sb) : (sb_release(&sb), NULL);
}

/*
 * The From of @msg (the cover letter, else the first patch), the reply
 * mail's To, into @t. Salvaged (mail_addr_salvage()): the From is the
 * sender's to write, so a forged one (a second address, a CR/LF, brackets
 * in the name) records one address and a plain name, or nothing.
 */
static void series_author(const struct patch *msg, struct mbox_thread *t)
{
	struct mail_addr a;
	char *from;

	if (!msg || !msg->has_headers || !msg->text)
		return;
	from = mbox_header(msg->text, strlen(msg->text), "From");
	if (!mail_addr_salvage(from, &a)) {
		t->has_author = 1;
		t->author_name = a.name ? xstrdup(a.name) : NULL;
		t->author_address = xstrdup(a.spec);
		mail_addr_release(&a);
	}
	free(from);
}

void mbox_thread(const struct patch_list *pl, struct mbox_thread *t)
{
	const struct patch *cover = first_cover(pl), *first = NULL;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < pl->n && !first; i++)
		if (!pl->v[i].is_cover)
			first = &pl->v[i];
	t->posted_to = posted_to(cover ? cover : first);
	series_author(cover ? cover : first, t);
	t->message_ids = xcalloc(pl->n + 1, sizeof(*t->message_ids));
	for (size_t i = 0; i < pl->n; i++)
		if (!pl->v[i].is_cover)
			t->message_ids[t->n++] = pl->v[i].message_id;
	if (!cover)
		return;
	t->has_cover = 1;
	t->cover_subject = cover->subject;
	t->cover_message_id = cover->message_id;
}

void mbox_thread_release(struct mbox_thread *t)
{
	free(t->posted_to);
	free(t->author_name);
	free(t->author_address);
	free(t->message_ids);
	memset(t, 0, sizeof(*t));
}

/* A string of @t's as session.json holds it, or nothing for NULL. */
static void set_lossy(json_t *obj, const char *key, const char *s)
{
	if (s)
		json_object_set_new(obj, key, json_string_lossy(s));
}

void mbox_thread_json(const struct patch_list *pl, json_t *kernel, json_t *series)
{
	struct mbox_thread t;

	mbox_thread(pl, &t);
	set_lossy(kernel, "posted_to", t.posted_to);
	if (t.has_author)
		json_object_set_new(kernel, "series_author",
				    xjson_pack("{s:s?, s:s}", "name", t.author_name,
					       "address", t.author_address));
	/* A prefix kernel (NAME@K) applied only the first K of them. */
	for (size_t k = 0; k < t.n && k < json_array_size(series); k++)
		set_lossy(json_array_get(series, k), "message_id", t.message_ids[k]);
	if (t.has_cover) {
		json_t *c = json_object();

		json_object_set_new(kernel, "cover", c);
		set_lossy(c, "subject", t.cover_subject);
		set_lossy(c, "message_id", t.cover_message_id);
	}
	mbox_thread_release(&t);
}
