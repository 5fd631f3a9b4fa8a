// SPDX-License-Identifier: GPL-2.0
/*
 * One sequential look of a large session, timed and its allocations
 * counted (bench/look-bench builds and runs it; see there).
 *
 *   look_bench SESSION_JSON RUNS_JSON DIR REPEAT
 *
 * SESSION_JSON is a session.json of `run --until decided` whose first
 * look is due once RUNS_JSON (an array of run records) is recorded; DIR
 * an empty folder for sequential.json. Each of REPEAT looks is
 * session_seq_after_run() on a fresh state, as the scheduler calls it
 * after the run that completes the look's block. Printed: the median
 * wall time of a look, and the allocations (malloc, calloc, realloc)
 * and bytes asked for during one, counted by the malloc below
 * (interposed: every library's allocations count, jansson's too).
 * Built with -DOLD_LOOK against the objects of a tree whose
 * session_seq_after_run() still takes session.json's tree.
 */
#include "session_doc.h"
#include "session_done.h"
#include "session_seq.h"
#include "util.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

static size_t nallocs, nbytes;

void *malloc(size_t n)
{
	nallocs++;
	nbytes += n;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	nallocs++;
	nbytes += n * size;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	nallocs++;
	nbytes += n;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	json_error_t jerr;
	json_t *ctx, *runs;
	struct session_doc doc;
	struct session_done done;
	struct strbuf err = STRBUF_INIT;
	int repeat;
	double *t;
	size_t allocs = 0, bytes = 0;
	char *state;

	if (argc != 5) {
		fprintf(stderr, "usage: look_bench SESSION_JSON RUNS_JSON DIR REPEAT\n");
		return 2;
	}
	repeat = atoi(argv[4]);
	ctx = json_load_file(argv[1], 0, &jerr);
	runs = json_load_file(argv[2], 0, &jerr);
	if (!ctx || !runs || repeat < 1) {
		fprintf(stderr, "look_bench: %s\n", jerr.text);
		return 2;
	}
	if (session_doc_decode(ctx, &doc, &err)) {
		fprintf(stderr, "look_bench: %s: %s\n", argv[1], sb_str(&err));
		return 2;
	}
	session_done_init(&done, runs);
	if (done.bad) {
		fprintf(stderr, "look_bench: %s\n", done.why);
		return 2;
	}
	state = xasprintf("%s/sequential.json", argv[3]);
	t = xcalloc((size_t)repeat, sizeof(*t));
	lab_quiet = 1;
	for (int i = 0; i < repeat; i++) {
		struct session_seq *q;
		const char *w = sdoc_workload_at(&doc, 0)->name;
		size_t a0, b0;
		double t0;
		int r;

		unlink(state);
		if (session_seq_open(argv[3], ctx, &q, &err) || !q) {
			fprintf(stderr, "look_bench: %s\n", sb_str(&err));
			return 2;
		}
		a0 = nallocs;
		b0 = nbytes;
		t0 = now();
#ifdef OLD_LOOK
		r = session_seq_after_run(q, ctx, &doc, &done, w);
#else
		r = session_seq_after_run(q, &doc, &done, w);
#endif
		t[i] = now() - t0;
		allocs = nallocs - a0;
		bytes = nbytes - b0;
		session_seq_free(q);
		if (r) {
			fprintf(stderr, "look_bench: the look failed\n");
			return 1;
		}
	}
	qsort(t, (size_t)repeat, sizeof(*t), cmp_double);
	printf("look of %zu runs: median %.1f ms (min %.1f, max %.1f, %d looks); "
	       "%zu allocations, %.1f MiB asked for\n", done.recs.n, 1e3 * t[repeat / 2],
	       1e3 * t[0], 1e3 * t[repeat - 1], repeat, allocs, (double)bytes / 1048576);
	free(t);
	free(state);
	session_done_release(&done);
	session_doc_release(&doc);
	json_decref(ctx);
	sb_release(&err);
	return 0;
}
