/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's "coherence" member (run --coherence, reports/SCHEMA.md):
 * its text section, "Cache-line transfers (model)", and its HTML section.
 * Nothing when the report has none. The member is read as untrusted: a
 * member of the wrong type reads as absent, every string is escaped.
 */
#ifndef MGLRULAB_REPORT_COH_H
#define MGLRULAB_REPORT_COH_H

#include "strbuf.h"

#include <jansson.h>

void report_coh_text(const json_t *report, struct strbuf *sb);
/*
 * The reply mail's: per window, the transfers per unit of each kernel, the
 * change and whether it is beyond the runs' spread, and the (at most 3)
 * functions whose transfers moved most; no latency model, no lines.
 */
void report_coh_brief(const json_t *report, struct strbuf *sb);
void report_coh_html(const json_t *report, struct strbuf *sb);

struct report_view;

/*
 * What the model measured for the answer line of @workload's @metric
 * (report_coh_answer.c): the window that measured it (the only one, or
 * the one of the metric's CPU count), patched - baseline transfers per
 * unit, the larger of the two kernels' spreads and whether the change is
 * beyond it. Its own quantity: never a change of the metric's rate.
 */
/*
 * The smallest change of transfers per unit the answer counts as a
 * cache-line change: 0.05 is 2.5-6.5 ns per unit at the latency model's
 * 50-130 ns, under a percent of a context switch on hardware (about 1 us).
 * Below it a change beyond the runs' spread is still shown, not counted:
 * the demo's control (a private mm) moved by -0.002 per yield, beyond its
 * two runs' spread of 0.0018, which is no finding about the series.
 */
#define COH_ANSWER_MIN_CHANGE	0.05

struct coh_answer {
	int present;		/* 0: no figures for this line (none run, one kernel, ...) */
	long window;
	double change, spread;
	int beyond;		/* |change| beyond the larger spread of the two kernels' runs */
	int counts;		/* beyond, and at least COH_ANSWER_MIN_CHANGE */
	const char *unit;	/* "yield", "add", "unit" (static) */
};

/* 1 and @out filled when the report has figures for the line; else 0. */
int report_coh_answer(const struct report_view *v, const char *workload, const char *metric,
		      struct coh_answer *out);

#endif
