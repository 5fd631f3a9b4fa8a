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
 */
#include "report.h"
#include "html_kit.h"
#include "report_coh.h"
#include "report_headline.h"
#include "report_html_priv.h"
#include "report_layout.h"
#include "report_priv.h"
#include "report_result.h"
#include "report_view.h"
#include "report_svg.h"
#include "report_validity.h"
#include "run_record.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void td_secs(struct strbuf *sb, double v)
{
	if (isfinite(v))
		sb_addf(sb, "<td class=\"num\">%.2f</td>", v);
	else
		sb_adds(sb, "<td class=\"num\">-</td>");
}

/* The notes of a run: why it failed, a busy host, what the guest said. */
static void run_notes(struct strbuf *sb, const struct run_record *run)
{
	const json_t *m;
	size_t j;

	if (!run->ok)
		html_esc(sb, run->failure ? run->failure : "no reason recorded");
	if (run->host_load.busy)
		sb_addf(sb, "<div class=\"muted\">busy host: others used %.2f CPUs, "
			"steal %.2f s</div>", run->host_load.other_cpus, run->host_load.steal_s);
	json_array_foreach(run->guest_messages, j, m) {
		sb_adds(sb, "<div class=\"muted\">guest: <code>");
		html_esc(sb, json_string_value(m));
		sb_adds(sb, "</code></div>");
	}
}

static void run_row(struct strbuf *sb, const struct run_record *run)
{
	sb_addf(sb, "<tr id=\"run%lld\"%s><td class=\"num\">%lld</td>", (long long)run->seq,
		run->ok ? "" : " class=\"failed\"", (long long)run->seq);
	if (run->block >= 0)
		sb_addf(sb, "<td class=\"num\">%ld</td>", run->block);
	else
		sb_adds(sb, "<td></td>");
	html_td_text(sb, run->kernel);
	html_td_text(sb, run->workload);
	sb_addf(sb, "<td>%s%s</td>", run->ok ? "ok" : "failed", run->warmup ? " (warm-up)" : "");
	td_secs(sb, run->timings.boot_s);
	td_secs(sb, run->timings.workload_s);
	td_secs(sb, run->timings.host_overhead_s);
	sb_adds(sb, "<td>");
	run_notes(sb, run);
	sb_adds(sb, "</td></tr>\n");
}

static void runs_table(const struct report_view *v, struct strbuf *sb)
{
	static const char *const names[VIEW_PHASES] = { "boot, guest clock",
							  "workload, guest clock",
							  "host overhead" };
	double wall, wall_total;
	size_t nwall = report_view_boot_wall(v, &wall, &wall_total);

	sb_adds(sb, "<section id=\"runs\"><h2>Runs</h2><table class=\"timings\" "
		"style=\"width:auto\"><thead><tr><th>Time per run</th><th class=\"num\">median"
		"</th><th class=\"num\">total</th><th class=\"num\">runs</th></tr></thead><tbody>");
	/* The boot a reader means: the host's clock (the guest's is not it under icount). */
	if (nwall)
		sb_addf(sb, "<tr><th>boot, host clock</th><td class=\"num\">%.2f s</td>"
			"<td class=\"num\">%.0f s</td><td class=\"num\">%zu</td></tr>", wall,
			wall_total, nwall);
	for (size_t x = 0; x < VIEW_PHASES; x++) {
		const struct view_timing *t = &v->summary.timings[x];

		sb_addf(sb, "<tr><th>%s</th>", names[x]);
		if (isfinite(t->median))
			sb_addf(sb, "<td class=\"num\">%.2f s</td><td class=\"num\">%.0f s</td>",
				t->median, t->total);
		else
			sb_adds(sb, "<td class=\"num\">-</td><td class=\"num\">-</td>");
		sb_addf(sb, "<td class=\"num\">%lld</td></tr>", (long long)t->runs);
	}
	sb_adds(sb, "</tbody></table>");
	sb_adds(sb, "<details><summary>All runs in the order "
		"they ran (fresh guest boot each; times in seconds)</summary>"
		"<table class=\"runs\"><thead><tr><th>#</th><th>Block</th><th>Kernel</th>"
		"<th>Workload</th><th>Status</th><th class=\"num\">Boot (guest clock)</th><th class=\"num\">Workload"
		" (guest clock)</th><th class=\"num\">Host overhead</th><th>Notes</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < v->runs.n; i++) {
		run_row(sb, &v->runs.v[i]);
		flush_point(sb);
	}
	sb_adds(sb, "</tbody></table></details></section>\n");
}

