// SPDX-License-Identifier: GPL-2.0
/*
 * From numbers to a word: Benjamini-Hochberg across a report's metrics and
 * the per-metric verdict. The rules are deliberately conservative: a
 * change is only called an improvement or a regression when it is both
 * statistically significant and larger than the noise threshold over its
 * whole interval, because a maintainer acts on those two words.
 */
#include "stats.h"
#include "stats_priv.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void stats_bh_adjust(const double *p, size_t n, double *q)
{
	struct stats_vi *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t m = 0;
	double run = 1.0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i])) {
			v[m].v = p[i];
			v[m++].i = i;
		}
	/* Every slot is rewritten below, so @q may alias @p. */
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			q[i] = NAN;
	qsort(v, m, sizeof(*v), stats_cmp_vi);
	/* Step-up: q_(j) = min over k >= j of p_(k) m / k. */
	for (size_t j = m; j-- > 0;) {
		double adj = v[j].v * (double)m / (double)(j + 1);

		/* p * m / m can round below p; q < p would look absurd. */
		if (adj < v[j].v)
			adj = v[j].v;
		if (adj < run)
			run = adj;
		q[v[j].i] = run;
	}
	free(v);
}

/*
 * The one verdict display table: JSON id, display symbol (UTF-8), ASCII
 * marker and label. The text and HTML reports and `run --until decided`
 * progress read it through the functions below (report_fmt.c's
 * verdict_symbol() and friends take the id a report file holds).
 */
static const struct {
	const char *id, *name, *marker, *label;
} verdict_display[] = {
	[VERDICT_IMPROVEMENT] = { "improvement", "improvement", "+", "improvement" },
	[VERDICT_REGRESSION] = { "regression", "regression", "-", "regression" },
	[VERDICT_WITHIN_NOISE] = { "within-noise", "\u2248", "=", "significant, within noise" },
	[VERDICT_NO_CHANGE] = { "no-change", "~", "~", "no change" },
	[VERDICT_INCONCLUSIVE] = { "inconclusive", "?", "?", "inconclusive" },
	[VERDICT_INVALID] = { "invalid", "invalid", "!", "invalid" },
};

/* Out of range counts as invalid, never as a pass. */
static enum stats_verdict verdict_clamp(enum stats_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(verdict_display) ? v : VERDICT_INVALID;
}

const char *stats_verdict_name(enum stats_verdict v)
{
	return verdict_display[verdict_clamp(v)].name;
}

const char *stats_verdict_marker(enum stats_verdict v)
{
	return verdict_display[verdict_clamp(v)].marker;
}

const char *stats_verdict_id(enum stats_verdict v)
{
	return verdict_display[verdict_clamp(v)].id;
}

const char *stats_verdict_label(enum stats_verdict v)
{
	return verdict_display[verdict_clamp(v)].label;
}

enum stats_verdict stats_verdict_from_id(const char *id)
{
	for (int v = VERDICT_IMPROVEMENT; v <= VERDICT_INVALID; v++)
		if (id && !strcmp(id, verdict_display[v].id))
			return (enum stats_verdict)v;
	return VERDICT_INVALID;
}

int stats_verdict_decided(enum stats_verdict v)
{
	return v == VERDICT_IMPROVEMENT || v == VERDICT_REGRESSION ||
	       v == VERDICT_WITHIN_NOISE || v == VERDICT_NO_CHANGE;
}

int stats_verdict_parse(const char *s, enum stats_verdict *out)
{
	for (int v = VERDICT_IMPROVEMENT; v <= VERDICT_INVALID; v++)
		if (s && (!strcmp(s, stats_verdict_id(v)) ||
			  !strcmp(s, stats_verdict_name(v)) ||
			  !strcmp(s, stats_verdict_marker(v)))) {
			*out = v;
			return 0;
		}
	return -1;
}

