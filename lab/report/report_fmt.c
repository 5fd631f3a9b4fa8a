// SPDX-License-Identifier: GPL-2.0
/* Number formatting and small JSON accessors shared by every report output. */
#include "report_priv.h"
#include "report_view.h"
#include "run_record.h"
#include "escape.h"
#include "stats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *report_view_runs_exceptions(const struct report_view *v)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < v->nworkloads; i++) {
		const struct sdoc_workload *w = &v->workloads[i];

		if (w->runs == SDOC_NONE || w->runs == v->design.runs_per_kernel)
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

char *report_view_slots_phrase(const struct report_view *v)
{
	const struct sdoc_design *d = &v->design;
	struct strbuf sb = STRBUF_INIT;
	size_t n = json_array_size(d->alone);

	if (d->slots <= 1)
		return NULL;
	sb_addf(&sb, ", %lld guests at once", d->slots);
	/* [run] partners (issue 49): balanced, each run beside its block's other kernel */
	if (d->partners && (!strcmp(d->partners, "balanced") || !strcmp(d->partners, "free")))
		sb_addf(&sb, ", partners %s", d->partners);
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? ", " : " (alone: ",
			json_string_value(json_array_get(d->alone, i)));
	if (n)
		sb_adds(&sb, ")");
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

/* The text report's words for no value and a cut: "-" and "~" are verdict markers. */
static void host_cell(char *buf, size_t size)
{
	if (!strcmp(buf, "-"))
		snprintf(buf, size, "n/a");
}

void result_host_line(const struct result_host *h, struct strbuf *out)
{
	char a[32], b[32], d[32], c[64];

	fmt_num(a, sizeof(a), h->median[0]);
	fmt_num(b, sizeof(b), h->median[1]);
	fmt_pct(d, sizeof(d), h->delta_pct);
	/* One run of a kernel on this host: no interval, not one of zero width. */
	if (h->n[0] == 1 || h->n[1] == 1)
		snprintf(c, sizeof(c), "n=1, no interval");
	else
		fmt_ratio_ci(c, sizeof(c), h->lo, h->hi);
	host_cell(a, sizeof(a));
	host_cell(b, sizeof(b));
	host_cell(d, sizeof(d));
	host_cell(c, sizeof(c));
	if (text_safe_width(h->host) > 16) {
		sb_add_text_fit(out, h->host, 14);
		out->buf[--out->len] = '\0';
		sb_adds(out, "...");
	} else {
		sb_add_text_safe(out, h->host);
	}
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

int result_too_few_runs(const struct result_record *res)
{
	long n = res->side[0].n < res->side[1].n ? res->side[0].n : res->side[1].n;

	/* stats_decide() judges the failed runs first: that reason is theirs. */
	return res->verdict_id && res->verdict == VERDICT_INVALID && n < 2 &&
	       strncmp(res->reason ? res->reason : "", "too many failed", 15);
}

size_t report_view_boot_wall(const struct report_view *v, double *median, double *total)
{
	double *x = xcalloc(v->runs.n + 1, sizeof(*x));
	size_t n = 0;

	*total = 0;
	for (size_t i = 0; i < v->runs.n; i++) {
		double b = v->runs.v[i].timings.boot_wall_s;

		if (isfinite(b)) {
			x[n++] = b;
			*total += b;
		}
	}
	*median = n ? stats_median(x, n) : NAN;
	free(x);
	return n;
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
