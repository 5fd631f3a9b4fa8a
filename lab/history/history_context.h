/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A series' context: what must be equal for two nights to be comparable
 * (history.h), one record with its encoder, its decoder and its check,
 * and the contexts of a history by id (h->contexts, and the digest
 * cache's "contexts"). As JSON, the id is the first 12 hex digits of the
 * SHA-256 of its compact encoding with sorted keys:
 *
 *   {"host": {"hostname", "cpu", "cpus", "memory_mib", "accel"},
 *    "guest": {...} (the report's, as stored),
 *    "workload": {"type", "params"}}
 *
 * the host's members and the guest as the report stores them (a
 * memory_mib written 2048 or 2048.0 hashes as the file has it, so an id
 * does not change with the reader).
 */
#ifndef LAB_HISTORY_CONTEXT_H
#define LAB_HISTORY_CONTEXT_H

#include <jansson.h>

#include "report_view.h"

#define HISTORY_CONTEXT_ID_LEN 12

/* What the page says of a context: NULL where the context has no string. */
struct history_context {
	const char *hostname, *accel, *guest, *type;
	const json_t *params;		/* the workload's parameters; NULL: none */
};

/*
 * The context of workload @wl (NULL: none) in the report @v: new, its id
 * in @id.
 */
json_t *history_context_encode(const struct report_view *v, const struct sdoc_workload *wl,
			       char id[HISTORY_CONTEXT_ID_LEN + 1]);

/* @ctx (NULL: none) into @out, which borrows from it. */
void history_context_decode(const json_t *ctx, struct history_context *out);

/* Is @ctx an object whose id is @id? (a context read back from a file) */
int history_context_valid(const char *id, const json_t *ctx);

/* The context @id of @contexts (id -> context); NULL: none. */
const json_t *history_context_find(const json_t *contexts, const char *id);

/* @ctx as @id in @contexts, unless it has one by that id already. */
void history_context_add(json_t *contexts, const char *id, json_t *ctx);

#endif
