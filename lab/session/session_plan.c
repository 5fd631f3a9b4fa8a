// SPDX-License-Identifier: GPL-2.0
#include "session_plan.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* splitmix64: tiny, seedable, identical on every machine. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void push(struct session_plan *p, size_t *alloc, int block, int kernel, int workload,
		 int warmup)
{
	ALLOC_GROW(p->runs, p->n + 1, *alloc);
	p->runs[p->n] = (struct planned_run){ (int)p->n + 1, block, kernel, workload, warmup };
	p->n++;
}

void session_plan_make(struct session_plan *p, int nr_kernels, int nr_workloads,
		       const int *runs, int warmups, uint64_t seed)
{
	uint64_t rng = seed ^ 0x6d676c72756c6162ULL;	/* "mglrulab" */
	struct strbuf order = STRBUF_INIT;
	size_t alloc = 0;
	int *first = xcalloc((size_t)nr_workloads, sizeof(*first));
	int max_runs = 0, shown = 0;

	/* The order string shows the blocks of the (first) longest workload. */
	for (int w = 0; w < nr_workloads; w++)
		if (runs[w] > max_runs) {
			max_runs = runs[w];
			shown = w;
		}

	memset(p, 0, sizeof(*p));
	/* Warm-ups first, in kernel order: they only settle the host. */
	for (int r = 0; r < warmups; r++)
		for (int w = 0; w < nr_workloads; w++)
			for (int k = 0; k < nr_kernels; k++)
				push(p, &alloc, 0, k, w, 1);
	if (nr_kernels == 1) {
		for (int r = 0; r < max_runs; r++)
			for (int w = 0; w < nr_workloads; w++)
				if (r < runs[w])
					push(p, &alloc, r + 1, 0, w, 0);
		sb_adds(&order, "A");
		goto out;
	}
	for (int r = 0; r < max_runs; r++) {
		for (int w = 0; w < nr_workloads; w++) {
			if (r >= runs[w])
				continue;
			/*
			 * Even blocks draw ABBA vs BAAB; odd blocks mirror the
			 * previous one, completing the pair. An odd last block
			 * keeps its draw.
			 */
			if (r % 2 == 0)
				first[w] = (int)(next_rand(&rng) >> 63);
			else
				first[w] = !first[w];
			int a = first[w];
			push(p, &alloc, r + 1, a, w, 0);
			push(p, &alloc, r + 1, !a, w, 0);
			if (w == shown)
				sb_adds(&order, a ? "BA" : "AB");
		}
		if (r % 2 == 1 && r + 1 < max_runs)
			sb_addc(&order, ' ');
	}
out:
	p->order = sb_detach(&order);
	free(first);
}

void session_plan_release(struct session_plan *p)
{
	free(p->runs);
	free(p->order);
	memset(p, 0, sizeof(*p));
}
