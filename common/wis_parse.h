/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for will-it-scale's output (main.c of will-it-scale):
 *
 *   testcase:Context switch via pipes
 *   warmup
 *   min:%llu max:%llu total:%llu      one line per second, all tasks
 *   ...
 *   measurement                       after WARMUP_ITERATIONS samples
 *   min:%llu max:%llu total:%llu
 *   ...
 *   average:%llu                      total of measured samples / -s
 *
 * Our own implementation (workloads/will_it_scale.c) prints the same
 * text, and a real will-it-scale binary's stdout is parsed the same way.
 * Pure C, no lab dependencies (the guest links it). Untrusted input:
 * unknown lines are counted, sample arrays are bounded.
 */
#ifndef LAB_COUNTERS_WIS_H
#define LAB_COUNTERS_WIS_H

#include "must_check.h"

#include <stddef.h>
#include <stdint.h>

#define WIS_MAX_SAMPLES 100000

struct wis_sample {
	uint64_t min, max, total;
};

struct wis_result {
	char testcase[128];
	struct wis_sample *warmup, *measured;
	size_t nwarmup, nmeasured;
	int has_warmup_marker, has_measurement_marker;
	int has_average;
	uint64_t average;	/* as printed */
	size_t bad_lines;
	int truncated;		/* last line had no newline */
};

/* 0, or -1 when out of memory. */
LAB_MUST_CHECK
int wis_parse(const char *text, size_t len, struct wis_result *r);
void wis_release(struct wis_result *r);
/*
 * Mean of the measured totals (ops/s with one-second samples), or -1 when
 * nothing was measured.
 */
double wis_mean(const struct wis_result *r);

#endif
