/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference rate for the speed the host gives one vCPU right now.
 *
 * Under TCG the host these machines run on alternates, for seconds at a
 * time and on each host CPU independently, between a fast and a slow state
 * (bench/host-noise: a native memory-bound loop swings 65 <-> 115 M/s).
 * The emulator is memory-bound and follows it, so a timing metric swings
 * by x1.5-1.7 between runs of one kernel. A short loop of random byte
 * read-modify-writes over a few MiB, pure user space with its pages
 * touched beforehand, does the same work whatever the kernel under test
 * is, and its rate tells which state the vCPU was in (bench/tcg-modes:
 * correlation 0.90 with the ping-pong's rate over 240 windows).
 */
#ifndef WL_REFLOOP_H
#define WL_REFLOOP_H

#include <stddef.h>
#include <stdint.h>

struct wl_ref {
	unsigned char *buf;	/* mmap'd, 2 MiB aligned */
	size_t size;
	size_t mask;		/* size - 1; the size is a power of two */
	uint64_t x;		/* the generator, carried from call to call */
};

/*
 * Map and touch @mib MiB (a power of two), 2 MiB aligned so that its
 * layout (huge pages or not) is the same in every boot. 0, or -1 with errno.
 */
int wl_ref_init(struct wl_ref *r, long mib);
/* Accesses per second over at least @secs of the loop. */
double wl_ref_rate(struct wl_ref *r, double secs);
void wl_ref_free(struct wl_ref *r);
/*
 * Run @loops[c] for @secs on CPU @cpus[c], for c < @n, all at once (each
 * CPU's speed is its own, and the host's states are per CPU): @out[c] gets
 * its rate, or 0 when the thread could not be started or pinned.
 */
void wl_ref_rates_on(struct wl_ref *loops, const int *cpus, int n, double secs, double *out);

#endif
