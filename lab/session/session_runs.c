// SPDX-License-Identifier: GPL-2.0
/*
 * The plan's runs, in order, on the session's host slots: those with a
 * record are done (a resumed session skips them), a sequential session
 * skips what its stopping rule (session_seq.c) no longer needs, a signal
 * stops the loop, a host that drops gives its runs to the others. With
 * [run] partners = balanced a host's slots work in pairs, a block's runs
 * two at a time side by side (session_twins.h). Progress goes to stderr:
 * one line per finished run, a live line on a terminal.
 */
#include "session_priv.h"
#include "session_done.h"
#include "session_plan.h"
#include "session_twins.h"
#include "escape.h"
#include "interrupt.h"
#include "run_record.h"
#include "workload_def.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The progress line of run @i: a live one on a terminal while it runs
 * (@finished 0), the finished one after (@finished 1), with its record @rec as
 * decoded (NULL: it does not decode).
 */
static void progress(size_t done_now, size_t todo, size_t total, size_t i,
		     const struct plan_entry *p, int finished, const struct run_record *rec,
		     double elapsed)
{
	char el[32], eta[32] = "?";

	if (lab_quiet)
		return;
	if (done_now)
		format_duration(eta, sizeof(eta), elapsed / (double)done_now * (double)(todo - done_now));
	format_duration(el, sizeof(el), elapsed);
	if (isatty(2) && !finished) {
		/* Our cursor control, then the line through the terminal filter. */
		fputs("\r\033[K", stderr);
		term_printf(stderr, "[%zu/%zu] %s %s%s  elapsed %s  ETA %s", i, total, p->kernel,
			    p->workload, p->warmup ? " (warm-up)" : "", el, eta);
		return;
	}
	if (!finished)
		return;
	if (isatty(2))
		fputs("\r\033[K", stderr);
	struct strbuf line = STRBUF_INIT;

	session_progress_line(&line, i, total, p, rec);
	fprintf(stderr, "%s  [%s, ETA %s]\n", sb_str(&line), el, eta);
	sb_release(&line);
}

/*
 * Which planned runs have a record: one flag per seq (1..@total), so a
 * resumed session of thousands of runs does not rescan its records for
 * every planned run.
 */
static unsigned char *done_flags(const json_t *runs, size_t total)
{
	unsigned char *f = xcalloc(total + 2, 1);
	json_t *r;
	size_t i;

	json_array_foreach(runs, i, r) {
		long long seq;

		/* not an integer: 0, no flag */
		(void)run_record_seq(r, &seq);
		if (seq >= 1 && (size_t)seq <= total)
			f[seq] = 1;
	}
	return f;
}

/*
 * The scheduler. A block (one workload's baseline and patched runs, in
 * their ABBA/BAAB order; each warm-up run is a block of its own) runs on
 * one host slot, so the paired comparison inside it never mixes hosts;
 * blocks go to whichever slot is free next, in plan order. One worker
 * thread per slot; with one slot in all the one worker is this thread,
 * and the runs go in plan order exactly as before hosts. With balanced
 * partners the worker of a pair's even slot runs the block, its runs two
 * at a time, the second on the odd slot in a thread of its own; the odd
 * slot has no worker thread. What the workers share (the records, the
 * stopping rule, the hosts' state, progress) is under one lock; the runs
 * themselves are not.
 */
struct block {
	size_t *idx;			/* plan indices, in order */
	size_t n, alloc, next;		/* next: the first not yet run */
	int claimed;
};

struct sched {
	pthread_mutex_t lock;
	pthread_cond_t block_back;	/* a block was given back (or the session stops) */
	struct session *s;
	struct plan_entry *plan;	/* session.json's plan, decoded */
	struct session_done done;	/* the records so far, each decoded once */
	unsigned char *have;
	struct block *blocks;
	size_t nblocks;
	size_t total, todo, done_now;
	double t0;
	int stopped;			/* interrupted, or a run could not be recorded */
	int failed;			/* the stopping rule failed (said): its status, not an interruption */
	struct strvec share_said;	/* workloads told they wait for the budget's other shares */
	struct worker *workers;		/* every slot's, for the partners of a run */
	size_t nworkers;
};

