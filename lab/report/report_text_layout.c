// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's section of the workloads' own tables (report_layout.h,
 * built from the view), each the way its thread showed it, in 80 columns.
 */
#include "report.h"
#include "report_layout.h"
#include "report_priv.h"
#include "report_text_priv.h"
#include "report_view.h"
#include "escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The workloads' own tables (report_layout.h), the way their threads
 * showed them: median of each kernel, the change and the verdict marker
 * per cell; at most two cells (group x column) side by side in 80
 * columns, the others in further blocks below. A cell or a row without
 * a value in any kernel is left out (a table of "n/a" says nothing), a
 * table without any value altogether; one kernel: its medians alone.
 */
#define LT_CELL_W	30	/* " %9s %9s %7s %c" */
#define LT_PER_LINE	2

/* The cells (group x column) of @t that have a value, in order, into @out; how many. */
static size_t layout_shown_cells(const struct layout_table *t, size_t *out)
{
	size_t n = 0;

	for (size_t cell = 0; cell < t->groups.n * t->ncols; cell++)
		if (!layout_column_empty(t, cell / t->ncols, cell % t->ncols))
			out[n++] = cell;
	return n;
}

/* Heading lines over a cell: word-wrapped to the cell, never run into the next one. */
#define LT_HEAD_W	(LT_CELL_W - 2)

/* @s made safe and word-wrapped to @width columns, one line per element of @out. */
static void head_lines(const char *s, size_t width, struct strvec *out)
{
	struct strbuf safe = STRBUF_INIT, line = STRBUF_INIT;
	const char *p;

	sb_add_text_safe(&safe, s);
	for (p = sb_str(&safe); *p;) {
		size_t bytes = strcspn(p, " ");
		char *word = xstrndup(p, bytes);

		if (line.len && text_safe_width(line.buf) + 1 + text_safe_width(word) > width) {
			strvec_push(out, line.buf);
			sb_reset(&line);
		}
		if (line.len)
			sb_addc(&line, ' ');
		txt_fit(&line, word, width);
		free(word);
		p += bytes;
		while (*p == ' ')
			p++;
	}
	if (line.len)
		strvec_push(out, line.buf);
	sb_release(&line);
	sb_release(&safe);
}

/* "mm=shared switches/s/CPU (host-adjusted)" over each cell, as many lines as the longest needs. */
static void layout_group_heads(struct strbuf *sb, const struct layout_table *t, size_t label_w,
			       const size_t *cells, size_t count)
{
	struct strvec lines[LT_PER_LINE] = { STRVEC_INIT, STRVEC_INIT };
	size_t nlines = 0;

	for (size_t i = 0; i < count; i++) {
		struct strbuf h = STRBUF_INIT;
		const char *g = t->groups.v[cells[i] / t->ncols];
		/* One column per group: the group says it all. */
		const char *c = t->ncols > 1 ? layout_col_label(t, cells[i] % t->ncols) : "";

		sb_addf(&h, "%s%s%s", g, *g && *c ? " " : "", c);
		head_lines(h.buf, LT_HEAD_W, &lines[i]);
		if (lines[i].n > nlines)
			nlines = lines[i].n;
		sb_release(&h);
	}
	for (size_t l = 0; l < nlines; l++) {
		size_t start = sb->len;

		sb_addf(sb, "  %*s", (int)label_w, "");
		for (size_t i = 0; i < count; i++) {
			if (l >= lines[i].n)
				continue;
			txt_pad_to(sb, start, 2 + label_w + i * LT_CELL_W + 5);
			sb_adds(sb, lines[i].v[l]);
		}
		txt_end_row(sb);
	}
	for (size_t i = 0; i < count; i++)
		strvec_clear(&lines[i]);
}

static void layout_heads(struct strbuf *sb, const struct report_view *v,
			 const struct layout_table *t, size_t label_w, const size_t *cells,
			 size_t count)
{
	size_t start;

	layout_group_heads(sb, t, label_w, cells, count);
	start = sb->len;
	sb_adds(sb, "  ");
	txt_fit(sb, t->layout->kind == LAYOUT_SWEEP ? t->layout->row_head : "", label_w);
	txt_pad_to(sb, start, 2 + label_w);
	for (size_t i = 0; i < count; i++) {
		txt_right_text(sb, base_name(v), NUM_W);
		if (one_kernel(v)) {
			sb_addf(sb, "%*s", LT_CELL_W - NUM_W - 1, "");
			continue;
		}
		txt_right_text(sb, patched_name(v), NUM_W);
		sb_addf(sb, " %7s  ", "diff");
	}
	txt_end_row(sb);
}

