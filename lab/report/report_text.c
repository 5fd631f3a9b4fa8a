// SPDX-License-Identifier: GPL-2.0
/*
 * The mail-ready text report: at most 80 columns, plain ASCII layout (the
 * only non-ASCII bytes are valid UTF-8 from names), in the shape linux-mm
 * threads use: metric, base, patched, diff, plus the interval, p and a
 * one-character verdict marker so that a reply can quote single lines.
 */
#include "report.h"
#include "escape.h"
#include "report_coh.h"
#include "report_headline.h"
#include "report_layout.h"
#include "report_priv.h"
#include "report_validity.h"
#include "mechanism.h"
#include "report_view.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_W	24
#define NUM_W	9

/* @s, or @def when the report has none. */
static const char *or(const char *s, const char *def)
{
	return s ? s : def;
}

/*
 * A flush point (strbuf.h): a streamed output may be written out here,
 * where no caller holds a position in @sb. A failed write is reported by
 * the sink's owner (sb_sink_finish()), so the renderer carries on.
 */
static void flush_point(struct strbuf *sb)
{
	LAB_IGNORE(sb_flush_point(sb));
}

static void pad_to(struct strbuf *sb, size_t line_start, size_t col)
{
	/* Columns are counted in code points: names may hold UTF-8. */
	size_t w = text_safe_width(sb->buf + line_start);

	while (w++ < col)
		sb_addc(sb, ' ');
}

static void add_right(struct strbuf *sb, const char *s, int width)
{
	sb_addf(sb, " %*s", width, s);
}

/*
 * The text report's one word for "no value": report_fmt.c's "-" would
 * read as the regression marker in a column of markers and numbers.
 */
#define NO_VALUE	"n/a"
/* What marks a cut label: "~" is the no-change marker. */
#define CUT_MARK	"..."

static void no_value(char *buf, size_t size)
{
	if (!strcmp(buf, "-"))
		snprintf(buf, size, "%s", NO_VALUE);
}

/*
 * @s made safe, in at most @width columns: cut with "..." (never "~",
 * which is a verdict). Returns the columns used.
 */
static size_t fit(struct strbuf *sb, const char *s, size_t width)
{
	if (text_safe_width(s) <= width || width < 4)
		return sb_add_text_fit(sb, s, width);
	/* sb_add_text_fit() ends a cut with one "~": put the ellipsis there. */
	sb_add_text_fit(sb, s, width - 2);
	sb->buf[--sb->len] = '\0';
	sb_adds(sb, CUT_MARK);
	return width;
}

static void num_cell(char *buf, size_t size, double v)
{
	fmt_num(buf, size, v);
	if (strlen(buf) > NUM_W)
		snprintf(buf, size, "%.3e", v);
	no_value(buf, size);
}

static void pct_cell(char *buf, size_t size, double pct)
{
	fmt_pct(buf, size, pct);
	no_value(buf, size);
}

/*
 * Word-wrap @text (made safe first) to 78 columns; the first line starts
 * after @prefix, continuation lines are indented by @indent.
 */
void report_text_wrap(struct strbuf *sb, const char *prefix, size_t indent, const char *text)
{
	struct strbuf safe = STRBUF_INIT;
	size_t col = strlen(prefix), cols;
	int bol = 1;	/* no word on this line yet */
	const char *s;

	sb_adds(sb, prefix);
	sb_add_text_safe(&safe, text);
	for (s = safe.buf; s && *s;) {
		size_t bytes = strcspn(s, " ");
		char *word = xstrndup(s, bytes);
		size_t w = text_safe_width(word);

		if (!bol && col + 1 + w > 78) {
			sb_addf(sb, "\n%*s", (int)indent, "");
			col = indent;
			bol = 1;
		} else if (!bol) {
			sb_addc(sb, ' ');
			col++;
		}
		cols = fit(sb, word, 78 - col);
		col += cols;
		bol = bol && !cols;
		free(word);
		s += bytes;
		while (*s == ' ')
			s++;
	}
	sb_addc(sb, '\n');
	sb_release(&safe);
}

/* report_text_wrap(), continuation lines indented to @prefix's end. */
static void wrap(struct strbuf *sb, const char *prefix, const char *text)
{
	report_text_wrap(sb, prefix, strlen(prefix), text);
}

/* A "key     value" line, wrapped under the value. */
static void kv(struct strbuf *sb, const char *key, const char *val)
{
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "%-9.9s", key);
	wrap(sb, prefix, val);
}

