// SPDX-License-Identifier: GPL-2.0
/*
 * report.html's per-metric details (report_html_priv.h): for each metric
 * its strip and run-order plots, both kernels' summary statistics, the
 * comparison (and the hosts pooled), and each run's value, the
 * primaries' open and the other metrics' folded under their headings.
 */
#include "report.h"
#include "html_kit.h"
#include "report_html_priv.h"
#include "report_result.h"
#include "report_svg.h"
#include "report_view.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void stat_row(struct strbuf *sb, const char *label, double a, double b)
{
	sb_addf(sb, "<tr><th>%s</th>", label);
	html_td_num(sb, a);
	html_td_num(sb, b);
	sb_adds(sb, "</tr>");
}

/* A metric analysed host by host: the pooled estimate the verdict rests on. */
static void pooled_rows(const struct result_record *res, struct strbuf *sb)
{
	const struct result_pooled *pl = &res->pool;
	char a[48], b[64], p[16];

	if (!pl->present)
		return;
	fmt_pct(a, sizeof(a), pl->delta_pct);
	fmt_ratio_ci(b, sizeof(b), pl->lo, pl->hi);
	sb_addf(sb, "<tr><th>pooled over %lld hosts (<a href=\"#hosts\">per host</a>)</th>"
		"<td class=\"num\">%s %s</td></tr>", (long long)pl->hosts, a, b);
	fmt_p(p, sizeof(p), pl->p);
	sb_adds(sb, "<tr><th>van Elteren, by host (");
	html_esc(sb, pl->p_method ? pl->p_method : "none");
	sb_adds(sb, ")</th><td class=\"num\">p ");
	html_esc(sb, p);
	fmt_p(p, sizeof(p), pl->heterogeneity.p);
	sb_addf(sb, "</td></tr><tr><th>Cochran's Q (hosts disagree: p &lt; %g)</th>"
		"<td class=\"num\">%.2f, p ", pl->heterogeneity.alpha, pl->heterogeneity.q);
	html_esc(sb, p);
	sb_addf(sb, ", I&sup2; %.0f%%</td></tr>", 100 * pl->heterogeneity.i2);
}

/* The two kernels' summary statistics, one row each. */
static void side_rows(const struct result_record *res, struct strbuf *sb)
{
	const struct result_side *s0 = &res->side[0], *s1 = &res->side[1];
	const struct {
		const char *label;
		double v[2];
	} rows[] = {
		{ "median", { s0->median, s1->median } },
		{ "mean", { s0->mean, s1->mean } },
		{ "stddev", { s0->stddev, s1->stddev } },
		{ "cv", { s0->cv, s1->cv } },
		{ "mad", { s0->mad, s1->mad } },
		{ "min", { s0->min, s1->min } },
		{ "q1", { s0->q1, s1->q1 } },
		{ "q3", { s0->q3, s1->q3 } },
		{ "max", { s0->max, s1->max } },
	};

	stat_row(sb, "runs", (double)s0->n, (double)s1->n);
	stat_row(sb, "failed / missing", (double)(s0->failed + s0->missing),
		 (double)(s1->failed + s1->missing));
	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		if (strcmp(rows[i].label, "cv")) {
			stat_row(sb, rows[i].label, rows[i].v[0], rows[i].v[1]);
			continue;
		}
		/* The coefficient of variation reads best as a percentage. */
		sb_adds(sb, "<tr><th>cv</th>");
		for (int k = 0; k < 2; k++) {
			if (isfinite(rows[i].v[k]))
				sb_addf(sb, "<td class=\"num\">%.2f%%</td>", 100 * rows[i].v[k]);
			else
				sb_adds(sb, "<td class=\"num\">-</td>");
		}
		sb_adds(sb, "</tr>");
	}
}

