// SPDX-License-Identifier: GPL-2.0
/*
 * coh_calib: the coherence model's calibration (docs/coherence.md). Two
 * threads pinned to two CPUs each add 1 to a counter `iters` times, with
 * a locked add (one read-modify-write, as a contended counter in the
 * kernel is), in three cases, each a measured phase of its own:
 *
 *   shared    both threads add to one counter: the line must move between
 *             the CPUs on every add, 1 transfer per add in the model;
 *   false     each thread its own counter, both in one 64-byte line (false
 *             sharing): the same traffic, 1 per add;
 *   separate  each thread its own counter, each in a line of its own: no
 *             line is written by both, 0 per add.
 *
 * Every add executes a unit mark, so the coherence plugin's transfers per
 * unit are transfers per add (units: both threads' adds). With
 * case=all the three run in that order, windows 1 to 3. Without the
 * plugin the marks do nothing and the program reports the time each case
 * took, which under icount is its instructions.
 *
 * Skew. The model counts a vCPU's time in its own instructions, so what
 * a thread's CPU does instead of adding is time the other's adds go on
 * alone: another task preempting it (the runner, woken by the last
 * case's records: 0.73 per add), or the second worker's spin on `go` when
 * round-robin ends the main thread's slice between the opening mark and
 * its store to `go` (a whole slice: 0.0007 per add instead of 0.99). So
 * both threads are real-time for a case, only the mark lies between the
 * two stores, and a case whose threads were preempted or spun inside the
 * window says so: a "window_skewed" record, on which the lab redoes the
 * coherence run (docs/coherence.md, "Calibration").
 */
#include "attr_mark.h"
#include "args.h"
#include "jsonl.h"
#include "snap.h"
#include "topo.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Each case's counters: a line of their own, so only the case's own accesses touch them. */
static struct {
	_Alignas(64) long shared;
	char pad0[56];
	_Alignas(64) long same_line[2];
	char pad1[48];
	_Alignas(64) long own0;
	char pad2[56];
	_Alignas(64) long own1;
	char pad3[56];
} c;

struct worker {
	pthread_t thread;
	int cpu;
	long iters;
	long *counter;
	int pinned;
	long late;		/* spins with the window open and no `go` yet */
	long preempted;		/* involuntary switches from before `ready` to its last add */
};

/*
 * go: set once the window is open: the second worker spins on it, so its
 * CPU never idles. opening: set at the instruction before the opening
 * mark, so a spin that sees it without `go` may be inside the window.
 */
static atomic_int go, ready, opening;

static void adds(long *p, long iters)
{
	for (long i = 0; i < iters; i++) {
		__atomic_fetch_add(p, 1, __ATOMIC_RELAXED);
		wl_mark_unit();	/* one add: the model's unit */
	}
}

/*
 * This thread's involuntary context switches: another task ran on its CPU
 * while it could have run. In the window, the other thread's adds then go
 * on alone, in lockstep as in the guest's own order (a task woken on the
 * worker's CPU, the runner forwarding the last case's records, took
 * 50-100 K instructions of a 260 K window: 0.65-0.81 per add).
 */