struct worker {
	struct sched *q;
	struct session_host *h;
	int slot;
	pthread_t thread;
	int started;
	/*
	 * Balanced partners: the pair's odd slot, whose runs this worker
	 * starts beside its own; NULL: this slot's runs go one at a time.
	 */
	struct worker *twin;
	int passive;			/* no thread: a pair's odd slot, or a last slot that idles */
	const struct plan_entry *cur;	/* the run in flight on this slot, or NULL */
	struct strvec partners;		/* workload, kernel of each run beside it */
};

static const char *plan_workload(const struct sched *q, size_t i)
{
	return q->plan[i].workload;
}

static long plan_block(const struct sched *q, size_t i)
{
	return q->plan[i].block;
}

static int plan_seq(const struct sched *q, size_t i)
{
	return q->plan[i].seq;
}

/* Runs not yet done, grouped: consecutive plan entries of one workload and block number. */
static void make_blocks(struct sched *q)
{
	size_t total = q->total;

	q->blocks = xcalloc(total ? total : 1, sizeof(*q->blocks));
	for (size_t i = 0; i < total; i++) {
		int seq = plan_seq(q, i);
		struct block *cur = q->nblocks ? &q->blocks[q->nblocks - 1] : NULL;

		if (seq >= 1 && (size_t)seq <= q->total && q->have[seq])
			continue;
		if (!cur || plan_block(q, i) == 0 || plan_block(q, i) != plan_block(q, cur->idx[cur->n - 1]) ||
		    strcmp(plan_workload(q, i), plan_workload(q, cur->idx[cur->n - 1])))
			cur = &q->blocks[q->nblocks++];
		if (cur->n == cur->alloc) {
			cur->alloc = cur->alloc ? 2 * cur->alloc : 4;
			cur->idx = xrealloc(cur->idx, cur->alloc * sizeof(*cur->idx));
		}
		cur->idx[cur->n++] = i;
	}
}

static int blocks_in_flight(const struct sched *q);

/* Has @workload a block with runs left (running now or not)? Under the lock. */
static int runs_left(const struct sched *q, const char *workload)
{
	for (size_t b = 0; b < q->nblocks; b++) {
		const struct block *bl = &q->blocks[b];

		if (bl->next < bl->n && !strcmp(plan_workload(q, bl->idx[bl->next]), workload))
			return 1;
	}
	return 0;
}

/*
 * Must @workload wait for the others' shares of the budget
 * (budget_share_wait())? Says so once per workload. Under the lock.
 */
static int budget_waits(struct sched *q, const char *workload)
{
	struct session *s = q->s;
	double budget = s->seq ? session_seq_budget_s(s->seq) : 0;
	size_t n = s->jobs.nw, i, me = n;
	struct budget_use *u;
	int wait;

	if (budget <= 0 || !n)
		return 0;
	u = xcalloc(n, sizeof(*u));
	for (i = 0; i < n; i++) {
		const char *name = s->jobs.w[i].name;

		u[i].spent_s = session_seq_spent_s(&q->done.recs, name);
		u[i].running = !session_seq_stopped(s->seq, name) && runs_left(q, name);
		if (!strcmp(name, workload))
			me = i;
	}
	wait = me < n && budget_share_wait(u, n, me, budget);
	if (wait && !lab_quiet && !strvec_has(&q->share_said, workload)) {
		strvec_push(&q->share_said, workload);
		term_printf(stderr, "%s has spent its share of the budget (%.0f s of %.0f s): it waits "
			    "until the other workloads have had theirs\n", workload, u[me].spent_s,
			    budget / (double)n);
	}
	free(u);
	return wait;
}

