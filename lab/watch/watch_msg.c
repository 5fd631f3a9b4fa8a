// SPDX-License-Identifier: GPL-2.0
/*
 * One list mail, parsed for `mglrulab watch`. The headers come through
 * mbox_header() (the same unfolding and RFC 2047 decoding as a series'
 * mbox); the subject's tag follows the kernel's conventions as b4 reads
 * them: "[RFC PATCH v3 02/10] title", "[PATCHv2 1/3]", "[PATCH v2] [1/3]",
 * other words in the brackets (a tree name, RESEND) ignored, a lone
 * "[PATCH]" is 1/1, "Re:" makes any mail a reply. Every string is scrubbed to valid UTF-8 (a list carries Latin-1
 * and worse) and every list is bounded, so a hostile mail costs at most
 * its own size.
 */
#include "watch_msg.h"
#include "mail_decode.h"
#include "mbox.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "utf8.h"

void watch_utf8_scrub(char *s)
{
	size_t len = strlen(s), at = 0;

	while (at < len) {
		size_t ok = utf8_valid_len(s + at, len - at);

		at += ok;
		if (at < len)
			s[at++] = '?';
	}
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* "Re:", "RE:", "Aw:", "Fwd:", "Fw:" at @s: the length, else 0. */
static size_t reply_prefix(const char *s)
{
	static const char *const prefixes[] = { "re:", "aw:", "fwd:", "fw:" };

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncasecmp(s, prefixes[i], strlen(prefixes[i])))
			return strlen(prefixes[i]);
	return 0;
}

/*
 * A version word at @v, "v3" or "v2.1": the number before the dot is the
 * version. (b4 0.12 takes only "v" and digits and reads "v2.1" as v1,
 * which would make a fixed-up v2 older than v2; "v2.1" is v2 to us.)
 */
static void version_word(const char *v, struct watch_tag *t, int *bad)
{
	char *end;
	long a = strtol(v + 1, &end, 10);

	if (*end == '.' && isdigit((unsigned char)end[1]))
		strtol(end + 1, &end, 10);
	if (*end || a < 1 || a > 1000)
		*bad = 1;
	else
		t->version = (int)a;
}

static int is_version_word(const char *w)
{
	return (w[0] == 'v' || w[0] == 'V') && isdigit((unsigned char)w[1]);
}

/*
 * One word of a bracket tag: "PATCH", "RFC", "v3", "2/10"; k and n above
 * @max_n become @max_n + 1 (a subject "[PATCH 1/999999999]" must cost no
 * more than one of max_patches + 1). As in b4, any word that starts with
 * "PATCH" is the patch word ("PATCHSET", "PATCHES"), and "PATCHv2" is
 * "PATCH v2" (both common on linux-mm).
 */
static void tag_word(const char *w, size_t len, long max_n, struct watch_tag *t, int *patch,
		     int *bad)
{
	char buf[32];
	long a, b;
	char *end;

	if (!len || len >= sizeof(buf))
		return;
	memcpy(buf, w, len);
	buf[len] = '\0';
	if (!strncasecmp(buf, "patch", 5)) {
		*patch = 1;
		if (is_version_word(buf + 5))
			version_word(buf + 5, t, bad);
	} else if (!strcasecmp(buf, "rfc")) {
		t->rfc = 1;
	} else if (is_version_word(buf)) {
		version_word(buf, t, bad);
	} else if (isdigit((unsigned char)buf[0]) && strchr(buf, '/')) {
		a = strtol(buf, &end, 10);
		if (*end != '/' || !isdigit((unsigned char)end[1]))
			return;
		b = strtol(end + 1, &end, 10);
		if (*end || b < 1 || a < 0 || a > b)
			*bad = 1;
		else
			t->k = (int)(a > max_n ? max_n + 1 : a), t->n = (int)(b > max_n ? max_n + 1 : b);
	}
}

