// SPDX-License-Identifier: GPL-2.0
/*
 * Several attribution runs of each of two kernels, one window: every
 * function's instructions per unit averaged over a kernel's runs, the
 * delta between the kernels, and the spread between runs of one kernel,
 * whose largest over the functions that ran steadily is the table's noise
 * (attr.h: attr_compare_json(); cmp_rows() on functions that ran in
 * bursts).
 *
 * The spread is what lets a reader tell a function that moved from one
 * that wobbles: under icount one kernel's boots differ only by where the
 * guest's timer interrupts and the one-CPU ping-pong's two modes fall
 * (docs/attribution.md), and two runs per kernel measure that directly.
 */
#include "attr.h"
#include "fsutil.h"
#include "strmap.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every function of every run: its instructions per unit in each run (0: it did not run). */
struct cmp {
	struct strmap ix;
	char **names;
	double *vals;		/* names x runs, row-major */
	size_t n, alloc, runs;
	double *totals, *user;	/* per run: all instructions, user space's, per unit */
	uint64_t *units;
};

struct cmp_row {
	const char *name;
	double base, patched, spread;
	int user, bursty;
};

/* What cmp_rows() makes of the spreads: the noise, whose it is, what it left out. */
struct cmp_noise {
	double noise;
	const char *function;	/* NULL: no kernel function ran steadily */
	size_t bursts;		/* bursty functions whose spread is above the noise */
};

static size_t cmp_slot(struct cmp *c, const char *name)
{
	size_t k;

	if (strmap_get(&c->ix, name, &k))
		return k;
	if (c->n == c->alloc) {
		c->alloc = c->alloc ? 2 * c->alloc : 512;
		c->names = xrealloc(c->names, c->alloc * sizeof(*c->names));
		c->vals = xrealloc(c->vals, c->alloc * c->runs * sizeof(*c->vals));
	}
	k = c->n++;
	c->names[k] = xstrdup(name);
	memset(&c->vals[k * c->runs], 0, c->runs * sizeof(*c->vals));
	strmap_put(&c->ix, name, k);
	return k;
}

/* Run @dir's window @window under @syms into column @col. */
static int cmp_add(struct cmp *c, size_t col, const char *dir, const struct attr_symbols *syms,
		   long window, struct strbuf *err)
{
	struct attr_window w;
	struct attr_table t;
	char name[32];
	char *path;
	int r;

	snprintf(name, sizeof(name), "attr.%ld", window);
	path = path_join(dir, name);
	r = attr_window_load(path, &w, err);
	free(path);
	if (r)
		return -1;
	attr_table_build(&w, syms, &t);
	attr_window_release(&w);
	/*
	 * Without unit marks a window's total depends on how long it ran and
	 * how fast, not on what one operation costs: two kernels' totals are
	 * not comparable, so no table rather than a wrong one.
	 */
	if (!t.units) {
		sb_addf(err, "%s/attr.%ld: no unit marks in the window: the workload does not "
			"mark its operations (workloads/lib/attr_mark.h), so there is no "
			"per-unit table", dir, window);
		attr_table_release(&t);
		return -1;
	}
	c->units[col] = t.units;
	c->totals[col] = attr_per_unit(&t, t.total);
	for (size_t i = 0; i < t.n; i++) {
		size_t k = cmp_slot(c, t.v[i].name);

		c->vals[k * c->runs + col] = attr_per_unit(&t, t.v[i].insns);
		if (!strcmp(t.v[i].name, ATTR_ROW_USER))
			c->user[col] = c->vals[k * c->runs + col];
	}
	attr_table_release(&t);
	return 0;
}

static int cmp_side(struct cmp *c, size_t col0, const struct attr_side *side, long window,
		    struct strbuf *err)
{
	struct attr_symbols syms;
	int r = 0;

	if (attr_symbols_load(side->map, &syms, err))
		return -1;
	for (size_t i = 0; i < side->n && !r; i++)
		r = cmp_add(c, col0 + i, side->dirs[i], &syms, window, err);
	attr_symbols_release(&syms);
	return r;
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

/* max - min of @v[0..n), 0 for fewer than two values. */
static double range_of(const double *v, size_t n)
{
	double lo = INFINITY, hi = -INFINITY;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return hi - lo;
}

static int row_cmp(const void *a, const void *b)
{
	const struct cmp_row *x = a, *y = b;

	return attr_delta_order(x->base, x->patched, x->name, y->base, y->patched, y->name);
}

static json_t *units_json(const uint64_t *u, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)u[i]));
	return a;
}

