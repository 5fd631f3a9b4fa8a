// SPDX-License-Identifier: GPL-2.0
#include "median.h"
#include "sort_cmp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double wl_median(const double *x, size_t n)
{
	double *s, m;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	m = n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
	free(s);
	return m;
}
