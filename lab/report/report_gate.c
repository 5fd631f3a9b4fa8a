// SPDX-License-Identifier: GPL-2.0
/* What CI reads of a report: the gate, the exit status, JUnit (report_gate.h). */
#include "report_gate.h"
#include "escape.h"
#include "report_priv.h"
#include "report_view.h"
#include "xjson.h"

#include <math.h>
#include <string.h>
#include <time.h>

static const char *const fail_on_names[] = {
	[FAIL_ON_REGRESSION] = "regression", [FAIL_ON_CHANGE] = "change",
	[FAIL_ON_NONE] = "none", [FAIL_ON_INVALID] = "invalid",
};

const char *fail_on_name(enum fail_on f)
{
	return (unsigned)f < ARRAY_SIZE(fail_on_names) ? fail_on_names[f] : "regression";
}

static const char *const side_name[2] = { "baseline", "patched" };

/* Runs of side @k that were tried: those with a value, without one, failed. */
static long attempted(const struct result_side *s)
{
	return s->n + s->missing + s->failed;
}

/*
 * An invalid verdict: whose fault. Runs of one kernel failing while the
 * other's succeed is that kernel failing in the guest; both failing, or
 * nothing failed and still no verdict, is the lab not measuring.
 */
static enum gate_kind judge_invalid(const struct result_record *res, struct strbuf *why)
{
	const struct result_side *s = res->side;
	int k;

	if (s[0].failed > 0 && s[1].failed > 0) {
		sb_addf(why, "invalid: runs of both kernels failed (baseline %ld of %ld, "
			"patched %ld of %ld): the lab failed", s[0].failed, attempted(&s[0]),
			s[1].failed, attempted(&s[1]));
		return GATE_LAB_FAILED;
	}
	if (s[0].failed > 0 || s[1].failed > 0) {
		k = s[1].failed > 0;
		sb_addf(why, "invalid: the %s kernel failed in the guest: %ld of %ld runs failed, "
			"the %s's all succeeded", side_name[k], s[k].failed, attempted(&s[k]),
			side_name[!k]);
		return GATE_KERNEL_FAILED;
	}
	/*
	 * Fewer than two runs of a kernel, none failed: the session stopped
	 * (its budget, its cap) before it could judge. Undecided, as "?" is,
	 * not the lab failing: a demo whose budget ran out exits 0.
	 */
	if (result_too_few_runs(res)) {
		sb_adds(why, "too few runs to judge (fewer than 2 of a kernel, none failed)");
		return GATE_SKIPPED;
	}
	sb_addf(why, "invalid: could not measure: %s", res->reason ? res->reason : "no reason");
	/* A secondary metric without a ratio (a median of 0) is no lab failure. */
	return res->primary ? GATE_LAB_FAILED : GATE_SKIPPED;
}

enum gate_kind report_gate_judge(const struct result_record *res, enum fail_on f,
				 struct strbuf *why)
{
	struct strbuf tmp = STRBUF_INIT;
	enum gate_kind g = GATE_PASS;

	if (!why)
		why = &tmp;
	if (res->verdict == VERDICT_INVALID) {
		g = judge_invalid(res, why);
		if (f == FAIL_ON_NONE && g != GATE_PASS)
			g = GATE_SKIPPED;
	} else {
		sb_adds(why, res->verdict_id);
		if (res->verdict == VERDICT_INCONCLUSIVE)
			g = GATE_SKIPPED;
		else if ((f == FAIL_ON_REGRESSION || f == FAIL_ON_CHANGE) &&
			 res->verdict == VERDICT_REGRESSION)
			g = GATE_REGRESSION;
		else if (f == FAIL_ON_CHANGE && res->verdict == VERDICT_IMPROVEMENT)
			g = GATE_REGRESSION;
	}
	sb_release(&tmp);
	return g;
}

static int gate_fails(enum gate_kind g)
{
	return g == GATE_REGRESSION || g == GATE_KERNEL_FAILED || g == GATE_LAB_FAILED;
}

