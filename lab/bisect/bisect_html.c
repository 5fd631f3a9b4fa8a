// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.html: the bisection's result as a page, with an inline SVG
 * waterfall per tracked metric for --per-patch: each patch's own step as
 * a bar from the level before it to the level after (the baseline is 0 %),
 * its interval as a whisker, coloured by verdict, and the whole series as
 * measured directly at the end. No scripts, no external references;
 * subjects and names are escaped (mail is untrusted input).
 */
#include "bisect.h"
#include "escape.h"
#include "stats.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W_LABEL	260
#define W_PLOT	420
#define ROW	26

struct bar {
	const char *label;	/* raw: escaped when written */
	double from, to;	/* levels in percent of the baseline */
	double lo, hi;		/* the step's interval, as levels (NAN: none) */
	const char *verdict;
};

/* From level @at, a change of @pct percent. */
static double step_level(double at, double pct)
{
	return (1.0 + at / 100.0) * (1.0 + pct / 100.0) * 100.0 - 100.0;
}

static const char *verdict_class(const char *v)
{
	return !v ? "v-none" : !strcmp(v, "regression") ? "v-regression" :
	       !strcmp(v, "improvement") ? "v-improvement" : "v-other";
}

/*
 * The label as it fits left of the plot: LABEL_MAX bytes, cut at a UTF-8
 * character boundary, with an ellipsis. The <title> keeps it whole.
 */
#define LABEL_MAX 40
static void add_label(struct strbuf *h, const char *label)
{
	size_t len = strlen(label);

	if (len <= LABEL_MAX) {
		sb_add_xml(h, label);
		return;
	}
	len = LABEL_MAX;
	while (len && ((unsigned char)label[len] & 0xc0) == 0x80)
		len--;
	char *cut = xstrndup(label, len);
	sb_add_xml(h, cut);
	sb_adds(h, "\xe2\x80\xa6");	/* U+2026 */
	free(cut);
}

static void svg_waterfall(struct strbuf *h, const struct bar *b, int n)
{
	double min = 0, max = 0;

	for (int i = 0; i < n; i++) {
		double v[] = { b[i].from, b[i].to, b[i].lo, b[i].hi };
		for (int j = 0; j < 4; j++)
			if (isfinite(v[j])) {
				min = v[j] < min ? v[j] : min;
				max = v[j] > max ? v[j] : max;
			}
	}
	double pad = (max - min) * 0.05 + 1.0;
	min -= pad;
	max += pad;
#define X(v) (W_LABEL + ((v) - min) / (max - min) * W_PLOT)
	int height = ROW * n + 24;
	sb_addf(h, "<svg class=\"waterfall\" width=\"%d\" height=\"%d\" role=\"img\">\n",
		W_LABEL + W_PLOT + 10, height);
	sb_addf(h, "<line class=\"zero\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\"/>\n", X(0.0), X(0.0),
		ROW * n);
	for (int i = 0; i < n; i++) {
		double y = i * ROW, x0 = X(fmin(b[i].from, b[i].to)), x1 = X(fmax(b[i].from, b[i].to));
		sb_addf(h, "<g class=\"%s\"><title>", verdict_class(b[i].verdict));
		sb_add_xml(h, b[i].label);
		sb_addf(h, ": %+.1f %% to %+.1f %% of the baseline, %s</title>\n", b[i].from, b[i].to,
			b[i].verdict ? b[i].verdict : "not measured");
		sb_addf(h, "<text x=\"4\" y=\"%.1f\">", y + ROW * 0.65);
		add_label(h, b[i].label);
		sb_adds(h, "</text>\n");
		sb_addf(h, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\"/>\n", x0, y + 5,
			fmax(x1 - x0, 1.0), ROW - 10);
		if (isfinite(b[i].lo) && isfinite(b[i].hi))
			sb_addf(h, "<line class=\"ci\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
				X(b[i].lo), y + ROW / 2.0, X(b[i].hi), y + ROW / 2.0);
		sb_adds(h, "</g>\n");
	}
	sb_addf(h, "<text x=\"%.1f\" y=\"%d\">%+.0f %%</text><text x=\"%.1f\" y=\"%d\">0</text>"
		"<text x=\"%.1f\" y=\"%d\" text-anchor=\"end\">%+.0f %%</text>\n", (double)W_LABEL,
		height - 6, min, X(0.0), height - 6, (double)(W_LABEL + W_PLOT), height - 6, max);
	sb_adds(h, "</svg>\n");
#undef X
}

