// SPDX-License-Identifier: GPL-2.0
#include "refloop.h"
#include "fileio.h"
#include "topo.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The x86-64 PMD size: the unit of a transparent huge page. */
#define REF_ALIGN ((size_t)2 << 20)

int wl_ref_init(struct wl_ref *r, long mib)
{
	size_t size;

	if (mib <= 0 || (mib & (mib - 1)) || mib > 4096) {
		errno = EINVAL;
		return -1;
	}
	size = (size_t)mib << 20;
	/*
	 * Aligned to 2 MiB, not malloc'd: malloc's buffer plus its header
	 * page is not aligned, so how many huge pages it gets depends on
	 * where ASLR puts it. The buffer is part of the workload's mm, and
	 * MGLRU aging walks it: its layout must not change between boots.
	 * (It was not what moved mglru_aging's per-boot level.)
	 */
	{
		size_t span = size + REF_ALIGN, head;
		unsigned char *m = mmap(NULL, span, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			return -1;
		head = (REF_ALIGN - (uintptr_t)m % REF_ALIGN) % REF_ALIGN;
		if (head)
			munmap(m, head);
		if (REF_ALIGN - head)
			munmap(m + head + size, REF_ALIGN - head);
		r->buf = m + head;
		r->size = size;
	}
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
	if (r->buf)
		munmap(r->buf, r->size);
	r->buf = NULL;
}

struct ref_job {
	struct wl_ref *loop;
	int cpu;
	double secs, rate;
};

static void *ref_thread(void *arg)
{
	struct ref_job *j = arg;

	j->rate = wl_pin_cpu(j->cpu) ? 0 : wl_ref_rate(j->loop, j->secs);
	return NULL;
}

void wl_ref_rates_on(struct wl_ref *loops, const int *cpus, int n, double secs, double *out)
{
	struct ref_job jobs[WL_MAX_CPUS];
	pthread_t th[WL_MAX_CPUS];
	int started[WL_MAX_CPUS];

	if (n > WL_MAX_CPUS)
		n = WL_MAX_CPUS;
	for (int c = 0; c < n; c++) {
		jobs[c] = (struct ref_job){ &loops[c], cpus[c], secs, 0 };
		started[c] = !pthread_create(&th[c], NULL, ref_thread, &jobs[c]);
	}
	for (int c = 0; c < n; c++) {
		if (started[c])
			pthread_join(th[c], NULL);
		out[c] = jobs[c].rate;
	}
}
