// SPDX-License-Identifier: GPL-2.0
/*
 * The attribution table's noise rule under simulation
 * (lab/attr/attr_compare.c, attr_compare_json(), and its confirmation in
 * lab/session/session_attribute.c): per kernel function the mean of each
 * kernel's runs, delta = patched - base, spread = the larger of the two
 * kernels' ranges; noise = the largest spread over the kernel functions
 * that ran steadily (spread below their mean over all runs; -O: over all
 * functions, the rule before 2026-12-05); a function is named as moved,
 * and counted in beyond_noise, when |delta| > t x max(noise, its spread)
 * (-O: t x noise; t = 1.5, ATTR_NOISE_MULTIPLE); rows are ordered by
 * |delta|. When the first look (R runs per kernel) names a function and
 * -C is above R, the table is made again from C runs per kernel, and
 * that one counts. Built and run by bench/attr-noise-sim.
 *
 *   attr_noise_sim [-n tables] [-f functions] [-r runs per kernel, list]
 *                  [-C confirm runs (5)] [-i] [-a sd floor] [-b sd share]
 *                  [-m bimodal functions] [-j bimodal jump]
 *                  [-d drift per run] [-e effects, list]
 *                  [-k functions an effect is spread over]
 *                  [-t a row is named beyond t x noise (1.5)]
 *                  [-B burst odds per run,size] [-O] [-s seed]
 *
 * The model (assumptions, held against measurements by the first line
 * printed): F kernel functions (300) whose instructions per unit are
 * log-uniform between 0.1 and 500, drawn anew for every table. Between
 * boots of one kernel each function varies normally with sd
 * max(a, b * mean), a = 0.3, b = 0.2 % (a timer interrupt landing in a
 * small function; the interrupts in a big one: __update_load_avg_se's
 * 141 per yield moved by 0.15 between boots). m = 3 of them are also
 * bimodal, and share one mode per boot (-i: each its own): every boot
 * falls in one of two modes with equal odds, function i moving by
 * J / 2^i, J = 18 (the one-CPU ping-pong's two modes, guests/tiny-icount.conf:
 * avg_vruntime 17, update_deadline 8.5, rb_next 2.7 in one A/A). With
 * two boots per kernel, both of each kernel in one mode and the kernels
 * in opposite ones (1 in 8) shows the jump as a delta the noise never
 * saw: how CI's A/A named avg_vruntime on 2026-12-05.
 * docs/attribution.md measured, between two boots of one kernel, no
 * function moving by more than 3-22 instructions per yield and the
 * kernel's total agreeing within 1 %; the first line printed is the
 * model's own figures for those two. Values may go below 0 for the
 * smallest functions: the rule uses only differences, so no clamp.
 *
 * Cases, with the same stream of random numbers for every case at one R
 * so that rows differ by the effect only: A/A; +E on one function; +E
 * split evenly over k = 5 functions; drift, every run's values scaled by
 * (1 + d * position) in the session's run order ABAB (base 1, patched 1,
 * base 2, ...), d = 0.5 % a run, alone (A/A) and with +E on one function.
 * -B p,S: the last four functions are otherwise idle (mean 0.1) and in a
 * share p of runs (one draw per run, shared) get S / 2^i: a filesystem's
 * first allocation in one boot (seed 002's aging, 2026-12-05: crc32_body
 * 3,152 per generation, ext4_mb_init_cache 1,724, _find_next_bit 984, in
 * 2 of 36 runs, against a noise of 300-500).
 * Effected functions are never bimodal; their means are drawn like the
 * others', so an effect lands on a function of random size.
 *
 * Printed per case and R (R>C: confirmed), over N tables (2000): runs,
 * the mean runs per kernel the table cost; the mean noise; fp, the
 * share of tables naming at least one function without an effect, and
 * others, the mean number of such functions (in A/A: the false-positive
 * rate and beyond_noise); first, the share of tables whose top row by
 * |delta| is an effected function; power, the share of effected functions
 * beyond noise; bias, the mean of delta - true effect over effected
 * functions; cov, the share of them whose delta +- their threshold (t x
 * the larger of the noise and their spread, what a reader takes from the
 * table) holds the true effect.
 */
