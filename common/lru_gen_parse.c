// SPDX-License-Identifier: GPL-2.0
#include "lru_gen_parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *const lru_gen_mm_stat_names[4] = {
	"leaf_total", "leaf_young", "nonleaf_found", "nonleaf_added",
};

#define MAX_TOKENS 16

struct token {
	uint64_t v;
	char flag;	/* trailing letter, or 0 */
};

/* Grow an array of @size-byte elements to hold @need; 0 or -1. */
static int grow(void **arr, size_t need, size_t *alloc, size_t size)
{
	size_t n;
	void *p;

	if (need <= *alloc)
		return 0;
	n = *alloc ? *alloc * 2 : 4;
	if (n < need)
		n = need;
	p = realloc(*arr, n * size);
	if (!p)
		return -1;
	*arr = p;
	*alloc = n;
	return 0;
}

/*
 * Split a line into "number[letter]" tokens. Returns the count, or -1 if
 * any token is not of that shape (or there are too many).
 */
static int tokenize(const char *s, size_t n, struct token *tok)
{
	size_t i = 0;
	int nt = 0;

	while (i < n) {
		uint64_t v = 0;
		size_t start;

		while (i < n && s[i] == ' ')
			i++;
		if (i == n)
			break;
		if (nt == MAX_TOKENS)
			return -1;
		start = i;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			unsigned d = (unsigned)(s[i] - '0');

			if (v > (UINT64_MAX - d) / 10)
				return -1;
			v = v * 10 + d;
			i++;
		}
		if (i == start)
			return -1;
		tok[nt].v = v;
		tok[nt].flag = 0;
		if (i < n && s[i] != ' ') {
			char c = s[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
				return -1;
			tok[nt].flag = c;
			i++;
			if (i < n && s[i] != ' ')
				return -1;
		}
		nt++;
	}
	return nt;
}

static int all_flagged(const struct token *t, int from, int n)
{
	for (int i = from; i < n; i++)
		if (!t[i].flag)
			return 0;
	return 1;
}

struct parse_state {
	struct lru_gen_snapshot *s;
	struct lru_gen_memcg *memcg;
	struct lru_gen_node *node;
	struct lru_gen_gen *gen;
};

static int add_memcg(struct parse_state *st, const char *line, size_t n)
{
	struct lru_gen_snapshot *s = st->s;
	struct lru_gen_memcg *m;
	size_t i = 5;
	unsigned long id = 0;
	int digits = 0;

	while (i < n && line[i] == ' ')
		i++;
	while (i < n && line[i] >= '0' && line[i] <= '9' && digits < 10) {
		id = id * 10 + (unsigned long)(line[i] - '0');
		i++;
		digits++;
	}
	if (!digits || id > 0xffffffffUL || (i < n && line[i] != ' ')) {
		s->bad_lines++;
		st->memcg = NULL;
		st->node = NULL;
		st->gen = NULL;
		return 0;
	}
	if (i < n)
		i++;	/* the one space before the path */
	if (grow((void **)&s->memcgs, s->nmemcgs + 1, &s->alloc, sizeof(*s->memcgs)))
		return -1;
	m = &s->memcgs[s->nmemcgs];
	memset(m, 0, sizeof(*m));
	m->id = (unsigned int)id;
	m->path = malloc(n - i + 1);
	if (!m->path)
		return -1;
	memcpy(m->path, line + i, n - i);
	m->path[n - i] = '\0';
	s->nmemcgs++;
	st->memcg = m;
	st->node = NULL;
	st->gen = NULL;
	return 0;
}

static int add_node(struct parse_state *st, const struct token *t, int nt)
{
	struct lru_gen_memcg *m = st->memcg;
	struct lru_gen_node *nd;

	if (!m || nt != 1 || t[0].flag || t[0].v > 1u << 20) {
		st->s->bad_lines++;
		st->node = NULL;
		st->gen = NULL;
		return 0;
	}
	if (grow((void **)&m->nodes, m->nnodes + 1, &m->alloc, sizeof(*m->nodes)))
		return -1;
	nd = &m->nodes[m->nnodes++];
	memset(nd, 0, sizeof(*nd));
	nd->nid = (int)t[0].v;
	st->node = nd;
	st->gen = NULL;
	return 0;
}

static int add_gen(struct parse_state *st, const struct token *t)
{
	struct lru_gen_node *nd = st->node;
	struct lru_gen_gen *g;

	if (grow((void **)&nd->gens, nd->ngens + 1, &nd->alloc, sizeof(*nd->gens)))
		return -1;
	g = &nd->gens[nd->ngens++];
	memset(g, 0, sizeof(*g));
	g->seq = t[0].v;
	g->age_ms = t[1].v;
	for (int type = 0; type < 2; type++) {
		g->pages[type] = t[2 + type].v;
		g->old[type] = t[2 + type].flag == 'x';
	}
	st->gen = g;
	return 0;
}

