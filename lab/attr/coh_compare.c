// SPDX-License-Identifier: GPL-2.0
/*
 * The coherence runs of a session, one window: transfers per unit per
 * kernel, their change, the functions and lines that moved, and the
 * modelled cost (attr.h, docs/coherence.md, reports/SCHEMA.md "coherence").
 */
#include "attr.h"
#include "escape.h"
#include "fsutil.h"
#include "util.h"
#include "xjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row summed over the runs of both kernels: per unit, per kernel. */
struct cmp_row {
	char *name, *by;
	double v[2];		/* sum over runs of transfers per unit, then the mean */
};

struct cmp_rows {
	struct cmp_row *v;
	size_t n, alloc;
};

static struct cmp_row *rows_get(struct cmp_rows *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].name, name))
			return &r->v[i];
	if (r->n == r->alloc) {
		r->alloc = r->alloc ? 2 * r->alloc : 64;
		r->v = xrealloc(r->v, r->alloc * sizeof(*r->v));
	}
	memset(&r->v[r->n], 0, sizeof(*r->v));
	r->v[r->n].name = xstrdup(name);
	return &r->v[r->n++];
}

static void rows_release(struct cmp_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].by);
	}
	free(r->v);
}

static double per_unit(uint64_t n, uint64_t units)
{
	return units ? (double)n / (double)units : (double)n;
}

/*
 * A line's key across boots: its data symbol when it has one, else the
 * function that moved it most (a slab object's physical address is the
 * boot's).
 */
static void line_key(const struct coh_row *l, char *buf, size_t len)
{
	if (l->name[0] != '[')
		snprintf(buf, len, "%s", l->name);
	else
		snprintf(buf, len, "[%slines moved most by %s]",
			 !strncmp(l->name, "[user ", 6) ? "user " : "", l->by ? l->by : "?");
}

struct side_sum {
	double runs[ATTR_MAX_RUNS];
	size_t n;
	uint64_t dropped, units;
};

/* Side @k's runs of window @window into @funcs, @lines and @sum. */
static int side_load(const struct attr_side *side, int k, long window, struct cmp_rows *funcs,
		     struct cmp_rows *lines, struct side_sum *sum, struct strbuf *err)
{
	struct attr_symbols text = { 0 }, data = { 0 };
	int r = 0;

	memset(sum, 0, sizeof(*sum));
	if (!side->n || side->n > ATTR_MAX_RUNS) {
		sb_addf(err, "coherence: %zu runs of a kernel (1 to %d)", side->n, ATTR_MAX_RUNS);
		return -1;
	}
	if (attr_symbols_load(side->map, &text, err) ||
	    attr_symbols_load_types(side->map, "DdBbRr", &data, err))
		r = -1;
	for (size_t i = 0; i < side->n && !r; i++) {
		char name[32], *path;
		struct coh_window w = { 0 };
		struct coh_table t;

		snprintf(name, sizeof(name), "coh.%ld", window);
		path = path_join(side->dirs[i], name);
		if (coh_window_load(path, &w, err)) {
			free(path);
			r = -1;
			break;
		}
		free(path);
		coh_table_build(&w, &text, &data, &t);
		sum->runs[sum->n++] = per_unit(t.total, t.units);
		sum->dropped += t.dropped;
		sum->units += t.units;
		for (size_t j = 0; j < t.nfuncs; j++)
			rows_get(funcs, t.funcs[j].name)->v[k] +=
				per_unit(t.funcs[j].reads + t.funcs[j].writes, t.units);
		for (size_t j = 0; j < t.nlines; j++) {
			char key[700];
			struct cmp_row *row;

			line_key(&t.lines[j], key, sizeof(key));
			row = rows_get(lines, key);
			row->v[k] += per_unit(t.lines[j].reads + t.lines[j].writes, t.units);
			if (!row->by && t.lines[j].by)
				row->by = xstrdup(t.lines[j].by);
		}
		coh_table_release(&t);
		coh_window_release(&w);
	}
	attr_symbols_release(&text);
	attr_symbols_release(&data);
	return r;
}

static int two_kernels;

