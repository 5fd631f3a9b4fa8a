// SPDX-License-Identifier: GPL-2.0
/*
 * The answer first (report_headline.h): which primary metrics changed, by
 * how much and how sure, what is undecided and what it would take, and the
 * warnings, built once from the view so that text, HTML and mail agree.
 */
#include "report_headline.h"
#include "escape.h"
#include "report_coh.h"
#include "report.h"
#include "report_priv.h"
#include "report_family.h"
#include "strmap.h"
#include "report_validity.h"
#include "mechanism.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HL_WIDTH	78	/* the text report's and the mail's line width */
#define HL_NAME_W	34

static const char *or(const char *s, const char *def)
{
	return s ? s : def;
}

/* A verdict a reader can act on, rather than "no change" or "within noise". */
static int is_news(const struct result_record *r)
{
	return r->verdict_id && r->verdict != VERDICT_NO_CHANGE &&
	       r->verdict != VERDICT_WITHIN_NOISE;
}

static int is_undecided(enum stats_verdict v)
{
	return v == VERDICT_INCONCLUSIVE || v == VERDICT_INVALID;
}

static void line_of(const struct report_view *v, const struct result_record *r,
		    struct headline_line *l)
{
	l->workload = r->workload;
	l->metric = r->metric;
	l->unit = r->unit;
	l->verdict_id = r->verdict_id;
	l->verdict = r->verdict;
	l->verdict_label = r->verdict_id ? stats_verdict_label(r->verdict) : "not compared";
	l->primary = r->primary;
	l->delta_pct = r->change.delta_pct;
	l->lo_pct = 100 * (r->change.lo - 1);
	l->hi_pct = 100 * (r->change.hi - 1);
	l->fewest_runs = r->side[0].n < r->side[1].n ? r->side[0].n : r->side[1].n;
	/* A sequential session's primaries rest on the repeated interval of their look. */
	l->interval = r->primary && v->design.sequential.present ? "RCI" : "CI";
	l->culprit = NULL;
	l->threshold_pct = isfinite(r->threshold) ? 100 * r->threshold : NAN;
}

/*
 * The claim on @l: its interval against the claimed size, or, when this
 * guest cannot see the claimed mechanism, "cannot test here" in place of
 * a "no change" or "undecided" it could not have avoided. A regression or
 * an improvement stays: the guest did measure a change, of what it sees.
 */
static void claim_on(const struct report_view *v, const struct validity *val,
		     struct headline_line *l)
{
	if (!l->verdict_id || !validity_claim_applies(&v->claim, l->workload, l->metric))
		return;
	if (!validity_can_test(v, val, l->workload, l->metric)) {
		if (l->verdict != VERDICT_REGRESSION && l->verdict != VERDICT_IMPROVEMENT) {
			l->cannot_test = 1;
			l->verdict_label = "cannot test here";
		}
		return;
	}
	validity_vs_claim(&v->claim, l->lo_pct, l->hi_pct, l->vs_claim, sizeof(l->vs_claim));
}

/* "-0.89", "+0.0004": two decimals, four below 0.01. */
static void coh_num(struct strbuf *sb, double x, int sign)
{
	sb_addf(sb, fabs(x) >= 0.01 ? (sign ? "%+.2f" : "%.2f") : (sign ? "%+.4f" : "%.4f"), x);
}

static void mech_list(unsigned m, struct strbuf *t);

/*
 * What the coherence model measured for @l, when this guest cannot see
 * cache-line transfers and the report has figures for its workload's
 * window: said beside the verdict, never instead of it, and counted once
 * per window in h->coh_windows and h->coh_changes.
 */
static void coh_on(const struct report_view *v, const struct validity *val,
		   struct headline_line *l, struct headline *h)
{
	struct strbuf t = STRBUF_INIT, sees = STRBUF_INIT;
	struct coh_answer a;
	int seen = 0;

