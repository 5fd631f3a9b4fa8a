// SPDX-License-Identifier: GPL-2.0
/*
 * The text report's tables of results: every primary of the session in
 * one table first (with its hosts and what this guest cannot test), then
 * each workload's other metrics under its title and geometric mean, then
 * the counters that moved most. One row a metric: base, patched, diff,
 * interval, p (or q) and the marker (report_text_notes.c); a session of
 * one kernel: the median, its runs and the median's own interval.
 */
#include "report.h"
#include "mechanism.h"
#include "report_priv.h"
#include "report_result.h"
#include "report_text_priv.h"
#include "report_validity.h"
#include "report_view.h"
#include "escape.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
	txt_right_text(sb, base_name(v), NUM_W);
	if (one_kernel(v)) {
		char head[32];

		snprintf(head, sizeof(head), "%.0f%% CI of median", 100 * v->statistics.confidence);
		sb_addf(sb, " %5s %*s\n", "runs", MED_CI_W, head);
		return;
	}
	txt_right_text(sb, patched_name(v), NUM_W);
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
	txt_no_value(buf, size);
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
		txt_num_cell(lo, sizeof(lo), s->median_ci.lo);
		txt_num_cell(hi, sizeof(hi), s->median_ci.hi);
		snprintf(buf, size, "[%s, %s]", lo, hi);
	}
}

static void add_right(struct strbuf *sb, const char *s, int width)
{
	sb_addf(sb, " %*s", width, s);
}

/* One metric or counter row; long names get their own line. */
static void row(struct strbuf *sb, const struct report_view *v, const struct result_record *res,
		const char *name, const char *marker)
{
	char b[32], p[32], d[32], ci[64], pv[16];

	txt_num_cell(b, sizeof(b), res->side[0].median);
	txt_row_name(sb, name, NAME_W);
	add_right(sb, b, NUM_W);
	if (one_kernel(v)) {
		sb_addf(sb, " %5ld", res->side[0].n);
		median_ci_cell(ci, sizeof(ci), &res->side[0]);
		add_right(sb, ci, MED_CI_W);
		txt_end_row(sb);
		return;
	}
	txt_num_cell(p, sizeof(p), res->side[1].median);
	/* The change the verdict rests on: pooled over hosts or all runs. */
	txt_pct_cell(d, sizeof(d), res->change.delta_pct);
	ci_cell(ci, sizeof(ci), res);
	fmt_p(pv, sizeof(pv), res->p_used);
	txt_no_value(pv, sizeof(pv));
	add_right(sb, p, NUM_W);
	add_right(sb, d, 7);
	add_right(sb, ci, CI_W);
	add_right(sb, pv, 5);
	sb_addf(sb, " %s", marker);
	txt_end_row(sb);
}

/* "kbuild (kernel_build jobs=2 ...)" on one line: the HTML report lists every parameter. */
static void workload_title(const struct report_view *v, const char *wname, struct strbuf *sb)
{
	const struct sdoc_workload *w = report_view_workload(v, wname);
	const json_t *val;
	const char *key;
	struct strbuf t = STRBUF_INIT;

	sb_add(&t, "", 0);
	if (w) {
		sb_addf(&t, " (%s", str_or(w->type, "?"));
		json_object_foreach((json_t *)w->params, key, val) {
			if (json_is_string(val))
				sb_addf(&t, " %s=%s", key, json_string_value(val));
			else if (json_is_integer(val))
				sb_addf(&t, " %s=%lld", key, (long long)json_integer_value(val));
		}
		sb_addc(&t, ')');
	}
	sb_addc(sb, '\n');
	txt_fit(sb, wname, 40);
	txt_fit(sb, sb_str(&t), 80 - (text_safe_width(wname) > 40 ? 40 : text_safe_width(wname)));
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
		txt_pct_cell(d, sizeof(d), 100 * (g->ratio - 1));
		fmt_ratio_ci(ci, sizeof(ci), g->lo, g->hi);
		txt_no_value(ci, sizeof(ci));
		sb_addf(sb, "  geometric mean, + = patched better: %s %s\n", d, ci);
	}
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
		txt_wrap(sb, "      ", line.buf);
		sb_release(&line);
	}
	for (size_t i = 0; i < res->nwarnings; i++)
		if (!strcmp(res->warnings[i].kind, "host-heterogeneity"))
			txt_wrap(sb, "    WARNING: ", res->warnings[i].message);
}

/*
 * The answer first: every primary metric of the session in one table,
 * "workload: metric", before the per-workload detail.
 */
void report_text_primaries(const struct report_view *v, struct strbuf *sb)
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
		row(sb, v, res, name.buf, txt_marker_of(res));
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

void report_text_metrics(const struct report_view *v, struct strbuf *sb)
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
		row(sb, v, res, res->metric, txt_marker_of(res));
		flush_point(sb);
	}
	if (cur)
		geomean_line(v, cur, sb);
}

void report_text_counters(const struct report_view *v, struct strbuf *sb)
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
		txt_wrap(sb, "", line.buf);
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
		row(sb, v, c, name.buf, txt_counter_marker(c));
		sb_release(&name);
	}
}
