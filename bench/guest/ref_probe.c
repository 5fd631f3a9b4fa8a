// SPDX-License-Identifier: GPL-2.0
/*
 * ref_probe: does a reference loop in the guest see the host's slow and
 * fast periods that yield ping-pong sees under TCG? (bench/tcg-modes)
 *
 * Two threads pinned to CPU 0 call sched_yield() in turn, as
 * yield_pingpong's mm=shared does on one CPU. Before each window of
 * `window_ms` the pair is parked on a futex and the main thread, on the
 * same CPU, runs `ref_ms` of random read-modify-write byte accesses over
 * `mib` MiB: pure user space, the same work whatever the kernel, and
 * memory-bound like the emulator itself. The two series, one value per
 * window, go to the host, which pairs each window's switch rate with the
 * reference rate measured just before it.
 */
#include "args.h"
#include "fileio.h"
#include "jsonl.h"
#include "refloop.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct param_def params[] = {
	{ "windows", PARAM_INT, "30", 2, 10000, NULL, "windows measured" },
	{ "window_ms", PARAM_INT, "300", 10, 60000, NULL, "length of one ping-pong window" },
	{ "ref_ms", PARAM_INT, "60", 1, 10000, NULL, "reference loop before each window" },
	{ "mib", PARAM_INT, "8", 1, 1024, NULL, "reference working set, MiB (a power of two)" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

static _Atomic int parked = 1, stop;
static _Atomic uint64_t yields[2];

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		wl_fail("cannot pin to CPU 0");
}

static void futex_wake_all(void)
{
	syscall(SYS_futex, &parked, FUTEX_WAKE_PRIVATE, 2, NULL, NULL, 0);
}

static void *pingpong(void *arg)
{
	int i = (int)(intptr_t)arg;

	pin_cpu0();
	while (!atomic_load(&stop)) {
		if (atomic_load(&parked)) {
			syscall(SYS_futex, &parked, FUTEX_WAIT_PRIVATE, 1, NULL, NULL, 0);
			continue;
		}
		sched_yield();
		atomic_fetch_add_explicit(&yields[i], 1, memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct wl_args a;
	long windows, mib;
	double win, ref;
	struct wl_ref rl;
	pthread_t th[2];

	wl_args_parse(&a, "ref_probe", params, "yield ping-pong windows paired with a reference loop",
		      argc, argv);
	windows = wl_arg_long(&a, "windows");
	win = wl_arg_long(&a, "window_ms") / 1000.0;
	ref = wl_arg_long(&a, "ref_ms") / 1000.0;
	mib = wl_arg_long(&a, "mib");
	if (mib & (mib - 1))
		wl_fail("--mib: expected a power of two, got %ld", mib);

	double *yr = calloc((size_t)windows, sizeof(*yr)), *rr = calloc((size_t)windows, sizeof(*rr));

	if (!yr || !rr || wl_ref_init(&rl, mib))
		wl_fail("out of memory");
	pin_cpu0();
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, pingpong, (void *)(intptr_t)i))
			wl_fail("cannot start a thread");
	atomic_store(&parked, 0);
	futex_wake_all();
	wl_sleep(1.0);	/* warm-up */
	for (long w = 0; w < windows; w++) {
		atomic_store(&parked, 1);
		wl_sleep(0.002);	/* both threads reach the futex */
		rr[w] = wl_ref_rate(&rl, ref);

		uint64_t before = atomic_load(&yields[0]) + atomic_load(&yields[1]);
		double t0 = wl_now();

		atomic_store(&parked, 0);
		futex_wake_all();
		wl_sleep(win);
		yr[w] = (double)(atomic_load(&yields[0]) + atomic_load(&yields[1]) - before) /
			(wl_now() - t0);
	}
	atomic_store(&stop, 1);
	atomic_store(&parked, 0);
	futex_wake_all();
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	jl_series("yield_windows", "switches/s", yr, (size_t)windows);
	jl_series("ref_windows", "accesses/s", rr, (size_t)windows);
	wl_ref_free(&rl);
	free(yr);
	free(rr);
	return WL_EXIT_OK;
}
