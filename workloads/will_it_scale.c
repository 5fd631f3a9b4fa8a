// SPDX-License-Identifier: GPL-2.0
/*
 * will_it_scale: will-it-scale's context_switch1 and sched_yield, as
 * threads or processes, in our own implementation of its method and
 * output format (github.com/antonblanchard/will-it-scale, main.c).
 *
 * Why: the linux-mm thread on lru_gen_use_mm() reports these two tests
 * beside the yield ping-pong, and explains why they do not move: in
 * sched_yield each task is alone on its CPU and never switches, and
 * context_switch1 leaves its pipe peer unpinned, so most switches stay on
 * one CPU. Running them shows that the lab reproduces that null result.
 *
 * Method (as will-it-scale): `tasks` tasks, task i pinned to allowed CPU
 * i mod N, each incrementing its own counter per operation:
 *   sched_yield      loop { sched_yield(); ops++; }
 *   context_switch1  a peer task (thread or process, like the test; not
 *                    pinned) echoes one byte over a pair of pipes; each
 *                    round trip is 2 operations.
 * Every second (absolute CLOCK_MONOTONIC ticks) the main task sums the
 * counters' increments and prints "min:%llu max:%llu total:%llu"; the
 * first `warmup` samples (will-it-scale: 5) are warm-up, then
 * "measurement", then `seconds` samples, then "average:%llu" (integer
 * average of the measured totals). The text is forwarded in an info line
 * and the host parses it (common/wis_parse.c). The metric ops_per_sec is
 * the median of the measured one-second samples, so that one second of
 * host interference (under TCG, a stalled vCPU thread) does not move the
 * run's value; ops_per_sec_mean is will-it-scale's average as printed (the
 * metric before the median); the samples are kept as a series.
 *
 * The host's speed beside each measured sample (ref_ms > 0, built-in tests
 * only): before each sample after warm-up the tasks are parked on a futex
 * (a context_switch1 task before its write, so its peer waits in read),
 * one thread per CPU in use runs ref_ms of the reference loop
 * (workloads/lib/refloop.h), the tasks resume and the sample lasts one
 * measured second; its printed counts are scaled to that second. Each
 * sample's total rate and the geometric mean of the CPUs' reference rates
 * go out as series (ops_per_sec_cells, ref_cells), from which the host
 * derives ops_per_sec_hostadj (docs/reports.md, "Host states").
 *
 * With --binary=PATH a real will-it-scale binary (e.g. a static
 * context_switch1_threads built from a local checkout) is run instead,
 * with -t and -s, and its stdout is parsed the same way; counters are
 * snapshotted when it prints "measurement" and when it prints "average".
 */
#include "args.h"
#include "attr_mark.h"
#include "wis_parse.h"
#include "fileio.h"
#include "jsonl.h"
#include "median.h"
#include "park.h"
#include "refloop.h"
#include "snap.h"
#include "topo.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CACHELINE 128

struct counter {
	_Atomic uint64_t ops;
	char pad[CACHELINE - sizeof(uint64_t)];
};

struct task_arg {
	struct counter *c;
	int cpu;
};

static struct counter *counters;
static _Atomic int *stop;
static _Atomic int *park;	/* 1: tasks wait on this futex (the reference loop runs) */
static _Atomic int *parked;	/* tasks waiting on it now */
static int use_processes, test_cs;
static int allowed[WL_MAX_CPUS], nallowed;

