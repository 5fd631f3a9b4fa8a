// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.html: the bisection as a page a maintainer reads in ten seconds,
 * in every mode. The answer comes first (the culprit, its subject,
 * Message-Id and its own effect; or why there is none), then the whole
 * series' change, every step (its kernels, verdicts, runs and a link to
 * its report.html), the levels the probes measured, and for --per-patch a
 * waterfall per tracked metric: each patch's own step as a bar from the
 * level before it to the level after (the baseline is 0 %), its interval
 * as a whisker, coloured by verdict, then the whole series as measured.
 * The bars share one axis per plot so they compare down the column; the
 * labels are HTML beside them, so a subject wraps instead of being cut.
 * The page is report_html_begin()'s: no scripts, no external references.
 * Every string from the state (mail subjects, kernel names, folders) is
 * escaped: mail is untrusted input.
 */
#include "bisect.h"
#include "bisect_doc.h"
#include "escape.h"
#include "html_kit.h"
#include "report.h"
#include "report_view.h"
#include "stats.h"
#include "xjson.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W_PLOT	320	/* a bar row's plot, px */
#define ROW	22

static const char bisect_css[] =
	"table.bars td.lbl{min-width:14em}table.bars td.plot{width:320px;padding:0 4px}" /* W_PLOT */
	"table.bars td.plot svg{display:block}"
	"svg.bar rect.b{fill:currentColor;fill-opacity:.8}svg.bar .wh{stroke:var(--fg);stroke-width:1.5}"
	"svg .grid{stroke:var(--line);stroke-width:1}svg .zero{stroke:var(--muted);"
	"stroke-dasharray:3 2}svg.bar.v-none rect.b,svg.bar.v-other rect.b{fill:var(--neutral);"
	"fill-opacity:.5}"
	"table.bars tr.axis svg text{font-size:10px}h1 code{font-size:inherit}"
	".answer{font-size:16px;margin:6px 0}.wf-legend{display:flex;flex-wrap:wrap;gap:4px 16px;"
	"color:var(--muted);font-size:12.5px;margin:6px 0}.wf-legend svg{display:inline-block;"
	"vertical-align:middle;margin-right:4px}.muted{color:var(--muted)}\n";

struct page {
	const struct bisect_doc *d;
	long n;				/* patches in the series */
	const struct bisect_doc_end *end;
	struct step_results tracked;	/* the metrics shown: shown_metrics() */
	const struct bisect_step_runs *runs;
	size_t nr_runs;
};

/* The verdict's CSS class: v-<id> for the ones the page colours. */
static const char *verdict_cls(const char *v)
{
	return !v ? "v-none" : !strcmp(v, "regression") ? "v-regression" :
	       !strcmp(v, "improvement") ? "v-improvement" : "v-other";
}

static void badge(struct strbuf *h, const char *verdict)
{
	if (verdict)
		html_badge(h, verdict, verdict);
	else
		html_muted(h, "not measured");
}

/* "-76.3 % [-77.3, -75.5]": the change and its interval, or what is missing. */
static void effect(struct strbuf *h, const struct step_result *r)
{
	if (!r) {
		html_muted(h, "not measured");
		return;
	}
	if (isfinite(r->delta_pct))
		sb_addf(h, "%+.1f&#160;%%", r->delta_pct);
	else
		sb_adds(h, "n/a");
	if (isfinite(r->lo_pct) && isfinite(r->hi_pct))
		sb_addf(h, " [%+.1f, %+.1f]", r->lo_pct, r->hi_pct);
}

/* A patch as the page names it. */
struct patch_names {
	const char *subject, *message_id;
};

/* patches[k - 1]'s subject and Message-Id (NULL: none, or out of range). */
static struct patch_names patch_at(const struct page *p, long k)
{
	const struct bisect_doc_patch *pa = bisect_doc_patch_at(p->d, k);

	return (struct patch_names){ pa ? pa->subject : NULL, pa ? pa->message_id : NULL };
}

/* "patch 2/3: SUBJECT", the subject whole (it wraps). */
static void patch_name(struct strbuf *h, const struct page *p, long k)
{
	struct patch_names pa = patch_at(p, k);

	sb_addf(h, "patch %ld/%ld: <span class=\"subject\">", k, p->n);
	html_esc(h, pa.subject ? pa.subject : "(no subject)");
	sb_adds(h, "</span>");
}