	if ((val->sees & MECH_CACHE_LINES) || !report_coh_answer(v, l->workload, l->metric, &a))
		return;
	mech_list(val->sees, &sees);
	if (l->verdict == VERDICT_NO_CHANGE || l->verdict == VERDICT_WITHIN_NOISE)
		sb_adds(&t, "no change in ");
	else if (is_undecided(l->verdict))
		sb_adds(&t, "undecided in ");
	else
		sb_addf(&t, "%s in ", stats_verdict_label(l->verdict));
	sb_addf(&t, "%s; cache-line transfers ", sb_str(&sees));
	coh_num(&t, a.change, 1);
	sb_addf(&t, " per %s (model; %s the runs' spread of ", a.unit,
		a.beyond ? "beyond" : "within");
	coh_num(&t, a.spread, 0);
	if (a.beyond && !a.counts)
		sb_addf(&t, ", under the %.2f the answer counts", COH_ANSWER_MIN_CHANGE);
	sb_adds(&t, "), see \"Cache-line transfers (model)\"");
	snprintf(l->coh, sizeof(l->coh), "%s", sb_str(&t));
	l->coh_window = a.window;
	l->coh_beyond = a.counts;
	for (size_t i = 0; h->lines + i < l; i++)
		seen |= h->lines[i].coh_window == a.window &&
			!strcmp(h->lines[i].workload, l->workload);
	if (!seen) {
		h->coh_windows++;
		h->coh_changes += a.counts;
	}
	sb_release(&t);
	sb_release(&sees);
}

/*
 * The lines: the primaries when the session declared any (the answer it
 * was run for), else every metric whose verdict is news; those left out
 * are counted in h->quiet.
 */
static void build_lines(const struct report_view *v, struct headline *h)
{
	struct validity val;
	size_t n = 0;
	int bands = 0;

	validity_of(v, &val);
	h->band_pct = NAN;
	for (size_t i = 0; i < v->nresults; i++)
		h->primaries |= v->results[i].primary;
	h->lines = xcalloc(v->nresults + 1, sizeof(*h->lines));
	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *r = &v->results[i];
		struct headline_line *l = &h->lines[n];

		if (h->primaries ? !r->primary : !is_news(r)) {
			h->quiet += !h->primaries;
			continue;
		}
		line_of(v, r, l);
		n++;
		if (!l->verdict_id)
			continue;
		claim_on(v, &val, l);
		coh_on(v, &val, l, h);
		if (l->cannot_test) {
			h->cannot_test++;
			continue;
		}
		h->improvements += l->verdict == VERDICT_IMPROVEMENT;
		h->regressions += l->verdict == VERDICT_REGRESSION;
		h->undecided += is_undecided(l->verdict);
		h->invalid += l->verdict == VERDICT_INVALID;
		if (l->verdict == VERDICT_NO_CHANGE || l->verdict == VERDICT_WITHIN_NOISE) {
			h->no_change++;
			/* one band for all, or none named: "no change (+-1%)" */
			if (!bands++)
				h->band_pct = l->threshold_pct;
			else if (!(h->band_pct == l->threshold_pct))
				h->band_pct = NAN;
		}
	}
	h->nlines = n;
}

static void add_todo(struct headline *h, const char *text)
{
	h->todo = xrealloc(h->todo, (h->ntodo + 1) * sizeof(*h->todo));
	h->todo[h->ntodo++].text = xstrdup(text);
}

/* Runs per kernel the result rests on: the larger of the two kernels'. */
static long runs_of(const struct result_record *r)
{
	return r->side[0].n > r->side[1].n ? r->side[0].n : r->side[1].n;
}

/* Where a workload of a sequential session stopped; NULL: not sequential. */
static const struct view_seq_workload *seq_of(const struct report_view *v, const char *wname)
{
	for (size_t i = 0; i < v->sequential.nworkloads; i++)
		if (!strcmp(or(v->sequential.workloads[i].name, ""), wname))
			return &v->sequential.workloads[i];
	return NULL;
}

/*
 * The host state of @r's measurement whose runs sit at two emulator
 * states (report_modes.c); NULL: none.
 */
static const struct view_host_state *modes_of(const struct report_view *v,
					      const struct result_record *r)
{
	for (size_t i = 0; i < v->nhost_states; i++) {
		const struct view_host_state *hs = &v->host_state_recs[i];

		if (hs->separated && hs->workload && hs->metric &&
		    !strcmp(hs->workload, r->workload) && metric_family_same(hs->metric, r->metric))
			return hs;
	}
	return NULL;
}

