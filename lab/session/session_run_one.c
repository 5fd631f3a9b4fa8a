// SPDX-License-Identifier: GPL-2.0
/*
 * One planned run: the guest job from session.json (the workload's
 * arguments and host shares), a fresh guest booted from the run's kernel,
 * the host's load around it, and the run record (session_record.c) on
 * disk the moment it exists.
 */
#include "session_stages.h"
#include "domain_run.h"
#include "guest_job.h"
#include "host_load.h"
#include "report.h"
#include "utf8.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The record of finished run @gr, with where its files are and the host's load. */
static json_t *record_of(const json_t *planned, const struct guest_run *gr, const struct session *s,
			 const char *started, const struct host_sample *before,
			 const struct host_sample *after)
{
	json_t *rec = session_record(planned, gr, &s->topo, started);
	json_t *load = host_load_json(before, after, gr->qemu_cpu_s);

	json_object_set_new(rec, "run_dir", json_string(gr->run_dir));
	if (load)
		json_object_set_new(rec, "host_load", load);
	return rec;
}

json_t *session_run_one(struct session *s, const json_t *p, int seq)
{
	const char *wname = json_string_value(json_object_get(p, "workload"));
	const char *kname = json_string_value(json_object_get(p, "kernel"));
	json_t *w = report_find_named(s->ctx, "workloads", wname);
	const char *image = session_kernel_image(s->ctx, kname);
	struct strvec args = STRVEC_INIT;
	json_t *a, *rec = NULL;
	size_t j;

	json_array_foreach(json_object_get(w, "args"), j, a)
		strvec_push(&args, json_string_value(a));
	/*
	 * The id is the session folder's name, which --resume takes from the
	 * user and may not be UTF-8; the guest only echoes it, so a stand-in
	 * does. The arguments come from session.json, already checked UTF-8 by
	 * jansson: past that, only out of memory can make the job fail.
	 */
	const char *id = utf8_valid_len(s->id, strlen(s->id)) == strlen(s->id) ? s->id : "session";
	char *run_id = xasprintf("%s/%04d", id, seq);
	char *job = guest_job_json(run_id, json_string_value(json_object_get(w, "type")),
				   (const char *const *)args.v, s->topo.run_timeout_s);
	if (!job)
		die("run %s: cannot write the job: %s", run_id, strerror(errno));
	char *run_dir = xasprintf("%s/logs/run-%04d", s->dir, seq);
	char started[32];
	iso8601_now(started);
	struct domain_share shares[8];
	int nr_shares = 0;
	json_array_foreach(json_object_get(w, "shares"), j, a)
		if (nr_shares < (int)ARRAY_SIZE(shares)) {
			shares[nr_shares].host_dir = json_string_value(json_object_get(a, "host_dir"));
			shares[nr_shares++].tag = json_string_value(json_object_get(a, "tag"));
		}
	struct guest_run gr = { .topo = &s->topo, .accel = s->lab.accel, .kernel = image,
				.base_image = s->lab.image, .job_json = job, .run_dir = run_dir,
				.shares = shares, .nr_shares = nr_shares };
	struct host_sample hs_before, hs_after;
	host_sample_take(&hs_before);
	guest_run(s->lab.conn, &gr);
	host_sample_take(&hs_after);
	/* Interrupted is not a result: the run is redone on resume. */
	if (gr.status != GUEST_RUN_INTERRUPTED) {
		rec = record_of(p, &gr, s, started, &hs_before, &hs_after);
		char *path = session_run_path(s->dir, seq);
		if (session_write_json(path, rec))
			lab_error("cannot write %s: %s", path, strerror(errno));
		free(path);
	}
	guest_run_release(&gr);
	free(run_id);
	free(job);
	free(run_dir);
	strvec_clear(&args);
	return rec;
}
