// SPDX-License-Identifier: GPL-2.0
/*
 * report.html's opening sections (report_html_priv.h): the answer, as the
 * text report and the mail open (report_headline.h), then the context -
 * what was compared, where and how, and where a sequential session
 * stopped - and the verdicts counted.
 */
#include "report.h"
#include "html_kit.h"
#include "report_headline.h"
#include "report_html_priv.h"
#include "report_priv.h"
#include "report_view.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where each workload of a `run --until decided` session stopped. */
static void sequential_stops(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<ul class=\"stops\">");
	for (size_t i = 0; i < v->sequential.nworkloads; i++) {
		const struct view_seq_workload *w = &v->sequential.workloads[i];
		const char *why = str_or(w->why, "");

		sb_adds(sb, "<li><b>");
		html_esc(sb, w->name);
		sb_adds(sb, "</b>: ");
		if (!strcmp(why, "decided"))
			sb_addf(sb, "every primary decided at look %lld (%.0f runs per kernel)",
				(long long)w->look, w->runs_per_kernel);
		else if (!strcmp(why, "max-runs"))
			sb_addf(sb, "stopped at the run cap (%.0f runs per kernel), undecided",
				w->runs_per_kernel);
		else if (!strcmp(why, "budget"))
			sb_adds(sb, "stopped by the budget, undecided");
		else if (!strcmp(why, "below-first-look"))
			sb_addf(sb, "its own cap of %.0f runs per kernel is below the first look",
				w->runs_per_kernel);
		else if (!strcmp(why, "placed"))
			sb_addf(sb, "placed against the bisection's midpoint at look "
				"%lld (%.0f runs per kernel)", (long long)w->look, w->runs_per_kernel);
		else
			sb_adds(sb, "no look decided it");
		sb_adds(sb, "</li>");
	}
	sb_adds(sb, "</ul>");
}

/* How a `run --until decided` session looked and where each workload stopped. */
static void sequential_items(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_sequential *plan = &v->design.sequential;

	if (!plan->present)
		return;
	sb_addf(sb, "<dt>Until</dt><dd>decided: looks at %lld, %lld, &hellip; up to %lld runs per "
		"kernel, alpha %g spent over the looks (", (long long)plan->min_runs,
		(long long)(plan->min_runs + plan->step), (long long)plan->max_runs, plan->alpha);
	html_esc(sb, str_or(plan->method, "sequential"));
	sb_adds(sb, ")");
	if (plan->budget_s > 0)
		sb_addf(sb, "; budget %.0f s of runs", plan->budget_s);
	sequential_stops(v, sb);
	if (report_view_budget_stopped(v)) {
		struct strbuf line = STRBUF_INIT;

		report_view_budget_resume_line(v, &line);
		sb_adds(sb, "<p class=\"budget\">");
		html_esc(sb, sb_str(&line));
		sb_adds(sb, "</p>");
		sb_release(&line);
	}
	sb_adds(sb, "</dd>");
}

/* "Compared": each kernel, where it came from, and its patches. */
static void compared_item(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<dt>Compared</dt><dd>");
	for (size_t i = 0; i < v->nkernels; i++) {
		const struct sdoc_kernel *k = &v->kernels[i];
		const char *src = str_or(k->source, ""), *slash = strrchr(src, '/');
		size_t np = k->series.n;

		if (i)
			sb_adds(sb, " &middot; ");
		sb_adds(sb, "<b>");
		html_esc(sb, str_or(k->name, "?"));
		sb_adds(sb, "</b>: ");
		if (k->version) {
			sb_adds(sb, "Linux ");
			html_esc(sb, k->version);
			sb_adds(sb, " from ");
		}
		html_esc(sb, slash && slash[1] ? slash + 1 : src);
		if (k->ref) {
			sb_adds(sb, " at ");
			html_esc(sb, k->ref);
		}
		if (np)
			sb_addf(sb, " + %zu patch%s", np, np == 1 ? "" : "es");
	}
	sb_adds(sb, "</dd>");
}

/* "Where": the host and the guest. */
static void where_item(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<dt>Where</dt><dd>");
	html_esc(sb, str_or(v->host.hostname, "?"));
	sb_adds(sb, ": ");
	html_esc(sb, str_or(v->host.cpu, "?"));
	sb_adds(sb, ", accel <b>");
	html_esc(sb, str_or(v->host.accel, "?"));
	sb_adds(sb, "</b>; guest ");
	html_esc(sb, str_or(v->guest.doc.name, "?"));
	sb_addf(sb, " (%lld vCPUs, %zu NUMA nodes%s%s)</dd>", v->guest.doc.vcpus,
		v->guest.nnodes,
		v->guest.has_icount_shift ? "; guest time counts instructions (icount): " : "",
		v->guest.has_icount_shift ? REPORT_ICOUNT_BLIND : "");
	if (v->note) {
		sb_adds(sb, "<dt>Note</dt><dd>");
		html_esc(sb, v->note);
		sb_adds(sb, "</dd>");
	}
}