int watch_subject_parse(const char *subject, long max_n, struct watch_tag *t)
{
	const char *s = skip_space(subject ? subject : "");
	int patch = 0, bad = 0;
	size_t pl;

	memset(t, 0, sizeof(*t));
	t->version = 1;
	if (max_n <= 0 || max_n > WATCH_MSG_MAX_N)
		max_n = WATCH_MSG_MAX_N;
	while ((pl = reply_prefix(s))) {
		t->is_reply = 1;
		s = skip_space(s + pl);
	}
	/*
	 * Leading bracket groups: "[PATCH v2 1/3]", "[LSF/MM] [PATCH]". A
	 * group before the one with PATCH is not the series' ("[TOPIC v7 3/4]
	 * [PATCH]" is a lone v1 patch, where b4 would read v7 3/4); a group
	 * after it is, as in b4: "[PATCH v2] [1/3]" is patch 1 of 3 of v2,
	 * "[PATCH] [v2]" a v2.
	 */
	while (*s == '[') {
		const char *e = strchr(s, ']');
		int this_patch = 0, this_bad = 0;
		struct watch_tag save = *t;

		if (!e)
			break;
		for (const char *w = s + 1; w < e;) {
			size_t len = strcspn(w, " \t,]");

			tag_word(w, len, max_n, t, &this_patch, &this_bad);
			w += len;
			w += strspn(w, " \t,");
		}
		if (!this_patch && !patch)	/* a group before the tag is not the series' */
			*t = save;
		patch |= this_patch;
		bad |= patch && this_bad;
		s = skip_space(e + 1);
		if (reply_prefix(s))	/* "[PATCH] Re: ..." is a reply posted as one */
			t->is_reply = 1;
	}
	if (patch && !t->n)
		t->k = t->n = 1;
	t->is_patch = patch && !bad && !t->is_reply;
	t->title = xstrdup(s);
	watch_utf8_scrub(t->title);
	return t->is_patch;
}

void watch_tag_release(struct watch_tag *t)
{
	free(t->title);
	t->title = NULL;
}

/* "<id@host>" -> "id@host"; a value without brackets is taken when it has no space. */
static char *msgid_of(const char *v)
{
	const char *b, *e;

	if (!v)
		return NULL;
	b = strchr(v, '<');
	e = b ? strchr(b, '>') : NULL;
	if (b && e && e > b + 1)
		v = b + 1;
	else if (b || strpbrk(skip_space(v), " \t") || !*skip_space(v))
		return NULL;
	else
		v = skip_space(v), e = v + strlen(v);
	for (const char *p = v; p < e; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '<')
			return NULL;
	if (e - v > 998)
		return NULL;
	return xstrndup(v, (size_t)(e - v));
}

/* Every "<...>" of a References: header, the last WATCH_MSG_MAX_REFS kept. */
static void references_of(const char *v, struct strvec *out)
{
	while (v && (v = strchr(v, '<'))) {
		const char *e = strchr(v, '>');
		char *tok, *id;

		if (!e)
			break;
		tok = xstrndup(v, (size_t)(e - v + 1));
		id = msgid_of(tok);
		free(tok);
		if (id) {
			if (out->n == WATCH_MSG_MAX_REFS) {
				free(out->v[0]);
				memmove(out->v, out->v + 1, (out->n - 1) * sizeof(*out->v));
				out->v[--out->n] = NULL;
			}
			strvec_push(out, id);
			free(id);
		}
		v = e + 1;
	}
}

static void add_path(struct watch_msg *m, const char *p, size_t len)
{
	char *s;

	if (!len || m->paths.n >= WATCH_MSG_MAX_PATHS || len > 4096)
		return;
	s = xstrndup(p, len);
	watch_utf8_scrub(s);
	for (size_t i = 0; i < m->paths.n; i++)
		if (!strcmp(m->paths.v[i], s)) {
			free(s);
			return;
		}
	strvec_push(&m->paths, s);
	free(s);
}

