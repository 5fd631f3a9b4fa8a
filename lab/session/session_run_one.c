// SPDX-License-Identifier: GPL-2.0
/*
 * One planned run: the guest job from session.json (the workload's
 * arguments and host shares), a fresh guest booted from the run's kernel,
 * the host's load around it, and the run record (session_record.c) on
 * disk the moment it exists.
 */
#include "session_priv.h"
#include "session_plan.h"
#include "domain_run.h"
#include "guest_job.h"
#include "host_load.h"
#include "host_run.h"
#include "report.h"
#include "run_record.h"
#include "utf8.h"
#include "xjson.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * The runs beside it on the other slots, each {workload, kernel} once
 * (issue 49: under icount which emulator state a run lands in followed
 * its partner); an empty array when it ran alone.
 */
static json_t *partners_json(const struct run_partners *pt)
{
	json_t *a = json_array();
	size_t i, j;

	if (!pt || !pt->v)
		return a;
	pthread_mutex_lock(pt->lock);
	for (i = 0; i + 1 < pt->v->n; i += 2) {
		/* once each: a slot may run the same workload and kernel again */
		for (j = 0; j < i; j += 2)
			if (!strcmp(pt->v->v[j], pt->v->v[i]) && !strcmp(pt->v->v[j + 1], pt->v->v[i + 1]))
				break;
		if (j == i)
			json_array_append_new(a, xjson_pack("{s:s, s:s}", "workload", pt->v->v[i],
							    "kernel", pt->v->v[i + 1]));
	}
	pthread_mutex_unlock(pt->lock);
	return a;
}

/* The record of finished run @gr, with where its files are, its host and slot, the host's load. */
static json_t *record_of(const json_t *planned, const struct guest_run *gr, const struct session *s,
			 const struct session_host *h, int slot, const char *started,
			 const struct host_sample *before, const struct host_sample *after,
			 const struct run_partners *pt)
{
	json_t *rec = session_record(planned, gr, &s->topo, started);
	json_t *load = host_load_json(before, after, gr->qemu_cpu_s);

	struct run_record where = { .host = h->cfg.name, .slot = slot };

	json_object_set_new(rec, "partners", partners_json(pt));

	json_object_set_new(rec, "run_dir", json_string(gr->run_dir));
	run_record_encode(&where, RW_HOST, rec);
	if (load)
		json_object_set_new(rec, "host_load", load);
	return rec;
}

/*
 * Did the host, rather than the guest, fail the run? Its connection is
 * gone (daemon stopped, network down), or, with other hosts to go to, the
 * guest could not even start there or its pool or volumes failed. Then no more runs go to it; the reason
 * goes into the run's failure and @why.
 */
static int host_dropped(const struct session *s, const struct session_host *h,
			struct guest_run *gr, const struct host_run_stats *st, struct strbuf *why)
{
	char at[32];

	if (gr->status == GUEST_RUN_OK || gr->status == GUEST_RUN_INTERRUPTED)
		return 0;
	int alive = virConnectIsAlive(h->host.conn) == 1;

	if (alive && (s->hosts.n < 2 || (gr->started && !st->host_error)))
		return 0;
	iso8601_now(at);
	sb_addf(why, "host %s (%s) dropped at %s: %s", h->cfg.name, h->cfg.uri, at,
		!alive ? "the connection closed" : st->host_error ? "its pool or volumes failed" :
		"the guest could not start there");
	char *failure = xasprintf("%s; %s", sb_str(why), gr->failure ? gr->failure : "");
	free(gr->failure);
	gr->failure = failure;
	return 1;
}

/*
 * One guest on host @h: the embedded driver boots from this machine's
 * files; every other host gets them over its connection (host_run.c).
 */
static void run_on_host(struct session_host *h, struct guest_run *gr, struct host_run_stats *st)
{
	gr->accel = h->accel;
	host_guest_run(&h->host, gr, st);
}

json_t *session_run_one(struct session *s, struct session_host *h, int slot,
			const struct plan_entry *p, int seq, const struct run_partners *partners,
			struct strbuf *dropped)
{
	const char *wname = p->workload, *kname = p->kernel;
	const struct session_job *w = session_job_find(&s->jobs, wname);
	const char *image = session_kernel_image(s, kname);
	json_t *rec = NULL;
	/*
	 * The id is the session folder's name, which --resume takes from the
	 * user and may not be UTF-8; the guest only echoes it, so a stand-in
	 * does. The arguments come from session.json, already checked UTF-8 by
	 * jansson: past that, only out of memory can make the job fail.
	 */
	const char *id = utf8_valid_len(s->id, strlen(s->id)) == strlen(s->id) ? s->id : "session";
	char *run_id = xasprintf("%s/%04d", id, seq);
	char *job = guest_job_json(run_id, w ? w->type : NULL,
				   (const char *const *)(w ? w->args.v : NULL), s->topo.run_timeout_s);
	if (!job)
		die("run %s: cannot write the job: %s", run_id, strerror(errno));
	char *run_dir = xasprintf("%s/logs/run-%04d", s->dir, seq);
	char started[32];
	iso8601_now(started);
	/* all of them (session_resume.c checked a resumed session's) */
	size_t nw = w ? w->nshares : 0;
	struct domain_share *shares = xcalloc(nw + 1, sizeof(*shares));
	int nr_shares = 0;
	for (size_t j = 0; j < nw; j++) {
		shares[nr_shares].host_dir = w->shares[j].host_dir;
		shares[nr_shares++].tag = w->shares[j].tag;
	}
	char *job_cmdline = guest_job_cmdline((const char *const *)(w ? w->args.v : NULL));
	struct guest_run gr = { .topo = session_slot_topology(s, h, slot), .kernel = image,
				.base_image = s->lab.image, .job_json = job, .job_cmdline = job_cmdline,
				.run_dir = run_dir,
				.shares = shares, .nr_shares = nr_shares };
	struct host_run_stats hst;
	struct host_sample hs_before, hs_after;
	host_sample_take(&hs_before);
	run_on_host(h, &gr, &hst);
	host_sample_take(&hs_after);
	host_dropped(s, h, &gr, &hst, dropped);
	/*
	 * Interrupted is not a result: the run is redone on resume. Nor is a
	 * run that failed because its folder filled (ENOSPC): recorded as
	 * failed, --resume would skip it and the kernel would carry the
	 * machine's failure; the session stops instead, as when a record
	 * cannot be written.
	 */
	if (gr.status != GUEST_RUN_OK && gr.status != GUEST_RUN_INTERRUPTED && gr.out_of_space) {
		const char *f = gr.failure ? gr.failure : "";

		lab_error("run %d failed because this machine ran out of space: %.*s; the run does "
			  "not count, and `run --resume` runs it again", seq, (int)strcspn(f, "\n"), f);
		atomic_fetch_add(&s->unrecorded, 1);
	} else if (gr.status != GUEST_RUN_INTERRUPTED) {
		rec = record_of(p->json, &gr, s, h, slot, started, &hs_before, &hs_after,
				partners);
		/*
		 * Not on disk, not a result: counted in memory, it would feed
		 * the sequential rule and the progress a run that the report
		 * (read from disk) and --resume know nothing of.
		 */
		if (session_write_run(s->dir, seq, rec)) {
			json_decref(rec);
			rec = NULL;
			atomic_fetch_add(&s->unrecorded, 1);
		}
	}
	guest_run_release(&gr);
	free(job_cmdline);
	free(shares);
	free(run_id);
	free(job);
	free(run_dir);
	return rec;
}