#include "rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEAN_LO 0.1		/* smallest per-unit mean drawn */
#define MEAN_HI 500.0		/* largest */
#define MAX_LIST 16		/* values in a -r or -e list */
#define MAX_RUNS 16		/* attr.h: ATTR_MAX_RUNS */

#define BURST_FUNCS 4	/* functions one burst touches (crc32_body, ext4_mb_init_cache, ...) */

struct model {
	size_t funcs, bimodal, spread_k;
	double a, b, jump, drift;
	double k_noise;		/* a row is named when |delta| > k_noise x noise */
	int independent;	/* bimodal functions draw their own mode (else one per run) */
	double burst_p, burst_size;	/* a run's odds of a burst, and its size */
	int plain_max;		/* -O: noise = the largest spread of all, no own spread */
};

/* One case: @e instructions per unit split over @k functions, under drift or not. */
struct effect {
	const char *kind;
	double e;
	size_t k;
	int drift;
};

/* One table's per-function draws and results, reused across tables. */
struct table {
	double *mu, *sd, *eff, *v, *delta, *spread, *thr;
	size_t runs;
};

/* Effects sit on functions m .. m + k - 1, after the bimodal ones. */
static int effected(const struct model *m, const struct effect *ef, size_t f)
{
	return f >= m->bimodal && f < m->bimodal + ef->k;
}

struct tally {
	double noise, others, bias, power, runs;
	size_t fp, first, covered;
};

static double gauss(struct rng *r)
{
	double u = rng_double(r) + 0x1.0p-54, v = rng_double(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		perror("calloc");
		exit(1);
	}
	return p;
}

static void table_alloc(struct table *t, size_t funcs, size_t runs)
{
	t->runs = runs;
	t->mu = xcalloc(funcs, sizeof(double));
	t->sd = xcalloc(funcs, sizeof(double));
	t->eff = xcalloc(funcs, sizeof(double));
	t->v = xcalloc(funcs * 2 * runs, sizeof(double));
	t->delta = xcalloc(funcs, sizeof(double));
	t->spread = xcalloc(funcs, sizeof(double));
	t->thr = xcalloc(funcs, sizeof(double));
}

static void table_free(struct table *t)
{
	free(t->mu);
	free(t->sd);
	free(t->eff);
	free(t->v);
	free(t->delta);
	free(t->spread);
	free(t->thr);
}

/*
 * Draw one table's functions and its 2R runs: v[f * 2R + j], base runs
 * at j < R, patched at j >= R. Bimodal functions are 0 .. m - 1, effected
 * ones follow; means are exchangeable, so that is a random choice. The
 * draws do not depend on the effect, which keeps the stream common to all
 * cases. Bimodal functions share one mode per run (the ping-pong's mode
 * is the run's, and every function of its path moves with it), function
 * i by jump / 2^i: avg_vruntime 17, update_deadline 8.5, rb_next 2.7 in
 * one measured A/A; with -i each draws its own, by the whole jump.
 */
static void table_draw(const struct model *m, const struct effect *ef, struct table *t,
		       struct rng *r)
{
	size_t nr = 2 * t->runs;
	int mode[2 * MAX_RUNS], burst[2 * MAX_RUNS] = { 0 };
	size_t first_burst = m->funcs - BURST_FUNCS;

