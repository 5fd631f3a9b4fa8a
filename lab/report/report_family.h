/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One measurement, several metrics (report_family.c, issue 50): a
 * metric's raw value "x", its host-adjusted "x_hostadj" and its
 * whole-duration "x_mean" are forms of one measurement, which the
 * report's warnings and geometric means count once; preconditions
 * (the size a workload set up, such as rss_before_mib) are not
 * performance and stay out of geometric means.
 */
#ifndef LAB_REPORT_FAMILY_H
#define LAB_REPORT_FAMILY_H

#include <stddef.h>

/* The length of @name without its form's suffix ("_hostadj", "_mean"). */
size_t metric_family_stem_len(const char *name);

/* 1 when @a and @b are forms of one measurement. */
int metric_family_same(const char *a, const char *b);

/*
 * Which form @name is, in the order a geometric mean prefers them
 * after a declared primary: 0 the raw value, 1 "_hostadj", 2 "_mean".
 */
int metric_family_form(const char *name);

/* 0 for a precondition, which no geometric mean averages; 1 otherwise. */
int metric_in_geomean(const char *name);

#endif
