/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What can move a workload's figures, and what a guest can see of it
 * (issue 50: validity first). A patch changes performance through a
 * mechanism: fewer instructions, fewer cache-line transfers between CPUs,
 * shorter memory latency (NUMA distance), or time spent waiting. A
 * workload's primaries reflect some of them; a guest mode shows only some:
 *
 *   icount (TCG, guest time counted in instructions): instructions only.
 *     Every vCPU runs in one host thread, round-robin: a cache line never
 *     bounces, memory has one latency, and waiting costs what the
 *     instructions cost: a cachegrind for the whole kernel
 *     (docs/guests.md, icount). Cache-line transfers become visible once the
 *     coherence model (a plugin of its own, being built) counts them;
 *     until then, not.
 *   TCG on the host's clock: instructions and wall-clock, both through
 *     the emulator, which turns a guest's cache-line transfer into the
 *     host's at another cost, and memory latency into none: not seen.
 *   KVM: all four, as on the hardware it runs on.
 *
 * A "no change" of a guest that cannot see the claimed mechanism is not
 * an answer: the report says "cannot test here" instead.
 */
#ifndef LAB_MECHANISM_H
#define LAB_MECHANISM_H

enum mechanism {
	MECH_INSTRUCTIONS = 1 << 0,	/* instructions executed per operation */
	MECH_CACHE_LINES = 1 << 1,	/* cache-line transfers between CPUs */
	MECH_MEMORY_LATENCY = 1 << 2,	/* memory latency, NUMA distance */
	MECH_WALL_CLOCK = 1 << 3,	/* waiting, I/O, lock hold and wake-up times */
	MECH_ALL = (1 << 4) - 1,
};

/* lab.conf's spelling of the one mechanism @m: "cache-lines"; NULL: not one. */
const char *mechanism_name(unsigned m);
/* In words, for reports: "cache-line traffic". */
const char *mechanism_words(unsigned m);
/* "instructions|cache-lines|memory-latency|wall-clock": lab.conf's choices (INI_ENUM). */
#define MECHANISM_CHOICES "instructions|cache-lines|memory-latency|wall-clock"
/* The mechanism lab.conf names @s; 0: none. */
unsigned mechanism_parse(const char *s);

/*
 * The mechanisms a guest sees: @kvm (the accelerator is KVM), else TCG,
 * with @icount its clock counting instructions.
 */
unsigned mechanism_guest_sees(int kvm, int icount);
/* "TCG with icount", "TCG on the host's clock", "KVM" */
const char *mechanism_guest_mode(int kvm, int icount);

#endif