	for (size_t j = 0; j < nr; j++)
		mode[j] = rng_double(r) < 0.5;
	/* drawn only under -B, so that the figures without bursts stay put */
	for (size_t j = 0; m->burst_p > 0 && j < nr; j++)
		burst[j] = rng_double(r) < m->burst_p;
	for (size_t f = 0; f < m->funcs; f++) {
		double jump = m->independent ? m->jump : m->jump / (double)(1u << f);

		t->mu[f] = MEAN_LO * pow(MEAN_HI / MEAN_LO, rng_double(r));
		t->sd[f] = fmax(m->a, m->b * t->mu[f]);
		t->eff[f] = effected(m, ef, f) ? ef->e / (double)ef->k : 0;
		for (size_t j = 0; j < nr; j++) {
			int patched = j >= t->runs;
			size_t i = j % t->runs, pos = 2 * i + (size_t)patched;	/* ABAB */
			double x = t->mu[f] + t->sd[f] * gauss(r) + (patched ? t->eff[f] : 0);

			/* a burst function is otherwise tiny: its mean is MEAN_LO */
			if (m->burst_p > 0 && f >= first_burst)
				x += MEAN_LO - t->mu[f] +
				     (burst[j] ? m->burst_size / (double)(1u << (f - first_burst)) : 0);
			if (f < m->bimodal) {
				int up = m->independent ? rng_double(r) < 0.5 : mode[j];

				x += up ? jump / 2 : -jump / 2;
			}
			if (ef->drift)
				x *= 1 + m->drift * (double)pos;
			t->v[f * nr + j] = x;
		}
	}
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

static double range_of(const double *v, size_t n)
{
	double lo = v[0], hi = v[0];

	for (size_t i = 1; i < n; i++) {
		lo = fmin(lo, v[i]);
		hi = fmax(hi, v[i]);
	}
	return hi - lo;
}

/*
 * The rule itself, as attr_compare_json() applies it, on the first @n of
 * each kernel's runs: the noise is the largest spread of a function that
 * ran steadily (its spread below its mean over all runs), a bursty one is
 * held to its own spread: t->thr[f] = k_noise x max(noise, spread), or
 * k_noise x the largest spread of all under -O (the rule before
 * 2026-12-05). Returns the noise, and in *@named how many functions pass
 * their threshold.
 */
static double table_rule(const struct model *m, struct table *t, size_t n, size_t *named)
{
	size_t R = t->runs;
	double noise = 0, all = 0;

	for (size_t f = 0; f < m->funcs; f++) {
		const double *v = &t->v[f * 2 * R];
		double mean = (mean_of(v, n) + mean_of(v + R, n)) / 2;

		t->delta[f] = mean_of(v + R, n) - mean_of(v, n);
		t->spread[f] = fmax(range_of(v, n), range_of(v + R, n));
		all = fmax(all, t->spread[f]);
		if (!(t->spread[f] > 0 && t->spread[f] >= mean))
			noise = fmax(noise, t->spread[f]);
	}
	if (m->plain_max)
		noise = all;
	*named = 0;
	for (size_t f = 0; f < m->funcs; f++) {
		t->thr[f] = m->k_noise * (m->plain_max ? noise : fmax(noise, t->spread[f]));
		*named += fabs(t->delta[f]) > t->thr[f];
	}
	return noise;
}

/* Add one table's outcome to @tl. */
static void table_score(const struct model *m, const struct effect *ef, const struct table *t,
			double noise, struct tally *tl)
{
	size_t others = 0, top = 0;

	for (size_t f = 0; f < m->funcs; f++) {
		int hit = fabs(t->delta[f]) > t->thr[f];

		if (fabs(t->delta[f]) > fabs(t->delta[top]))
			top = f;
		if (!effected(m, ef, f)) {
			others += (size_t)hit;
			continue;
		}
		tl->power += hit;
		tl->bias += t->delta[f] - t->eff[f];
		tl->covered += fabs(t->delta[f] - t->eff[f]) <= t->thr[f];
	}
	tl->noise += noise;
	tl->others += (double)others;
	tl->fp += others > 0;
	tl->first += (size_t)effected(m, ef, top);
}

/*
 * One case over @tables tables: @runs runs per kernel at the first look
 * and, when that names a function and @confirm > @runs, the table again
 * from @confirm runs per kernel (session_attribute.c: the runs added to
 * confirm what the first look named).
 */
static void case_run(const struct model *m, const struct effect *ef, size_t runs,
		     size_t confirm, size_t tables, uint64_t seed)
{
	struct table t;
	struct tally tl = { 0 };
	struct rng r;
	double n = (double)tables, nk = n * (double)ef->k;
	char rr[48];

	if (confirm < runs)
		confirm = runs;
	table_alloc(&t, m->funcs, confirm);
	rng_seed(&r, seed);
	for (size_t i = 0; i < tables; i++) {
		size_t named, used = runs;
		double noise;

		table_draw(m, ef, &t, &r);
		noise = table_rule(m, &t, runs, &named);
		if (named && confirm > runs) {
			used = confirm;
			noise = table_rule(m, &t, confirm, &named);
		}
		tl.runs += (double)used;
		table_score(m, ef, &t, noise, &tl);
	}
	if (confirm > runs)
		snprintf(rr, sizeof(rr), "%zu>%zu", runs, confirm);
	else
		snprintf(rr, sizeof(rr), "%zu", runs);
	printf("%-14s %6g %4s %5.2f %6.1f %6.3f %6.3f", ef->kind, ef->e, rr, tl.runs / n,
	       tl.noise / n, (double)tl.fp / n, tl.others / n);
	if (ef->k)
		printf(" %6.3f %6.3f %+7.2f %6.3f\n", (double)tl.first / n, tl.power / nk,
		       tl.bias / nk, (double)tl.covered / nk);
	else
		printf(" %6s %6s %7s %6s\n", "-", "-", "-", "-");
	table_free(&t);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * The model against docs/attribution.md: two boots of one kernel, the
 * largest move of any function (median and 5-95 % over tables) and how
 * far the kernel's totals differ, in % (mean and 95th percentile).
 */
static void calibrate(const struct model *m, size_t tables, uint64_t seed)
{
	static const struct effect none = { "A/A", 0, 0, 0 };
	struct table t;
	struct rng r;
	double *move = xcalloc(tables, sizeof(double)), *tot = xcalloc(tables, sizeof(double));
	double total_sum = 0, tot_sum = 0;

	table_alloc(&t, m->funcs, 1);	/* one run a kernel: two boots, no effect */
	rng_seed(&r, seed);
	for (size_t i = 0; i < tables; i++) {
		double s[2] = { 0, 0 };

		table_draw(m, &none, &t, &r);
		for (size_t f = 0; f < m->funcs; f++) {
			move[i] = fmax(move[i], fabs(t.v[2 * f + 1] - t.v[2 * f]));
			s[0] += t.v[2 * f];
			s[1] += t.v[2 * f + 1];
		}
		tot[i] = 100 * fabs(s[1] - s[0]) / s[0];
		total_sum += s[0];
		tot_sum += tot[i];
	}
	qsort(move, tables, sizeof(double), cmp_double);
	qsort(tot, tables, sizeof(double), cmp_double);
	printf("model, two boots of one kernel: kernel total %.0f per unit, differing by %.2f %%"
	       " (p95 %.2f %%);\nlargest move of a function %.1f (5-95 %%: %.1f-%.1f)"
	       " [docs/attribution.md: within 1 %%; 3-22]\n\n",
	       total_sum / (double)tables, tot_sum / (double)tables, tot[tables * 95 / 100],
	       move[tables / 2], move[tables * 5 / 100], move[tables * 95 / 100]);
	table_free(&t);
	free(move);
	free(tot);
}

static void usage(void)
{
	fprintf(stderr, "usage: attr_noise_sim [-n tables] [-f functions] [-r runs[,runs...]]"
			" [-C confirm runs] [-i] [-a sd floor] [-b sd share] [-m bimodal] [-j jump] [-d drift]"
			" [-e effect[,effect...]] [-k spread over] [-t noise multiple] [-B p,size] [-O]"
			" [-s seed]\n");
	exit(2);
}

static double num(const char *s)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !(x >= 0))
		usage();
	return x;
}

