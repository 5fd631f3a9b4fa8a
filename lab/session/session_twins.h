/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Balanced partners ([run] partners = balanced; issue 49). Under icount a
 * run's value is a mixture of discrete emulator states, and which state it
 * lands in follows what the other slot of its host runs at the same time.
 * With each slot running blocks of its own, the partners of a block's A
 * runs and of its B runs are whatever the other slot happens to run, and a
 * shift in that mix reads as a kernel effect. So the slots of a host work
 * in pairs (2k, 2k+1), and a pair runs a block's runs two at a time, one
 * on each slot, started together: the block AB is one step (A beside B),
 * its mirror BA the next (B beside A). Every A run's partner is then the
 * same workload on B and every B run's the same workload on A: the same
 * partner mix for both kernels, by construction rather than by chance.
 *
 * Which slot takes which run: the step's first run goes on the pair's even
 * slot. The plan already alternates which kernel comes first (ABBA, BAAB),
 * so each kernel takes each slot once in every pair of blocks; swapping
 * the slots from step to step as well would undo that.
 *
 * Pure: which runs go together, nothing about threads or guests
 * (session_runs.c starts them).
 */
#ifndef LAB_SESSION_TWINS_H
#define LAB_SESSION_TWINS_H

#include <stddef.h>

/* Runs started together: indices into a block's remaining runs, in plan order. */
struct twin_step {
	size_t run[2];		/* run[0] on the pair's even slot, run[1] on its odd one */
	size_t n;		/* 2: side by side; 1: alone on the pair, nothing beside it */
};

/*
 * The steps of a block's @n remaining runs (consecutive plan entries) on
 * @slots slots that work together (1: a slot on its own, runs one at a
 * time; 2: a pair). Runs go two at a time in plan order; a run left over
 * (a warm-up, which is a block of its own; an odd remainder after a
 * resume or a dropped host) and every run of a workload that takes the
 * host alone (@alone) is a step of its own. Writes the steps to @steps
 * (room for @n) and returns how many.
 *
 * The balance is exact for blocks of two kernels (AB, BA: each run's
 * partner is its block's other kernel). With more kernels in a block
 * (ABC) the steps still take consecutive runs, (A,B) then (C) alone, and
 * the kernels' partner mixes differ.
 */
size_t twin_steps(size_t n, int slots, int alone, struct twin_step *steps);

#endif
