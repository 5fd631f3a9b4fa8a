// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab run: kernels -> guest image -> planned runs, one fresh guest
 * each, every record on disk the moment it exists -> report.
 *
 * What a session needs to continue lives in session.json (written once,
 * before the first run) and runs/; a resumed session takes its kernels,
 * guest, workloads, parameters and plan from there, not from lab.conf, so
 * editing lab.conf cannot change a session half way.
 *
 * This file is the driver: a new session or a resumed one, then the runs,
 * then the output. Each stage is a file of its own (session_priv.h).
 */
#include "session_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* run --resume --budget (session_priv.h): the document changed, then written as its encoding */
int session_raise_budget(struct session *s)
{
	struct sdoc_sequential *seq = &s->doc.design.sequential;
	double old = seq->budget_s;
	char *path;
	json_t *j;
	int r;

	if (!seq->present)
		return user_error("run --resume --budget: %s is not an --until decided session", s->dir);
	if (old > 0 && s->o->budget_s <= old)
		return user_error("run --resume --budget: %.0f s is not more than the session's budget "
				  "(%.0f s); give a larger one", s->o->budget_s, old);
	seq->budget_s = s->o->budget_s;
	/* the document is the state: session.json is its encoding, as session_new() wrote it */
	path = xasprintf("%s/session.json", s->dir);
	j = session_doc_encode(&s->doc);
	r = session_write_json(path, j);
	if (r)
		r = lab_error("cannot write %s: %s", path, strerror(errno));
	json_decref(j);
	free(path);
	return r;
}

/* What the runs read of session.json, decoded once it is final. */
static int session_jobs_load(struct session *s)
{
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	if (session_jobs_of(&s->doc, &s->jobs, &err))
		r = user_error("%s/session.json: %s", s->dir, sb_str(&err));
	sb_release(&err);
	return r;
}

/* A resumed session: its folder, session.json, the kernels still in the cache, the guest lab. */
static int resume_session(struct session *s)
{
	struct strbuf err = STRBUF_INIT;
	int r = session_dir_find(s->cfg.reports_dir, s->o->resume_id, &s->dir);

	if (r)
		return r;
	s->id = xstrdup(path_basename(s->dir));
	char *path = xasprintf("%s/session.json", s->dir);
	/* the document keeps the tree its strings point into */
	if (session_doc_load_file(path, &s->doc, &err))
		r = user_error("%s", sb_str(&err));
	sb_release(&err);
	free(path);
	if (r)
		return r;
	if (!s->doc.plan)
		return user_error("%s/session.json: no plan", s->dir);
	/* nothing it names is used before it is checked */
	r = session_resume_check(s);
	if (!r)
		r = session_jobs_load(s);
	if (r)
		return r;
	r = session_lock(s->cfg.state_dir, s->dir, &s->lock_fd);
	if (!r) {
		int swept = session_dir_sweep(s->dir);

		if (swept)
			debug("%s: removed %d temporary file%s a killed run left", s->dir, swept,
			      swept == 1 ? "" : "s");
	}
	if (!r && s->o->budget_s)
		r = session_raise_budget(s);
	if (r)
		return r;
	r = session_kernels_hold(s);
	if (r)
		return r;
	const char *gfile = s->doc.guest.file;
	const char *first = s->jobs.nk ? s->jobs.k[0].bzimage : NULL;
	r = session_guest_open(s, gfile ? gfile : "", first);
	/* the document's rows, each made a host_cfg (none: a session of before hosts) */
	if (!r)
		r = session_hosts_open(s, &s->doc.hosts, first);
	return r ? r : session_hosts_check_shares(s);
}

