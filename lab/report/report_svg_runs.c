// SPDX-License-Identifier: GPL-2.0
/*
 * The per-run strip beside a primary (issue 50): one dot per run, the
 * baseline on the upper line and the patched kernel on the lower, on the
 * row's own scale, small enough to sit under the metric's name. Where the
 * forest plot says how sure the change is, this shows what it rests on:
 * a bimodal metric, one far run, two kernels that overlap. Each dot's
 * <title> names its run and value (a tooltip; no script).
 */
#include "report_svg.h"
#include "escape.h"
#include "report_priv.h"

#include <math.h>
#include <stdio.h>

#define RUNS_W		120.0
#define RUNS_H		22.0
#define RUNS_PAD	4.0	/* the dots' radius and a little: none is cut at an end */

void svg_runs_inline(struct strbuf *sb, const struct result_record *res, const char *base_name,
		     const char *patched_name)
{
	const char *name[2] = { base_name, patched_name };
	double lo = INFINITY, hi = -INFINITY;

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < res->side[k].nvalues; i++)
			if (isfinite(res->side[k].values[i])) {
				lo = fmin(lo, res->side[k].values[i]);
				hi = fmax(hi, res->side[k].values[i]);
			}
	if (!isfinite(lo))
		return;
	sb_addf(sb, "<svg class=\"runs\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>each run's value, one line per kernel</title>", RUNS_W, RUNS_H, RUNS_W,
		RUNS_H);
	for (int k = 0; k < 2; k++) {
		const struct result_side *s = &res->side[k];
		double y = 6 + 10 * k;

		sb_addf(sb, "<line class=\"axl\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>",
			RUNS_PAD, y, RUNS_W - RUNS_PAD, y);
		for (size_t i = 0; i < s->nvalues; i++) {
			double v = s->values[i];
			/* all runs equal: the middle */
			double x = hi > lo ? RUNS_PAD + (v - lo) / (hi - lo) * (RUNS_W - 2 * RUNS_PAD) :
				   RUNS_W / 2;
			char num[48], title[160];

			if (!isfinite(v))
				continue;
			fmt_num(num, sizeof(num), v);
			snprintf(title, sizeof(title), "run #%lld: %s", (long long)s->runs[i], num);
			sb_addf(sb, "<circle class=\"pt k%d\" cx=\"%.2f\" cy=\"%.0f\" r=\"2.5\"><title>",
				k, x, y);
			sb_add_xml(sb, name[k] ? name[k] : "?");
			sb_adds(sb, " ");
			sb_add_xml(sb, title);
			sb_adds(sb, "</title></circle>");
		}
	}
	sb_adds(sb, "</svg>");
}