/* What more runs would do for an inconclusive @r, and how to get them. */
static void more_runs(const struct report_view *v, const struct result_record *r,
		      struct strbuf *t)
{
	const struct view_seq_workload *w = seq_of(v, r->workload);
	const struct view_host_state *hs = modes_of(v, r);

	sb_addf(t, "inconclusive with %ld runs per kernel", runs_of(r));
	/* A runs estimate assumes one spread; two emulator states are not one. */
	if (hs) {
		if (hs->modes_decidable == 0)
			sb_adds(t, "; its runs sit at two emulator states that the kernels do not "
				"share, so more runs here do not decide it: runs of both kernels in "
				"one state would (a guest under icount has one)");
		else
			sb_adds(t, "; its runs sit at two emulator states: the change within a "
				"state (warning \"modes\") decides it, not more runs of the mix");
		return;
	}
	if (w && w->why && !strcmp(w->why, "below-first-look"))
		sb_adds(t, ", its own cap ([workload] runs), below the first look");
	if (w && w->why && !strcmp(w->why, "budget"))
		sb_adds(t, "; the budget stopped it (resume below)");
	else if (r->runs_needed > 0)
		sb_addf(t, "; about %ld runs per kernel might decide (a new session "
			"with --runs %ld)", r->runs_needed, r->runs_needed);
	else
		sb_adds(t, "; more runs may not decide it: the change sits on the band's edge");
}

/*
 * A regression of a kernel with several patches: which one is a bisection's
 * question. The report cannot name the patch itself (module comment).
 */
static void bisect_hint(const struct report_view *v, struct headline *h, struct strbuf *t)
{
	size_t npatches = 0;

	/* A comparison of two sessions names no kernels a bisection could take. */
	if (!h->regressions || (v->session.mode && !strcmp(v->session.mode, "compare")))
		return;
	for (size_t i = 0; i < v->nkernels; i++)
		if (v->kernels[i].name && h->patched && !strcmp(v->kernels[i].name, h->patched))
			npatches = v->kernels[i].series.n;
	if (npatches < 2)
		return;
	sb_reset(t);
	sb_addf(t, "which of the %zu patches caused the regression: mglrulab bisect ", npatches);
	sb_add_text_safe(t, h->baseline);
	sb_addc(t, ' ');
	sb_add_text_safe(t, h->patched);
	sb_adds(t, " (docs/bisect.md)");
	add_todo(h, sb_str(t));
}

/* Each undecided line, what it would take; then the session's own resume. */
static void build_todo(const struct report_view *v, struct headline *h)
{
	struct strbuf t = STRBUF_INIT;

	struct strmap said = STRMAP_INIT;	/* "workload\nmeasurement" of the lines so far */
	size_t one;

	for (size_t i = 0; i < v->nresults; i++) {
		const struct result_record *r = &v->results[i];

		if ((h->primaries && !r->primary) || !r->verdict_id || !is_undecided(r->verdict))
			continue;
		/* One line per measurement: x, x_hostadj and x_mean are one (report_family.h). */
		sb_reset(&t);
		sb_addf(&t, "%s\n%.*s", or(r->workload, ""),
			(int)metric_family_stem_len(or(r->metric, "")), or(r->metric, ""));
		if (strmap_get(&said, sb_str(&t), &one))
			continue;
		strmap_put(&said, sb_str(&t), 1);
		sb_reset(&t);
		sb_add_text_safe(&t, r->workload);
		sb_adds(&t, ": ");
		sb_add_text_safe(&t, r->metric);
		sb_adds(&t, ": ");
		if (r->verdict == VERDICT_INVALID) {
			sb_adds(&t, "invalid: ");
			sb_add_text_safe(&t, or(r->reason, "no reason recorded"));
		} else {
			more_runs(v, r, &t);
		}
		add_todo(h, sb_str(&t));
	}
	strmap_clear(&said);
	bisect_hint(v, h, &t);
	if (report_view_budget_stopped(v)) {
		sb_reset(&t);
		report_view_budget_resume_line(v, &t);
		add_todo(h, sb_str(&t));
	}
	if (!v->session.complete && v->session.id) {
		sb_reset(&t);
		sb_adds(&t, "the session was interrupted; to complete it: mglrulab run --resume ");
		sb_add_text_safe(&t, v->session.id);
		add_todo(h, sb_str(&t));
	}
	sb_release(&t);
}

