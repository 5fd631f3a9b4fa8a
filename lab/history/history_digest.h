/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report's digest: what mglrulab history takes from one report.json,
 * and all it takes, typed (history_digest.c has the one decoder and the
 * one encoder). The digest cache (history_cache.c) keeps it as JSON, so a
 * report read and a report found in the cache give the same series:
 *
 *   {"id", "created", "host", "kernels", "runs", "failed",
 *    "counts": {"kernel\nworkload": [ok runs, failed runs]},
 *    "nights": [[context id, line, kernel, workload, metric, better,
 *                unit, primary, "values"], ...]}
 *
 * one night per series the session has a night on, in the order the runs
 * first reach them (which orders the series of the page), with the runs'
 * values in run order: as text, each the shortest "%.15g" to "%.17g" that
 * reads back as the same double, one space apart (a third of the size of
 * JSON reals, and no JSON value per run to parse and free).
 */
#ifndef LAB_HISTORY_DIGEST_H
#define LAB_HISTORY_DIGEST_H

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"
#include "util.h"

/* One session's runs of (kernel, workload): "counts" in the file. */
struct digest_count {
	char *kernel, *workload;	/* the key is "kernel\nworkload" */
	size_t ok, failed;
};

/* One night: the session's values of one series. */
struct digest_night {
	char *ctx;			/* the context id (history.h's contexts) */
	char *line, *kernel, *workload, *metric, *unit;
	int better;			/* 1 higher, 0 lower, -1 undeclared */
	int primary;
	double *v;			/* the runs that gave a value, finite */
	size_t n, alloc;
};

struct history_digest {
	char *id, *created;
	json_t *host, *kernels;		/* references; NULL: none */
	size_t runs, failed;		/* the session's non-warm-up runs */
	struct digest_count *counts;
	size_t ncounts, calloc;
	struct digest_night *nights;
	size_t nnights, nalloc;
};

/*
 * @j into @d (zeroed first). Untrusted (a cache entry): every member is
 * checked for its type and range, and the first that is wrong is named
 * in @err ("nights[2][5]: expected -1, 0 or 1, got 7"); -1 then, with @d
 * released. 0 when it decodes.
 */
LAB_MUST_CHECK
int history_digest_decode(const json_t *j, struct history_digest *d, struct strbuf *err);
/* @d as the cache writes it (the format above); dies on OOM. */
json_t *history_digest_encode(const struct history_digest *d);
void history_digest_release(struct history_digest *d);

/* A new night and count at the end of @d's arrays (zeroed; better -1). */
struct digest_night *history_digest_add_night(struct history_digest *d);
struct digest_count *history_digest_add_count(struct history_digest *d);

#endif
