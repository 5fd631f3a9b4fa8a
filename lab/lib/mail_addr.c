// SPDX-License-Identifier: GPL-2.0
/*
 * Mail address lists: parsed once where lab.conf is read, written into the
 * reply mail's From, To and Cc with only the display names encoded.
 */
#include "mail_addr.h"
#include "escape.h"
#include "utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters RFC 5322 reserves in a phrase: such a name is written quoted. */
#define SPECIALS	"()<>[]:;@\\,.\""

static const char *ordinal(size_t i, char *buf, size_t size)
{
	static const char *const suffix[] = { "th", "st", "nd", "rd" };
	size_t last = i % 10, teen = i % 100 >= 11 && i % 100 <= 13;

	snprintf(buf, size, "%zu%s", i, suffix[!teen && last <= 3 ? last : 0]);
	return buf;
}

/* user@domain: printable ASCII, no spaces, no specials but '.', one '@' inside. */
static const char *spec_problem(const char *s, size_t n)
{
	const char *at = memchr(s, '@', n);

	if (!n)
		return "no address";
	if (!at || at == s || at == s + n - 1 || memchr(at + 1, '@', s + n - at - 1))
		return "expected user@domain";
	for (size_t i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~' || (s[i] != '.' && s[i] != '@' && strchr(SPECIALS, s[i])))
			return "the address must be printable ASCII without spaces, quotes or brackets";
	return NULL;
}

/* A display name: valid UTF-8 without control characters or quotes. */
static const char *name_problem(const char *s, size_t n)
{
	if (utf8_valid_len(s, n) != n)
		return "the name is not valid UTF-8";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < ' ' || s[i] == 0x7f || s[i] == '"' || s[i] == '\\')
			return "the name holds a control character, a quote or a backslash";
	return NULL;
}

static size_t trim(const char **s, size_t n)
{
	while (n && **s == ' ') {
		(*s)++;
		n--;
	}
	while (n && (*s)[n - 1] == ' ')
		n--;
	return n;
}

/* One element of the list, @s of @n bytes, into @a: NULL or the problem. */
static const char *parse_one(const char *s, size_t n, struct mail_addr *a)
{
	const char *lt, *why;
	size_t nn;

	n = trim(&s, n);
	/* The last '<': a quoted name may hold one. */
	lt = memrchr(s, '<', n);
	if (!lt) {
		if ((why = spec_problem(s, n)))
			return why;
		a->spec = xstrndup(s, n);
		return NULL;
	}
	if (s[n - 1] != '>')
		return "expected Name <user@domain>";
	if ((why = spec_problem(lt + 1, (size_t)(s + n - 1 - lt - 1))))
		return why;
	nn = (size_t)(lt - s);
	nn = trim(&s, nn);
	if (nn >= 2 && s[0] == '"' && s[nn - 1] == '"') {
		s++;
		nn -= 2;
	}
	if ((why = name_problem(s, nn)))
		return why;
	a->spec = xstrndup(lt + 1, strcspn(lt + 1, ">"));
	a->name = nn ? xstrndup(s, nn) : NULL;
	return NULL;
}

int mail_addr_parse(const char *list, struct mail_addrs *out, struct strbuf *err)
{
	const char *p = list;

	memset(out, 0, sizeof(*out));
	for (;;) {
		size_t n = 0;
		int quoted = 0;
		const char *why;
		char nth[32];

		for (; p[n] && (quoted || p[n] != ','); n++)
			quoted ^= p[n] == '"';
		/* An empty element (a trailing comma, ", ,") is no address, and no error. */
		if (p[strspn(p, " ")] == ',' || (!p[strspn(p, " ")] && out->n)) {
			if (p[n] != ',')
				return 0;
			p += n + 1;
			continue;
		}
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		memset(&out->v[out->n], 0, sizeof(*out->v));
		why = quoted ? "a quote is not closed" : parse_one(p, n, &out->v[out->n]);
		out->n++;
		if (why) {
			sb_addf(err, "the %s address: %s", ordinal(out->n, nth, sizeof(nth)), why);
			return -1;
		}
		if (p[n] != ',')
			return 0;
		p += n + 1;	/* a comma: another address follows */
	}
}

