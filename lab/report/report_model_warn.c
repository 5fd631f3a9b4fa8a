// SPDX-License-Identifier: GPL-2.0
/*
 * The analysis' warnings (report_model_priv.h): a series' own, in its
 * record (failed runs, missing values, too few runs, outliers, drift,
 * hosts that disagree, no declaration), and the report's, each counted
 * once per measurement and naming the metrics it is about (the
 * accelerator, failed runs and a busy host, the host-state adjustment,
 * a partial or empty session, the metrics' own).
 */
#include "report.h"
#include "escape.h"
#include "report_family.h"
#include "report_model_priv.h"
#include "stats.h"
#include "strmap.h"
#include "util.h"
#include "xjson.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void add_warning(json_t *warnings, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_warning(json_t *warnings, const char *kind, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* the message quotes names from the session file, cut to a width: lossy */
	json_array_append_new(warnings, xjson_pack("{s:s, s:o}", "kind", kind, "message",
						   json_string_lossy(sb_str(&sb))));
	sb_release(&sb);
}

/* A warning of @s's record; its message is the model's string. */
static void series_warning(struct model *m, struct series *s, const char *kind,
			   const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void series_warning(struct model *m, struct series *s, const char *kind,
			   const char *fmt, ...)
{
	struct result_record *rec = s->rec;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* the message quotes names from the session file, cut to a width: lossy */
	rec->warnings = xrealloc(rec->warnings, (rec->nwarnings + 1) * sizeof(*rec->warnings));
	rec->warnings[rec->nwarnings++] = (struct result_warning){
		kind, result_strings_add(m->a.strings, sb_str(&sb)),
	};
	sb_release(&sb);
}

/*
 * A primary whose hosts disagree beyond their intervals: the pooled
 * verdict averages over machines that saw different things, so say which.
 */
static void warn_heterogeneity(struct model *m, struct series *s)
{
	if (!s->primary || !s->het_hosts)
		return;
	s->warned |= WARNED_HET;
	series_warning(m, s, "host-heterogeneity", "hosts disagree beyond their intervals "
		    "(Cochran's Q %.1f, p %.2g < %.2g): %s; the verdict pools them",
		    s->het_q, s->het_p, STATS_HET_ALPHA, s->het_hosts);
}

/* Warnings that belong to this series; the verdict comes after BH. */
void model_series_warnings(struct model *m, struct series *s,
			   const struct stats_settings *st, const struct stats_summary *sum,
			   const int *have)
{
	for (int k = 0; k < 2; k++) {
		const char *role = k == BASE ? "baseline" : "patched";

		if (s->failed[k])
			series_warning(m, s, "failed-runs", "%zu failed run(s) of %s", s->failed[k], role);
		if (s->missing[k])
			s->warned |= WARNED_MISSING, series_warning(m, s, "missing-values", "%zu run(s) of %s lack this value",
				    s->missing[k], role);
		if (!have[k])
			continue;
		if (!sum[k].median_ci.ok || s->n[k] < m->min_runs)
			s->warned |= WARNED_FEW;
		if (!sum[k].median_ci.ok)
			series_warning(m, s, "too-few-runs",
				    "%s: %zu runs, the median interval reaches only %.0f%% confidence",
				    role, s->n[k], 100 * sum[k].median_ci.achieved);
		else if (s->n[k] < m->min_runs)
			series_warning(m, s, "too-few-runs", "%s: %zu runs, fewer than the %zu asked for",
				    role, s->n[k], m->min_runs);
		if (sum[k].outliers)
			s->warned |= WARNED_OUTLIERS, series_warning(m, s, "outliers", "%s: %zu outlier(s) flagged (kept)",
				    role, sum[k].outliers);
		if (sum[k].drift_valid && sum[k].drift_p < st->alpha)
			s->warned |= WARNED_DRIFT, series_warning(m, s, "drift",
				    "%s: values drift with run order (Spearman rho %.2f, p %.3f)",
				    role, sum[k].drift_rho, sum[k].drift_p);
	}
	warn_heterogeneity(m, s);
	if (!s->declared && !s->is_counter)
		series_warning(m, s, "undeclared-metric",
			    "no unit or direction declared; assumed higher is better");
}

/* The accelerator the guests ran under, when it is not KVM alone. */
static void warn_accel(json_t *w, const struct session_input *in)
{
	const char *accel = in->accel ? in->accel : "";
	const char *reason = in->accel_reason ? in->accel_reason : "no reason recorded";

	if (!strcmp(accel, "mixed"))
		add_warning(w, "accel", "the compared sessions ran under different accelerators "
			    "(%s): absolute numbers are not comparable",
			    reason);
	else if (strcmp(accel, "kvm"))
		add_warning(w, "accel", "guests ran under %s, not KVM: absolute numbers are "
			    "not comparable with KVM hosts and TCG adds its own noise (%s)",
			    accel, reason);
}

/* Failed runs and runs on a busy host; the number of runs. */
static size_t warn_runs(json_t *w, const struct model *m)
{
	size_t failed = m->runs_failed, total = m->runs_total, busy = m->runs_busy;

	if (failed)
		add_warning(w, "failed-runs", "%zu of %zu runs failed (reasons in the runs table)",
			    failed, total);
	if (busy)
		add_warning(w, "busy-host", "%zu of %zu runs ran while the host was busy (other "
			    "processes used more than a quarter of a CPU, or the hypervisor stole "
			    "time): their values carry that host's noise", busy, total);
	return total;
}

/* Where the host-state adjustment may take away part of a kernel's effect. */
static void warn_host_states(json_t *w, const struct hoststate_notes *notes)
{
	for (size_t i = 0; i < notes->n; i++) {
		const struct hoststate_note *h = &notes->v[i];
		double p = h->reference_p;

		/* Emulator states: the kernels within each, and the shares on their own. */
		if (h->modes_line)
			add_warning(w, "modes", "%s", h->modes_line);
		if (h->runs_between[0] + h->runs_between[1])
			add_warning(w, "modes", "%s %s: %zu run(s) had every cell between the "
				    "emulator states (the guest changed state inside each): no value "
				    "in a state, left out as those cells are, not counted as failed",
				    h->workload, h->metric, h->runs_between[0] + h->runs_between[1]);

		/* The adjustment assumes the kernel does not change the reference loop. */
		if (isfinite(p) && p < 0.01 && h->slope != 0)
			add_warning(w, "reference", "%s %s: the reference loop ran at different "
				    "speeds on the two kernels (p = %.2g): the host-state adjustment "
				    "may take away part of a real effect; compare the plain median",
				    h->workload, h->metric, p);
		if (h->refused && isfinite(h->bias_bound_pct) && (h->shift_lo > 1 || h->shift_hi < 1))
			add_warning(w, "reference", "%s %s is not adjusted for the host: the kernels' "
				    "reference loops differ by %+.2f %% (interval %+.2f %% to %+.2f %%, "
				    "which excludes no difference), which could take up to %.2f points "
				    "from a real effect; it is the plain median of the cells",
				    h->workload, h->metric, (h->shift_ratio - 1) * 100,
				    (h->shift_lo - 1) * 100, (h->shift_hi - 1) * 100, h->bias_bound_pct);
		else if (h->refused && isfinite(h->bias_bound_pct))
			add_warning(w, "reference", "%s %s is not adjusted for the host: the kernels' "
				    "reference loops differ by %+.2f %% (interval %+.2f %% to %+.2f %%), "
				    "which could take up to %.2f points from a real effect, more than "
				    "%.2f (a tenth of the metric's own interval); it is the plain "
				    "median of the cells",
				    h->workload, h->metric, (h->shift_ratio - 1) * 100,
				    (h->shift_lo - 1) * 100, (h->shift_hi - 1) * 100, h->bias_bound_pct,
				    h->bias_limit_pct);
		else if (h->refused)
			add_warning(w, "reference", "%s %s is not adjusted for the host: too few runs "
				    "to bound how far the kernels move the reference loop; it is the "
				    "plain median of the cells",
				    h->workload, h->metric);
		p = h->slow_share_p;
		/* The state adjustment assumes the slow state is the host's, not a kernel's. */
		if (isfinite(p) && p < 0.01 && h->by_states)
			add_warning(w, "host-states", "%s %s: the kernels' runs spent different "
				    "shares of their cells in the slow state (p = %.2g): that may be "
				    "a kernel that is sometimes slow, which the state adjustment "
				    "would take away; compare the plain median",
				    h->workload, h->metric, p);
	}
}

/* The session as a whole: its sequential plan, no runs, or interrupted. */
static void warn_session(const struct model *m, json_t *w, size_t total)
{
	if (m->seq_invalid)
		add_warning(w, "sequential", "design.sequential is not a valid sequential plan: "
			    "the primaries were analysed as a fixed-N session");
	if (!total)
		add_warning(w, "no-runs", "the session has no runs");
	/* An interrupted session still gets a report, but it must say it is partial. */
	if (m->in.incomplete) {
		size_t planned = m->in.nplan;

		if (planned)
			add_warning(w, "partial", "the session was interrupted: %zu of %zu planned "
				    "runs are in this report (resume it to complete it)", total, planned);
		else
			add_warning(w, "partial", "the session was interrupted: %zu runs are in this "
				    "report (resume it to complete it)", total);
	}
}

/* Names a metric warning lists before "and N more": one or two lines of text. */
#define WARN_NAMES_MAX	6

/* 1 when @s (a metric, not a counter) carries a warning of @kind's flag. */
static int warned_of(const struct series *s, unsigned flag)
{
	if (!flag)	/* invalid: the verdict, not a flag */
		return s->verdict && !strcmp(s->verdict, "invalid");
	return !!(s->warned & flag);
}

/*
 * The metrics as measurements (report_family.h): a metric's raw value,
 * its _hostadj and its _mean are one, warned of once. @first is the
 * index of each measurement's first metric in model.s, in that order.
 */
struct measurements {
	size_t *first, n;
	size_t *of;	/* per series: its measurement, or SIZE_MAX for counters */
};

static void measurements_build(const struct model *m, struct measurements *ms)
{
	struct strmap ix = STRMAP_INIT;
	struct strbuf key = STRBUF_INIT;
	size_t at;

	ms->first = xcalloc(m->ns + 1, sizeof(*ms->first));
	ms->of = xcalloc(m->ns + 1, sizeof(*ms->of));
	ms->n = 0;
	for (size_t i = 0; i < m->ns; i++) {
		const struct series *s = &m->s[i];

		ms->of[i] = SIZE_MAX;
		if (s->is_counter)
			continue;
		sb_reset(&key);
		sb_addf(&key, "%s\n%.*s", s->workload, (int)metric_family_stem_len(s->name), s->name);
		if (strmap_get(&ix, sb_str(&key), &at)) {
			ms->of[i] = at;
			continue;
		}
		strmap_put(&ix, sb_str(&key), ms->n);
		ms->of[i] = ms->n;
		ms->first[ms->n++] = i;
	}
	sb_release(&key);
	strmap_clear(&ix);
}

/* Measurements with a metric warned of @flag; @named: 1 per series named for it. */
static size_t measurements_warned(const struct model *m, const struct measurements *ms,
				  unsigned flag, unsigned char *named)
{
	unsigned char *seen = xcalloc(ms->n + 1, 1);
	size_t n = 0;

	for (size_t i = 0; i < m->ns; i++) {
		named[i] = 0;
		if (ms->of[i] == SIZE_MAX || seen[ms->of[i]] || !warned_of(&m->s[i], flag))
			continue;
		seen[ms->of[i]] = 1;
		named[i] = 1;
		n++;
	}
	free(seen);
	return n;
}

/*
 * ": yp_shared:cs_per_sec_1cpu, kbuild:elapsed_s and 3 more" for the
 * measurements warned of @flag (each by its first metric so warned),
 * so that a reader knows which ones to look at without searching every
 * table.
 */
static void warned_names(const struct model *m, const unsigned char *named, size_t n,
			 struct strbuf *out)
{
	size_t k = 0;

	sb_reset(out);
	for (size_t i = 0; i < m->ns && k < WARN_NAMES_MAX; i++) {
		const struct series *s = &m->s[i];

		if (!named[i])
			continue;
		sb_addf(out, "%s%s:%s", k ? ", " : ": ", s->workload, s->name);
		k++;
	}
	if (n > k)
		sb_addf(out, " and %zu more", n - k);
}

/* The metrics' own warnings, counted once per measurement and named. */
static void warn_metrics(const struct model *m, json_t *w)
{
	size_t n_few, n_drift, n_out, n_invalid, n_missing, n_metrics, n_het;
	unsigned char *nm[6];
	struct measurements ms;
	struct strbuf names = STRBUF_INIT;

	measurements_build(m, &ms);
	n_metrics = ms.n;
	for (size_t k = 0; k < 6; k++)
		nm[k] = xcalloc(m->ns + 1, 1);
	n_few = measurements_warned(m, &ms, WARNED_FEW, nm[0]);
	n_invalid = measurements_warned(m, &ms, 0, nm[1]);
	n_missing = measurements_warned(m, &ms, WARNED_MISSING, nm[2]);
	n_drift = measurements_warned(m, &ms, WARNED_DRIFT, nm[3]);
	n_out = measurements_warned(m, &ms, WARNED_OUTLIERS, nm[4]);
	n_het = measurements_warned(m, &ms, WARNED_HET, nm[5]);
	if (n_few) {
		warned_names(m, nm[0], n_few, &names);
		add_warning(w, "too-few-runs", "%zu metric(s) have too few runs for a %.0f%% "
			    "median interval%s", n_few, 100 * m->st.confidence, sb_str(&names));
	}
	if (n_invalid) {
		warned_names(m, nm[1], n_invalid, &names);
		add_warning(w, "invalid", "%zu metric(s) are invalid (see their reasons)%s",
			    n_invalid, sb_str(&names));
	}
	if (n_missing) {
		warned_names(m, nm[2], n_missing, &names);
		add_warning(w, "missing-values", "%zu metric(s) lack values in some runs%s",
			    n_missing, sb_str(&names));
	}
	/* Only the HTML report draws run-order plots: say where they are. */
	if (n_drift) {
		warned_names(m, nm[3], n_drift, &names);
		/*
		 * A metric is flagged when either kernel trends, so chance
		 * alone flags 1 - (1 - alpha)^2 of them (9.75 % at 0.05),
		 * not alpha (issue 49: the warning said 5 %).
		 */
		add_warning(w, "drift", "%zu of %zu metric(s) trend with run order (Spearman p < %g "
			    "in either kernel; by chance alone about %.2g%% would)%s; an unsteady host "
			    "shows in their run-order plots in the HTML report, and a trend that a "
			    "second session repeats is not chance", n_drift, n_metrics,
			    m->st.alpha, 100 * (1 - (1 - m->st.alpha) * (1 - m->st.alpha)),
			    sb_str(&names));
	}
	if (n_out) {
		warned_names(m, nm[4], n_out, &names);
		add_warning(w, "outliers", "%zu metric(s) have outliers (flagged, kept in every "
			    "statistic)%s", n_out, sb_str(&names));
	}
	if (n_het) {
		warned_names(m, nm[5], n_het, &names);
		add_warning(w, "host-heterogeneity", "%zu primary metric(s) differ between hosts "
			    "beyond their intervals (Cochran's Q p < %.2g)%s; their pooled verdicts "
			    "average over machines that disagree; see the per-host results",
			    n_het, STATS_HET_ALPHA, sb_str(&names));
	}
	sb_release(&names);
	for (size_t k = 0; k < 6; k++)
		free(nm[k]);
	free(ms.first);
	free(ms.of);
}

json_t *model_report_warnings(struct model *m)
{
	json_t *w = json_array();
	size_t total;

	warn_accel(w, &m->in);
	total = warn_runs(w, m);
	warn_host_states(w, &m->notes);
	warn_session(m, w, total);
	warn_metrics(m, w);
	return w;
}