/* "baseline: Linux 6.12.57 from linux-source-6.12.tar.xz" (and the ref of a git source). */
static void kernel_desc(const struct view_kernel *k, struct strbuf *line)
{
	const char *src = or(k->source, ""), *slash = strrchr(src, '/');
	const char *ver = k->version, *ref = k->ref;

	sb_addf(line, "%s:", or(k->name, "?"));
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
	const struct view_seq_plan *plan = &v->design.sequential;
	struct strbuf line = STRBUF_INIT;

	if (!plan->present)
		return;
	sb_addf(&line, "until decided: looks at %lld, %lld, ... up to %lld runs per kernel; "
		"alpha %g spent over the looks (%s)",
		(long long)plan->min_runs, (long long)(plan->min_runs + plan->step),
		(long long)plan->max_runs, plan->alpha, or(plan->method, "sequential"));
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
		const struct view_kernel *k = &v->kernels[i];

		sb_reset(&line);
		kernel_desc(k, &line);
		if (k->nseries)
			sb_addf(&line, " + %zu patch%s", k->nseries, k->nseries == 1 ? "" : "es");
		kv(sb, i ? "" : "kernels", line.buf);
		for (size_t j = 0; j < k->nseries; j++) {
			sb_reset(&line);
			sb_addf(&line, "%.12s %s", or(k->series[j].hash, "-"),
				or(k->series[j].subject, ""));
			wrap(sb, "           ", line.buf);
		}
	}
	sb_release(&line);
}

static void host_guest_lines(const struct report_view *v, struct strbuf *sb)
{
	const struct view_host *host = &v->host;
	const struct view_guest *guest = &v->guest;
	struct strbuf line = STRBUF_INIT;
	char cpus[32] = "?";

	if (host->has_cpus)
		snprintf(cpus, sizeof(cpus), "%lld", (long long)host->cpus);
	sb_addf(&line, "%s, %s CPUs; Linux %s; QEMU %s; libvirt %s; accel %s",
		or(host->cpu, "?"), cpus, or(host->kernel, "?"), or(host->qemu_version, "?"),
		or(host->libvirt_version, "?"), or(host->accel, "?"));
	kv(sb, "host", line.buf);
	if (guest->present) {
		sb_reset(&line);
		sb_addf(&line, "%s: %lld vCPUs, %g MiB, %zu NUMA node(s)", or(guest->name, "?"),
			(long long)guest->vcpus, isfinite(guest->memory_mib) ? guest->memory_mib : 0,
			guest->nnodes);
		if (guest->has_icount_shift)
			sb_addf(&line, "; guest time counts instructions (icount, 2^%lld ns each): "
				"%s", (long long)guest->icount_shift, REPORT_ICOUNT_BLIND);
		kv(sb, "guest", line.buf);
	}
	if (v->note)
		kv(sb, "note", v->note);
	sb_release(&line);
}

static void design_line(const struct report_view *v, struct strbuf *sb)
{
	const struct view_design *d = &v->design;
	struct strbuf line = STRBUF_INIT;
	char *except = report_view_runs_exceptions(v);

	sb_addf(&line, "%s%lld runs per kernel%s%s%s, %lld warm-up, order %s, seed %lld",
		d->sequential.present ? "up to " : "", (long long)d->runs_per_kernel,
		except ? " (" : "", except ? except : "", except ? ")" : "",
		(long long)d->warmups, or(d->order, "-"), (long long)d->seed);
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
	const struct view_statistics *st = &v->statistics;
	struct strbuf line = STRBUF_INIT;

	sb_addf(&line, "median, %.0f%% CI of the ratio (bootstrap, %lld resamples, seed %lld),",
		100 * st->confidence, (long long)st->resamples, (long long)st->seed);
	kv(sb, "stats", line.buf);
	sb_reset(&line);
	sb_addf(&line, "Mann-Whitney p, BH q within each family (primary, secondary, counters), "
		"alpha %g, noise band +-%g%% (%s)", st->alpha, 100 * st->threshold,
		or(st->threshold_source, "[stats] threshold"));
	kv(sb, "", line.buf);
	sb_release(&line);
}