void mail_addrs_release(struct mail_addrs *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->v[i].name);
		free(a->v[i].spec);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}

void mail_addr_release(struct mail_addr *a)
{
	free(a->name);
	free(a->spec);
	memset(a, 0, sizeof(*a));
}

int mail_addr_spec_ok(const char *spec)
{
	return spec && !spec_problem(spec, strlen(spec));
}

/* The display columns a salvaged name keeps: a name, not a paragraph. */
#define SALVAGED_NAME_WIDTH 64

/*
 * The length of the element @s starts with: up to a comma outside quotes
 * and angle brackets.
 */
static size_t element_len(const char *s)
{
	size_t n = 0;
	int quoted = 0, angle = 0;

	for (; s[n]; n++) {
		/* RFC 5322's quoted-pair: "a\" <x@y>, b" is one quoted name */
		if (quoted && s[n] == '\\' && s[n + 1])
			n++;
		else if (s[n] == '"' && !angle)
			quoted ^= 1;
		else if (!quoted && (s[n] == '<' || s[n] == '>'))
			angle = s[n] == '<';
		else if (!quoted && !angle && s[n] == ',')
			break;
	}
	return n;
}

/*
 * A display name from outside as safe text: control characters (CR and
 * LF among them) become spaces, quotes, backslashes and angle brackets go,
 * the rest passes sb_add_text_safe(); spaces collapse. NULL when empty.
 */
static char *salvage_name(const char *s, size_t n)
{
	struct strbuf raw = STRBUF_INIT, safe = STRBUF_INIT, out = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < ' ' || c == 0x7f)
			sb_addc(&raw, ' ');
		else if (!strchr("\"\\<>", c))
			sb_addc(&raw, (char)c);
	}
	sb_add_text_fit(&safe, sb_str(&raw), SALVAGED_NAME_WIDTH);
	for (const char *p = sb_str(&safe); *p; p++)
		if (*p != ' ' || (out.len && p[1] && p[1] != ' '))
			sb_addc(&out, *p);
	sb_release(&raw);
	sb_release(&safe);
	return out.len ? sb_detach(&out) : (sb_release(&out), NULL);
}

/* One element, @s of @n bytes: "Name <addr>", "<addr>" or "addr [(comment)]". */
static int salvage_one(const char *s, size_t n, struct mail_addr *out)
{
	const char *lt, *gt;
	size_t nn;

	memset(out, 0, sizeof(*out));
	n = trim(&s, n);
	/* the first '<' outside quotes: a quoted name may hold one */
	lt = NULL;
	for (size_t i = 0, quoted = 0; i < n && !lt; i++) {
		if (quoted && s[i] == '\\' && i + 1 < n) {
			i++;	/* a quoted-pair, as element_len() reads it */
			continue;
		}
		quoted ^= s[i] == '"';
		lt = !quoted && s[i] == '<' ? s + i : NULL;
	}
	if (!lt) {
		/* a bare address, perhaps with an old "(Name)" comment after it */
		n = strcspn(s, " \t") < n ? strcspn(s, " \t") : n;
		if (!n || spec_problem(s, n))
			return -1;
		out->spec = xstrndup(s, n);
		return 0;
	}
	gt = memchr(lt, '>', (size_t)(s + n - lt));
	if (!gt || spec_problem(lt + 1, (size_t)(gt - lt - 1)))
		return -1;
	out->spec = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	nn = trim(&s, (size_t)(lt - s));
	if (nn >= 2 && s[0] == '"' && s[nn - 1] == '"') {
		s++;
		nn -= 2;
	}
	out->name = salvage_name(s, nn);
	return 0;
}

