// SPDX-License-Identifier: GPL-2.0
/* A window's instructions per function, and two windows side by side (attr.h). */
#include "attr.h"
#include "strmap.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *block_owner(const struct attr_symbols *s, uint64_t addr)
{
	const char *name;

	if (addr < ATTR_KERNEL_BASE)
		return ATTR_ROW_USER;
	name = attr_symbols_find(s, addr);
	return name ? name : ATTR_ROW_UNKNOWN;
}

static int row_cmp(const void *a, const void *b)
{
	const struct attr_row *x = a, *y = b;

	if (x->insns != y->insns)
		return x->insns < y->insns ? 1 : -1;
	return strcmp(x->name, y->name);
}

void attr_table_build(const struct attr_window *w, const struct attr_symbols *s,
		      struct attr_table *t)
{
	struct strmap at = STRMAP_INIT;
	size_t alloc = 0;

	memset(t, 0, sizeof(*t));
	t->units = w->units;
	for (size_t i = 0; i < w->n; i++) {
		const struct attr_block *b = &w->v[i];
		const char *name = block_owner(s, b->addr);
		uint64_t insns = (uint64_t)b->insns * b->execs;
		size_t k;

		if (!strmap_get(&at, name, &k)) {
			if (t->n == alloc) {
				alloc = alloc ? 2 * alloc : 256;
				t->v = xrealloc(t->v, alloc * sizeof(*t->v));
			}
			k = t->n++;
			t->v[k] = (struct attr_row){ .name = xstrdup(name) };
			strmap_put(&at, name, k);
		}
		t->v[k].insns += insns;
		t->total += insns;
	}
	strmap_clear(&at);
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), row_cmp);
}

void attr_table_release(struct attr_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

double attr_per_unit(const struct attr_table *t, uint64_t insns)
{
	return t->units ? (double)insns / (double)t->units : (double)insns;
}

int attr_delta_order(double base_a, double patched_a, const char *name_a,
		     double base_b, double patched_b, const char *name_b)
{
	double da = fabs(patched_a - base_a), db = fabs(patched_b - base_b);

	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(name_a, name_b);
}

static int diff_cmp(const void *a, const void *b)
{
	const struct attr_diff_row *x = a, *y = b;

	return attr_delta_order(x->base, x->patched, x->name, y->base, y->patched, y->name);
}

void attr_diff_build(const struct attr_table *base, const struct attr_table *patched,
		     struct attr_diff *d)
{
	struct strmap at = STRMAP_INIT;

	memset(d, 0, sizeof(*d));
	d->v = xcalloc(base->n + patched->n + 1, sizeof(*d->v));
	d->base_total = attr_per_unit(base, base->total);
	d->patched_total = attr_per_unit(patched, patched->total);
	for (size_t i = 0; i < base->n; i++) {
		d->v[d->n] = (struct attr_diff_row){ .name = base->v[i].name,
			.base = attr_per_unit(base, base->v[i].insns) };
		strmap_put(&at, base->v[i].name, d->n++);
	}
	for (size_t i = 0; i < patched->n; i++) {
		size_t k;

		if (!strmap_get(&at, patched->v[i].name, &k)) {
			k = d->n++;
			d->v[k].name = patched->v[i].name;
		}
		d->v[k].patched = attr_per_unit(patched, patched->v[i].insns);
	}
	strmap_clear(&at);
	if (d->n)
		qsort(d->v, d->n, sizeof(*d->v), diff_cmp);
}

void attr_diff_release(struct attr_diff *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}