static void env_host(const struct report_view *v, struct strbuf *sb)
{
	const struct view_host *host = &v->host;

	sb_adds(sb, "<h3>Host</h3><dl class=\"meta\">");
	html_dl_item(sb, "hostname", host->hostname);
	html_dl_item(sb, "CPU", host->cpu);
	sb_addf(sb, "<dt>CPUs / memory</dt><dd>%lld / %g MiB</dd>", (long long)host->cpus,
		isfinite(host->memory_mib) ? host->memory_mib : 0);
	html_dl_item(sb, "kernel", host->kernel);
	html_dl_item(sb, "QEMU", host->qemu_version);
	html_dl_item(sb, "libvirt", host->libvirt_version);
	html_dl_item(sb, "libvirt URI", host->libvirt_uri);
	html_dl_item(sb, "acceleration", host->accel);
	html_dl_item(sb, "why", host->accel_reason);
	sb_adds(sb, "</dl>");
	if (v->nhost_states)
		sb_adds(sb, "<h3>Host states</h3>");
	for (size_t i = 0; i < v->nhost_states; i++) {
		struct strbuf line = STRBUF_INIT;

		hoststate_line(&v->host_state_recs[i], &line);
		sb_adds(sb, "<p>");
		html_esc(sb, line.buf);
		sb_adds(sb, "</p>");
		sb_release(&line);
	}
}

static void env_series(const struct view_kernel *k, struct strbuf *sb)
{
	if (!k->nseries)
		return;
	sb_adds(sb, "<table class=\"series\"><thead><tr><th>Patch</th><th>Hash</th>"
		"<th>Author</th></tr></thead><tbody>");
	for (size_t j = 0; j < k->nseries; j++) {
		const struct view_patch *p = &k->series[j];

		sb_adds(sb, "<tr>");
		html_td_text(sb, str_or(p->subject, ""));
		sb_adds(sb, "<td><code>");
		html_esc(sb, str_or(p->hash, ""));
		sb_adds(sb, "</code></td>");
		html_td_text(sb, str_or(p->author, ""));
		sb_adds(sb, "</tr>");
	}
	sb_adds(sb, "</tbody></table>");
}

static void env_kernels(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<h3>Kernels</h3>");
	for (size_t i = 0; i < v->nkernels; i++) {
		const struct view_kernel *k = &v->kernels[i];

		sb_addf(sb, "<dl class=\"meta\"><dt>name</dt><dd class=\"k%dt\">",
			!strcmp(str_or(k->name, ""), kname(v, 1)));
		html_esc(sb, str_or(k->name, ""));
		sb_adds(sb, "</dd>");
		html_dl_item(sb, "role", k->role);
		html_dl_item(sb, "source", k->source);
		html_dl_item(sb, "ref", k->ref);
		html_dl_item(sb, "version", k->version);
		html_dl_item(sb, "config hash", k->config_hash);
		html_dl_item(sb, "cache key", k->cache_key);
		sb_adds(sb, "</dl>");
		env_series(k, sb);
	}
}

