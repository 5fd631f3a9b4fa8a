// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report: one self-contained file (inline CSS and SVG, no scripts,
 * no external resources) that a maintainer can open from a mail attachment
 * or a CI artifact. Every string that came from the session - config,
 * patch subjects, metric names, guest output - goes through sb_add_xml(),
 * by way of the HTML kit (html_kit.h) that bisect.html and history's page
 * share.
 * Element ids are indices, never names, so no name reaches an attribute
 * unescaped or unpredictably.
 *
 * This file is the page: its head and styles, its header, its sections in
 * order and its footer. The sections are in the files report_html_priv.h
 * names: the answer and context, the tables of results, the per-metric
 * details, and the runs, environment and methodology.
 */
#include "report.h"
#include "html_kit.h"
#include "report_coh.h"
#include "report_headline.h"
#include "report_html_priv.h"
#include "report_view.h"

static const char css[] =
	":root{--bg:#fff;--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--card:#f6f8fa;"
	"--k0:#0072b2;--k1:#d55e00;--good:#1a7f37;--bad:#cf222e;--noise:#9a6700;"
	"--neutral:#59636e;--band:rgba(120,120,120,.18);--warn-bg:#fff8c5;--warn-line:#d4a72c}\n"
	"@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;"
	"--line:#3d444d;--card:#151b23;--k0:#56b4e9;--k1:#f0884a;--good:#3fb950;--bad:#f85149;"
	"--noise:#d29922;--neutral:#9198a1;--band:rgba(200,200,200,.16);--warn-bg:#2e2a10;"
	"--warn-line:#9e6a03}}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0 auto;max-width:1280px;padding:16px 24px;background:var(--bg);color:var(--fg);"
	"font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}\n"
	"h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid "
	"var(--line);padding-bottom:4px}h3{font-size:15px;margin:14px 0 6px}\n"
	"a{color:var(--k0)}\n"
	"code,.num,td.num,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}\n"
	".sub{color:var(--muted);margin:0 0 8px}\n"
	"dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0}"
	"dl.meta dt{color:var(--muted)}dl.meta dd{margin:0}\n"
	".warnings{background:var(--warn-bg);border:1px solid var(--warn-line);border-radius:6px;"
	"padding:8px 14px;margin:12px 0}.warnings ul{margin:4px 0;padding-left:20px}\n"
	".warnings strong{font-weight:600}\n"
	"table{border-collapse:collapse;width:100%;margin:6px 0}th,td{padding:3px 8px;"
	"border-bottom:1px solid var(--line);text-align:left;vertical-align:middle}"
	"th{font-weight:600;color:var(--muted);font-size:12.5px}td.num,th.num{text-align:right;"
	"white-space:nowrap}\n"
	"tr.wl td{background:var(--card);font-weight:600}\n"
	".badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;"
	"font-weight:600;border:1px solid currentColor;white-space:nowrap}\n"
	".v-improvement{color:var(--good)}.v-regression{color:var(--bad)}"
	".v-within-noise{color:var(--noise)}.v-no-change,.v-constant{color:var(--neutral)}"
	".v-inconclusive{color:var(--noise)}.v-invalid{color:var(--bad)}"
	".v-increase,.v-decrease{color:var(--k0)}\n"
	".counts{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}.counts .badge{font-size:13px;"
	"padding:3px 10px}\n"
	"svg{display:block;overflow:visible}svg text{fill:var(--muted);font-size:9px;"
	"font-family:system-ui,sans-serif}\n"
	"svg .band{fill:var(--band)}svg .one{stroke:var(--muted);stroke-width:1;stroke-dasharray:2 2}"
	"svg .ci line{stroke:currentColor;stroke-width:2}svg .ci circle{fill:currentColor}"
	"svg .frame{fill:none;stroke:var(--line)}svg .axl{stroke:var(--line)}\n"
	"svg .pt{fill-opacity:.75}svg .k0{fill:var(--k0);color:var(--k0)}svg .k1{fill:var(--k1);"
	"color:var(--k1)}svg text.k0{fill:var(--k0)}svg text.k1{fill:var(--k1)}"
	"svg .outlier{fill:none;stroke-width:2}svg .outlier.k0{stroke:var(--k0)}"
	"svg .outlier.k1{stroke:var(--k1)}svg .cibox{fill-opacity:.15}"
	"svg .med{stroke:var(--fg);stroke-width:2}svg .medl{stroke-width:1;stroke-dasharray:4 3}"
	"svg .medl.k0{stroke:var(--k0)}svg .medl.k1{stroke:var(--k1)}svg text.lbl{font-size:11px}\n"
	"details{border:1px solid var(--line);border-radius:6px;margin:6px 0;padding:4px 12px}"
	"details summary{cursor:pointer;padding:2px 0}details[open] summary{margin-bottom:6px}\n"
	/* Wide tables scroll on narrow screens instead of squeezing the plots. */
	".tw{overflow-x:auto}\n"
	".plots{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}\n"
	".raw{max-height:320px;overflow:auto}.raw table{width:auto}\n"
	".k0t{color:var(--k0);font-weight:600}.k1t{color:var(--k1);font-weight:600}\n"
	".failed td{color:var(--bad)}.muted{color:var(--muted)}\n"
	".legend dt{font-weight:600}.legend dd{margin:0 0 6px 18px}\n"
	"footer{margin-top:28px;color:var(--muted);font-size:12px}\n"
	"@media print{body{max-width:none;padding:0;font-size:10pt;background:#fff;color:#000}"
	":root{--bg:#fff;--fg:#000;--card:#eee;--warn-bg:#fff}"
	"details{border:none;padding:0;break-inside:avoid}"
	"details::details-content{content-visibility:visible;display:block}"
	"details>*{display:block}summary{list-style:none;font-weight:600}"
	"tr{break-inside:avoid}h2{break-after:avoid}.raw{max-height:none;overflow:visible}"
	"th,td{padding:2px 4px}code,.num,td.num{font-size:7.5pt}"
	"svg.forest{width:132px;height:23px}.tw{overflow:visible}"
	".badge{font-size:7pt;padding:0 4px}"
	".results td:first-child,.counters td:nth-child(2){word-break:break-all}}\n";

