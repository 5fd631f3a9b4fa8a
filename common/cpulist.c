// SPDX-License-Identifier: GPL-2.0
#include "cpulist.h"

#include <errno.h>
#include <stdlib.h>

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int number(const char **s, long limit, long *out)
{
	char *end;

	if (**s < '0' || **s > '9')
		return -1;
	errno = 0;
	*out = strtol(*s, &end, 10);
	if (errno || *out >= limit)
		return -1;
	*s = end;
	return 0;
}

int cpulist_next(const char **s, long limit, long *lo, long *hi)
{
	const char *p = *s;

	while (blank(*p))
		p++;
	if (!*p)
		return 0;
	if (number(&p, limit, lo))
		return -1;
	*hi = *lo;
	if (*p == '-') {
		p++;
		if (number(&p, limit, hi) || *hi < *lo)
			return -1;
	}
	/* the separator goes with the item: *s is left at the next one or the end */
	while (blank(*p))
		p++;
	if (*p == ',') {
		p++;
		while (blank(*p))
			p++;
		if (!*p)
			return -1;
	} else if (*p) {
		return -1;
	}
	*s = p;
	return 1;
}

int cpulist_ids(const char *s, long limit, int *ids, int max)
{
	long lo, hi;
	int n = 0, r;

	while ((r = cpulist_next(&s, limit, &lo, &hi)) > 0) {
		for (long i = lo; i <= hi; i++) {
			if (n >= max)
				return -1;
			ids[n++] = (int)i;
		}
	}
	return r < 0 ? -1 : n;
}
