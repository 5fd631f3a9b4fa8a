/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run records a running session holds (the scheduler's, session_runs.c):
 * each decoded once into a struct run_record, when session_record() made it
 * or when it was read back from runs/ on resume, and read as the struct by
 * the progress lines, the budget and the stopping rule's counts
 * (session_seq.c), and handed to a look's checks and analysis decoded
 * (report_validate_doc(), report_analyze_results()). The JSON stays
 * beside them: the records' strings point into it, and which runs are
 * done is read from it (docs/layout.md, the walk of `run --ab`, step 8).
 *
 * Not thread-safe: the scheduler holds its lock around every call.
 */
#ifndef LAB_SESSION_DONE_H
#define LAB_SESSION_DONE_H

#include <jansson.h>
#include <stddef.h>

#include "run_record.h"

struct session_done {
	/* every record, in the order it came (a hand-edited one that does not decode too) */
	json_t *json;
	/* those of @json that decode, in the same order; their strings point into @json */
	struct run_records recs;	/* recs.alloc: its room, which session_done_add() grows */
	/* how many of @json do not decode, and why the first does not ("runs/0003.json: ...") */
	size_t bad;
	char *why;
};

/*
 * @d holds @runs (an array, session_load_runs()'s; the reference is taken),
 * each element decoded once; one that does not decode is kept in @d->json
 * only, counted in @d->bad and the first said in @d->why (a look refuses
 * to analyse the session then, naming it).
 */
void session_done_init(struct session_done *d, json_t *runs);

/*
 * Appends @rec (the reference is taken) and decodes it: the decoded record,
 * valid until the next append, or NULL when it does not decode (counted as
 * session_done_init() counts one).
 */
const struct run_record *session_done_add(struct session_done *d, json_t *rec);

void session_done_release(struct session_done *d);

#endif