/* Do @workload's runs take the host alone (workload_def.alone)? */
static int runs_alone(const struct sched *q, const char *workload)
{
	const struct session_job *j = session_job_find(&q->s->jobs, workload);
	const struct workload_def *d = j && j->type ? workload_find(j->type) : NULL;

	return d && d->alone;
}

/* Is a block that must run alone running? Under the lock. */
static int alone_in_flight(const struct sched *q)
{
	for (size_t b = 0; b < q->nblocks; b++)
		if (q->blocks[b].claimed && runs_alone(q, plan_workload(q, q->blocks[b].idx[0])))
			return 1;
	return 0;
}

/*
 * The next block with runs left whose workload the stopping rule still
 * wants, claimed; NULL when there is none. A workload past its share of
 * the budget comes after the others (budget_waits()); when nothing else is
 * left and nothing runs, it goes on. A block that must run alone waits,
 * when it is next, until the running ones end, and nothing starts beside
 * it. Under the lock.
 */
static struct block *claim_block(struct sched *q)
{
	struct session *s = q->s;
	struct block *waiting = NULL, *gated = NULL;

	if (alone_in_flight(q))
		return NULL;

	for (size_t b = 0; b < q->nblocks; b++) {
		struct block *bl = &q->blocks[b];
		const char *wname;

		if (bl->claimed || bl->next >= bl->n)
			continue;
		wname = plan_workload(q, bl->idx[bl->next]);
		if (s->seq && session_seq_stopped(s->seq, wname))
			continue;
		if (s->seq && budget_waits(q, wname)) {
			waiting = waiting ? waiting : bl;
			continue;
		}
		if (s->seq && !session_seq_may_start(s->seq, wname, plan_block(q, bl->idx[bl->next]))) {
			gated = gated ? gated : bl;	/* after the look */
			continue;
		}
		if (runs_alone(q, wname) && blocks_in_flight(q))
			return NULL;	/* it is next: the others end first */
		bl->claimed = 1;
		return bl;
	}
	/* Nothing runs that could take the look: go on rather than stall. */
	if (!waiting && gated && !blocks_in_flight(q))
		waiting = gated;
	if (waiting && !blocks_in_flight(q)) {
		waiting->claimed = 1;
		return waiting;
	}
	return NULL;
}

/* Every host down: the rest waits for --resume. Under the lock. */
static int all_hosts_down(const struct session *s)
{
	for (size_t i = 0; i < s->hosts.n; i++)
		if (!s->hosts.v[i].down)
			return 0;
	return 1;
}

/*
 * Run @p starts on @wk's slot: the runs in flight on the other slots of
 * the same host are its partners, and it is theirs (a run on another
 * machine shares no emulator with it). Under the lock.
 */
static void start_beside(struct worker *wk, const struct plan_entry *p)
{
	struct sched *q = wk->q;

	strvec_clear(&wk->partners);
	wk->cur = p;
	for (size_t i = 0; i < q->nworkers; i++) {
		struct worker *o = &q->workers[i];

		if (o == wk || !o->cur || o->h != wk->h)
			continue;
		strvec_push(&wk->partners, o->cur->workload);
		strvec_push(&wk->partners, o->cur->kernel);
		strvec_push(&o->partners, p->workload);
		strvec_push(&o->partners, p->kernel);
	}
}

/*
 * May the block's next step start? No when the session stops (a signal,
 * the stopping rule failing) or the rule no longer needs the workload's
 * runs (the block then ends: bl->next moves past them). Under the lock.
 */
static int step_may_start(struct sched *q, struct block *bl, const char *wname)
{
	struct session *s = q->s;

	if (interrupted()) {
		q->stopped = 1;
		return 0;
	}
	int spent = s->seq ? session_seq_budget_spent(s->seq, &q->done.recs) : 0;
	if (spent < 0) {
		q->failed = LAB_ELAB;
		q->stopped = 1;
		return 0;
	}
	if (spent || (s->seq && session_seq_stopped(s->seq, wname))) {
		bl->next = bl->n;	/* the rule no longer needs them */
		return 0;
	}
	return 1;
}

