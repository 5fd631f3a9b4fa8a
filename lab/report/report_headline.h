/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The answer a maintainer reads first, built once from the typed result
 * records of a report (report_view.h) and rendered the same way by the
 * text report, the HTML report and the reply mail:
 *
 *   - one line per primary metric (every metric when the session declared
 *     no primaries): workload, metric, change, interval, verdict, and for
 *     a regression the patch a bisection blamed when the report knows it;
 *   - what is undecided and what it would take (more runs, or the
 *     --resume --budget command of a sequential session the budget
 *     stopped: report_view_budget_resume_line(), not a copy of it);
 *   - the report's warnings, which name their metrics.
 *
 * A session report does not know whether a bisection produced it (the
 * bisection's verdict on a patch lives in bisect.json, not in the step's
 * report.json): headline_line.culprit stays NULL for every report today and
 * h->culprit_known says so; the renderers then print no culprit.
 *
 * Not thread-safe on one headline; headlines are plain values. Strings
 * marked "view" point into the view (they live as long as it does, and are
 * raw: escape them for the output); the others are the headline's own, plain
 * text made safe with sb_add_text_safe(), and headline_release() frees them.
 */
#ifndef LAB_REPORT_HEADLINE_H
#define LAB_REPORT_HEADLINE_H

#include <jansson.h>
#include <stddef.h>

#include "report_view.h"
#include "strbuf.h"
#include "util.h"

/* One metric's answer. */
struct headline_line {
	const char *workload, *metric;	/* view */
	const char *unit;		/* view; NULL: none declared */
	const char *verdict_id;		/* view; NULL: one kernel, no verdict */
	enum stats_verdict verdict;
	const char *verdict_label;	/* "regression", "no change", ... (static) */
	int primary;
	/* The change the verdict rests on, in percent; NaN: none. */
	double delta_pct, lo_pct, hi_pct;
	const char *interval;		/* "95% CI", "RCI" (static) */
	long fewest_runs;		/* of the two kernels' runs; 1: no interval */
	const char *culprit;		/* view; the patch blamed; NULL: not known */
	double threshold_pct;		/* its noise band, in percent; NaN: none */
	/*
	 * 1: the claim ([claim]) concerns it and this guest cannot see the
	 * claimed mechanism (report_validity.h): its "no change" or
	 * "undecided" is "cannot test here" (verdict_label says so).
	 */
	int cannot_test;
	/* How its interval stands against the claim; "": no claim on it. */
	char vs_claim[64];
	/*
	 * What the coherence model (report_coh.h) measured for it when the
	 * guest cannot see cache-line transfers and the report has figures:
	 * "no change in instructions; cache-line transfers -0.89 per yield
	 * (model; beyond the runs' spread of 0.12)"; "": none. Plain text.
	 */
	char coh[192];
	long coh_window;		/* the window it is of; 0: none */
	int coh_beyond;			/* its change is beyond the runs' spread */
};

/* Something undecided and what it would take: one plain-text sentence. */
struct headline_todo {
	char *text;
};

/* A warning of the report (its message names the metrics). */
struct headline_warning {
	const char *kind;		/* view */
	char *text;			/* plain text */
};

struct headline {
	const char *baseline;		/* view; "?" when none */
	const char *patched;		/* view; NULL: one kernel */
	int primaries;			/* 1: lines are the primaries; 0: every metric */
	int culprit_known;		/* the report says which patch a regression is */
	long improvements, regressions, undecided;	/* among the lines */
	long invalid;			/* of the undecided: invalid (failed runs, ...) */
	long no_change;			/* no change or within the band */
	long cannot_test;		/* the claim's, which this guest cannot see */
	/*
	 * The coherence model's figures on the lines: workload windows with
	 * any, and those whose change is beyond the runs' spread. Not verdicts:
	 * a count of their own ("1 cache-line change (model)").
	 */
	long coh_windows, coh_changes;
	double band_pct;		/* the lines' one noise band; NaN: none, or several */
	long quiet;			/* no primaries: metrics left out, no news */
	double confidence;		/* of the intervals that are not RCIs: 0.95 */
	size_t nlines;
	struct headline_line *lines;
	size_t ntodo;
	struct headline_todo *todo;
	size_t nwarnings;
	struct headline_warning *warnings;
	/*
	 * What this guest can test, said before the verdicts are read: one
	 * plain sentence each (the guest mode and what it cannot see of the
	 * primaries; the claim and whether it can be tested here).
	 */
	size_t nvalidity;
	struct headline_todo *validity;
};