/* A review trailer of the mail's own text (quoted lines start with '>'). */
static int is_review_trailer(const char *l, size_t len)
{
	static const char *const keys[] = { "Reviewed-by:", "Acked-by:", "Tested-by:" };

	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (len > strlen(keys[i]) + 1 && !strncasecmp(l, keys[i], strlen(keys[i])))
			return 1;
	return 0;
}

/*
 * b4's "change-id: 20231201-topic-0123456789ab" (the value after blanks,
 * up to the next blank, as b4 reads it), at most 100 bytes of it, or NULL.
 */
static char *change_id(const char *s, const char *le)
{
	const char *e;
	char *id;

	while (s < le && (*s == ' ' || *s == '\t'))
		s++;
	for (e = s; e < le && !isspace((unsigned char)*e); e++)
		;
	if (e == s || e - s > 100)
		return NULL;
	id = xstrndup(s, (size_t)(e - s));
	watch_utf8_scrub(id);
	return id;
}

/*
 * The body's lines: the paths of its diff, base-commit:, review trailers;
 * the bytes of its "GIT binary patch" hunks (each from its marker to the
 * next "diff --git") into @binary.
 */
static void scan_body(struct watch_msg *m, const char *s, const char *end, size_t *binary)
{
	int in_binary = 0;

	*binary = 0;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t len = (size_t)(le - s);

		if (len > 13 && !memcmp(s, "diff --git ", 11))
			in_binary = 0;
		else if (len == 16 && !memcmp(s, "GIT binary patch", 16))
			in_binary = 1;
		if (in_binary)
			*binary += len + 1;
		if (len > 13 && !memcmp(s, "diff --git a/", 13)) {
			const char *b = memmem(s + 13, len - 13, " b/", 3);

			if (b) {
				add_path(m, s + 13, (size_t)(b - s - 13));
				add_path(m, b + 3, (size_t)(le - b - 3));
			}
		} else if (len > 6 && (!memcmp(s, "+++ b/", 6) || !memcmp(s, "--- a/", 6))) {
			size_t l = strcspn(s + 6, "\t\n");

			add_path(m, s + 6, l < len - 6 ? l : len - 6);
		} else if (!m->base_commit && len > 13 && !memcmp(s, "base-commit: ", 13)) {
			const char *h = s + 13;
			size_t hl = strspn(h, "0123456789abcdef");

			if (hl >= 7 && hl <= 64 && (h + hl == le || h[hl] == ' ' || h[hl] == '\r'))
				m->base_commit = xstrndup(h, hl);
		} else if (!m->change_id && len > 11 && !strncasecmp(s, "change-id:", 10)) {
			m->change_id = change_id(s + 10, le);
		} else if (m->trailers.n < 100 && is_review_trailer(s, len)) {
			char *t = xstrndup(s, len > 400 ? 400 : len);

			watch_utf8_scrub(t);
			strvec_push(&m->trailers, t);
			free(t);
		}
		s = le + 1;
	}
}

/* The first empty line ends the headers; the body follows it. */
static const char *body_of(const char *buf, const char *end)
{
	for (const char *s = buf; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));

		if (!nl)
			return end;
		if (nl == s)
			return nl + 1;
		s = nl + 1;
	}
	return end;
}

static char *scrubbed(char *s)
{
	if (s)
		watch_utf8_scrub(s);
	return s;
}

int watch_msg_parse(const char *buf, size_t len, long max_n, struct watch_msg *m,
		    struct strbuf *err)
{
	char *lf, *mid;
	size_t binary;

