/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stopping rule of `mglrulab run --until decided` (session_seq.c): when
 * a sequential session looks at its primaries, which workloads have
 * stopped, and the state that lets a resumed session continue at the right
 * look (<session>/sequential.json).
 */
#ifndef LAB_SESSION_SEQ_H
#define LAB_SESSION_SEQ_H

#include "util.h"

#include <jansson.h>

#include "session_done.h"
#include "stats.h"
#include "strbuf.h"

struct session_seq;
struct session_doc;

/*
 * The stopping rule of the session in @dir (its plan and budget,
 * design.sequential of session.json @doc), with its state from
 * <dir>/sequential.json when there is one, into *@out (NULL for a fixed-N
 * session). LAB_OK; LAB_EUSER when session.json's plan or
 * sequential.json is not valid, LAB_ELAB when sequential.json cannot be
 * written: the file and what is wrong in @err.
 */
LAB_MUST_CHECK
int session_seq_open(const char *dir, const struct session_doc *doc, struct session_seq **out,
		     struct strbuf *err);
void session_seq_free(struct session_seq *q);

/* Has @workload stopped (decided, run cap or budget)? Its remaining runs are skipped. */
int session_seq_stopped(struct session_seq *q, const char *workload);

/*
 * 1 when the run time recorded in @runs has reached the budget: every
 * workload is then marked stopped ("budget"); -1 when that state cannot
 * be written to sequential.json (said, naming the file; LAB_ELAB).
 */
LAB_MUST_CHECK
int session_seq_budget_spent(struct session_seq *q, const struct run_records *runs);

/*
 * Fair shares of the budget, so that a slow workload (a kernel build whose
 * runs take minutes on a busy machine) cannot spend what the others need
 * to reach their first look. Each workload is guaranteed budget / n (n:
 * the session's workloads); past its share a workload waits while running
 * it would eat into the unspent share of a workload still running, and
 * goes on once those have stopped (decided, capped) and left their share.
 * A pure function over @n workloads: 1 when workload @i should wait.
 */
struct budget_use {
	double spent_s;		/* run time its records account for */
	int running;		/* not stopped, and with planned runs left */
};
int budget_share_wait(const struct budget_use *u, size_t n, size_t i, double budget_s);

/*
 * Run time the records of @runs account for, those of @workload alone
 * (NULL: all). A record that does not decode is not in @runs
 * (session_done.h): it counts nothing.
 */
double session_seq_spent_s(const struct run_records *runs, const char *workload);

/*
 * May block @block (1-based; 0: a warm-up) of @workload start now? Not
 * when it lies past the next scheduled look that has not been taken: with
 * several slots, a block started beyond a look would run on after the
 * look decided, and the look's runs per kernel would not be the
 * session's.
 */
int session_seq_may_start(struct session_seq *q, const char *workload, long block);

/* The session's budget in seconds, 0 for none. */
double session_seq_budget_s(const struct session_seq *q);

/*
 * After a run of @workload was recorded (@done: every record so far): when
 * a scheduled look is due, analyse the session, print where each primary
 * stands and stop the workload when all are decided. Also called once per
 * workload on resume, to catch a look a crash interrupted. The plan, the
 * workload's run cap and a look's analysis read @doc, session.json
 * decoded, and @done's records, decoded: no tree (docs/layout.md, the walk
 * of `run --ab`, step 8). A look refuses (LAB_ELAB, said) a session whose
 * records do not decode, or do not agree with @doc as a report's runs
 * must with its session (report_validate_doc(): "runs[11].kernel: no
 * kernel named ..."). LAB_OK, or LAB_ELAB (said) when the look fails or
 * sequential.json cannot be written.
 */
LAB_MUST_CHECK
int session_seq_after_run(struct session_seq *q, const struct session_doc *doc,
			  const struct session_done *done, const char *workload);

/*
 * The line a look prints for primary result @res of the analysis, into
 * @out: "  WORKLOAD METRIC: SYMBOL [(not final)] +D % [+LO %, +HI %]...\n",
 * with the change and interval the verdict rests on (@res->change: the
 * pooled one in a session on several hosts). Names made terminal-safe.
 */
struct result_record;
void session_seq_primary_line(const struct result_record *res, struct strbuf *out);

/* The state as sequential.json has it (seq_state.h), for the report: a new reference. */
json_t *session_seq_state_json(const struct session_seq *q);

#endif
