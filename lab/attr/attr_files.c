// SPDX-License-Identifier: GPL-2.0
/* The two inputs of an attribution (attr.h): a kernel's System.map and the plugin's window files. */
#include "attr.h"
#include "util.h"

#include <ctype.h>
#include <stddef.h>
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
	return attr_symbols_load_types(path, "TtWw", s, err);
}

int attr_symbols_load_types(const char *path, const char *types, struct attr_symbols *s,
			    struct strbuf *err)
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
		if (!strchr(types, *t))
			continue;	/* (text) data, absolute and the like: no instructions there */
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
		if (!strcmp(types, "TtWw"))
			sb_addf(err, "%s: no text symbol (T, t, W or w): not a kernel's System.map?",
				path);
		else
			sb_addf(err, "%s: no symbol of the types %s: not a kernel's System.map?", path,
				types);
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

/* "KEY N" (decimal): one of the coherence file's header lines. */
static int key_line(const char *line, const char *key, uint64_t *out)
{
	const char *p = line, *k, *ke, *v, *ve;

	ke = field(&p, &k);
	ve = field(&p, &v);
	return (size_t)(ke - k) == strlen(key) && !strncmp(k, key, (size_t)(ke - k)) && !*p ?
	       span_u64(v, ve, 10, out) : -1;
}

/* "vcpu V INSNS": V must be @want. */
static int vcpu_line(const char *line, uint64_t want, uint64_t *insns)
{
	const char *p = line, *k, *ke, *v, *ve, *n, *ne;
	uint64_t idx;

	ke = field(&p, &k);
	ve = field(&p, &v);
	ne = field(&p, &n);
	return ke - k == 4 && !strncmp(k, "vcpu", 4) && !*p && !span_u64(v, ve, 10, &idx) &&
	       idx == want && !span_u64(n, ne, 10, insns) ? 0 : -1;
}

/* "t LINE LINE_VADDR INSN READS WRITES": a (line, instruction) pair with transfers. */
static int pair_line(const char *line, struct coh_pair *c)
{
	const char *p = line, *k, *ke, *l, *le, *lv, *lve, *i, *ie, *r, *re, *w, *we;

	ke = field(&p, &k);
	le = field(&p, &l);
	lve = field(&p, &lv);
	ie = field(&p, &i);
	re = field(&p, &r);
	we = field(&p, &w);
	if (ke - k != 1 || *k != 't' || *p || span_u64(l, le, 16, &c->line) ||
	    span_u64(lv, lve, 16, &c->line_vaddr) || span_u64(i, ie, 16, &c->insn) ||
	    span_u64(r, re, 10, &c->reads) || span_u64(w, we, 10, &c->writes))
		return -1;
	/* a line's address is line-aligned; a pair is written only when it moved a line */
	if (c->line % 64 || c->line_vaddr % 64 || c->reads + c->writes < c->reads ||
	    !(c->reads + c->writes))
		return -1;
	return 0;
}

/* The header after the first line, in the plugin's order: KEY and where its value goes. */
struct coh_key {
	const char *key;
	size_t off;
};

#define COH_KEY(k) { #k, offsetof(struct coh_window, k) }
static const struct coh_key coh_head[] = {
	COH_KEY(line_bytes), COH_KEY(units), COH_KEY(vcpus),
};
static const struct coh_key coh_tail[] = {
	COH_KEY(accesses), COH_KEY(buffered), COH_KEY(forced), COH_KEY(stalled), COH_KEY(untracked),
	COH_KEY(dropped), COH_KEY(lines), COH_KEY(transfers),
};
#define COH_HEAD_N	(sizeof(coh_head) / sizeof(coh_head[0]))
#define COH_TAIL_N	(sizeof(coh_tail) / sizeof(coh_tail[0]))

static uint64_t *coh_field(struct coh_window *w, const struct coh_key *k)
{
	return (uint64_t *)((char *)w + k->off);
}

/*
 * One line of the file, @lineno from 1; @state counts the header lines
 * read so far. 1 for "end", 0 for any other good line, -1 with what was
 * expected in @err.
 */
