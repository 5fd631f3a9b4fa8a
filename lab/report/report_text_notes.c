// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's markers, what a reader must look at, and the legend:
 * the one-character marker of each row (the tables use it, the notes and
 * the legend name it), the notes (regressions and what did not decide,
 * host states, failed runs) and the legend of exactly the markers the
 * tables used.
 */
#include "report.h"
#include "report_priv.h"
#include "report_result.h"
#include "report_text_priv.h"
#include "report_view.h"
#include "stats.h"

#include <stdio.h>
#include <string.h>

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
	const char *id = str_or(c->change_id, "invalid");

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

const char *txt_marker_of(const struct result_record *res)
{
	return mark_sym[metric_mark(res)];
}

const char *txt_counter_marker(const struct result_record *c)
{
	return mark_sym[counter_mark(c)];
}

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

/* The results a reader must look at: regressions and what did not decide. */
static void result_notes(const struct report_view *v, struct strbuf *sb)
{
	int first = 1;

	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *res = &v->results[i];
		const char *id = str_or(res->verdict_id, "");
		struct strbuf line = STRBUF_INIT;

		if (strcmp(id, "inconclusive") && strcmp(id, "invalid") && strcmp(id, "regression"))
			continue;
		if (first)
			sb_adds(sb, "\nNotes:\n");
		first = 0;
		sb_addf(&line, "%s %s:%s: %s", txt_marker_of(res), res->workload, res->metric,
			str_or(res->reason, ""));
		txt_wrap(sb, "  ", line.buf);
		sb_release(&line);
		flush_point(sb);
	}
}

void report_text_notes(const struct report_view *v, struct strbuf *sb)
{
	int first = 1;

	result_notes(v, sb);
	for (size_t i = 0; i < v->nhost_states; i++) {
		struct strbuf line = STRBUF_INIT;

		if (!i)
			sb_adds(sb, "\nHost states (docs/reports.md):\n");
		hoststate_line(&v->host_state_recs[i], &line);
		txt_wrap(sb, "  ", line.buf);
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
			str_or(run->failure, "no reason recorded"));
		txt_wrap(sb, "  ", line.buf);
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
	txt_wrap(sb, first ? "Markers: " : "         ", NO_VALUE " no value");
	sb_release(&line);
}

void report_text_legend(const struct report_view *v, struct strbuf *sb)
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
