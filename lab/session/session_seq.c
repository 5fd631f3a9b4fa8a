// SPDX-License-Identifier: GPL-2.0
/*
 * `run --until decided`: the stopping rule of a sequential session.
 *
 * The plan is made for the run cap (--max-runs); after every scheduled look
 * (stats.h: stats_seq_*; a look is due when a workload's block number
 * reaches min_runs, min_runs + step, ...) the session analyses what it has
 * exactly as the final report does (report_analyze_results(), the
 * analysis of report_analyze_view() without the report, of the session's
 * document and its records, each decoded once) and stops a
 * workload once every one of its primary metrics is decided. Why the
 * verdicts stay valid under this optional stopping is the statistics'
 * business (repeated confidence intervals with alpha spending, see
 * stats.h), not this file's: here only "when to look" and "what to skip".
 *
 * The state lives in <session>/sequential.json, rewritten atomically after
 * every look, so a resumed session skips the workloads that already
 * stopped and evaluates a look that a crash interrupted before it runs on.
 * The budget is the run time recorded in the run records (boot, workload
 * and host time of every run, over every invocation), so a resumed session
 * spends only what is left.
 */
#include "session_seq.h"
#include "xjson.h"
#include "report.h"
#include "report_result.h"
#include "report_view.h"
#include "run_record.h"
#include "escape.h"
#include "fsutil.h"
#include "session.h"
#include "session_doc.h"
#include "session_plan.h"
#include "seq_state.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct session_seq {
	char *dir;			/* <session> */
	char *path;			/* <session>/sequential.json */
	struct seq_state state;		/* sequential.json (seq_state.h) */
	struct stats_seq_plan plan;
	double budget_s;		/* 0: none */
	struct seq_placements placement;	/* a bisection's probe; n 0: none */
	size_t spent_runs;		/* records spent_cache covers */
	double spent_cache;
};

static LAB_MUST_CHECK int save(struct session_seq *q);
static int save_quiet(struct session_seq *q);

/*
 * A session the budget stopped, resumed with a larger one (run --resume
 * --budget): the workloads the budget stopped run on from their next
 * look. Stopping for the budget is optional stopping, which the alpha
 * spending allows at any look; so is going on. 1 when the state changed.
 */
static int reopen_after_budget(struct session_seq *q)
{
	struct seq_state *st = &q->state;

	/* spent_s NaN (not set) compares as not reached. */
	if (st->budget_spent != 1 || (q->budget_s && st->spent_s >= q->budget_s))
		return 0;
	for (size_t i = 0; i < st->nw; i++)
		if (st->w[i].why == SEQ_WHY_BUDGET) {
			st->w[i].stopped = 0;
			st->w[i].why = SEQ_WHY_NONE;
		}
	st->budget_spent = 0;
	if (!lab_quiet)
		fprintf(stderr, "budget raised to %.0f s: the workloads it stopped go on\n", q->budget_s);
	return 1;
}

int session_seq_open(const char *dir, const struct session_doc *doc, struct session_seq **out,
		     struct strbuf *err)
{
	struct input_seq_plan in;
	struct session_seq *q;
	json_error_t jerr;
	json_t *j;
	int r;

	*out = NULL;
	q = xcalloc(1, sizeof(*q));
	/* the plan as the analysis reads it: the looks' levels are the report's */
	input_seq_plan_from_doc(&doc->design.sequential, &in);
	r = report_seq_plan(&in, &q->plan, &q->budget_s);
	if (r <= 0) {
		free(q);
		if (!r)
			return LAB_OK;	/* a fixed-N session */
		sb_addf(err, "%s/session.json: design.sequential is not a valid plan", dir);
		return LAB_EUSER;
	}
	q->dir = xstrdup(dir);
	q->path = xasprintf("%s/sequential.json", dir);
	seq_state_init(&q->state);
	if (seq_placements_decode(doc->design.sequential.placement, &q->placement, err)) {
		sb_addf(err, " (in %s/session.json)", dir);
		session_seq_free(q);
		return LAB_EUSER;
	}
	if (path_exists(q->path)) {
		struct strbuf why = STRBUF_INIT;

		j = json_load_file(q->path, 0, &jerr);
		if (!j || seq_state_decode(j, &q->state, &why)) {
			sb_addf(err, "%s: %s: the stopping rule's state of this session is unreadable, "
				"so it cannot run on", q->path, j ? sb_str(&why) : jerr.text);
			sb_release(&why);
			json_decref(j);
			session_seq_free(q);
			return LAB_EUSER;
		}
		sb_release(&why);
		json_decref(j);
	}
	if (reopen_after_budget(q) && save_quiet(q)) {
		sb_addf(err, "cannot record the raised budget in %s: %s", q->path, strerror(errno));
		session_seq_free(q);
		return LAB_ELAB;
	}
	*out = q;
	return LAB_OK;
}