/* report_gate_status_view() of @n records @res. */
static int records_status(const struct result_record *res, size_t n, enum fail_on f,
			  struct strbuf *why)
{
	struct strbuf line = STRBUF_INIT;
	int regression = 0, lab = 0;

	for (size_t i = 0; i < n; i++) {
		enum gate_kind g;

		if (!res[i].verdict_id)
			continue;	/* one kernel: nothing compared */
		sb_reset(&line);
		g = report_gate_judge(&res[i], f, &line);
		if (!gate_fails(g))
			continue;
		sb_addf(why, "  %s %s: %s\n", res[i].workload, res[i].metric, sb_str(&line));
		regression |= g != GATE_LAB_FAILED;
		lab |= g == GATE_LAB_FAILED;
	}
	sb_release(&line);
	return regression ? LAB_REGRESSION : lab ? LAB_ELAB : LAB_OK;
}

int report_gate_status_view(const struct report_view *v, enum fail_on f, struct strbuf *why)
{
	return records_status(v->results, v->nresults, f, why);
}

/* --- JUnit --- */

struct junit_counts {
	size_t tests, failures, errors, skipped;
};

/* <failure>, <error> or <skipped> of a case judged @g, with @why. */
static void junit_outcome(struct strbuf *sb, enum gate_kind g, const struct result_record *res,
			  const char *why)
{
	static const char *const type[] = {
		[GATE_REGRESSION] = NULL, [GATE_KERNEL_FAILED] = "kernel-failed",
		[GATE_LAB_FAILED] = "lab-failed",
	};
	const char *tag = g == GATE_LAB_FAILED ? "error" : g == GATE_SKIPPED ? "skipped" : "failure";

	if (g == GATE_PASS)
		return;
	sb_addf(sb, "      <%s ", tag);
	if (g != GATE_SKIPPED) {
		sb_adds(sb, "type=\"");
		sb_add_xml(sb, type[g] ? type[g] : res->verdict_id);
		sb_adds(sb, "\" ");
	}
	sb_adds(sb, "message=\"");
	sb_add_xml(sb, why);
	if (res->reason && res->verdict != VERDICT_INVALID) {
		sb_adds(sb, ": ");
		sb_add_xml(sb, res->reason);
	}
	sb_adds(sb, "\"/>\n");
}

/* One <testcase> for @res, counted into @c. */
static void junit_case(struct strbuf *sb, const struct result_record *res, enum fail_on f,
		       struct junit_counts *c)
{
	struct strbuf why = STRBUF_INIT;
	enum gate_kind g = report_gate_judge(res, f, &why);

	c->tests++;
	c->failures += g == GATE_REGRESSION || g == GATE_KERNEL_FAILED;
	c->errors += g == GATE_LAB_FAILED;
	c->skipped += g == GATE_SKIPPED;
	sb_adds(sb, "    <testcase classname=\"mglrulab.");
	sb_add_xml(sb, res->workload);
	sb_adds(sb, "\" name=\"");
	sb_add_xml(sb, res->metric);
	sb_adds(sb, "\">\n");
	junit_outcome(sb, g, res, sb_str(&why));
	sb_adds(sb, "      <system-out>verdict: ");
	sb_add_xml(sb, res->verdict_id);
	sb_adds(sb, "; ");
	sb_add_xml(sb, res->reason ? res->reason : "");
	sb_adds(sb, "</system-out>\n    </testcase>\n");
	sb_release(&why);
}

/* "2026-11-29T18:46:28Z" as seconds since the epoch; NAN when it is not one. */
static double utc_seconds(const char *s)
{
	struct tm tm = { 0 };
	const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%S", &tm) : NULL;

	if (!end || (*end && strcmp(end, "Z")))
		return NAN;
	return (double)timegm(&tm);
}

