// SPDX-License-Identifier: GPL-2.0
/*
 * Can this host give low-noise timing under QEMU TCG at all? Guests under
 * TCG are memory-bound, so their per-window rates follow how fast the host
 * serves random accesses to a working set bigger than its caches. This
 * times exactly that, natively and without any guest: one thread per CPU,
 * pinned, each doing random read-modify-write byte accesses over its own
 * buffer in fixed-size chunks, and reports how much the rate moves over
 * chunks and over one-second windows, and how the CPUs move together.
 * Built and run by bench/host-noise.
 *
 *   host_noise [--seconds S] [--mib M] [--chunk-ms MS] [--cpus LIST]
 */
#include "cpulist.h"
#include "parse_num.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define STEADY_CV 3.0	/* % of the worst CPU's 1-s means called steady */

struct chunk {
	double t;	/* midpoint, CLOCK_MONOTONIC s */
	double rate;	/* accesses/s */
};

struct worker {
	int cpu;
	size_t bytes;
	double seconds;
	unsigned chunk_ms;
	pthread_barrier_t *go;
	double start;		/* when this thread's measurement began */
	struct chunk *c;
	size_t n, cap;
	unsigned sink;		/* keeps the accesses observable */
	int err;		/* errno of a failed set-up, 0 when fine */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The access pattern: an LCG index defeats the prefetchers, and the
 * increment makes each access a read-modify-write, as guest memory
 * traffic under TCG largely is. Bits 20 and up of the state are used
 * because the low bits of a power-of-two LCG have short periods.
 */
static uint64_t walk(uint8_t *buf, size_t mask, uint64_t x, uint64_t n)
{
	while (n--) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		buf[(x >> 20) & mask]++;
	}
	return x;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(w->cpu + 1);
	uint64_t iters = 1 << 16;
	uint8_t *buf = NULL;
	cpu_set_t set;
	double t, end, best;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	/* Allocated after pinning so that the pages are local to the CPU. */
	if (!w->err && !(buf = malloc(w->bytes)))
		w->err = ENOMEM;
	if (!w->err) {
		/* Fault every page in now rather than in the first chunks. */
		memset(buf, 1, w->bytes);
		/*
		 * Calibrate once: double until a run takes 20 ms (long
		 * enough for the clock and for the caches to be warm),
		 * then scale the fastest of 5 such runs to the chunk
		 * length, so that a run the CPU was taken from does not
		 * shorten every chunk. A fixed count per chunk makes each
		 * chunk's time the measurement.
		 */
		for (;;) {
			t = now();
			x = walk(buf, w->bytes - 1, x, iters);
			best = now() - t;
			if (best >= 0.02)
				break;
			iters *= 2;
		}
		for (int i = 0; i < 4; i++) {
			t = now();
			x = walk(buf, w->bytes - 1, x, iters);
			end = now();
			if (end - t < best)
				best = end - t;
		}
		iters = (uint64_t)(iters * (w->chunk_ms / 1e3) / best);
		if (!iters)
			iters = 1;
	}
	/* Every CPU starts together so that their seconds line up. */
	pthread_barrier_wait(w->go);
	if (w->err)
		return NULL;
	w->start = now();
	while (now() - w->start < w->seconds) {
		if (w->n == w->cap) {
			struct chunk *c;

			w->cap = w->cap ? 2 * w->cap : 256;
			c = realloc(w->c, w->cap * sizeof(*c));
			if (!c) {
				w->err = ENOMEM;
				break;
			}
			w->c = c;
		}
		t = now();
		x = walk(buf, w->bytes - 1, x, iters);
		end = now();
		w->c[w->n].t = (t + end) / 2;
		w->c[w->n++].rate = iters / (end - t);
	}
	for (size_t i = 0; i < w->bytes; i += 4096)
		w->sink += buf[i];
	w->sink += (unsigned)x;
	free(buf);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Linearly interpolated quantile of ascending @v. */
static double quant(const double *v, size_t n, double p)
{
	double h = p * (double)(n - 1);
	size_t i = (size_t)h;

	return i + 1 < n ? v[i] + (h - i) * (v[i + 1] - v[i]) : v[n - 1];
}

/* Sample coefficient of variation in %, NAN below two values. */
static double cv(const double *v, size_t n)
{
	double m = 0, s = 0;

	if (n < 2)
		return NAN;
	for (size_t i = 0; i < n; i++)
		m += v[i];
	m /= n;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return 100 * sqrt(s / (n - 1)) / m;
}

static double pearson(const double *a, const double *b, size_t n)
{
	double ma = 0, mb = 0, sab = 0, saa = 0, sbb = 0;

	if (n < 3)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		ma += a[i];
		mb += b[i];
	}
	ma /= n;
	mb /= n;
	for (size_t i = 0; i < n; i++) {
		sab += (a[i] - ma) * (b[i] - mb);
		saa += (a[i] - ma) * (a[i] - ma);
		sbb += (b[i] - mb) * (b[i] - mb);
	}
	return saa > 0 && sbb > 0 ? sab / sqrt(saa * sbb) : NAN;
}

