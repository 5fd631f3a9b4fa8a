// SPDX-License-Identifier: GPL-2.0
/*
 * `run --until decided`: the stopping rule of a sequential session.
 *
 * The plan is made for the run cap (--max-runs); after every scheduled look
 * (stats.h: stats_seq_*; a look is due when a workload's block number
 * reaches min_runs, min_runs + step, ...) the session analyses what it has
 * exactly as the final report would (report_analyze()) and stops a
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
#include "run_record.h"
#include "escape.h"
#include "fsutil.h"
#include "session.h"
#include "session_plan.h"
#include "stats.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct session_seq {
	char *path;			/* <session>/sequential.json */
	json_t *state;			/* {"workloads": {NAME: {...}}, "looks": [...]} */
	struct stats_seq_plan plan;
	double budget_s;		/* 0: none */
	size_t spent_runs;		/* records spent_cache covers */
	double spent_cache;
};

static LAB_MUST_CHECK int save(struct session_seq *q);

/*
 * A session the budget stopped, resumed with a larger one (run --resume
 * --budget): the workloads the budget stopped run on from their next
 * look. Stopping for the budget is optional stopping, which the alpha
 * spending allows at any look; so is going on. 1 when the state changed.
 */
static int reopen_after_budget(struct session_seq *q)
{
	json_t *w;
	const char *name;

	if (!json_is_true(json_object_get(q->state, "budget_spent")) ||
	    (q->budget_s && jget_num(q->state, "spent_s") >= q->budget_s))
		return 0;
	json_object_foreach(json_object_get(q->state, "workloads"), name, w)
		if (!strcmp(jget_str(w, "why", ""), "budget")) {
			json_object_set_new(w, "stopped", json_false());
			json_object_set_new(w, "why", json_null());
		}
	json_object_set_new(q->state, "budget_spent", json_false());
	if (!lab_quiet)
		fprintf(stderr, "budget raised to %.0f s: the workloads it stopped go on\n", q->budget_s);
	return 1;
}

int session_seq_open(const char *dir, const json_t *ctx, struct session_seq **out,
		     struct strbuf *err)
{
	struct session_seq *q;
	json_error_t jerr;
	int r;