void session_seq_free(struct session_seq *q)
{
	if (!q)
		return;
	seq_state_release(&q->state);
	seq_placements_release(&q->placement);
	free(q->dir);
	free(q->path);
	free(q);
}

int session_seq_stopped(struct session_seq *q, const char *workload)
{
	const struct seq_workload *w = seq_state_find(&q->state, workload);

	return w && w->stopped;
}

/* sequential.json written: 0, or -1 with errno. */
static int save_quiet(struct session_seq *q)
{
	json_t *j = seq_state_encode(&q->state);
	int r = session_write_json(q->path, j);

	json_decref(j);
	return r;
}

static int save(struct session_seq *q)
{
	if (save_quiet(q))
		return lab_error("cannot write %s: %s", q->path, strerror(errno));
	return LAB_OK;
}

/* Seconds of run time the records of @runs account for (every invocation). */
double session_seq_spent_s(const struct run_records *runs, const char *workload)
{
	double total = 0;

	for (size_t i = 0; i < runs->n; i++) {
		const struct run_timings *t = &runs->v[i].timings;
		const double v[] = { t->boot_s, t->workload_s, t->host_overhead_s };

		if (workload && strcmp(runs->v[i].workload, workload))
			continue;
		/* One at a time, in this order: the sum is the one it always was. */
		for (size_t k = 0; k < ARRAY_SIZE(v); k++)
			if (isfinite(v[k]) && v[k] > 0)
				total += v[k];
	}
	return total;
}

int budget_share_wait(const struct budget_use *u, size_t n, size_t i, double budget_s)
{
	double share, total = 0, reserved = 0;

	if (budget_s <= 0 || i >= n || !n)
		return 0;
	share = budget_s / (double)n;
	if (u[i].spent_s < share)
		return 0;
	for (size_t j = 0; j < n; j++) {
		total += u[j].spent_s;
		if (j != i && u[j].running && u[j].spent_s < share)
			reserved += share - u[j].spent_s;
	}
	return reserved > 0 && total + reserved >= budget_s;
}

double session_seq_budget_s(const struct session_seq *q)
{
	return q->budget_s;
}

int session_seq_budget_spent(struct session_seq *q, const struct run_records *runs)
{
	double spent;

	/* Asked before every planned run: sum the records only when they change. */
	if (runs->n != q->spent_runs) {
		q->spent_cache = session_seq_spent_s(runs, NULL);
		q->spent_runs = runs->n;
	}
	spent = q->spent_cache;
	struct seq_state *st = &q->state;
	int changed = 0;

	if (!q->budget_s || spent < q->budget_s)
		return 0;
	for (size_t i = 0; i < st->nw; i++)
		if (!st->w[i].stopped) {
			st->w[i].stopped = 1;
			st->w[i].why = SEQ_WHY_BUDGET;
			changed = 1;
		}
	if (changed || st->budget_spent != 1) {
		st->budget_spent = 1;
		st->spent_s = spent;
		if (save(q))
			return -1;
	}
	return 1;
}

/*
 * The highest block of @workload with a recorded run, and in *@complete
 * whether every run of it and of the blocks before it is recorded: with
 * several slots blocks end out of order, and a look must not be taken
 * while an earlier block is still running.
 */
static long last_block(const struct session_doc *doc, const struct run_records *runs,
		       const char *workload, int *complete)
{
	struct plan_entry *plan = NULL;
	struct strbuf err = STRBUF_INIT;
	unsigned char *have = NULL;
	size_t i, n = 0;
	long top = 0;

	for (i = 0; i < runs->n; i++)
		if (!strcmp(runs->v[i].workload, workload) && !runs->v[i].warmup)
			top = runs->v[i].block > top ? runs->v[i].block : top;
	/* session_run_plan() decoded the plan before the first run: it decodes. */
	*complete = top > 0 && !plan_entries_decode(doc->plan, &plan, &n, &err);
	if (*complete) {
		have = xcalloc(n + 2, 1);
		for (i = 0; i < runs->n; i++)
			if (runs->v[i].seq >= 1 && (size_t)runs->v[i].seq <= n)
				have[runs->v[i].seq] = 1;
	}
	for (i = 0; *complete && i < n; i++) {
		if (strcmp(plan[i].workload, workload) || plan[i].block < 1 || plan[i].block > top)
			continue;
		*complete &= plan[i].seq >= 1 && (size_t)plan[i].seq <= n && have[plan[i].seq];
	}
	free(have);
	free(plan);
	sb_release(&err);
	return top;
}