/* The <testsuite> attributes the report can give: when, where, how long. */
static void junit_suite_attrs(struct strbuf *sb, const struct report_view *v)
{
	double t0, t1;

	t0 = utc_seconds(v->session.created);
	t1 = utc_seconds(v->session.finished);
	if (!isnan(t0)) {
		/* The schema's timestamp has no zone: it is UTC, the Z dropped. */
		sb_addf(sb, " timestamp=\"%.19s\"", v->session.created);
	}
	sb_adds(sb, " hostname=\"");
	sb_add_xml(sb, v->host.hostname ? v->host.hostname : "localhost");
	sb_addf(sb, "\" time=\"%.0f\"", !isnan(t0) && !isnan(t1) && t1 >= t0 ? t1 - t0 : 0.0);
}

void report_gate_junit_view(const struct report_view *v, enum fail_on f, struct strbuf *out)
{
	struct strbuf cases = STRBUF_INIT;
	struct junit_counts c = { 0 };
	const struct result_record *res = v->results;
	size_t n = v->nresults;

	for (size_t i = 0; i < n; i++)
		if (res[i].verdict_id)	/* one kernel: nothing compared, no case */
			junit_case(&cases, &res[i], f, &c);
	sb_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"mglrulab\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
		"skipped=\"%zu\">\n  <testsuite name=\"mglrulab\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"%zu\" skipped=\"%zu\"", c.tests, c.failures, c.errors, c.skipped,
		c.tests, c.failures, c.errors, c.skipped);
	junit_suite_attrs(out, v);
	sb_adds(out, ">\n");
	sb_add(out, sb_str(&cases), cases.len);
	sb_adds(out, "  </testsuite>\n</testsuites>\n");
	sb_release(&cases);
}

const char *report_gate_status_meaning(int status)
{
	switch (status) {
	case LAB_OK: return "ok: no result failed --fail-on";
	case LAB_EUSER: return "user error: bad configuration, input or options";
	case LAB_ELAB: return "lab failure: build, boot or host, interrupted, an output not "
			      "written, or (--fail-on) the lab could not measure";
	case LAB_REGRESSION: return "a result failed --fail-on: a regression, or a kernel "
				    "failed in the guest";
	}
	return "unknown";
}

const char *gate_kind_name(enum gate_kind g)
{
	switch (g) {
	case GATE_PASS: return "pass";
	case GATE_SKIPPED: return "skipped";
	case GATE_REGRESSION: case GATE_KERNEL_FAILED: return "failure";
	case GATE_LAB_FAILED: return "error";
	}
	return "pass";
}

/* A ratio as a change in percent; NaN stays NaN (null in JSON). */
static double pct(double ratio)
{
	return 100 * (ratio - 1);
}

/* Does @wl have a result declared primary in @res? */
static int declares_primaries(const struct result_record *res, size_t n, const char *wl)
{
	for (size_t i = 0; i < n; i++)
		if (res[i].primary && !strcmp(res[i].workload, wl))
			return 1;
	return 0;
}

json_t *report_gate_results_view(const struct report_view *v, enum fail_on f, int primaries)
{
	size_t n = v->nresults;
	const struct result_record *res = v->results;
	struct strbuf why = STRBUF_INIT;
	json_t *out = json_array();

	for (size_t i = 0; i < n; i++) {
		const struct result_record *r = &res[i];
		enum gate_kind g;

		/* A workload that declares none (schema 1): all its metrics, as bisect does. */
		if (primaries && !r->primary && declares_primaries(res, n, r->workload))
			continue;
		sb_reset(&why);
		g = r->verdict_id ? report_gate_judge(r, f, &why) : GATE_PASS;
		if (!primaries && (g == GATE_PASS || g == GATE_SKIPPED))
			continue;
		json_array_append_new(out, xjson_pack("{s:s, s:s, s:b, s:s?, s:s, s:s, s:o, s:o, s:o}",
			"workload", r->workload, "metric", r->metric, "primary", r->primary,
			"verdict", r->verdict_id, "gate", gate_kind_name(g), "why", sb_str(&why),
			"delta_pct", jnum(r->change.delta_pct), "ci_lo_pct", jnum(pct(r->change.lo)),
			"ci_hi_pct", jnum(pct(r->change.hi))));
	}
	sb_release(&why);
	return out;
}
