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

#include "strbuf.h"

/*
 * Forest-plot cell: the ratio interval [lo, hi] and point @ratio on a log
 * axis centred on 1.0, with the +-@threshold noise band shaded. @verdict is
 * a verdict or change id used as the CSS class of the interval.
 */
void svg_forest(struct strbuf *sb, double ratio, double lo, double hi, double threshold,
		int better_higher, const char *verdict);

/* One row of points per kernel with the median and its interval (a result object). */
void svg_strip(struct strbuf *sb, const json_t *result, const char *base_name,
	       const char *patched_name);

/* Value against run order, coloured by kernel; outliers ringed (a result object). */
void svg_run_order(struct strbuf *sb, const json_t *result);

#endif