static void bump(struct counter *c, uint64_t n)
{
	atomic_store_explicit(&c->ops, atomic_load_explicit(&c->ops, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* The tasks stop while the reference loop runs (mode=processes too: park.h). */
static struct wl_park parking;

static void sched_yield_test(struct counter *c)
{
	while (!atomic_load_explicit(stop, memory_order_relaxed)) {
		if (atomic_load_explicit(park, memory_order_relaxed)) {
			wl_park_wait(&parking);
			continue;
		}
		sched_yield();
		wl_mark_unit();
		bump(c, 1);
	}
}

struct pipes {
	int fd1[2], fd2[2];
};

static void *echo_peer(void *arg)
{
	struct pipes *p = arg;
	char ch;

	/* The peer is not pinned (will-it-scale's new_task): undo inheritance. */
	wl_pin_cpus(allowed, nallowed);
	for (;;) {
		ssize_t r = read(p->fd1[0], &ch, 1);

		if (r < 0 && errno == EINTR)
			continue;
		if (r != 1 || write(p->fd2[1], &ch, 1) != 1)
			break;
	}
	return NULL;
}

static void context_switch1_test(struct counter *c)
{
	struct pipes p;
	pthread_t th;
	char ch = 0;

	if (pipe(p.fd1) || pipe(p.fd2))
		wl_fail("pipe: %s", strerror(errno));
	if (use_processes) {
		pid_t pid = fork();

		if (pid < 0)
			wl_fail("fork: %s", strerror(errno));
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			echo_peer(&p);
			_exit(0);
		}
	} else {
		if (pthread_create(&th, NULL, echo_peer, &p))
			wl_fail("pthread_create failed");
	}
	while (!atomic_load_explicit(stop, memory_order_relaxed)) {
		if (atomic_load_explicit(park, memory_order_relaxed)) {
			wl_park_wait(&parking);
			continue;
		}
		if (write(p.fd1[1], &ch, 1) != 1 || read(p.fd2[0], &ch, 1) != 1) {
			if (errno == EINTR)
				continue;
			break;
		}
		/* an op is one of the two switches of a round trip, as will-it-scale counts */
		wl_mark_unit();
		wl_mark_unit();
		bump(c, 2);
	}
	/* EOF ends the peer. */
	close(p.fd1[1]);
}

static void *task_main(void *arg)
{
	struct task_arg *ta = arg;

	wl_pin_cpu(ta->cpu);
	if (test_cs)
		context_switch1_test(ta->c);
	else
		sched_yield_test(ta->c);
	return NULL;
}

static void tick_sleep(struct timespec *next)
{
	next->tv_sec += 1;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, next, NULL) == EINTR)
		;
}

/*
 * Park the tasks, run the reference loop on each of the @n CPUs in use at
 * once, resume. Returns the geometric mean of the CPUs' rates, or 0 when a
 * task did not park within a second (the host reads 0 as "unknown").
 */
static double measure_reference(int n, struct wl_ref *loops, double secs, long tasks)
{
	double logsum = 0, rates[WL_MAX_CPUS];
	int all_parked, ok = 1;

	/* The tasks are pinned to allowed[i % nallowed]: the first n CPUs. */
	all_parked = wl_park_measure(&parking, tasks, loops, allowed, n, secs, rates);
	for (int c = 0; c < n; c++) {
		if (rates[c] > 0)
			logsum += log(rates[c]);
		else
			ok = 0;
	}
	return all_parked && ok ? exp(logsum / n) : 0;
}

static void emit_result(const struct wis_result *r, const char *text, size_t len, long tasks)
{
	double *v = calloc(r->nmeasured + 1, sizeof(*v)), median;
	struct jl j;

	if (!v)
		wl_fail("out of memory");
	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "will_it_scale_output");
	jl_strn(&j, "text", text, len);
	jl_end(&j);
	for (size_t i = 0; i < r->nmeasured; i++)
		v[i] = (double)r->measured[i].total;
	jl_series("ops_per_sec_samples", "ops/s", v, r->nmeasured);
	if (!r->has_average || !r->nmeasured)
		wl_fail("will-it-scale output has no measured samples or no average");
	median = wl_median(v, r->nmeasured);
	free(v);
	jl_metric("ops_per_sec", median, "ops/s");
	jl_metric("ops_per_sec_per_task", median / (double)tasks, "ops/s");
	jl_metric("ops_per_sec_mean", (double)r->average, "ops/s");
}

/* The reference loops of the measured samples; n = 0: none. */
struct wis_ref {
	int n;
	double secs;
	struct wl_ref loops[WL_MAX_CPUS];
};

/* The @tasks tasks, as processes (mode=processes) or threads, each pinned. */
static void start_tasks(long tasks, struct task_arg *ta, pid_t *pids, pthread_t *th)
{
	for (long i = 0; i < tasks; i++) {
		ta[i].c = &counters[i];
		ta[i].cpu = allowed[i % nallowed];
		if (use_processes) {
			fflush(stdout);
			pids[i] = fork();
			if (pids[i] < 0)
				wl_fail("fork: %s", strerror(errno));
			if (pids[i] == 0) {
				/* Peers forked by this task must die with it. */
				setpgid(0, 0);
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				task_main(&ta[i]);
				_exit(0);
			}
		} else if (pthread_create(&th[i], NULL, task_main, &ta[i])) {
			wl_fail("pthread_create failed");
		}
	}
}