	memset(m, 0, sizeof(*m));
	if (len > WATCH_MSG_MAX_BYTES) {
		sb_addf(err, "%zu bytes, more than the %u a mail may have", len,
			WATCH_MSG_MAX_BYTES);
		return -1;
	}
	if (len && memchr(buf, '\0', len)) {
		sb_adds(err, "a NUL byte in the mail");
		return -1;
	}
	lf = mail_crlf_to_lf(buf, &len);
	/* a base64 or quoted-printable patch: the tests below read its text */
	struct strbuf dec = STRBUF_INIT;
	if (mail_decode(lf, len, &dec) > 0) {
		free(lf);
		len = dec.len;
		lf = sb_detach(&dec);
		if (memchr(lf, '\0', len)) {
			sb_adds(err, "a NUL byte in the mail's decoded text");
			free(lf);
			return -1;
		}
	}
	mid = mbox_header(lf, len, "Message-ID");
	m->message_id = msgid_of(mid);
	free(mid);
	if (!m->message_id) {
		sb_adds(err, "no Message-ID header of the form <id@host>");
		free(lf);
		return -1;
	}
	char *v = mbox_header(lf, len, "In-Reply-To");
	m->in_reply_to = msgid_of(v);
	free(v);
	v = mbox_header(lf, len, "References");
	references_of(v, &m->references);
	free(v);
	m->subject = scrubbed(mbox_header(lf, len, "Subject"));
	m->from = scrubbed(mbox_header(lf, len, "From"));
	watch_subject_parse(m->subject, max_n, &m->tag);
	m->has_diff = mbox_contains_diff(lf, len);
	scan_body(m, body_of(lf, lf + len), lf + len, &binary);
	if (binary > WATCH_MSG_MAX_BINARY_BYTES) {
		sb_addf(err, "%zu bytes of \"GIT binary patch\" hunks, more than the %u a patch "
			"from the list may carry", binary, WATCH_MSG_MAX_BINARY_BYTES);
		free(lf);
		watch_msg_release(m);
		return -1;
	}
	/* A mail without a diff is a cover letter at most. */
	if (m->tag.is_patch && m->tag.k && !m->has_diff)
		m->tag.is_patch = 0;
	free(lf);
	return 0;
}

void watch_msg_body(const void *raw, size_t len, struct strbuf *out)
{
	const char *s = raw ? raw : "", *end = s + (raw ? len : 0), *b = s;

	for (const char *p = s; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		if (!nl) {
			b = end;
			break;
		}
		if (nl == p || (nl == p + 1 && *p == '\r')) {
			b = nl + 1;
			break;
		}
		p = nl + 1;
	}
	for (const char *p = b; p < end; p++)
		if (!(*p == '\r' && p + 1 < end && p[1] == '\n'))
			sb_addc(out, *p);
}

void watch_msg_for_am(struct strbuf *mbox, const void *raw, size_t len)
{
	struct strbuf text = STRBUF_INIT, dec = STRBUF_INIT;
	const char *r = raw ? raw : "";

	if (len < 5 || memcmp(r, "From ", 5))
		sb_adds(&text, "From mglrulab-watch Mon Sep 17 00:00:00 2001\n");
	for (size_t i = 0; i < len; i++)
		if (!(r[i] == '\r' && i + 1 < len && r[i + 1] == '\n'))
			sb_addc(&text, r[i]);
	if (text.len && text.buf[text.len - 1] != '\n')
		sb_addc(&text, '\n');
	/*
	 * Decoded as watch_msg_parse() decoded it to find the diff: the
	 * splitter that reads series.mbox knows no MIME, and would take an
	 * encoded patch for a cover letter.
	 */
	if (mail_decode(text.buf, text.len, &dec) > 0) {
		sb_release(&text);
		text = dec;
	}
	if (mbox->len)
		sb_addc(mbox, '\n');
	mbox_quote_rd(mbox, text.buf);
	sb_release(&text);
}

void watch_msg_release(struct watch_msg *m)
{
	free(m->message_id);
	free(m->in_reply_to);
	strvec_clear(&m->references);
	free(m->subject);
	free(m->from);
	watch_tag_release(&m->tag);
	strvec_clear(&m->paths);
	free(m->base_commit);
	strvec_clear(&m->trailers);
	free(m->change_id);
	memset(m, 0, sizeof(*m));
}

int watch_path_matches(const char *path, const char *const *patterns, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t pl = strlen(patterns[i]);

		if (pl && patterns[i][pl - 1] == '/' ? !strncmp(path, patterns[i], pl) :
		    !fnmatch(patterns[i], path, 0))
			return 1;
	}
	return 0;
}
