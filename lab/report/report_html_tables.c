// SPDX-License-Identifier: GPL-2.0
/*
 * report.html's tables of results (report_html_priv.h): the primary and
 * the other metrics, each row with its verdict, change, interval and
 * forest plot on the table's one axis; the workloads' own tables, as
 * their threads showed them (report_layout.h); a session's hosts one by
 * one and pooled; the geometric means; the counters, those that did not
 * move folded.
 */
#include "report.h"
#include "html_kit.h"
#include "report_html_priv.h"
#include "report_layout.h"
#include "report_result.h"
#include "report_svg.h"
#include "report_validity.h"
#include "report_view.h"

#include <math.h>
#include <string.h>

/* The verdict (metrics) or change (counters) id of @res; NULL: none. */
static const char *result_id(const struct result_record *res)
{
	return res->is_counter ? res->change_id : res->verdict_id;
}

/* Which way is better for @res: counters have no better. */
static enum svg_better result_better(const struct result_record *res)
{
	if (res->is_counter)
		return SVG_BETTER_NONE;
	return res->better && !strcmp(res->better, "lower") ? SVG_BETTER_LOWER : SVG_BETTER_HIGHER;
}

/* Widen @ax to @res's change and noise band. */
static void axis_add_result(struct svg_forest_axis *ax, const struct result_record *res)
{
	const struct result_change *c = &res->change;

	svg_forest_axis_add(ax, c->ratio, c->lo, c->hi);
	if (isfinite(res->threshold) && res->threshold > 0 && res->threshold < 1)
		svg_forest_axis_add(ax, 1, 1 - res->threshold, 1 + res->threshold);
}

/*
 * The ratio the series claims for @res (lab.conf [claim], report.json
 * "claim"), NaN when it claims none for it or says no size and direction.
 */
static double claimed_ratio(const struct report_view *v, const struct result_record *res)
{
	const struct view_claim *c = &v->claim;

	if (!c->direction || !isfinite(c->size_pct) ||
	    !validity_claim_applies(c, res->workload, res->metric))
		return NAN;
	/* A claim with no metric names the primaries. */
	if (!c->metric && !res->primary)
		return NAN;
	return 1 + (!strcmp(c->direction, "lower") ? -c->size_pct : c->size_pct) / 100;
}

/* The same, with the claimed ratio @claim (NaN: none) marked on the plot. */
static void change_cells_claim(struct strbuf *sb, const struct svg_forest_axis *ax,
			       const struct result_record *res, double claim)
{
	const struct result_change *c = &res->change;
	const char *id = result_id(res);
	char d[32], ci[64];

	fmt_pct(d, sizeof(d), c->delta_pct);
	fmt_ratio_ci(ci, sizeof(ci), c->lo, c->hi);
	sb_addf(sb, "<td class=\"num\">%s</td><td class=\"num\">%s</td>", d, ci);
	sb_adds(sb, "<td class=\"plot\">");
	svg_forest_claimed(sb, ax, c->ratio, c->lo, c->hi, res->threshold, result_better(res),
			   html_verdict_class(id ? id : "invalid"), claim);
	sb_adds(sb, "</td>");
}

/* The change, its interval and its forest plot on the table's axis @ax. */
static void change_cells(struct strbuf *sb, const struct svg_forest_axis *ax,
			 const struct result_record *res)
{
	change_cells_claim(sb, ax, res, NAN);
}

/* The two medians. */
static void median_cells(struct strbuf *sb, const struct result_record *res)
{
	html_td_num(sb, res->side[0].median);
	html_td_num(sb, res->side[1].median);
}

static void p_cell(struct strbuf *sb, const struct result_record *res)
{
	char p[16];

	fmt_p(p, sizeof(p), res->p_used);
	sb_addf(sb, "<td class=\"num\">%s</td>", p);
}

/*
 * The heading of a results table's columns: the verdict and the change
 * first, so they stay in view on a narrow screen; the plots' column carries
 * the table's one axis.
 */
static void results_head(const struct report_view *v, struct strbuf *sb, const char *first,
			 const char *verdict, const struct svg_forest_axis *ax)
{
	sb_adds(sb, "<thead><tr>");
	sb_adds(sb, first);
	sb_addf(sb, "<th class=\"verdict\">%s</th><th class=\"num\">Change</th>"
		"<th class=\"num\">Interval</th><th class=\"plot\">", verdict);
	svg_forest_head(sb, ax);
	sb_adds(sb, "</th><th class=\"num\">");
	html_esc(sb, kname(v, 0));
	sb_adds(sb, "</th><th class=\"num\">");
	html_esc(sb, kname(v, 1));
	sb_adds(sb, "</th>");
}