static void cmp_release(struct cmp *c)
{
	for (size_t k = 0; k < c->n; k++)
		free(c->names[k]);
	free(c->names);
	free(c->vals);
	free(c->totals);
	free(c->user);
	free(c->units);
	strmap_clear(&c->ix);
}

/* The per-run arrays of @c for its c->runs runs. */
static void cmp_alloc(struct cmp *c)
{
	c->totals = xcalloc(c->runs, sizeof(*c->totals));
	c->user = xcalloc(c->runs, sizeof(*c->user));
	c->units = xcalloc(c->runs, sizeof(*c->units));
}

/*
 * A row per function of @c, the first @nb runs the baseline's and the
 * rest the patched kernel's (none for one kernel: patched NaN), sorted by
 * @order; the spread is the larger of the two kernels' ranges.
 *
 * @nz->noise is the largest spread of a kernel function that ran steadily
 * (user space holds the workload's own reference loops: not the kernel's
 * noise). A function whose spread is at least its mean over all runs ran
 * in bursts: a filesystem's first allocation in one boot (crc32_body
 * 3,152 instructions per generation in one run of seed 002's aging, 0 in
 * the others) or an occasional flush. Its spread says how far that
 * function alone can move; taken as everyone's noise it put the
 * threshold past every real change in 2 of 5 sessions (CI, 2026-12-05:
 * lru_gen_update_size -2,211 with a spread of 0 went unnamed). So a
 * bursty function is held to its own spread (row_named()) and left out
 * of the table's noise.
 */
static struct cmp_row *cmp_rows(const struct cmp *c, size_t nb,
				int (*order)(const void *, const void *), struct cmp_noise *nz)
{
	struct cmp_row *rows = xcalloc(c->n + 1, sizeof(*rows));
	size_t np = c->runs - nb;

	*nz = (struct cmp_noise){ 0 };
	for (size_t k = 0; k < c->n; k++) {
		const double *v = &c->vals[k * c->runs];
		struct cmp_row *r = &rows[k];

		*r = (struct cmp_row){ .name = c->names[k], .base = mean_of(v, nb),
			.patched = mean_of(v + nb, np),
			.spread = fmax(range_of(v, nb), range_of(v + nb, np)),
			.user = !strcmp(c->names[k], ATTR_ROW_USER) };
		r->bursty = r->spread > 0 && r->spread >= mean_of(v, c->runs);
		if (!r->user && !r->bursty && r->spread > nz->noise) {
			nz->noise = r->spread;
			nz->function = r->name;
		}
	}
	for (size_t k = 0; k < c->n; k++)
		nz->bursts += !rows[k].user && rows[k].bursty && rows[k].spread > nz->noise;
	if (c->n)
		qsort(rows, c->n, sizeof(*rows), order);
	return rows;
}

/*
 * Whether @r is named as moved: a kernel function whose delta passes
 * ATTR_NOISE_MULTIPLE times the table's noise and its own spread (larger
 * than the noise only for a bursty function).
 */
static int row_named(const struct cmp_row *r, double delta, double noise)
{
	return !r->user && fabs(delta) > ATTR_NOISE_MULTIPLE * fmax(noise, r->spread);
}

static json_t *noise_function_json(const struct cmp_noise *nz, int has_noise)
{
	return has_noise && nz->function ? json_string(nz->function) : json_null();
}

