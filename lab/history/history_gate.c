// SPDX-License-Identifier: GPL-2.0
/* history's gate: which series fail CI tonight, and its JUnit (history.h). */
#include "history.h"
#include "escape.h"

#include <string.h>

/* Does a change of @kind fail @f? */
static int kind_fails(const char *kind, enum fail_on f)
{
	if (f == FAIL_ON_CHANGE)
		return 1;
	return f == FAIL_ON_REGRESSION && !strcmp(kind, "regression");
}

/* The night of series @s in the newest session; NULL: none. */
static const struct history_night *tonight(const struct history *h,
					   const struct history_series *s)
{
	if (!s->nn || h->latest == (size_t)-1 || s->nights[s->nn - 1].session != h->latest)
		return NULL;
	return &s->nights[s->nn - 1];
}

static enum gate_kind judge_series(const struct history *h, const struct history_series *s,
				   enum fail_on f, struct strbuf *why)
{
	const struct history_night *n = tonight(h, s);

	for (size_t j = 0; j < s->ncp; j++) {
		if (s->cps[j].is_new && kind_fails(s->cps[j].kind, f)) {
			sb_addf(why, "%s tonight: %+.2f%%, p %.3g", s->cps[j].kind,
				s->cps[j].delta_pct, s->cps[j].p);
			return GATE_REGRESSION;
		}
	}
	for (size_t j = 0; j < s->ndrift; j++) {
		if (s->drifts[j].is_new && kind_fails(s->drifts[j].kind, f)) {
			sb_addf(why, "%s drift tonight: %+.2f%% over the span", s->drifts[j].kind,
				s->drifts[j].total_pct);
			return GATE_REGRESSION;
		}
	}
	if (f == FAIL_ON_NONE || !n || n->n || !n->failed)
		return GATE_PASS;
	const struct history_session *ss = &h->s[h->latest];
	if (ss->runs > ss->failed) {
		sb_addf(why, "invalid: the kernel failed in the guest tonight: %zu runs failed, "
			"other runs of the session succeeded", n->failed);
		return GATE_KERNEL_FAILED;
	}
	sb_addf(why, "invalid: no run of tonight's session succeeded: the lab failed");
	return GATE_LAB_FAILED;
}

static void series_label(struct strbuf *sb, const struct history_series *s)
{
	sb_addf(sb, "%s / %s / %s", s->line, s->workload, s->metric);
}

int history_gate_status(const struct history *h, enum fail_on f, struct strbuf *why)
{
	struct strbuf line = STRBUF_INIT;
	int regression = 0, lab = 0;

	for (size_t i = 0; i < h->nseries; i++) {
		enum gate_kind g;

		sb_reset(&line);
		g = judge_series(h, &h->series[i], f, &line);
		if (g == GATE_PASS)
			continue;
		sb_adds(why, "  ");
		series_label(why, &h->series[i]);
		sb_addf(why, ": %s\n", sb_str(&line));
		regression |= g != GATE_LAB_FAILED;
		lab |= g == GATE_LAB_FAILED;
	}
	sb_release(&line);
	return regression ? LAB_REGRESSION : lab ? LAB_ELAB : LAB_OK;
}

static void junit_case(struct strbuf *sb, const struct history *h,
		       const struct history_series *s, enum fail_on f, size_t counts[2])
{
	static const char *const type[] = {
		[GATE_REGRESSION] = "regression", [GATE_KERNEL_FAILED] = "kernel-failed",
		[GATE_LAB_FAILED] = "lab-failed",
	};
	struct strbuf why = STRBUF_INIT, label = STRBUF_INIT;
	enum gate_kind g = judge_series(h, s, f, &why);

	counts[0] += g == GATE_REGRESSION || g == GATE_KERNEL_FAILED;
	counts[1] += g == GATE_LAB_FAILED;
	sb_adds(sb, "    <testcase classname=\"mglrulab.history.");
	sb_add_xml(sb, s->workload);
	sb_adds(sb, "\" name=\"");
	series_label(&label, s);
	sb_add_xml(sb, sb_str(&label));
	sb_adds(sb, "\">\n");
	if (g != GATE_PASS) {
		sb_addf(sb, "      <%s type=\"%s\" message=\"",
			g == GATE_LAB_FAILED ? "error" : "failure", type[g]);
		sb_add_xml(sb, sb_str(&why));
		sb_adds(sb, "\"/>\n");
	}
	sb_addf(sb, "      <system-out>%zu nights, %zu change points</system-out>\n"
		"    </testcase>\n", s->nn, s->ncp);
	sb_release(&why);
	sb_release(&label);
}

/* "2026-11-29T18:46:28" and more: the schema's timestamp is its first 19 bytes. */
static int is_utc_time(const char *t)
{
	static const char pat[] = "dddd-dd-ddTdd:dd:dd";

	for (size_t i = 0; i < sizeof(pat) - 1; i++)
		if (!t[i] || (pat[i] == 'd' ? (t[i] < '0' || t[i] > '9') : t[i] != pat[i]))
			return 0;
	return 1;
}

void history_render_junit(const struct history *h, enum fail_on f, double time_s,
			  struct strbuf *out)
{
	const struct history_session *last = h->latest != (size_t)-1 ? &h->s[h->latest] : NULL;
	struct strbuf cases = STRBUF_INIT;
	size_t counts[2] = { 0 };	/* failures, errors */

	for (size_t i = 0; i < h->nseries; i++)
		junit_case(&cases, h, &h->series[i], f, counts);
	sb_addf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"mglrulab.history\" tests=\"%zu\" failures=\"%zu\" "
		"errors=\"%zu\" skipped=\"0\">\n  <testsuite name=\"mglrulab.history\" "
		"tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"0\"", h->nseries,
		counts[0], counts[1], h->nseries, counts[0], counts[1]);
	if (last && is_utc_time(last->created))
		sb_addf(out, " timestamp=\"%.19s\"", last->created);
	sb_adds(out, " hostname=\"");
	sb_add_xml(out, last && last->ctx.host.hostname ? last->ctx.host.hostname : "localhost");
	sb_addf(out, "\" time=\"%.2f\">\n", time_s);
	sb_add(out, sb_str(&cases), cases.len);
	sb_adds(out, "  </testsuite>\n</testsuites>\n");
	sb_release(&cases);
}
