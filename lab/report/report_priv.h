/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals shared by the report files (model, renderers). Not an API: the
 * session runner and commands use report.h only.
 */
#ifndef LAB_REPORT_PRIV_H
#define LAB_REPORT_PRIV_H

#include <jansson.h>
#include <math.h>

#include "report.h"
#include "strbuf.h"

/* JSON cannot hold NaN or infinities: "not available" is written as null. */
json_t *jnum(double v);
/* A number member, or NaN when missing / null / not a number. */
double jget_num(const json_t *obj, const char *key);
/* A string member, or @def when missing or not a string. */
const char *jget_str(const json_t *obj, const char *key, const char *def);
/* Walk "a.b.c" through nested objects; NULL when any step is missing. */
json_t *jpath(const json_t *obj, const char *dotted);

/*
 * Numbers for humans: @sig significant digits without an exponent for the
 * magnitudes benchmarks produce, "-" for NaN. Locale-independent (reports
 * must be byte-identical everywhere).
 */
void fmt_num(char *buf, size_t size, double v);
/* "+2.3%" / "-0.7%" / "+0.0%"; "-" for NaN. */
void fmt_pct(char *buf, size_t size, double pct);
/* An interval of a ratio as percent changes: "[-0.4%, +2.1%]". */
void fmt_ratio_ci(char *buf, size_t size, double lo, double hi);
/* p-values: "0.003", "<0.001", "-" for NaN. */
void fmt_p(char *buf, size_t size, double p);

/*
 * Host-state adjusted metrics (report_hoststate.c) of every run of
 * @session, for the kernels @kname (kname[1] NULL: one kernel): an array
 * parallel to session.runs, element i an object of run i's derived metric
 * values (often empty); *info gets one description per derived metric.
 */
json_t *report_hoststate(const json_t *session, const char *const kname[2], json_t **info);

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

/* Verdict ids (stats_verdict_id) to their display symbol and ASCII marker. */
const char *verdict_symbol(const char *id);

/* How many workloads of a sequential session the budget stopped undecided. */
int report_budget_stopped(const json_t *report);
/* What the budget left undecided, and the command that goes on: one line into @out. */
void report_budget_resume_line(const json_t *report, struct strbuf *out);
const char *verdict_marker(const char *id);
const char *verdict_label(const char *id);

#endif
