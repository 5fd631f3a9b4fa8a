// SPDX-License-Identifier: GPL-2.0
/*
 * yield_pingpong: context-switch cost on a shared vs a private mm.
 *
 * Why: in 6.12, lru_gen_use_mm() stores to mm->lru_gen.bitmap on every
 * context switch to a user task. When the mm is shared by threads running
 * on several CPUs, that store makes the cache line bounce between CPUs on
 * every switch; when each CPU runs its own process, the line stays local.
 * The difference between the two is the cost of the store (linux-mm,
 * "mm/mglru: skip redundant bitmap store in lru_gen_use_mm()").
 *
 * Method (as in that thread): for each CPU count K of the sweep, on each
 * of K CPUs two tasks, both pinned to that CPU, call sched_yield() in a
 * loop, so every call switches to the other one. With mm=shared all 2K
 * tasks are threads of one process (one mm across all CPUs); with
 * mm=private each CPU gets its own process with its two threads (one mm
 * per CPU, the control). After a warm-up, the loop counters are read over
 * `duration` seconds of CLOCK_MONOTONIC; switches per second per CPU is
 * the sum of both tasks' yields on a CPU per second, averaged over the K
 * CPUs.
 *
 * Repetitions inside one boot: the measured `duration` is cut into `reps`
 * back-to-back windows (each at least duration/reps long), the counters
 * read at each boundary while the tasks keep running. Each K's metric,
 * cs_per_sec_per_cpu_<K>cpu, is the median of the windows' rates, so a
 * burst of host interference (under TCG, a stalled vCPU thread) during one
 * window does not move the run's value; cs_per_sec_per_cpu_<K>cpu_mean is
 * the rate over the whole duration (the metric before reps existed; reps=1
 * makes the two equal). The window rates, the window lengths and the
 * per-CPU whole-duration rates are kept as series.
 *
 * The host's speed, measured beside it (ref_ms > 0): before each window
 * every task is parked on a futex and one thread pinned to each measured
 * CPU runs ref_ms of a memory-bound reference loop (workloads/lib/refloop.h),
 * then the tasks resume and the window starts once they are all running
 * again. Under TCG the host alternates between a fast and a slow state for
 * seconds at a time, per host CPU (and a busy host slows it too); the
 * reference rate says how fast each (window, CPU) cell could run. The cells' rates and reference rates go to
 * the host as series (cs_per_sec_per_cpu_<K>cpu_cells and ref_<K>cpu_cells,
 * window-major, K per window), and the host derives the run's
 * host-adjusted metric from them over all runs of the session
 * (docs/reports.md, "Host states"). The parking time is not measured: each
 * window still lasts duration/reps, so a run takes reps * ref_ms longer.
 *
 * Checked from inside: every task reports its pid, tid and the CPU it ran
 * on; a counter in a MAP_PRIVATE page (shared by threads, copied on write
 * by fork) is incremented by every task, so the number of distinct
 * address spaces is proved, not assumed (info "mm_check").
 */
#include "attr_mark.h"
#include "args.h"
#include "fileio.h"
#include "jsonl.h"
#include "median.h"
#include "park.h"
#include "refloop.h"
#include "snap.h"
#include "topo.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define CACHELINE 128	/* two lines: adjacent-line prefetch must not couple tasks */

/*
 * One per task, in a MAP_SHARED region that every process sees. Each slot
 * owns its cache lines: a counter sharing a line with another task's
 * counter or with the flags every task polls would add exactly the kind
 * of cross-CPU line traffic this workload exists to measure.
 */
struct task_slot {
	_Alignas(CACHELINE) _Atomic uint64_t count;
	_Atomic int ready;
	int cpu;		/* assigned */
	int ran_on;		/* sched_getcpu() after pinning */
	int pid, tid;
	uint64_t probe_seen;	/* the private-page counter seen by this task */
	char pad[CACHELINE - 40];
};

struct shared {
	_Atomic int stop;
	_Atomic int go;
	_Atomic int started;	/* tasks that incremented the probe */
	_Atomic int park;	/* 1: tasks wait on this futex (the reference loop runs) */
	_Atomic int parked;	/* tasks waiting on it now */
	struct task_slot slot[];	/* starts on its own line (_Alignas) */
};
_Static_assert(sizeof(struct task_slot) == CACHELINE, "one slot, one pair of lines");
_Static_assert(offsetof(struct shared, slot) == CACHELINE, "flags apart from counters");