/* Each kernel's median interval, its coverage, and whether it reached it. */
static void median_ci_row(const struct result_record *res, struct strbuf *sb)
{
	char lo[48], hi[48], buf[160];

	sb_adds(sb, "<tr><th>median interval</th>");
	for (int k = 0; k < 2; k++) {
		const struct result_side *s = &res->side[k];

		fmt_num(lo, sizeof(lo), s->median_ci.lo);
		fmt_num(hi, sizeof(hi), s->median_ci.hi);
		snprintf(buf, sizeof(buf), "[%s, %s] %.1f%%%s", lo, hi, 100 * s->median_ci.achieved,
			 s->median_ci.ok ? "" : " (too few runs)");
		sb_addf(sb, "<td class=\"num\">%s</td>", buf);
	}
	sb_adds(sb, "</tr>");
}

/* The comparison of all runs, and the pooled estimate of a session on several hosts. */
static void comparison_rows(const struct result_record *res, struct strbuf *sb)
{
	const struct result_comparison *c = &res->comparison;
	char a[48], b[64], p[16], q[16];

	sb_adds(sb, "<table class=\"cmp\" style=\"width:auto\"><tbody>");
	fmt_pct(a, sizeof(a), c->delta_pct);
	fmt_ratio_ci(b, sizeof(b), c->ci.lo, c->ci.hi);
	sb_addf(sb, "<tr><th>ratio of medians</th><td class=\"num\">%.5f (%s)</td></tr>",
		c->ratio, a);
	sb_addf(sb, "<tr><th>%.0f%% interval (", 100 * c->ci.level);
	html_esc(sb, c->ci.method ? c->ci.method : "none");
	sb_addf(sb, ", %lld resamples)</th><td class=\"num\">%s</td></tr>",
		(long long)c->ci.resamples, b);
	fmt_p(p, sizeof(p), c->mann_whitney.p);
	fmt_p(q, sizeof(q), c->q);
	sb_addf(sb, "<tr><th>Mann-Whitney U (");
	html_esc(sb, c->mann_whitney.method ? c->mann_whitney.method : "none");
	sb_addf(sb, ")</th><td class=\"num\">U %g, p %s, q %s</td></tr>", c->mann_whitney.u, p, q);
	fmt_pct(a, sizeof(a), 100 * (c->hodges_lehmann.ratio - 1));
	fmt_ratio_ci(b, sizeof(b), c->hodges_lehmann.ratio_lo, c->hodges_lehmann.ratio_hi);
	sb_addf(sb, "<tr><th>Hodges-Lehmann</th><td class=\"num\">%s %s</td></tr>", a, b);
	fmt_pct(a, sizeof(a), c->mde_pct);
	sb_addf(sb, "<tr><th>minimum detectable effect</th><td class=\"num\">&plusmn;%s</td></tr>",
		a + (a[0] == '+'));
	if (c->paired.present) {
		fmt_pct(a, sizeof(a), 100 * (c->paired.median_ratio - 1));
		fmt_p(p, sizeof(p), c->paired.p);
		sb_addf(sb, "<tr><th>paired by block (Wilcoxon, %lld pairs)</th>"
			"<td class=\"num\">%s, p %s</td></tr>", (long long)c->paired.pairs, a, p);
	}
	pooled_rows(res, sb);
	sb_adds(sb, "</tbody></table>");
}

static void detail_stats(const struct report_view *v, const struct result_record *res,
			 struct strbuf *sb)
{
	sb_adds(sb, "<table class=\"stats\" style=\"width:auto\"><thead><tr><th></th>"
		"<th class=\"num k0t\">");
	html_esc(sb, kname(v, 0));
	sb_adds(sb, "</th><th class=\"num k1t\">");
	html_esc(sb, kname(v, 1));
	sb_adds(sb, "</th></tr></thead><tbody>");
	side_rows(res, sb);
	median_ci_row(res, sb);
	/* No statistics (no values): no outliers were counted, "-" rather than 0. */
	stat_row(sb, "outliers (kept)",
		 res->side[0].summarized ? (double)res->side[0].outliers : NAN,
		 res->side[1].summarized ? (double)res->side[1].outliers : NAN);
	stat_row(sb, "drift rho", res->side[0].drift.rho, res->side[1].drift.rho);
	sb_adds(sb, "</tbody></table>");
	if (res->comparison.present)
		comparison_rows(res, sb);
}

