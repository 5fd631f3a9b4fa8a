// SPDX-License-Identifier: GPL-2.0
/* Number formatting and small JSON accessors shared by every report output. */
#include "report_priv.h"
#include "report_view.h"
#include "escape.h"
#include "stats.h"

#include <stdio.h>
#include <string.h>

json_t *report_find_named(const json_t *obj, const char *member, const char *name)
{
	json_t *e;
	size_t i;

	json_array_foreach(json_object_get(obj, member), i, e)
		if (!strcmp(jget_str(e, "name", ""), name))
			return e;
	return NULL;
}

json_t *report_find_result(const json_t *results, const char *workload, const char *metric)
{
	json_t *r;
	size_t i;

	json_array_foreach(results, i, r) {
		const char *w = jget_str(r, "workload", NULL), *m = jget_str(r, "metric", NULL);

		if (w && m && !strcmp(w, workload) && !strcmp(m, metric))
			return r;
	}
	return NULL;
}

char *report_runs_exceptions(const json_t *report)
{
	json_int_t dflt = json_integer_value(json_object_get(json_object_get(report, "design"),
							     "runs_per_kernel"));
	struct strbuf sb = STRBUF_INIT;
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(report, "workloads"), i, w) {
		json_t *r = json_object_get(w, "runs");

		if (!json_is_integer(r) || json_integer_value(r) == dflt)
			continue;
		sb_addf(&sb, "%s%s: %lld", sb.len ? ", " : "", jget_str(w, "name", "?"),
			(long long)json_integer_value(r));
	}
	if (!sb.len) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

char *report_view_runs_exceptions(const struct report_view *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < v->nworkloads; i++) {
		const struct view_workload *w = &v->workloads[i];

		if (!w->has_runs || w->runs == v->design.runs_per_kernel)
			continue;
		sb_addf(&sb, "%s%s: %lld", sb.len ? ", " : "", w->name ? w->name : "?",
			(long long)w->runs);
	}
	if (!sb.len) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

void fmt_num(char *buf, size_t size, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, size, "-");
	else if (a == 0)
		snprintf(buf, size, "0");
	else if (a >= 1e12 || a < 1e-4)
		snprintf(buf, size, "%.4g", v);
	else if (a >= 1e4)
		/* 181234 switches/s: the digits below 1 are noise, keep integers */
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.5g", v);
}

void fmt_pct(char *buf, size_t size, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, size, "-");
	else if (fabs(pct) >= 1000)
		snprintf(buf, size, "%+.0f%%", pct);
	else if (fabs(pct) < 0.05)
		snprintf(buf, size, "%s0.0%%", pct < 0 ? "-" : "+");
	else
		snprintf(buf, size, "%+.1f%%", pct);
}

const json_t *verdict_comparison(const json_t *res)
{
	const json_t *pooled = json_object_get(res, "pooled");

	if (json_is_object(pooled) && !strcmp(jget_str(pooled, "basis", ""), "pooled"))
		return pooled;
	return json_object_get(res, "comparison");
}

int report_several_hosts(const json_t *report)
{
	const json_t *res;
	size_t i;

	json_array_foreach(json_object_get(report, "results"), i, res)
		if (json_is_array(json_object_get(res, "hosts")))
			return 1;
	return 0;
}

int result_has_warning(const json_t *res, const char *kind)
{
	const json_t *w;
	size_t i;

	json_array_foreach(json_object_get(res, "warnings"), i, w)
		if (!strcmp(jget_str(w, "kind", ""), kind))
			return 1;
	return 0;
}

