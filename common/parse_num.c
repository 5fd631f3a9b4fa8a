// SPDX-License-Identifier: GPL-2.0
#include "parse_num.h"

#include <errno.h>
#include <stdlib.h>

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