static void title(const struct report_view *v, struct strbuf *sb)
{
	sb_adds(sb, "mglrulab report: ");
	fit(sb, or(v->design.baseline, "?"), 30);
	if (v->design.patched) {
		sb_adds(sb, " vs ");
		fit(sb, v->design.patched, 30);
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

	sb_addf(&line, "%s (%s), %s %s", or(v->session.id, "-"), or(v->session.mode, "-"),
		or(v->generator.name, "?"), or(v->generator.version, "?"));
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

/* @s right-aligned in @width columns after one space, cut if longer. */
static void right_text(struct strbuf *sb, const char *s, size_t width)
{
	struct strbuf t = STRBUF_INIT;
	size_t w;

	fit(&t, s, width);
	w = text_safe_width(t.buf);
	sb_addc(sb, ' ');
	while (w++ < width)
		sb_addc(sb, ' ');
	sb_add(sb, t.buf, t.len);
	sb_release(&t);
}

/* The kernels' names as the tables head their columns. */
static const char *base_name(const struct report_view *v)
{
	return or(v->design.baseline, "base");
}

static const char *patched_name(const struct report_view *v)
{
	return or(v->design.patched, "patched");
}

/* A session of one kernel: its tables have no patched, diff or verdict column. */
static int one_kernel(const struct report_view *v)
{
	return !v->design.patched;
}

/* The change's interval column. */
#define CI_W		16
/* The interval of a one-kernel row: the median's own. */
#define MED_CI_W	22

/*
 * @ci: the interval column's heading ("95% CI of diff"). One kernel:
 * its median, its runs and the median's interval.
 */
static void table_head(struct strbuf *sb, const struct report_view *v, int q, const char *ci)
{
	sb_addf(sb, "  %-*s", NAME_W, "");
	right_text(sb, base_name(v), NUM_W);
	if (one_kernel(v)) {
		char head[32];

		snprintf(head, sizeof(head), "%.0f%% CI of median", 100 * v->statistics.confidence);
		sb_addf(sb, " %5s %*s\n", "runs", MED_CI_W, head);
		return;
	}
	right_text(sb, patched_name(v), NUM_W);
	sb_addf(sb, " %7s %*s %5s\n", "diff", CI_W, ci, q ? "q" : "p");
}

/* The fewest runs with a value of either kernel (0: a kernel has none). */
static long fewest_runs(const struct result_record *res)
{
	return res->side[0].n < res->side[1].n ? res->side[0].n : res->side[1].n;
}

/*
 * The change's interval; with one run of a kernel there is none (a
 * bootstrap of one value is a point, not an interval of zero width).
 */
static void ci_cell(char *buf, size_t size, const struct result_record *res)
{
	if (fewest_runs(res) == 1) {
		snprintf(buf, size, "n=1, no interval");
		return;
	}
	fmt_ratio_ci(buf, size, res->change.lo, res->change.hi);
	no_value(buf, size);
	/* "[-100.0%, -100.0%]" is wider than its column: whole percents then. */
	if (strlen(buf) > CI_W && isfinite(res->change.lo) && isfinite(res->change.hi))
		snprintf(buf, size, "[%+.0f%%, %+.0f%%]", 100 * (res->change.lo - 1),
			 100 * (res->change.hi - 1));
}

/* "[lo, hi]" of the baseline median's interval, or why there is none. */
static void median_ci_cell(char *buf, size_t size, const struct result_side *s)
{
	char lo[24], hi[24];

	if (s->n == 1) {
		snprintf(buf, size, "n=1, no interval");
	} else if (!s->median_ci.ok || !isfinite(s->median_ci.lo) || !isfinite(s->median_ci.hi)) {
		snprintf(buf, size, "%s", s->n > 1 ? "too few runs" : NO_VALUE);
	} else {
		num_cell(lo, sizeof(lo), s->median_ci.lo);
		num_cell(hi, sizeof(hi), s->median_ci.hi);
		snprintf(buf, size, "[%s, %s]", lo, hi);
	}
}

/* @name at the row's start; a long one on its own line. Returns the row's line start. */
static size_t row_name(struct strbuf *sb, const char *name, size_t width)
{
	size_t start = sb->len;

	sb_adds(sb, "  ");
	if (text_safe_width(name) > width) {
		fit(sb, name, 76);
		sb_adds(sb, "\n  ");
		start = sb->len - 2;
	} else {
		sb_add_text_safe(sb, name);
	}
	pad_to(sb, start, 2 + width);
	return start;
}

static void end_row(struct strbuf *sb)
{
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	sb_addc(sb, '\n');
}

/* One metric or counter row; long names get their own line. */
static void row(struct strbuf *sb, const struct report_view *v, const struct result_record *res,
		const char *name, const char *marker)
{
	char b[32], p[32], d[32], ci[64], pv[16];

	num_cell(b, sizeof(b), res->side[0].median);
	row_name(sb, name, NAME_W);
	add_right(sb, b, NUM_W);
	if (one_kernel(v)) {
		sb_addf(sb, " %5ld", res->side[0].n);
		median_ci_cell(ci, sizeof(ci), &res->side[0]);
		add_right(sb, ci, MED_CI_W);
		end_row(sb);
		return;
	}
	num_cell(p, sizeof(p), res->side[1].median);
	/* The change the verdict rests on: pooled over hosts or all runs. */
	pct_cell(d, sizeof(d), res->change.delta_pct);
	ci_cell(ci, sizeof(ci), res);
	fmt_p(pv, sizeof(pv), res->p_used);
	no_value(pv, sizeof(pv));
	add_right(sb, p, NUM_W);
	add_right(sb, d, 7);
	add_right(sb, ci, CI_W);
	add_right(sb, pv, 5);
	sb_addf(sb, " %s", marker);
	end_row(sb);
}

/* "kbuild (kernel_build jobs=2 ...)" on one line: the HTML report lists every parameter. */
static void workload_title(const struct report_view *v, const char *wname, struct strbuf *sb)
{
	const struct view_workload *w = report_view_workload(v, wname);
	const json_t *val;
	const char *key;
	struct strbuf t = STRBUF_INIT;

	sb_add(&t, "", 0);
	if (w) {
		sb_addf(&t, " (%s", or(w->type, "?"));
		json_object_foreach((json_t *)w->params, key, val) {
			if (json_is_string(val))
				sb_addf(&t, " %s=%s", key, json_string_value(val));
			else if (json_is_integer(val))
				sb_addf(&t, " %s=%lld", key, (long long)json_integer_value(val));
		}
		sb_addc(&t, ')');
	}
	sb_addc(sb, '\n');
	fit(sb, wname, 40);
	fit(sb, sb_str(&t), 80 - (text_safe_width(wname) > 40 ? 40 : text_safe_width(wname)));
	sb_addc(sb, '\n');
	sb_release(&t);
}

static void geomean_line(const struct report_view *v, const char *wname, struct strbuf *sb)
{
	size_t n;
	const struct view_index *ix = report_view_geomeans(v, wname, &n);

	for (size_t i = 0; i < n; i++) {
		const struct view_geomean *g = &v->geomean[ix[i].i];
		char d[32], ci[48];

		if (g->metrics < 2)
			continue;
		pct_cell(d, sizeof(d), 100 * (g->ratio - 1));
		fmt_ratio_ci(ci, sizeof(ci), g->lo, g->hi);
		no_value(ci, sizeof(ci));
		sb_addf(sb, "  geometric mean, + = patched better: %s %s\n", d, ci);
	}
}

/*
 * The text report's markers, one meaning each: the verdicts' (stats'
 * table), "#" for too few runs to judge (report.json says "invalid"),
 * and a counter's direction. The legend lists the ones the tables used.
 */
enum text_mark {
	TM_IMPROVEMENT, TM_REGRESSION, TM_WITHIN_NOISE, TM_NO_CHANGE, TM_INCONCLUSIVE,
	TM_INVALID, TM_TOO_FEW, TM_UP, TM_DOWN, TM_NONE
};

static const char *const mark_sym[TM_NONE + 1] = {
	"+", "-", "=", "~", "?", "!", "#", "^", "v", " ",
};

static enum text_mark verdict_mark(enum stats_verdict v)
{
	static const enum text_mark of[] = {
		[VERDICT_IMPROVEMENT] = TM_IMPROVEMENT, [VERDICT_REGRESSION] = TM_REGRESSION,
		[VERDICT_WITHIN_NOISE] = TM_WITHIN_NOISE, [VERDICT_NO_CHANGE] = TM_NO_CHANGE,
		[VERDICT_INCONCLUSIVE] = TM_INCONCLUSIVE, [VERDICT_INVALID] = TM_INVALID,
	};

	return (unsigned)v < ARRAY_SIZE(of) ? of[v] : TM_INVALID;
}

static enum text_mark metric_mark(const struct result_record *res)
{
	if (!res->verdict_id)
		return TM_NONE;
	if (result_too_few_runs(res))
		return TM_TOO_FEW;
	return verdict_mark(res->verdict);
}

/* Counters have no better: which way they moved, else the verdict's marker. */
static enum text_mark counter_mark(const struct result_record *c)
{
	const char *id = or(c->change_id, "invalid");

	if (!strcmp(id, "increase"))
		return TM_UP;
	if (!strcmp(id, "decrease"))
		return TM_DOWN;
	/* Older reports: every run of both kernels gave the same value. */
	if (!strcmp(id, "constant"))
		return TM_NO_CHANGE;
	if (result_too_few_runs(c))
		return TM_TOO_FEW;
	return verdict_mark(stats_verdict_from_id(id));
}

static const char *marker_of(const struct result_record *res)
{
	return mark_sym[metric_mark(res)];
}

/* How many counters the text report shows. */
#define COUNTERS_SHOWN	12

/* The markers the tables of @v show, as bits (1 << enum text_mark). */
static unsigned marks_used(const struct report_view *v)
{
	unsigned used = 0;

	for (size_t i = 0; i < v->nresults; i++)
		used |= 1u << metric_mark(&v->results[i]);
	for (size_t i = 0; !one_kernel(v) && i < v->ncounters && i < COUNTERS_SHOWN; i++)
		used |= 1u << counter_mark(&v->counters[i]);
	return used & ~(1u << TM_NONE);
}

/*
 * A session on several hosts: under a primary, one line per host and the
 * warning when they disagree (its diff and interval above are pooled).
 * In words: "!" is the invalid marker.
 */
static void host_lines(struct strbuf *sb, const struct result_record *res)
{
	for (size_t i = 0; i < res->nhosts; i++) {
		struct strbuf line = STRBUF_INIT;

		sb_adds(&line, "host ");
		result_host_line(&res->hosts[i], &line);
		wrap(sb, "      ", line.buf);
		sb_release(&line);
	}
	for (size_t i = 0; i < res->nwarnings; i++)
		if (!strcmp(res->warnings[i].kind, "host-heterogeneity"))
			wrap(sb, "    WARNING: ", res->warnings[i].message);
}

/*
 * The answer first: every primary metric of the session in one table,
 * "workload: metric", before the per-workload detail.
 */
static void primary_table(const struct report_view *v, struct strbuf *sb)
{
	struct validity val;
	size_t n = 0;

	validity_of(v, &val);

	for (size_t i = 0; i < v->nresults; i++)
		n += v->results[i].primary;
	if (!n)
		return;
	sb_addf(sb, "\nPrimary metrics (declared before the first run, %zu):\n", n);
	/* A sequential session's primaries: the repeated interval of their look. */
	table_head(sb, v, 1, v->design.sequential.present ? "RCI of diff" : "95% CI of diff");
	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];
		struct strbuf name = STRBUF_INIT;

		if (!res->primary)
			continue;
		sb_addf(&name, "%s: %s", res->workload, res->metric);
		row(sb, v, res, name.buf, marker_of(res));
		/* the statistics' "~" stands; what it is worth here, the answer's word says */
		if (!validity_can_test(v, &val, res->workload, res->metric) &&
		    res->verdict != VERDICT_REGRESSION && res->verdict != VERDICT_IMPROVEMENT) {
			struct strbuf t = STRBUF_INIT;

			/* wrapped: the text report is for mail, 78 columns */
			sb_addf(&t, "cannot test here: %s does not see %s, the claim's mechanism",
				val.mode, mechanism_words(val.claimed));
			report_text_wrap(sb, "    ", 6, sb_str(&t));
			sb_release(&t);
		}
		host_lines(sb, res);
		sb_release(&name);
		flush_point(sb);
	}
}