static void env_guest(const struct report_view *v, struct strbuf *sb)
{
	const struct view_guest *guest = &v->guest;

	sb_adds(sb, "<h3>Guest</h3><dl class=\"meta\">");
	html_dl_item(sb, "topology", guest->name);
	sb_addf(sb, "<dt>vCPUs / memory</dt><dd>%lld / %g MiB</dd>", (long long)guest->vcpus,
		isfinite(guest->memory_mib) ? guest->memory_mib : 0);
	for (size_t i = 0; i < guest->nnodes; i++) {
		const struct view_node *n = &guest->nodes[i];

		sb_addf(sb, "<dt>node %lld</dt><dd>CPUs ", (long long)n->id);
		html_esc(sb, str_or(n->cpus, "-"));
		sb_addf(sb, ", %g MiB</dd>", isfinite(n->memory_mib) ? n->memory_mib : 0);
	}
	sb_adds(sb, "</dl>");
}

static void env_workloads(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<h3>Workloads</h3><table><thead><tr><th>Name</th><th>Type</th>"
		"<th>Parameters</th></tr></thead><tbody>");
	for (size_t i = 0; i < v->nworkloads; i++) {
		const struct view_workload *w = &v->workloads[i];
		const char *key;
		json_t *val;

		sb_adds(sb, "<tr>");
		html_td_text(sb, str_or(w->name, ""));
		html_td_text(sb, str_or(w->type, ""));
		sb_adds(sb, "<td class=\"params\"><code>");
		json_object_foreach((json_t *)w->params, key, val) {
			char *s = json_dumps(val, JSON_ENCODE_ANY);

			html_esc(sb, key);
			sb_adds(sb, "=");
			html_esc(sb, json_is_string(val) ? json_string_value(val) : s ? s : "?");
			sb_adds(sb, " ");
			free(s);
		}
		sb_adds(sb, "</code></td></tr>");
	}
	sb_adds(sb, "</tbody></table>");
}

static void environment(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<section id=\"environment\"><h2>Environment</h2>");
	env_host(v, sb);
	env_kernels(v, sb);
	env_guest(v, sb);
	env_workloads(v, sb);
	sb_adds(sb, "</section>\n");
}