/* A step's run on the pair's odd slot, in a thread of its own (run_step()). */
struct twin_run {
	struct worker *wk;
	const struct plan_entry *p;
	json_t *rec;
	struct strbuf *dropped;
	pthread_t thread;
};

static void *twin_main(void *arg)
{
	struct twin_run *t = arg;
	struct sched *q = t->wk->q;
	struct run_partners pt = { &q->lock, &t->wk->partners };

	t->rec = session_run_one(q->s, t->wk->h, t->wk->slot, t->p, t->p->seq, &pt, t->dropped);
	return NULL;
}

/*
 * Run @n runs (1, or 2 side by side: @p[0] on the worker's slot, @p[1] on
 * its twin's) and wait for both. Both start beside each other, so each
 * is the other's partner. Their records go to @rec (NULL: none), a
 * dropped host's reason to @dropped. -1, said, when the second run's
 * thread cannot start: nothing ran. Called and returns under the lock.
 */
static int run_step(struct worker *wk, const struct plan_entry *const p[2], size_t n,
		    json_t *rec[2], struct strbuf dropped[2])
{
	struct sched *q = wk->q;
	struct twin_run t = { .wk = wk->twin, .p = p[1], .dropped = &dropped[1] };
	struct run_partners pt = { &q->lock, &wk->partners };
	int e;

	if (n == 2 && (e = pthread_create(&t.thread, NULL, twin_main, &t))) {
		lab_error("cannot start a thread for host %s slot %d: %s; `run --resume` goes on",
			  wk->h->cfg.name, wk->twin->slot, strerror(e));
		q->stopped = 1;
		return -1;
	}
	/* under the lock: the twin's record, which reads its partners, waits for both */
	start_beside(wk, p[0]);
	if (n == 2)
		start_beside(wk->twin, p[1]);
	pthread_mutex_unlock(&q->lock);
	rec[0] = session_run_one(q->s, wk->h, wk->slot, p[0], p[0]->seq, &pt, &dropped[0]);
	if (n == 2)
		pthread_join(t.thread, NULL);
	pthread_mutex_lock(&q->lock);
	wk->cur = NULL;
	if (n == 2) {
		wk->twin->cur = NULL;
		rec[1] = t.rec;
	}
	return 0;
}

/* Run @i's record @rec, kept: counted, shown, and the stopping rule's look. Under the lock. */
static void take_record(struct sched *q, size_t i, json_t *rec)
{
	struct session *s = q->s;
	const struct run_record *r = session_done_add(&q->done, rec);

	q->done_now++;
	progress(q->done_now, q->todo, q->total, i + 1, &q->plan[i], 1, r, now_monotonic() - q->t0);
	if (s->seq &&
	    session_seq_after_run(s->seq, &s->doc, &q->done, plan_workload(q, i))) {
		q->failed = LAB_ELAB;	/* said, naming the file */
		q->stopped = 1;
	}
}

/* Did the worker's host drop during the step (@dropped)? Then it is down. Under the lock. */
static int host_dropped_in(struct worker *wk, const struct strbuf dropped[2])
{
	const struct strbuf *why = dropped[0].len ? &dropped[0] : dropped[1].len ? &dropped[1] : NULL;

	if (!why)
		return 0;
	wk->h->down = 1;
	if (!wk->h->down_reason)
		wk->h->down_reason = xstrdup(sb_str(why));
	term_printf(stderr, "%s; its runs go to the other hosts\n", sb_str(why));
	return 1;
}

/*
 * Run block @bl's remaining runs on the worker's slot, or on its pair
 * side by side (session_twins.h); after each step its records in seq
 * order, each followed by the stopping rule's look. Called and returns
 * under the lock.
 */
