/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What CI reads of a report: which results fail the gate, the exit status
 * they give, and the JUnit file. One implementation for `run`, `report`,
 * `compare` (and the vocabulary of `history`'s own gate), so the same
 * report.json gives the same exit status and the same JUnit whichever
 * command reads it.
 *
 * Each result with a verdict is judged into one enum gate_kind:
 *
 *   GATE_REGRESSION     a regression (and, with --fail-on change, an
 *                       improvement): JUnit <failure>, exit 3
 *   GATE_KERNEL_FAILED  invalid because runs failed, and only one
 *                       kernel's did (the patched kernel crashes the
 *                       guest): a finding about that kernel, <failure>,
 *                       exit 3
 *   GATE_LAB_FAILED     invalid because runs of both kernels failed, or
 *                       a primary metric that could not be measured
 *                       (no ratio, no interval): the lab could not
 *                       answer, <error>, exit 2
 *   GATE_SKIPPED        "?" inconclusive; too few runs (fewer than two of
 *                       a kernel, none failed: a budget or cap stopped
 *                       the session first); a secondary metric invalid
 *                       without failed runs: <skipped>, exit 0
 *   GATE_PASS           every other verdict, or one that --fail-on does
 *                       not gate: a passing test case
 *
 * A regression outranks a lab failure in the exit status (3, then 2), as
 * `run` always did: a change found is a change found.
 */
#ifndef LAB_REPORT_GATE_H
#define LAB_REPORT_GATE_H

#include <jansson.h>

#include "report_result.h"
#include "strbuf.h"
#include "util.h"

/*
 * --fail-on WHAT, from least to most strict: none never fails; invalid
 * fails on a kernel or the lab failing (GATE_KERNEL_FAILED,
 * GATE_LAB_FAILED); regression on those and on regressions (run's
 * default); change on those and on improvements too. Zero is regression,
 * so a zeroed struct session_opts keeps run's default.
 */
enum fail_on {
	FAIL_ON_DEFAULT = -1,	/* not given: the command's default */
	FAIL_ON_REGRESSION, FAIL_ON_CHANGE, FAIL_ON_NONE, FAIL_ON_INVALID,
};

/* "regression", "change", "none", "invalid": the option's words. */
const char *fail_on_name(enum fail_on f);

enum gate_kind {
	GATE_PASS,
	GATE_SKIPPED,
	GATE_REGRESSION,
	GATE_KERNEL_FAILED,
	GATE_LAB_FAILED,
};

/*
 * Judge @res under @f. @why (may be NULL) gets one line for the gate,
 * without a newline: the verdict, or which kernel failed in the guest and
 * how many of its runs.
 */
enum gate_kind report_gate_judge(const struct result_record *res, enum fail_on f,
				 struct strbuf *why);

/*
 * The exit status of an analysed report @v (report_analyze_view()) under
 * @f: LAB_REGRESSION (3) when a result is GATE_REGRESSION or
 * GATE_KERNEL_FAILED, else LAB_ELAB (2) when one is GATE_LAB_FAILED, else
 * LAB_OK. @why gets "  workload metric: why\n" for each result that fails.
 */
struct report_view;
int report_gate_status_view(const struct report_view *v, enum fail_on f, struct strbuf *why);

/*
 * The JUnit XML of the analysed report @v under @f into @out: the common
 * shape CI systems read (Jenkins' and GitLab's junit, the Ant schema):
 * <testsuites> holding one <testsuite name="mglrulab"> with tests,
 * failures, errors and skipped counted from its test cases, timestamp
 * (session.created, UTC), hostname (host.hostname) and time (created to
 * finished, seconds); one <testcase> per metric with a verdict, holding
 * <failure>, <error> or <skipped> as judged. Everything from the report is
 * XML-escaped. Deterministic: the same report gives the same bytes.
 */
void report_gate_junit_view(const struct report_view *v, enum fail_on f, struct strbuf *out);

/* What exit status @status of run, bisect, report, compare or history means, in words. */
const char *report_gate_status_meaning(int status);

/* "pass", "failure", "error", "skipped": the JUnit element of @g. */
const char *gate_kind_name(enum gate_kind g);

/*
 * The results of the analysed report @v as --json summaries list them: an
 * array of {workload, metric, primary, verdict, gate, why, delta_pct,
 * ci_lo_pct, ci_hi_pct} for the primaries (@primaries) or for every result that
 * fails @f (!@primaries). New reference.
 */
json_t *report_gate_results_view(const struct report_view *v, enum fail_on f, int primaries);

#endif
