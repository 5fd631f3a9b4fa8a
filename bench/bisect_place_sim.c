// SPDX-License-Identifier: GPL-2.0
/*
 * Where a bisection's runs go, and what a placement band would save
 * (issue 31, "Bisection pays for no-change sides"), under simulation.
 *
 * A probe of prefix k runs two sequential sessions, the baseline against
 * k and k against the series' end, each until its primary is decided
 * (lab/stats/stats_seq.c) or the cap, and classifies k from the two
 * verdicts (bisect_classify()). Today each session decides against the
 * lab's noise band: the side that does not differ must show its interval
 * inside +-band to stop, which at a 1 % band takes the whole cap. The
 * placement rule decides each probe session against half the series'
 * effect instead: the side that does not differ stops once its interval
 * lies inside +-E/2, the side that differs once it lies beyond.
 *
 * For an N-patch series whose whole effect E sits in one patch, or is
 * spread over two, each bisection runs bisect_search() on simulated
 * sessions (lognormal noise of the given CV, the session's default
 * sequential plan at its cap of 20 runs per kernel) and counts the runs
 * of its probes (the confirming step is the same under both rules), the
 * outcome, and whether the culprit named is the patch with the effect.
 *
 *   bisect_place_sim [-b bisections] [-e effect] [-n patches] [-s seed]
 */
#include "bisect_search.h"
#include "stats.h"
#include "stats_priv.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_PATCHES	16
#define SESSION_CAP	20	/* SESSION_SEQ_MAX_RUNS */

struct series_model {
	const char *name;
	long n;
	/* share of the series' log effect present after the first k patches */
	double cum[MAX_PATCHES + 1];
	long culprit;		/* the patch carrying all of it; 0: spread */
};

/* band < 0: */
#define BAND_HALF	-1.0	/* two sessions a probe, each against half the effect */
#define MIDPOINT	-2.0	/* one session a probe, placed by its interval against E^(1/2) */
#define HYBRID		-3.0	/* MIDPOINT, then an unplaced probe as with a 1 % band */

struct sim {
	const struct series_model *sm;
	const struct stats_seq_plan *plan;
	const struct stats_settings *st;
	double effect, cv, band;	/* a band, BAND_HALF or MIDPOINT */
	struct rng *r;
	size_t runs;		/* runs per bisection, both kernels of every probe session */
	size_t misplaced;	/* probes classified on the wrong side */
};

/* One probe session: its verdict is a call (the two kernels differ). */
static int differs(struct sim *s, double log_shift)
{
	struct stats_sim_model m = { STATS_SIM_LOGNORMAL, s->cv, exp(log_shift) };
	double band = s->band >= 0 ? s->band : exp(fabs(log(s->effect)) / 2) - 1;
	struct stats_sim_outcome o;

	stats_sim_session(s->plan, s->st, &m, band, 1, s->r, &o);
	s->runs += 2 * o.seq_runs;
	return o.seq == VERDICT_IMPROVEMENT || o.seq == VERDICT_REGRESSION;
}

/*
 * HYBRID, a probe the midpoint did not place by the cap: its session's
 * verdict at the last look against a 1 % band, and a second session (k
 * against the end) at 1 %, classified as today.
 */
static enum bisect_class unplaced(struct sim *s, struct stats_seq_result *res, double log_shift)
{
	double band = s->band;
	enum stats_verdict v = stats_seq_decide(s->plan, res, s->st, 1, 0.01, -1, 0, 0);
	int db = v == VERDICT_IMPROVEMENT || v == VERDICT_REGRESSION, de;

	s->band = 0.01;
	de = differs(s, log(s->effect) - log_shift);
	s->band = band;
	return bisect_classify(&db, &de, 1);
}

/*
 * The midpoint rule: one session, the baseline against prefix k, looked at
 * as the sequential plan says; k is at the baseline once the look's
 * interval (its repeated confidence interval) lies wholly on the
 * baseline's side of the geometric midpoint E^(1/2), at the end once it
 * lies wholly beyond. Neither by the last look: the prefix carries part
 * of the change (or the noise is too large to tell), called between.
 */
static enum bisect_class midpoint(struct sim *s, double log_shift)
{
	struct stats_sim_model m = { STATS_SIM_LOGNORMAL, s->cv, exp(log_shift) };
	size_t looks = stats_seq_looks(s->plan), nmax = stats_seq_runs_at(s->plan, looks);
	double *a = xmalloc(nmax * sizeof(*a)), *b = xmalloc(nmax * sizeof(*b));
	double mid = log(s->effect) / 2;
	enum bisect_class c = BISECT_BETWEEN;

	for (size_t i = 0; i < nmax; i++) {
		a[i] = stats_sim_draw(&m, 0, s->r);
		b[i] = stats_sim_draw(&m, 1, s->r);
	}
	for (size_t j = 1; j <= looks; j++) {
		size_t n = stats_seq_runs_at(s->plan, j);
		struct stats_seq_result res;
		double lo, hi;

		stats_seq_compare(s->plan, j, a, n, b, n, s->st, rng_next(s->r), &res);
		if (!(res.cmp.ratio_lo > 0) || !isfinite(res.cmp.ratio_hi))
			continue;
		lo = log(res.cmp.ratio_lo);
		hi = log(res.cmp.ratio_hi);
		if (mid < 0) {
			double t = -lo;

			lo = -hi;
			hi = t;
		}
		if (hi < fabs(mid) || lo > fabs(mid) || j == looks) {
			s->runs += 2 * n;
			if (hi < fabs(mid))
				c = BISECT_AT_BASE;
			else if (lo > fabs(mid))
				c = BISECT_AT_END;
			else if (s->band == HYBRID)
				c = unplaced(s, &res, log_shift);
			break;
		}
	}
	free(a);
	free(b);
	return c;
}