static void run_block(struct worker *wk, struct block *bl)
{
	struct sched *q = wk->q;
	struct strbuf dropped[2] = { STRBUF_INIT, STRBUF_INIT };
	struct twin_step *steps = xcalloc(bl->n, sizeof(*steps));

	while (bl->next < bl->n && !q->stopped) {
		const size_t *idx = &bl->idx[bl->next];
		const char *wname = plan_workload(q, idx[0]);
		json_t *rec[2] = { NULL, NULL };

		if (!step_may_start(q, bl, wname))
			break;
		twin_steps(bl->n - bl->next, wk->twin ? 2 : 1, runs_alone(q, wname), steps);
		/* the first step: the block's next n runs (consecutive) */
		size_t n = steps[0].n, at[2] = { idx[steps[0].run[0]], idx[steps[0].run[1]] };
		const struct plan_entry *p[2] = { &q->plan[at[0]], &q->plan[at[1]] };

		for (size_t k = 0; k < n; k++)
			progress(q->done_now, q->todo, q->total, at[k] + 1, p[k], 0, NULL,
				 now_monotonic() - q->t0);
		if (run_step(wk, p, n, rec, dropped))
			break;
		for (size_t k = 0; k < n; k++)
			if (rec[k])
				take_record(q, at[k], rec[k]);
			else
				q->stopped = 1;	/* interrupted, or not recorded */
		bl->next += n;
		if (host_dropped_in(wk, dropped))
			break;	/* the rest of the block goes to another slot, on another host */
	}
	bl->claimed = 0;
	free(steps);
	sb_release(&dropped[0]);
	sb_release(&dropped[1]);
}

/* Is a block running on some slot? Its host may drop and give it back. Under the lock. */
static int blocks_in_flight(const struct sched *q)
{
	for (size_t b = 0; b < q->nblocks; b++)
		if (q->blocks[b].claimed)
			return 1;
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct sched *q = wk->q;

	pthread_mutex_lock(&q->lock);
	while (!q->stopped && !wk->h->down && !interrupted()) {
		struct block *bl = claim_block(q);

		if (!bl) {
			if (!blocks_in_flight(q))
				break;
			/* nothing free now; wait in case a dropped host gives one back */
			pthread_cond_wait(&q->block_back, &q->lock);
			continue;
		}
		run_block(wk, bl);
		pthread_cond_broadcast(&q->block_back);
	}
	pthread_cond_broadcast(&q->block_back);
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static void sched_release(struct sched *q)
{
	for (size_t b = 0; b < q->nblocks; b++)
		free(q->blocks[b].idx);
	free(q->blocks);
	free(q->have);
	free(q->plan);
	strvec_clear(&q->share_said);
	session_done_release(&q->done);
	pthread_cond_destroy(&q->block_back);
	pthread_mutex_destroy(&q->lock);
}

/*
 * Balanced partners: each host's slots in pairs (2k, 2k+1), the even
 * slot's worker running both (session_twins.h). An odd last slot idles: a
 * run there would have beside it whatever the pairs run, the mix that
 * balance takes out; `[run] partners = free` uses it.
 */
static void pair_slots(struct worker *wk, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct worker *w = &wk[i];
		long slots = w->h->cfg.slots;

		if (slots < 2)
			continue;
		if (w->slot % 2) {
			wk[i - 1].twin = w;	/* the same host's slot before it */
			w->passive = 1;
		} else if (w->slot + 1 == slots) {
			w->passive = 1;
			if (!lab_quiet)
				term_printf(stderr, "host %s: slot %d idles: balanced partners run a "
					    "host's slots in pairs ([run] partners = free uses it)\n",
					    w->h->cfg.name, w->slot);
		}
	}
}