/*
 * The workloads' own tables (report_layout.h), the way their threads
 * showed them: median of each kernel, the change and the verdict marker
 * per cell; at most two cells (group x column) side by side in 80
 * columns, the others in further blocks below. A cell or a row without
 * a value in any kernel is left out (a table of "n/a" says nothing), a
 * table without any value altogether; one kernel: its medians alone.
 */
#define LT_CELL_W	30	/* " %9s %9s %7s %c" */
#define LT_PER_LINE	2

/* The cells (group x column) of @t that have a value, in order, into @out; how many. */
static size_t layout_shown_cells(const struct layout_table *t, size_t *out)
{
	size_t n = 0;

	for (size_t cell = 0; cell < t->groups.n * t->ncols; cell++)
		if (!layout_column_empty(t, cell / t->ncols, cell % t->ncols))
			out[n++] = cell;
	return n;
}

/* Heading lines over a cell: word-wrapped to the cell, never run into the next one. */
#define LT_HEAD_W	(LT_CELL_W - 2)

/* @s made safe and word-wrapped to @width columns, one line per element of @out. */
static void head_lines(const char *s, size_t width, struct strvec *out)
{
	struct strbuf safe = STRBUF_INIT, line = STRBUF_INIT;
	const char *p;

	sb_add_text_safe(&safe, s);
	for (p = sb_str(&safe); *p;) {
		size_t bytes = strcspn(p, " ");
		char *word = xstrndup(p, bytes);

		if (line.len && text_safe_width(line.buf) + 1 + text_safe_width(word) > width) {
			strvec_push(out, line.buf);
			sb_reset(&line);
		}
		if (line.len)
			sb_addc(&line, ' ');
		fit(&line, word, width);
		free(word);
		p += bytes;
		while (*p == ' ')
			p++;
	}
	if (line.len)
		strvec_push(out, line.buf);
	sb_release(&line);
	sb_release(&safe);
}