int session_seq_may_start(struct session_seq *q, const char *workload, long block)
{
	struct seq_workload *w = seq_state_workload(&q->state, workload);
	size_t next;

	if (block < 1)
		return 1;	/* a warm-up */
	next = w->look_block < 1 ? stats_seq_runs_at(&q->plan, 1) :
	       stats_seq_runs_at(&q->plan, stats_seq_look_of(&q->plan, (size_t)w->look_block) + 1);
	return !next || (size_t)block <= next;
}

void session_seq_primary_line(const struct result_record *res, struct strbuf *sb)
{
	/* The change the verdict rests on: the pooled one on several hosts. */
	const struct result_change *c = &res->change;
	enum stats_verdict v = res->verdict;

	/* Names come from the session files: nothing raw reaches the terminal. */
	sb_adds(sb, "  ");
	sb_add_text_safe(sb, res->workload);
	sb_addc(sb, ' ');
	sb_add_text_safe(sb, res->metric);
	sb_addf(sb, ": %s", verdict_symbol(res->verdict_id ? res->verdict_id : "invalid"));
	if (!res->final && v != VERDICT_INCONCLUSIVE)
		sb_adds(sb, " (not final)");
	if (isfinite(c->delta_pct))
		sb_addf(sb, " %+.1f %%", c->delta_pct);
	if (isfinite(c->lo) && isfinite(c->hi))
		sb_addf(sb, " [%+.1f %%, %+.1f %%]", 100 * (c->lo - 1), 100 * (c->hi - 1));
	/* An estimate past a few thousand runs says only "not with this noise". */
	if (v == VERDICT_INCONCLUSIVE && res->runs_needed > 5000)
		sb_adds(sb, ", more than 5000 runs per kernel would be needed at this noise");
	else if (v == VERDICT_INCONCLUSIVE && res->runs_needed > 0)
		sb_addf(sb, ", about %ld runs per kernel might decide", res->runs_needed);
	sb_addc(sb, '\n');
}

static void print_primary(const struct result_record *res)
{
	struct strbuf sb = STRBUF_INIT;

	session_seq_primary_line(res, &sb);
	fputs(sb_str(&sb), stderr);
	sb_release(&sb);
}

/*
 * A bisection's probe: 1 when @res is a listed primary and its interval
 * (the one its verdict rests on) lies wholly on one side of its midpoint,
 * said on stderr; 0 when listed and not placed; -1 when not listed.
 */
static int placed(const struct session_seq *q, const struct result_record *res)
{
	for (size_t i = 0; i < q->placement.n; i++) {
		const struct seq_placement *p = &q->placement.v[i];
		int side;

		if (strcmp(p->workload, res->workload) || strcmp(p->metric, res->metric))
			continue;
		side = stats_side_of_midpoint(res->change.lo, res->change.hi, p->midpoint);
		if (side && !lab_quiet)
			term_printf(stderr, "    placed: %s on the %s side of the midpoint %+.1f%%\n",
				    res->metric, side < 0 ? "baseline's" : "series end's",
				    100 * (p->midpoint - 1));
		return side != 0;
	}
	return -1;
}

/*
 * Analyse the session as it stands and decide whether @workload's primaries
 * are all decided. Returns 1 when they are, 2 when a bisection's probe has
 * placed every primary it lists (and at least one), 0 when neither, -1 on
 * error.
 */
