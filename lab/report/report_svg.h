/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inline SVG plots for the HTML report. No scripts, no external
 * references; colours come from CSS classes (k0/k1 for the kernels, v-* for
 * verdicts) so the page's light/dark and print styles apply to the plots.
 * Every point carries a <title> with its run id and value: hovering shows it
 * without JavaScript.
 */
#ifndef LAB_REPORT_SVG_H
#define LAB_REPORT_SVG_H

#include <jansson.h>

#include "report_result.h"
#include "strbuf.h"

/*
 * Forest plots share one axis per table, so intervals can be compared down
 * a column: collect every row's ratio and interval with
 * svg_forest_axis_add(), fix the axis with svg_forest_axis_done(), draw
 * its tick labels and unit once in the column's heading with
 * svg_forest_head(), then each row with svg_forest(). The axis is the
 * change in percent on a log scale of the ratio (so -50% and +100% are
 * equally far from 0), centred on no change, at most x0.1 .. x10: an
 * interval beyond is clipped with an arrow at the edge.
 */
#define SVG_FOREST_TICKS_MAX 16

struct svg_forest_axis {
	double span;			/* |log ratio| at either edge */
	double ticks[SVG_FOREST_TICKS_MAX];	/* ratios with a grid line and label */
	size_t nticks;
};

/* Which way is better for a row's metric; counters have no better. */
enum svg_better { SVG_BETTER_NONE, SVG_BETTER_HIGHER, SVG_BETTER_LOWER };

/* An empty axis that shows at least the noise band +-@threshold. */
void svg_forest_axis_init(struct svg_forest_axis *ax, double threshold);
void svg_forest_axis_add(struct svg_forest_axis *ax, double ratio, double lo, double hi);
void svg_forest_axis_done(struct svg_forest_axis *ax);

/* The axis' tick labels and unit, for the heading of the plots' column. */
void svg_forest_head(struct strbuf *sb, const struct svg_forest_axis *ax);

/*
 * One row's cell: the ratio interval [lo, hi] and point @ratio on @ax, the
 * +-@threshold noise band shaded, the grid and the zero line. @verdict is
 * a verdict or change id used as the CSS class of the interval; @better
 * puts "better" on the side it points to (nothing for SVG_BETTER_NONE).
 */
void svg_forest(struct strbuf *sb, const struct svg_forest_axis *ax, double ratio, double lo,
		double hi, double threshold, enum svg_better better, const char *verdict);

/* The same with the ratio a series claims (@claim; NaN: none) marked as a dashed line. */
void svg_forest_claimed(struct strbuf *sb, const struct svg_forest_axis *ax, double ratio,
			double lo, double hi, double threshold, enum svg_better better,
			const char *verdict, double claim);

/* One row of points per kernel with the median and its interval. */
void svg_strip(struct strbuf *sb, const struct result_record *result, const char *base_name,
	       const char *patched_name);

/*
 * The primaries' inline strip (report_svg_runs.c): one dot per run with a
 * value, the baseline above the patched kernel, on the row's own scale,
 * each dot's <title> "KERNEL run #N: VALUE". Nothing when no run has one.
 */
void svg_runs_inline(struct strbuf *sb, const struct result_record *res, const char *base_name,
		     const char *patched_name);

/* Value against run order, coloured by kernel; outliers ringed. */
void svg_run_order(struct strbuf *sb, const struct result_record *result);

/*
 * A metric over nights (mglrulab history): per night its raw runs as faint
 * points, its median with the median's interval, a cross at the bottom for
 * a night whose runs failed; the level of each segment between change
 * points; and a dashed line where each change point starts, coloured by
 * the class of its change (a verdict id: regression, improvement, or
 * "change" when the metric has no better direction) and linked to @href
 * (escaped) when there is one. The value axis has round ticks, a grid and
 * @unit (NULL: none); the night axis labels up to TREND_TICKS nights
 * spread over it, always the first and the last. A night with an href
 * links its whole column to it. Strings are escaped here.
 */
#define TREND_TICKS	6
struct svg_trend_night {
	double median, lo, hi;	/* lo, hi NaN: no interval */
	const double *v;	/* the raw runs */
	size_t n, failed;
	const char *label;	/* the session, for the tooltips */
	const char *tick;	/* its label on the night axis (a date); NULL: @label */
	const char *href;	/* its report, linked from its night's column; NULL: none */
};

struct svg_trend_mark {
	size_t at;		/* the first night after the change */
	const char *cls;	/* "regression", "improvement", "change" */
	const char *title;
	const char *href;	/* NULL: no link */
};

struct svg_trend_level {
	size_t from, to;	/* nights [from, to) */
	double value;
};

/*
 * "%.2f" of @v, the coordinates' format, for the many points of a trend
 * chart (600,000 for a history of 1,000 nights of 30 metrics): the same
 * text, from the integer of hundredths when |v| < 1e6 and |v| * 100 is not
 * within 1e-6 of a half (it is then off by less than 2e-8, so it rounds
 * as printf rounds the exact value), from printf otherwise.
 */
void svg_add_coord(struct strbuf *sb, double v);

void svg_trend(struct strbuf *sb, const char *unit, const struct svg_trend_night *nights,
	       size_t k, const struct svg_trend_mark *marks, size_t nmarks,
	       const struct svg_trend_level *levels, size_t nlevels);

#endif