static int side_outlier(const struct result_side *s, long run)
{
	for (size_t j = 0; j < s->noutlier_runs; j++)
		if (s->outlier_runs[j] == run)
			return 1;
	return 0;
}

static void raw_values(const struct report_view *v, const struct result_record *res,
		       struct strbuf *sb)
{
	sb_adds(sb, "<div class=\"raw\"><table><thead><tr><th>Run</th><th>Kernel</th>"
		"<th class=\"num\">Value</th><th></th></tr></thead><tbody>");
	for (int k = 0; k < 2; k++) {
		const struct result_side *s = &res->side[k];

		for (size_t i = 0; i < s->nvalues; i++) {
			long long id = s->runs[i];

			sb_addf(sb, "<tr><td><a href=\"#run%lld\">#%lld</a></td><td class=\"k%dt\">",
				id, id, k);
			html_esc(sb, kname(v, k));
			sb_adds(sb, "</td>");
			html_td_num(sb, s->values[i]);
			sb_addf(sb, "<td>%s</td></tr>", side_outlier(s, s->runs[i]) ? "outlier (kept)" : "");
		}
	}
	sb_adds(sb, "</tbody></table></div>");
}

/*
 * Each metric's distributions. The primaries' are open on the page and in
 * print; the other metrics' fold under their headings (a <details>: a
 * click opens one, a link to it lands on its heading, a printout leaves
 * it closed). Open, they were three quarters of the demo's page (28,192 of
 * 38,057 px at 1,400 px for 41 metrics, 2026-12-06), and the printout the
 * issue counted in tens of pages (issue 50: a report of a few screens).
 * The table of raw values folds away in both.
 */
void report_html_details(const struct report_view *v, struct strbuf *sb)
{
	size_t folded = 0;

	for (size_t i = 0; i < v->nresults; i++)
		folded += !v->results[i].primary;
	sb_adds(sb, "<section id=\"details\"><h2>Per-metric details</h2>\n");
	if (folded && folded < v->nresults)
		sb_addf(sb, "<p class=\"muted\">The primaries' distributions are open; the other "
			"%zu metrics' fold under their headings (open one with a click).</p>\n", folded);
	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];
		int fold = !res->primary && folded < v->nresults;

		sb_addf(sb, fold ? "<details class=\"detail\" id=\"d%zu\"><summary><h3>" :
			"<article class=\"detail\" id=\"d%zu\"><h3>", i);
		html_verdict_badge(sb, html_verdict_class(res->verdict_id ? res->verdict_id : "invalid"));
		sb_adds(sb, " ");
		html_esc(sb, res->workload);
		sb_adds(sb, " / ");
		html_esc(sb, res->metric);
		sb_adds(sb, " <span class=\"muted\">");
		html_esc(sb, res->reason ? res->reason : "");
		sb_adds(sb, fold ? "</span></h3></summary>" : "</span></h3>");
		if (res->nwarnings) {
			sb_adds(sb, "<ul>");
			for (size_t j = 0; j < res->nwarnings; j++)
				html_li(sb, res->warnings[j].message);
			sb_adds(sb, "</ul>");
		}
		sb_adds(sb, "<div class=\"plots\"><div>");
		svg_strip(sb, res, kname(v, 0), kname(v, 1));
		svg_run_order(sb, res);
		sb_adds(sb, "</div><div>");
		detail_stats(v, res, sb);
		sb_adds(sb, "</div></div><details class=\"rawv\"><summary>Each run's value</summary>");
		raw_values(v, res, sb);
		sb_adds(sb, fold ? "</details></details>\n" : "</details></article>\n");
		flush_point(sb);
	}
	sb_adds(sb, "</section>\n");
}