static void build_warnings(const struct report_view *v, struct headline *h)
{
	struct strbuf t = STRBUF_INIT;

	h->warnings = xcalloc(v->nwarnings + 1, sizeof(*h->warnings));
	for (size_t i = 0; i < v->nwarnings; i++) {
		sb_reset(&t);
		sb_add_text_safe(&t, or(v->warnings[i].message, ""));
		h->warnings[i].kind = v->warnings[i].kind;
		h->warnings[i].text = xstrdup(sb_str(&t));
	}
	h->nwarnings = v->nwarnings;
	sb_release(&t);
}

static void add_validity(struct headline *h, const char *text)
{
	h->validity = xrealloc(h->validity, (h->nvalidity + 1) * sizeof(*h->validity));
	h->validity[h->nvalidity++].text = xstrdup(text);
}

/* "a, b and c" of the mechanisms in @m, in words. */
static void mech_list(unsigned m, struct strbuf *t)
{
	unsigned left = m;

	for (unsigned bit = 1; bit & MECH_ALL; bit <<= 1) {
		if (!(m & bit))
			continue;
		left &= ~bit;
		if (left != m - bit && t->len)
			sb_adds(t, left ? ", " : " and ");
		sb_adds(t, mechanism_words(bit));
	}
}

/*
 * The guest mode and what it cannot see of the primaries' mechanisms;
 * then the claim, and whether this guest can test it. Plain text.
 */
static void build_validity(const struct report_view *v, struct headline *h)
{
	struct strbuf t = STRBUF_INIT, blind = STRBUF_INIT, names = STRBUF_INIT;
	struct validity val;
	unsigned unseen = 0;
	size_t nnames = 0;

	validity_of(v, &val);
	for (size_t i = 0; i < h->nlines; i++) {
		unsigned m = validity_workload_mechs(v, h->lines[i].workload) & ~val.sees;
		const char *w = h->lines[i].workload;

		if (!m || (i && !strcmp(w, h->lines[i - 1].workload)))
			continue;
		unseen |= m;
		sb_adds(&names, nnames++ ? ", " : "");
		sb_add_text_safe(&names, w);
	}
	if (unseen) {
		mech_list(unseen, &blind);
		sb_addf(&t, "this guest runs under %s and sees ", val.mode);
		mech_list(val.sees, &t);
		sb_addf(&t, " only, not %s: a \"no change\" of %s speaks for what it sees", sb_str(&blind), sb_str(&names));
		add_validity(h, sb_str(&t));
	}
	if (v->claim.present) {
		sb_reset(&t);
		sb_adds(&t, "the series claims ");
		if (v->claim.metric) {
			sb_add_text_safe(&t, v->claim.metric);
			sb_adds(&t, " ");
		}
		if (v->claim.workload) {
			sb_adds(&t, "of ");
			sb_add_text_safe(&t, v->claim.workload);
			sb_adds(&t, " ");
		}
		if (v->claim.direction)
			sb_add_text_safe(&t, v->claim.direction);
		if (isfinite(v->claim.size_pct))
			sb_addf(&t, " by %.1f%%", v->claim.size_pct);
		if (val.claimed)
			sb_addf(&t, " through %s", mechanism_words(val.claimed));
		if (v->claim.source) {
			sb_adds(&t, " (");
			sb_add_text_safe(&t, v->claim.source);
			sb_adds(&t, ")");
		}
		if (!val.claimed)
			sb_adds(&t, "; it names no mechanism, so whether this guest can test it "
				"is not known");
		else if (!(val.sees & val.claimed))
			sb_addf(&t, ": %s cannot see %s, so this session cannot test the claim "
				"(\"cannot test here\", not \"no change\"); a KVM host can", val.mode,
				mechanism_words(val.claimed));
		else
			sb_addf(&t, ": %s sees it; the answer's lines say how their intervals stand "
				"against it", val.mode);
		add_validity(h, sb_str(&t));
	}
	sb_release(&t);
	sb_release(&blind);
	sb_release(&names);
}

