// SPDX-License-Identifier: GPL-2.0
#include "session_plan.h"
#include "run_record.h"
#include "strbuf.h"
#include "util.h"
#include "xjson.h"

#include <limits.h>
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

json_t *plan_entry_encode(const struct planned_run *p, const char *kernel, const char *workload)
{
	/* The run record's first members: the record is this element, completed. */
	struct run_record r = { .seq = p->seq, .block = p->block, .kernel = kernel,
				.workload = workload, .warmup = p->warmup };
	json_t *e = json_object();

	run_record_encode(&r, RW_PLAN, e);
	return e;
}

/* An integer member from @min to INT_MAX. */
static int int_member(const json_t *e, const char *key, int min, int *out, size_t i,
		      struct strbuf *err)
{
	const json_t *v = json_object_get(e, key);

	if (!json_is_integer(v) || json_integer_value(v) < min ||
	    json_integer_value(v) > INT_MAX) {
		sb_addf(err, "plan[%zu].%s: expected an integer from %d, got %s", i, key, min,
			v ? xjson_type_name(v) : "nothing");
		return -1;
	}
	*out = (int)json_integer_value(v);
	return 0;
}

static int string_member(const json_t *e, const char *key, const char **out, size_t i,
			 struct strbuf *err)
{
	const json_t *v = json_object_get(e, key);

	if (!json_is_string(v)) {
		sb_addf(err, "plan[%zu].%s: expected a string, got %s", i, key,
			v ? xjson_type_name(v) : "nothing");
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

static int entry_decode(const json_t *e, size_t i, struct plan_entry *out, struct strbuf *err)
{
	const json_t *w = json_object_get(e, "warmup");

	out->json = e;
	if (!json_is_object(e)) {
		sb_addf(err, "plan[%zu]: expected an object, got %s", i, xjson_type_name(e));
		return -1;
	}
	if (int_member(e, "seq", 1, &out->seq, i, err) ||
	    int_member(e, "block", 0, &out->block, i, err) ||
	    string_member(e, "kernel", &out->kernel, i, err) ||
	    string_member(e, "workload", &out->workload, i, err))
		return -1;
	if (w && !json_is_boolean(w)) {
		sb_addf(err, "plan[%zu].warmup: expected a boolean, got %s", i, xjson_type_name(w));
		return -1;
	}
	out->warmup = json_is_true(w);
	return 0;
}

int plan_entries_decode(const json_t *plan, struct plan_entry **out, size_t *n,
			struct strbuf *err)
{
	size_t i, total = json_array_size(plan);

	*out = NULL;
	*n = 0;
	if (!json_is_array(plan)) {
		sb_addf(err, "plan: expected an array, got %s",
			plan ? xjson_type_name(plan) : "nothing");
		return -1;
	}
	*out = xcalloc(total ? total : 1, sizeof(**out));
	for (i = 0; i < total; i++)
		if (entry_decode(json_array_get(plan, i), i, &(*out)[i], err)) {
			free(*out);
			*out = NULL;
			return -1;
		}
	*n = total;
	return 0;
}