unsigned stats_round_runs(double need, size_t n)
{
	double mag, r;

	if (!(need > 0) || !isfinite(need))
		return 0;
	mag = pow(10, floor(log10(need)));
	r = round(need / mag) * mag;
	/* One figure, and still more than the runs already made. */
	while (r <= (double)n) {
		mag = pow(10, floor(log10(r)));
		r += mag;
	}
	return r > 1e6 ? 0 : (unsigned)r;
}

/*
 * Runs per kernel that would make an interval of log half-width @w fit in
 * @room, assuming the half-width shrinks as 1/sqrt(n) and the centre
 * stays put. 0 when it cannot be estimated.
 */
static unsigned runs_for(double w, double room, size_t n)
{
	double need;

	if (!(room > 1e-12) || !isfinite(w) || !(w > 0))
		return 0;
	need = (double)n * (w / room) * (w / room);
	if (need > 1e6)
		return 0;
	return stats_round_runs(need, n);
}

/*
 * Runs per kernel at which a test that gave two-sided @p with @n runs
 * would reach @alpha, the effect staying put: its z grows as sqrt(n).
 * 0 when it cannot be estimated (p of 1 has no z to grow).
 */
static unsigned runs_for_p(double p, double alpha, size_t n)
{
	double z = stats_norm_quantile(1 - p / 2), za, need;

	za = stats_norm_quantile(1 - alpha / 2);
	if (!(p > 0 && p < 1) || !(z > 1e-9) || !isfinite(za))
		return 0;
	need = (double)n * (za / z) * (za / z);
	if (need > 1e6)
		return 0;
	return stats_round_runs(need, n);
}