/*
 * The session report's own rules (the history page shares css[] but not
 * these): the forest plots' shared axis, grid and zero line, the plot
 * grids, and a layout that keeps the verdict column in view.
 */
static const char report_css[] =
	"svg .grid,svg .gridl{stroke:var(--line);stroke-width:1}"
	"svg .zero{stroke:var(--fg);stroke-opacity:.6;stroke-width:1}"
	"svg .tick{stroke:var(--muted)}svg text.cap{fill:var(--fg);font-size:10px}"
	"svg .clip{fill:currentColor}svg text.unit{fill:var(--fg)}\n"
	"th.plot,td.plot{padding:1px 6px;width:300px}svg.forest,svg.faxis{width:300px;height:auto}th.verdict,td.verdict{white-space:nowrap}"
	"td.name{overflow-wrap:anywhere;min-width:12em}svg.runs{margin-top:3px}"
	/* The notes under a verdict (the claim, the coherence model's figure) wrap: one
	 * line of them made the answer table wider than the page and cut off its
	 * intervals on the demo's report (2026-12-06). */
	"td.verdict small{display:block;white-space:normal;max-width:34em}"
	/* A workload's parameters (kbuild's make arguments) wrap anywhere, never widen the page. */
	"td.params{overflow-wrap:anywhere;word-break:break-word}"
	"svg .claim line{stroke:var(--fg);stroke-width:1.5;stroke-dasharray:3 2}svg .claim path{fill:var(--fg)}\n"
	".detail{padding:6px 0 10px}.detail+.detail{border-top:1px solid var(--line)}"
	".detail h3{margin:8px 0 4px;font-size:14px;font-weight:600}.detail h3 .muted{font-weight:400}"
	"details.detail>summary{cursor:pointer}details.detail>summary h3{display:inline}"
	"details.rawv{display:inline-block;margin-top:4px}\n"
	"table.geomean{width:auto}table.answer{width:auto;font-size:15px}table.answer td{padding:4px 12px 4px 4px}"
	".answer h2{border:none;margin-top:16px}.undecided,.validity{margin-top:10px}.undecided ul,.validity ul{margin:4px 0}\n"
	"@media (max-width:1100px){th,td{padding:3px 5px}"
	/* The thread tables: four groups of four columns fit 900 px. */
	"table.layout th,table.layout td{padding:2px 3px}table.layout .num{font-size:11.5px}"
	"table.layout .badge{padding:0 5px}"
	/* the results tables, primaries' strips and all, fit a 900 px window without scrolling */
	"svg.forest,svg.faxis{width:170px;height:auto}th.plot,td.plot{width:170px}td.name{min-width:9em}}\n"
	"@media print{svg.forest,svg.faxis{width:180px;height:auto}th.plot,td.plot{width:180px}"
	".detail{break-inside:avoid}}\n";