static int coh_line(struct coh_window *w, const char *line, long lineno, size_t *state,
		    size_t *alloc, struct strbuf *err)
{
	size_t head = COH_HEAD_N, tail = COH_TAIL_N, vcpus;

	if (lineno == 1) {
		if (strcmp(line, "mglrulab-coh 1")) {
			sb_adds(err, "expected \"mglrulab-coh 1\" (the coherence plugin's format 1)");
			return -1;
		}
		return 0;
	}
	if (*state < head) {
		if (key_line(line, coh_head[*state].key, coh_field(w, &coh_head[*state]))) {
			sb_addf(err, "expected \"%s N\"", coh_head[*state].key);
			return -1;
		}
		(*state)++;
		if (*state == head && (w->line_bytes != 64 || !w->vcpus || w->vcpus > COH_MAX_VCPUS)) {
			sb_addf(err, "expected 64-byte lines and 1 to %d vCPUs", COH_MAX_VCPUS);
			return -1;
		}
		return 0;
	}
	vcpus = (size_t)w->vcpus;
	if (*state < head + vcpus) {
		if (vcpu_line(line, *state - head, &w->insns[*state - head])) {
			sb_addf(err, "expected \"vcpu %zu INSTRUCTIONS\"", *state - head);
			return -1;
		}
		(*state)++;
		return 0;
	}
	if (*state < head + vcpus + tail) {
		const struct coh_key *k = &coh_tail[*state - head - vcpus];

		if (key_line(line, k->key, coh_field(w, k))) {
			sb_addf(err, "expected \"%s N\"", k->key);
			return -1;
		}
		(*state)++;
		return 0;
	}
	if (!strcmp(line, "end"))
		return 1;
	if (w->n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 1024;
		w->v = xrealloc(w->v, *alloc * sizeof(*w->v));
	}
	if (pair_line(line, &w->v[w->n])) {
		sb_adds(err, "expected \"t LINE LINE_VADDR INSN READS WRITES\" (three 64-byte-aligned "
			"or hexadecimal addresses, two counts, not both 0)");
		return -1;
	}
	w->n++;
	return 0;
}

/* Do the pairs add up to the header's transfers? The plugin counts each once. */
static int coh_sums(const struct coh_window *w)
{
	uint64_t sum = w->dropped;

	for (size_t i = 0; i < w->n; i++) {
		uint64_t t = w->v[i].reads + w->v[i].writes;

		if (sum + t < sum)
			return -1;
		sum += t;
	}
	return sum == w->transfers ? 0 : -1;
}

int coh_window_load(const char *path, struct coh_window *w, struct strbuf *err)
{
	FILE *f = open_regular(path, COH_WINDOW_MAX_BYTES, err);
	struct strbuf why = STRBUF_INIT;
	char *line = NULL;
	size_t cap = 0, alloc = 0, state = 0;
	ssize_t len;
	long lineno = 0;
	int ended = 0;

	memset(w, 0, sizeof(*w));
	if (!f)
		return -1;
	while ((len = getline(&line, &cap, f)) >= 0) {
		int r;

		lineno++;
		if (len && line[len - 1] == '\n')
			line[--len] = 0;
		if (ended) {
			sb_addf(err, "%s:%ld: a line after \"end\"", path, lineno);
			goto fail;
		}
		if (len > LINE_MAX_BYTES || strlen(line) != (size_t)len) {
			sb_addf(err, "%s:%ld: a line over %d bytes or with a NUL byte", path, lineno,
				LINE_MAX_BYTES);
			goto fail;
		}
		r = coh_line(w, line, lineno, &state, &alloc, &why);
		if (r < 0) {
			sb_addf(err, "%s:%ld: %s, got '%.80s'", path, lineno, sb_str(&why), line);
			goto fail;
		}
		ended = r == 1;
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
	if (coh_sums(w)) {
		sb_addf(err, "%s: the pairs' transfers and the dropped ones do not add up to "
			"\"transfers %llu\"", path, (unsigned long long)w->transfers);
		goto fail;
	}
	sb_release(&why);
	free(line);
	fclose(f);
	return 0;
fail:
	sb_release(&why);
	free(line);
	fclose(f);
	coh_window_release(w);
	return -1;
}

void coh_window_release(struct coh_window *w)
{
	free(w->v);
	memset(w, 0, sizeof(*w));
}