static enum bisect_class oracle(long k, void *data)
{
	struct sim *s = data;
	double le = log(s->effect), f = s->sm->cum[k];
	enum bisect_class c;

	if (s->band == MIDPOINT || s->band == HYBRID) {
		c = midpoint(s, f * le);
	} else {
		int db = differs(s, f * le), de = differs(s, (1 - f) * le);

		c = bisect_classify(&db, &de, 1);
	}

	if ((f == 0 && c == BISECT_AT_END) || (f == 1 && c == BISECT_AT_BASE))
		s->misplaced++;
	return c;
}

struct tally {
	size_t bisections, found_right, found_wrong, spread, undecided, other;
	size_t misplaced, probes;
	double runs;
};

static void run_rule(const struct series_model *sm, double effect, double cv, double band,
		     const struct stats_seq_plan *plan, const struct stats_settings *st,
		     size_t nb, struct rng *r, struct tally *t)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < nb; i++) {
		struct sim s = { sm, plan, st, effect, cv, band, r, 0, 0 };
		struct bisect_result res;

		bisect_search(sm->n, oracle, &s, &res);
		t->bisections++;
		t->runs += (double)s.runs;
		t->misplaced += s.misplaced;
		t->probes += (size_t)res.probes;
		if (res.outcome == BISECT_FOUND && res.culprit == sm->culprit)
			t->found_right++;
		else if (res.outcome == BISECT_FOUND)
			t->found_wrong++;
		else if (res.outcome == BISECT_SPREAD)
			t->spread++;
		else if (res.outcome == BISECT_INCONCLUSIVE)
			t->undecided++;
		else
			t->other++;
	}
}

static void print_row(const char *rule, const struct tally *t)
{
	double n = (double)t->bisections;

	printf("    %-13s %6.0f   %5.1f%%   %5.1f%%   %5.1f%%   %5.1f%%   %5.2f%%\n", rule,
	       t->runs / n, 100 * t->found_right / n, 100 * t->found_wrong / n,
	       100 * t->spread / n, 100 * t->undecided / n,
	       t->probes ? 100.0 * t->misplaced / t->probes : 0.0);
}

static void usage(void)
{
	fprintf(stderr, "usage: bisect_place_sim [-b bisections] [-e effect] [-n patches] [-s seed]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const double cvs[] = { 0.01, 0.025, 0.05 };
	size_t nb = 400;
	double effect = 1.08;
	long n = 4;
	unsigned long long seed = 1;
	struct stats_seq_plan plan;
	struct stats_settings st;
	struct rng r;
	int opt;

	while ((opt = getopt(argc, argv, "b:e:n:s:")) != -1) {
		switch (opt) {
		case 'b': nb = strtoul(optarg, NULL, 10); break;
		case 'e': effect = 1 + strtod(optarg, NULL) / 100; break;
		case 'n': n = strtol(optarg, NULL, 10); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		default: usage();
		}
	}
	if (!nb || n < 2 || n > MAX_PATCHES || !(effect > 0) || effect == 1)
		usage();
	stats_settings_default(&st);
	st.resamples = 1000;
	stats_seq_plan_default(&plan, SESSION_CAP);
	rng_seed(&r, seed);

	struct series_model models[3];
	memset(models, 0, sizeof(models));
	models[0].name = "one culprit (patch n-1)";
	models[0].n = n;
	models[0].culprit = n - 1;
	models[1].name = "spread 50/50 over patches n-2, n-1";
	models[1].n = n;
	models[2].name = "spread 30/70 over patches n-2, n-1";
	models[2].n = n;
	for (long k = 0; k <= n; k++) {
		models[0].cum[k] = k >= n - 1;
		models[1].cum[k] = k >= n - 1 ? 1 : k == n - 2 ? 0.5 : 0;
		models[2].cum[k] = k >= n - 1 ? 1 : k == n - 2 ? 0.3 : 0;
	}
	printf("bisect_place_sim: %ld patches, series effect %+.1f %%, %zu bisections per row,\n"
	       "sequential plan: looks at %zu..%zu runs per kernel, step %zu, alpha %.2g; "
	       "%u bootstrap resamples\n", n, 100 * (effect - 1), nb, plan.min_runs,
	       plan.max_runs, plan.step, plan.alpha, st.resamples);
	printf("runs: both kernels of every probe session (the confirming step is not counted);\n"
	       "misplaced: probes of a prefix wholly at one end classified at the other\n");
	for (size_t m = 0; m < ARRAY_SIZE(models); m++) {
		printf("\n%s\n", models[m].name);
		for (size_t c = 0; c < ARRAY_SIZE(cvs); c++) {
			static const double bands[] = { 0.01, 0.03, BAND_HALF, MIDPOINT, HYBRID };
			static const char *const names[] = { "band 1 %", "band 3 %", "band E/2",
							     "midpoint", "midpoint+1 %" };

			printf("  cv %.1f %%   %-13s %6s   %6s   %6s   %6s   %6s   %6s\n", 100 * cvs[c],
			       "rule", "runs", "right", "wrong", "spread", "undec.", "misplaced");
			for (size_t b = 0; b < ARRAY_SIZE(bands); b++) {
				struct tally t;

				run_rule(&models[m], effect, cvs[c], bands[b], &plan, &st, nb, &r, &t);
				print_row(names[b], &t);
			}
		}
	}
	return 0;
}