/* "mm=shared switches/s/CPU (host-adjusted)" over each cell, as many lines as the longest needs. */
static void layout_group_heads(struct strbuf *sb, const struct layout_table *t, size_t label_w,
			       const size_t *cells, size_t count)
{
	struct strvec lines[LT_PER_LINE] = { STRVEC_INIT, STRVEC_INIT };
	size_t nlines = 0;

	for (size_t i = 0; i < count; i++) {
		struct strbuf h = STRBUF_INIT;
		const char *g = t->groups.v[cells[i] / t->ncols];
		/* One column per group: the group says it all. */
		const char *c = t->ncols > 1 ? layout_col_label(t, cells[i] % t->ncols) : "";

		sb_addf(&h, "%s%s%s", g, *g && *c ? " " : "", c);
		head_lines(h.buf, LT_HEAD_W, &lines[i]);
		if (lines[i].n > nlines)
			nlines = lines[i].n;
		sb_release(&h);
	}
	for (size_t l = 0; l < nlines; l++) {
		size_t start = sb->len;

		sb_addf(sb, "  %*s", (int)label_w, "");
		for (size_t i = 0; i < count; i++) {
			if (l >= lines[i].n)
				continue;
			pad_to(sb, start, 2 + label_w + i * LT_CELL_W + 5);
			sb_adds(sb, lines[i].v[l]);
		}
		end_row(sb);
	}
	for (size_t i = 0; i < count; i++)
		strvec_clear(&lines[i]);
}