static struct shared *sh;
/* MAP_PRIVATE: one copy per address space. */
static _Atomic uint64_t *probe;
static int ntasks_total;

/* The tasks stop while the reference loop runs (mm=private too: park.h). */
static struct wl_park parking;

static void *task_main(void *arg)
{
	struct task_slot *ts = arg;

	if (wl_pin_cpu(ts->cpu))
		ts->ran_on = -1;
	else
		ts->ran_on = sched_getcpu();
	ts->pid = getpid();
	ts->tid = (int)syscall(SYS_gettid);
	atomic_fetch_add(probe, 1);
	atomic_fetch_add(&sh->started, 1);
	/* Everyone has incremented before anyone reads: the read is final. */
	while (atomic_load(&sh->started) < ntasks_total && !atomic_load(&sh->stop))
		sched_yield();
	ts->probe_seen = atomic_load(probe);
	atomic_store(&ts->ready, 1);
	while (!atomic_load_explicit(&sh->go, memory_order_acquire))
		sched_yield();
	while (!atomic_load_explicit(&sh->stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&sh->park, memory_order_relaxed)) {
			wl_park_wait(&parking);
			continue;
		}
		sched_yield();
		wl_mark_unit();	/* one yield: the attribution's unit */
		/* Single writer: a plain load+store, no locked instruction. */
		atomic_store_explicit(&ts->count,
				      atomic_load_explicit(&ts->count, memory_order_relaxed) + 1,
				      memory_order_relaxed);
	}
	return NULL;
}

/* Run the tasks of slots [first, first + n) as threads of the caller. */
static int run_group(int first, int n)
{
	pthread_t *th = calloc((size_t)n, sizeof(*th));
	int i, made = 0;

	if (!th)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (pthread_create(&th[i], NULL, task_main, &sh->slot[first + i]))
			break;
		made++;
	}
	if (made < n)
		atomic_store(&sh->stop, 1);
	for (i = 0; i < made; i++)
		pthread_join(th[i], NULL);
	free(th);
	return made == n ? 0 : -EAGAIN;
}

static uint64_t sum_counts(int k, uint64_t *per_cpu)
{
	uint64_t total = 0;

	for (int c = 0; c < k; c++) {
		per_cpu[c] = atomic_load(&sh->slot[2 * c].count) +
			     atomic_load(&sh->slot[2 * c + 1].count);
		total += per_cpu[c];
	}
	return total;
}

static int distinct_pids(int n)
{
	int d = 0;

	for (int i = 0; i < n; i++) {
		int seen = 0;

		for (int k = 0; k < i && !seen; k++)
			seen = sh->slot[k].pid == sh->slot[i].pid;
		d += !seen;
	}
	return d;
}

static void report_mm_check(int k, int shared_mm)
{
	int n = 2 * k, pinned = 1, probe_ok = 1;
	long long *pids = calloc((size_t)n, sizeof(*pids)), *cpus = calloc((size_t)n, sizeof(*cpus));
	int processes = distinct_pids(n);
	double spaces = 0;
	struct jl j;

	for (int i = 0; i < n; i++) {
		int same_process = 0;

		for (int m = 0; m < n; m++)
			same_process += sh->slot[m].pid == sh->slot[i].pid;
		pids[i] = sh->slot[i].pid;
		cpus[i] = sh->slot[i].ran_on;
		pinned &= sh->slot[i].ran_on == sh->slot[i].cpu;
		/*
		 * A task sees every increment made in its address space, so an
		 * address space of m tasks contributes m times 1/m: the sum is the
		 * number of address spaces, measured rather than assumed. Each
		 * task must also see exactly the tasks of its own process.
		 */
		probe_ok &= sh->slot[i].probe_seen == (uint64_t)same_process;
		if (sh->slot[i].probe_seen)
			spaces += 1.0 / (double)sh->slot[i].probe_seen;
	}
	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "mm_check");
	jl_str(&j, "mm", shared_mm ? "shared" : "private");
	jl_int(&j, "cpus", k);
	jl_int(&j, "tasks", n);
	jl_int(&j, "processes", processes);
	jl_int(&j, "address_spaces", (long long)(spaces + 0.5));
	jl_bool(&j, "probe_consistent", probe_ok);
	jl_bool(&j, "pinned", pinned);
	jl_int_array(&j, "pids", pids, (size_t)n);
	jl_int_array(&j, "ran_on_cpu", cpus, (size_t)n);
	jl_end(&j);
	free(pids);
	free(cpus);
}