/*
 * A primary whose hosts disagree (a session on several hosts): the
 * warning right under its row, where the pooled verdict is read.
 */
static void heterogeneity_row(struct strbuf *sb, const struct result_record *res)
{
	for (size_t i = 0; i < res->nwarnings; i++) {
		if (strcmp(res->warnings[i].kind, "host-heterogeneity"))
			continue;
		sb_adds(sb, "<tr class=\"het\"><td colspan=\"9\"><div class=\"warnings\">"
			"<strong>Warning:</strong> ");
		html_esc(sb, res->warnings[i].message);
		sb_addf(sb, " (<a href=\"#hosts\">per host</a>)</div></td></tr>\n");
	}
}

/*
 * @primary 1: the primaries of every workload, named "workload: metric";
 * 0: the other metrics under one heading per workload.
 */
void report_html_results(const struct report_view *v, struct strbuf *sb, int primary)
{
	struct svg_forest_axis ax;
	const char *cur = NULL;
	size_t i, n = 0;

	for (i = 0; i < v->nresults; i++)
		n += !!v->results[i].primary == primary;
	if (!n)
		return;
	/*
	 * One axis for both tables of metrics, primaries and others, so a
	 * change reads the same in either (issue 50); the claim is on it.
	 */
	svg_forest_axis_init(&ax, v->statistics.threshold);
	for (i = 0; i < v->nresults; i++) {
		double claim = claimed_ratio(v, &v->results[i]);

		axis_add_result(&ax, &v->results[i]);
		if (isfinite(claim))
			svg_forest_axis_add(&ax, claim, claim, claim);
	}
	svg_forest_axis_done(&ax);
	if (primary)
		sb_adds(sb, "<section id=\"primary\"><h2>Primary metrics</h2><p class=\"muted\">"
			"Declared before the first run: the question this session answers. "
			"Multiplicity is corrected among them alone.</p>");
	else
		sb_adds(sb, "<section id=\"results\"><h2>Other metrics</h2>");
	sb_adds(sb, "<div class=\"tw\"><table class=\"results\">");
	results_head(v, sb, "<th>Metric</th>", "Verdict", &ax);
	sb_adds(sb, "<th>Unit</th><th class=\"num\">p / q</th></tr></thead><tbody>\n");
	for (i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];
		const char *wn = str_or(res->workload, "");

		if (!!res->primary != primary)
			continue;
		if (!cur || strcmp(cur, wn)) {
			sb_adds(sb, "<tr class=\"wl\"><td colspan=\"9\">");
			html_esc(sb, wn);
			sb_adds(sb, "</td></tr>\n");
			cur = wn;
		}
		sb_addf(sb, "<tr class=\"metric\" id=\"m%zu\"><td class=\"name\"><a href=\"#d%zu\">",
			i, i);
		html_esc(sb, res->metric);
		sb_adds(sb, "</a>");
		/* a primary's runs under its name: what the verdict rests on, in no new column */
		if (primary)
			svg_runs_inline(sb, res, kname(v, 0), kname(v, 1));
		sb_adds(sb, "</td>");
		html_td_verdict(sb, res->verdict_id);
		change_cells_claim(sb, &ax, res, claimed_ratio(v, res));
		median_cells(sb, res);
		html_td_text(sb, res->unit ? res->unit : "");
		p_cell(sb, res);
		sb_adds(sb, "</tr>\n");
		if (primary)
			heterogeneity_row(sb, res);
		flush_point(sb);
	}
	sb_adds(sb, "</tbody></table></div></section>\n");
}

/* layout->per_run: every run's value under its kernel, as thpscale showed them. */
#define LT_HTML_RUNS_MAX 20

static void layout_runs_html(const struct report_view *v, const struct layout_table *t,
			     struct strbuf *sb)
{
	long long seqs[2][LT_HTML_RUNS_MAX];
	size_t n[2];

	if (!t->layout->per_run || t->groups.n != 1 || t->ncols != 1)
		return;
	for (int k = 0; k < 2; k++)
		if (layout_run_columns(t, k, seqs[k], LT_HTML_RUNS_MAX, &n[k]))
			return;
	if (!n[0] && !n[1])
		return;
	sb_adds(sb, "<div class=\"tw\"><table class=\"results layout\"><thead><tr><th>Each run</th>");
	for (int k = 0; k < 2; k++) {
		if (!n[k])
			continue;
		sb_addf(sb, "<th colspan=\"%zu\">", n[k]);
		html_esc(sb, kname(v, k));
		sb_adds(sb, "</th>");
	}
	sb_adds(sb, "</tr><tr><th></th>");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < n[k]; i++)
			sb_addf(sb, "<th class=\"num\">#%lld</th>", seqs[k][i]);
	sb_adds(sb, "</tr></thead><tbody>\n");
	for (size_t row = 0; row < t->rows.n; row++) {
		sb_adds(sb, "<tr>");
		html_td_text(sb, t->rows.v[row]);
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < n[k]; i++)
				html_td_num(sb, layout_run_value(layout_cell(t, row, 0, 0), k, seqs[k][i]));
		sb_adds(sb, "</tr>\n");
	}
	sb_adds(sb, "</tbody></table></div>\n");
}