/* By the size of the change, then the transfers, then the name. */
static int row_order(const void *a, const void *b)
{
	const struct cmp_row *x = a, *y = b;
	double dx = fabs(x->v[1] - x->v[0]), dy = fabs(y->v[1] - y->v[0]);
	double sx = x->v[0] + x->v[1], sy = y->v[0] + y->v[1];

	if (two_kernels && dx != dy)
		return dx < dy ? 1 : -1;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static json_t *rows_json(struct cmp_rows *r, const size_t n[2], int nk, long top, int lines)
{
	json_t *out = json_array();

	for (size_t i = 0; i < r->n; i++)
		for (int k = 0; k < nk; k++)
			r->v[i].v[k] /= (double)n[k];
	two_kernels = nk == 2;
	qsort(r->v, r->n, sizeof(*r->v), row_order);
	for (size_t i = 0; i < r->n && (long)i < top; i++) {
		const struct cmp_row *row = &r->v[i];
		json_t *o = xjson_pack("{s:o, s:o}", lines ? "line" : "function",
				       json_string_lossy(row->name), "baseline", jnum(row->v[0]));

		if (lines)
			json_object_set_new(o, "by", row->by ? json_string_lossy(row->by) : json_null());
		if (nk == 2) {
			json_object_set_new(o, "patched", jnum(row->v[1]));
			json_object_set_new(o, "change", jnum(row->v[1] - row->v[0]));
		}
		json_array_append_new(out, o);
	}
	return out;
}

static json_t *side_json(const struct side_sum *s, double *mean, double *spread)
{
	json_t *runs = json_array();
	double lo = s->runs[0], hi = s->runs[0], sum = 0;

	for (size_t i = 0; i < s->n; i++) {
		json_array_append_new(runs, jnum(s->runs[i]));
		sum += s->runs[i];
		lo = s->runs[i] < lo ? s->runs[i] : lo;
		hi = s->runs[i] > hi ? s->runs[i] : hi;
	}
	*mean = sum / (double)s->n;
	*spread = hi - lo;
	return xjson_pack("{s:o, s:o, s:o, s:I, s:I}", "per_unit", jnum(*mean), "runs", runs,
			  "spread", jnum(*spread), "units", (json_int_t)s->units,
			  "dropped", (json_int_t)s->dropped);
}

/* Transfers per unit @v as modelled time per unit: all within a node, all across. */
static json_t *cost_json(const struct coh_model *m, double v)
{
	return xjson_pack("{s:o, s:o}", "node_ns", jnum(v * m->ns_node),
			  "remote_ns", jnum(v * m->ns_remote));
}

json_t *coh_compare_json(const struct attr_side *base, const struct attr_side *patched,
			 long window, long top, const struct coh_model *m, struct strbuf *err)
{
	struct cmp_rows funcs = { 0 }, lines = { 0 };
	struct side_sum sum[2];
	int nk = patched ? 2 : 1;
	json_t *out = NULL;

	if (side_load(base, 0, window, &funcs, &lines, &sum[0], err) ||
	    (patched && side_load(patched, 1, window, &funcs, &lines, &sum[1], err)))
		goto done;
	double mean[2] = { 0, 0 }, spread[2] = { 0, 0 };
	size_t n[2] = { sum[0].n, patched ? sum[1].n : 1 };

	json_t *b = side_json(&sum[0], &mean[0], &spread[0]);

	json_object_set_new(b, "cost_ns_per_unit", cost_json(m, mean[0]));
	out = xjson_pack("{s:I, s:o}", "window", (json_int_t)window, "baseline", b);
	if (patched) {
		json_t *p = side_json(&sum[1], &mean[1], &spread[1]);
		double change, noise;

		json_object_set_new(p, "cost_ns_per_unit", cost_json(m, mean[1]));
		json_object_set_new(out, "patched", p);
		change = mean[1] - mean[0];
		noise = spread[0] > spread[1] ? spread[0] : spread[1];
		json_object_set_new(out, "change", jnum(change));
		json_object_set_new(out, "change_cost_ns_per_unit", cost_json(m, change));
		/* beyond what the runs of either kernel differ by among themselves */
		json_object_set_new(out, "beyond_spread", json_boolean(fabs(change) > noise));
	}
	json_object_set_new(out, "functions", rows_json(&funcs, n, nk, top, 0));
	json_object_set_new(out, "lines", rows_json(&lines, n, nk, top, 1));
done:
	rows_release(&funcs);
	rows_release(&lines);
	return out;
}