/* Switches/s/CPU of one sweep point: the run's value and the old one. */
struct k_rates {
	double median;	/* median of the windows' rates */
	double whole;	/* over all windows (their time-weighted mean) */
};

/* One sweep point's measurement: reps windows of K per-CPU counts. */
struct k_windows {
	int k;
	long reps;
	uint64_t *start, *end;	/* [w * k + c]: CPU c's count at window w's ends */
	double *t0, *t1;	/* [w]: the window's ends */
	double *ref;		/* [w * k + c]: reference rate before window w; NULL: none */
};

/*
 * Park every task, run the reference loop on each of the K CPUs at once
 * (the CPUs' states are independent, so each needs its own), resume the
 * tasks and wait until all are running again. A task that does not park
 * within a second (a stalled vCPU) leaves its CPU's reference at 0, which
 * the host reads as "state unknown" for that cell.
 */
static void measure_reference(int k, const int *cpus, struct wl_ref *loops, double secs,
			      double *out)
{
	if (!wl_park_measure(&parking, ntasks_total, loops, cpus, k, secs, out))
		for (int c = 0; c < k; c++)
			out[c] = 0;
}

/*
 * Read the counters at both ends of each of the reps windows into @m.
 * Each window lasts at least @duration / @reps from its start: deadlines
 * fixed from the start would keep the total at @duration, but a timer
 * woken late (a stalled vCPU under TCG) past several of them leaves the
 * next windows empty, rate 0, and their median is then meaningless. A
 * late wake-up lengthens its own window instead; every rate divides by its
 * window's measured length. Without the reference the windows are back to
 * back, one reading ending a window and starting the next.
 */
static void read_windows(struct k_windows *m, const int *cpus, double duration,
			 struct wl_ref *loops, double ref_secs)
{
	double len = duration / (double)m->reps, prev_t = 0;
	uint64_t *prev = NULL;
	int k = m->k;

	/*
	 * A first pass thrown away: the first reference after the tasks
	 * start ran 10-15 times slower than every later one in every run
	 * under TCG, which would make each run's first cell an outlier. The
	 * cause is not pinned down; the emulator sizing its per-vCPU TLB to
	 * recent use is a likely suspect.
	 */
	if (m->ref)
		measure_reference(k, cpus, loops, ref_secs, m->ref);

	for (long w = 0; w < m->reps; w++) {
		uint64_t *start = m->start + (size_t)w * (size_t)k, *end = m->end + (size_t)w * (size_t)k;

		if (m->ref) {
			measure_reference(k, cpus, loops, ref_secs, m->ref + (size_t)w * (size_t)k);
			prev = NULL;
		}
		if (prev) {
			memcpy(start, prev, sizeof(*start) * (size_t)k);
			m->t0[w] = prev_t;
		} else {
			sum_counts(k, start);
			m->t0[w] = wl_now();
		}
		wl_sleep(m->t0[w] + len - wl_now());
		sum_counts(k, end);
		m->t1[w] = wl_now();
		prev = end;
		prev_t = m->t1[w];
	}
}

/*
 * Rates from the windows read by read_windows(): @win (reps, mean over the
 * CPUs), @win_s (their lengths), @cells (reps * K, per CPU), @per_cpu (K,
 * over all windows) and @out.
 */
static void window_rates(const struct k_windows *m, double *win, double *win_s, double *cells,
			 double *per_cpu, struct k_rates *out)
{
	int k = m->k;
	double total_s = 0;

	for (int i = 0; i < k; i++)
		per_cpu[i] = 0;
	for (long w = 0; w < m->reps; w++) {
		const uint64_t *a = m->start + (size_t)w * (size_t)k, *b = m->end + (size_t)w * (size_t)k;
		uint64_t n = 0;

		win_s[w] = m->t1[w] - m->t0[w];
		total_s += win_s[w];
		for (int i = 0; i < k; i++) {
			n += b[i] - a[i];
			per_cpu[i] += (double)(b[i] - a[i]);
			cells[(size_t)w * (size_t)k + (size_t)i] = (double)(b[i] - a[i]) / win_s[w];
		}
		win[w] = (double)n / win_s[w] / k;
	}
	out->whole = 0;
	for (int i = 0; i < k; i++) {
		per_cpu[i] /= total_s;
		out->whole += per_cpu[i];
	}
	out->whole /= k;
	out->median = wl_median(win, (size_t)m->reps);
}