/* The workloads' own tables (report_layout.h), the way their threads showed them. */
void report_html_layout_tables(const struct report_view *v, struct strbuf *sb)
{
	struct layout_table *t;
	size_t n = layout_tables_view(v, &t);

	if (!n)
		return;
	sb_adds(sb, "<section id=\"threads\"><h2>As the threads showed them</h2><p class=\"muted\">"
		"Each workload's numbers arranged like the table of the linux-mm thread it comes "
		"from: medians of the runs, the change of the medians and its verdict.</p>\n");
	for (size_t i = 0; i < n; i++) {
		size_t cells = t[i].groups.n * t[i].ncols, cell, row, rows = 0;
		int heads = t[i].ncols > 1 || *t[i].groups.v[0];

		/* No row of dashes, and no table of nothing (as the text report). */
		for (row = 0; row < t[i].rows.n; row++)
			rows += !layout_row_empty(&t[i], row);
		if (!rows)
			continue;
		sb_adds(sb, "<h3>");
		html_esc(sb, t[i].title.buf);
		sb_adds(sb, "</h3><div class=\"tw\"><table class=\"results layout\"><thead>");
		if (heads) {
			sb_adds(sb, "<tr><th></th>");
			for (cell = 0; cell < cells; cell++) {
				const char *g = t[i].groups.v[cell / t[i].ncols];
				const char *c = t[i].ncols > 1 ? layout_col_label(&t[i], cell % t[i].ncols) : "";

				sb_adds(sb, "<th colspan=\"4\">");
				html_esc(sb, g);
				sb_adds(sb, *g && *c ? " " : "");
				html_esc(sb, c);
				sb_adds(sb, "</th>");
			}
			sb_adds(sb, "</tr>");
		}
		sb_adds(sb, "<tr><th>");
		html_esc(sb, t[i].layout->kind == LAYOUT_SWEEP ? t[i].layout->row_head : "");
		sb_adds(sb, "</th>");
		for (cell = 0; cell < cells; cell++) {
			sb_adds(sb, "<th class=\"num\">");
			html_esc(sb, kname(v, 0));
			sb_adds(sb, "</th><th class=\"num\">");
			html_esc(sb, kname(v, 1));
			sb_adds(sb, "</th><th class=\"num\">Change</th><th>Verdict</th>");
		}
		sb_adds(sb, "</tr></thead><tbody>\n");
		for (row = 0; row < t[i].rows.n; row++) {
			if (layout_row_empty(&t[i], row))
				continue;
			sb_adds(sb, "<tr>");
			html_td_text(sb, t[i].rows.v[row]);
			for (cell = 0; cell < cells; cell++) {
				const struct layout_cell *c = layout_cell(&t[i], row, cell / t[i].ncols,
									   cell % t[i].ncols);
				char d[32];

				html_td_num(sb, c->base);
				html_td_num(sb, c->patched);
				fmt_pct(d, sizeof(d), c->delta_pct);
				sb_addf(sb, "<td class=\"num\">%s</td><td>", d);
				if (c->verdict)
					html_verdict_badge(sb, c->verdict);
				else
					sb_adds(sb, "-");
				sb_adds(sb, "</td>");
			}
			sb_adds(sb, "</tr>\n");
		}
		sb_adds(sb, "</tbody></table></div>\n");
		layout_runs_html(v, &t[i], sb);
		flush_point(sb);
	}
	sb_adds(sb, "</section>\n");
	layout_tables_free(t, n);
}

/* The pooled row's heterogeneity: do the hosts disagree, Cochran's Q, van Elteren's p. */
static void host_pooled_note(struct strbuf *sb, const struct result_record *res)
{
	const struct result_pooled *pl = &res->pool;
	char p[16];

	if (result_record_has_warning(res, "host-heterogeneity"))
		sb_adds(sb, "<strong>hosts disagree</strong>, ");
	fmt_p(p, sizeof(p), pl->heterogeneity.p);
	sb_addf(sb, "Cochran's Q %.2f, p ", pl->heterogeneity.q);
	html_esc(sb, p);
	sb_addf(sb, ", I&sup2; %.0f%%; van Elteren p ", 100 * pl->heterogeneity.i2);
	fmt_p(p, sizeof(p), pl->p);
	html_esc(sb, p);
	sb_adds(sb, "</td></tr>\n");
}