static void methodology(const struct report_view *v, struct strbuf *sb)
{
	const struct view_statistics *st = &v->statistics;
	double t = 100 * st->threshold, alpha = st->alpha;

	sb_addf(sb, "<section id=\"methodology\"><h2>Methodology</h2>"
		"<p>Each run is one fresh guest boot; baseline and patched runs are interleaved in "
		"seeded balanced blocks, warm-up runs are excluded. Every statistic uses every "
		"measured run: outliers are flagged, never dropped.</p><dl class=\"legend\">"
		"<dt>Median and its interval</dt><dd>exact distribution-free order-statistic interval "
		"[x<sub>(l)</sub>, x<sub>(n+1-l)</sub>] with the largest l such that "
		"P(l &le; Bin(n, &frac12;) &le; n&minus;l) &ge; %.0f%%; fewer than 6 runs cannot "
		"reach 95%% and are marked &ldquo;too few runs&rdquo;.</dd>"
		"<dt>Change</dt><dd>ratio = median(patched) / median(baseline), change = ratio &minus; 1. "
		"Its interval is a stratified bootstrap (%lld resamples, BCa, percentile when BCa is "
		"degenerate), seeded with %lld and the metric's name, so it is reproducible.</dd>"
		"<dt>p and q</dt><dd>two-sided Mann-Whitney U test (exact for small samples, also with "
		"ties; normal approximation with tie and continuity correction beyond); q = "
		"Benjamini-Hochberg adjusted within each family: the primary metrics declared "
		"before the first run, the other metrics, and the counters. alpha = %g.</dd>"
		"<dt>Sequential sessions</dt><dd>with <code>run --until decided</code>, the "
		"primaries are looked at after a minimum of runs and after every pair of blocks; "
		"look k spends alpha<sub>k</sub> of alpha (an alpha-spending function, allocated by "
		"the union bound), its interval is the 1&minus;alpha<sub>k</sub> repeated confidence "
		"interval and its p is scaled to alpha/alpha<sub>k</sub> before BH, so stopping "
		"when the answer is known keeps the error rate at alpha (Jennison &amp; Turnbull "
		"1989; Lan &amp; DeMets 1983).</dd>"
		"<dt>Host states</dt><dd>metrics named <code>_hostadj</code> are derived from each "
		"run's (window, CPU) cells: a reference loop before each window measures the speed "
		"the host gave that CPU; the slope of log rate on log reference, estimated inside "
		"each kernel and pooled, moves every cell to the session's median reference, and the "
		"run's value is the median of its cells.</dd>"
		"<dt>Forest plot</dt><dd>the dot is the ratio, the bar its interval, the dark line "
		"no change, the shaded band &plusmn;%g%% (the noise threshold). Every row of a table "
		"is drawn on the one axis in the column's heading (change in %%, on a log scale of "
		"the ratio), with a grid line at each tick; an arrow marks an interval that runs "
		"past the axis' end.</dd>"
		"<dt>Verdicts</dt><dd><b>improvement / regression</b>: p (q) &lt; %g and the whole "
		"interval lies beyond the band, in the metric's better / worse direction. "
		"<b>&#8776;</b>: significant, and the interval lies inside the band. "
		"<b>~</b>: no change: not significant and the interval lies inside the band. "
		"<b>?</b>: inconclusive: the experiment cannot rule out a change larger than the "
		"band (also a real change whose interval crosses the band edge: its size is not "
		"settled); the reason says how many runs would. &#8776; and ~ are final, never "
		"given to a result more runs could change. <b>invalid</b>: too many failed runs "
		"(more than %.0f%%), too few values, no ratio, or a ratio interval that reaches 0 or "
		"infinity. Every run of both kernels giving the same value is <b>~</b>.</dd>"
		"<dt>Hodges-Lehmann, MDE, paired</dt><dd>Hodges-Lehmann: median of all pairwise "
		"differences (and ratios). MDE: smallest change a two-sided test at alpha detects "
		"with %.0f%% power at these run counts. Paired: Wilcoxon signed-rank on per-block "
		"log ratios (blocks pair the kernels in time).</dd>"
		"<dt>Geometric mean</dt><dd>per workload, of each metric's ratio oriented so that "
		"&gt; 1 is better, with a joint bootstrap interval over runs.</dd>"
		"<dt>Drift</dt><dd>Spearman correlation of values against run order; p &lt; alpha "
		"means the host was not steady during the session.</dd>",
		100 * st->confidence, (long long)st->resamples, (long long)st->seed, alpha, t, alpha,
		100 * st->max_failed_fraction, 100 * st->power);
	if (v->several_hosts)
		sb_adds(sb, "<dt>Several hosts</dt><dd>each block ran on one host slot, so the host "
			"is a stratum: each host's ratio of medians with its interval, pooled with "
			"inverse-variance weights on the log scale (the change, interval and forest plot "
			"of the main tables); p is van Elteren's stratified Wilcoxon rank-sum test (runs "
			"ranked within their host). Hosts disagree when Cochran's Q has p &lt; 0.1 "
			"(docs/reports.md, &ldquo;Several hosts&rdquo;).</dd>");
	sb_adds(sb, "</dl></section>\n");
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

/* A report that does not decode: a page that says so and where, like the other renderers. */
static void undecodable(struct strbuf *sb, const char *err)
{
	report_html_begin(sb, "mglrulab report", NULL);
	sb_adds(sb, "<p>mglrulab report: the report does not decode: ");
	html_esc(sb, err);
	sb_adds(sb, "</p>\n</body></html>\n");
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
	runs_table(v, sb);
	environment(v, sb);
	flush_point(sb);
	methodology(v, sb);
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

void report_render_html(const json_t *r, struct strbuf *sb)
{
	struct report_view v;
	struct strbuf err = STRBUF_INIT;

	if (report_view_decode(r, &v, &err))
		undecodable(sb, err.buf);
	else
		render(&v, sb);
	report_view_release(&v);
	sb_release(&err);
}
