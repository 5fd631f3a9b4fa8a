// SPDX-License-Identifier: GPL-2.0
/*
 * report.html's closing sections (report_html_priv.h): where the time went
 * and every run in the order it ran, the environment (host and its
 * states, kernels and their patches, guest, workloads), and the
 * methodology that says how each figure was made.
 */
#include "report.h"
#include "html_kit.h"
#include "report_html_priv.h"
#include "report_priv.h"
#include "report_view.h"
#include "run_record.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

void report_html_runs(const struct report_view *v, struct strbuf *sb)
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
	const struct sdoc_host *host = &v->host;

	sb_adds(sb, "<h3>Host</h3><dl class=\"meta\">");
	html_dl_item(sb, "hostname", host->hostname);
	html_dl_item(sb, "CPU", host->cpu);
	sb_addf(sb, "<dt>CPUs / memory</dt><dd>%lld / %g MiB</dd>",
		host->cpus == SDOC_NONE ? 0 : host->cpus, isfinite(host->memory_mib) ? host->memory_mib : 0);
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

static void env_series(const struct sdoc_kernel *k, struct strbuf *sb)
{
	if (!k->series.n)
		return;
	sb_adds(sb, "<table class=\"series\"><thead><tr><th>Patch</th><th>Hash</th>"
		"<th>Author</th></tr></thead><tbody>");
	for (size_t j = 0; j < k->series.n; j++) {
		const struct sdoc_patch *p = sdoc_patch_at(k, j);

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
		const struct sdoc_kernel *k = &v->kernels[i];

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
	html_dl_item(sb, "topology", guest->doc.name);
	sb_addf(sb, "<dt>vCPUs / memory</dt><dd>%lld / %g MiB</dd>", guest->doc.vcpus,
		isfinite(guest->doc.memory_mib) ? guest->doc.memory_mib : 0);
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
		const struct sdoc_workload *w = &v->workloads[i];
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

void report_html_environment(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "<section id=\"environment\"><h2>Environment</h2>");
	env_host(v, sb);
	env_kernels(v, sb);
	env_guest(v, sb);
	env_workloads(v, sb);
	sb_adds(sb, "</section>\n");
}

void report_html_methodology(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_statistics *st = &v->statistics;
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