/* One row of the per-host table: @h one of @res's hosts, or NULL for the pooled row. */
static void host_row(struct strbuf *sb, const struct result_record *res,
		     const struct result_host *h)
{
	char d[32], ci[64];

	sb_adds(sb, "<tr><td></td><td>");
	if (h) {
		html_esc(sb, h->host);
		sb_addf(sb, "</td><td class=\"num\">%lld / %lld</td>", (long long)h->n[0],
			(long long)h->n[1]);
		for (size_t k = 0; k < 2; k++)
			html_td_num(sb, h->median[k]);
		fmt_pct(d, sizeof(d), h->delta_pct);
		fmt_ratio_ci(ci, sizeof(ci), h->lo, h->hi);
		sb_addf(sb, "<td class=\"num\">%s</td><td class=\"num\">%s</td><td>%s</td></tr>\n",
			d, ci, h->pooled ? "" : "not pooled (no interval)");
		return;
	}
	fmt_pct(d, sizeof(d), res->pool.delta_pct);
	fmt_ratio_ci(ci, sizeof(ci), res->pool.lo, res->pool.hi);
	sb_addf(sb, "<b>pooled</b></td><td class=\"num\">%lld hosts</td><td></td><td></td>"
		"<td class=\"num\"><b>%s</b></td><td class=\"num\"><b>%s</b></td><td>",
		(long long)res->pool.hosts, d, ci);
	host_pooled_note(sb, res);
}

/*
 * A session on several hosts: per workload, each metric's results host by
 * host and pooled (the verdict's basis), with Cochran's Q.
 */
void report_html_hosts(const struct report_view *v, struct strbuf *sb)
{
	const char *cur = NULL;

	if (!v->several_hosts)
		return;
	sb_adds(sb, "<section id=\"hosts\"><h2>Per host</h2><p class=\"muted\">Each block ran on "
		"one host slot, so each host compares the kernels on its own; the verdict pools the "
		"hosts (inverse-variance weights on the log ratio, van Elteren's stratified rank "
		"test). Hosts disagree when Cochran's Q has p &lt; 0.1.</p>\n");
	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];
		const char *wn = str_or(res->workload, "");

		if (!res->nhosts)
			continue;
		if (!cur || strcmp(cur, wn)) {
			if (cur)
				sb_adds(sb, "</tbody></table></div>\n");
			sb_adds(sb, "<h3>");
			html_esc(sb, wn);
			sb_adds(sb, "</h3><div class=\"tw\"><table class=\"results hosts\"><thead><tr>"
				"<th>Metric</th><th>Host</th><th class=\"num\">Runs</th><th class=\"num\">");
			html_esc(sb, kname(v, 0));
			sb_adds(sb, "</th><th class=\"num\">");
			html_esc(sb, kname(v, 1));
			sb_adds(sb, "</th><th class=\"num\">Change</th><th class=\"num\">Interval</th>"
				"<th></th></tr></thead><tbody>\n");
			cur = wn;
		}
		sb_adds(sb, "<tr class=\"metric\"><td colspan=\"8\">");
		html_esc(sb, res->metric);
		sb_adds(sb, "</td></tr>\n");
		for (size_t j = 0; j < res->nhosts; j++)
			host_row(sb, res, &res->hosts[j]);
		host_row(sb, res, NULL);
		flush_point(sb);
	}
	sb_adds(sb, "</tbody></table></div></section>\n");
}