/*
 * Build the answer of @v into @h (zeroed first). Never fails: a view with no
 * results gives a headline with no lines, which the renderers say.
 */
void headline_build(const struct report_view *v, struct headline *h);
void headline_release(struct headline *h);

/* "-3.1%" and "[-4.0%, -2.2%]" of @l ("-" when not measured). */
void headline_change(const struct headline_line *l, char *buf, size_t size);
void headline_interval(const struct headline_line *l, char *buf, size_t size);

/*
 * The verdict in a few words for the text's first line, the page's title
 * and heading and the mail's Subject: the count of regressions (always),
 * then improvements, no change (with the band), undecided, invalid and
 * "cannot test here", each when there are any: "0 regressions, 7 no
 * change (+-1%), 2 undecided", "1 regression (wis: ops_per_sec -3.1%), 1
 * cannot test here". When the coherence model has figures for the lines,
 * its own count after a semicolon, apart from the verdicts: "...; 1
 * cache-line change (model)" or "...; no cache-line change (model)".
 * Plain text, made safe.
 */
void headline_summary(const struct headline *h, struct strbuf *out);

/*
 * The answer as plain text, at most 78 columns, ASCII layout: the
 * "Answer" table, then "Undecided" and "Warnings" (the text report and the
 * mail body open with it).
 */
void headline_render_text(const struct headline *h, struct strbuf *out);

/* What the mail needs beyond the report; NULL members are left out. */
struct report_mail_opts {
	const char *from;	/* "Name <addr>"; NULL: "mglrulab <$USER@hostname>" by the caller */
	const char *to, *cc;	/* NULL: "To:" left for the user to fill */
	const char *base_url;	/* [report] base_url: where report.html is published */
	const char *date;	/* RFC 5322 date; NULL: the report's session.finished */
	/*
	 * A section of the caller's after the answer (`mglrulab watch`: the
	 * bisection of a series that regressed), its lines wrapped at their
	 * own indent; NULL: none.
	 */
	const char *appendix;
};

/*
 * An LKP-style reply to the series the report measured, ready to send:
 * RFC 5322 headers (From, To, Cc, Subject "Re: <cover letter subject>" with
 * the verdict, In-Reply-To and References the cover letter's Message-Id or
 * the first patch's), then the answer, the lab's setup, how to reproduce
 * and the HTML's address when @o->base_url is set. Lines of at most 78
 * columns, control characters of guest strings stripped. Returns 0, or 1
 * when the mail could not be threaded (the report has no Message-Id), with
 * why in @why: the mail is rendered all the same.
 */
int report_render_mail(const json_t *report, const struct report_mail_opts *o,
		       struct strbuf *out, struct strbuf *why);
/*
 * A reply that is no report's (`mglrulab watch`: a series that could not
 * be measured): report_render_mail()'s headers, Subject "Re: @subject
 * [mglrulab: @tag]" threaded under @msgid ("<id@host>"; left out when it
 * is not one), then @body: each line wrapped to 78 columns at its own
 * indent; every string filtered. Date: now, unless @o->date.
 */
void report_render_plain_mail(const struct report_mail_opts *o, const char *subject,
			      const char *tag, const char *msgid, const char *body,
			      struct strbuf *out);
/* "$USER@hostname", the sender when lab.conf names none: free() it. */
char *report_mail_default_from(void);

#endif