/* A comma-separated list of numbers >= 0 into @out; returns how many. */
static size_t num_list(const char *s, double *out)
{
	char buf[256], *save = NULL;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		usage();
	strcpy(buf, s);
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_LIST)
			usage();
		out[n++] = num(tok);
	}
	if (!n)
		usage();
	return n;
}

/*
 * Every case at every R, and with the confirming runs when -C is above R:
 * A/A, one function, spread, drift alone, drift with one function.
 */
static void run_all(const struct model *m, const double *es, size_t nes, const double *rs,
		    size_t nrs, size_t confirm, size_t tables, uint64_t seed)
{
	char spread[40];

	snprintf(spread, sizeof(spread), "spread over %zu", m->spread_k);
	for (size_t ri = 0; ri < nrs; ri++)
		for (int c = 0; c < 2; c++) {
			size_t R = (size_t)rs[ri], C = c ? confirm : R;
			struct effect aa = { "A/A", 0, 0, 0 }, drift = { "drift A/A", 0, 0, 1 };

			if (c && C <= R)
				continue;
			case_run(m, &aa, R, C, tables, seed);
			for (size_t i = 0; i < nes; i++)
				case_run(m, &(struct effect){ "one function", es[i], 1, 0 }, R, C,
					 tables, seed);
			for (size_t i = 0; i < nes; i++)
				case_run(m, &(struct effect){ spread, es[i], m->spread_k, 0 }, R, C,
					 tables, seed);
			case_run(m, &drift, R, C, tables, seed);
			for (size_t i = 0; i < nes; i++)
				case_run(m, &(struct effect){ "drift + one", es[i], 1, 1 }, R, C,
					 tables, seed);
			printf("\n");
		}
}

