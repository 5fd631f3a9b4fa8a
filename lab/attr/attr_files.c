// SPDX-License-Identifier: GPL-2.0
/* The two inputs of an attribution (attr.h): a kernel's System.map and the plugin's window files. */
#include "attr.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * @path opened for reading, if it is a regular file of at most @max bytes:
 * both inputs come from elsewhere (a System.map named on the command line,
 * a window QEMU wrote), and a FIFO or a device there would block the open
 * or the read forever. O_NONBLOCK keeps the open itself from waiting; it
 * is cleared once the file is known to be regular. NULL with the reason
 * in @err.
 */
static FILE *open_regular(const char *path, long long max, struct strbuf *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > max) {
		sb_addf(err, "%s: not a regular file of at most %lld MiB", path, max >> 20);
		close(fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	return f;
}

/* An unsigned number of @base filling [@s, @end) exactly, without sign or overflow. */
static int span_u64(const char *s, const char *end, int base, uint64_t *out)
{
	char *e;

	if (s == end || !isxdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &e, base);
	return errno || e != end ? -1 : 0;
}

/* The next space-separated field of @p: [*@start, returned end). */
static const char *field(const char **p, const char **start)
{
	const char *s = *p;

	while (*s == ' ')
		s++;
	*start = s;
	while (*s && *s != ' ')
		s++;
	*p = s;
	return s;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct attr_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line's length limit: a symbol name is at most KSYM_NAME_LEN (512). */
#define LINE_MAX_BYTES 1024

int attr_symbols_load(const char *path, struct attr_symbols *s, struct strbuf *err)
{
	FILE *f = open_regular(path, ATTR_MAP_MAX_BYTES, err);
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	ssize_t len;
	long lineno = 0;

	memset(s, 0, sizeof(*s));
	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		const char *p = line, *a, *ae, *t, *te, *n, *ne;
		uint64_t addr;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		ae = field(&p, &a);
		te = field(&p, &t);
		ne = field(&p, &n);
		if (len > LINE_MAX_BYTES || span_u64(a, ae, 16, &addr) || te - t != 1 || ne == n ||
		    *p) {
			sb_addf(err, "%s:%ld: expected \"ADDRESS TYPE NAME\" (System.map), got '%.80s'",
				path, lineno, line);
			goto fail;
		}
		if (!strchr("TtWw", *t))
			continue;	/* data, absolute and the like: no instructions there */
		if (s->n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			s->v = xrealloc(s->v, alloc * sizeof(*s->v));
		}
		s->v[s->n].addr = addr;
		s->v[s->n++].name = xstrndup(n, (size_t)(ne - n));
	}
	if (ferror(f)) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!s->n) {
		sb_addf(err, "%s: no text symbol (T, t, W or w): not a kernel's System.map?", path);
		goto fail;
	}
	free(line);
	fclose(f);
	qsort(s->v, s->n, sizeof(*s->v), sym_cmp);
	return 0;
fail:
	free(line);
	fclose(f);
	attr_symbols_release(s);
	return -1;
}

const char *attr_symbols_find(const struct attr_symbols *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	/* the last symbol at or below @addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? s->v[lo - 1].name : NULL;
}

void attr_symbols_release(struct attr_symbols *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* "units N": the window's first line. */
static int units_line(const char *line, uint64_t *units)
{
	const char *p = line, *k, *ke, *v, *ve;

	ke = field(&p, &k);
	ve = field(&p, &v);
	return ke - k == 5 && !strncmp(k, "units", 5) && !*p ? span_u64(v, ve, 10, units) : -1;
}

/* "ADDRESS INSNS EXECS": a block. */
static int block_line(const char *line, struct attr_block *b)
{
	const char *p = line, *a, *ae, *i, *ie, *e, *ee;
	uint64_t insns;

	ae = field(&p, &a);
	ie = field(&p, &i);
	ee = field(&p, &e);
	if (*p || span_u64(a, ae, 16, &b->addr) || span_u64(i, ie, 10, &insns) ||
	    span_u64(e, ee, 10, &b->execs))
		return -1;
	/* a block holds at most a page's instructions; none ran 0 times in a window */
	if (!insns || insns > 4096 || !b->execs)
		return -1;
	b->insns = (uint32_t)insns;
	return 0;
}

int attr_window_load(const char *path, struct attr_window *w, struct strbuf *err)
{
	FILE *f = open_regular(path, ATTR_WINDOW_MAX_BYTES, err);
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	ssize_t len;
	long lineno = 0;
	int ended = 0;

	memset(w, 0, sizeof(*w));
	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (ended) {
			sb_addf(err, "%s:%ld: a line after \"end\"", path, lineno);
			goto fail;
		}
		if (lineno == 1) {
			if (units_line(line, &w->units)) {
				sb_addf(err, "%s:1: expected \"units N\", got '%.80s'", path, line);
				goto fail;
			}
			continue;
		}
		if (!strcmp(line, "end")) {
			ended = 1;
			continue;
		}
		if (w->n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			w->v = xrealloc(w->v, alloc * sizeof(*w->v));
		}
		if (len > LINE_MAX_BYTES || block_line(line, &w->v[w->n])) {
			sb_addf(err, "%s:%ld: expected \"ADDRESS INSTRUCTIONS EXECUTIONS\" (hexadecimal, "
				"then two counts above 0), got '%.80s'", path, lineno, line);
			goto fail;
		}
		w->n++;
	}
	if (ferror(f)) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		goto fail;
	}
	if (!ended) {
		sb_addf(err, "%s:%ld: no \"end\" line: the file was cut short (QEMU stopped while "
			"writing it?)", path, lineno);
		goto fail;
	}
	free(line);
	fclose(f);
	return 0;
fail:
	free(line);
	fclose(f);
	attr_window_release(w);
	return -1;
}

void attr_window_release(struct attr_window *w)
{
	free(w->v);
	memset(w, 0, sizeof(*w));
}
