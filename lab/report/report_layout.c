// SPDX-License-Identifier: GPL-2.0
#include "report_layout.h"
#include "report_priv.h"
#include "report_view.h"
#include "sort_cmp.h"
#include "view_decode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * N in @name if it is an instance of the one-%d @pattern
 * ("cs_per_sec_per_cpu_%dcpu" against "cs_per_sec_per_cpu_16cpu": 16).
 * 0 with *@n set, or -1.
 */
static int pattern_number(const char *pattern, const char *name, long *n)
{
	const char *pct = strstr(pattern, "%d");
	size_t pre;
	char *end;

	if (!pct || strstr(pct + 2, "%d") || !metric_pattern_match(pattern, name))
		return -1;
	pre = (size_t)(pct - pattern);
	if (name[pre] < '0' || name[pre] > '9')
		return -1;
	*n = strtol(name + pre, &end, 10);
	return 0;
}

/* A name the report may lack (a workload without a name or type): "". */
static const char *name_of(const char *s)
{
	return s ? s : "";
}

/* @run's value of @metric, NaN when it has none. */
static double run_metric_value(const struct run_record *run, const char *metric)
{
	for (size_t i = 0; i < run->nr_metrics; i++)
		if (!strcmp(run->metrics[i].name, metric))
			return run->metrics[i].value;
	return NAN;
}

/* Each measured (ok, not warm-up) run's value of @metric, per kernel. */
static void fill_runs(struct layout_cell *c, const struct report_view *view,
		      const char *workload, const char *metric)
{
	const char *kn[2] = { name_of(view->design.baseline), name_of(view->design.patched) };

	for (size_t i = 0; i < view->runs.n; i++) {
		const struct run_record *run = &view->runs.v[i];
		double v = run_metric_value(run, metric);

		if (strcmp(run->workload, workload) || !run->ok || run->warmup || !isfinite(v))
			continue;
		for (int k = 0; k < 2; k++) {
			if (strcmp(run->kernel, kn[k]))
				continue;
			c->v[k] = xrealloc(c->v[k], (c->n[k] + 1) * sizeof(*c->v[k]));
			c->seq[k] = xrealloc(c->seq[k], (c->n[k] + 1) * sizeof(*c->seq[k]));
			c->v[k][c->n[k]] = v;
			c->seq[k][c->n[k]++] = run->seq;
			break;
		}
	}
}

/* The result of @workload's @metric, or NULL. */
static const struct result_record *find_result(const struct report_view *v,
					       const char *workload, const char *metric)
{
	for (size_t i = 0; i < v->nresults; i++)
		if (!strcmp(name_of(v->results[i].workload), workload) &&
		    !strcmp(name_of(v->results[i].metric), metric))
			return &v->results[i];
	return NULL;
}

static void fill_cell(struct layout_cell *c, const struct result_record *res)
{
	c->base = c->patched = c->delta_pct = NAN;
	c->verdict = NULL;
	c->res = res;
	if (!res)
		return;
	c->base = res->side[0].median;
	c->patched = res->side[1].median;
	c->delta_pct = res->change.delta_pct;
	c->verdict = res->verdict_id;
}

/* "mm=shared": @w's value of @param, lab.conf's or the default. */
static void group_label(const struct sdoc_workload *w, const struct workload_def *def,
			const char *param, struct strvec *out)
{
	const json_t *v = vd_param(w->params, param);
	const struct param_def *p = workload_param(def, param);

	if (json_is_string(v))
		strvec_pushf(out, "%s=%s", param, json_string_value(v));
	else if (json_is_integer(v))
		strvec_pushf(out, "%s=%lld", param, (long long)json_integer_value(v));
	else
		strvec_pushf(out, "%s=%s", param, p ? p->def : "?");
}

/* The distinct N of the items' patterns over the workloads @ws, sorted. */
static size_t sweep_numbers(const struct report_view *view, const struct report_layout *l,
			    const struct sdoc_workload *const *ws, size_t nw, long **out)
{
	long *v = NULL, n;
	size_t cnt = 0, i, k;

	for (i = 0; i < view->nresults; i++) {
		const char *wn = name_of(view->results[i].workload);
		const char *m = name_of(view->results[i].metric);
		int mine = 0;

		for (k = 0; k < nw; k++)
			mine |= !strcmp(wn, name_of(ws[k]->name));
		for (k = 0; mine && l->items[k].metric; k++) {
			size_t j;

			if (pattern_number(l->items[k].metric, m, &n))
				continue;
			for (j = 0; j < cnt && v[j] != n; j++)
				;
			if (j == cnt) {
				v = xrealloc(v, (cnt + 1) * sizeof(*v));
				v[cnt++] = n;
			}
		}
	}
	if (cnt)
		qsort(v, cnt, sizeof(*v), cmp_long);
	*out = v;
	return cnt;
}