static int look(struct session_seq *q, const struct session_doc *doc,
		const struct session_done *done, const char *workload, long block)
{
	struct strbuf err = STRBUF_INIT;
	struct session_input in;
	struct report_results an;
	const struct result_record *res;
	struct seq_look *l;
	size_t i, nres, nprim = 0, decided = 0, listed = 0, nplaced = 0;
	size_t k = stats_seq_look_of(&q->plan, (size_t)block);

	/* A record that does not decode (hand-edited on --resume): the analysis would refuse it. */
	if (done->bad) {
		lab_error("sequential look: cannot analyse the session: %s/%s", q->dir, done->why);
		return -1;
	}
	/*
	 * The document and the records as they are, both decoded once: what
	 * the report's validation holds them to, but for the types their
	 * decoders checked (the records agree with the session, hand-edited
	 * or not), then the analysis the report's is, its records alone.
	 */
	if (report_validate_doc(doc, &done->recs, &err)) {
		lab_error("sequential look: cannot analyse the session: %s", sb_str(&err));
		sb_release(&err);
		return -1;
	}
	session_input_from_doc(doc, &in);
	report_analyze_results(&in, &done->recs, &an);
	if (!lab_quiet)
		fprintf(stderr, "look %zu of %zu for %s (%ld runs per kernel, this look's level %.2g):\n",
			k, stats_seq_looks(&q->plan), workload, block, stats_seq_alpha_at(&q->plan, k));
	res = an.results;
	nres = an.nresults;
	l = seq_state_add_look(&q->state, workload);
	l->look = (long)k;
	l->runs_per_kernel = block;
	l->alpha = stats_seq_alpha_at(&q->plan, k);
	for (i = 0; i < nres; i++) {
		int p;

		if (strcmp(res[i].workload, workload) || !res[i].primary)
			continue;
		nprim++;
		/*
		 * Stop on "final", not on the verdict's class: a "≈" whose
		 * interval crosses the band edge is a real change that more
		 * runs may show to be beyond it (stopping there cost most of
		 * the power in bench/sequential-sim).
		 */
		decided += res[i].final;
		seq_look_verdict(l, res[i].metric, res[i].verdict_id ? res[i].verdict_id : "invalid");
		if (!lab_quiet)
			print_primary(&res[i]);
		p = placed(q, &res[i]);
		listed += p >= 0;
		nplaced += p == 1;
	}
	report_results_release(&an);
	session_input_release(&in);
	sb_release(&err);
	/* A workload that declares no primaries has nothing to wait for. */
	if (decided == nprim)
		return 1;
	return listed && nplaced == listed ? 2 : 0;
}

/*
 * The runs per kernel planned for @workload: its own runs, else the
 * design's (reports/SCHEMA.md: a session from before a workload's runs
 * has none, and ran design.runs_per_kernel of it).
 */
static long run_cap(const struct session_doc *doc, const char *workload)
{
	for (size_t i = 0; i < doc->workloads.n; i++) {
		const struct sdoc_workload *w = sdoc_workload_at(doc, i);

		if (!strcmp(w->name, workload) && w->runs != SDOC_NONE)
			return (long)w->runs;
	}
	return (long)doc->design.runs_per_kernel;
}

int session_seq_after_run(struct session_seq *q, const struct session_doc *doc,
			  const struct session_done *done, const char *workload)
{
	struct seq_workload *w = seq_state_workload(&q->state, workload);
	long cap = run_cap(doc, workload), block;
	int complete, r;

	if (w->stopped)
		return LAB_OK;
	block = last_block(doc, &done->recs, workload, &complete);
	/* A workload capped below the first look (a short kernel build) just ends. */
	if (complete && block >= cap && block < (long)q->plan.min_runs) {
		w->stopped = 1;
		w->why = SEQ_WHY_BELOW_FIRST_LOOK;
		w->runs_per_kernel = block;
		return save(q);
	}
	if (!complete || block < (long)q->plan.min_runs ||
	    w->look_block >= block)
		return LAB_OK;
	/* Only scheduled looks: an extra look would spend a level twice. */
	if (stats_seq_runs_at(&q->plan, stats_seq_look_of(&q->plan, (size_t)block)) != (size_t)block &&
	    block < cap)
		return LAB_OK;
	r = look(q, doc, done, workload, block);
	if (r < 0)
		return LAB_ELAB;
	w->look = (long)stats_seq_look_of(&q->plan, (size_t)block);
	w->look_block = block;
	if (r) {
		w->stopped = 1;
		w->why = r == 2 ? SEQ_WHY_PLACED : SEQ_WHY_DECIDED;
	} else if (block >= cap) {
		w->stopped = 1;
		w->why = SEQ_WHY_MAX_RUNS;
	}
	w->runs_per_kernel = block;
	return save(q);
}

json_t *session_seq_state_json(const struct session_seq *q)
{
	return seq_state_encode(&q->state);
}
