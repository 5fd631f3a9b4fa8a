// SPDX-License-Identifier: GPL-2.0
/*
 * The mail-ready text report: at most 80 columns, plain ASCII layout (the
 * only non-ASCII bytes are valid UTF-8 from names), in the shape linux-mm
 * threads use: metric, base, patched, diff, plus the interval, p and a
 * one-character verdict marker so that a reply can quote single lines.
 * This file is the document: the order of its sections, its title, the
 * answer, the context and the verdict counts; the tables, the workloads'
 * own tables and the notes are in the files report_text_priv.h names.
 */
#include "report.h"
#include "report_coh.h"
#include "report_headline.h"
#include "report_priv.h"
#include "report_text_priv.h"
#include "report_view.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A "key     value" line, wrapped under the value. */
static void kv(struct strbuf *sb, const char *key, const char *val)
{
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "%-9.9s", key);
	txt_wrap(sb, prefix, val);
}

/* "baseline: Linux 6.12.57 from linux-source-6.12.tar.xz" (and the ref of a git source). */
static void kernel_desc(const struct sdoc_kernel *k, struct strbuf *line)
{
	const char *src = str_or(k->source, ""), *slash = strrchr(src, '/');
	const char *ver = k->version, *ref = k->ref;

	sb_addf(line, "%s:", str_or(k->name, "?"));
	if (ver)
		sb_addf(line, " Linux %s", ver);
	if (*src)
		sb_addf(line, "%s%s", ver ? " from " : " ", slash && slash[1] ? slash + 1 : src);
	if (ref)
		sb_addf(line, " at %s", ref);
	if (!ver && !*src)
		sb_adds(line, " (not described)");
}

/* Where a workload of a sequential session stopped. */
static void seq_stop_line(const struct view_seq_workload *w, struct strbuf *line)
{
	double n = w->runs_per_kernel;

	sb_addf(line, "%s: ", w->name);
	if (!w->why)
		sb_adds(line, "still running (no look decided it)");
	else if (!strcmp(w->why, "decided"))
		sb_addf(line, "every primary decided at look %lld (%.0f runs per kernel)",
			(long long)w->look, n);
	else if (!strcmp(w->why, "max-runs"))
		sb_addf(line, "stopped at the run cap (%.0f runs per kernel), undecided", n);
	else if (!strcmp(w->why, "below-first-look"))
		sb_addf(line, "its own cap of %.0f runs per kernel is below the first look", n);
	else if (!strcmp(w->why, "placed"))
		sb_addf(line, "placed against the bisection's midpoint at look %lld "
			"(%.0f runs per kernel)", (long long)w->look, n);
	else
		sb_addf(line, "stopped by the budget, undecided");
}

/* The sequential design and where each workload stopped. */
static void sequential_lines(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_sequential *plan = &v->design.sequential;
	struct strbuf line = STRBUF_INIT;

	if (!plan->present)
		return;
	sb_addf(&line, "until decided: looks at %lld, %lld, ... up to %lld runs per kernel; "
		"alpha %g spent over the looks (%s)",
		(long long)plan->min_runs, (long long)(plan->min_runs + plan->step),
		(long long)plan->max_runs, plan->alpha, str_or(plan->method, "sequential"));
	if (plan->budget_s > 0)
		sb_addf(&line, "; budget %.0f s of runs", plan->budget_s);
	kv(sb, "", line.buf);
	for (size_t i = 0; i < v->sequential.nworkloads; i++) {
		sb_reset(&line);
		seq_stop_line(&v->sequential.workloads[i], &line);
		kv(sb, "", line.buf);
	}
	/* What the budget left undecided and how to go on: in the answer above. */
	sb_release(&line);
}

