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

/* @v's geomean[] replaced by @g (n of them, @v's now) and indexed. */
struct report_view;
struct view_geomean;
void report_view_set_geomean(struct report_view *v, struct view_geomean *g, size_t n);
/*
 * report_view_decode() of the analysis' own report (report_model.c), but
 * for its runs: the analysis decoded them already and hands them to the
 * view (runs), so they are never decoded twice.
 */
LAB_MUST_CHECK
int report_view_decode_but_runs(const json_t *report, struct report_view *out,
				struct strbuf *err);

struct report_view;
struct result_host;
/* How many workloads of a sequential session the budget stopped undecided. */
int report_view_budget_stopped(const struct report_view *v);
/* What the budget left undecided, and the command that goes on: one line into @out. */
void report_view_budget_resume_line(const struct report_view *v, struct strbuf *out);
/*
 * "kbuild: 3, ..." for the workloads whose planned runs per kernel differ
 * from design.runs_per_kernel (lab.conf [workload] runs = N), or NULL.
 * Plain text: the caller escapes it. Free it.
 */
char *report_view_runs_exceptions(const struct report_view *v);
/*
 * ", 2 guests at once, partners balanced (alone: kbuild)" when several
 * guests ran at once (design.slots, design.partners, design.alone), else
 * NULL. Plain text: the caller escapes it. Free it.
 */
char *report_view_slots_phrase(const struct report_view *v);
/*
 * "a: 6/6 runs, 70745 -> 62430, -11.8% [-13.9%, -9.9%]" for one of a
 * result's hosts, for the text report (plain text: the host name is made
 * safe, cut with "..."; no value is "n/a"; one run "n=1, no interval").
 */
void result_host_line(const struct result_host *h, struct strbuf *out);
/*
 * The text report's context block (session, kernels and their patches,
 * host, guest, design, time, statistics), 78 columns, strings made safe:
 * the mail's "Setup" is the same.
 */
void report_text_context(const struct report_view *v, struct strbuf *sb);
/* One plain-text sentence on a host_states[] entry, for text and HTML. */
struct view_host_state;
void hoststate_line(const struct view_host_state *hs, struct strbuf *out);

/*
 * @res is invalid only because a kernel has fewer than 2 runs with a
 * value (no failed-runs limit broken): report.json says "invalid", the
 * reports say "too few runs", which is not a broken run.
 */
struct result_record;
int result_too_few_runs(const struct result_record *res);

/*
 * The boot on the host's clock (runs[].timings.boot_wall_s): median into
 * *@median and sum into *@total over the runs that recorded it; returns
 * how many did (0: a report from before it was recorded, or no runs).
 */
size_t report_view_boot_wall(const struct report_view *v, double *median, double *total);

const char *verdict_marker(const char *id);
const char *verdict_label(const char *id);

/*
 * Beside a guest under icount, in every report: its time is instructions,
 * so what costs none does not move a figure, and "no change" is no
 * evidence about it (docs/guests.md, docs/attribution.md).
 */
#define REPORT_ICOUNT_BLIND \
	"cache misses, cache-line bouncing, false sharing and memory latency cost no " \
	"instructions and do not show"

/*
 * report_text_kit.c: word-wrap @text (made safe first) to 78 columns; the
 * first line starts after @prefix, continuation lines are indented by
 * @indent.
 */
void report_text_wrap(struct strbuf *sb, const char *prefix, size_t indent, const char *text);

/*
 * The reply mail's LKP parts (report_mail_lkp.c): the rows that decided or
 * matter, each kernel's median +-CV, change, interval, verdict and runs;
 * the reproduction recipe without a path of the sender's; the series'
 * author (kernels[].series_author, else series[0].author of older
 * reports), salvaged by mail_addr_salvage() into @out (release it with
 * mail_addr_release()): the To of a mail lab.conf names nobody for; 0, or
 * -1 when there is no usable address.
 */
struct headline;
struct mail_addr;
void report_mail_rows(const struct report_view *v, const struct headline *h, struct strbuf *sb);
void report_mail_recipe(const struct report_view *v, const char *base_url, struct strbuf *sb);
int report_mail_series_author(const struct report_view *v, struct mail_addr *out);
/* The To and Cc the patched kernel's series was posted with (NULL: not recorded). */
const char *report_mail_series_posted_to(const struct report_view *v);

#endif
