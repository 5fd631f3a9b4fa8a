/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the stats_*.c files and their tests; not part of the
 * public API (lab/stats/stats.h). Named *_priv.h, so scripts/check-layers
 * refuses it to every other folder (bench/'s simulators are not checked).
 */
#ifndef LAB_STATS_PRIV_H
#define LAB_STATS_PRIV_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "stats.h"

/* Standard normal CDF and upper tail. */
double stats_norm_cdf(double x);
double stats_norm_sf(double x);
/* Standard normal quantile (Wichura's AS 241, ~1e-16 relative). */
double stats_norm_quantile(double p);
/* Regularized incomplete beta I_x(a, b). */
double stats_incbeta(double x, double a, double b);
/* Two-sided p of Student's t with @df degrees of freedom. */
double stats_t_two_sided_p(double t, double df);
/* P(chi^2_df > x): the upper tail of the chi-square law. */
double stats_chi2_sf(double x, double df);
/* P(Bin(n, 1/2) <= k). */
double stats_binom_half_cdf(size_t n, long k);

/* Ascending sort of doubles (NaN-free input). */
void stats_sort(double *x, size_t n);
/*
 * A value and its position. qsort() by stats_cmp_vi() (value, then
 * position) gives the order a stable sort of the values would: ties keep
 * their input order, so results do not depend on the qsort.
 */
struct stats_vi {
	double v;
	size_t i;
};
int stats_cmp_vi(const void *a, const void *b);
/* Rearrange @x so that x[k] is the k-th smallest (0-based), smaller to the
 * left, larger or equal to the right; returns x[k]. */
double stats_select(double *x, size_t n, size_t k);
/*
 * The midpoint (a + b) / 2 of two finite values, finite too: the plain sum
 * overflows to inf above ~9e307, which turned the median of two huge runs
 * into inf. The halves are added only then, so ordinary results stay
 * bit-identical to the plain formula.
 */
static inline double stats_mid(double a, double b)
{
	double m = (a + b) / 2.0;

	return isfinite(m) ? m : a / 2.0 + b / 2.0;
}

/* a + f (b - a) for 0 <= f <= 1 (type 7 interpolation), finite for finite
 * a and b: b - a overflows when they are huge and of opposite signs. */
static inline double stats_lerp(double a, double b, double f)
{
	double d = b - a;

	return isfinite(d) ? a + f * d : (1.0 - f) * a + f * b;
}

/* Type 7 quantile of an ascending array. */
double stats_quantile_sorted(const double *x, size_t n, double p);
/* Median of an ascending array. */
double stats_median_sorted(const double *x, size_t n);
/* Median that reorders @x in place (quickselect, O(n)). */
double stats_median_inplace(double *x, size_t n);

/* Midranks (1-based) of @x into @rank; returns sum over tie groups of
 * t^3 - t (the tie-correction term). */
double stats_midranks(const double *x, size_t n, double *rank);

/*
 * Null distribution of the sum of @k items chosen from @n integer scores
 * @score (all subsets of size k equally likely): fills @count[s] for
 * s = 0..*smax (allocated by the callee, free() it) with the number of
 * subsets. Counts are doubles: exact up to 2^53, then relative 1e-16.
 */
double *stats_subset_sum_counts(const long *score, size_t n, size_t k,
				long *smax);
/* Same for subsets of any size (the signed-rank null distribution). */
double *stats_any_subset_sum_counts(const long *score, size_t n, long *smax);

/* P(U <= k) for the no-ties Mann-Whitney U with sizes n1, n2 (exact). */
double *stats_mw_null_cdf(size_t n1, size_t n2);

/*
 * Hodges-Lehmann estimate of the shift y - x (of log y - log x when
 * @use_log; then the caller exponentiates) with its distribution-free
 * interval at @conf (exact no-ties U quantiles when nx*ny <= @exact_max).
 * *level gets the interval's achieved level. Returns -1 when empty.
 * The order statistics of the nx ny differences are selected exactly,
 * bit for bit the values of sorting all of them, in O((nx + ny) log)
 * time and O(nx + ny) memory: sorting, then at most 64 counting passes
 * each (a search over the doubles' bit patterns; see stats_rank.c).
 */
int stats_hodges_lehmann(const double *x, size_t nx, const double *y,
			 size_t ny, double conf, size_t exact_max, int use_log,
			 double *est, double *lo, double *hi, double *level);

/*
 * Median of the n (n + 1) / 2 Walsh averages (d_i + d_j) / 2, i <= j (the
 * one-sample Hodges-Lehmann estimate), exactly as sorting them all, in
 * O(n log n) time and O(n) memory the same way. NaN when n == 0.
 */
double stats_walsh_median(const double *d, size_t n);

/*
 * Exact bootstrap law of the median of @n resampled values from the
 * ascending array @sorted: fills @val/@prob (room for n (n + 1) / 2
 * entries) and returns the number of support points. Probabilities sum to
 * 1 up to rounding; values may repeat.
 */
size_t stats_median_law(const double *sorted, size_t n, double *val,
			double *prob);

/* Walker's alias method (Vose's construction): O(1) draws from a law. */
struct stats_alias {
	size_t m;
	double *val;
	double *cut;		/* keep column i when the coin is below cut[i] */
	uint32_t *alias;
};

/* Laws are built for n up to this; beyond, resamples are counted. */
#define STATS_LAW_MAX_N 200

/* Table for the median of @n resampled values of ascending @sorted
 * (n <= STATS_LAW_MAX_N). */
void stats_alias_build(struct stats_alias *t, const double *sorted, size_t n);
void stats_alias_release(struct stats_alias *t);

static inline double stats_alias_draw(const struct stats_alias *t, struct rng *r)
{
	uint32_t m = (uint32_t)t->m, th = -m % m;

	for (;;) {
		uint64_t x = rng_next(r);
		/* High half picks the column (Lemire, exact with the
		 * rejection), low half is the coin, 2^-32 resolution. */
		uint64_t col = (x >> 32) * m;

		if ((uint32_t)col < th)
			continue;
		uint32_t i = (uint32_t)(col >> 32);
		double coin = (double)(uint32_t)x * 0x1.0p-32;

		return t->val[coin < t->cut[i] ? i : t->alias[i]];
	}
}

/*
 * stats_decide() with the level and the p (or q) given: @p_used is
 * compared with @alpha (the sequential looks compare a look's p with its
 * own level, or a q with the overall one); @used_q names it "q" in the
 * reason. Everything else as stats_decide().
 */
enum stats_verdict stats_decide_at(const struct stats_comparison *c,
				   const struct stats_settings *s,
				   double alpha, double p_used, int used_q,
				   int better_higher, double threshold,
				   size_t failed, size_t attempted,
				   struct stats_decision *out);

/*
 * Simulated sessions (stats_sim.c), for tests/unit/test_stats_seq.c and
 * bench/sequential-sim only. A run's value is noise with median 1, times
 * @shift in the patched kernel (a higher-is-better metric).
 */
enum stats_sim_noise {
	STATS_SIM_LOGNORMAL,	/* log sd = sqrt(log(1 + cv^2)) */
	STATS_SIM_SLOW_TAIL,	/* lognormal, 15 % of runs 5-30 % slower */
	STATS_SIM_LOG_T3,	/* Student t3 on the log scale, same log sd */
};

struct stats_sim_model {
	enum stats_sim_noise noise;
	double cv;
	double shift;		/* patched / baseline, 1 for A/A */
};

struct stats_sim_outcome {
	enum stats_verdict seq, naive;	/* verdict where each rule stopped */
	size_t seq_runs, naive_runs;	/* runs per kernel there */
	int seq_approx_crossing;	/* seq stopped on a significant "?":
					 * a real change whose interval
					 * crosses the band edge */
};

double stats_sim_draw(const struct stats_sim_model *m, int patched,
		      struct rng *r);
const char *stats_sim_noise_name(enum stats_sim_noise n);
/*
 * One session on max_runs runs per kernel drawn up front: at every look
 * of @p, the sequential rule (stats_seq_decide) and naive re-testing
 * (stats_decide at @s's alpha and confidence) each stop at their first
 * decided verdict, or at the last look. @band is the noise band.
 * "Decided": stats_decision.final when @stop_on_final, else
 * stats_verdict_decided() of the verdict.
 */
void stats_sim_session(const struct stats_seq_plan *p,
		       const struct stats_settings *s,
		       const struct stats_sim_model *m, double band,
		       int stop_on_final, struct rng *r,
		       struct stats_sim_outcome *out);
/* One fixed-size experiment with @n runs per kernel, decided once. */
enum stats_verdict stats_sim_fixed(size_t n, const struct stats_settings *s,
				   const struct stats_sim_model *m,
				   double band, struct rng *r);

/* Type 7 quantile of an unsorted array, by selection (reorders @x). */
double stats_select_quantile(double *x, size_t n, double p);

/*
 * Otsu's cut of sorted @l[0..m) (Otsu 1979): the index of the first value
 * above it, 0 when all are equal; *@between (when not NULL) gets the
 * between-class variance at the cut (stats_two_states()' eta is it over
 * the total variance). stats_states.c; stats_modes.c cuts with it too.
 */
size_t stats_otsu_cut(const double *l, size_t m, double *between);

#endif
