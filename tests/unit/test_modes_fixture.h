/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The demo lab's wis_cs1 (will-it-scale context_switch1, 2 threads) under
 * icount, as measured: a session of lab.conf's demo kernels on
 * tiny-icount, 10 runs per kernel beside yield_shared and numa in the
 * other slot (2026-12-06, issue 49; the demo session the audit read is
 * gone, this one reproduces it: "?" with "about 900 runs" before the
 * cores). Each run's one-second cells of ops_per_sec, in run order: a
 * floor at 35.8k and a ceiling at 54.7k ops/s, each exact to 0.1 %, and
 * most cells between them (the guest flipped states inside the second).
 */
#ifndef TEST_MODES_FIXTURE_H
#define TEST_MODES_FIXTURE_H

#include <stddef.h>

struct wis_run {
	int seq, patched;
	double c[3];
};

static const struct wis_run wis_cs1_demo[] = {
	{ 1, 1, { 54660, 54832, 41718 } },
	{ 2, 0, { 41492, 42221, 39252 } },
	{ 7, 0, { 35840, 35836, 38008 } },
	{ 8, 1, { 38136, 35826, 35814 } },
	{ 13, 0, { 39299, 35832, 38415 } },
	{ 14, 1, { 46271, 35816, 39528 } },
	{ 19, 1, { 40693, 35818, 36248 } },
	{ 20, 0, { 42315, 35790, 38695 } },
	{ 25, 1, { 38327, 39213, 35826 } },
	{ 26, 0, { 50327, 35826, 35830 } },
	{ 31, 0, { 41669, 42632, 37523 } },
	{ 32, 1, { 38856, 37601, 38909 } },
	{ 37, 1, { 54466, 54736, 47066 } },
	{ 38, 0, { 35850, 35836, 43383 } },
	{ 43, 0, { 46844, 35842, 37879 } },
	{ 44, 1, { 38623, 35818, 35822 } },
	{ 49, 1, { 54748, 37687, 42014 } },
	{ 50, 0, { 37805, 37849, 35818 } },
	{ 55, 0, { 54677, 54532, 37527 } },
	{ 56, 1, { 54608, 46854, 35802 } },
};

#define WIS_CS1_DEMO_RUNS (sizeof(wis_cs1_demo) / sizeof(wis_cs1_demo[0]))

#endif
