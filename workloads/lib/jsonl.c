// SPDX-License-Identifier: GPL-2.0
#include "jsonl.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void jl_grow(struct jl *j, size_t extra)
{
	size_t need = j->len + extra + 1;

	if (need <= j->alloc)
		return;
	j->alloc = need < 256 ? 256 : need + need / 2;
	j->buf = realloc(j->buf, j->alloc);
	if (!j->buf) {
		/* Nothing useful can be said on stdout without memory. */
		static const char msg[] = "{\"type\":\"error\",\"reason\":\"out of memory\"}\n";
		ssize_t r = write(1, msg, sizeof(msg) - 1);
		(void)r;
		_exit(WL_EXIT_FAIL);
	}
}

static void jl_add(struct jl *j, const char *s, size_t n)
{
	jl_grow(j, n);
	memcpy(j->buf + j->len, s, n);
	j->len += n;
	j->buf[j->len] = '\0';
}

static void jl_addf(struct jl *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void jl_addf(struct jl *j, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		jl_add(j, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* Length of a valid UTF-8 sequence at @s (at most @n bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void jl_escape(struct jl *j, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	jl_grow(j, n + 2);
	jl_add(j, "\"", 1);
	while (i < n) {
		unsigned char c = s[i];
		size_t l;

		switch (c) {
		case '"': jl_add(j, "\\\"", 2); i++; continue;
		case '\\': jl_add(j, "\\\\", 2); i++; continue;
		case '\n': jl_add(j, "\\n", 2); i++; continue;
		case '\t': jl_add(j, "\\t", 2); i++; continue;
		case '\r': jl_add(j, "\\r", 2); i++; continue;
		}
		if (c == 0) {
			/* jansson (the host's reader) refuses \u0000 by default. */
			jl_add(j, "\\ufffd", 6);
			i++;
			continue;
		}
		if (c < 0x20 || c == 0x7f) {
			jl_addf(j, "\\u%04x", c);
			i++;
			continue;
		}
		l = utf8_seq(s + i, n - i);
		if (!l) {
			/* Guest text is not trusted to be UTF-8: keep the line valid. */
			jl_add(j, "\\ufffd", 6);
			i++;
			continue;
		}
		jl_add(j, (const char *)s + i, l);
		i += l;
	}
	jl_add(j, "\"", 1);
}

static void jl_key(struct jl *j, const char *key)
{
	jl_add(j, ",", 1);
	jl_escape(j, key, strlen(key));
	jl_add(j, ":", 1);
	j->nfields++;
}

void jl_begin(struct jl *j, const char *type)
{
	j->buf = NULL;
	j->len = j->alloc = 0;
	j->nfields = 0;
	jl_add(j, "{\"type\":", 8);
	jl_escape(j, type, strlen(type));
}

void jl_str(struct jl *j, const char *key, const char *val)
{
	jl_strn(j, key, val ? val : "", val ? strlen(val) : 0);
}

void jl_strn(struct jl *j, const char *key, const char *val, size_t n)
{
	jl_key(j, key);
	jl_escape(j, val, n);
}

void jl_int(struct jl *j, const char *key, long long val)
{
	jl_key(j, key);
	jl_addf(j, "%lld", val);
}

void jl_u64(struct jl *j, const char *key, uint64_t val)
{
	jl_key(j, key);
	jl_addf(j, "%" PRIu64, val);
}

static void jl_num(struct jl *j, double val)
{
	if (!isfinite(val))
		jl_add(j, "null", 4);
	else
		jl_addf(j, "%.17g", val);
}

void jl_dbl(struct jl *j, const char *key, double val)
{
	jl_key(j, key);
	jl_num(j, val);
}

void jl_bool(struct jl *j, const char *key, int val)
{
	jl_key(j, key);
	if (val)
		jl_add(j, "true", 4);
	else
		jl_add(j, "false", 5);
}

void jl_dbl_array(struct jl *j, const char *key, const double *v, size_t n)
{
	jl_key(j, key);
	jl_add(j, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			jl_add(j, ",", 1);
		jl_num(j, v[i]);
	}
	jl_add(j, "]", 1);
}

void jl_int_array(struct jl *j, const char *key, const long long *v, size_t n)
{
	jl_key(j, key);
	jl_add(j, "[", 1);
	for (size_t i = 0; i < n; i++) {
		if (i)
			jl_add(j, ",", 1);
		jl_addf(j, "%lld", v[i]);
	}
	jl_add(j, "]", 1);
}

static void write_all(const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(1, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;	/* the reader went away: nothing to tell it */
		p += w;
		n -= (size_t)w;
	}
}

void jl_end(struct jl *j)
{
	jl_add(j, "}\n", 2);
	if (j->len > WL_LINE_MAX) {
		/* Callers size snapshot text; this is a bug, not guest data. */
		jl_abort(j);
		jl_errorf("internal: output line over %d bytes dropped", WL_LINE_MAX);
		return;
	}
	write_all(j->buf, j->len);
	jl_abort(j);
}

void jl_abort(struct jl *j)
{
	free(j->buf);
	j->buf = NULL;
	j->len = j->alloc = 0;
}

void jl_metric(const char *name, double value, const char *unit)
{
	struct jl j;

	jl_begin(&j, WL_REC_METRIC);
	jl_str(&j, "name", name);
	jl_dbl(&j, "value", value);
	jl_str(&j, "unit", unit);
	jl_end(&j);
}

void jl_series(const char *name, const char *unit, const double *v, size_t n)
{
	struct jl j;

	jl_begin(&j, WL_REC_SERIES);
	jl_str(&j, "name", name);
	jl_str(&j, "unit", unit);
	jl_dbl_array(&j, "values", v, n);
	jl_end(&j);
}

void jl_info_str(const char *key, const char *val)
{
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, key, val);
	jl_end(&j);
}

static void verror(const char *what, const char *fmt, va_list ap)
{
	char reason[1024];
	struct jl j;

	vsnprintf(reason, sizeof(reason), fmt, ap);
	jl_begin(&j, WL_REC_ERROR);
	jl_str(&j, "reason", reason);
	if (what)
		jl_str(&j, "precondition", what);
	jl_end(&j);
}

void jl_errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(NULL, fmt, ap);
	va_end(ap);
}

void wl_precond(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(what, fmt, ap);
	va_end(ap);
	exit(WL_EXIT_PRECOND);
}

void wl_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(NULL, fmt, ap);
	va_end(ap);
	exit(WL_EXIT_FAIL);
}