/* Fill @t for the workloads @ws of one type; 0 when no cell has a result. */
static int build(const struct report_view *v, const struct workload_def *def,
		 const struct sdoc_workload *const *ws, size_t nw, struct layout_table *t)
{
	const struct report_layout *l = def->layout;
	long *nums = NULL;
	size_t nitems = 0, nrows, r, g, c, found = 0;
	char name[256];

	while (l->items[nitems].metric)
		nitems++;
	t->layout = l;
	for (g = 0; g < nw; g++) {
		sb_addf(&t->title, "%s%s", g ? ", " : "", ws[g]->name ? ws[g]->name : "?");
		if (l->group_by)
			group_label(ws[g], def, l->group_by, &t->groups);
		else
			strvec_push(&t->groups, "");
	}
	sb_addf(&t->title, ": %s", l->title);
	/* A single column's label goes into the title: the headers name the groups. */
	if (l->kind == LAYOUT_SWEEP && nitems == 1)
		sb_addf(&t->title, " (%s)", l->items[0].label);
	if (l->kind == LAYOUT_SWEEP) {
		nrows = sweep_numbers(v, l, ws, nw, &nums);
		t->ncols = nitems;
		for (r = 0; r < nrows; r++)
			strvec_pushf(&t->rows, "%ld", nums[r]);
	} else {
		nrows = nitems;
		t->ncols = 1;
		for (r = 0; r < nrows; r++)
			strvec_push(&t->rows, l->items[r].label);
	}
	t->cells = xcalloc(nrows * nw * t->ncols + 1, sizeof(*t->cells));
	for (r = 0; r < nrows; r++)
		for (g = 0; g < nw; g++)
			for (c = 0; c < t->ncols; c++) {
				const struct result_record *res;

				if (l->kind == LAYOUT_SWEEP) {
					const char *pct = strstr(l->items[c].metric, "%d");

					snprintf(name, sizeof(name), "%.*s%ld%s",
						 (int)(pct - l->items[c].metric), l->items[c].metric,
						 nums[r], pct + 2);
				} else {
					snprintf(name, sizeof(name), "%s", l->items[r].metric);
				}
				res = find_result(v, name_of(ws[g]->name), name);
				found += res != NULL;
				fill_cell(layout_cell(t, r, g, c), res);
				if (l->per_run)
					fill_runs(layout_cell(t, r, g, c), v,
						  name_of(ws[g]->name), name);
			}
	free(nums);
	return found > 0;
}

static void table_release(struct layout_table *t)
{
	for (size_t i = 0; t->cells && i < t->rows.n * t->groups.n * t->ncols; i++)
		for (int k = 0; k < 2; k++) {
			free(t->cells[i].v[k]);
			free(t->cells[i].seq[k]);
		}
	sb_release(&t->title);
	strvec_clear(&t->groups);
	strvec_clear(&t->rows);
	free(t->cells);
}

size_t layout_tables_view(const struct report_view *v, struct layout_table **out)
{
	struct layout_table *tabs = NULL;
	size_t n = 0, i, j;

	for (i = 0; i < v->nworkloads; i++) {
		const struct sdoc_workload *w = &v->workloads[i];
		const struct workload_def *def = workload_find(name_of(w->type));
		const struct sdoc_workload **ws;
		size_t nw = 0;
		int seen = 0;

		if (!def || !def->layout || def->layout->kind == LAYOUT_NONE)
			continue;
		ws = xcalloc(v->nworkloads, sizeof(*ws));
		if (def->layout->group_by) {
			/* One table per type, where its first workload is. */
			for (j = 0; j < v->nworkloads; j++) {
				if (strcmp(name_of(v->workloads[j].type), def->name))
					continue;
				if (j < i)
					seen = 1;
				ws[nw++] = &v->workloads[j];
			}
		} else {
			ws[nw++] = w;
		}
		if (!seen) {
			tabs = xrealloc(tabs, (n + 1) * sizeof(*tabs));
			memset(&tabs[n], 0, sizeof(tabs[n]));
			if (build(v, def, ws, nw, &tabs[n]))
				n++;
			else
				table_release(&tabs[n]);
		}
		free(ws);
	}
	/* none built: no array either (the callers free only what they were given tables in) */
	if (!n) {
		free(tabs);
		tabs = NULL;
	}
	*out = tabs;
	return n;
}

/* The value of run @seq in @c's kernel @k, or NaN. */
double layout_run_value(const struct layout_cell *c, int k, long long seq)
{
	for (size_t i = 0; i < c->n[k]; i++)
		if (c->seq[k][i] == seq)
			return c->v[k][i];
	return NAN;
}

/* The runs of kernel @k over every row, in order, into @seqs; -1 if more than @max. */
int layout_run_columns(const struct layout_table *t, int k, long long *seqs, size_t max, size_t *n)
{
	*n = 0;
	for (size_t row = 0; row < t->rows.n; row++) {
		const struct layout_cell *c = layout_cell(t, row, 0, 0);

		for (size_t i = 0; i < c->n[k]; i++) {
			size_t j = 0;

			while (j < *n && seqs[j] < c->seq[k][i])
				j++;
			if (j < *n && seqs[j] == c->seq[k][i])
				continue;
			if (*n == max)
				return -1;
			memmove(seqs + j + 1, seqs + j, (*n - j) * sizeof(*seqs));
			seqs[j] = c->seq[k][i];
			(*n)++;
		}
	}
	return 0;
}

int layout_cell_empty(const struct layout_cell *c)
{
	return !isfinite(c->base) && !isfinite(c->patched);
}

int layout_row_empty(const struct layout_table *t, size_t row)
{
	for (size_t g = 0; g < t->groups.n; g++)
		for (size_t c = 0; c < t->ncols; c++)
			if (!layout_cell_empty(layout_cell(t, row, g, c)))
				return 0;
	return 1;
}

int layout_column_empty(const struct layout_table *t, size_t group, size_t col)
{
	for (size_t r = 0; r < t->rows.n; r++)
		if (!layout_cell_empty(layout_cell(t, r, group, col)))
			return 0;
	return 1;
}

void layout_tables_free(struct layout_table *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		table_release(&t[i]);
	free(t);
}