/* "How": the design and the statistics. */
static void how_item(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_statistics *st = &v->statistics;
	char *except = report_view_runs_exceptions(v);

	sb_addf(sb, "<dt>How</dt><dd>%s%lld runs per kernel",
		v->design.sequential.present ? "up to " : "", (long long)v->design.runs_per_kernel);
	if (except) {
		sb_adds(sb, " (");
		html_esc(sb, except);
		sb_adds(sb, ")");
		free(except);
	}
	sb_addf(sb, " (fresh boot each), %lld warm-up, order ", (long long)v->design.warmups);
	html_esc(sb, str_or(v->design.order, "-"));
	char *slots = report_view_slots_phrase(v);
	if (slots)
		html_esc(sb, slots);
	free(slots);
	sb_addf(sb, "; medians, %.0f%% bootstrap interval of the ratio (%lld resamples), "
		"Mann-Whitney U, BH q within families, alpha %g, noise band &plusmn;%g%% (",
		100 * st->confidence, (long long)st->resamples, st->alpha, 100 * st->threshold);
	html_esc(sb, str_or(st->threshold_source, "[stats] threshold"));
	sb_adds(sb, ")</dd>");
}

/* The context, after the answer: what was compared, where and how. */
void report_html_context(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<section id=\"context\"><dl class=\"meta\">");
	compared_item(v, sb);
	sb_adds(sb, "<dt>Workloads</dt><dd>");
	for (size_t i = 0; i < v->nworkloads; i++) {
		if (i)
			sb_adds(sb, ", ");
		html_esc(sb, str_or(v->workloads[i].name, "?"));
	}
	sb_adds(sb, "</dd>");
	where_item(v, sb);
	how_item(v, sb);
	sequential_items(v, sb);
	sb_adds(sb, "</dl></section>\n");
}

/* The index of the result @l answers for, to link its details; -1: none. */
static long answer_result(const struct report_view *v, const struct headline_line *l)
{
	for (size_t i = 0; i < v->nresults; i++)
		if (v->results[i].metric == l->metric && v->results[i].workload == l->workload)
			return (long)i;
	return -1;
}