/* Element @i of the array @a as a number, NaN for null (JSON's "not available"). */
static double jarr_num(const json_t *a, size_t i)
{
	const json_t *v = json_array_get(a, i);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

void host_line(const json_t *h, struct strbuf *out)
{
	const json_t *n = json_object_get(h, "n"), *med = json_object_get(h, "median");
	const json_t *ci = json_object_get(h, "ci");
	char a[32], b[32], d[32], c[64];

	fmt_num(a, sizeof(a), jarr_num(med, 0));
	fmt_num(b, sizeof(b), jarr_num(med, 1));
	fmt_pct(d, sizeof(d), jget_num(h, "delta_pct"));
	fmt_ratio_ci(c, sizeof(c), jarr_num(ci, 0), jarr_num(ci, 1));
	sb_add_text_fit(out, jget_str(h, "host", ""), 16);
	sb_addf(out, ": %lld/%lld runs, %s -> %s, %s %s",
		(long long)json_integer_value(json_array_get(n, 0)),
		(long long)json_integer_value(json_array_get(n, 1)), a, b, d, c);
	if (!json_is_true(json_object_get(h, "pooled")))
		sb_adds(out, " (not pooled)");
}

void result_host_line(const struct result_host *h, struct strbuf *out)
{
	char a[32], b[32], d[32], c[64];

	fmt_num(a, sizeof(a), h->median[0]);
	fmt_num(b, sizeof(b), h->median[1]);
	fmt_pct(d, sizeof(d), h->delta_pct);
	fmt_ratio_ci(c, sizeof(c), h->lo, h->hi);
	sb_add_text_fit(out, h->host, 16);
	sb_addf(out, ": %lld/%lld runs, %s -> %s, %s %s", (long long)h->n[0], (long long)h->n[1],
		a, b, d, c);
	if (!h->pooled)
		sb_adds(out, " (not pooled)");
}

void fmt_ratio_ci(char *buf, size_t size, double lo, double hi)
{
	char a[24], b[24];

	if (!isfinite(lo) || !isfinite(hi)) {
		snprintf(buf, size, "-");
		return;
	}
	fmt_pct(a, sizeof(a), 100 * (lo - 1));
	fmt_pct(b, sizeof(b), 100 * (hi - 1));
	snprintf(buf, size, "[%s, %s]", a, b);
}

void fmt_p(char *buf, size_t size, double p)
{
	if (!isfinite(p))
		snprintf(buf, size, "-");
	else if (p < 0.001)
		snprintf(buf, size, "<.001");
	else if (p >= 0.995)
		snprintf(buf, size, "1.00");
	else if (p < 0.01)
		snprintf(buf, size, "%.3f", p);
	else
		snprintf(buf, size, "%.2f", p);
}

/* Verdict ids from a report file, through stats_verdict.c's one table. */
const char *verdict_symbol(const char *id)
{
	return stats_verdict_name(stats_verdict_from_id(id));
}

const char *verdict_marker(const char *id)
{
	return stats_verdict_marker(stats_verdict_from_id(id));
}

const char *verdict_label(const char *id)
{
	return stats_verdict_label(stats_verdict_from_id(id));
}

void hoststate_sentence(const json_t *hs, struct strbuf *out)
{
	char slope[32], r[32], ref[32];

	fmt_num(slope, sizeof(slope), jget_num(hs, "slope"));
	fmt_num(r, sizeof(r), jget_num(hs, "correlation"));
	fmt_num(ref, sizeof(ref), jget_num(hs, "reference_rate"));
	sb_addf(out, "%s %s: %s", jget_str(hs, "workload", ""), jget_str(hs, "metric", ""),
		jget_str(hs, "method", ""));
	if (jget_num(hs, "slope") != 0)
		sb_addf(out, " (%s accesses/s; slope %s, within-kernel correlation %s)", ref, slope, r);
	if (json_is_true(json_object_get(hs, "by_states"))) {
		const char *kn;
		const json_t *ks;
		int first = 1;

		sb_adds(out, " (states x");
		json_object_foreach(json_object_get(hs, "own_states"), kn, ks) {
			char ratio[32];

			fmt_num(ratio, sizeof(ratio), jget_num(ks, "ratio"));
			sb_addf(out, "%s%s on %s, %.0f of %.0f cells slow", first ? "" : "; x", ratio,
				kn, jget_num(ks, "slow_cells"), jget_num(ks, "cells"));
			first = 0;
		}
		sb_adds(out, ")");
	}
	if (json_is_true(json_object_get(hs, "separated")))
		sb_adds(out, "; the host ran in two distinct states");
	sb_adds(out, ".");
}

void hoststate_line(const struct view_host_state *hs, struct strbuf *out)
{
	char slope[32], r[32], ref[32];

	fmt_num(slope, sizeof(slope), hs->slope);
	fmt_num(r, sizeof(r), hs->correlation);
	fmt_num(ref, sizeof(ref), hs->reference_rate);
	sb_addf(out, "%s %s: %s", hs->workload ? hs->workload : "", hs->metric ? hs->metric : "",
		hs->method ? hs->method : "");
	if (hs->slope != 0)
		sb_addf(out, " (%s accesses/s; slope %s, within-kernel correlation %s)", ref, slope, r);
	if (hs->by_states) {
		sb_adds(out, " (states x");
		for (size_t i = 0; i < hs->nown_states; i++) {
			const struct view_own_state *ks = &hs->own_states[i];
			char ratio[32];

			fmt_num(ratio, sizeof(ratio), ks->ratio);
			sb_addf(out, "%s%s on %s, %.0f of %.0f cells slow", i ? "; x" : "", ratio,
				ks->kernel, ks->slow_cells, ks->cells);
		}
		sb_adds(out, ")");
	}
	if (hs->separated)
		sb_adds(out, "; the host ran in two distinct states");
	sb_adds(out, ".");
}

int report_budget_stopped(const json_t *report)
{
	const json_t *w;
	const char *name;
	int n = 0;

	json_object_foreach(json_object_get(jpath(report, "sequential"), "workloads"), name, w)
		n += !strcmp(jget_str(w, "why", ""), "budget");
	return n;
}

/*
 * A budget is a guess about this machine's speed; when it ran out, the
 * reader needs what it left undecided and the line that goes on, with
 * twice the budget (the runs done so far are kept and count).
 */
void report_budget_resume_line(const json_t *report, struct strbuf *out)
{
	double budget = jget_num(jpath(report, "design.sequential"), "budget_s");
	int n = report_budget_stopped(report);

	sb_addf(out, "the budget (%.0f s of runs) ran out with %d workload%s undecided; to go on "
		"where it stopped: mglrulab run --resume ", budget, n, n == 1 ? "" : "s");
	sb_add_text_safe(out, jget_str(jpath(report, "session"), "id", "SESSION"));
	sb_addf(out, " --budget %.0fs", isfinite(budget) && budget > 0 ? 2 * budget : 1800);
}

int report_view_budget_stopped(const struct report_view *v)
{
	int n = 0;

	for (size_t i = 0; i < v->sequential.nworkloads; i++) {
		const char *why = v->sequential.workloads[i].why;

		n += why && !strcmp(why, "budget");
	}
	return n;
}

void report_view_budget_resume_line(const struct report_view *v, struct strbuf *out)
{
	double budget = v->design.sequential.budget_s;
	int n = report_view_budget_stopped(v);

	sb_addf(out, "the budget (%.0f s of runs) ran out with %d workload%s undecided; to go on "
		"where it stopped: mglrulab run --resume ", budget, n, n == 1 ? "" : "s");
	sb_add_text_safe(out, v->session.id ? v->session.id : "SESSION");
	sb_addf(out, " --budget %.0fs", isfinite(budget) && budget > 0 ? 2 * budget : 1800);
}