static void layout_heads(struct strbuf *sb, const struct report_view *v,
			 const struct layout_table *t, size_t label_w, const size_t *cells,
			 size_t count)
{
	size_t start;

	layout_group_heads(sb, t, label_w, cells, count);
	start = sb->len;
	sb_adds(sb, "  ");
	fit(sb, t->layout->kind == LAYOUT_SWEEP ? t->layout->row_head : "", label_w);
	pad_to(sb, start, 2 + label_w);
	for (size_t i = 0; i < count; i++) {
		right_text(sb, base_name(v), NUM_W);
		if (one_kernel(v)) {
			sb_addf(sb, "%*s", LT_CELL_W - NUM_W - 1, "");
			continue;
		}
		right_text(sb, patched_name(v), NUM_W);
		sb_addf(sb, " %7s  ", "diff");
	}
	end_row(sb);
}

static void layout_cell_text(struct strbuf *sb, const struct report_view *v,
			     const struct layout_cell *c)
{
	char b[32], p[32], d[32];

	num_cell(b, sizeof(b), c->base);
	if (one_kernel(v)) {
		sb_addf(sb, " %*s%*s", NUM_W, b, LT_CELL_W - NUM_W - 1, "");
		return;
	}
	num_cell(p, sizeof(p), c->patched);
	pct_cell(d, sizeof(d), c->delta_pct);
	sb_addf(sb, " %*s %*s %7s %s", NUM_W, b, NUM_W, p, d,
		c->res ? marker_of(c->res) : " ");
}

static void layout_block(struct strbuf *sb, const struct report_view *v, const struct layout_table *t,
			 const size_t *cells, size_t count)
{
	size_t label_w = t->layout->kind == LAYOUT_SWEEP ? 6 : NAME_W;

	layout_heads(sb, v, t, label_w, cells, count);
	for (size_t r = 0; r < t->rows.n; r++) {
		if (layout_row_empty(t, r))
			continue;
		/* Numbers (CPU counts, nodes) right-aligned, names left-aligned. */
		if (t->layout->kind == LAYOUT_SWEEP) {
			size_t start = sb->len;

			sb_addf(sb, "  %*s", (int)label_w, t->rows.v[r]);
			pad_to(sb, start, 2 + label_w);
		} else {
			row_name(sb, t->rows.v[r], label_w);
		}
		for (size_t i = 0; i < count; i++)
			layout_cell_text(sb, v, layout_cell(t, r, cells[i] / t->ncols,
							    cells[i] % t->ncols));
		end_row(sb);
	}
}

/*
 * layout->per_run: each run's value under its kernel, as thpscale's table
 * showed them ("rc2 a b c"), when every kernel has at most LT_RUNS_MAX
 * runs (80 columns); the column heads are the runs' numbers.
 */
#define LT_RUNS_MAX	3
#define LT_RUN_W	8
#define LT_RUN_LABEL_W	22

static void run_cell(struct strbuf *sb, double v)
{
	char b[32];

	fmt_num(b, sizeof(b), v);
	if (strlen(b) > LT_RUN_W)
		snprintf(b, sizeof(b), "%.2e", v);
	sb_addf(sb, " %*s", LT_RUN_W, b);
}