/* Patches @first..@last, one line each with its Message-Id. */
static void patch_list(struct strbuf *h, const struct page *p, long first, long last)
{
	sb_adds(h, "<ul>");
	for (long k = first; k <= last && k >= 1; k++) {
		struct patch_names pa = patch_at(p, k);

		sb_adds(h, "<li>");
		patch_name(h, p, k);
		if (pa.message_id) {
			sb_adds(h, " <code>");
			html_esc(h, pa.message_id);
			sb_adds(h, "</code>");
		}
		sb_adds(h, "</li>");
	}
	sb_adds(h, "</ul>\n");
}

/* One row per tracked metric: workload, metric, change [interval], verdict in @results. */
static void effect_table(struct strbuf *h, const struct page *p, const struct sdoc_array *results)
{
	struct step_results rs;

	step_results_of(results, &rs);
	static const struct html_col cols[] = {
		{ "Workload", 0 }, { "Metric", 0 }, { "Change [interval]", 1 }, { "Verdict", 0 },
		{ NULL, 0 },
	};

	html_table_open(h, NULL, cols);
	for (size_t i = 0; i < p->tracked.n; i++) {
		const struct step_result *t = &p->tracked.v[i];
		const struct step_result *r = step_results_find(&rs, t->workload, t->metric);

		sb_adds(h, "<tr><td>");
		html_esc(h, t->workload);
		sb_adds(h, "</td><td>");
		html_esc(h, t->metric);
		sb_adds(h, "</td><td class=\"num\">");
		effect(h, r);
		sb_adds(h, "</td><td>");
		badge(h, r ? r->verdict_id : NULL);
		sb_adds(h, "</td></tr>");
	}
	html_table_close(h);
	sb_addc(h, '\n');
	step_results_release(&rs);
}

/* The last step of @purpose, or of @purpose whose results are @results when not NULL. */
static const struct bisect_doc_step *find_step(const struct page *p, const char *purpose,
					       const struct sdoc_array *results)
{
	const struct bisect_doc_step *v = p->d->steps.v, *found = NULL;

	for (size_t i = 0; i < p->d->steps.n; i++) {
		if (strcmp(v[i].purpose, purpose))
			continue;
		if (results && !step_results_same(&v[i].results, results))
			continue;
		found = &v[i];
	}
	return found;
}

/* "(B against A, report)": which kernels a step compared, linked to its report. */
static void step_kernels(struct strbuf *h, const struct bisect_doc_step *st)
{
	char *rel = bisect_step_path(st->dir, st->session, "report.html");

	sb_adds(h, " <span class=\"muted\">(");
	html_esc(h, st->b);
	sb_adds(h, " against ");
	html_esc(h, st->a);
	if (rel) {
		sb_adds(h, ", ");
		html_link_open(h, rel);
		sb_adds(h, "report</a>");
	}
	sb_adds(h, ")</span>");
	free(rel);
}

/* bisect --attribute: where the culprit's instructions moved (its step's report has the tables). */
static void culprit_attribution(struct strbuf *h, const struct page *p)
{
	struct view_attribution va;
	struct strbuf err = STRBUF_INIT;
	json_t *holder;

	if (!p->end->attribution)
		return;
	sb_adds(h, "<h3>Where its instructions moved</h3>\n");
	/* report_attr_decode() reads a report's member: the step's report's, copied */
	holder = xjson_pack("{s:O}", "attribution", (json_t *)p->end->attribution);
	if (report_attr_decode(holder, &va, &err)) {
		sb_adds(h, "<p>Not shown: ");
		html_esc(h, sb_str(&err));
		sb_adds(h, "</p>\n");
	} else {
		report_attr_brief(&va, h, 1);
	}
	/* a failed decode may have read some arrays already */
	report_attr_release(&va);
	json_decref(holder);
	sb_release(&err);
}