static long nivcsw(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/*
 * Both threads real-time (SCHED_FIFO) for a case, the worker by
 * inheritance: no ordinary task (the runner woken by the last case's
 * records, a kworker) takes their CPUs inside a window, which skewed
 * a third of the cases in tests/integration/98 under host load. 1 if
 * it took (the guest's init runs as root); else the records still say
 * when a thread was preempted.
 */
static int realtime(int on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	return !sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	long n0;

	w->pinned = !wl_pin_cpu(w->cpu) && sched_getcpu() == w->cpu;
	n0 = nivcsw();
	atomic_store(&ready, 1);
	for (;;) {
		/*
		 * `opening` before `go`: seen set, then `go` seen clear, the
		 * main thread was stopped between the two (a round-robin slice
		 * ended there) while this one spun. Read the other way round, a
		 * slice ending between this thread's own two loads would count.
		 */
		int o = atomic_load_explicit(&opening, memory_order_acquire);

		if (atomic_load_explicit(&go, memory_order_acquire))
			break;
		w->late += o;
	}
	adds(w->counter, w->iters);
	w->preempted = nivcsw() - n0;
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * One case, a measured phase. The main thread is the first worker, on the
 * first CPU; the second spins on the second CPU until the window is open.
 * Neither CPU halts while both add: a halted vCPU rejoins the model's
 * lockstep only approximately (docs/coherence.md), and the calibration
 * is meant to test the rules, not that approximation.
 */
static void run_case(const char *name, long *p0, long *p1, long iters, const int *cpus,
		     struct wl_snap *snap)
{
	struct worker w = { .cpu = cpus[1], .iters = iters, .counter = p1 };
	char metric[64];
	double t0, t1;
	int pinned0, rt;
	long n0;
	struct jl j;

	pinned0 = !wl_pin_cpu(cpus[0]) && sched_getcpu() == cpus[0];
	rt = realtime(1);
	atomic_store(&go, 0);
	atomic_store(&ready, 0);
	atomic_store(&opening, 0);
	if (pthread_create(&w.thread, NULL, work, &w))
		wl_fail("%s: cannot start the second worker", name);
	while (!atomic_load(&ready))
		sched_yield();
	wl_snap_prepare(snap, name);
	t0 = now();
	n0 = nivcsw();
	/* Nothing but the mark between the two stores: the window's only wait for the other CPU. */
	atomic_store_explicit(&opening, 1, memory_order_relaxed);
	wl_mark_open();
	atomic_store_explicit(&go, 1, memory_order_release);
	adds(p0, iters);
	n0 = nivcsw() - n0;
	pthread_join(w.thread, NULL);
	t1 = now();
	wl_snap_after(snap);
	if (rt)
		realtime(0);
	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "coh_case");
	jl_str(&j, "case", name);
	jl_int(&j, "cpu0", cpus[0]);
	jl_int(&j, "cpu1", cpus[1]);
	jl_bool(&j, "pinned", pinned0 && w.pinned);
	jl_bool(&j, "realtime", rt);
	jl_int(&j, "counter0", *p0);
	jl_int(&j, "counter1", *p1);
	jl_int(&j, "late_spins", w.late);
	jl_int(&j, "preempted0", n0);
	jl_int(&j, "preempted1", w.preempted);
	jl_end(&j);
	if (w.late || n0 || w.preempted) {
		/* The plugin's window for this case started with one thread waiting. */
		jl_begin(&j, WL_REC_INFO);
		jl_str(&j, "name", "window_skewed");
		jl_str(&j, "window", name);
		jl_int(&j, "spins", w.late);
		jl_int(&j, "preempted", n0 + w.preempted);
		jl_end(&j);
	}
	snprintf(metric, sizeof(metric), "%s_ns_per_add", name);
	jl_metric(metric, (t1 - t0) * 1e9 / (double)(2 * iters), "ns");
}

static struct wl_args args;

int main(int argc, char **argv)
{
	static int allowed[WL_MAX_CPUS];
	struct wl_snap snap;
	const char *which;
	long iters;
	int n;

	wl_args_parse(&args, "coh_calib", coh_calib_params, coh_calib_summary, argc, argv);
	which = wl_arg(&args, "case");
	iters = wl_arg_long(&args, "iters");
	wl_snap_init(&snap, &args);
	wl_args_info(&args);
	n = wl_allowed_cpus(allowed, WL_MAX_CPUS);
	if (n < 2)
		wl_precond("cpus", "two CPUs needed, %d available", n);
	if (!strcmp(which, "all") || !strcmp(which, "shared"))
		run_case("shared", &c.shared, &c.shared, iters, allowed, &snap);
	if (!strcmp(which, "all") || !strcmp(which, "false"))
		run_case("false", &c.same_line[0], &c.same_line[1], iters, allowed, &snap);
	if (!strcmp(which, "all") || !strcmp(which, "separate"))
		run_case("separate", &c.own0, &c.own1, iters, allowed, &snap);
	if (c.shared && c.shared != 2 * iters)
		wl_fail("the shared counter is %ld after 2 x %ld locked adds", c.shared, iters);
	return WL_EXIT_OK;
}