static void layout_runs(struct strbuf *sb, const struct report_view *v,
			const struct layout_table *t)
{
	long long seqs[2][LT_RUNS_MAX];
	size_t n[2], row, start;

	if (!t->layout->per_run || t->groups.n != 1 || t->ncols != 1)
		return;
	for (int k = 0; k < 2; k++)
		if (layout_run_columns(t, k, seqs[k], LT_RUNS_MAX, &n[k]))
			return;
	if (!n[0] && !n[1])
		return;
	sb_addc(sb, '\n');
	start = sb->len;
	sb_addf(sb, "  %-*s", LT_RUN_LABEL_W, "each run:");
	for (int k = 0; k < 2; k++) {
		if (!n[k])
			continue;
		pad_to(sb, start, 2 + LT_RUN_LABEL_W + (k ? n[0] : 0) * (LT_RUN_W + 1) + 1);
		fit(sb, k ? patched_name(v) : base_name(v), n[k] * (LT_RUN_W + 1) - 1);
	}
	sb_addc(sb, '\n');
	sb_addf(sb, "  %*s", LT_RUN_LABEL_W, "");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < n[k]; i++) {
			char h[24];

			snprintf(h, sizeof(h), "#%lld", seqs[k][i]);
			sb_addf(sb, " %*s", LT_RUN_W, h);
		}
	sb_addc(sb, '\n');
	for (row = 0; row < t->rows.n; row++) {
		const struct layout_cell *c = layout_cell(t, row, 0, 0);

		start = sb->len;
		sb_adds(sb, "  ");
		fit(sb, t->rows.v[row], LT_RUN_LABEL_W);
		pad_to(sb, start, 2 + LT_RUN_LABEL_W);
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < n[k]; i++)
				run_cell(sb, layout_run_value(c, k, seqs[k][i]));
		sb_addc(sb, '\n');
	}
}

static void layout_section(const struct report_view *v, struct strbuf *sb)
{
	struct layout_table *t;
	size_t n = layout_tables_view(v, &t), shown = 0;

	for (size_t i = 0; i < n; i++) {
		size_t *cells = xcalloc(t[i].groups.n * t[i].ncols + 1, sizeof(*cells));
		size_t ncells = layout_shown_cells(&t[i], cells);

		if (ncells && !shown++)
			sb_adds(sb, "\nAs the threads showed them (medians of the runs):\n");
		if (ncells) {
			sb_addc(sb, '\n');
			wrap(sb, "", t[i].title.buf);
		}
		for (size_t first = 0; first < ncells; first += LT_PER_LINE)
			layout_block(sb, v, &t[i], cells + first,
				     ncells - first < LT_PER_LINE ? ncells - first : LT_PER_LINE);
		if (ncells)
			layout_runs(sb, v, &t[i]);
		free(cells);
		flush_point(sb);
	}
	layout_tables_free(t, n);
}

static void metric_tables(const struct report_view *v, struct strbuf *sb)
{
	const char *cur = NULL;
	int use_q = 0;

	for (size_t i = 0; i < v->nresults; i++)
		use_q |= v->results[i].used_q;
	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];

		/* Shown in the primary table already. */
		if (res->primary)
			continue;
		if (!cur || strcmp(cur, res->workload)) {
			if (cur)
				geomean_line(v, cur, sb);
			workload_title(v, res->workload, sb);
			table_head(sb, v, use_q, "95% CI of diff");
			cur = res->workload;
		}
		row(sb, v, res, res->metric, marker_of(res));
		flush_point(sb);
	}
	if (cur)
		geomean_line(v, cur, sb);
}

static void counters(const struct report_view *v, struct strbuf *sb)
{
	size_t n = v->ncounters;

	if (!n)
		return;
	/* Nothing moved in a session of one kernel: no order to show them in. */
	if (one_kernel(v)) {
		struct strbuf line = STRBUF_INIT;

		sb_addf(&line, "Counters: %zu recorded, nothing to compare them with (report.json "
			"and the HTML report list them).", n);
		sb_addc(sb, '\n');
		wrap(sb, "", line.buf);
		sb_release(&line);
		return;
	}
	sb_addf(sb, "\nCounters that moved most (top %zu of %zu, by |ratio|):\n",
		n < COUNTERS_SHOWN ? n : COUNTERS_SHOWN, n);
	table_head(sb, v, 1, "95% CI of diff");
	for (size_t i = 0; i < n && i < COUNTERS_SHOWN; i++) {
		const struct result_record *c = &v->counters[i];
		struct strbuf name = STRBUF_INIT;

		sb_addf(&name, "%s:%s", c->workload, c->metric);
		row(sb, v, c, name.buf, mark_sym[counter_mark(c)]);
		sb_release(&name);
	}
}

