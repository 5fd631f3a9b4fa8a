// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's run records, decoded once (session_done.h).
 */
#include "session_done.h"
#include "strbuf.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * Decodes @rec, an element of d->json, after the records: kept when it
 * decodes, else counted and, the first time, said with its file
 * (runs/NNNN.json, by its seq, which session_load_runs() checked against
 * its name). The decoded record, or NULL.
 */
static const struct run_record *take(struct session_done *d, const json_t *rec)
{
	struct strbuf err = STRBUF_INIT;
	struct run_record *r;
	long long seq;
	int bad;

	ALLOC_GROW(d->recs.v, d->recs.n + 1, d->recs.alloc);
	r = &d->recs.v[d->recs.n];
	bad = run_record_decode(rec, r, &err);
	if (bad && !d->bad++) {
		/* every record here has its seq (session_load_runs(), session_record()) */
		run_record_seq(rec, &seq);
		d->why = xasprintf("runs/%04lld.json: %s", seq, sb_str(&err));
	}
	sb_release(&err);
	if (bad)
		return NULL;
	d->recs.n++;
	return r;
}

void session_done_init(struct session_done *d, json_t *runs)
{
	const json_t *rec;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->json = runs;
	json_array_foreach(runs, i, rec)
		take(d, rec);
}

const struct run_record *session_done_add(struct session_done *d, json_t *rec)
{
	/* The element lives as long as the array: its record's strings point into it. */
	json_array_append_new(d->json, rec);
	return take(d, rec);
}

void session_done_release(struct session_done *d)
{
	run_records_release(&d->recs);
	json_decref(d->json);
	free(d->why);
	memset(d, 0, sizeof(*d));
}