/* Start a worker for every slot that is not passive; this thread is the last one. */
static void run_workers(struct sched *q)
{
	struct session *s = q->s;
	struct worker *wk = xcalloc(s->hosts.nr_slots ? s->hosts.nr_slots : 1, sizeof(*wk));
	size_t n = 0, last = 0;

	for (size_t i = 0; i < s->hosts.n; i++)
		for (long slot = 0; slot < s->hosts.v[i].cfg.slots; slot++)
			wk[n++] = (struct worker){ .q = q, .h = &s->hosts.v[i], .slot = (int)slot };
	/*
	 * design.partners as the session started (a resume keeps it; its
	 * decoder took balanced or free only); absent, in sessions from
	 * before it, -1: free, how they ran.
	 */
	if (config_partners_parse(s->doc.design.partners) == RUN_PARTNERS_BALANCED)
		pair_slots(wk, n);
	for (size_t i = 0; i < n; i++)
		last = wk[i].passive ? last : i;
	pthread_mutex_lock(&q->lock);
	q->workers = wk;
	q->nworkers = n;
	pthread_mutex_unlock(&q->lock);
	for (size_t i = 0; i < last; i++) {
		int e = wk[i].passive ? 0 : pthread_create(&wk[i].thread, NULL, worker_main, &wk[i]);

		if (e)
			warning("cannot start a worker for host %s slot %d: %s; its runs go to the "
				"other slots", wk[i].h->cfg.name, wk[i].slot, strerror(e));
		wk[i].started = !e && !wk[i].passive;
	}
	if (n)
		worker_main(&wk[last]);
	for (size_t i = 0; i < last; i++)
		if (wk[i].started)
			pthread_join(wk[i].thread, NULL);
	pthread_mutex_lock(&q->lock);
	q->workers = NULL;
	q->nworkers = 0;
	pthread_mutex_unlock(&q->lock);
	for (size_t i = 0; i < n; i++)
		strvec_clear(&wk[i].partners);
	free(wk);
}

int session_run_plan(struct session *s, enum plan_end *end)
{
	struct strbuf err = STRBUF_INIT;
	struct sched q = { .s = s, .t0 = now_monotonic() };
	size_t i;
	int r = LAB_OK, stopped = 0;

	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.block_back, NULL);
	session_done_init(&q.done, session_load_runs(s->dir, &err));
	if (err.len)
		warning("%s", sb_str(&err));
	sb_reset(&err);
	if (plan_entries_decode(s->doc.plan, &q.plan, &q.total, &err)) {
		r = lab_error("%s/session.json: %s", s->dir, sb_str(&err));
		goto out;
	}
	if (!s->seq)
		r = session_seq_open(s->dir, &s->doc, &s->seq, &err);
	if (r) {
		error_status(r, "%s", sb_str(&err));
		goto out;
	}
	/* A resumed session first takes any look that a crash interrupted. */
	for (i = 0; s->seq && i < s->jobs.nw; i++)
		if ((r = session_seq_after_run(s->seq, &s->doc, &q.done, s->jobs.w[i].name)))
			goto out;
	q.have = done_flags(q.done.json, q.total);
	for (i = 0; i < q.total; i++) {
		int seq = plan_seq(&q, i);
		q.todo += !(seq >= 1 && (size_t)seq <= q.total && q.have[seq]);
	}
	if (q.todo < q.total && !lab_quiet)
		fprintf(stderr, "resuming: %zu of %zu runs already done\n", q.total - q.todo, q.total);
	make_blocks(&q);
	run_workers(&q);
	if (q.failed) {
		r = q.failed;
		goto out;
	}
	stopped = q.stopped || interrupted();
	if (!stopped && all_hosts_down(s)) {
		/* runs are left that no host can take: --resume, once one is back */
		for (size_t b = 0; b < q.nblocks && !stopped; b++)
			stopped = q.blocks[b].next < q.blocks[b].n &&
				  !(s->seq && session_seq_stopped(s->seq, plan_workload(&q, q.blocks[b].idx[q.blocks[b].next])));
		if (stopped)
			lab_error("every host dropped before the session's runs were done");
	}
out:
	*end = stopped ? PLAN_STOPPED : PLAN_DONE;
	sched_release(&q);
	sb_release(&err);
	return r;
}