static void answer_found(struct strbuf *h, const struct page *p)
{
	const struct bisect_doc_step *st;
	int measured;
	long c = bisect_doc_long(p->end->culprit);
	struct patch_names pa = patch_at(p, c);

	sb_adds(h, "<p class=\"answer\"><strong>Culprit:</strong> ");
	patch_name(h, p, c);
	sb_adds(h, "</p>\n<dl class=\"meta\"><dt>Message-Id</dt><dd><code>");
	html_esc(h, pa.message_id ? pa.message_id : "(none)");
	sb_adds(h, "</code></dd></dl>\n<h3>Its own effect");
	st = find_step(p, "own-effect", NULL);
	if (st)
		step_kernels(h, st);
	sb_adds(h, "</h3>\n");
	effect_table(h, p, &p->end->own_effect);
	culprit_attribution(h, p);
	if (c >= p->n) {
		sb_adds(h, "<p>It is the last patch: nothing comes after it.</p>\n");
		return;
	}
	if (c + 1 == p->n)
		sb_addf(h, "<h3>The remaining patch %ld", c + 1);
	else
		sb_addf(h, "<h3>The remaining patches %ld..%ld", c + 1, p->n);
	/* null (the probe placed it alone) or absent: not measured */
	measured = p->end->remaining.present == 1;
	st = measured ? find_step(p, "probe-end", &p->end->remaining) : NULL;
	if (st)
		step_kernels(h, st);
	sb_adds(h, "</h3>\n");
	if (!measured) {
		/* A probe placed the culprit with one session: that pair was never run. */
		sb_addf(h, "<p>Not measured: no finished session compared the prefix of patch %ld "
			"with the series' end (the probe placed it with one session, docs/bisect.md, "
			"or that session did not finish).</p>\n", c);
		return;
	}
	effect_table(h, p, &p->end->remaining);
}

/* Per patch: which patches moved each tracked metric (improvement or regression). */
static void answer_per_patch(struct strbuf *h, const struct page *p)
{
	sb_adds(h, "<p class=\"answer\"><strong>Per patch:</strong> each patch's own effect is "
		"measured (the waterfalls below); the patches that move a tracked metric:</p><ul>");
	for (size_t i = 0; i < p->tracked.n; i++) {
		const struct step_result *t = &p->tracked.v[i];
		const struct bisect_doc_wf_step *wf = p->end->waterfall.v;
		int any = 0;

		sb_adds(h, "<li>");
		html_esc(h, t->workload);
		sb_adds(h, " ");
		html_esc(h, t->metric);
		sb_adds(h, ":<ul>");
		for (size_t j = 0; j < p->end->waterfall.n; j++) {
			struct step_results rs;
			const struct step_result *r;

			step_results_of(&wf[j].results, &rs);
			r = step_results_find(&rs, t->workload, t->metric);
			if (r && (r->verdict == VERDICT_REGRESSION || r->verdict == VERDICT_IMPROVEMENT)) {
				sb_adds(h, "<li>");
				patch_name(h, p, bisect_doc_long(wf[j].to));
				sb_adds(h, ": ");
				effect(h, r);
				sb_adds(h, " ");
				badge(h, r->verdict_id);
				sb_adds(h, "</li>");
				any = 1;
			}
			step_results_release(&rs);
		}
		if (!any)
			sb_adds(h, "<li>none on its own, at these runs</li>");
		sb_adds(h, "</ul></li>");
	}
	sb_adds(h, "</ul>\n");
}

static void answer_other(struct strbuf *h, const struct page *p, const char *o)
{
	const struct bisect_doc_end *e = p->end;
	long first = bisect_doc_long(e->first), last = bisect_doc_long(e->last);
	long split = bisect_doc_long(e->split);

	if (!strcmp(o, "spread")) {
		sb_addf(h, "<p class=\"answer\"><strong>No single culprit:</strong> the change is "
			"spread over patches %ld..%ld (prefix %ld differs from both the baseline and "
			"the series' end).</p>\n", first, last, split);
		patch_list(h, p, first, last);
		sb_addf(h, "<p>Measure each of them with <code>mglrulab bisect --per-patch</code> "
			"(up to %d patches).</p>\n", BISECT_PER_PATCH_MAX);
	} else if (!strcmp(o, "skipped-only")) {
		sb_addf(h, "<p class=\"answer\"><strong>No culprit named:</strong> the change is in "
			"patches %ld..%ld; the prefixes between them do not build, so which one "
			"cannot be told.</p>\n", first, last);
		patch_list(h, p, first, last);
	} else if (!strcmp(o, "inconclusive")) {
		sb_addf(h, "<p class=\"answer\"><strong>No culprit yet:</strong> prefix %ld could "
			"not be placed within its step's budget; the change lies in patches "
			"%ld..%ld. Raise <code>--max-runs</code> or <code>--budget</code> and run "
			"again.</p>\n", split, first, last);
		patch_list(h, p, first, last);
	} else {
		sb_adds(h, "<p class=\"answer\"><strong>No answer:</strong> outcome ");
		html_esc(h, o);
		sb_adds(h, ".</p>\n");
	}
}