/*
 * One sample: each task's operations since @prev (then updated), per
 * second of the sample's @secs; their sum, and the smallest and largest
 * in *@min and *@max (will-it-scale's line).
 */
static uint64_t sample_counts(uint64_t *prev, long tasks, double secs, uint64_t *min,
			      uint64_t *max)
{
	uint64_t sum = 0;

	for (long i = 0; i < tasks; i++) {
		uint64_t val = atomic_load(&counters[i].ops);
		/* Per second of this sample: a late wake-up must not inflate it. */
		uint64_t diff = (uint64_t)((double)(val - prev[i]) / secs + 0.5);

		if (diff < *min)
			*min = diff;
		if (diff > *max)
			*max = diff;
		sum += diff;
		prev[i] = val;
	}
	return sum;
}

/* mode=processes: each task and the peers it forked (its process group). */
static void kill_task_processes(const pid_t *pids, long tasks)
{
	for (long i = 0; i < tasks; i++) {
		kill(-pids[i], SIGKILL);
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/*
 * A measured sample: the reference (into *@ref_rate), then one second from
 * a fresh start (@prev read again). Returns how long the second really was.
 */
static double referenced_second(struct wis_ref *ref, long tasks, uint64_t *prev,
				double *ref_rate)
{
	double t0;

	*ref_rate = measure_reference(ref->n, ref->loops, ref->secs, tasks);
	for (long i = 0; i < tasks; i++)
		prev[i] = atomic_load(&counters[i].ops);
	t0 = wl_now();
	wl_sleep(1.0);
	return wl_now() - t0;
}

static int run_builtin(long tasks, long seconds, long warmup, struct wl_snap *snap,
		       const char *desc, struct wis_ref *ref)
{
	size_t csize = sizeof(struct counter) * (size_t)tasks;
	uint64_t *prev = calloc((size_t)tasks, sizeof(*prev)), total = 0;
	struct task_arg *ta = calloc((size_t)tasks, sizeof(*ta));
	pid_t *pids = calloc((size_t)tasks, sizeof(*pids));
	pthread_t *th = calloc((size_t)tasks, sizeof(*th));
	struct wis_result r;
	struct timespec next;
	char *text = NULL;
	size_t textlen = 0;
	FILE *out;
	long iterations = 0;
	double *cells = calloc((size_t)seconds, sizeof(*cells));
	double *refs = calloc((size_t)seconds, sizeof(*refs));
	size_t ncells = 0;

	counters = mmap(NULL, csize + CACHELINE, PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (counters == MAP_FAILED || !prev || !ta || !pids || !th || !cells || !refs)
		wl_fail("out of memory");
	/* The flags share one line, apart from the counters. */
	stop = (_Atomic int *)((char *)counters + csize);
	park = stop + 1;
	parked = stop + 2;
	parking = (struct wl_park){ .park = park, .parked = parked, .stop = stop };
	out = open_memstream(&text, &textlen);
	if (!out)
		wl_fail("out of memory");
	start_tasks(tasks, ta, pids, th);

	fprintf(out, "testcase:%s\nwarmup\n", desc);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (;;) {
		uint64_t sum = 0, min = UINT64_MAX, max = 0;
		double secs = 1;

		if (ref->n && iterations > warmup)
			secs = referenced_second(ref, tasks, prev, &refs[ncells]);
		else
			tick_sleep(&next);
		sum = sample_counts(prev, tasks, secs, &min, &max);
		if (ref->n && iterations > warmup)
			cells[ncells++] = (double)sum;
		fprintf(out, "min:%llu max:%llu total:%llu\n", (unsigned long long)min,
			(unsigned long long)max, (unsigned long long)sum);
		if (iterations == warmup) {
			fprintf(out, "measurement\n");
			wl_snap_before(snap, "");
		}
		if (iterations++ > warmup)
			total += sum;
		if (iterations > seconds + warmup) {
			fprintf(out, "average:%llu\n", (unsigned long long)(total / (uint64_t)seconds));
			break;
		}
	}
	wl_snap_after(snap);
	atomic_store(stop, 1);
	fclose(out);

	if (use_processes)
		kill_task_processes(pids, tasks);
	if (wis_parse(text, textlen, &r))
		wl_fail("out of memory");
	emit_result(&r, text, textlen, tasks);
	if (ref->n) {
		jl_series("ops_per_sec_cells", "ops/s", cells, ncells);
		jl_series("ref_cells", "accesses/s", refs, ncells);
	}
	wis_release(&r);
	free(text);
	free(cells);
	free(refs);
	free(prev);
	free(ta);
	free(pids);
	/* Threads blocked in pipe reads end with the process. */
	free(th);
	return 0;
}

/* Read the binary's stdout line by line, snapshotting at its phase markers. */
static int run_binary(const char *bin, long tasks, long seconds, struct wl_snap *snap)
{
	char targ[32], sarg[32], *argv[6], buf[4096];
	char *text = NULL;
	size_t textlen = 0, linestart = 0;
	int fd[2], st;
	pid_t pid;
	FILE *out;
	struct wis_result r;

	if (access(bin, X_OK))
		wl_precond("will_it_scale", "--binary=%s is not executable: %s", bin, strerror(errno));
	snprintf(targ, sizeof(targ), "%ld", tasks);
	snprintf(sarg, sizeof(sarg), "%ld", seconds);
	argv[0] = (char *)bin;
	argv[1] = "-t";
	argv[2] = targ;
	argv[3] = "-s";
	argv[4] = sarg;
	argv[5] = NULL;
	if (pipe(fd))
		wl_fail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		wl_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execv(bin, argv);
		_exit(127);
	}
	close(fd[1]);
	out = open_memstream(&text, &textlen);
	if (!out)
		wl_fail("out of memory");
	for (;;) {
		ssize_t n = read(fd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		fwrite(buf, 1, (size_t)n, out);
		fflush(out);
		/* Look at complete new lines for the phase markers. */
		for (size_t i = linestart; i < textlen; i++) {
			if (text[i] != '\n')
				continue;
			if (i - linestart == 11 && !memcmp(text + linestart, "measurement", 11))
				wl_snap_before(snap, "");
			else if (i - linestart > 8 && !memcmp(text + linestart, "average:", 8))
				wl_snap_after(snap);
			linestart = i + 1;
		}
	}
	close(fd[0]);
	fclose(out);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		wl_fail("%s exited with status %d", bin, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (wis_parse(text, textlen, &r))
		wl_fail("out of memory");
	emit_result(&r, text, textlen, tasks);
	wis_release(&r);
	free(text);
	return 0;
}

static struct wl_args args;

int main(int argc, char **argv)
{
	static const char *const desc[] = { "Context switch via pipes", "Yield" };
	struct wl_snap snap;
	long tasks, seconds, warmup;
	const char *bin;

	static struct wis_ref ref;
	long ref_mib;

	wl_args_parse(&args, "will_it_scale", will_it_scale_params, will_it_scale_summary,
		      argc, argv);
	test_cs = !strcmp(wl_arg(&args, "test"), "context_switch1");
	use_processes = !strcmp(wl_arg(&args, "mode"), "processes");
	tasks = wl_arg_long(&args, "tasks");
	seconds = wl_arg_long(&args, "seconds");
	warmup = wl_arg_long(&args, "warmup");
	bin = wl_arg(&args, "binary");
	wl_snap_init(&snap, &args);
	wl_args_info(&args);
	/* A stopped reader must not kill us with SIGPIPE mid-report. */
	signal(SIGPIPE, SIG_IGN);

	nallowed = wl_allowed_cpus(allowed, WL_MAX_CPUS);
	if (nallowed < 1)
		wl_precond("cpus", "no CPU available to this task");
	if (*bin)
		return run_binary(bin, tasks, seconds, &snap);
	ref.secs = (double)wl_arg_long(&args, "ref_ms") / 1000.0;
	ref_mib = wl_arg_long(&args, "ref_mib");
	/* One loop per CPU the tasks are pinned to, allocated and touched once. */
	for (; ref.secs > 0 && ref.n < nallowed && ref.n < tasks; ref.n++)
		if (wl_ref_init(&ref.loops[ref.n], ref_mib))
			wl_precond("ref_mib", "cannot allocate %ld MiB for the reference loop", ref_mib);
	/* Thrown away: the first reference runs 10-15 times slower (yield_pingpong.c). */
	if (ref.n)
		for (int c = 0; c < ref.n; c++)
			wl_ref_rate(&ref.loops[c], ref.secs);
	return run_builtin(tasks, seconds, warmup, &snap, desc[test_cs ? 0 : 1], &ref);
}