void headline_build(const struct report_view *v, struct headline *h)
{
	memset(h, 0, sizeof(*h));
	h->band_pct = NAN;
	h->baseline = or(v->design.baseline, "?");
	h->patched = v->design.patched;
	h->confidence = isfinite(v->statistics.confidence) ? v->statistics.confidence : 0.95;
	if (h->patched)
		build_lines(v, h);
	build_validity(v, h);
	build_todo(v, h);
	build_warnings(v, h);
}

void headline_release(struct headline *h)
{
	for (size_t i = 0; i < h->ntodo; i++)
		free(h->todo[i].text);
	for (size_t i = 0; i < h->nwarnings; i++)
		free(h->warnings[i].text);
	for (size_t i = 0; i < h->nvalidity; i++)
		free(h->validity[i].text);
	free(h->validity);
	free(h->todo);
	free(h->warnings);
	free(h->lines);
	memset(h, 0, sizeof(*h));
}

void headline_change(const struct headline_line *l, char *buf, size_t size)
{
	fmt_pct(buf, size, l->delta_pct);
}

void headline_interval(const struct headline_line *l, char *buf, size_t size)
{
	/* One run of a kernel: a point, not an interval of zero width (as the tables). */
	if (l->fewest_runs == 1) {
		snprintf(buf, size, "n=1, no interval");
		return;
	}
	fmt_ratio_ci(buf, size, 1 + l->lo_pct / 100, 1 + l->hi_pct / 100);
}

/* "1 regression", "2 improvements" */
static void count(struct strbuf *out, long n, const char *one, const char *many, int *first)
{
	if (!n)
		return;
	sb_addf(out, "%s%ld %s", *first ? "" : ", ", n, n == 1 ? one : many);
	*first = 0;
}

/* The one line of @h with verdict @v, when there is exactly one. */
static const struct headline_line *only(const struct headline *h, enum stats_verdict v)
{
	const struct headline_line *found = NULL;

	for (size_t i = 0; i < h->nlines; i++) {
		if (!h->lines[i].verdict_id || h->lines[i].verdict != v)
			continue;
		if (found)
			return NULL;
		found = &h->lines[i];
	}
	return found;
}

void headline_summary(const struct headline *h, struct strbuf *out)
{
	const struct headline_line *l = only(h, VERDICT_REGRESSION);
	int first = 1;
	char d[32];

	if (!h->patched) {
		sb_adds(out, "one kernel, nothing compared");
		return;
	}
	if (!h->nlines && !h->quiet) {
		sb_adds(out, "nothing measured");
		return;
	}
	/* the one count a reader looks for first, even at 0 */
	sb_addf(out, "%ld regression%s", h->regressions, h->regressions == 1 ? "" : "s");
	first = 0;
	if (l && h->regressions == 1) {
		headline_change(l, d, sizeof(d));
		sb_adds(out, " (");
		sb_add_text_fit(out, l->workload, 20);
		sb_adds(out, ": ");
		sb_add_text_fit(out, l->metric, 30);
		sb_addf(out, " %s)", d);
	}
	count(out, h->improvements, "improvement", "improvements", &first);
	count(out, h->no_change + h->quiet, "no change", "no change", &first);
	if (h->no_change + h->quiet && isfinite(h->band_pct))
		sb_addf(out, " (+-%g%%)", h->band_pct);
	/* An invalid result is not a "maybe": the runs failed, say so apart. */
	count(out, h->undecided - h->invalid, "undecided", "undecided", &first);
	count(out, h->invalid, "invalid", "invalid", &first);
	count(out, h->cannot_test, "cannot test here", "cannot test here", &first);
	/* the model's own count, apart from the verdicts: it decides none of them */
	if (h->coh_changes)
		sb_addf(out, "; %ld cache-line change%s (model)", h->coh_changes,
			h->coh_changes == 1 ? "" : "s");
	else if (h->coh_windows)
		sb_adds(out, "; no cache-line change (model)");
}

/*
 * Word-wrap the safe @text to HL_WIDTH columns: the first line after
 * @first, the others after @indent spaces.
 */