	*out = NULL;
	q = xcalloc(1, sizeof(*q));
	r = report_seq_plan(ctx, &q->plan, &q->budget_s);
	if (r <= 0) {
		free(q);
		if (!r)
			return LAB_OK;	/* a fixed-N session */
		sb_addf(err, "%s/session.json: design.sequential is not a valid plan", dir);
		return LAB_EUSER;
	}
	q->path = xasprintf("%s/sequential.json", dir);
	if (path_exists(q->path)) {
		q->state = json_load_file(q->path, 0, &jerr);
		if (!json_is_object(q->state) ||
		    !json_is_object(json_object_get(q->state, "workloads"))) {
			sb_addf(err, "%s: %s: the stopping rule's state of this session is unreadable, "
				"so it cannot run on", q->path,
				q->state ? "not a sequential state (no \"workloads\" object)" : jerr.text);
			session_seq_free(q);
			return LAB_EUSER;
		}
	} else {
		q->state = xjson_pack("{s:{}, s:[]}", "workloads", "looks");
	}
	if (reopen_after_budget(q) && session_write_json(q->path, q->state)) {
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
	json_decref(q->state);
	free(q->path);
	free(q);
}

static json_t *wstate(struct session_seq *q, const char *workload)
{
	json_t *all = json_object_get(q->state, "workloads");
	json_t *w = json_object_get(all, workload);

	if (!w) {
		w = xjson_pack("{s:b, s:n, s:i}", "stopped", 0, "why", "look", 0);
		json_object_set_new(all, workload, w);
	}
	return w;
}

int session_seq_stopped(struct session_seq *q, const char *workload)
{
	return json_is_true(json_object_get(json_object_get(json_object_get(q->state, "workloads"),
							     workload), "stopped"));
}

static int save(struct session_seq *q)
{
	if (session_write_json(q->path, q->state))
		return lab_error("cannot write %s: %s", q->path, strerror(errno));
	return LAB_OK;
}

/* Seconds of run time the records of @runs account for (every invocation). */
double session_seq_spent_s(const json_t *runs, const char *workload)
{
	struct run_records rs;
	double total = 0;

	run_records_decode_valid(runs, &rs);
	for (size_t i = 0; i < rs.n; i++) {
		const struct run_timings *t = &rs.v[i].timings;
		const double v[] = { t->boot_s, t->workload_s, t->host_overhead_s };

		if (workload && strcmp(rs.v[i].workload, workload))
			continue;
		/* One at a time, in this order: the sum is the one it always was. */
		for (size_t k = 0; k < ARRAY_SIZE(v); k++)
			if (isfinite(v[k]) && v[k] > 0)
				total += v[k];
	}
	run_records_release(&rs);
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

int session_seq_budget_spent(struct session_seq *q, const json_t *runs)
{
	double spent;

	/* Asked before every planned run: sum the records only when they change. */
	if (json_array_size(runs) != q->spent_runs) {
		q->spent_cache = session_seq_spent_s(runs, NULL);
		q->spent_runs = json_array_size(runs);
	}
	spent = q->spent_cache;
	json_t *w;
	const char *name;
	int changed = 0;

	if (!q->budget_s || spent < q->budget_s)
		return 0;
	json_object_foreach(json_object_get(q->state, "workloads"), name, w)
		if (!json_is_true(json_object_get(w, "stopped"))) {
			json_object_set_new(w, "stopped", json_true());
			json_object_set_new(w, "why", json_string("budget"));
			changed = 1;
		}
	if (changed || !json_is_true(json_object_get(q->state, "budget_spent"))) {
		json_object_set_new(q->state, "budget_spent", json_true());
		json_object_set_new(q->state, "spent_s", json_real(spent));
		if (save(q))
			return -1;
	}
	return 1;
}

/*
 * The highest block of @workload with a record, and whether every planned
 * run of that block has one (a look needs the whole block).
 */
static long last_block(const json_t *ctx, const json_t *runs, const char *workload, int *complete)
{
	struct plan_entry *plan = NULL;
	struct strbuf err = STRBUF_INIT;
	struct run_records rs;
	size_t i, j, n;
	long top = 0;

	run_records_decode_valid(runs, &rs);
	for (i = 0; i < rs.n; i++)
		if (!strcmp(rs.v[i].workload, workload) && !rs.v[i].warmup)
			top = rs.v[i].block > top ? rs.v[i].block : top;
	/* session_run_plan() decoded the plan before the first run: it decodes. */
	*complete = top > 0 && !plan_entries_decode(json_object_get(ctx, "plan"), &plan, &n, &err);
	for (i = 0; *complete && i < n; i++) {
		int found = 0;

		if (strcmp(plan[i].workload, workload) || plan[i].block != top)
			continue;
		for (j = 0; j < rs.n && !found; j++)
			found = rs.v[j].seq == plan[i].seq;
		*complete &= found;
	}
	run_records_release(&rs);
	free(plan);
	sb_release(&err);
	return top;
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
 * Analyse the session as it stands and decide whether @workload's primaries
 * are all decided. Returns 1 when they are, 0 when not, -1 on error.
 */
static int look(struct session_seq *q, const json_t *ctx, const json_t *runs,
		const char *workload, long block)
{
	struct strbuf err = STRBUF_INIT;
	json_t *session = json_deep_copy(ctx), *report, *verdicts = json_object();
	struct result_record *res;
	size_t i, nres, nprim = 0, decided = 0;
	size_t k = stats_seq_look_of(&q->plan, (size_t)block);

	json_object_set(session, "runs", (json_t *)runs);
	report = report_analyze(session, &err);
	json_decref(session);
	if (!report) {
		lab_error("sequential look: cannot analyse the session: %s", sb_str(&err));
		sb_release(&err);
		json_decref(verdicts);
		return -1;
	}
	if (!lab_quiet)
		fprintf(stderr, "look %zu of %zu for %s (%ld runs per kernel, this look's level %.2g):\n",
			k, stats_seq_looks(&q->plan), workload, block, stats_seq_alpha_at(&q->plan, k));
	res = report_result_records(report, &nres, NULL);
	for (i = 0; i < nres; i++) {
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
		json_object_set_new(verdicts, res[i].metric,
				    json_string(res[i].verdict_id ? res[i].verdict_id : "invalid"));
		if (!lab_quiet)
			print_primary(&res[i]);
	}
	result_records_free(res, nres);
	json_array_append_new(json_object_get(q->state, "looks"),
			      xjson_pack("{s:s, s:I, s:I, s:f, s:o}", "workload", workload,
					"look", (json_int_t)k, "runs_per_kernel", (json_int_t)block,
					"alpha", stats_seq_alpha_at(&q->plan, k), "verdicts", verdicts));
	json_decref(report);
	sb_release(&err);
	/* A workload that declares no primaries has nothing to wait for. */
	return decided == nprim;
}

int session_seq_after_run(struct session_seq *q, const json_t *ctx, const json_t *runs,
			  const char *workload)
{
	json_t *w = wstate(q, workload);
	const json_t *wl = report_find_named(ctx, "workloads", workload);
	long cap = (long)jget_num(wl, "runs"), block;
	int complete, r;

	if (json_is_true(json_object_get(w, "stopped")))
		return LAB_OK;
	block = last_block(ctx, runs, workload, &complete);
	/* A workload capped below the first look (a short kernel build) just ends. */
	if (complete && block >= cap && block < (long)q->plan.min_runs) {
		json_object_set_new(w, "stopped", json_true());
		json_object_set_new(w, "why", json_string("below-first-look"));
		json_object_set_new(w, "runs_per_kernel", json_integer(block));
		return save(q);
	}
	if (!complete || block < (long)q->plan.min_runs ||
	    (long)jget_num(w, "look_block") >= block)
		return LAB_OK;
	/* Only scheduled looks: an extra look would spend a level twice. */
	if (stats_seq_runs_at(&q->plan, stats_seq_look_of(&q->plan, (size_t)block)) != (size_t)block &&
	    block < cap)
		return LAB_OK;
	r = look(q, ctx, runs, workload, block);
	if (r < 0)
		return LAB_ELAB;
	json_object_set_new(w, "look", json_integer((json_int_t)stats_seq_look_of(&q->plan, (size_t)block)));
	json_object_set_new(w, "look_block", json_integer(block));
	if (r) {
		json_object_set_new(w, "stopped", json_true());
		json_object_set_new(w, "why", json_string("decided"));
	} else if (block >= cap) {
		json_object_set_new(w, "stopped", json_true());
		json_object_set_new(w, "why", json_string("max-runs"));
	}
	json_object_set_new(w, "runs_per_kernel", json_integer(block));
	return save(q);
}

const json_t *session_seq_state(const struct session_seq *q)
{
	return q->state;
}