/*
 * Mean chunk rate of each whole second since @t0 into @sec (NAN for a
 * second without a chunk: a starved CPU). A chunk counts in the second
 * that holds its midpoint; the partial last second is left out.
 */
static void per_second(const struct worker *w, double t0, double *sec,
		       size_t nsec)
{
	size_t *cnt = calloc(nsec, sizeof(*cnt));

	if (!cnt) {
		perror("host-noise");
		exit(1);
	}
	for (size_t s = 0; s < nsec; s++)
		sec[s] = 0;
	for (size_t i = 0; i < w->n; i++) {
		size_t s = (size_t)(w->c[i].t - t0);

		if (s < nsec) {
			sec[s] += w->c[i].rate;
			cnt[s]++;
		}
	}
	for (size_t s = 0; s < nsec; s++)
		sec[s] = cnt[s] ? sec[s] / cnt[s] : NAN;
	free(cnt);
}

/* Seconds defined in both @a and @b (all of @a when @b is NULL). */
static size_t common(const double *a, const double *b, size_t nsec,
		     double *oa, double *ob)
{
	size_t k = 0;

	for (size_t s = 0; s < nsec; s++) {
		if (isnan(a[s]) || (b && isnan(b[s])))
			continue;
		oa[k] = a[s];
		if (ob)
			ob[k] = b[s];
		k++;
	}
	return k;
}

/*
 * Measures one working set on every CPU at once and prints its lines.
 * Returns the worst CPU's CV of 1-s means in % (NAN if none), its CPU
 * in @worst_cpu.
 */
static double measure(const int *cpus, int ncpu, size_t mib, double seconds,
		      unsigned chunk_ms, int *worst_cpu)
{
	struct worker *w = calloc(ncpu, sizeof(*w));
	pthread_t *th = calloc(ncpu, sizeof(*th));
	size_t nsec = (size_t)seconds, k;
	double *sec = calloc(nsec * ncpu, sizeof(*sec));
	double *a = calloc(nsec, sizeof(*a));
	double *b = calloc(nsec, sizeof(*b));
	double t0 = INFINITY, worst = NAN;
	pthread_barrier_t go;

	if (!w || !th || !sec || !a || !b) {
		perror("host-noise");
		exit(1);
	}
	pthread_barrier_init(&go, NULL, ncpu);
	for (int i = 0; i < ncpu; i++) {
		w[i] = (struct worker){ .cpu = cpus[i], .bytes = mib << 20,
			.seconds = seconds, .chunk_ms = chunk_ms, .go = &go };
		errno = pthread_create(&th[i], NULL, work, &w[i]);
		if (errno) {
			perror("host-noise: pthread_create");
			exit(1);
		}
	}
	for (int i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	for (int i = 0; i < ncpu; i++) {
		if (w[i].err) {
			fprintf(stderr, "host-noise: cpu %d: %s\n", w[i].cpu,
				strerror(w[i].err));
			exit(1);
		}
		if (w[i].start < t0)
			t0 = w[i].start;
	}
	for (int i = 0; i < ncpu; i++) {
		double *r = malloc((w[i].n + 1) * sizeof(*r)), c1;

		if (!r) {
			perror("host-noise");
			exit(1);
		}
		for (size_t j = 0; j < w[i].n; j++)
			r[j] = w[i].c[j].rate;
		qsort(r, w[i].n, sizeof(*r), cmp_double);
		per_second(&w[i], t0, sec + i * nsec, nsec);
		k = common(sec + i * nsec, NULL, nsec, a, NULL);
		c1 = cv(a, k);
		printf("%zu MiB cpu %d: chunks %zu, median %.1f M/s, CV %.1f %%, "
		       "CV of 1-s means %.1f %% (%zu s), p90/p10 %.2f\n",
		       mib, w[i].cpu, w[i].n, quant(r, w[i].n, 0.5) / 1e6,
		       cv(r, w[i].n), c1, k,
		       quant(r, w[i].n, 0.9) / quant(r, w[i].n, 0.1));
		if (!isnan(c1) && !(c1 <= worst)) {
			worst = c1;
			*worst_cpu = w[i].cpu;
		}
		free(r);
	}
	/*
	 * Correlated CPUs share a cause (memory bandwidth, the host's other
	 * tenants); the ratio's CV is what an A/B comparison of two guests
	 * on two CPUs running at the same time would see.
	 */
	for (int i = 0; i < ncpu; i++) {
		for (int j = i + 1; j < ncpu; j++) {
			double rho;

			k = common(sec + i * nsec, sec + j * nsec, nsec, a, b);
			rho = pearson(a, b, k);

			for (size_t s = 0; s < k; s++)
				a[s] /= b[s];
			printf("%zu MiB cpu %d / cpu %d: correlation of 1-s "
			       "means %.2f, CV of their ratio %.1f %% (%zu s)\n",
			       mib, w[i].cpu, w[j].cpu, rho, cv(a, k), k);
		}
	}
	for (int i = 0; i < ncpu; i++)
		free(w[i].c);
	free(w), free(th), free(sec), free(a), free(b);
	return worst;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: host-noise [--seconds S] [--mib M] [--chunk-ms MS] [--cpus LIST]\n"
		"  --seconds S    measuring time per working set, >= 2 (default 20)\n"
		"  --mib M        working set in MiB, a power of two (default 1 then 32)\n"
		"  --chunk-ms MS  length of one timed chunk, 1..1000 (default 100)\n"
		"  --cpus LIST    CPUs such as 0,2-3 (default every CPU allowed here)\n");
}