static void header(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<header><h1><span class=\"k0t\">");
	html_esc(sb, kname(v, 0));
	if (v->design.patched) {
		sb_adds(sb, "</span> vs <span class=\"k1t\">");
		html_esc(sb, kname(v, 1));
	} else {
		sb_adds(sb, "</span> <span class=\"muted\">(one kernel, no comparison)");
	}
	sb_adds(sb, "</span></h1><p class=\"sub\">mglrulab report &middot; session <code>");
	html_esc(sb, str_or(v->session.id, "-"));
	sb_adds(sb, "</code> &middot; ");
	html_esc(sb, str_or(v->session.created, ""));
	sb_adds(sb, "</p></header>\n");
}

void report_html_begin(struct strbuf *sb, const char *title, const char *extra_css)
{
	sb_adds(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
		"<meta name=\"color-scheme\" content=\"light dark\">"
		/* Belt and braces: even an escaping bug could not load or run anything. */
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		"style-src 'unsafe-inline'; img-src data:\">"
		"<title>");
	html_esc(sb, title);
	sb_adds(sb, "</title>\n<style>\n");
	sb_adds(sb, css);
	if (extra_css)
		sb_adds(sb, extra_css);
	sb_adds(sb, "</style></head><body>\n");
}

static void render(const struct report_view *v, struct strbuf *sb)
{
	struct strbuf title = STRBUF_INIT;
	struct headline h;

	/* the answer's counts first: what a tab or a bookmark shows */
	headline_build(v, &h);
	if (h.patched) {
		headline_summary(&h, &title);
		sb_adds(&title, " - ");
	}
	headline_release(&h);
	sb_addf(&title, "mglrulab: %s vs %s", kname(v, 0), kname(v, 1));
	report_html_begin(sb, sb_str(&title), report_css);
	sb_release(&title);
	header(v, sb);
	report_html_answer(v, sb);
	report_html_context(v, sb);
	report_html_verdicts(v, sb);
	flush_point(sb);
	report_html_results(v, sb, 1);
	report_attr_html(v, sb);
	report_coh_html(v->json, sb);
	report_html_layout_tables(v, sb);
	report_html_results(v, sb, 0);
	report_html_hosts(v, sb);
	report_html_geomean(v, sb);
	report_html_details(v, sb);
	report_html_counters(v, sb);
	report_html_runs(v, sb);
	report_html_environment(v, sb);
	flush_point(sb);
	report_html_methodology(v, sb);
	sb_adds(sb, "<footer>Generated by ");
	html_esc(sb, str_or(v->generator.name, "mglrulab"));
	sb_adds(sb, " ");
	html_esc(sb, str_or(v->generator.version, ""));
	sb_adds(sb, " from the session's JSON alone (schema " REPORT_SCHEMA "); "
		"<code>mglrulab report report.json --html FILE</code> regenerates this page.</footer>\n"
		"</body></html>\n");
}

void report_render_html_view(const struct report_view *v, struct strbuf *sb)
{
	render(v, sb);
}