/* The waterfall of one tracked metric from the per-patch steps and the confirm step. */
/* A result's change and interval in percent: all NaN for none. */
static void pcts(const struct step_result *r, double *d, double *lo, double *hi)
{
	*d = r ? r->delta_pct : NAN;
	*lo = r ? r->lo_pct : NAN;
	*hi = r ? r->hi_pct : NAN;
}

static void metric_waterfall(struct strbuf *h, const struct bisect_head *hd,
			     const struct step_results *tracked, const char *w, const char *m)
{
	const json_t *s;
	size_t i, n = json_array_size(hd->waterfall);
	struct bar *b = xcalloc(n + 1, sizeof(*b));
	char **labels = xcalloc(n + 1, sizeof(*labels));
	double level = 0, d, lo, hi;

	json_array_foreach(hd->waterfall, i, s) {
		struct bisect_wf_step ws;
		struct bisect_patch p;
		struct step_results rs;
		const struct step_result *r;

		bisect_wf_step_decode(s, &ws);
		bisect_patch_decode(hd, ws.to, &p);
		step_results_decode(ws.results, &rs);
		r = step_results_find(&rs, w, m);
		pcts(r, &d, &lo, &hi);
		labels[i] = xasprintf("%ld. %s", ws.to, p.subject ? p.subject : "(no subject)");
		b[i] = (struct bar){ .label = labels[i], .from = level,
				     .to = isfinite(d) ? step_level(level, d) : level,
				     .lo = step_level(level, lo), .hi = step_level(level, hi),
				     .verdict = r ? r->verdict_id : NULL };
		level = b[i].to;
		step_results_release(&rs);
	}
	const struct step_result *whole = step_results_find(tracked, w, m);
	pcts(whole, &d, &lo, &hi);
	b[n] = (struct bar){ .label = "whole series (measured)", .from = 0,
			     .to = isfinite(d) ? d : 0, .lo = lo, .hi = hi,
			     .verdict = whole ? whole->verdict_id : NULL };
	sb_adds(h, "<h2>");
	sb_add_xml(h, w);
	sb_adds(h, " ");
	sb_add_xml(h, m);
	sb_adds(h, "</h2>\n");
	svg_waterfall(h, b, (int)n + 1);
	for (i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
	free(b);
}

void bisect_html(struct strbuf *h, const json_t *st, const char *summary)
{
	struct bisect_head hd;
	struct step_results tracked;

	bisect_head_decode(st, &hd);
	step_results_decode(hd.tracked, &tracked);
	sb_adds(h, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>bisect ");
	sb_add_xml(h, hd.baseline ?: "");
	sb_adds(h, "..");
	sb_add_xml(h, hd.series_kernel ?: "");
	sb_adds(h, "</title>\n<style>body{font-family:sans-serif;max-width:60em;margin:1em auto}"
		"pre{background:#f4f4f4;padding:.5em;white-space:pre-wrap}"
		"svg text{font-size:12px}.zero{stroke:#888}.ci{stroke:#000;stroke-width:1.5}"
		".v-regression rect{fill:#d33}.v-improvement rect{fill:#2a2}"
		".v-other rect,.v-none rect{fill:#aaa}</style></head><body>\n");
	sb_adds(h, "<h1>Bisection</h1>\n<pre>");
	sb_add_xml(h, summary);
	sb_adds(h, "</pre>\n");
	for (size_t i = 0; hd.waterfall && i < tracked.n; i++)
		metric_waterfall(h, &hd, &tracked, tracked.v[i].workload, tracked.v[i].metric);
	sb_adds(h, "</body></html>\n");
	step_results_release(&tracked);
}
