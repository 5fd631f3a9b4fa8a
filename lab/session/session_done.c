// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's run records, decoded once (session_done.h).
 */
#include "session_done.h"
#include "strbuf.h"
#include "util.h"

#include <string.h>

void session_done_init(struct session_done *d, json_t *runs)
{
	d->json = runs;
	run_records_decode_valid(runs, &d->recs);
}

const struct run_record *session_done_add(struct session_done *d, json_t *rec)
{
	struct strbuf err = STRBUF_INIT;
	struct run_record *r;
	int bad;

	/* The element lives as long as the array: its record's strings point into it. */
	json_array_append_new(d->json, rec);
	ALLOC_GROW(d->recs.v, d->recs.n + 1, d->recs.alloc);
	r = &d->recs.v[d->recs.n];
	bad = run_record_decode(rec, r, &err);
	sb_release(&err);
	if (bad)
		return NULL;
	d->recs.n++;
	return r;
}

void session_done_release(struct session_done *d)
{
	run_records_release(&d->recs);
	json_decref(d->json);
	memset(d, 0, sizeof(*d));
}