/* The answer: what the bisection found, before anything else. */
static void answer(struct strbuf *h, const struct page *p)
{
	const char *o = p->end->outcome;

	sb_adds(h, "<section id=\"answer\"><h2>Answer</h2>\n");
	if (!o)
		sb_adds(h, "<p class=\"answer\"><strong>Not finished:</strong> "
			"<code>mglrulab bisect --resume</code> continues it.</p>\n");
	else if (!strcmp(o, "found"))
		answer_found(h, p);
	else if (!strcmp(o, "not-confirmed"))
		sb_adds(h, "<p class=\"answer\"><strong>Not confirmed:</strong> the whole series "
			"shows no improvement or regression against the baseline, so there is "
			"nothing to bisect (the confirm step below).</p>\n");
	else if (!strcmp(o, "per-patch"))
		answer_per_patch(h, p);
	else
		answer_other(h, p, o);
	sb_adds(h, "</section>\n");
}

/* The change being bisected: the whole series against the baseline. */
static void whole_series(struct strbuf *h, const struct page *p)
{
	const struct bisect_doc_step *st = find_step(p, "confirm", NULL);

	if (!st)
		return;
	sb_adds(h, "<section id=\"series\"><h2>The whole series");
	step_kernels(h, st);
	sb_adds(h, "</h2>\n");
	effect_table(h, p, &st->results);
	sb_adds(h, "</section>\n");
}

/*
 * The metrics the page shows: the tracked ones, or when the series moved
 * nothing (not confirmed), the confirm step's primaries (all its metrics
 * when it has none).
 */
static void shown_metrics(struct page *p)
{
	const struct bisect_doc_step *st = find_step(p, "confirm", NULL);
	size_t n = 0;
	int primaries = 0;

	step_results_of(&p->d->tracked, &p->tracked);
	if (p->tracked.n || !st)
		return;
	step_results_release(&p->tracked);
	step_results_of(&st->results, &p->tracked);
	for (size_t i = 0; i < p->tracked.n; i++)
		primaries |= p->tracked.v[i].primary;
	for (size_t i = 0; i < p->tracked.n; i++)
		if (!primaries || p->tracked.v[i].primary)
			p->tracked.v[n++] = p->tracked.v[i];
	p->tracked.n = n;
}

/* One tracked metric's change and verdict in a step's @results, on a line of the steps table. */
static void step_verdicts(struct strbuf *h, const struct page *p, const struct sdoc_array *results)
{
	struct step_results rs;

	step_results_of(results, &rs);
	sb_adds(h, "<td class=\"num\">");
	for (size_t i = 0; i < p->tracked.n; i++) {
		const struct step_result *t = &p->tracked.v[i];

		if (i)
			sb_adds(h, "<br>");
		if (p->tracked.n > 1) {
			html_esc(h, t->metric);
			sb_adds(h, ": ");
		}
		effect(h, step_results_find(&rs, t->workload, t->metric));
	}
	sb_adds(h, "</td><td>");
	for (size_t i = 0; i < p->tracked.n; i++) {
		const struct step_result *r = step_results_find(&rs, p->tracked.v[i].workload,
								p->tracked.v[i].metric);
		if (i)
			sb_adds(h, "<br>");
		badge(h, r ? r->verdict_id : NULL);
	}
	if (!p->tracked.n)
		sb_adds(h, "<span class=\"muted\">nothing tracked</span>");
	sb_adds(h, "</td>");
	step_results_release(&rs);
}

