/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workloads' own tables (struct report_layout in workload_def.h): a
 * report's results arranged the way each workload's linux-mm thread
 * showed them, rendered by report_text_layout.c and report_html_tables.c. Built from
 * the results alone (medians, change, verdict) and, for per-run tables,
 * the runs, read from the decoded report (report_view.h), so it needs
 * nothing the JSON does not hold. Internal to lab/report.
 */
#ifndef LAB_REPORT_LAYOUT_H
#define LAB_REPORT_LAYOUT_H

#include <stddef.h>

#include "report_view.h"
#include "strbuf.h"
#include "util.h"
#include "workload_def.h"

struct layout_cell {
	double base, patched, delta_pct;	/* NaN: not in the results */
	const char *verdict;			/* the result's verdict id, or NULL */
	const struct result_record *res;	/* the result itself, or NULL */
	/* layout->per_run: each measured run's value, [0] baseline, [1] patched, in run order */
	size_t n[2];
	double *v[2];
	long long *seq[2];
};

struct layout_table {
	const struct report_layout *layout;
	struct strbuf title;		/* "yp_shared, yp_private: Context switches ..." (unescaped) */
	struct strvec groups;		/* column group labels ("mm=shared"; "" when ungrouped) */
	struct strvec rows;		/* row labels */
	size_t ncols;			/* items per group (LAYOUT_SWEEP), 1 (LAYOUT_ROWS) */
	struct layout_cell *cells;	/* [(row * groups.n + group) * ncols + col] */
};

/*
 * The tables of the analysed report @v (decoded, or made by
 * report_analyze_view()), in the order of its workloads: one per workload,
 * or one per type for a layout with group_by. Workloads without a layout,
 * or without a result for any cell, have none. Returns how many; free with
 * layout_tables_free().
 */
size_t layout_tables_view(const struct report_view *v, struct layout_table **out);
void layout_tables_free(struct layout_table *t, size_t n);

/*
 * layout->per_run (one group, one column): the runs of kernel @k (0
 * baseline, 1 patched) that any row has a value of, in run order, into
 * @seqs (at most @max; -1 when there are more), and the value of run @seq
 * in @c (NaN when that run has none).
 */
int layout_run_columns(const struct layout_table *t, int k, long long *seqs, size_t max,
		       size_t *n);
double layout_run_value(const struct layout_cell *c, int k, long long seq);

/*
 * A cell, a row (every group and column) or a column (one group's
 * column, every row) that no kernel has a value in: a renderer may
 * leave it out rather than show a column of "no value".
 */
int layout_cell_empty(const struct layout_cell *c);
int layout_row_empty(const struct layout_table *t, size_t row);
int layout_column_empty(const struct layout_table *t, size_t group, size_t col);

static inline struct layout_cell *layout_cell(const struct layout_table *t, size_t row,
					      size_t group, size_t col)
{
	return &t->cells[(row * t->groups.n + group) * t->ncols + col];
}

/* The column label of item @col (LAYOUT_SWEEP) or the table's unit heading. */
static inline const char *layout_col_label(const struct layout_table *t, size_t col)
{
	return t->layout->kind == LAYOUT_SWEEP ? t->layout->items[col].label : "";
}

#endif