static enum stats_verdict set(struct stats_decision *out,
			      enum stats_verdict v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static enum stats_verdict set(struct stats_decision *out,
			      enum stats_verdict v, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
	out->verdict = v;
	/*
	 * Every verdict that states an answer is final: "≈" and "~" are
	 * given only when the interval lies inside the band, so no result
	 * that more runs could still move is shown as one of them.
	 */
	out->final = v != VERDICT_INCONCLUSIVE && v != VERDICT_INVALID;
	return v;
}

enum stats_verdict stats_decide(const struct stats_comparison *c,
				const struct stats_settings *s,
				int better_higher, double threshold, double q,
				size_t failed, size_t attempted,
				struct stats_decision *out)
{
	int used_q = q >= 0 && !isnan(q);

	return stats_decide_at(c, s, s->alpha, used_q ? q : c->mw_p, used_q,
			       better_higher, threshold, failed, attempted,
			       out);
}

/*
 * The verdicts that need no interval: too many failed runs, too few runs,
 * nothing varied, or no finite ratio to judge. Returns 1 when one of them
 * is set in @out.
 */
static int decided_without_interval(const struct stats_comparison *c,
		     const struct stats_settings *s,
		     size_t failed, size_t attempted,
		     struct stats_decision *out)
{
	if (attempted && (double)failed / (double)attempted >
			 s->max_failed_fraction) {
		set(out, VERDICT_INVALID,
		    "too many failed runs: %zu of %zu (limit %.0f%%)",
		    failed, attempted, 100 * s->max_failed_fraction);
		return 1;
	}
	if (c->n_base < 2 || c->n_patched < 2) {
		set(out, VERDICT_INVALID,
		    "fewer than 2 runs (baseline %zu, patched %zu)",
		    c->n_base, c->n_patched);
		return 1;
	}
	/*
	 * Not invalid: nothing varied and nothing moved (typically a counter
	 * that stayed 0 in every run). Calling it invalid sent readers
	 * looking for broken runs that did not exist.
	 */
	if (c->all_equal) {
		set(out, VERDICT_NO_CHANGE,
		    "identical in every run of both kernels");
		return 1;
	}
	if (!c->ratio_valid) {
		set(out, VERDICT_INVALID,
		    "no ratio: a median is zero or a value is negative");
		return 1;
	}
	if (isnan(c->ratio_lo) || isnan(c->ratio_hi) || isnan(out->p_used)) {
		set(out, VERDICT_INVALID,
		    "no interval or p value was computed");
		return 1;
	}
	/* An interval reaching 0 or inf says nothing about the size of the
	 * change (values beyond the double range, or resamples whose
	 * median is 0): no verdict can rest on it. */
	if (!isfinite(c->ratio) || !isfinite(c->ratio_lo) ||
	    !isfinite(c->ratio_hi) || !(c->ratio_lo > 0)) {
		set(out, VERDICT_INVALID,
		    "the ratio or its interval is not finite "
		    "(a resampled median of 0, or values beyond the "
		    "double range)");
		return 1;
	}
	return 0;
}

/* Where the ratio's interval lies against the +-t band, and the test. */
struct band_view {
	double lo, hi, t, alpha;
	size_t n;			/* runs of the smaller kernel */
	const char *pname;		/* "p" or "q" */
	int sig, up, down, inside;
	/* The interval on the log scale: ratio intervals are multiplicative. */
	double w, mid, lb, ub;
};

static void band_view_init(struct band_view *b,
			   const struct stats_comparison *c,
			   const struct stats_decision *out, double alpha)
{
	double band_lo = 1.0 - out->threshold, band_hi = 1.0 + out->threshold;
	double llo, lhi;

	b->lo = c->ratio_lo;
	b->hi = c->ratio_hi;
	b->t = out->threshold;
	b->alpha = alpha;
	b->n = c->n_base < c->n_patched ? c->n_base : c->n_patched;
	b->pname = out->used_q ? "q" : "p";
	b->sig = out->p_used < alpha;
	b->up = b->lo > band_hi;
	b->down = b->hi < band_lo;
	b->inside = b->lo >= band_lo && b->hi <= band_hi;
	llo = log(b->lo);
	lhi = log(b->hi);
	b->w = (lhi - llo) / 2;
	b->mid = (lhi + llo) / 2;
	b->lb = log(band_lo);
	b->ub = log(band_hi);
}

/*
 * Runs per kernel that might move an interval straddling a band edge
 * wholly to one side of it: the distance to the nearest edge it must
 * clear.
 */
static unsigned runs_to_clear_edge(const struct band_view *b)
{
	if (b->mid > b->ub)
		return runs_for(b->w, b->mid - b->ub, b->n);
	if (b->mid < b->lb)
		return runs_for(b->w, b->lb - b->mid, b->n);
	return runs_for(b->w, b->mid - b->lb < b->ub - b->mid ?
			b->mid - b->lb : b->ub - b->mid, b->n);
}

/* The rank test says the kernels differ: how much, against the band. */
static enum stats_verdict decide_significant(const struct band_view *b,
					     int better_higher,
					     struct stats_decision *out)
{
	double lo = b->lo, hi = b->hi, t = b->t;

	if (b->up || b->down) {
		int better = b->up == !!better_higher;

		return set(out, better ? VERDICT_IMPROVEMENT : VERDICT_REGRESSION,
			   "%s=%.3g < %.3g and the whole interval "
			   "[%+.2f%%, %+.2f%%] lies %s the +-%.2g%% band",
			   b->pname, out->p_used, b->alpha, 100 * (lo - 1),
			   100 * (hi - 1), b->up ? "above" : "below", 100 * t);
	}
	if (b->inside)
		return set(out, VERDICT_WITHIN_NOISE,
			   "significant (%s=%.3g) but the interval "
			   "[%+.2f%%, %+.2f%%] lies inside +-%.2g%%",
			   b->pname, out->p_used, 100 * (lo - 1), 100 * (hi - 1),
			   100 * t);
	/*
	 * A real change whose interval crosses the band edge: more
	 * runs may put it wholly beyond the band or wholly inside.
	 * Not "≈", which reads as a decision ("real but too small to
	 * matter"): "?", the experiment cannot rule out a change
	 * beyond the band, and the reason says the change is real.
	 */
	out->runs_needed = runs_to_clear_edge(b);
	if (out->runs_needed)
		return set(out, VERDICT_INCONCLUSIVE,
			   "a real change (%s=%.3g) whose interval "
			   "[%+.2f%%, %+.2f%%] crosses the +-%.2g%% band "
			   "edge: its size is not settled; ~%u runs per "
			   "kernel might decide",
			   b->pname, out->p_used, 100 * (lo - 1),
			   100 * (hi - 1), 100 * t, out->runs_needed);
	return set(out, VERDICT_INCONCLUSIVE,
		   "a real change (%s=%.3g) whose interval "
		   "[%+.2f%%, %+.2f%%] crosses the +-%.2g%% band edge: "
		   "its size is not settled",
		   b->pname, out->p_used, 100 * (lo - 1), 100 * (hi - 1),
		   100 * t);
}

/* The rank test has not found a difference: can the interval rule one out? */
static enum stats_verdict decide_not_significant(const struct band_view *b,
						 struct stats_decision *out)
{
	double lo = b->lo, hi = b->hi, t = b->t;

	if (b->inside)
		return set(out, VERDICT_NO_CHANGE,
			   "not significant (%s=%.3g) and the interval "
			   "[%+.2f%%, %+.2f%%] lies inside +-%.2g%%",
			   b->pname, out->p_used, 100 * (lo - 1), 100 * (hi - 1),
			   100 * t);
	if (b->up || b->down) {
		/* The interval has decided; the rank test has not. */
		out->runs_needed = runs_for_p(out->p_used, b->alpha, b->n);
		if (out->runs_needed)
			return set(out, VERDICT_INCONCLUSIVE,
				   "the interval [%+.2f%%, %+.2f%%] lies beyond "
				   "+-%.2g%% but the test is not significant "
				   "(%s=%.3g); ~%u runs per kernel might decide",
				   100 * (lo - 1), 100 * (hi - 1), 100 * t,
				   b->pname, out->p_used, out->runs_needed);
		return set(out, VERDICT_INCONCLUSIVE,
			   "the interval [%+.2f%%, %+.2f%%] lies beyond "
			   "+-%.2g%% but the test is not significant (%s=%.3g)",
			   100 * (lo - 1), 100 * (hi - 1), 100 * t, b->pname,
			   out->p_used);
	}
	out->runs_needed = runs_to_clear_edge(b);
	if (out->runs_needed)
		return set(out, VERDICT_INCONCLUSIVE,
			   "cannot rule out a change beyond +-%.2g%%: interval "
			   "[%+.2f%%, %+.2f%%], %s=%.3g; ~%u runs per kernel "
			   "might decide", 100 * t, 100 * (lo - 1),
			   100 * (hi - 1), b->pname, out->p_used,
			   out->runs_needed);
	return set(out, VERDICT_INCONCLUSIVE,
		   "cannot rule out a change beyond +-%.2g%%: interval "
		   "[%+.2f%%, %+.2f%%], %s=%.3g", 100 * t, 100 * (lo - 1),
		   100 * (hi - 1), b->pname, out->p_used);
}

enum stats_verdict stats_decide_at(const struct stats_comparison *c,
				   const struct stats_settings *s,
				   double alpha, double p_used, int used_q,
				   int better_higher, double threshold,
				   size_t failed, size_t attempted,
				   struct stats_decision *out)
{
	struct band_view b;

	memset(out, 0, sizeof(*out));
	out->threshold = threshold >= 0 ? threshold : s->threshold;
	out->used_q = used_q;
	out->p_used = p_used;
	if (decided_without_interval(c, s, failed, attempted, out))
		return out->verdict;

	band_view_init(&b, c, out, alpha);
	if (b.sig)
		return decide_significant(&b, better_higher, out);
	return decide_not_significant(&b, out);
}