static void hl_wrap(struct strbuf *sb, const char *first, size_t indent, const char *text)
{
	size_t col = strlen(first);
	const char *s = text;

	sb_adds(sb, first);
	while (*s) {
		size_t bytes = strcspn(s, " "), w;
		char *word = xstrndup(s, bytes);

		w = text_safe_width(word);
		if (col > indent && col + 1 + w > HL_WIDTH) {
			sb_addf(sb, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			sb_addc(sb, ' ');
			col++;
		}
		col += sb_add_text_fit(sb, word, HL_WIDTH - col);
		free(word);
		s += bytes;
		while (*s == ' ')
			s++;
	}
	sb_addc(sb, '\n');
}

static void pad(struct strbuf *sb, size_t from, size_t col)
{
	size_t w = text_safe_width(sb->buf + from);

	while (w++ < col)
		sb_addc(sb, ' ');
}

static void answer_row(const struct headline_line *l, struct strbuf *sb)
{
	struct strbuf name = STRBUF_INIT;
	char d[32], ci[48];
	size_t start;

	headline_change(l, d, sizeof(d));
	headline_interval(l, ci, sizeof(ci));
	sb_addf(&name, "%s: %s", l->workload, l->metric);
	sb_adds(sb, "  ");
	start = sb->len - 2;
	/* A long name gets a line of its own, the numbers go below it. */
	sb_add_text_fit(sb, name.buf, HL_WIDTH - 2);
	if (text_safe_width(name.buf) > HL_NAME_W) {
		sb_addc(sb, '\n');
		start = sb->len;
	}
	pad(sb, start, 2 + HL_NAME_W);
	/* 78 columns with the longest label, "cannot test here" */
	sb_addf(sb, " %7s %16s %s\n", d, ci, l->verdict_label);
	if (*l->vs_claim)
		sb_addf(sb, "      %s\n", l->vs_claim);
	if (*l->coh)
		hl_wrap(sb, "      ", 6, l->coh);
	if (l->culprit) {
		sb_adds(sb, "      culprit: ");
		sb_add_text_fit(sb, l->culprit, HL_WIDTH - 15);
		sb_addc(sb, '\n');
	}
	sb_release(&name);
}

static void answer_head(const struct headline *h, struct strbuf *sb)
{
	struct strbuf t = STRBUF_INIT;

	if (!h->patched) {
		sb_adds(&t, "one kernel measured (");
		sb_add_text_safe(&t, h->baseline);
		sb_adds(&t, "), nothing compared");
	} else {
		headline_summary(h, &t);
		sb_adds(&t, h->primaries ? " (primary metrics)" : " (every metric: no primaries "
			"declared)");
	}
	hl_wrap(sb, "Answer:  ", 9, sb_str(&t));
	sb_release(&t);
}

void headline_render_text(const struct headline *h, struct strbuf *sb)
{
	char ci[32];

	answer_head(h, sb);
	if (h->nlines) {
		/* A repeated interval's level is its look's: no single percentage. */
		if (!strcmp(h->lines[0].interval, "RCI"))
			snprintf(ci, sizeof(ci), "RCI");
		else
			snprintf(ci, sizeof(ci), "%.0f%% CI", 100 * h->confidence);
		sb_addf(sb, "  %-*s %7s %16s %s\n", HL_NAME_W, "workload: metric", "change", ci,
			"verdict");
		for (size_t i = 0; i < h->nlines; i++)
			answer_row(&h->lines[i], sb);
	}

	if (h->quiet)
		sb_addf(sb, "  (%ld other metric%s: no change or within the noise band)\n", h->quiet,
			h->quiet == 1 ? "" : "s");
	if (h->nvalidity)
		sb_adds(sb, "\nWhat this guest can test:\n");
	for (size_t i = 0; i < h->nvalidity; i++)
		hl_wrap(sb, "  * ", 4, h->validity[i].text);
	if (h->ntodo)
		sb_adds(sb, "\nUndecided, and what it would take:\n");
	for (size_t i = 0; i < h->ntodo; i++)
		hl_wrap(sb, "  * ", 4, h->todo[i].text);
	if (h->nwarnings)
		sb_adds(sb, "\nWarnings:\n");
	for (size_t i = 0; i < h->nwarnings; i++)
		hl_wrap(sb, "  * ", 4, h->warnings[i].text);
}
