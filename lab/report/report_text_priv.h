/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of report.txt share, and nothing outside lab/report/
 * includes: report_text.c (the document: the order of its sections, its
 * title, the answer, the context and the verdict counts),
 * report_text_kit.c (the 80-column cells: fitting, wrapping, padding and
 * the numbers every table prints), report_text_tables.c (the primaries,
 * each workload's other metrics and the counters), report_text_layout.c
 * (the workloads' own tables, report_layout.h) and report_text_notes.c
 * (the markers, the notes and the legend). Each section appends to @sb;
 * what came from the session is made safe (escape.h) before it is shown.
 */
#ifndef LAB_REPORT_TEXT_PRIV_H
#define LAB_REPORT_TEXT_PRIV_H

#include "report_result.h"
#include "report_view.h"
#include "strbuf.h"
#include "util.h"

#include <stddef.h>

/* A row's label, and a median's column. */
#define NAME_W	24
#define NUM_W	9

/*
 * The text report's one word for "no value": report_fmt.c's "-" would
 * read as the regression marker in a column of markers and numbers.
 */
#define NO_VALUE	"n/a"

/* How many counters the text report shows. */
#define COUNTERS_SHOWN	12

/*
 * A flush point (strbuf.h): a streamed output may be written out here,
 * where no caller holds a position in @sb. A failed write is reported by
 * the sink's owner (sb_sink_finish()), so the renderer carries on.
 */
static inline void flush_point(struct strbuf *sb)
{
	LAB_IGNORE(sb_flush_point(sb));
}

/* @s, or @def when the report has none. */
static inline const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* The kernels' names as the tables head their columns. */
static inline const char *base_name(const struct report_view *v)
{
	return str_or(v->design.baseline, "base");
}

static inline const char *patched_name(const struct report_view *v)
{
	return str_or(v->design.patched, "patched");
}

/* A session of one kernel: its tables have no patched, diff or verdict column. */
static inline int one_kernel(const struct report_view *v)
{
	return !v->design.patched;
}

/* report_text_kit.c: the cells, in columns counted in code points */
void txt_pad_to(struct strbuf *sb, size_t line_start, size_t col);
void txt_no_value(char *buf, size_t size);
size_t txt_fit(struct strbuf *sb, const char *s, size_t width);
void txt_num_cell(char *buf, size_t size, double v);
void txt_pct_cell(char *buf, size_t size, double pct);
void txt_wrap(struct strbuf *sb, const char *prefix, const char *text);
void txt_right_text(struct strbuf *sb, const char *s, size_t width);
size_t txt_row_name(struct strbuf *sb, const char *name, size_t width);
void txt_end_row(struct strbuf *sb);

/* report_text_tables.c: the tables of results, in the document's order */
void report_text_primaries(const struct report_view *v, struct strbuf *sb);
void report_text_metrics(const struct report_view *v, struct strbuf *sb);
void report_text_counters(const struct report_view *v, struct strbuf *sb);

/* report_text_layout.c: the workloads' own tables, as their threads showed them */
void report_text_layout(const struct report_view *v, struct strbuf *sb);

/* report_text_notes.c: a row's one-character marker, the notes, the legend */
const char *txt_marker_of(const struct result_record *res);
const char *txt_counter_marker(const struct result_record *c);
void report_text_notes(const struct report_view *v, struct strbuf *sb);
void report_text_legend(const struct report_view *v, struct strbuf *sb);

#endif