/* A new session: its folder, the kernels, the guest lab, session.json. */
static int start_session(struct session *s)
{
	struct session_opts *o = s->o;
	const char *mode = o->mode == SESSION_AB ? "ab" : o->mode == SESSION_AA ? "aa" : "one";
	const char *gfile = session_guest_file(s);
	int r;

	if (!gfile)
		return user_error("run: no guest '%s' in %s", s->cfg.run.guest, s->cfg.path);
	r = session_check_budget(o, &s->cfg);
	if (r)
		return r;
	/* slots x the guest's vCPUs against each host's cpus, with FILE:LINE, before any build */
	struct strbuf err = STRBUF_INIT;
	r = hosts_check_config(&s->cfg, &err);
	if (r)
		term_printf(stderr, "%s", sb_str(&err));
	sb_release(&err);
	if (r)
		return user_error("%s: the [host] sections do not fit the guest (see above)", s->cfg.path);
	/* A mistake in the guest or a workload's node leaves no session folder behind. */
	r = session_guest_check(s, gfile);
	if (r)
		return r;
	if (mkdir_p(s->cfg.reports_dir, 0755))
		return lab_error("cannot create %s: %s", s->cfg.reports_dir, strerror(errno));
	r = session_dir_create(s->cfg.reports_dir, s->cfg.state_dir, mode, &s->dir, &s->id,
			       &s->lock_fd);
	if (r)
		return r;
	/* From here on SIGINT/SIGTERM stop kernel builds as well as guests. */
	if (interrupt_catch())
		return lab_error("cannot set up signal handling: %s", strerror(errno));
	if (!lab_quiet)
		term_printf(stderr, "session %s\n", s->dir);
	/* Kernels first: the accel probe boots one. */
	r = session_kernel_first(s, &s->kernels.res[0]);
	if (r)
		return r;
	r = session_guest_open(s, gfile, s->kernels.res[0].bzimage);
	if (r)
		return r;
	/* The accel is known now: icount is in force only under TCG. */
	config_resolve_slots(&s->cfg, s->topo.icount_shift >= 0 && s->lab.accel == ACCEL_TCG);
	struct sdoc_array hosts = session_hosts_config_rows(&s->cfg);
	r = session_hosts_open(s, &hosts, s->kernels.res[0].bzimage);
	free(hosts.v);
	if (r)
		return r;
	/* The first kernel's result (and its hold) serves session_new() too. */
	r = session_new(s);
	if (!r)
		r = session_jobs_load(s);
	return r ? r : session_hosts_check_shares(s);
}

int session_series_kernel_add(struct lab_config *cfg, const struct session_series_kernel *sk,
			      struct strbuf *err)
{
	const char *base = sk->base;

	if (sk->commit) {
		if (!config_kernel_at(cfg, sk->base, sk->base_at, sk->commit, err))
			return -1;
		base = sk->base_at;
	}
	return config_kernel_with_series(cfg, base, sk->name, sk->series, err) ? 0 : -1;
}

/*
 * Kernels named on the command line replace [run] kernels; a prefix
 * kernel ("NAME@K") joins the configuration here, before anything holds
 * a pointer into its kernels.
 */
static int override_kernels(struct session *s)
{
	struct session_opts *o = s->o;
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	if (o->series_kernel && session_series_kernel_add(&s->cfg, o->series_kernel, &err))
		r = user_error("run: %s", sb_str(&err));
	for (size_t i = 0; i < o->kernel_names.n && !r; i++)
		if (!config_kernel_resolve(&s->cfg, o->kernel_names.v[i], &err))
			r = user_error("run: %s", sb_str(&err));
	if (!r && o->kernel_names.n) {
		strvec_clear(&s->cfg.run.kernels);
		strvec_pushv(&s->cfg.run.kernels, (const char *const *)o->kernel_names.v);
	}
	if (!r && o->reports_dir) {
		free(s->cfg.reports_dir);
		s->cfg.reports_dir = xstrdup(o->reports_dir);
	}
	sb_release(&err);
	return r;
}

int session_main(struct session_opts *o)
{
	struct session s = { .o = o, .saved_stdout = -1, .lock_fd = -1, .kernel_holds = { -1, -1 } };
	enum plan_end end = PLAN_DONE;
	int r;

	s.t0 = now_monotonic();
	r = config_load_or_report(o->config, &s.cfg);
	if (!r)
		r = override_kernels(&s);
	if (r)
		goto out;
	session_stdout_to_stderr(&s);
	r = o->resume ? resume_session(&s) : start_session(&s);
	if (r)
		goto out;
	r = session_run_plan(&s, &end);
	if (!r)
		r = session_finish(&s, end);
out:
	session_stdout_restore(&s);
	session_hosts_close(&s);
	/* Destroys whatever guest of ours still runs, too. */
	guest_lab_close(&s.lab);
	guest_topology_release(&s.topo);
	session_kernels_release(&s.kernels);
	for (size_t i = 0; i < ARRAY_SIZE(s.kernel_holds); i++)
		if (s.kernel_holds[i] >= 0)
			close(s.kernel_holds[i]);
	session_jobs_release(&s.jobs);
	session_doc_release(&s.doc);
	session_seq_free(s.seq);
	if (s.lock_fd >= 0)
		close(s.lock_fd);
	free(s.dir);
	free(s.id);
	config_release(&s.cfg);
	return r;
}
