/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qsort() comparators for plain numbers, one copy for the lab and the
 * guest programs: ascending, and 0 only for equal values (NaN-free input).
 */
#ifndef COMMON_SORT_CMP_H
#define COMMON_SORT_CMP_H

/* Ascending order of doubles. */
int cmp_double(const void *a, const void *b);
/* Ascending order of longs. */
int cmp_long(const void *a, const void *b);

#endif
