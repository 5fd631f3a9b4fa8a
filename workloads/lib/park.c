// SPDX-License-Identifier: GPL-2.0
#include "park.h"
#include "refloop.h"
#include "fileio.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

void wl_park_wait(const struct wl_park *p)
{
	atomic_fetch_add(p->parked, 1);
	while (atomic_load(p->park) && !atomic_load(p->stop))
		syscall(SYS_futex, (int *)p->park, FUTEX_WAIT, 1, NULL, NULL, 0);
	atomic_fetch_sub(p->parked, 1);
}

void wl_park_stop(const struct wl_park *p)
{
	atomic_store(p->stop, 1);
	atomic_store(p->park, 0);
	syscall(SYS_futex, (int *)p->park, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

int wl_park_measure(const struct wl_park *p, long tasks, struct wl_ref *loops,
		    const int *cpus, int n, double secs, double *out)
{
	double deadline = wl_now() + 1;
	int all_parked;

	atomic_store(p->park, 1);
	while (!(all_parked = atomic_load(p->parked) == tasks) && wl_now() < deadline)
		wl_sleep(0.0005);
	wl_ref_rates_on(loops, cpus, n, secs, out);
	atomic_store(p->park, 0);
	syscall(SYS_futex, (int *)p->park, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	deadline = wl_now() + 1;
	while (atomic_load(p->parked) && wl_now() < deadline)
		wl_sleep(0.0005);
	return all_parked;
}