static void step_row(struct strbuf *h, const struct page *p, size_t i,
		     const struct bisect_doc_step *st)
{
	char *rel = bisect_step_path(st->dir, st->session, "report.html");
	const struct bisect_step_runs *r = i < p->nr_runs ? &p->runs[i] : NULL;

	sb_addf(h, "<tr><td class=\"num\">%ld</td><td>", bisect_doc_long(st->step));
	html_esc(h, st->purpose);
	sb_adds(h, "</td><td><code>");
	html_esc(h, st->a);
	sb_adds(h, "</code> &#8594; <code>");
	html_esc(h, st->b);
	sb_adds(h, "</code></td>");
	step_verdicts(h, p, &st->results);
	sb_adds(h, "<td class=\"num\">");
	if (r && r->ok >= 0)
		sb_addf(h, "%ld", r->ok);
	if (r && r->failed > 0)
		sb_addf(h, " <span class=\"v-regression\">+%ld failed</span>", r->failed);
	if (!r || r->ok < 0)
		sb_adds(h, "?");
	sb_adds(h, "</td><td>");
	if (rel) {
		html_link_open(h, rel);
		sb_adds(h, "report</a>");
	}
	if (st->state && strcmp(st->state, "done")) {
		sb_adds(h, " <span class=\"muted\">");
		html_esc(h, st->state);
		sb_adds(h, "</span>");
	}
	sb_adds(h, "</td></tr>\n");
	free(rel);
}

static void steps_table(struct strbuf *h, const struct page *p)
{
	static const struct html_col cols[] = {
		{ "#", 1 }, { "Purpose", 0 }, { "Kernels", 0 }, { "Change [interval]", 1 },
		{ "Verdict", 0 }, { "Runs", 1 }, { "Report", 0 }, { NULL, 0 },
	};
	const struct bisect_doc_step *v = p->d->steps.v;

	sb_adds(h, "<section id=\"steps\"><h2>Steps</h2>\n<p class=\"sub\">Each step is an A/B "
		"session until decided: the change of the second kernel against the first, for "
		"the tracked metrics; runs are both kernels' runs that gave a value.</p>\n");
	html_table_open(h, NULL, cols);
	sb_addc(h, '\n');
	for (size_t i = 0; i < p->d->steps.n; i++)
		step_row(h, p, i, &v[i]);
	html_table_close(h);
	sb_adds(h, "</section>\n");
}

/* ---- bar rows: the waterfall and the probes' levels ---- */

struct bar {
	char *label;		/* raw: escaped when written */
	double from, to;	/* levels in percent of the baseline */
	double lo, hi;		/* the step's interval, as levels (NAN: none) */
	const char *verdict;
	char *href;		/* its step's report, relative; NULL: none */
};

/* From level @at, a change of @pct percent. */
static double step_level(double at, double pct)
{
	return (1.0 + at / 100.0) * (1.0 + pct / 100.0) * 100.0 - 100.0;
}

struct scale {
	double min, max, tick;	/* the axis, and the distance between its ticks */
	int nticks;		/* min, min + tick, ... max */
};

/* An axis over every bar and whisker and 0, with round ticks (1, 2 or 5 times a power of 10). */
static struct scale bar_scale(const struct bar *b, int n)
{
	struct scale s = { 0, 0, 1, 0 };

	for (int i = 0; i < n; i++) {
		double v[] = { b[i].from, b[i].to, b[i].lo, b[i].hi };
		for (int j = 0; j < 4; j++)
			if (isfinite(v[j])) {
				s.min = fmin(s.min, v[j]);
				s.max = fmax(s.max, v[j]);
			}
	}
	double raw = (s.max - s.min) / 5.0, p = pow(10.0, floor(log10(raw > 0 ? raw : 1)));
	s.tick = raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
	s.min = floor(s.min / s.tick - 0.2) * s.tick;
	s.max = ceil(s.max / s.tick + 0.2) * s.tick;
	s.nticks = (int)lround((s.max - s.min) / s.tick) + 1;
	return s;
}

static double bar_x(const struct scale *s, double v)
{
	return 4 + (v - s->min) / (s->max - s->min) * (W_PLOT - 8);
}