static void layout_cell_text(struct strbuf *sb, const struct report_view *v,
			     const struct layout_cell *c)
{
	char b[32], p[32], d[32];

	txt_num_cell(b, sizeof(b), c->base);
	if (one_kernel(v)) {
		sb_addf(sb, " %*s%*s", NUM_W, b, LT_CELL_W - NUM_W - 1, "");
		return;
	}
	txt_num_cell(p, sizeof(p), c->patched);
	txt_pct_cell(d, sizeof(d), c->delta_pct);
	sb_addf(sb, " %*s %*s %7s %s", NUM_W, b, NUM_W, p, d,
		c->res ? txt_marker_of(c->res) : " ");
}

static void layout_block(struct strbuf *sb, const struct report_view *v, const struct layout_table *t,
			 const size_t *cells, size_t count)
{
	size_t label_w = t->layout->kind == LAYOUT_SWEEP ? 6 : NAME_W;

	layout_heads(sb, v, t, label_w, cells, count);
	for (size_t r = 0; r < t->rows.n; r++) {
		if (layout_row_empty(t, r))
			continue;
		/* Numbers (CPU counts, nodes) right-aligned, names left-aligned. */
		if (t->layout->kind == LAYOUT_SWEEP) {
			size_t start = sb->len;

			sb_addf(sb, "  %*s", (int)label_w, t->rows.v[r]);
			txt_pad_to(sb, start, 2 + label_w);
		} else {
			txt_row_name(sb, t->rows.v[r], label_w);
		}
		for (size_t i = 0; i < count; i++)
			layout_cell_text(sb, v, layout_cell(t, r, cells[i] / t->ncols,
							    cells[i] % t->ncols));
		txt_end_row(sb);
	}
}

/*
 * layout->per_run: each run's value under its kernel, as thpscale's table
 * showed them ("rc2 a b c"), when every kernel has at most LT_RUNS_MAX
 * runs (80 columns); the column heads are the runs' numbers.
 */
#define LT_RUNS_MAX	3
#define LT_RUN_W	8
#define LT_RUN_LABEL_W	22

static void run_cell(struct strbuf *sb, double v)
{
	char b[32];

	fmt_num(b, sizeof(b), v);
	if (strlen(b) > LT_RUN_W)
		snprintf(b, sizeof(b), "%.2e", v);
	sb_addf(sb, " %*s", LT_RUN_W, b);
}

static void layout_runs(struct strbuf *sb, const struct report_view *v,
			const struct layout_table *t)
{
	long long seqs[2][LT_RUNS_MAX];
	size_t n[2], row, start;

	if (!t->layout->per_run || t->groups.n != 1 || t->ncols != 1)
		return;
	for (int k = 0; k < 2; k++)
		if (layout_run_columns(t, k, seqs[k], LT_RUNS_MAX, &n[k]))
			return;
	if (!n[0] && !n[1])
		return;
	sb_addc(sb, '\n');
	start = sb->len;
	sb_addf(sb, "  %-*s", LT_RUN_LABEL_W, "each run:");
	for (int k = 0; k < 2; k++) {
		if (!n[k])
			continue;
		txt_pad_to(sb, start, 2 + LT_RUN_LABEL_W + (k ? n[0] : 0) * (LT_RUN_W + 1) + 1);
		txt_fit(sb, k ? patched_name(v) : base_name(v), n[k] * (LT_RUN_W + 1) - 1);
	}
	sb_addc(sb, '\n');
	sb_addf(sb, "  %*s", LT_RUN_LABEL_W, "");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < n[k]; i++) {
			char h[24];

			snprintf(h, sizeof(h), "#%lld", seqs[k][i]);
			sb_addf(sb, " %*s", LT_RUN_W, h);
		}
	sb_addc(sb, '\n');
	for (row = 0; row < t->rows.n; row++) {
		const struct layout_cell *c = layout_cell(t, row, 0, 0);

		start = sb->len;
		sb_adds(sb, "  ");
		txt_fit(sb, t->rows.v[row], LT_RUN_LABEL_W);
		txt_pad_to(sb, start, 2 + LT_RUN_LABEL_W);
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < n[k]; i++)
				run_cell(sb, layout_run_value(c, k, seqs[k][i]));
		sb_addc(sb, '\n');
	}
}

void report_text_layout(const struct report_view *v, struct strbuf *sb)
{
	struct layout_table *t;
	size_t n = layout_tables_view(v, &t), shown = 0;

	for (size_t i = 0; i < n; i++) {
		size_t *cells = xcalloc(t[i].groups.n * t[i].ncols + 1, sizeof(*cells));
		size_t ncells = layout_shown_cells(&t[i], cells);

		if (ncells && !shown++)
			sb_adds(sb, "\nAs the threads showed them (medians of the runs):\n");
		if (ncells) {
			sb_addc(sb, '\n');
			txt_wrap(sb, "", t[i].title.buf);
		}
		for (size_t first = 0; first < ncells; first += LT_PER_LINE)
			layout_block(sb, v, &t[i], cells + first,
				     ncells - first < LT_PER_LINE ? ncells - first : LT_PER_LINE);
		if (ncells)
			layout_runs(sb, v, &t[i]);
		free(cells);
		flush_point(sb);
	}
	layout_tables_free(t, n);
}
