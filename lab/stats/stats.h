/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics engine: everything the report says about "is this change
 * real, how large, how sure are we" comes from here. Pure computation, no
 * I/O, no global state: the same inputs and seed give bit-identical outputs
 * on every machine (the PRNG is xoshiro256**, see rng.h, and every
 * floating-point reduction runs in a fixed order).
 *
 * Conventions used throughout:
 *  - "baseline" is the first sample (A), "patched" the second (B).
 *  - ratio = median(patched) / median(baseline); delta% = 100 * (ratio - 1).
 *  - Intervals are two-sided at settings.confidence (default 95 %).
 *  - NaN marks "not available" in any double output; check before printing.
 *  - Strings returned in structs (method, reason) are static constants
 *    unless the field is a char array; they never need freeing.
 *
 * Methods (the report's methodology section may quote these):
 *  - median CI: exact distribution-free order-statistic interval
 *    [x_(l), x_(n+1-l)] with the largest l such that
 *    P(l <= Bin(n, 1/2) <= n-l) >= confidence. n < 6 cannot reach 95 %:
 *    then [min, max] is given with its (lower) achieved confidence and
 *    median_ci.ok = 0, reason "too few runs".
 *  - quartiles: linear interpolation between order statistics (Hyndman &
 *    Fan type 7, the numpy/R default).
 *  - MAD: raw median absolute deviation from the median (multiply by
 *    1.4826 for a normal-consistent scale).
 *  - outliers: modified z-score of Iglewicz & Hoaglin,
 *    |0.6745 (x - median) / MAD| > 3.5; when MAD = 0 the scale falls back to
 *    1.253314 * mean absolute deviation; when that is 0 too, nothing is an
 *    outlier. Outliers are flagged only, never removed from any statistic.
 *  - drift: Spearman rank correlation of the values against run order
 *    (midranks for ties). Below STATS_SPEARMAN_EXACT_N runs p is the exact
 *    permutation p (all n! pairings enumerated, ties kept); from there
 *    the t approximation with n - 2 degrees of freedom (as
 *    scipy.stats.spearmanr). The exact p cannot go below 2 / n!: 0.33 at
 *    3 runs and 0.083 at 4, so fewer than 5 runs never show a drift at
 *    alpha 0.05 (1/60 at 5). The t approximation gave p = 0 to every
 *    perfectly ordered sample, which flagged a third of trend-free
 *    kernels at 3 runs (bench/trend-sim).
 *  - ratio interval: stratified bootstrap (each kernel's runs resampled
 *    separately), settings.resamples replicates of
 *    median(B*) / median(A*), BCa (bias-corrected and accelerated, Efron
 *    1987): z0 from the share of replicates below the observed ratio (ties
 *    count half), acceleration from each kernel's jackknife influence
 *    values (Efron & Tibshirani 1993, ch. 14). Falls back to the
 *    percentile interval when BCa is degenerate (a kernel with one run,
 *    all jackknife values equal, a zero median); comparison.ci_method says
 *    which was used. Each replicate median is drawn from the exact
 *    bootstrap distribution of the median (Maritz & Jarrett 1978; for even
 *    n the joint law of the two middle order statistics) with Walker's
 *    alias method: the same distribution as drawing n runs with
 *    replacement and taking their median, at O(1) per replicate (n > 200:
 *    runs are drawn and counted instead). Replicates with a zero median
 *    give ratios 0 or +inf (0/0 counts as 1).
 *  - Mann-Whitney U: two-sided p = min(1, 2 min(P(U <= u), P(U >= u))).
 *    EXACT when n1 * n2 <= settings.mw_exact_max: the permutation
 *    distribution of the rank sum over the observed midranks, so it is
 *    exact with ties too ("exact" / "exact-ties"). Beyond: normal
 *    approximation with tie-corrected variance and continuity correction
 *    ("normal").
 *  - Hodges-Lehmann: median of all n1 n2 differences patched_j - baseline_i,
 *    interval [D_(k), D_(n1 n2 + 1 - k)] with k from the exact no-ties U
 *    null distribution (normal approximation beyond mw_exact_max), and the
 *    same on log values (a ratio) when all values are positive. The
 *    differences are never formed: each order statistic is the least
 *    double whose count of differences at or below it exceeds its rank,
 *    found by binary search over the doubles' bit patterns with a
 *    two-pointer count over the sorted samples (O(n1 + n2) a step, at
 *    most 64 steps), so O(n log n) in all and exactly the values sorting
 *    all n1 n2 differences gives (Walsh averages, for the paired
 *    one-sample estimate, the same way).
 *  - minimum detectable effect (MDE): the smallest |change| a two-sided test
 *    at alpha detects with probability settings.power with these run counts,
 *    on the log scale with a robust noise estimate:
 *        s   = 1.4826 * pooled MAD of log values (each kernel about its own
 *              median; falls back to the pooled log stddev when MAD is 0)
 *        d   = (z_{1-alpha/2} + z_{power}) * s * sqrt(1/n1 + 1/n2)
 *              * sqrt(pi / 3)   (Mann-Whitney efficiency vs the t test)
 *        MDE% = 100 * (exp(d) - 1)
 *    A kernel whose runs all gave one value carries no noise estimate
 *    (its zero deviations would shrink s): s then comes from the other
 *    kernel alone (n1 - 1 degrees of freedom in the fallback), and when
 *    both kernels are constant the MDE is NaN; comparison.mde_note says
 *    which.
 *  - paired analysis: Wilcoxon signed-rank on per-pair log ratios
 *    log(patched / baseline); zero differences dropped (Wilcoxon's method);
 *    exact permutation distribution over the midranks (ties included) for
 *    n <= settings.wilcoxon_exact_max, normal with tie and continuity
 *    correction beyond.
 *  - geometric mean per workload: joint bootstrap over runs (the same run
 *    indices for every metric, because one run produces all of a workload's
 *    metrics, so correlation between metrics is kept), percentile interval.
 *  - Benjamini-Hochberg step-up q values.
 *  - runs needed (for "?"): the log half-width of
 *    the ratio interval shrinks as 1/sqrt(n); when the interval already
 *    lies beyond the band and only the test failed, the test's z grows as
 *    sqrt(n) instead (stats_decision.runs_needed). Rounded to one
 *    significant figure (stats_round_runs()): the model is a guess at
 *    the scale, and "about 1004 runs" claimed a precision it has not.
 *  - sequential looks (run --until decided): repeated confidence
 *    intervals with alpha spending A(t) = alpha t^rho, the looks' levels
 *    combined by the union bound; see "Sequential A/B" below.
 */
#ifndef LAB_STATS_H
#define LAB_STATS_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>

struct stats_settings {
	double alpha;			/* significance level, 0.05 */
	double confidence;		/* interval level, 0.95 */
	double threshold;		/* noise band as a fraction, 0.01 = +-1 % */
	double power;			/* for the MDE, 0.80 */
	unsigned resamples;		/* bootstrap replicates, 10000 */
	uint64_t seed;			/* master seed; see stats_seed_for() */
	double max_failed_fraction;	/* more failed runs than this: invalid, 0.25 */
	size_t mw_exact_max;		/* exact Mann-Whitney when n1*n2 <= this, 1000 */
	size_t wilcoxon_exact_max;	/* exact signed-rank when n <= this, 50 */
};

void stats_settings_default(struct stats_settings *s);

/*
 * A per-metric seed derived from the master seed and a stable key (e.g.
 * "workload/metric"), so that a metric's interval does not change when
 * other metrics are added to or removed from the report.
 */
uint64_t stats_seed_for(uint64_t seed, const char *key);

/* ---------------------------------------------------------------- */
/* Per metric and kernel: descriptive statistics.                    */

struct stats_median_ci {
	int ok;			/* 1: achieved >= requested confidence */
	size_t lo_order;	/* 1-based order statistic of the lower bound */
	size_t hi_order;	/* 1-based; hi_order = n + 1 - lo_order */
	double lo, hi;		/* the values x_(lo_order), x_(hi_order) */
	double achieved;	/* exact coverage of [lo, hi] */
	const char *reason;	/* NULL when ok, else e.g. "too few runs" */
};

/* Below this many runs the drift p is exact (n! pairings; 9! = 362880). */
#define STATS_SPEARMAN_EXACT_N 10

struct stats_summary {
	size_t n;
	double median;
	struct stats_median_ci median_ci;
	double min, max, q1, q3;
	double mean, stddev;	/* stddev with n - 1 */
	double cv;		/* stddev / |mean|; NaN when mean == 0 or n < 2 */
	double mad;		/* raw median absolute deviation */
	size_t outliers;	/* number of values flagged (modified z > 3.5) */
	int drift_valid;	/* 0 when n < 3 or all values/orders equal */
	double drift_rho;	/* Spearman rho against run order */
	double drift_p;		/* two-sided p of rho */
};

/*
 * Summarise @n values @x. @order gives each value's run order (sequence
 * number, need not be 1..n); NULL means the array order. @confidence is the
 * median interval level. @outlier_flags, if not NULL, receives n bytes:
 * 1 = outlier. Returns 0, or -1 when n == 0 or a value is not finite (then
 * *out is zeroed with NaN statistics and n set).
 */
int stats_summarize(const double *x, const double *order, size_t n,
		    double confidence, struct stats_summary *out,
		    unsigned char *outlier_flags);

/*
 * The exact order-statistic interval alone: for @n runs, the 1-based lower
 * order l (upper is n + 1 - l) and its achieved coverage. Returns 1 when the
 * requested confidence is reached, 0 when n is too small (then l = 1 and
 * *achieved is the coverage of [min, max]; for n == 0, l = 0).
 */
int stats_median_ci_order(size_t n, double confidence, size_t *lo_order,
			  double *achieved);

/* Median of @n values (copies; the input is not modified). NaN for n == 0. */
double stats_median(const double *x, size_t n);

/* ---------------------------------------------------------------- */
/* Patched against baseline.                                          */

enum stats_mw_method {
	STATS_MW_NONE = 0,	/* not computed (n1 or n2 == 0) */
	STATS_MW_EXACT,		/* exact, no ties */
	STATS_MW_EXACT_TIES,	/* exact permutation distribution over midranks */
	STATS_MW_NORMAL,	/* normal, tie + continuity correction */
};

struct stats_comparison {
	size_t n_base, n_patched;
	double median_base, median_patched;
	int all_equal;		/* every value of both samples is identical */

	/* Ratio of medians; ratio_valid = 0 when the baseline median is <= 0
	 * or either median is not positive (ratios of signed values mean
	 * nothing), or when the quotient overflows or underflows (medians
	 * ~1e300 apart) — then ratio, delta_pct and the interval are NaN.
	 * Medians of huge values do not overflow: an even-n median averages
	 * as a/2 + b/2 when (a + b)/2 would be inf. */
	int ratio_valid;
	double ratio, delta_pct;
	double ratio_lo, ratio_hi;	/* bootstrap interval of the ratio */
	double ci_level;		/* = settings.confidence */
	unsigned resamples;
	const char *ci_method;		/* "bca", "percentile" or "none" */

	/* Mann-Whitney U test (scipy's mannwhitneyu(baseline, patched)). */
	double mw_u;			/* U of the baseline sample */
	double mw_p;			/* two-sided */
	enum stats_mw_method mw_method;
	const char *mw_method_name;	/* "exact", "exact-ties", "normal", "none" */

	/* Hodges-Lehmann: shift in units (patched - baseline) ... */
	double hl_shift, hl_lo, hl_hi;
	/* ... and on the log scale as a ratio (NaN unless all values > 0). */
	double hl_ratio, hl_ratio_lo, hl_ratio_hi;
	double hl_level;		/* achieved level of the HL interval */

	double mde_pct;			/* minimum detectable effect, % (NaN if n < 2) */
	const char *mde_note;		/* NULL, or why the MDE is NaN or rests
					 * on one kernel's runs only */
};

/*
 * Compare @patched (np values) against @base (nb values). @seed seeds the
 * bootstrap (use stats_seed_for(settings->seed, key)). Never fails on
 * data: degenerate inputs give NaN fields; returns -1 only when nb or np is
 * 0 or a value is not finite (then *out holds the counts and NaNs).
 */
int stats_compare(const double *base, size_t nb, const double *patched,
		  size_t np, const struct stats_settings *s, uint64_t seed,
		  struct stats_comparison *out);

/*
 * The Mann-Whitney test alone: U of @x, two-sided p, method used.
 * @exact_max as settings.mw_exact_max.
 */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       size_t exact_max, double *u, double *p,
		       enum stats_mw_method *method);

/* Paired analysis on blocks (ABBA/BAAB: pass one baseline/patched pair per
 * block, e.g. the per-block means, or each adjacent A-B pair). */
struct stats_paired {
	size_t n_pairs;		/* pairs given */
	size_t n_used;		/* pairs with a non-zero log ratio */
	int valid;		/* 0 when a value is <= 0 or not finite */
	double median_ratio;	/* exp(median of log ratios) over all pairs */
	double hl_ratio;	/* exp(median of Walsh averages of log ratios) */
	double w_plus;		/* sum of ranks of positive log ratios */
	double p;		/* two-sided Wilcoxon signed-rank p (1 if n_used == 0) */
	int exact;		/* 1 exact permutation distribution, 0 normal */
	const char *method;	/* "exact", "exact-ties", "normal", "none" */
};

int stats_paired(const double *base, const double *patched, size_t n_pairs,
		 const struct stats_settings *s, struct stats_paired *out);

/* ---------------------------------------------------------------- */
/* Many metrics.                                                      */

/*
 * Benjamini-Hochberg adjusted q values. NaN entries of @p are skipped (they
 * get NaN q and do not count in m). @q may alias @p.
 */
void stats_bh_adjust(const double *p, size_t n, double *q);

/*
 * Geometric mean over the metrics of one workload of each metric's
 * oriented ratio of medians: ratio^+1 when higher is better, ratio^-1 when
 * lower is better (@better_higher[m] != 0 / == 0), so > 1 always means
 * "patched is better"; with @better_higher NULL the raw ratios are used.
 * @base is a row-major nmetrics x nb matrix (base[m * nb + r] = metric m in
 * baseline run r), @patched likewise with np columns; NaN marks a value
 * missing from a run. Metrics with a value <= 0, or with no value in a
 * kernel, are skipped (counted in .skipped): a log ratio needs positive
 * values. A resample that draws only a metric's missing runs uses that
 * metric's point estimate. The interval is the joint bootstrap
 * (same run indices for all metrics), percentile method.
 */
struct stats_geomean {
	size_t k;		/* metrics used */
	size_t skipped;
	double ratio, lo, hi;	/* NaN when k == 0 */
	double level;
	const char *method;	/* "joint-bootstrap-percentile" or "none" */
};

int stats_geomean(const double *base, size_t nb, const double *patched,
		  size_t np, size_t nmetrics, const unsigned char *better_higher,
		  const struct stats_settings *s, uint64_t seed,
		  struct stats_geomean *out);

/* ---------------------------------------------------------------- */
/* Verdicts.                                                          */

enum stats_verdict {
	VERDICT_IMPROVEMENT,
	VERDICT_REGRESSION,
	VERDICT_WITHIN_NOISE,	/* "≈": significant, interval inside the band */
	VERDICT_NO_CHANGE,	/* "~": interval inside the band, not significant */
	VERDICT_INCONCLUSIVE,	/* "?": cannot rule out a relevant change (also
				 * a significant one whose interval crosses
				 * the band edge: real, size not settled) */
	VERDICT_INVALID,
};

/* "improvement", "regression", "≈", "~", "?", "invalid" (UTF-8). */
const char *stats_verdict_name(enum stats_verdict v);
/* ASCII for plain text and JSON keys: "+", "-", "=", "~", "?", "!". */
const char *stats_verdict_marker(enum stats_verdict v);
/* Spelled-out ASCII identifier: "improvement", "regression",
 * "within-noise", "no-change", "inconclusive", "invalid". */
const char *stats_verdict_id(enum stats_verdict v);
/* For legends: "improvement", ..., "significant, within noise", "no change". */
const char *stats_verdict_label(enum stats_verdict v);
/* The verdict of a JSON id; anything else is VERDICT_INVALID (never a pass). */
enum stats_verdict stats_verdict_from_id(const char *id);

/* Inverse of stats_verdict_id() (also accepts the names and markers):
 * 0, or -1 for an unknown string. For reading reports back. */
LAB_MUST_CHECK
int stats_verdict_parse(const char *s, enum stats_verdict *out);

struct stats_decision {
	enum stats_verdict verdict;
	double p_used;		/* p or q that was compared with alpha */
	int used_q;		/* 1 when q was given and used */
	double threshold;	/* the band actually used */
	/* For "?": runs per
	 * kernel that would likely make the interval decide (0 = not
	 * applicable or cannot be estimated, see reason). Estimate: interval
	 * half-width on the log scale shrinks as 1/sqrt(n). For "?" whose
	 * interval already lies beyond the band (the test is what did not
	 * decide): the runs at which the test's z, Phi^-1(1 - p_used/2),
	 * would reach z_{1-alpha/2}, z growing as sqrt(n). */
	unsigned runs_needed;	/* one significant figure, above the runs made */
	/* 1 when more runs would not refine the verdict: improvement,
	 * regression, ≈ and ~ (both only ever given with the interval
	 * inside the band); 0 for "?" and invalid. So "≈" and "~" are never
	 * shown for a result that is not final. */
	int final;
	char reason[192];	/* one human sentence, ASCII */
};

/*
 * @need runs per kernel (an estimate) to one significant figure, and
 * above @n, the runs already made (then the next one-figure number:
 * 13 after 12 is 20): 1004 -> 1000, 23.4 -> 20, 185 -> 200. 0 for a
 * @need that is not a positive finite number or rounds past 10^6.
 */
unsigned stats_round_runs(double need, size_t n);

/*
 * Decide the verdict of one metric. Rules, in order:
 *  invalid  when failed / attempted > max_failed_fraction, n < 2 in either
 *           kernel, no ratio, or a ratio interval bound that is 0 or not
 *           finite (resampled medians of 0: the interval then bounds
 *           nothing);
 *  ~        when all values of both kernels are equal;
 *  improvement / regression  when p_used < alpha AND the whole ratio
 *           interval lies beyond the band [1 - t, 1 + t] (direction from
 *           @better_higher);
 *  ≈        when p_used < alpha and the interval lies inside the band;
 *  ?        when p_used < alpha and the interval crosses the band edge: a
 *           real change whose size against the band is not settled (the
 *           reason says so; runs_needed what N would decide). Not "≈",
 *           which a reader takes as "real but too small to matter";
 *  ~        when not significant and the interval lies inside the band;
 *  ?        otherwise (runs_needed says what N would decide).
 * @threshold < 0 means settings->threshold (per-metric override otherwise).
 * @q < 0 or NaN means "use the comparison's p" (pass the BH q when the report
 * has many metrics). @failed / @attempted are this metric's run counts over
 * both kernels (0/0 when unknown).
 */
enum stats_verdict stats_decide(const struct stats_comparison *c,
				const struct stats_settings *s,
				int better_higher, double threshold, double q,
				size_t failed, size_t attempted,
				struct stats_decision *out);

/*
 * 1 for the verdict classes that answer the question: improvement,
 * regression, ≈ and ~; 0 for ? and invalid. Since a band-crossing
 * significant result is "?" rather than "≈", this equals
 * stats_decision.final for every verdict stats_decide() gives. (When
 * such a result was "≈" and a session stopped on the class, it ended
 * most sessions with a real change early: bench/sequential-sim, +5 % at
 * cv 2 % and band 2 %: 71 % of the sessions stopped so, and
 * "improvement" was called in 29 % of them instead of 99.8 %.)
 */
int stats_verdict_decided(enum stats_verdict v);

/* ---------------------------------------------------------------- */
/* Sequential A/B: looking again after every pair of blocks.          */

/*
 * Re-testing the same growing sample until something is significant
 * inflates the error rate well beyond alpha (at 18 looks, p < 0.05 at any
 * of them happens in ~20 % of A/A sessions). A session that stops "when
 * decided" therefore spends its alpha over a plan of looks:
 *
 *  - repeated confidence intervals (Jennison & Turnbull 1989, "Interim
 *    analyses: the repeated confidence interval approach", JRSS B
 *    51:305-361): at look k the comparison is made at level alpha_k (the
 *    rank test's p against alpha_k, the ratio interval at confidence
 *    1 - alpha_k), and the usual verdict rules (stats_decide) apply;
 *  - the levels come from a spending function (Lan & DeMets 1983,
 *    "Discrete sequential boundaries for clinical trials", Biometrika
 *    70:659-663), A(t) = alpha * min(1, t)^rho of the information time
 *    t = n / max_runs: alpha_k = A(t_k) - A(t_{k-1}), A(t_0) = 0;
 *  - they are combined by the union bound (Bonferroni over the looks):
 *    P(any look errs) <= sum_k alpha_k = A(1) = alpha whatever the joint
 *    law of the statistics across looks, so each look can use the exact
 *    procedures (exact Mann-Whitney p, bootstrap interval) and no normal
 *    approximation of the looks' correlation is needed. This is
 *    conservative: exact recursive group-sequential boundaries (Armitage,
 *    McPherson & Rowe 1969; the O'Brien-Fleming and Pocock families) use
 *    the correlation between looks and reach alpha exactly, with somewhat
 *    wider per-look levels. bench/sequential-sim measures the cost.
 *
 * The look schedule: n_1 = min_runs, n_{k+1} = n_k + step, the last look
 * K at max_runs (clamped). An analysis at n runs per kernel between two
 * looks (n_k < n < n_{k+1}: a session stopped mid-block by its budget)
 * belongs to look k + 1, whose level is then unspent: each alpha_k is
 * used at most once, which is the caller's part of the bargain (never
 * decide twice at one look). n < min_runs: no look (0). n > max_runs:
 * look K. Pass the runs per kernel the session *attempted*: failed runs
 * make the samples smaller, not the look earlier.
 *
 * Benjamini-Hochberg across a session's primary metrics takes the
 * look-adjusted p values, p_adj = min(1, p * alpha / alpha_k): p_adj <
 * alpha exactly when p < alpha_k, and P(p_adj <= u) <= u for every u (a
 * valid p value), so the q values are compared with the overall alpha.
 *
 * Defaults: see stats_seq_plan_default(). bench/sequential-sim, 18 looks
 * at 6..40 runs per kernel, cv 3 %: A/A calls of a change 0.75-1.35 % of
 * the sessions at band 0 (naive re-testing at 0.05: 13-14 %). rho was
 * chosen there (-R): for +5 % at band 2 %, rho 1 and 1.5 stop after a
 * median 12 runs at cv 2 % (rho 2 and 3: 14-15) and rho 1.5 keeps more
 * power at cv 5 % (35 % against 33 %; rho 3: 38 %, at 14 runs for cv
 * 2 %). The first look at 6 runs is the smallest whose level the exact
 * test can reach at the default 40 runs (5 vs 5: p >= 0.0079).
 * The price of the union bound shows when a change needs the whole
 * budget: +5 % at cv 5 %, at most 40 runs, the rule calls it in 29-35 %
 * of the sessions, a fixed design of 40 runs in 55 % (of 20-26 runs: the
 * same as the rule). Clear changes gain: +5 % at cv 2 % is called after a
 * median 12 runs (90 %: 24) where a fixed design needs 36 for the same
 * 99.8 %.
 */
struct stats_seq_plan {
	double alpha;		/* overall error rate, 0.05 */
	size_t min_runs;	/* runs per kernel at the first look, >= 3 */
	size_t max_runs;	/* runs per kernel at the last look */
	size_t step;		/* runs per kernel between looks, >= 1 (2: one
				 * ABBA/BAAB pair of blocks) */
	double rho;		/* spending exponent: A(t) = alpha t^rho */
};

/*
 * The default plan for at most @max_runs runs per kernel: alpha 0.05,
 * step 2, rho and min_runs as STATS_SEQ_RHO / STATS_SEQ_MIN_RUNS, with
 * min_runs raised (and max_runs with it when it is smaller) until every
 * look can decide (stats_seq_plan_check).
 */
#define STATS_SEQ_RHO 1.5
#define STATS_SEQ_MIN_RUNS 6
void stats_seq_plan_default(struct stats_seq_plan *p, size_t max_runs);

/*
 * 0 when @p is usable, else -1 and a sentence in @err naming the field
 * and what was expected. Besides the ranges, every look must be able to
 * decide: alpha_k above the smallest two-sided exact Mann-Whitney p of
 * n_k against n_k runs, 2 / C(2 n_k, n_k) (a look that cannot reject
 * would spend its alpha for nothing).
 */
LAB_MUST_CHECK
int stats_seq_plan_check(const struct stats_seq_plan *p, char *err,
			 size_t len);

/* K, the number of looks (>= 1). */
size_t stats_seq_looks(const struct stats_seq_plan *p);
/* The look an analysis at @n runs per kernel belongs to (0 = none yet). */
size_t stats_seq_look_of(const struct stats_seq_plan *p, size_t n);
/* n_k for look 1..K (0 for look 0 or beyond K). */
size_t stats_seq_runs_at(const struct stats_seq_plan *p, size_t look);
/* alpha_k for look 1..K (0 for look 0 or beyond K). */
double stats_seq_alpha_at(const struct stats_seq_plan *p, size_t look);
/*
 * Which side of @midpoint (a ratio, patched / baseline) a ratio interval
 * [@lo, @hi] lies on, as a bisection places a prefix kernel: the series'
 * whole change is E and @midpoint its geometric middle, E^(1/2). -1: the
 * whole interval is on the baseline's side (nearer 1 than the midpoint),
 * +1: wholly beyond the midpoint (on the side of E), 0: it holds the
 * midpoint, or a bound is not a positive finite number, or @midpoint is 1
 * (no change to place against). bench/bisect-place-sim measures the rule.
 */
int stats_side_of_midpoint(double lo, double hi, double midpoint);

/* min(1, @pval * alpha / alpha_k); 1 at look 0, NaN for a NaN p. */
double stats_seq_p_adjust(const struct stats_seq_plan *p, size_t look,
			  double pval);

struct stats_seq_result {
	size_t look, looks;	/* k of K (look 0: before the first) */
	size_t runs_at;		/* n_k */
	double alpha_k;		/* the level this look spends */
	double p_adj;		/* cmp.mw_p adjusted for the looks */
	struct stats_comparison cmp;	/* at confidence 1 - alpha_k */
	struct stats_decision dec;	/* filled by stats_seq_decide() */
};

/*
 * One look: compare @patched with @base at this look's level (@s copied,
 * its confidence set to 1 - alpha_k and its alpha to alpha_k, so the MDE
 * is the look's too). @look > K is look K; at look 0 the comparison is
 * made at @s's own confidence. Returns stats_compare()'s value.
 */
int stats_seq_compare(const struct stats_seq_plan *p, size_t look,
		      const double *base, size_t nb, const double *patched,
		      size_t np, const struct stats_settings *s, uint64_t seed,
		      struct stats_seq_result *out);

/*
 * The verdict at that look, into r->dec: stats_decide()'s rules with the
 * comparison's p against alpha_k, or, when @q >= 0 (the BH q over the
 * primaries' p_adj), q against the plan's alpha. Look 0 is "?" (not
 * decidable yet; runs_needed = min_runs). @threshold, @failed,
 * @attempted as stats_decide(). Stop the session on r->dec.final.
 */
enum stats_verdict stats_seq_decide(const struct stats_seq_plan *p,
				    struct stats_seq_result *r,
				    const struct stats_settings *s,
				    int better_higher, double threshold,
				    double q, size_t failed, size_t attempted);

/*
 * Final stays final (issue 49). A session stops a workload only when all
 * its primaries are final at the same look, so a primary final at look j
 * is judged again at later looks, and judged on that look's data alone
 * 22 % of the primaries that were "~" at some look ended "?". Carried
 * across looks instead, each look's interval (at 1 - alpha_j) is
 * intersected with the earlier ones and the p is the smallest
 * look-adjusted p so far. Both stay valid with the union bound the
 * looks' levels already rest on: every look's interval covers the true
 * ratio with probability >= 1 - sum alpha_j = 1 - alpha jointly, so
 * their intersection does too (Jennison & Turnbull 2000, "Group
 * Sequential Methods", 9.1: repeated confidence intervals may be
 * intersected), and P(some p_j < alpha_j) <= alpha under no change. An
 * interval can only shrink and the p only fall, so a verdict once final
 * (the interval wholly inside the band, or wholly beyond it with p
 * below alpha) stays final; "~" can become "≈" when a later look finds
 * the change significant, still inside the band. A look whose interval
 * misses the intersection (the joint coverage failed, or the runs
 * changed their mind) leaves the intersection as it was and is counted
 * in disjoint.
 */
struct stats_seq_carry {
	size_t looks;		/* looks folded in with a finite interval */
	double lo, hi;		/* their intersection; NaN: none yet */
	double p_adj;		/* smallest look-adjusted p; NaN: none */
	size_t disjoint;	/* looks whose interval missed the intersection */
};

void stats_seq_carry_init(struct stats_seq_carry *c);
/* Fold look @look's interval [@lo, @hi] and raw p @pval into @c. */
void stats_seq_carry_add(const struct stats_seq_plan *p, size_t look, double lo, double hi,
			 double pval, struct stats_seq_carry *c);

/* ---------------------------------------------------------------- */
/* Hosts as strata (report_model_strata.c, docs/reports.md "Several hosts").  */

/*
 * A session on several libvirt hosts runs every block on one host slot,
 * so blocks are nested in hosts and a host is a stratum: machines differ
 * in speed far more than kernels do, and a comparison that pools their
 * runs unstratified sees that difference as noise (or, with unequal
 * shares of the kernels per host, as an effect).
 *
 *  - The test: van Elteren's stratified Wilcoxon rank-sum test (van
 *    Elteren 1960, "On the combination of independent two-sample tests
 *    of Wilcoxon", Bull. Inst. Int. Statist. 37:351-361; Lehmann 1975,
 *    "Nonparametrics", 3.3). Runs are ranked within their host (midranks
 *    for ties), T = sum_h W_h / (N_h + 1) with W_h the patched runs' rank
 *    sum on host h of N_h runs: the locally most powerful weights for a
 *    common shift. Exact when the convolution of the hosts' permutation
 *    laws stays small (STATS_VE_EXACT_MAX support points), as the exact
 *    Mann-Whitney of one host; beyond, normal with the tie-corrected
 *    variances. With one host it is the Mann-Whitney test.
 *  - The estimate: each host's ratio of medians with its bootstrap
 *    interval (stats_compare()), on the log scale, the standard error
 *    read back from the interval, se_h = (log hi - log lo) / (2 z), and
 *    pooled with inverse-variance (fixed-effect) weights w_h = 1 / se_h^2
 *    (Borenstein, Hedges, Higgins & Rothstein 2009, "Introduction to
 *    Meta-Analysis", ch. 11; the se from an interval as in the Cochrane
 *    Handbook 6.5.2.2). The pooled interval is exp(ybar +- z / sqrt(sum
 *    w)) at the hosts' level. A host whose interval has no width (every
 *    run equal) or no ratio carries no weight and is left out (.k).
 *  - Heterogeneity: Cochran's Q = sum_h w_h (y_h - ybar)^2 against
 *    chi^2 with k - 1 degrees of freedom (Cochran 1954, "The combination
 *    of estimates from different experiments", Biometrics 10:101-129),
 *    and I^2 = max(0, (Q - df) / Q) (Higgins & Thompson 2002, Stat Med
 *    21:1539-1558). Q has little power with few strata, so the
 *    conventional level for it is 0.10 (Cochrane Handbook 10.10.2):
 *    STATS_HET_ALPHA.
 */
#define STATS_VE_EXACT_MAX	200000
#define STATS_HET_ALPHA		0.10

/* One stratum's runs. */
struct stats_stratum {
	const double *base, *patched;
	size_t nb, np;
};

/*
 * van Elteren's test over @k strata; strata without runs of both kernels
 * add nothing. Exact when every stratum has nb * np <= @exact_max
 * (settings.mw_exact_max) and the law of T stays within
 * STATS_VE_EXACT_MAX points. *@p two-sided (2 min of the tails, as the
 * Mann-Whitney test), *@z the standardized T (> 0: patched ranks higher;
 * 0 when T cannot vary), *@method "exact", "exact-ties", "normal" or
 * "none". Returns -1 when no stratum has runs of both kernels or a value
 * is not finite (then *@p and *@z are NaN).
 */
int stats_van_elteren(const struct stats_stratum *st, size_t k, size_t exact_max, double *z,
		      double *p, const char **method);

struct stats_pooled {
	size_t k;		/* strata pooled */
	double log_ratio, se;	/* pooled log ratio and its standard error */
	double ratio, lo, hi;	/* exp of the above; NaN when k == 0 */
	double level;
	double q, q_p, i2;	/* Cochran's Q, its p, I^2; NaN when k < 2 */
	size_t df;		/* k - 1 */
	int overlap;		/* 1: all pooled strata's intervals share a point */
	int heterogeneous;	/* k >= 2 and q_p < STATS_HET_ALPHA */
};

/*
 * Pool @k strata's ratios with their intervals at @level. @used, if not
 * NULL, gets k bytes: 1 for a stratum that carried weight. Returns 0, or
 * -1 when no stratum could be pooled (then *@out has k = 0 and NaNs).
 */
int stats_pool_ratios(const double *ratio, const double *lo, const double *hi, size_t k,
		      double level, struct stats_pooled *out, unsigned char *used);

/* ---------------------------------------------------------------- */
/* Two host states (report_hoststate.c, docs/reports.md "Host states"). */

/*
 * Otsu's split of positive values into a low and a high class, on their
 * logarithms: the threshold that maximises the between-class variance.
 * The classes count as two real states only when they are well apart:
 * eta (between-class over total variance) >= STATS_STATES_MIN_ETA and the
 * ratio of the classes' geometric means >= STATS_STATES_MIN_RATIO, and
 * each class holds at least STATS_STATES_MIN_SHARE of the values. A
 * unimodal sample always splits somewhere (a normal one at eta ~ 0.64,
 * means ~ 1.6 sd apart), so both the first gates are needed; and a few
 * outliers far from the rest pass those two (mglru_aging's cold first
 * generation, one cell in 200 at x5.6, passed with eta 0.83), but an
 * outlier is not a state the host was in.
 */
#define STATS_STATES_MIN_ETA 0.80
#define STATS_STATES_MIN_RATIO 1.15
#define STATS_STATES_MIN_SHARE 0.05

struct stats_states {
	double threshold;	/* high class: value > threshold; NaN when n < 2 */
	double eta;		/* between-class / total variance of the logs */
	double ratio;		/* geometric mean high / low */
	double low_gmean, high_gmean;
	size_t n_low, n_high;
	int separated;		/* 1: the gates passed */
};

/*
 * Split @x (@n values; non-positive and non-finite ones are ignored).
 * Returns 0, or -1 when fewer than 2 usable values (then *out has
 * separated = 0 and NaNs).
 */
int stats_two_states(const double *x, size_t n, struct stats_states *out);

/*
 * Discrete states (modes) of a metric's cells (stats_modes.c, issue 49):
 * Otsu's cut of the logs without the outer STATS_MODES_TRIM at each end,
 * every cell then classed by it; the two classes are separate modes when
 * each holds at least STATS_MODES_MIN_SHARE of the cells and the log
 * distance of their medians is at least STATS_MODES_MIN_SEPARATION times
 * the larger of their normal-consistent MADs (infinite when both are 0).
 * No ratio gate: under icount states 4 % apart are thousands of spreads
 * apart. Unlike eta, cells caught between the states or a few far
 * outliers do not hide clean states.
 */
#define STATS_MODES_MIN_N 10
#define STATS_MODES_TRIM 0.025
#define STATS_MODES_MIN_SHARE 0.05
#define STATS_MODES_MIN_SEPARATION 8.0
/*
 * When the classes overlap only because cells lie between the states
 * (a cell that averages the states the guest flipped between inside
 * it), each class's densest window of this log width (1 %) is a core,
 * and the cores are the states when each holds STATS_MODES_MIN_SHARE
 * of the cells and STATS_MODES_MIN_CORE, each is a peak against the
 * cells around it (STATS_MODES_PEAK_P), and they pass the separation
 * gate on their own spreads. A cell within the width of a core's
 * median is in that state; the others are between states.
 */
#define STATS_MODES_CORE_WIDTH 0.01
#define STATS_MODES_MIN_CORE 3
/* A core's count against its neighbours' density: a peak beyond this Poisson p. */
#define STATS_MODES_PEAK_P 1e-4
/* The two cores hold at least this share of the cells (else more states, or none). */
#define STATS_MODES_MIN_CORES_SHARE (1.0 / 3)

struct stats_modes {
	int separated;
	const char *why;	/* not separated: which gate failed (static); NULL when separated */
	int core;		/* the states are tight cores, with cells between them */
	double threshold;	/* the classes' cut; without cores a cell > threshold is high */
	double low, high;	/* the classes' (or cores') medians */
	double ratio;		/* high / low */
	double separation;	/* log(high / low) over the larger MAD-based sd of a class's logs */
	double band;	/* cores: a cell within this factor of a core's median is in it */
	size_t n_low, n_high;	/* cells in each state */
	size_t n_between;	/* cores: cells in neither */
};

/*
 * @x (@n values; non-positive and non-finite ones ignored) into @out.
 * Returns 0, or -1 with fewer than STATS_MODES_MIN_N usable values (then
 * not separated, why "too few cells").
 */
int stats_modes(const double *x, size_t n, struct stats_modes *out);

/* @x's state in separated @m: 1 high, 0 low, -1 between the cores (or no states). */
int stats_modes_state(const struct stats_modes *m, double x);

/*
 * Fisher's exact test of the 2x2 table [[a, b], [c, d]]: the two-sided
 * p, the sum of the probabilities of the tables with the same margins
 * that are no likelier than this one (as R's fisher.test). 1 when a
 * margin is 0.
 */
double stats_fisher_exact(size_t a, size_t b, size_t c, size_t d);

/* ---------------------------------------------------------------- */
/* Change points: a metric over many nights (mglrulab history).       */

/*
 * One night of a series (one session's runs of one kernel, workload and
 * metric): its raw values, every run that gave one.
 */
struct stats_cp_night {
	const double *v;
	size_t n;		/* > 0: nights without values are left out by the caller */
};

struct stats_cp_settings {
	double alpha;		/* per segment tested, STATS_CP_ALPHA */
	unsigned permutations;	/* STATS_CP_PERMUTATIONS */
	size_t min_nights;	/* nights on each side of a change, 2 (the last
				 * segment of the series may have 1: tentative) */
	uint64_t seed;		/* the series' seed (stats_seed_for()) */
	double clear;		/* STATS_CP_CLEAR; 0: always draw the permutations */
	double gross;		/* STATS_CP_GROSS; 0: ranks alone decide */
	uint64_t *drawn;	/* when not NULL, the permutations drawn are added */
};

#define STATS_CP_ALPHA		0.01
#define STATS_CP_PERMUTATIONS	999
/*
 * A statistic is "clear" when Bernstein's inequality bounds the chance
 * that one permutation reaches it by this (stats_changepoints()): its
 * permutations are not drawn. With 999 permutations, the p value differs
 * from the drawn one with probability at most 1e-6, the decision with
 * astronomically less.
 */
#define STATS_CP_CLEAR		1e-9
/*
 * A gross step (stats_changepoints()): the two sides' runs apart by at
 * least this many times the larger side's spread. bench/gross-step-sim
 * measures what it adds and what it costs.
 */
#define STATS_CP_GROSS		20.0
void stats_cp_settings_default(struct stats_cp_settings *s);

struct stats_cp {
	size_t at;		/* index of the first night after the change */
	double p;		/* permutation p of the segment's test */
	double z;		/* the scan statistic at the boundary (signed:
				 * > 0 when the values went down) */
	int tentative;		/* fewer than min_nights after it: one more night
				 * may confirm or withdraw it */
	double gross;		/* 0: the ranks found it; else a gross step, the
				 * gap between the sides over their spread (p is
				 * then the ranks' p, which alone did not make it
				 * a change) */
};

/*
 * Change points among nights[from .. k-1], found by binary segmentation
 * (Scott & Knott 1974; the scheme of E-divisive means, Matteson & James
 * 2014, and of Hunter/Apache Otava, with a rank statistic in place of the
 * energy distance):
 *
 *  - changes happen between nights, never inside one (a night is one
 *    kernel build and one session), so the candidates are the boundaries
 *    between nights, each leaving min_nights on either side; the last
 *    segment of the series may be a single night, so a change that
 *    started tonight is seen tonight (marked tentative: one outlier night
 *    looks the same until the next night);
 *  - the statistic at a boundary is the Mann-Whitney Z of every raw run
 *    left of it against every raw run right of it (pooled midranks, tie
 *    corrected), divided by sqrt(phi), phi >= 1 the overdispersion of the
 *    nights: the median over consecutive pairs of nights of their squared
 *    difference in mean rank, relative to what runs exchangeable across
 *    nights would give, over the median of chi^2_1 (a quasi-likelihood
 *    correction, as for clustered data; successive differences keep the
 *    segment's own steps out of it, the median its outlier nights), or,
 *    when smaller, the nights' spread about their side's mean (the better
 *    estimate when the boundary is the segment's only change and it has
 *    few nights): when
 *    nights differ more than their runs say (a busy host), boundaries
 *    need correspondingly more evidence; when they do not, the raw runs
 *    give their full power;
 *  - the segment's maximum over boundaries is compared with its
 *    permutation distribution (runs shuffled across the segment's nights,
 *    night sizes kept; @s->permutations draws from xoshiro256** seeded by
 *    @s->seed and the segment): significant when p = (1 + #{perm >= obs})
 *    / (1 + draws) <= alpha, the draws stopping as soon as that can no
 *    longer hold (alpha (draws + 1) of them reached obs: the sequential
 *    Monte Carlo p value of Besag & Clifford 1991, which decides as the
 *    full count does and stops a hopeless test after ~10 / p draws).
 *    Deterministic: the same nights and seed give the same answer on
 *    every machine;
 *  - a clear statistic is not permuted at all: the boundaries' Z are
 *    standardized sums of a sample without replacement of the segment's
 *    ranks, for which Bernstein's inequality holds (Hoeffding 1963, thm 4);
 *    summed over the boundaries it bounds P(one permutation's maximum >=
 *    obs). When that bound is at most @s->clear (STATS_CP_CLEAR), no draw
 *    would reach obs but with that probability: p is 1 / (permutations +
 *    1), what the draws give when none reaches it. A step of a few percent
 *    over a few hundred nights is clear; the borderline ones, which
 *    decide precision and recall, are drawn as before;
 *  - the boundary must also stay significant, by its own permutation
 *    test, without the one night whose leaving out weakens it most beyond
 *    what losing its runs would do (one outlier night next to a boundary
 *    is not a change); the significant boundary with the largest
 *    statistic that passes is the change (the three largest are tried);
 *  - when no boundary is significant by ranks, a gross step is a change
 *    all the same: every run on one side of the boundary beyond every
 *    run on the other, the gap between them at least @s->gross times
 *    the larger side's spread (its largest run less its smallest; on
 *    the logs when every value is positive). Ranks cannot tell how far
 *    apart the sides are: with 3 nights of 5 runs that differ between
 *    nights, a night at a quarter of the others ranks like one 4 % below
 *    them and is not significant, however far it fell. The largest such
 *    ratio is the change (.gross; .p the ranks' p);
 *  - a significant segment is split there and both halves are tested
 *    again.
 *
 * bench/history-detect measures it on seeded synthetic histories (60
 * nights of 10 runs at 3 % noise, steps of 2, 5 and 10 %, an outlier
 * night, missing nights; 40 histories per kind): precision 0.89 (normal
 * and heavy-tailed noise), recall 0.82 and 0.86; 10 % steps 237 of 240,
 * 5 % 230 of 240, 2 % 138 of 240.
 *
 * Starting at @from rather than 0 is the incremental use: change points
 * before @from are kept from an earlier analysis and only the open
 * segment is searched. Returns the number of change points, sorted by
 * .at, in *@out (malloc'd, free it; NULL when none). Returns 0 when a
 * night has no values.
 */
size_t stats_changepoints(const struct stats_cp_night *nights, size_t k, size_t from,
			  const struct stats_cp_settings *s, struct stats_cp **out);

/*
 * The bound that makes a statistic clear: P(the maximum of |Z| over
 * boundaries @lo..@hi of a permutation of @nights' runs >= @x) is at most
 * this (a union of Bernstein bounds; may exceed 1). For tests.
 */
double stats_cp_null_tail(const struct stats_cp_night *nights, size_t k, size_t lo, size_t hi,
			  double x);

/*
 * Drifts. Binary segmentation cuts a slow linear drift into steps, each
 * blaming the patches of its night. After segmentation, consecutive change
 * points of the same direction (the median level of the segment after
 * above, or below, the one before) are tested as one drift over their span
 * (the segment before the first of them to the segment after the last),
 * on each night's level (log of its 20 %-trimmed mean, so a slow run does
 * not move it):
 *  - the span has at least @min_nights nights (a drift is slow: over a
 *    shorter span a line and a step are too alike to tell at nightly noise);
 *  - the line goes the steps' way and fits the span better by @bic at
 *    least than steps at any non-empty subset of its change points (a
 *    false one among them must not favour the line), by BIC = n ln(RSS /
 *    n) + p ln n, with p = 2 for the line (Theil-Sen slope and intercept)
 *    and 2q + 1 for q steps (q + 1 segment medians, q places); residuals
 *    are clipped at 5 sigma (sigma from the nights' successive
 *    differences), so one outlier night weighs as one night.
 * The longest run of such change points that passes is the drift (the
 * earliest first); its change points are no longer steps. Its slope is
 * the Theil-Sen slope of the levels over the span, its p the two-sided
 * Mann-Kendall test of the span (normal approximation).
 *
 * bench/history-detect: a 6 % linear drift over 60 nights (3 % noise per
 * run, 10 runs, 0.5 % between nights, an outlier night): one drift and no
 * step in 60 of 60 series (1.93 steps per series without); 3 %: 48 of 60
 * (0.15 steps per series left, 1.05 without); on the step histories,
 * precision 0.949 and 0.922 for 0.921 and 0.896, recall 0.833 and 0.856
 * for 0.839 and 0.861 (one 2 % step of 60 per noise kind taken as a drift).
 *
 * Returns the number of drifts in *@out (malloc'd, NULL when none), sorted;
 * 0 when a night has no values or a value is not positive (a level is a
 * ratio).
 */
struct stats_cp_drift_settings {
	size_t min_nights;	/* STATS_CP_DRIFT_MIN_NIGHTS */
	double bic;		/* STATS_CP_DRIFT_BIC */
};
#define STATS_CP_DRIFT_MIN_NIGHTS	30
#define STATS_CP_DRIFT_BIC		3.0
void stats_cp_drift_settings_default(struct stats_cp_drift_settings *d);

struct stats_cp_drift {
	size_t from, to;	/* first and last night of the span */
	size_t first_cp, ncp;	/* the change points (indices into @at) it replaces */
	double slope;		/* Theil-Sen slope of the log level per night */
	double p;		/* Mann-Kendall p over the span (two-sided) */
};

size_t stats_cp_drifts(const struct stats_cp_night *nights, size_t k, const size_t *at,
		       size_t ncp, const struct stats_cp_drift_settings *ds,
		       struct stats_cp_drift **out);

#endif
