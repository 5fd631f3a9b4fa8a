// SPDX-License-Identifier: GPL-2.0
#include "refloop.h"
#include "fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int wl_ref_init(struct wl_ref *r, long mib)
{
	size_t size;

	if (mib <= 0 || (mib & (mib - 1)) || mib > 4096) {
		errno = EINVAL;
		return -1;
	}
	size = (size_t)mib << 20;
	r->buf = malloc(size);
	if (!r->buf)
		return -1;
	/* Touched now: a page fault inside the loop would time the kernel. */
	memset(r->buf, 1, size);
	r->mask = size - 1;
	r->x = 1;
	return 0;
}

double wl_ref_rate(struct wl_ref *r, double secs)
{
	uint64_t n = 0, v = r->x;
	double t0 = wl_now(), t;

	do {
		/* An LCG's high bits pick the byte: no pattern a prefetcher learns. */
		for (int i = 0; i < 20000; i++) {
			v = v * 6364136223846793005ULL + 1442695040888963407ULL;
			r->buf[(v >> 20) & r->mask]++;
		}
		n += 20000;
		t = wl_now();
	} while (t - t0 < secs);
	r->x = v;
	return (double)n / (t - t0);
}

void wl_ref_free(struct wl_ref *r)
{
	free(r->buf);
	r->buf = NULL;
}