/* The grid lines of @s and the baseline's 0 in a row of height @ht. */
static void bar_grid(struct strbuf *h, const struct scale *s, int ht)
{
	for (int i = 0; i < s->nticks; i++) {
		double t = s->min + i * s->tick;

		sb_addf(h, "<line class=\"%s\" x1=\"%.1f\" y1=\"0\" x2=\"%.1f\" y2=\"%d\"/>",
			fabs(t) < s->tick / 2 ? "zero" : "grid", bar_x(s, t), bar_x(s, t), ht);
	}
}

static void bar_row(struct strbuf *h, const struct scale *s, const struct bar *b)
{
	double x0 = bar_x(s, fmin(b->from, b->to)), x1 = bar_x(s, fmax(b->from, b->to));

	sb_adds(h, "<tr><td class=\"lbl\" title=\"");
	html_esc(h, b->label);
	sb_adds(h, "\">");
	if (b->href)
		html_link_open(h, b->href);
	html_esc(h, b->label);
	sb_addf(h, "%s</td><td class=\"plot\"><svg class=\"bar %s\" width=\"%d\" height=\"%d\" "
		"role=\"img\"><title>", b->href ? "</a>" : "", verdict_cls(b->verdict), W_PLOT, ROW);
	html_esc(h, b->label);
	sb_addf(h, ": %+.1f %% to %+.1f %% of the baseline, %s</title>", b->from, b->to,
		b->verdict ? b->verdict : "not measured");
	bar_grid(h, s, ROW);
	sb_addf(h, "<rect class=\"b\" x=\"%.1f\" y=\"5\" width=\"%.1f\" height=\"%d\"/>", x0,
		fmax(x1 - x0, 1.5), ROW - 10);
	if (isfinite(b->lo) && isfinite(b->hi))
		sb_addf(h, "<line class=\"wh\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>",
			bar_x(s, b->lo), ROW / 2.0, bar_x(s, b->hi), ROW / 2.0);
	sb_addf(h, "</svg></td><td class=\"num\">%+.1f&#160;%% &#8594; %+.1f&#160;%%</td><td>",
		b->from, b->to);
	badge(h, b->verdict);
	sb_adds(h, "</td></tr>\n");
}

/* The axis under the rows: a label per tick, in percent of the baseline. */
static void bar_axis(struct strbuf *h, const struct scale *s)
{
	sb_addf(h, "<tr class=\"axis\"><td class=\"muted\">%% of the baseline</td><td class=\"plot\">"
		"<svg width=\"%d\" height=\"18\">", W_PLOT);
	for (int i = 0; i < s->nticks; i++) {
		double t = s->min + i * s->tick;

		sb_addf(h, "<text x=\"%.1f\" y=\"12\" text-anchor=\"middle\">", bar_x(s, t));
		if (fabs(t) < s->tick / 2)
			sb_adds(h, "0</text>");
		else
			sb_addf(h, "%+g</text>", t);
	}
	sb_adds(h, "</svg></td><td></td><td></td></tr>\n");
}

static void legend(struct strbuf *h)
{
	static const char *const items[][2] = {
		{ "v-regression", "regression" }, { "v-improvement", "improvement" },
		{ "v-other", "no change, within noise or inconclusive" },
	};

	sb_adds(h, "<p class=\"wf-legend\">");
	for (size_t i = 0; i < ARRAY_SIZE(items); i++)
		sb_addf(h, "<span><svg class=\"bar %s\" width=\"14\" height=\"10\"><rect class=\"b\" "
			"width=\"14\" height=\"10\"/></svg>%s</span>", items[i][0], items[i][1]);
	sb_adds(h, "<span><svg class=\"bar\" width=\"18\" height=\"10\"><line class=\"wh\" x1=\"0\" "
		"y1=\"5\" x2=\"18\" y2=\"5\"/></svg>the step's interval</span><span><svg width=\"10\" "
		"height=\"14\"><line class=\"zero\" x1=\"5\" y1=\"0\" x2=\"5\" y2=\"14\"/></svg>0: the "
		"baseline</span><span>a bar goes from the level before the step to the level after"
		"</span></p>\n");
}