static void kernel_lines(const struct report_view *v, struct strbuf *sb)
{
	struct strbuf line = STRBUF_INIT;

	for (size_t i = 0; i < v->nkernels; i++) {
		const struct sdoc_kernel *k = &v->kernels[i];

		sb_reset(&line);
		kernel_desc(k, &line);
		if (k->series.n)
			sb_addf(&line, " + %zu patch%s", k->series.n, k->series.n == 1 ? "" : "es");
		kv(sb, i ? "" : "kernels", line.buf);
		for (size_t j = 0; j < k->series.n; j++) {
			sb_reset(&line);
			sb_addf(&line, "%.12s %s", str_or(sdoc_patch_at(k, j)->hash, "-"),
				str_or(sdoc_patch_at(k, j)->subject, ""));
			txt_wrap(sb, "           ", line.buf);
		}
	}
	sb_release(&line);
}

static void host_guest_lines(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_host *host = &v->host;
	const struct view_guest *guest = &v->guest;
	const struct sdoc_guest *g = &guest->doc;
	struct strbuf line = STRBUF_INIT;
	char cpus[32] = "?";

	if (host->cpus != SDOC_NONE)
		snprintf(cpus, sizeof(cpus), "%lld", (long long)host->cpus);
	sb_addf(&line, "%s, %s CPUs; Linux %s; QEMU %s; libvirt %s; accel %s",
		str_or(host->cpu, "?"), cpus, str_or(host->kernel, "?"), str_or(host->qemu_version, "?"),
		str_or(host->libvirt_version, "?"), str_or(host->accel, "?"));
	kv(sb, "host", line.buf);
	if (guest->present) {
		sb_reset(&line);
		sb_addf(&line, "%s: %lld vCPUs, %g MiB, %zu NUMA node(s)", str_or(g->name, "?"),
			g->vcpus, isfinite(g->memory_mib) ? g->memory_mib : 0,
			guest->nnodes);
		if (guest->has_icount_shift)
			sb_addf(&line, "; guest time counts instructions (icount, 2^%lld ns each): "
				"%s", g->icount_shift, REPORT_ICOUNT_BLIND);
		kv(sb, "guest", line.buf);
	}
	if (v->note)
		kv(sb, "note", v->note);
	sb_release(&line);
}

static void design_line(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_design *d = &v->design;
	struct strbuf line = STRBUF_INIT;
	char *except = report_view_runs_exceptions(v);

	sb_addf(&line, "%s%lld runs per kernel%s%s%s, %lld warm-up, order %s, seed %lld",
		d->sequential.present ? "up to " : "", (long long)d->runs_per_kernel,
		except ? " (" : "", except ? except : "", except ? ")" : "",
		(long long)d->warmups, str_or(d->order, "-"), (long long)d->seed);
	free(except);
	char *slots = report_view_slots_phrase(v);
	if (slots)
		sb_adds(&line, slots);
	free(slots);
	kv(sb, "design", line.buf);
	sb_release(&line);
}

/*
 * Where the session's time went, when its runs recorded it. The boot on
 * the host's clock when the runs have it; the guest's uptime only
 * labelled as its clock (under icount it is not the host's time: 161.8 s
 * of a run that took 15 s).
 */
static void time_line(const struct report_view *v, struct strbuf *sb)
{
	const struct view_timing *t = v->summary.timings;
	double b = t[VIEW_BOOT].median, w = t[VIEW_WORKLOAD].median;
	double h = t[VIEW_HOST_OVERHEAD].median, total = 0, wall, wall_total;
	size_t nwall = report_view_boot_wall(v, &wall, &wall_total);
	/* A session resumed across the upgrade: some runs lack the host's boot. */
	int every_run = nwall && (long long)nwall >= t[VIEW_BOOT].runs;
	struct strbuf line = STRBUF_INIT;

	for (size_t x = 0; x < VIEW_PHASES; x++)
		if (isfinite(t[x].total) && !(x == VIEW_BOOT && every_run))
			total += t[x].total;
	if (!isfinite(b) && !isfinite(w) && !isfinite(h))
		return;
	if (every_run) {
		total += wall_total;
		sb_addf(&line, "per run (median): boot %.2f s (guest clock %.2f s)", wall, b);
	} else if (nwall) {
		sb_addf(&line, "per run (median): boot %.2f s (guest clock; %.2f s on the host's "
			"clock over the %zu runs that timed it)", b, wall, nwall);
	} else {
		sb_addf(&line, "per run (median): boot %.2f s (guest clock)", b);
	}
	/* The workload's own timing is taken inside the guest: its clock too. */
	sb_addf(&line, ", workload %.2f s (guest clock), host overhead %.2f s; all runs %.0f s",
		w, h, total);
	kv(sb, "time", line.buf);
	sb_release(&line);
}