/* A primary's row; @culprits: the report knows which patch a regression is. */
static void answer_row(const struct report_view *v, const struct headline_line *l,
		       int culprits, struct strbuf *sb)
{
	long i = answer_result(v, l);
	char d[32], ci[48];

	headline_change(l, d, sizeof(d));
	headline_interval(l, ci, sizeof(ci));
	sb_adds(sb, "<tr><td class=\"name\">");
	if (i >= 0)
		sb_addf(sb, "<a href=\"#d%ld\">", i);
	html_esc(sb, str_or(l->workload, "?"));
	sb_adds(sb, ": ");
	html_esc(sb, str_or(l->metric, "?"));
	sb_adds(sb, i >= 0 ? "</a></td><td class=\"verdict\">" : "</td><td class=\"verdict\">");
	/* not the verdict's badge: "~" would read as a no change it is not */
	if (l->cannot_test)
		html_badge(sb, "inconclusive", "cannot test here");
	else if (l->verdict_id)
		html_verdict_badge(sb, l->verdict_id);
	/* The label beside a symbol ("~ no change"), not beside itself ("regression"). */
	if (!l->cannot_test &&
	    (!l->verdict_id || strcmp(verdict_symbol(html_verdict_class(l->verdict_id)), l->verdict_label)))
		sb_addf(sb, " %s", l->verdict_label);
	if (*l->vs_claim)
		sb_addf(sb, "<br><small>%s</small>", l->vs_claim);
	/* the coherence model's figure, its own quantity: to its section */
	if (*l->coh) {
		sb_adds(sb, "<br><small><a href=\"#coherence\">");
		html_esc(sb, l->coh);
		sb_adds(sb, "</a></small>");
	}
	sb_addf(sb, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>", d, ci);
	if (culprits) {
		sb_adds(sb, "<td>");
		html_esc(sb, str_or(l->culprit, ""));
		sb_adds(sb, "</td>");
	}
	sb_adds(sb, "</tr>\n");
}

/*
 * The answer first (report_headline.h), as the text report and the mail
 * open: one row per primary with its verdict, change and interval, what
 * is undecided and what it would take, and the warnings with the metrics
 * they name. The context follows it.
 */
void report_html_answer(const struct report_view *v, struct strbuf *sb)
{
	struct headline h;
	struct strbuf t = STRBUF_INIT;

	headline_build(v, &h);
	if (h.patched)
		headline_summary(&h, &t);
	sb_adds(sb, "<section id=\"answer\" class=\"answer\"><h2>The answer: ");
	if (h.patched) {
		html_esc(sb, sb_str(&t));
		sb_adds(sb, h.primaries ? " <small>(primary metrics)</small>" :
			" <small>(every metric: no primaries declared)</small>");
	} else {
		sb_adds(sb, "one kernel measured, nothing compared");
	}
	sb_adds(sb, "</h2>");
	if (h.nlines) {
		sb_addf(sb, "<div class=\"tw\"><table class=\"answer\"><thead><tr><th>Workload: "
			"metric</th><th class=\"verdict\">Verdict</th><th class=\"num\">Change</th>"
			"<th class=\"num\">%s</th>%s</tr></thead><tbody>\n",
			!strcmp(h.lines[0].interval, "RCI") ? "RCI" : "Interval",
			h.culprit_known ? "<th>Culprit</th>" : "");
		for (size_t i = 0; i < h.nlines; i++)
			answer_row(v, &h.lines[i], h.culprit_known, sb);
		sb_adds(sb, "</tbody></table></div>");
	}
	if (h.quiet)
		sb_addf(sb, "<p class=\"muted\">%ld other metric%s: no change or within the noise "
			"band.</p>", h.quiet, h.quiet == 1 ? "" : "s");
	if (h.nvalidity)
		sb_adds(sb, "<div class=\"validity\"><strong>What this guest can test</strong><ul>");
	for (size_t i = 0; i < h.nvalidity; i++)
		html_li(sb, h.validity[i].text);
	if (h.nvalidity)
		sb_adds(sb, "</ul></div>");
	if (!h.nlines && !h.quiet && !h.ntodo)
		sb_adds(sb, "<p class=\"muted\">No verdict to give: the tables below show what was "
			"measured.</p>");
	if (h.ntodo)
		sb_adds(sb, "<div class=\"undecided\"><strong>Undecided, and what it would take"
			"</strong><ul>");
	for (size_t i = 0; i < h.ntodo; i++)
		html_li(sb, h.todo[i].text);
	sb_adds(sb, h.ntodo ? "</ul></div></section>\n" : "</section>\n");
	if (h.nwarnings)
		sb_adds(sb, "<section class=\"warnings\" id=\"warnings\"><strong>Warnings</strong><ul>");
	for (size_t i = 0; i < h.nwarnings; i++)
		html_li(sb, h.warnings[i].text);
	if (h.nwarnings)
		sb_adds(sb, "</ul></section>\n");
	sb_release(&t);
	headline_release(&h);
}

/* One badge per verdict id with its count in @c (summary.verdicts or the like). */
static void verdict_badges(struct strbuf *sb, const struct view_counts *c)
{
	static const char *const ids[] = {
		"improvement", "regression", "within-noise", "no-change", "inconclusive", "invalid",
	};
	const long n[] = { c->improvement, c->regression, c->within_noise, c->no_change,
			   c->inconclusive, c->invalid };

	sb_adds(sb, "<div class=\"counts\">");
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		const char *sym = verdict_symbol(ids[i]), *label = verdict_label(ids[i]);
		char text[96];

		/* "≈ significant, within noise" but not "improvement improvement". */
		snprintf(text, sizeof(text), "%s%s%s: %lld", strcmp(sym, label) ? sym : "",
			 strcmp(sym, label) ? " " : "", label, (long long)n[i]);
		html_badge(sb, ids[i], text);
	}
	sb_adds(sb, "</div>");
}

void report_html_verdicts(const struct report_view *v, struct strbuf *sb)
{
	const struct view_summary *sm = &v->summary;

	sb_addf(sb, "<section id=\"verdicts\"><h2>Verdicts</h2>");
	if (sm->primaries) {
		sb_addf(sb, "<h3>Primary metrics (%lld)</h3>", (long long)sm->primaries);
		verdict_badges(sb, &sm->primary_verdicts);
		sb_adds(sb, "<h3>All metrics</h3>");
	}
	verdict_badges(sb, &sm->verdicts);
	sb_addf(sb, "<p class=\"muted\">%lld metrics, %lld counters, %lld runs "
		"(%lld failed, %lld warm-up).</p></section>\n",
		(long long)sm->metrics, (long long)sm->counters, (long long)sm->runs,
		(long long)sm->runs_failed, (long long)sm->runs_warmup);
}
