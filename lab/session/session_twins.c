// SPDX-License-Identifier: GPL-2.0
/* Which runs of a block start together on a pair of slots (session_twins.h). */
#include "session_twins.h"

size_t twin_steps(size_t n, int slots, int alone, struct twin_step *steps)
{
	size_t i = 0, k = 0;
	size_t width = slots >= 2 && !alone ? 2 : 1;

	while (i < n) {
		struct twin_step *st = &steps[k++];

		st->n = n - i < width ? n - i : width;
		st->run[0] = i;
		st->run[1] = st->n == 2 ? i + 1 : i;
		i += st->n;
	}
	return k;
}
