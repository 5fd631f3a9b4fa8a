/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The median of a run's inner repetitions (yield_pingpong's windows,
 * will_it_scale's one-second samples, mglru_aging's generations): the
 * number a workload reports, so that a burst of host interference during
 * part of a run does not move it (workloads/README.md).
 *
 * The same definition as the lab's stats_median() (lab/stats/stats.h): the
 * middle value, or the mean of the two middle values for an even count;
 * tests/unit/test_wl_median.c holds them to each other. It is not that
 * function because the guest programs cannot link lab/lib/util.c, whose
 * allocators and terminal output belong to the host.
 */
#ifndef WL_MEDIAN_H
#define WL_MEDIAN_H

#include <stddef.h>

/*
 * Median of @n values (NaN-free); @x is not modified. NaN for n == 0 or
 * when the copy cannot be allocated (the metric is then written as null
 * and the host records it as not a finite number).
 */
double wl_median(const double *x, size_t n);

#endif