static void stats_lines(const struct report_view *v, struct strbuf *sb)
{
	const struct sdoc_statistics *st = &v->statistics;
	struct strbuf line = STRBUF_INIT;

	sb_addf(&line, "median, %.0f%% CI of the ratio (bootstrap, %lld resamples, seed %lld),",
		100 * st->confidence, (long long)st->resamples, (long long)st->seed);
	kv(sb, "stats", line.buf);
	sb_reset(&line);
	sb_addf(&line, "Mann-Whitney p, BH q within each family (primary, secondary, counters), "
		"alpha %g, noise band +-%g%% (%s)", st->alpha, 100 * st->threshold,
		str_or(st->threshold_source, "[stats] threshold"));
	kv(sb, "", line.buf);
	sb_release(&line);
}

static void title(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "mglrulab report: ");
	txt_fit(sb, str_or(v->design.baseline, "?"), 30);
	if (v->design.patched) {
		sb_adds(sb, " vs ");
		txt_fit(sb, v->design.patched, 30);
	} else {
		sb_adds(sb, " (one kernel, no comparison)");
	}
	sb_adds(sb, "\n\n");
}

/*
 * The answer first (report_headline.h): the primaries' verdicts by name,
 * what is undecided and what it would take, the warnings with the metrics
 * they concern. The mail and the HTML page open with the same.
 */
static void answer(const struct report_view *v, struct strbuf *sb)
{
	struct headline h;

	headline_build(v, &h);
	headline_render_text(&h, sb);
	headline_release(&h);
}

/* Then the context: the session, its kernels, host, guest, design, statistics. */
void report_text_context(const struct report_view *v, struct strbuf *sb)
{
	struct strbuf line = STRBUF_INIT;

	sb_addf(&line, "%s (%s), %s %s", str_or(v->session.id, "-"), str_or(v->session.mode, "-"),
		str_or(v->generator.name, "?"), str_or(v->generator.version, "?"));
	kv(sb, "session", line.buf);
	sb_release(&line);
	kernel_lines(v, sb);
	host_guest_lines(v, sb);
	design_line(v, sb);
	sequential_lines(v, sb);
	time_line(v, sb);
	stats_lines(v, sb);
}

/* "Verdicts: 2 improvement, ..." for the counts in @c (summary.verdicts or the like). */
static void counts_line(struct strbuf *sb, const char *label, const struct view_counts *c, long n,
			const char *noun)
{
	sb_addf(sb, "\n%-9s %lld improvement, %lld regression, %lld within noise,\n"
		"          %lld no change, %lld inconclusive, %lld invalid (%lld %s)", label,
		(long long)c->improvement, (long long)c->regression, (long long)c->within_noise,
		(long long)c->no_change, (long long)c->inconclusive, (long long)c->invalid,
		(long long)n, noun);
}

static void verdict_counts(const struct report_view *v, struct strbuf *sb)
{
	const struct view_summary *s = &v->summary;

	if (s->primaries)
		counts_line(sb, "Primary:", &s->primary_verdicts, s->primaries, "primaries");
	counts_line(sb, "Verdicts:", &s->verdicts, s->metrics, "metrics");
	sb_addc(sb, '\n');
}

void report_render_text_view(const struct report_view *v, struct strbuf *out)
{
	/* the answer's counts are the first line: what a reader, a pager or a log tail sees */
	answer(v, out);
	sb_addc(out, '\n');
	title(v, out);
	report_text_context(v, out);
	verdict_counts(v, out);
	report_text_primaries(v, out);
	report_attr_text(v, out);
	report_coh_text(v->json, out);
	report_text_layout(v, out);
	report_text_metrics(v, out);
	report_text_counters(v, out);
	flush_point(out);
	report_text_notes(v, out);
	flush_point(out);
	report_text_legend(v, out);
}