int mail_addr_salvage(const char *value, struct mail_addr *out)
{
	const char *p = value ? value + strspn(value, ", ") : "";

	/* The first element only: a forged list adds no one. */
	return salvage_one(p, element_len(p), out);
}

void mail_addrs_salvage(const char *list, struct mail_addrs *out)
{
	memset(out, 0, sizeof(*out));
	for (const char *p = list ? list : ""; *p;) {
		size_t n = element_len(p);
		struct mail_addr a;

		if (!salvage_one(p, n, &a)) {
			out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
			out->v[out->n++] = a;
		}
		p += n + (p[n] == ',');
	}
}

static void base64(struct strbuf *sb, const unsigned char *p, size_t n)
{
	static const char b64[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;

		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		sb_addc(sb, b64[v >> 18 & 63]);
		sb_addc(sb, b64[v >> 12 & 63]);
		sb_addc(sb, i + 1 < n ? b64[v >> 6 & 63] : '=');
		sb_addc(sb, i + 2 < n ? b64[v & 63] : '=');
	}
}

void mail_encoded_words(struct strbuf *sb, const char *s, size_t *col, size_t width)
{
	size_t n = strlen(s), i = 0;

	while (i < n) {
		/* 12 characters of "=?UTF-8?B?" and "?=", 4 per 3 bytes, at most 75 in all. */
		size_t room = *col + 12 + 4 < width ? (width - *col - 12) / 4 * 3 : 0;
		size_t max = room < 45 ? room : 45, len = 0;

		if (max < 4 && *col > 1) {
			sb_adds(sb, "\n ");
			*col = 1;
			continue;
		}
		while (i + len < n) {
			size_t c = 1;

			while (i + len + c < n && ((unsigned char)s[i + len + c] & 0xc0) == 0x80)
				c++;
			if (len + c > max && len)
				break;
			len += c;
		}
		sb_adds(sb, "=?UTF-8?B?");
		base64(sb, (const unsigned char *)s + i, len);
		sb_adds(sb, "?=");
		*col += 12 + (len + 2) / 3 * 4;
		i += len;
		if (i < n) {
			sb_adds(sb, "\n ");
			*col = 1;
		}
	}
}

static int is_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s >= 0x80)
			return 0;
	return 1;
}

/* The width of @a as written when its name is ASCII (encoded names fold on their own). */
static size_t plain_width(const struct mail_addr *a)
{
	size_t w = strlen(a->spec);

	if (a->name)
		w += strlen(a->name) + 3 + 2 * (strpbrk(a->name, SPECIALS) != NULL);
	return w;
}

void mail_addr_header(struct strbuf *sb, const char *hname, const struct mail_addrs *a,
		      size_t width)
{
	size_t col = strlen(hname) + 2;

	sb_addf(sb, "%s: ", hname);
	for (size_t i = 0; i < a->n; i++) {
		const struct mail_addr *m = &a->v[i];
		int ascii = !m->name || is_ascii(m->name);

		if (i) {
			sb_addc(sb, ',');
			col++;
			if (!ascii || col + 1 + plain_width(m) > width) {
				sb_adds(sb, "\n");
				col = 0;
			}
			sb_addc(sb, ' ');
			col++;
		}
		if (m->name && ascii) {
			sb_addf(sb, strpbrk(m->name, SPECIALS) ? "\"%s\" <%s>" : "%s <%s>", m->name,
				m->spec);
			col += plain_width(m);
		} else if (m->name) {
			mail_encoded_words(sb, m->name, &col, width);
			/* Folding white space may stand between the name and <address>. */
			if (col + 3 + strlen(m->spec) > width) {
				sb_addc(sb, '\n');
				col = 0;
			}
			sb_addf(sb, " <%s>", m->spec);
			col += 3 + strlen(m->spec);
		} else {
			sb_adds(sb, m->spec);
			col += strlen(m->spec);
		}
	}
	sb_addc(sb, '\n');
}