/* The results a reader must look at: regressions and what did not decide. */
static void result_notes(const struct report_view *v, struct strbuf *sb)
{
	int first = 1;

	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];
		const char *id = or(res->verdict_id, "");
		struct strbuf line = STRBUF_INIT;

		if (strcmp(id, "inconclusive") && strcmp(id, "invalid") && strcmp(id, "regression"))
			continue;
		if (first)
			sb_adds(sb, "\nNotes:\n");
		first = 0;
		sb_addf(&line, "%s %s:%s: %s", marker_of(res), res->workload, res->metric,
			or(res->reason, ""));
		wrap(sb, "  ", line.buf);
		sb_release(&line);
		flush_point(sb);
	}
}

static void notes(const struct report_view *v, struct strbuf *sb)
{
	int first = 1;

	result_notes(v, sb);
	for (size_t i = 0; i < v->nhost_states; i++) {
		struct strbuf line = STRBUF_INIT;

		if (!i)
			sb_adds(sb, "\nHost states (docs/reports.md):\n");
		hoststate_line(&v->host_state_recs[i], &line);
		wrap(sb, "  ", line.buf);
		sb_release(&line);
	}
	for (size_t i = 0; i < v->runs.n; i++) {
		const struct run_record *run = &v->runs.v[i];
		struct strbuf line = STRBUF_INIT;

		if (run->ok)
			continue;
		if (first)
			sb_adds(sb, "\nFailed runs:\n");
		first = 0;
		sb_addf(&line, "#%lld %s %s: %s", (long long)run->seq, run->kernel, run->workload,
			or(run->failure, "no reason recorded"));
		wrap(sb, "  ", line.buf);
		sb_release(&line);
	}
}

/*
 * The markers the tables used, each with its one meaning, in the order
 * of enum text_mark: the legend lists exactly these (and "n/a").
 */
static void marker_legend(const struct report_view *v, struct strbuf *sb)
{
	struct strbuf line = STRBUF_INIT;
	unsigned used = marks_used(v);
	int first = 1;
	char band[64];
	const char *const meaning[TM_NONE] = {
		"improvement", "regression", band, "no change",
		"inconclusive (more runs needed; also a real change not yet settled against "
		"the band)",
		"invalid (too many failed runs, or no ratio: the notes say why)",
		"too few runs to judge (fewer than 2 runs of a kernel; report.json: invalid)",
		"counter went up", "counter went down (significant and beyond the band; "
		"counters have no better)",
	};

	snprintf(band, sizeof(band), "significant, within +-%g%%", 100 * v->statistics.threshold);
	/* One a line: a reader looking up "?" finds it at a line's start. */
	for (int m = 0; m < TM_NONE; m++) {
		if (!(used & (1u << m)))
			continue;
		sb_reset(&line);
		sb_addf(&line, "%s %s", mark_sym[m], meaning[m]);
		report_text_wrap(sb, first ? "Markers: " : "         ", 11, line.buf);
		first = 0;
	}
	wrap(sb, first ? "Markers: " : "         ", NO_VALUE " no value");
	sb_release(&line);
}

static void legend(const struct report_view *v, struct strbuf *sb)
{
	if (one_kernel(v)) {
		sb_adds(sb, "\nOne kernel: the median of its runs, how many, and the median's own\n"
			"interval (docs/reports.md); nothing compared, so no verdict.\n");
		sb_adds(sb, "Markers: " NO_VALUE " no value\n");
		return;
	}
	sb_addf(sb, "\ndiff = median(patched) / median(base) - 1; CI = bootstrap interval of\n"
		"that ratio; p = Mann-Whitney U (q = Benjamini-Hochberg adjusted).\n");
	if (v->design.sequential.present)
		sb_adds(sb, "RCI = the repeated interval of a primary at its last look's level\n"
			"(1 - alpha_k), q its look-adjusted p after BH (docs/reports.md).\n");
	if (v->several_hosts)
		sb_adds(sb, "Several hosts: diff and CI pooled over the hosts (inverse-variance on\n"
			"the log ratio), p = van Elteren's stratified rank test (docs/reports.md).\n");
	marker_legend(v, sb);
}

void report_render_text_view(const struct report_view *v, struct strbuf *out)
{
	/* the answer's counts are the first line: what a reader, a pager or a log tail sees */
	answer(v, out);
	sb_addc(out, '\n');
	title(v, out);
	report_text_context(v, out);
	verdict_counts(v, out);
	primary_table(v, out);
	report_attr_text(v, out);
	report_coh_text(v->json, out);
	layout_section(v, out);
	metric_tables(v, out);
	counters(v, out);
	flush_point(out);
	notes(v, out);
	flush_point(out);
	legend(v, out);
}
