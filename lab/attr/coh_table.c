// SPDX-License-Identifier: GPL-2.0
/* A coherence window's transfers per kernel function and per line (attr.h, docs/coherence.md). */
#include "attr.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The kernel image's mapping (x86-64's __START_KERNEL_map): static data is
 * named from it. A line reached through another alias (the direct map,
 * 0xffff888...) is mapped back by its physical address, which is the
 * image address less this base as long as the kernel runs where it was
 * linked: true of the lab's kernels (no CONFIG_RANDOMIZE_BASE in
 * tinyconfig plus kernels/configs/lab-guest.config), not of a relocated
 * one, whose lines then get wrong names; docs/coherence.md.
 */
#define COH_IMAGE_BASE	0xffffffff80000000ull

static uint64_t row_total(const struct coh_row *r)
{
	return r->reads + r->writes;
}

static int row_order(const void *a, const void *b)
{
	const struct coh_row *x = a, *y = b;
	uint64_t tx = row_total(x), ty = row_total(y);

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The row named @name of @v (linear: a window moves some hundreds of lines). */
static struct coh_row *row_get(struct coh_row **v, size_t *n, size_t *alloc, const char *name,
			       uint64_t line)
{
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].line == line && !strcmp((*v)[i].name, name))
			return &(*v)[i];
	if (*n == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 64;
		*v = xrealloc(*v, *alloc * sizeof(**v));
	}
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].name = xstrdup(name);
	(*v)[*n].line = line;
	return &(*v)[(*n)++];
}

static const char *func_name(const struct attr_symbols *text, uint64_t insn)
{
	const char *f;

	if (insn < ATTR_KERNEL_BASE)
		return ATTR_ROW_USER;
	f = attr_symbols_find(text, insn);
	return f ? f : ATTR_ROW_UNKNOWN;
}

/*
 * The image's data that stays the image's after boot: read-only data,
 * data, bss. Between them lie the padding and the init sections, which
 * the kernel frees after boot: their pages then hold anything.
 */
struct image_data {
	uint64_t lo[3], hi[3];
};

static uint64_t sym_addr(const struct attr_symbols *data, const char *name)
{
	for (size_t i = 0; i < data->n; i++)
		if (!strcmp(data->v[i].name, name))
			return data->v[i].addr;
	return 0;
}

static void image_data_find(const struct attr_symbols *data, struct image_data *d)
{
	static const char *const names[3][2] = {
		{ "__start_rodata", "__end_rodata" }, { "_sdata", "__init_begin" },
		{ "__init_end", "_end" },
	};

	for (int i = 0; i < 3; i++) {
		d->lo[i] = sym_addr(data, names[i][0]);
		d->hi[i] = sym_addr(data, names[i][1]);
	}
}

static int in_image_data(const struct image_data *d, uint64_t va)
{
	for (int i = 0; i < 3; i++)
		if (d->lo[i] >= COH_IMAGE_BASE && va >= d->lo[i] && va < d->hi[i])
			return 1;
	return 0;
}

/* The data symbol @vaddr lies in, with the offset past it: "sym" or "sym+0x40". */
static void line_name(const struct attr_symbols *data, const struct image_data *img,
		      const struct coh_pair *p, char *buf, size_t len)
{
	size_t lo = 0, hi = data->n;
	uint64_t va = p->line_vaddr;

	if (va < COH_IMAGE_BASE && p->line < UINT64_MAX - COH_IMAGE_BASE &&
	    in_image_data(img, p->line + COH_IMAGE_BASE))
		va = p->line + COH_IMAGE_BASE;	/* another alias of the image's data */
	if (va >= COH_IMAGE_BASE && !in_image_data(img, va))
		va = p->line_vaddr;	/* text, freed init memory: not named by a data symbol */
	if (va >= COH_IMAGE_BASE && in_image_data(img, va)) {
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (data->v[mid].addr <= va)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo) {
			const struct attr_sym *s = &data->v[lo - 1];

			if (s->addr == va)
				snprintf(buf, len, "%s", s->name);
			else
				snprintf(buf, len, "%s+0x%llx", s->name,
					 (unsigned long long)(va - s->addr));
			return;
		}
	}
	snprintf(buf, len, "[%sline 0x%llx]", va < ATTR_KERNEL_BASE ? "user " : "",
		 (unsigned long long)p->line);
}

/* For each line, the function that moved it most: its "by". */
static void lines_by(struct coh_table *t, const struct coh_window *w,
		     const struct attr_symbols *text)
{
	for (size_t i = 0; i < t->nlines; i++) {
		struct coh_row *l = &t->lines[i];
		struct coh_row *per = NULL;
		size_t n = 0, alloc = 0, best = 0;

		for (size_t j = 0; j < w->n; j++) {
			struct coh_row *r;

			if (w->v[j].line != l->line)
				continue;
			r = row_get(&per, &n, &alloc, func_name(text, w->v[j].insn), 0);
			r->reads += w->v[j].reads;
			r->writes += w->v[j].writes;
		}
		for (size_t j = 1; j < n; j++)
			if (row_order(&per[j], &per[best]) < 0)
				best = j;
		l->by = n ? xstrdup(per[best].name) : NULL;
		for (size_t j = 0; j < n; j++)
			free(per[j].name);
		free(per);
	}
}

void coh_table_build(const struct coh_window *w, const struct attr_symbols *text,
		     const struct attr_symbols *data, struct coh_table *t)
{
	size_t falloc = 0, lalloc = 0;
	struct image_data img;

	image_data_find(data, &img);
	memset(t, 0, sizeof(*t));
	t->units = w->units;
	t->total = w->transfers;
	t->dropped = w->dropped;
	for (size_t i = 0; i < w->n; i++) {
		const struct coh_pair *p = &w->v[i];
		struct coh_row *f, *l;
		char name[600];

		f = row_get(&t->funcs, &t->nfuncs, &falloc, func_name(text, p->insn), 0);
		f->reads += p->reads;
		f->writes += p->writes;
		line_name(data, &img, p, name, sizeof(name));
		/* one row per physical line, named by the first alias seen */
		l = NULL;
		for (size_t j = 0; j < t->nlines; j++)
			if (t->lines[j].line == p->line)
				l = &t->lines[j];
		if (!l)
			l = row_get(&t->lines, &t->nlines, &lalloc, name, p->line);
		l->reads += p->reads;
		l->writes += p->writes;
	}
	lines_by(t, w, text);
	qsort(t->funcs, t->nfuncs, sizeof(*t->funcs), row_order);
	qsort(t->lines, t->nlines, sizeof(*t->lines), row_order);
}

void coh_table_release(struct coh_table *t)
{
	for (size_t i = 0; i < t->nfuncs; i++)
		free(t->funcs[i].name);
	for (size_t i = 0; i < t->nlines; i++) {
		free(t->lines[i].name);
		free(t->lines[i].by);
	}
	free(t->funcs);
	free(t->lines);
	memset(t, 0, sizeof(*t));
}