static void emit_series(const struct k_windows *m, const double *per_cpu, const double *win,
			const double *win_s, const double *cells)
{
	size_t ncells = (size_t)m->reps * (size_t)m->k;
	char name[80];

	snprintf(name, sizeof(name), "cs_per_sec_per_cpu_%dcpu_each", m->k);
	jl_series(name, "switches/s", per_cpu, (size_t)m->k);
	snprintf(name, sizeof(name), "cs_per_sec_per_cpu_%dcpu_windows", m->k);
	jl_series(name, "switches/s", win, (size_t)m->reps);
	snprintf(name, sizeof(name), "window_s_%dcpu", m->k);
	jl_series(name, "s", win_s, (size_t)m->reps);
	snprintf(name, sizeof(name), "cs_per_sec_per_cpu_%dcpu_cells", m->k);
	jl_series(name, "switches/s", cells, ncells);
	if (m->ref) {
		snprintf(name, sizeof(name), "ref_%dcpu_cells", m->k);
		jl_series(name, "accesses/s", m->ref, ncells);
	}
}

/* The run's settings, the same for every sweep point. */
struct yp_opts {
	int shared_mm;
	double warmup, duration;
	long reps;
	double ref_secs;	/* 0: no reference loop */
	struct wl_ref *loops;	/* one per CPU, when ref_secs > 0 */
};

/*
 * The tasks' processes: one child with all 2K threads (mm=shared), or K
 * children of two threads each. Their pids into @kids; 1 when a fork failed.
 */
static int fork_groups(int k, int shared_mm, pid_t *kids, int *nkids)
{
	int failed = 0, i;

	if (shared_mm) {
		pid_t pid;

		/*
		 * The timer (this process) must not share the measured mm, or its
		 * wake-ups would be switches into the shared mm too: the group
		 * runs in one child process with all 2K threads.
		 */
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			_exit(run_group(0, 2 * k) ? 1 : 0);
		}
		if (pid > 0)
			kids[(*nkids)++] = pid;
		else
			failed = 1;
	} else {
		for (i = 0; i < k && !failed; i++) {
			pid_t pid;

			fflush(stdout);
			pid = fork();
			if (pid == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				_exit(run_group(2 * i, 2) ? 1 : 0);
			}
			if (pid > 0)
				kids[(*nkids)++] = pid;
			else
				failed = 1;
		}
	}
	return failed;
}

/* Wait until every task is pinned and has read the probe: 1 when all did in time. */
static int all_ready(int k)
{
	for (int i = 0; i < 2 * k; i++) {
		double deadline = wl_now() + 30;

		while (!atomic_load(&sh->slot[i].ready) && wl_now() < deadline)
			wl_sleep(0.001);
		if (!atomic_load(&sh->slot[i].ready))
			return 0;
	}
	return 1;
}