static void bad(const char *opt, const char *expected, const char *got)
{
	fprintf(stderr, "host-noise: %s: expected %s, got '%s'\n", opt,
		expected, got);
	exit(1);
}

/* Whole string as an integer in [lo, hi] (common/parse_num.h), or exit naming @opt. */
static long long_arg(const char *opt, const char *s, long lo, long hi, const char *expected)
{
	long v;

	if (parse_long(s, lo, hi, &v))
		bad(opt, expected, s);
	return v;
}

/*
 * A cpulist such as "0,2-3" (common/cpulist.h, the lab's one parser) into
 * @cpus, ascending and each once; every CPU must be one this process may use.
 */
static int parse_cpus(const char *s, const cpu_set_t *allowed, int *cpus)
{
	const char *want = "a list of CPUs this process may use, such as 0,2-3";
	static int ids[CPU_SETSIZE];
	cpu_set_t set;
	int n = 0, nids = cpulist_ids(s, CPU_SETSIZE, ids, CPU_SETSIZE);

	if (nids <= 0)
		bad("--cpus", want, s);
	CPU_ZERO(&set);
	for (int i = 0; i < nids; i++) {
		if (!CPU_ISSET(ids[i], allowed))
			bad("--cpus", want, s);
		CPU_SET(ids[i], &set);
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return n;
}

int main(int argc, char **argv)
{
	static int cpus[CPU_SETSIZE];
	double seconds = 20, load[3] = { NAN, NAN, NAN }, worst[2];
	size_t mibs[2] = { 1, 32 };
	int nmib = 2, ncpu = 0, worst_cpu[2] = { -1, -1 };
	long chunk_ms = 100;
	cpu_set_t allowed;
	struct utsname u;

	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		perror("host-noise: sched_getaffinity");
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = argv[i + 1];

		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			usage(stdout);
			return 0;
		}
		if (strcmp(o, "--seconds") && strcmp(o, "--mib") &&
		    strcmp(o, "--chunk-ms") && strcmp(o, "--cpus")) {
			fprintf(stderr, "host-noise: unknown option '%s'\n", o);
			usage(stderr);
			return 1;
		}
		if (!v) {
			fprintf(stderr, "host-noise: %s needs a value\n", o);
			return 1;
		}
		i++;
		if (!strcmp(o, "--seconds")) {
			char *end;

			errno = 0;
			seconds = strtod(v, &end);
			/* Fewer than two whole seconds give no 1-s CV. */
			if (errno || end == v || *end || !(seconds >= 2) ||
			    seconds > 86400)
				bad(o, "a number of seconds from 2 to 86400", v);
		} else if (!strcmp(o, "--mib")) {
			long m = long_arg(o, v, 1, 1L << 16,
					    "a power of two of MiB, 1 to 65536");

			/* The index is masked, so the size is a power of 2. */
			if (m & (m - 1))
				bad(o, "a power of two of MiB, 1 to 65536", v);
			mibs[0] = (size_t)m;
			nmib = 1;
		} else if (!strcmp(o, "--chunk-ms")) {
			chunk_ms = long_arg(o, v, 1, 1000,
					      "milliseconds from 1 to 1000");
		} else {
			ncpu = parse_cpus(v, &allowed, cpus);
		}
	}
	if (!ncpu)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[ncpu++] = c;
	uname(&u);
	getloadavg(load, 3);
	printf("host-noise: %s %s, %ld CPUs online, %d measured, load average "
	       "%.2f %.2f %.2f; %g s per working set, %ld ms chunks\n",
	       u.sysname, u.release, sysconf(_SC_NPROCESSORS_ONLN), ncpu,
	       load[0], load[1], load[2], seconds, chunk_ms);
	fflush(stdout);
	for (int m = 0; m < nmib; m++) {
		worst[m] = measure(cpus, ncpu, mibs[m], seconds,
				   (unsigned)chunk_ms, &worst_cpu[m]);
		fflush(stdout);
	}
	for (int m = 0; m < nmib; m++) {
		if (isnan(worst[m])) {
			printf("%zu MiB: fewer than two whole seconds on "
			       "every CPU: no verdict\n", mibs[m]);
			continue;
		}
		printf("%zu MiB: CV of 1-s means %.1f %% on the worst CPU "
		       "(cpu %d): ", mibs[m], worst[m], worst_cpu[m]);
		if (worst[m] <= STEADY_CV)
			printf("steady (<= %.0f %%): this host can time "
			       "a TCG guest this memory-bound\n", STEADY_CV);
		else
			printf("not steady (> %.0f %%): a timing metric "
			       "under TCG cannot be steadier than this here\n",
			       STEADY_CV);
	}
	return 0;
}