void report_html_geomean(const struct report_view *v, struct strbuf *sb)
{
	struct svg_forest_axis ax;

	if (!v->ngeomean)
		return;
	svg_forest_axis_init(&ax, v->statistics.threshold);
	for (size_t i = 0; i < v->ngeomean; i++)
		svg_forest_axis_add(&ax, v->geomean[i].ratio, v->geomean[i].lo, v->geomean[i].hi);
	svg_forest_axis_done(&ax);
	sb_adds(sb, "<section id=\"geomean\"><h3>Geometric mean per workload</h3><p class=\"muted\">Each metric's ratio "
		"oriented so that &gt; 1 means the patched kernel is better; interval from a joint "
		"bootstrap over runs.</p><div class=\"tw\"><table class=\"geomean\"><thead><tr>"
		"<th>Workload</th><th class=\"num\">Metrics</th><th class=\"num\">Patched better by</th>"
		"<th class=\"num\">Interval</th><th class=\"plot\">");
	svg_forest_head(sb, &ax);
	sb_adds(sb, "</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < v->ngeomean; i++) {
		const struct view_geomean *g = &v->geomean[i];
		char d[32], ci[64];
		double ratio = g->ratio, lo = g->lo, hi = g->hi;
		const char *cls = !isfinite(lo) ? "invalid" : lo > 1 ? "improvement" :
			hi < 1 ? "regression" : "no-change";

		fmt_pct(d, sizeof(d), 100 * (ratio - 1));
		fmt_ratio_ci(ci, sizeof(ci), lo, hi);
		sb_adds(sb, "<tr>");
		html_td_text(sb, str_or(g->workload, ""));
		sb_addf(sb, "<td class=\"num\">%lld</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td><td class=\"plot\">", (long long)g->metrics, d, ci);
		svg_forest(sb, &ax, ratio, lo, hi, v->statistics.threshold, SVG_BETTER_HIGHER, cls);
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</tbody></table></div></section>\n");
}

/* Did counter @c move: q (or p, alone in its family) below alpha? */
static int counter_moved(const struct report_view *v, const struct result_record *c)
{
	return isfinite(c->p_used) && c->p_used < v->statistics.alpha;
}

/* The counters that @moved (or not), as rows; how many the other kind has. */
static size_t counter_rows(const struct report_view *v, const struct svg_forest_axis *ax,
			   int moved, struct strbuf *sb)
{
	size_t others = 0;

	for (size_t i = 0; i < v->ncounters; i++) {
		const struct result_record *c = &v->counters[i];

		if (counter_moved(v, c) != moved) {
			others++;
			continue;
		}
		sb_adds(sb, "<tr class=\"counter\">");
		html_td_text(sb, c->workload);
		sb_adds(sb, "<td class=\"name\"><code>");
		html_esc(sb, c->metric);
		sb_adds(sb, "</code></td>");
		html_td_verdict(sb, c->change_id ? c->change_id : "invalid");
		change_cells(sb, ax, c);
		median_cells(sb, c);
		p_cell(sb, c);
		sb_adds(sb, "</tr>\n");
		flush_point(sb);
	}
	return others;
}

void report_html_counters(const struct report_view *v, struct strbuf *sb)
{
	struct svg_forest_axis ax;
	size_t nfolded;

	if (!v->ncounters)
		return;
	svg_forest_axis_init(&ax, v->statistics.threshold);
	for (size_t i = 0; i < v->ncounters; i++)
		axis_add_result(&ax, &v->counters[i]);
	svg_forest_axis_done(&ax);
	sb_adds(sb, "<section id=\"counters\"><h2>Counters</h2><p class=\"muted\">vmstat deltas, "
		"tracepoint counts and lru_gen statistics, with the same statistics as the metrics "
		"(their own BH family), sorted by size of change. Counters have no "
		"&ldquo;better&rdquo;: the badge says which way they moved.</p>");
	nfolded = 0;
	for (size_t i = 0; i < v->ncounters; i++)
		nfolded += !counter_moved(v, &v->counters[i]);
	if (nfolded < v->ncounters) {
		sb_adds(sb, "<div class=\"tw\"><table class=\"counters\">");
		results_head(v, sb, "<th>Workload</th><th>Counter</th>", "Moved", &ax);
		sb_adds(sb, "<th class=\"num\">q</th></tr></thead><tbody>\n");
		(void)counter_rows(v, &ax, 1, sb);
		sb_adds(sb, "</tbody></table></div>");
	} else {
		sb_addf(sb, "<p>No counter moved (q &lt; %g).</p>", v->statistics.alpha);
	}
	/*
	 * Issue 50: 730 rows, nearly all "?", were 21,600 px of the page.
	 * Those that did not move (q >= alpha) are folded and counted, still
	 * in the file for whoever opens them.
	 */
	if (nfolded) {
		sb_addf(sb, "<details><summary>%zu counter%s that did not move (q &ge; %g), "
			"folded</summary><div class=\"tw\"><table class=\"counters\">", nfolded,
			nfolded == 1 ? "" : "s", v->statistics.alpha);
		results_head(v, sb, "<th>Workload</th><th>Counter</th>", "Moved", &ax);
		sb_adds(sb, "<th class=\"num\">q</th></tr></thead><tbody>\n");
		(void)counter_rows(v, &ax, 0, sb);
		sb_adds(sb, "</tbody></table></div></details>");
	}
	sb_adds(sb, "</section>\n");
}
