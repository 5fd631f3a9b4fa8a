// SPDX-License-Identifier: GPL-2.0
/*
 * The plan's runs, in order: those with a record are done (a resumed
 * session skips them), a sequential session skips what its stopping rule
 * (session_seq.c) no longer needs, a signal stops the loop. Progress goes
 * to stderr: one line per finished run, a live line on a terminal.
 */
#include "session_stages.h"
#include "escape.h"
#include "interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void progress(size_t done_now, size_t todo, size_t total, size_t i,
		     const json_t *p, const json_t *rec, double elapsed)
{
	char el[32], eta[32] = "?";

	if (lab_quiet)
		return;
	if (done_now)
		format_duration(eta, sizeof(eta), elapsed / (double)done_now * (double)(todo - done_now));
	format_duration(el, sizeof(el), elapsed);
	if (isatty(2) && !rec) {
		/* Our cursor control, then the line through the terminal filter. */
		fputs("\r\033[K", stderr);
		term_printf(stderr, "[%zu/%zu] %s %s%s  elapsed %s  ETA %s", i, total,
			    json_string_value(json_object_get(p, "kernel")),
			    json_string_value(json_object_get(p, "workload")),
			    json_is_true(json_object_get(p, "warmup")) ? " (warm-up)" : "", el, eta);
		return;
	}
	if (!rec)
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
		json_int_t seq = json_integer_value(json_object_get(r, "seq"));

		if (seq >= 1 && (size_t)seq <= total)
			f[seq] = 1;
	}
	return f;
}

int session_run_plan(struct session *s)
{
	struct strbuf err = STRBUF_INIT;
	json_t *done = session_load_runs(s->dir, &err);
	json_t *plan = json_object_get(s->ctx, "plan"), *p;
	size_t i, total = json_array_size(plan), todo = 0, done_now = 0;
	double t0 = now_monotonic();
	int stopped = 0;

	if (err.len)
		warning("%s", sb_str(&err));
	sb_reset(&err);
	if (!s->seq)
		s->seq = session_seq_open(s->dir, s->ctx, &err);
	if (err.len) {
		lab_error("%s", sb_str(&err));
		json_decref(done);
		sb_release(&err);
		return -1;
	}
	/* A resumed session first takes any look that a crash interrupted. */
	json_array_foreach(json_object_get(s->ctx, "workloads"), i, p)
		if (s->seq && json_is_string(json_object_get(p, "name")))
			session_seq_after_run(s->seq, s->ctx, done,
					      json_string_value(json_object_get(p, "name")));
	unsigned char *have = done_flags(done, total);
	json_array_foreach(plan, i, p) {
		json_int_t seq = json_integer_value(json_object_get(p, "seq"));
		todo += !(seq >= 1 && (size_t)seq <= total && have[seq]);
	}
	if (todo < total && !lab_quiet)
		fprintf(stderr, "resuming: %zu of %zu runs already done\n", total - todo, total);
	json_array_foreach(plan, i, p) {
		int seq = (int)json_integer_value(json_object_get(p, "seq"));
		if (seq >= 1 && (size_t)seq <= total && have[seq])
			continue;
		if (interrupted()) {
			stopped = 1;
			break;
		}
		const char *wname = json_string_value(json_object_get(p, "workload"));
		if (s->seq && (session_seq_budget_spent(s->seq, done) ||
			       session_seq_stopped(s->seq, wname)))
			continue;
		progress(done_now, todo, total, i + 1, p, NULL, now_monotonic() - t0);
		json_t *rec = session_run_one(s, p, seq);
		if (!rec) {
			stopped = 1;
			break;
		}
		done_now++;
		progress(done_now, todo, total, i + 1, p, rec, now_monotonic() - t0);
		json_array_append_new(done, rec);
		if (s->seq)
			session_seq_after_run(s->seq, s->ctx, done, wname);
	}
	free(have);
	json_decref(done);
	sb_release(&err);
	return stopped || interrupted();
}

