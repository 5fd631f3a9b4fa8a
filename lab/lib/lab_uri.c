// SPDX-License-Identifier: GPL-2.0
/* libvirt URIs by identity (lab_uri.h). */
#include "lab_uri.h"
#include "strbuf.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct uri_parts {
	char *driver, *transport, *user, *host, *port, *path;
	struct strvec params;		/* "name=value", decoded */
};

static void parts_release(struct uri_parts *u)
{
	free(u->driver);
	free(u->transport);
	free(u->user);
	free(u->host);
	free(u->port);
	free(u->path);
	strvec_clear(&u->params);
}

static char *lower(const char *s, size_t n)
{
	char *r = xstrndup(s, n);

	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

static int hexval(char c)
{
	return isdigit((unsigned char)c) ? c - '0' :
	       isxdigit((unsigned char)c) ? tolower((unsigned char)c) - 'a' + 10 : -1;
}

/* %XX decoded (a malformed escape stays as written); '+' is a space in a parameter. */
static char *decode(const char *s, size_t n, int plus)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			sb_addc(&sb, (char)(hexval(s[i + 1]) << 4 | hexval(s[i + 2])));
			i += 2;
		} else {
			sb_addc(&sb, plus && s[i] == '+' ? ' ' : s[i]);
		}
	}
	return sb_detach(&sb);
}

static const char *const how_only[] = {
	"keyfile", "known_hosts", "known_hosts_verify", "no_verify", "no_tty", "sshauth",
	"pkipath", "tls_priority", "command", "netcat", "mode", "auth", NULL,
};

static void parse_query(const char *q, size_t n, struct strvec *out)
{
	size_t i = 0;

	while (i < n) {
		size_t len = strcspn(q + i, "&;");

		if (i + len > n)
			len = n - i;
		if (len) {
			char *kv = decode(q + i, len, 1);
			size_t klen = strcspn(kv, "=");
			int drop = 0;

			for (const char *const *h = how_only; *h; h++)
				if (strlen(*h) == klen && !strncasecmp(kv, *h, klen))
					drop = 1;
			if (!drop)
				strvec_push(out, kv);
			free(kv);
		}
		i += len + 1;
	}
	strvec_sort(out);
}

static char *clean_path(const char *p, size_t n)
{
	char *d = decode(p, n, 0), *w = d;

	for (const char *r = d; *r; r++)
		if (!(*r == '/' && w > d && w[-1] == '/'))
			*w++ = *r;
	*w = '\0';
	if (w - d > 1 && w[-1] == '/')
		w[-1] = '\0';
	return d;
}

static int parse(const char *uri, struct uri_parts *u)
{
	const char *sep = uri ? strstr(uri, "://") : NULL, *p, *auth_end, *at, *colon;
	size_t slen;

	memset(u, 0, sizeof(*u));
	if (!sep || sep == uri)
		return -1;
	slen = (size_t)(sep - uri);
	if (!isalpha((unsigned char)uri[0]) || strspn(uri, "abcdefghijklmnopqrstuvwxyz"
						     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-") < slen)
		return -1;
	const char *plus = memchr(uri, '+', slen);
	u->driver = lower(uri, plus ? (size_t)(plus - uri) : slen);
	u->transport = plus ? lower(plus + 1, slen - (size_t)(plus - uri) - 1) : xstrdup("");
	p = sep + 3;
	auth_end = p + strcspn(p, "/?#");
	at = memchr(p, '@', (size_t)(auth_end - p));
	if (at) {
		u->user = decode(p, (size_t)(at - p), 0);
		p = at + 1;
	}
	/* [v6 address]:port, or host:port */
	if (*p == '[' && (colon = memchr(p, ']', (size_t)(auth_end - p)))) {
		u->host = lower(p, (size_t)(colon - p) + 1);
		colon = colon[1] == ':' ? colon + 1 : NULL;
	} else {
		colon = memchr(p, ':', (size_t)(auth_end - p));
		u->host = lower(p, colon ? (size_t)(colon - p) : (size_t)(auth_end - p));
	}
	u->port = colon ? xstrndup(colon + 1, (size_t)(auth_end - colon - 1)) : xstrdup("");
	/* "box." is "box" */
	size_t hl = strlen(u->host);
	if (hl > 1 && u->host[hl - 1] == '.')
		u->host[hl - 1] = '\0';
	p = auth_end;
	u->path = clean_path(p, strcspn(p, "?#"));
	p += strcspn(p, "?#");
	if (*p == '?')
		parse_query(p + 1, strcspn(p + 1, "#"), &u->params);
	return 0;
}

static const char *default_port(const char *transport)
{
	if (!strcmp(transport, "ssh") || !strcmp(transport, "libssh") ||
	    !strcmp(transport, "libssh2"))
		return "22";
	if (!strcmp(transport, "tcp"))
		return "16509";
	if (!strcmp(transport, "tls"))
		return "16514";
	return NULL;
}

char *lab_uri_identity(const char *uri)
{
	struct uri_parts u;
	struct strbuf sb = STRBUF_INIT;
	const char *dport;

	if (parse(uri, &u))
		return NULL;
	/* the default transport: unix without a host, tls with one */
	if (!*u.host && !strcmp(u.transport, "unix")) {
		free(u.transport);
		u.transport = xstrdup("");
	} else if (*u.host && !*u.transport) {
		free(u.transport);
		u.transport = xstrdup("tls");
	}
	dport = default_port(u.transport);
	sb_adds(&sb, u.driver);
	if (*u.transport)
		sb_addf(&sb, "+%s", u.transport);
	sb_adds(&sb, "://");
	if (u.user && !strcmp(u.path, "/session"))
		sb_addf(&sb, "%s@", u.user);
	sb_adds(&sb, u.host);
	if (*u.port && !(dport && !strcmp(u.port, dport)))
		sb_addf(&sb, ":%s", u.port);
	sb_adds(&sb, u.path);
	for (size_t i = 0; i < u.params.n; i++)
		sb_addf(&sb, "%c%s", i ? '&' : '?', u.params.v[i]);
	parts_release(&u);
	return sb_detach(&sb);
}

int lab_uri_same(const char *a, const char *b)
{
	char *ia, *ib;
	int r;

	if (!a || !b)
		return 0;
	ia = lab_uri_identity(a);
	ib = lab_uri_identity(b);
	r = ia && ib ? !strcmp(ia, ib) : !ia && !ib && !strcmp(a, b);
	free(ia);
	free(ib);
	return r;
}

int lab_uri_is_embedded(const char *uri)
{
	struct uri_parts u;
	int r;

	if (parse(uri, &u))
		return 0;
	r = !strcmp(u.driver, "qemu") && (!*u.transport || !strcmp(u.transport, "unix")) &&
	    !*u.host && !strcmp(u.path, "/embed");
	parts_release(&u);
	return r;
}
