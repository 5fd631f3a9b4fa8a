/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of report.html share, and nothing outside lab/report/
 * includes: report_html.c (the page: its head and styles, its header and
 * the order of its sections), report_html_answer.c (the answer, the
 * context and the verdict counts), report_html_tables.c (the tables of
 * results: the primaries, the workloads' own tables, the other metrics,
 * per host, the geometric means, the counters), report_html_details.c
 * (each metric's distributions and statistics) and report_html_env.c (the
 * runs, the environment and the methodology). Each section appends to
 * @sb; what came from the session goes through html_kit.h, escaped.
 */
#ifndef LAB_REPORT_HTML_PRIV_H
#define LAB_REPORT_HTML_PRIV_H

#include "report_view.h"
#include "strbuf.h"
#include "util.h"

/*
 * A flush point (strbuf.h): a streamed output may be written out here,
 * where no caller holds a position in @sb. A failed write is reported by
 * the sink's owner (sb_sink_finish()), so the renderer carries on.
 */
static inline void flush_point(struct strbuf *sb)
{
	LAB_IGNORE(sb_flush_point(sb));
}

/* Kernel @k's name as the page shows it: 0 the baseline, 1 the patched kernel. */
static inline const char *kname(const struct report_view *v, int k)
{
	const char *name = k ? v->design.patched : v->design.baseline;

	return name ? name : k ? "patched" : "baseline";
}

/* @s, or @def when there is none. */
static inline const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* report_html_answer.c: the answer first, then what was compared, where and how */
void report_html_answer(const struct report_view *v, struct strbuf *sb);
void report_html_context(const struct report_view *v, struct strbuf *sb);
void report_html_verdicts(const struct report_view *v, struct strbuf *sb);

/*
 * report_html_tables.c: the tables of results, each on one forest-plot
 * axis; @primary 1: the primaries of every workload, 0: the other metrics
 */
void report_html_results(const struct report_view *v, struct strbuf *sb, int primary);
void report_html_layout_tables(const struct report_view *v, struct strbuf *sb);
void report_html_hosts(const struct report_view *v, struct strbuf *sb);
void report_html_geomean(const struct report_view *v, struct strbuf *sb);
void report_html_counters(const struct report_view *v, struct strbuf *sb);

/* report_html_details.c: each metric's distributions, statistics and runs */
void report_html_details(const struct report_view *v, struct strbuf *sb);

/* report_html_env.c: the runs, the environment and the methodology */
void report_html_runs(const struct report_view *v, struct strbuf *sb);
void report_html_environment(const struct report_view *v, struct strbuf *sb);
void report_html_methodology(const struct report_view *v, struct strbuf *sb);

#endif