/* Wait for the @nkids children: 1 when one did not exit with 0. */
static int reap(const pid_t *kids, int nkids)
{
	int failed = 0;

	for (int i = 0; i < nkids; i++) {
		int st;

		while (waitpid(kids[i], &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			failed = 1;
	}
	return failed;
}

/* One sweep point. Returns 0 with @out filled, or -1 on failure. */
static int run_k(int k, const int *cpus, const struct yp_opts *o, struct wl_snap *snap,
		 struct k_rates *out)
{
	size_t size = sizeof(*sh) + sizeof(struct task_slot) * 2 * (size_t)k;
	size_t ncells = (size_t)o->reps * (size_t)k;
	pid_t *kids = calloc((size_t)k, sizeof(*kids));
	struct k_windows m = {
		.k = k, .reps = o->reps,
		.start = calloc(ncells, sizeof(uint64_t)), .end = calloc(ncells, sizeof(uint64_t)),
		.t0 = calloc((size_t)o->reps, sizeof(double)),
		.t1 = calloc((size_t)o->reps, sizeof(double)),
		.ref = o->ref_secs > 0 ? calloc(ncells, sizeof(double)) : NULL,
	};
	double *win = calloc((size_t)o->reps, sizeof(*win));
	double *win_s = calloc((size_t)o->reps, sizeof(*win_s));
	double *cells = calloc(ncells, sizeof(*cells));
	double *per_cpu = calloc((size_t)k, sizeof(*per_cpu));
	int nkids = 0, failed = 0, shared_mm = o->shared_mm, i;
	char label[32];

	sh = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED || probe == MAP_FAILED || !kids || !m.start || !m.end || !m.t0 ||
	    !m.t1 || (o->ref_secs > 0 && !m.ref) || !win || !win_s || !cells || !per_cpu)
		wl_fail("out of memory");
	parking = (struct wl_park){ .park = &sh->park, .parked = &sh->parked, .stop = &sh->stop };
	ntasks_total = 2 * k;
	for (i = 0; i < 2 * k; i++)
		sh->slot[i].cpu = cpus[i / 2];

	failed = fork_groups(k, shared_mm, kids, &nkids);
	if (failed)
		atomic_store(&sh->stop, 1);

	if (!failed)
		failed = !all_ready(k);
	if (!failed) {
		atomic_store_explicit(&sh->go, 1, memory_order_release);
		wl_sleep(o->warmup);
		snprintf(label, sizeof(label), "%dcpu", k);
		wl_snap_before(snap, label);
		read_windows(&m, cpus, o->duration, o->loops, o->ref_secs);
		wl_snap_after(snap);
		window_rates(&m, win, win_s, cells, per_cpu, out);
	}
	/* A task parked when a reference was cut short must see the stop. */
	wl_park_stop(&parking);
	if (reap(kids, nkids))
		failed = 1;
	if (!failed) {
		report_mm_check(k, shared_mm);
		emit_series(&m, per_cpu, win, win_s, cells);
	}
	munmap(sh, size);
	munmap((void *)probe, 4096);
	free(kids);
	free(m.start);
	free(m.end);
	free(m.t0);
	free(m.t1);
	free(m.ref);
	free(cells);
	free(win);
	free(win_s);
	free(per_cpu);
	return failed ? -1 : 0;
}

static struct wl_args args;

int main(int argc, char **argv)
{
	static int allowed[WL_MAX_CPUS];
	static struct wl_ref loops[WL_MAX_CPUS];
	struct wl_snap snap;
	struct yp_opts o = { 0 };
	long *ks, kmax = 0, ref_mib;
	size_t nk;
	int navail, nloops = 0, measured = 0;

	wl_args_parse(&args, "yield_pingpong", yield_pingpong_params, yield_pingpong_summary,
		      argc, argv);
	o.shared_mm = !strcmp(wl_arg(&args, "mm"), "shared");
	nk = wl_arg_long_list(&args, "cpus", &ks);
	o.duration = wl_arg_seconds(&args, "duration");
	o.warmup = (double)wl_arg_long(&args, "warmup");
	o.reps = wl_arg_long(&args, "reps");
	o.ref_secs = (double)wl_arg_long(&args, "ref_ms") / 1000.0;
	ref_mib = wl_arg_long(&args, "ref_mib");
	wl_snap_init(&snap, &args);
	wl_args_info(&args);

	navail = wl_allowed_cpus(allowed, WL_MAX_CPUS);
	for (size_t i = 0; i < nk; i++)
		if (ks[i] <= navail && ks[i] > kmax)
			kmax = ks[i];
	/* One loop per CPU of the largest sweep point, allocated and touched once. */
	for (; o.ref_secs > 0 && nloops < kmax; nloops++)
		if (wl_ref_init(&loops[nloops], ref_mib))
			wl_precond("ref_mib", "cannot allocate %ld MiB for the reference loop on %d CPUs",
				   ref_mib, (int)kmax);
	o.loops = loops;
	for (size_t i = 0; i < nk; i++) {
		char name[80];
		struct k_rates rates = { 0, 0 };
		struct jl j;

		if (ks[i] > navail) {
			jl_begin(&j, WL_REC_INFO);
			jl_str(&j, "name", "cpus_capped");
			jl_int(&j, "requested", ks[i]);
			jl_int(&j, "available", navail);
			jl_end(&j);
			continue;
		}
		if (run_k((int)ks[i], allowed, &o, &snap, &rates))
			wl_fail("the ping-pong tasks for %ld CPUs did not start or did not exit cleanly",
				ks[i]);
		snprintf(name, sizeof(name), "cs_per_sec_per_cpu_%ldcpu", ks[i]);
		jl_metric(name, rates.median, "switches/s");
		snprintf(name, sizeof(name), "cs_per_sec_per_cpu_%ldcpu_mean", ks[i]);
		jl_metric(name, rates.whole, "switches/s");
		measured++;
	}
	free(ks);
	while (nloops)
		wl_ref_free(&loops[--nloops]);
	if (!measured)
		wl_precond("cpus", "no CPU count of the sweep fits the %d CPUs available", navail);
	return WL_EXIT_OK;
}