static void bar_table(struct strbuf *h, const struct bar *b, int n, const char *what)
{
	struct scale s = bar_scale(b, n);

	legend(h);
	const struct html_col cols[] = {
		{ what, 0 }, { "Level", 0 }, { "From &#8594; to", 1 }, { "Verdict", 0 },
		{ NULL, 0 },
	};

	html_table_open(h, "bars", cols);
	sb_addc(h, '\n');
	for (int i = 0; i < n; i++)
		bar_row(h, &s, &b[i]);
	bar_axis(h, &s);
	html_table_close(h);
	sb_addc(h, '\n');
}

static void bars_free(struct bar *b, int n)
{
	for (int i = 0; i < n; i++) {
		free(b[i].label);
		free(b[i].href);
	}
	free(b);
}

/* @r's change applied from level @at into @b. */
static void bar_from(struct bar *b, double at, const struct step_result *r)
{
	double d = r ? r->delta_pct : NAN;

	b->from = at;
	b->to = isfinite(d) ? step_level(at, d) : at;
	b->lo = r ? step_level(at, r->lo_pct) : NAN;
	b->hi = r ? step_level(at, r->hi_pct) : NAN;
	b->verdict = r ? r->verdict_id : NULL;
}

/* The link to the step that compared @a with @b, or NULL. */
static char *step_href(const struct page *p, const char *purpose, const char *a, const char *b)
{
	const struct bisect_doc_step *v = p->d->steps.v;
	char *rel = NULL;

	for (size_t i = 0; i < p->d->steps.n; i++)
		if (!strcmp(v[i].purpose, purpose) && (!a || !strcmp(v[i].a, a)) && b &&
		    !strcmp(v[i].b, b)) {
			free(rel);
			rel = bisect_step_path(v[i].dir, v[i].session, "report.html");
		}
	return rel;
}

/* The bar of the whole series, measured directly: the confirm step. */
static void whole_bar(const struct page *p, const struct step_result *t, struct bar *b)
{
	bar_from(b, 0, t);
	b->label = xstrdup("whole series (measured)");
	b->href = step_href(p, "confirm", NULL, p->d->series_kernel);
}

static void metric_heading(struct strbuf *h, const struct step_result *t)
{
	sb_adds(h, "<h3>");
	html_esc(h, t->workload);
	sb_adds(h, " ");
	html_esc(h, t->metric);
	sb_adds(h, "</h3>\n");
}

/* The waterfall of one tracked metric from the per-patch steps and the confirm step. */
static void metric_waterfall(struct strbuf *h, const struct page *p, const struct step_result *t)
{
	const struct bisect_doc_wf_step *wf = p->end->waterfall.v;
	size_t n = p->end->waterfall.n;
	struct bar *b = xcalloc(n + 1, sizeof(*b));
	double level = 0;

	for (size_t i = 0; i < n; i++) {
		long from = bisect_doc_long(wf[i].from), to = bisect_doc_long(wf[i].to);
		struct patch_names pa = patch_at(p, to);
		struct step_results rs;

		step_results_of(&wf[i].results, &rs);
		bar_from(&b[i], level, step_results_find(&rs, t->workload, t->metric));
		/* Patches merged after a prefix that did not build: the step names them all. */
		if (from + 1 < to)
			b[i].label = xasprintf("%ld..%ld. %s", from + 1, to,
					       pa.subject ? pa.subject : "(no subject)");
		else
			b[i].label = xasprintf("%ld. %s", to, pa.subject ? pa.subject : "(no subject)");
		b[i].href = step_href(p, "per-patch", wf[i].a, wf[i].b);
		level = b[i].to;
		step_results_release(&rs);
	}
	whole_bar(p, t, &b[n]);
	metric_heading(h, t);
	bar_table(h, b, (int)n + 1, "Patch");
	bars_free(b, (int)n + 1);
}

static void waterfalls(struct strbuf *h, const struct page *p)
{
	if (!p->end->waterfall.present)
		return;
	sb_adds(h, "<section id=\"waterfall\"><h2>Waterfall</h2>\n<p class=\"sub\">Each patch's "
		"own effect, from the level of the patches before it; the last bar is the whole "
		"series measured directly. Each label links to its step's report.</p>\n");
	for (size_t i = 0; i < p->tracked.n; i++)
		metric_waterfall(h, p, &p->tracked.v[i]);
	sb_adds(h, "</section>\n");
}