json_t *attr_compare_json(const struct attr_side *base, const struct attr_side *patched,
			  long window, long top, struct strbuf *err)
{
	size_t nb = base->n, np = patched->n;
	struct cmp c = { .runs = nb + np };
	struct cmp_row *rows = NULL;
	json_t *out = NULL;

	if (!nb || !np || nb > ATTR_MAX_RUNS || np > ATTR_MAX_RUNS) {
		sb_addf(err, "attribution: 1 to %d runs per kernel, got %zu and %zu",
			ATTR_MAX_RUNS, nb, np);
		return NULL;
	}
	cmp_alloc(&c);
	if (cmp_side(&c, 0, base, window, err) || cmp_side(&c, nb, patched, window, err))
		goto out;
	struct cmp_noise nz;
	rows = cmp_rows(&c, nb, row_cmp, &nz);
	double noise = nz.noise;

	double bt = mean_of(c.totals, nb), pt = mean_of(c.totals + nb, np);
	double bu = mean_of(c.user, nb), pu = mean_of(c.user + nb, np);
	double change = pt - bt;
	int has_noise = nb > 1 || np > 1;
	size_t beyond = 0;
	json_t *fns = json_array();

	for (size_t k = 0; k < c.n; k++) {
		double delta = rows[k].patched - rows[k].base;
		int named = has_noise && row_named(&rows[k], delta, noise);

		beyond += (size_t)named;
		if ((long)k >= top)
			continue;
		json_array_append_new(fns, xjson_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
			"function", rows[k].name, "base", jnum(rows[k].base),
			"patched", jnum(rows[k].patched), "delta", jnum(delta),
			"share_of_change", fabs(change) > 0 ? jnum(delta / change) : json_null(),
			"spread", has_noise ? jnum(rows[k].spread) : json_null(),
			"bursty", has_noise && !rows[k].user ? json_boolean(rows[k].bursty) : json_null(),
			"named", named));
	}
	out = xjson_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:I}",
			 "window", (json_int_t)window,
			 "base_units", units_json(c.units, nb),
			 "patched_units", units_json(c.units + nb, np),
			 "base_per_unit", jnum(bt), "patched_per_unit", jnum(pt),
			 "base_kernel_per_unit", jnum(bt - bu),
			 "patched_kernel_per_unit", jnum(pt - pu),
			 "noise", has_noise ? jnum(noise) : json_null(),
			 "noise_function", noise_function_json(&nz, has_noise),
			 "bursts", has_noise ? json_integer((json_int_t)nz.bursts) : json_null(),
			 "threshold", has_noise ? jnum(ATTR_NOISE_MULTIPLE * noise) : json_null(),
			 "beyond_noise", has_noise ? json_integer((json_int_t)beyond) : json_null(),
			 "nfunctions", (json_int_t)c.n,
			 "functions", fns,
			 "more", (json_int_t)(c.n > (size_t)top ? c.n - (size_t)top : 0));
out:
	cmp_release(&c);
	free(rows);
	return out;
}

/* Largest per unit first, then by name: the same list every time. */
static int cost_cmp(const void *a, const void *b)
{
	const struct cmp_row *x = a, *y = b;

	if (x->base != y->base)
		return x->base < y->base ? 1 : -1;
	return strcmp(x->name, y->name);
}

json_t *attr_profile_json(const struct attr_side *side, long window, long top,
			  struct strbuf *err)
{
	size_t n = side->n;
	struct cmp c = { .runs = n };
	struct cmp_row *rows = NULL;
	json_t *out = NULL;

	if (!n || n > ATTR_MAX_RUNS) {
		sb_addf(err, "attribution: 1 to %d runs, got %zu", ATTR_MAX_RUNS, n);
		return NULL;
	}
	cmp_alloc(&c);
	if (cmp_side(&c, 0, side, window, err))
		goto out;
	struct cmp_noise nz;
	rows = cmp_rows(&c, n, cost_cmp, &nz);

	double total = mean_of(c.totals, n), user = mean_of(c.user, n);
	json_t *fns = json_array();

	for (size_t k = 0; k < c.n && (long)k < top; k++)
		json_array_append_new(fns, xjson_pack("{s:s, s:o, s:o, s:o}",
			"function", rows[k].name, "per_unit", jnum(rows[k].base),
			"share", total > 0 ? jnum(rows[k].base / total) : json_null(),
			"spread", n > 1 ? jnum(rows[k].spread) : json_null()));
	out = xjson_pack("{s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:I}",
			 "window", (json_int_t)window, "units", units_json(c.units, n),
			 "per_unit", jnum(total), "kernel_per_unit", jnum(total - user),
			 "noise", n > 1 ? jnum(nz.noise) : json_null(),
			 "noise_function", noise_function_json(&nz, n > 1),
			 "bursts", n > 1 ? json_integer((json_int_t)nz.bursts) : json_null(),
			 "nfunctions", (json_int_t)c.n, "functions", fns,
			 "more", (json_int_t)(c.n > (size_t)top ? c.n - (size_t)top : 0));
out:
	cmp_release(&c);
	free(rows);
	return out;
}