static void add_tier(struct parse_state *st, const struct token *t)
{
	struct lru_gen_gen *g = st->gen;
	struct lru_gen_tier *tr;

	if (g->ntiers >= LRU_GEN_MAX_TIERS) {
		st->s->bad_lines++;
		return;
	}
	tr = &g->tier[g->ntiers++];
	for (int type = 0; type < 2; type++)
		for (int k = 0; k < 3; k++) {
			tr->n[type][k] = t[1 + type * 3 + k].v;
			tr->flag[type][k] = t[1 + type * 3 + k].flag;
		}
}

static void add_mm(struct parse_state *st, const struct token *t, int nt)
{
	struct lru_gen_gen *g = st->gen;

	if (g->nmm || nt > LRU_GEN_MAX_MM_STATS) {
		st->s->bad_lines++;
		return;
	}
	g->nmm = nt;
	for (int i = 0; i < nt; i++) {
		g->mm[i] = t[i].v;
		g->mm_flag[i] = t[i].flag;
	}
}

static int parse_line(struct parse_state *st, const char *line, size_t n)
{
	struct token t[MAX_TOKENS];
	int nt;

	if (n >= 6 && !memcmp(line, "memcg ", 6))
		return add_memcg(st, line, n);
	if (n >= 6 && !memcmp(line, " node ", 6)) {
		nt = tokenize(line + 6, n - 6, t);
		if (nt < 0) {
			st->s->bad_lines++;
			return 0;
		}
		return add_node(st, t, nt);
	}
	nt = tokenize(line, n, t);
	if (nt == 0)
		return 0;	/* blank line */
	if (nt < 0 || !st->node || line[0] != ' ') {
		st->s->bad_lines++;
		return 0;
	}
	/* Generation: seq, age, then two sizes each maybe marked 'x'. */
	if (nt == 4 && !t[0].flag && !t[1].flag &&
	    (!t[2].flag || t[2].flag == 'x') && (!t[3].flag || t[3].flag == 'x'))
		return add_gen(st, t);
	if (st->gen && nt == 7 && !t[0].flag && all_flagged(t, 1, 7)) {
		add_tier(st, t);
		return 0;
	}
	if (st->gen && all_flagged(t, 0, nt)) {
		add_mm(st, t, nt);
		return 0;
	}
	st->s->bad_lines++;
	return 0;
}

int lru_gen_parse(const char *text, size_t len, struct lru_gen_snapshot *out)
{
	struct parse_state st = { out, NULL, NULL, NULL };
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : len - i;

		if (!nl) {
			/* A last line without newline may be cut anywhere: do not trust it. */
			out->truncated = 1;
			break;
		}
		if (memchr(text + i, '\0', n)) {
			out->bad_lines++;
		} else if (parse_line(&st, text + i, n)) {
			lru_gen_release(out);
			return -1;
		}
		i += n + 1;
	}
	return 0;
}

void lru_gen_release(struct lru_gen_snapshot *s)
{
	for (size_t i = 0; i < s->nmemcgs; i++) {
		struct lru_gen_memcg *m = &s->memcgs[i];

		for (size_t k = 0; k < m->nnodes; k++)
			free(m->nodes[k].gens);
		free(m->nodes);
		free(m->path);
	}
	free(s->memcgs);
	memset(s, 0, sizeof(*s));
}

const struct lru_gen_memcg *lru_gen_find_path(const struct lru_gen_snapshot *s, const char *path)
{
	for (size_t i = 0; i < s->nmemcgs; i++)
		if (!strcmp(s->memcgs[i].path, path))
			return &s->memcgs[i];
	return NULL;
}

const struct lru_gen_memcg *lru_gen_find_id(const struct lru_gen_snapshot *s, unsigned int id)
{
	for (size_t i = 0; i < s->nmemcgs; i++)
		if (s->memcgs[i].id == id)
			return &s->memcgs[i];
	return NULL;
}

const struct lru_gen_node *lru_gen_find_node(const struct lru_gen_memcg *m, int nid)
{
	for (size_t i = 0; m && i < m->nnodes; i++)
		if (m->nodes[i].nid == nid)
			return &m->nodes[i];
	return NULL;
}

const struct lru_gen_gen *lru_gen_find_seq(const struct lru_gen_node *n, uint64_t seq)
{
	for (size_t i = 0; n && i < n->ngens; i++)
		if (n->gens[i].seq == seq)
			return &n->gens[i];
	return NULL;
}

uint64_t lru_gen_max_seq(const struct lru_gen_node *n)
{
	uint64_t m = 0;

	for (size_t i = 0; n && i < n->ngens; i++)
		if (n->gens[i].seq > m)
			m = n->gens[i].seq;
	return m;
}

uint64_t lru_gen_min_seq(const struct lru_gen_node *n)
{
	uint64_t m = UINT64_MAX;

	for (size_t i = 0; n && i < n->ngens; i++)
		if (n->gens[i].seq < m)
			m = n->gens[i].seq;
	return n && n->ngens ? m : 0;
}

int lru_gen_mm_valid(const struct lru_gen_gen *g)
{
	if (!g->nmm)
		return 0;
	for (int i = 0; i < g->nmm; i++)
		if (g->mm_flag[i] == 'x')
			return 0;
	return 1;
}
