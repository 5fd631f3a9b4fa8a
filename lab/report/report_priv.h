/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the report files (model, renderers). Not an API:
 * other folders use report.h only, which scripts/check-layers enforces
 * (a *_priv.h is included from its own folder alone).
 */
#ifndef LAB_REPORT_PRIV_H
#define LAB_REPORT_PRIV_H

#include <jansson.h>
#include <math.h>

#include "report.h"
#include "xjson.h"
#include "strbuf.h"

struct run_records;
/*
 * report_validate(), and the runs it decoded into @runs (released by the
 * caller; empty on failure): the analysis reads them without decoding twice.
 */
LAB_MUST_CHECK
int report_validate_runs(const json_t *root, struct run_records *runs, struct strbuf *err);

/* One plain-text sentence on a report.host_states entry, for text and HTML. */
void hoststate_sentence(const json_t *hs, struct strbuf *out);

/* 1 when some result of @report was analysed host by host (several hosts). */
int report_several_hosts(const json_t *report);

/* 1 when @res carries a warning of @kind. */
int result_has_warning(const json_t *res, const char *kind);

/*
 * "a: 6/6 runs, 70745 -> 62430, -11.8% [-13.9%, -9.9%]" for one element
 * of a result's "hosts" (plain text: the host name is made safe).
 */
void host_line(const json_t *h, struct strbuf *out);

/* How many workloads of a sequential session the budget stopped undecided. */
int report_budget_stopped(const json_t *report);
/* What the budget left undecided, and the command that goes on: one line into @out. */
void report_budget_resume_line(const json_t *report, struct strbuf *out);
/*
 * The same, read from the decoded report (report_view.h) for the
 * renderers converted to it; the JSON ones above go when the last
 * renderer reading JSON does.
 */
struct report_view;
struct result_host;
int report_view_budget_stopped(const struct report_view *v);
void report_view_budget_resume_line(const struct report_view *v, struct strbuf *out);
/* report_runs_exceptions() of a decoded report. Free it. */
char *report_view_runs_exceptions(const struct report_view *v);
/* host_line() of a decoded result's host. */
void result_host_line(const struct result_host *h, struct strbuf *out);
/* hoststate_sentence() of a decoded host_states[] entry. */
struct view_host_state;
void hoststate_line(const struct view_host_state *hs, struct strbuf *out);

const char *verdict_marker(const char *id);
const char *verdict_label(const char *id);

#endif
