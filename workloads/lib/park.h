/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parking a workload's tasks while the reference loop (refloop.h) runs on
 * their CPUs: the loop must measure the vCPU's speed, not share it with
 * the tasks. The measuring thread raises the park flag; each task, which
 * polls it in its loop, waits on it as a futex until it drops. The flags
 * are in memory every task sees (MAP_SHARED), and the futex is a shared
 * one, not FUTEX_PRIVATE, so tasks in other processes park too.
 */
#ifndef WL_PARK_H
#define WL_PARK_H

#include <stdatomic.h>

struct wl_ref;

struct wl_park {
	_Atomic int *park;	/* 1: tasks wait on this futex */
	_Atomic int *parked;	/* tasks waiting on it now */
	_Atomic int *stop;	/* set: the run is over, no task waits any more */
};

/* A task's side: wait while the park flag is up (or until stop). */
void wl_park_wait(const struct wl_park *p);

/* The end of the run: set stop, and wake a task still parked so it sees it. */
void wl_park_stop(const struct wl_park *p);

/*
 * The measuring side: park the @tasks tasks (waiting up to a second for
 * them), run @loops[c] on CPU @cpus[c] for c < @n for @secs into @out[c]
 * (wl_ref_rates_on()), let the tasks go and wait up to a second until
 * they all run again. 1 when every task parked in time, else 0: a task
 * that did not (a stalled vCPU) ran beside the loop, so its rates are
 * not the vCPU's alone.
 */
int wl_park_measure(const struct wl_park *p, long tasks, struct wl_ref *loops,
		    const int *cpus, int n, double secs, double *out);

#endif
