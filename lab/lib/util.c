// SPDX-License-Identifier: GPL-2.0
#include "util.h"
#include "escape.h"
#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *lab_progname = "mglrulab";
int lab_verbose;
int lab_quiet;

/*
 * Messages carry patch subjects, guest output, report and lab.conf values:
 * they reach the terminal through the filter (escape.h). Filtering
 * allocates; should that fail, die() comes back here, and then the bare
 * format string (ours, no untrusted text) is all that is printed.
 */
static void vreport(const char *prefix, const char *fmt, va_list ap)
{
	/* Per thread: a message from another thread is no recursion. */
	static _Thread_local int depth;

	fflush(stdout);
	/* One message, one line, when slot workers warn at once. */
	flockfile(stderr);
	fprintf(stderr, "%s: %s", lab_progname, prefix);
	if (depth++)
		fputs(fmt, stderr);
	else
		term_vprintf(stderr, fmt, ap);
	depth--;
	fputc('\n', stderr);
	funlockfile(stderr);
}

/* Per thread: a watch's build keeps its own errors, a slot worker's are not in it. */
static _Thread_local struct strbuf *error_sink;

struct strbuf *error_capture(struct strbuf *sink)
{
	struct strbuf *old = error_sink;

	error_sink = sink;
	return old;
}

int error_status(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (error_sink) {
		va_list copy;

		va_copy(copy, ap);
		sb_vaddf(error_sink, fmt, copy);
		sb_addc(error_sink, '\n');
		va_end(copy);
	}
	vreport("error: ", fmt, ap);
	va_end(ap);
	return status;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (lab_quiet)
		return;
	va_start(ap, fmt);
	term_vprintf(stdout, fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void debug(const char *fmt, ...)
{
	va_list ap;

	if (!lab_verbose)
		return;
	va_start(ap, fmt);
	vreport("debug: ", fmt, ap);
	va_end(ap);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("fatal: ", fmt, ap);
	va_end(ap);
	exit(LAB_ELAB);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory allocating %zu x %zu bytes", n, size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory allocating %zu bytes", n);
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory formatting a string");
	return s;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void *grow_array(void *arr, size_t need, size_t *alloc, size_t size)
{
	if (need <= *alloc)
		return arr;
	size_t n = *alloc ? *alloc : 8;
	while (n < need)
		n *= 2;
	*alloc = n;
	return xrealloc(arr, n * size);
}

void strvec_push(struct strvec *sv, const char *s)
{
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = xstrdup(s);
	sv->v[sv->n] = NULL;
}

void strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	ALLOC_GROW(sv->v, sv->n + 2, sv->alloc);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void strvec_pushv(struct strvec *sv, const char *const *v)
{
	for (; v && *v; v++)
		strvec_push(sv, *v);
}

void strvec_clear(struct strvec *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->alloc = 0;
}

int strvec_has(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

void strvec_split(struct strvec *sv, const char *s, const char *seps)
{
	while (*s) {
		size_t skip = strspn(s, seps);
		s += skip;
		size_t len = strcspn(s, seps);
		if (!len)
			break;
		char *f = xstrndup(s, len);
		strvec_push(sv, f);
		free(f);
		s += len;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void strvec_sort(struct strvec *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), cmp_str);
}

double now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void iso8601_now(char buf[32])
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int str_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int str_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && !strcmp(s + ls - lx, suffix);
}

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_duration(const char *s, double *seconds)
{
	static const struct { char unit; double scale; } units[] = {
		{ 'd', 86400 }, { 'h', 3600 }, { 'm', 60 }, { 's', 1 },
	};
	double total = 0;
	size_t next = 0;	/* units must come in d, h, m, s order, each once */
	const char *p = s;

	if (!s || !*s)
		return -1;
	while (*p) {
		char *end;
		long v;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno || v > 1000000)
			return -1;
		if (!*end) {
			/* A bare number: seconds, and only alone or last ("1m30"). */
			if (p != s && next == ARRAY_SIZE(units))
				return -1;
			total += (double)v;
			break;
		}
		while (next < ARRAY_SIZE(units) && units[next].unit != *end)
			next++;
		if (next == ARRAY_SIZE(units))
			return -1;
		total += (double)v * units[next++].scale;
		p = end + 1;
	}
	if (!(total > 0))
		return -1;
	*seconds = total;
	return 0;
}

void format_duration(char *buf, size_t len, double s)
{
	if (s < 60)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}