/* Prefix @k as measured against the baseline (its probe-base step), into @b. */
static void probe_bar(const struct page *p, const struct step_result *t, long k, const char *cls,
		      struct bar *b)
{
	const struct bisect_doc_step *v = p->d->steps.v, *st = NULL;
	static const struct sdoc_array none;
	struct bisect_doc_prefix pre;
	struct step_results rs;

	bisect_doc_prefix_at(p->d, k, &pre);
	for (size_t i = 0; i < p->d->steps.n; i++)
		if (pre.kernel && !strcmp(v[i].purpose, "probe-base") && !strcmp(v[i].b, pre.kernel))
			st = &v[i];
	step_results_of(st ? &st->results : &none, &rs);
	bar_from(b, 0, step_results_find(&rs, t->workload, t->metric));
	step_results_release(&rs);
	b->label = xasprintf("prefix %ld (patches 1..%ld): %s", k, k, cls ? cls : "?");
	b->href = st ? bisect_step_path(st->dir, st->session, "report.html") : NULL;
}

/* Search mode: each probed prefix's level against the baseline, and the whole series. */
static void levels(struct strbuf *h, const struct page *p)
{
	const struct bisect_doc_probe *pr = p->d->probes.v;
	size_t n = p->d->probes.n;
	struct bisect_doc_prefix pre;

	if (p->end->waterfall.present || (!n && !p->d->prefixes))
		return;
	sb_adds(h, "<section id=\"levels\"><h2>Levels</h2>\n<p class=\"sub\">Each prefix the "
		"search probed (the first K patches), measured against the baseline, and where the "
		"search placed it: at the baseline, at the series' end, or between.</p>\n");
	for (size_t m = 0; m < p->tracked.n; m++) {
		struct bar *b = xcalloc(n + 1, sizeof(*b));

		for (size_t i = 0; i < n; i++)
			probe_bar(p, &p->tracked.v[m], bisect_doc_long(pr[i].prefix), pr[i].cls,
				  &b[i]);
		whole_bar(p, &p->tracked.v[m], &b[n]);
		metric_heading(h, &p->tracked.v[m]);
		bar_table(h, b, (int)n + 1, "Prefix");
		bars_free(b, (int)n + 1);
	}
	for (long k = 1; k < p->n; k++)
		if (!bisect_doc_prefix_at(p->d, k, &pre) && pre.builds == 0)
			sb_addf(h, "<p>Prefix %ld does not build: skipped.</p>\n", k);
	sb_adds(h, "</section>\n");
}

static void header(struct strbuf *h, const struct page *p)
{
	sb_adds(h, "<header><h1>Bisection: <code>");
	long max_runs = bisect_doc_long(p->d->settings.max_runs);

	html_esc(h, p->d->baseline);
	sb_adds(h, "</code> &#8594; <code>");
	html_esc(h, p->d->series_kernel);
	sb_addf(h, "</code></h1><p class=\"sub\">mglrulab bisect &middot; %ld patch%s &middot; %s",
		p->n, p->n == 1 ? "" : "es",
		p->d->settings.per_patch == 1 ? "per patch" : "search");
	if (max_runs)
		sb_addf(h, " &middot; at most %ld runs per kernel and workload in a step",
			max_runs);
	sb_adds(h, "</p></header>\n");
}

void bisect_html(struct strbuf *h, const struct bisect_doc *d,
		 const struct bisect_step_runs *runs, size_t nr_runs)
{
	struct page p = {
		.d = d, .n = bisect_doc_long(d->n), .end = &d->result,
		.runs = runs, .nr_runs = nr_runs,
	};
	char *title;

	shown_metrics(&p);
	title = xasprintf("mglrulab bisect %s..%s", d->baseline ? d->baseline : "",
			  d->series_kernel ? d->series_kernel : "");
	report_html_begin(h, title, bisect_css);
	free(title);
	header(h, &p);
	answer(h, &p);
	whole_series(h, &p);
	steps_table(h, &p);
	levels(h, &p);
	waterfalls(h, &p);
	sb_adds(h, "<footer>Generated by mglrulab " MGLRULAB_VERSION " from bisect.json "
		"(" BISECT_SCHEMA ").</footer>\n</body></html>\n");
	step_results_release(&p.tracked);
}