int main(int argc, char **argv)
{
	struct model m = { 300, 3, 5, 0.3, 0.002, 18, 0.005, 1.5, 0, 0, 0, 0 };
	double burst[MAX_LIST];
	double rs[MAX_LIST] = { 2 }, es[MAX_LIST] = { 2, 5, 10, 20, 50, 100 };
	size_t nrs = 1, nes = 6, tables = 2000, confirm = 5;
	uint64_t seed = 1;
	int opt;

	while ((opt = getopt(argc, argv, "n:f:r:C:a:b:j:m:is:d:e:k:t:B:O")) != -1) {
		switch (opt) {
		case 'n': tables = (size_t)num(optarg); break;
		case 'f': m.funcs = (size_t)num(optarg); break;
		case 'r': nrs = num_list(optarg, rs); break;
		case 'C': confirm = (size_t)num(optarg); break;
		case 'i': m.independent = 1; break;
		case 'a': m.a = num(optarg); break;
		case 'b': m.b = num(optarg); break;
		case 'j': m.jump = num(optarg); break;
		case 'm': m.bimodal = (size_t)num(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'd': m.drift = num(optarg); break;
		case 'e': nes = num_list(optarg, es); break;
		case 'k': m.spread_k = (size_t)num(optarg); break;
		case 't': m.k_noise = num(optarg); break;
		case 'B':
			if (num_list(optarg, burst) != 2 || burst[0] > 1)
				usage();
			m.burst_p = burst[0];
			m.burst_size = burst[1];
			break;
		case 'O': m.plain_max = 1; break;
		default: usage();
		}
	}
	/* R = 1 gives the table no noise at all (has_noise): nothing to simulate */
	for (size_t i = 0; i < nrs; i++)
		if (rs[i] < 2 || rs[i] > MAX_RUNS || rs[i] != floor(rs[i]))
			usage();
	if (confirm > MAX_RUNS || m.bimodal > 30)
		usage();
	if (tables < 20 || !m.spread_k || optind != argc ||
	    m.funcs <= m.bimodal + m.spread_k + (m.burst_p > 0 ? BURST_FUNCS : 0))
		usage();
	printf("%zu tables of %zu functions (per-unit means log-uniform %g-%g), boot sd"
	       " max(%g, %g %% of mean),\n%zu bimodal by %g%s; drift %g %% a run in ABAB order;"
	       " named beyond %g x noise; seed %llu\n", tables, m.funcs, MEAN_LO, MEAN_HI, m.a,
	       100 * m.b, m.bimodal, m.jump,
	       m.independent ? ", each its own mode" : " / 2^i, one mode per run",
	       100 * m.drift, m.k_noise, (unsigned long long)seed);
	if (m.burst_p > 0)
		printf("bursts: %g of runs, %g / 2^i on %d otherwise tiny functions\n", m.burst_p,
		       m.burst_size, BURST_FUNCS);
	printf("noise: %s\n", m.plain_max ? "the largest spread of all functions (-O)" :
	       "the largest spread of a steady function; a bursty one held to its own");
	calibrate(&m, tables, seed);
	printf("fp/others: tables naming an unaffected function / their mean number;"
	       " first: an\neffected function tops the table; power, bias, cov: per effected"
	       " function (delta +- its threshold holds E/k)\n\n");
	printf("%-14s %6s %4s %5s %6s %6s %6s %6s %6s %7s %6s\n", "case", "E", "R", "runs",
	       "noise", "fp", "others", "first", "power", "bias", "cov");
	run_all(&m, es, nes, rs, nrs, confirm, tables, seed);
	return 0;
}
