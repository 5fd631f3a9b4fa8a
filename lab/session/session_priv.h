/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages of a session, for session.c (the driver) and the files that
 * do each one. Not for use outside lab/session/: session.h is the API
 * (named *_priv.h, so scripts/check-layers refuses it to other folders).
 *
 *   session_kernels.c   which kernels, built or found in the cache
 *   session_guests.c    the guest topology and the guest lab (libvirt, image)
 *   session_workloads.c the workloads as session.json declares them
 *   session_context.c   a new session's session.json: host, design, plan
 *   session_resume.c    a resumed session's session.json, checked before use
 *   session_hosts.c     the hosts of session.json, their connections and slots
 *   session_runs.c      the plan's runs over the hosts' slots, progress, resume
 *   session_twins.c     which runs of a block go side by side on a pair of slots
 *   session_run_one.c   one planned run: a fresh guest, its record on disk
 *   session_output.c    reports, the exit status, JUnit
 */
#ifndef LAB_SESSION_PRIV_H
#define LAB_SESSION_PRIV_H

#include "session_doc.h"
#include "session_jobs.h"
#include "util.h"

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>

#include "config.h"
#include "guest_conf.h"
#include "guest_lab.h"
#include "host.h"
#include "kbuild.h"
#include "session.h"
#include "session_seq.h"

/* The kernels of a new session: baseline first; A/A runs the baseline twice. */
struct session_kernels {
	const struct kernel_cfg *cfg[2];
	const char *name[2];		/* the session's names for them */
	const char *role[2];		/* "baseline", "patched" */
	char *aa_name;			/* A/A: "<baseline>-again", the second name */
	struct kbuild_result res[2];
	int n;
};

/* One host of the session (session_hosts.c), and where its runs stand. */
struct session_host {
	struct host_cfg cfg;		/* from session.json */
	struct lab_host host;		/* its connection */
	int index;			/* in session.json's hosts */
	int borrowed;			/* the guest lab's connection: not ours to close */
	enum guest_accel accel;
	char *accel_reason;
	struct guest_topology *slot_topo;	/* per slot, pinned to its CPUs; NULL: no cpus */
	/* under the scheduler's lock (session_runs.c) */
	int down;			/* dropped mid-session: no more runs go there */
	char *down_reason;
};

struct session_hosts {
	struct session_host *v;
	size_t n;
	size_t nr_slots;		/* over every host */
};

struct session {
	struct session_opts *o;
	struct lab_config cfg;
	char *dir, *id;
	/*
	 * session.json, once it is final: the state itself, owning its
	 * strings (session_doc.h); the file is its encoding.
	 */
	struct session_doc doc;
	struct session_jobs jobs;	/* what the runs read of it, made from its rows */
	struct guest_topology topo;
	struct guest_lab lab;		/* libvirt, the accelerator, the guest image */
	struct session_kernels kernels;	/* a new session's, while it is planned */
	int kernel_holds[2];		/* a resumed session's hold on its kernels' cache
					   entries (kcache.h), -1: none */
	int saved_stdout;
	int lock_fd;			/* session.lock, -1 before it is taken */
	double t0;
	struct session_seq *seq;	/* --until decided, else NULL */
	struct session_hosts hosts;	/* where the runs go */
	/*
	 * Runs whose record could not be written, or that failed because
	 * the session folder filled (ENOSPC, guest_run.out_of_space): not
	 * results, so the session stops short of complete. Worker threads
	 * add to it.
	 */
	atomic_int unrecorded;
};

/* --- session.c --- */
/*
 * run --resume --budget: a sequential session's budget raised to
 * s->o->budget_s in s->doc, and session.json written again as its
 * encoding, before anything runs (session_seq_open() then lets the
 * workloads the old budget stopped go on). LAB_EUSER, said, for a session
 * that is not sequential or a budget not above its own; LAB_ELAB when the
 * file cannot be written.
 */
LAB_MUST_CHECK
int session_raise_budget(struct session *s);

/* --- session_kernels.c --- */
/* Build (or find) the kernel the accelerator probe boots: the first to run. */
LAB_MUST_CHECK
int session_kernel_first(struct session *s, struct kbuild_result *res);
/*
 * Pick the session's kernels by mode and build (or find) each; stops at a
 * signal. A first result already in @k->res[0] (session_kernel_first())
 * is kept, with its hold: the kernel is not looked up twice.
 */
LAB_MUST_CHECK
int session_kernels_build(struct session *s, struct session_kernels *k);
void session_kernels_release(struct session_kernels *k);
/*
 * A resumed session's kernels (session.json): each image must still be in
 * the cache (LAB_EUSER, said, when one is gone); each entry is held in
 * s->kernel_holds until the session ends.
 */
LAB_MUST_CHECK
int session_kernels_hold(struct session *s);
/*
 * The kernels of session.json as its kernels[] rows, their strings kept
 * in @d (session_doc_keep()), the arrays allocated (session_doc_release()
 * of the document they go into frees them).
 */
struct sdoc_array session_kernels_rows(const struct session_kernels *k, struct session_doc *d);
/* The real path of the source work tree kernel @res was built from, or NULL. */
char *session_kernel_tree(const struct kbuild_result *res);
/* Copy each kernel's build.log into the session's logs/. */
void session_kernels_copy_logs(const struct session *s, const struct session_kernels *k);
/* Copy lab.conf and the series files into the session's inputs/ (base_url links them). */
void session_copy_inputs(const struct session *s, const struct session_kernels *sk);
/* The bzImage of kernel @name in the session's jobs, or NULL. */
const char *session_kernel_image(const struct session *s, const char *name);

/* --- session_guests.c --- */
/* The topology file of lab.conf's [run] guest, or NULL. */
const char *session_guest_file(const struct session *s);
/*
 * Check the topology @guest_file, and that the node = of every workload of
 * the session is one of its nodes, before any kernel is built.
 */
LAB_MUST_CHECK
int session_guest_check(const struct session *s, const char *guest_file);
/*
 * Load the topology and open the guest lab: libvirt, the accelerator
 * (probing KVM with @probe_kernel), the guest image.
 */
LAB_MUST_CHECK
int session_guest_open(struct session *s, const char *guest_file, const char *probe_kernel);

/* --- session_hosts.c --- */
/*
 * lab.conf's [run] hosts as hosts[] rows, not yet resolved (no accel),
 * their strings @cfg's; free the array (.v) when done.
 */
struct sdoc_array session_hosts_config_rows(const struct lab_config *cfg);
/*
 * Open the hosts of @rows (session.json's, struct sdoc_host_entry, read
 * by the document's table, or a new session's from lab.conf; none, as in
 * a session from before hosts: the one at [lab] uri), after the guest
 * lab, whose connection the host at [lab] uri shares. A host that does not answer is an error
 * naming it and its URI (LAB_ELAB). The accelerator of every other host is
 * resolved here (host_accel_resolve(), booting @probe_kernel for auto).
 */
LAB_MUST_CHECK
int session_hosts_open(struct session *s, const struct sdoc_array *rows,
		       const char *probe_kernel);
/*
 * The open hosts as session.json's hosts[] rows: lab.conf's fields and
 * the accelerator found on each, their strings s->hosts' (the array
 * allocated: session_doc_release() of the document it goes into frees it).
 */
struct sdoc_array session_hosts_rows(const struct session *s);
void session_hosts_close(struct session *s);
/* The topology slot @slot of host @h runs: pinned to the slot's CPUs, or the guest's. */
const struct guest_topology *session_slot_topology(const struct session *s,
						   const struct session_host *h, int slot);
/* Refuse a workload with 9p shares when a host is not this machine's embedded driver. */
LAB_MUST_CHECK
int session_hosts_check_shares(const struct session *s);

/* --- session_workloads.c --- */
/*
 * The workloads @wl of session.json as @d's workloads[] rows (what they
 * point to kept by @d, session_doc_keep()), each with its runs per kernel
 * in @wruns (@runs: the session's), after their prepare_run hooks. @res:
 * the baseline kernel (its tree, for kernel_build). On an error the rows
 * made so far are @d's, freed with it.
 */
LAB_MUST_CHECK
int session_workloads_rows(struct session *s, const struct strvec *wl, long runs,
			   const struct kbuild_result *res, struct session_doc *d, int *wruns);

/* --- session_resume.c --- */
/*
 * run --resume: every path, host and share session.json names is what
 * this lab.conf and kernel cache would have written (session_resume.c
 * lists them). LAB_OK, or LAB_EUSER said, naming the file and the field.
 */
LAB_MUST_CHECK
int session_resume_check(const struct session *s);

/* --- session_context.c --- */
/* Refuse a --budget that cannot hold the first look (before any kernel is built). */
LAB_MUST_CHECK
int session_check_budget(const struct session_opts *o, const struct lab_config *cfg);
/* Build the kernels, describe everything, plan: session.json for a new session. */
LAB_MUST_CHECK
int session_new(struct session *s);

/* --- session_runs.c --- */
enum plan_end {
	PLAN_DONE,		/* every planned run is recorded, or its workload stopped */
	PLAN_STOPPED,		/* stopped early (a signal, every host dropped): --resume goes on */
};
/*
 * Run every planned run that has no record yet. LAB_OK with how the plan
 * ended in *@end. Else the status of an error, said and naming the file
 * (a sequential.json that is not valid, LAB_EUSER, or cannot be written,
 * LAB_ELAB): not an interruption, no report.
 */
LAB_MUST_CHECK
int session_run_plan(struct session *s, enum plan_end *end);

/* --- session_attribute.c --- */
/*
 * run --attribute (or [run] attribute): once the analysed report @v has
 * the verdicts, attribution runs of each kernel for the workloads it asks
 * for, and the report's "attribution" member (reports/SCHEMA.md); NULL when not asked.
 * A workload whose runs fail gets its error there, said on stderr too;
 * attribution changes the session's exit status only for a profile
 * (session_attribution_required()), which exists for its table.
 */
struct report_view;
json_t *session_attribute(struct session *s, const struct report_view *v);
/* mglrulab profile, now or when it was started (a resume): no table is a failure. */
int session_attribution_required(const struct session *s);

/* --- session_plugin_run.c --- */
/* What a run after the verdicts loads and writes. */
struct plugin_run {
	const char *plugin;		/* the TCG plugin (.so) */
	const char *run_id;		/* "attribution", "coherence": the job's id, RUN.done */
	const char *window_prefix;	/* "attr", "coh": the plugin's window files */
};
/*
 * One run of workload @w on @image with @pr's plugin into @dir, unless a
 * finished one of this image is there (--resume). 0, or -1 with why in @err;
 * its wall time is added to *@seconds.
 */
LAB_MUST_CHECK
int session_plugin_run(struct session *s, const struct session_job *w, const char *image,
		       const struct plugin_run *pr, const char *dir, double *seconds,
		       struct strbuf *err);
/* What tells the attribution's plugin runs from the coherence's before they start. */
struct plugin_kind {
	const char *env;		/* "MGLRULAB_ATTR_PLUGIN": the plugin's path, when set */
	const char *so;			/* "build/plugin/mglrulab-attr.so", beside the program */
	const char *not_one_or_two;	/* why not, for a session of neither one kernel nor two */
	const char *no_icount;		/* why not, for a guest that ran under KVM or the host's clock */
	const char *not_built;		/* why not, when the plugin is not there */
};
/* The plugin next to the program (make plugin), or $@k->env (to free). */
char *session_plugin_path(const struct plugin_kind *k);
/* Why this session's runs cannot have @k's table with @plugin, or NULL. */
const char *session_plugin_unavailable(const struct session *s, const struct plugin_kind *k,
				       const char *plugin);
/*
 * Which workloads to profile (RUN_ATTRIBUTE_*): the command line's
 * @option, else what the session was started with, @kept (a resumed run
 * or profile), else lab.conf's @conf.
 */
int session_plugin_which(int option, const char *kept, int conf);
/*
 * The primaries of workload @w among @res, in the report's order: their
 * verdicts and the change each rests on (pooled on several hosts) into
 * @out, the records themselves into @mine (up to @max; none when @mine is
 * NULL). 1 when one changed.
 */
int session_primaries_of(const struct result_record *res, size_t n, const char *w, json_t *out,
			 const struct result_record **mine, size_t max, size_t *nmine);
/* How many window files PREFIX.1, PREFIX.2 ... @dir holds. */
long session_plugin_windows(const char *dir, const char *prefix);
/*
 * Why the plugin run in @dir measured a window the workload says started
 * skewed (a "window_skewed" info record in its results.jsonl: one thread
 * waited or was preempted inside the window while the other ran,
 * docs/coherence.md, "Calibration"), or NULL (to free).
 */
char *session_plugin_skewed(const char *dir);
/* The System.map the kernel cache keeps beside @image (to free). */
char *session_system_map(const char *image);
/*
 * Why the session's kernels cannot be read by a plugin's table (an image
 * not recorded, a System.map not in the cache), or NULL.
 */
const char *session_maps_missing(const struct session *s);

/* --- session_coherence.c --- */
/*
 * run --coherence (or [run] coherence): once the analysed report @v has
 * the verdicts, coherence runs of each kernel for the workloads it asks
 * for, and the report's "coherence" member (reports/SCHEMA.md); NULL when not asked.
 * Never changes a verdict or the exit status.
 */
json_t *session_coherence(struct session *s, const struct report_view *v);

/* --- session_run_one.c --- */
/*
 * Run planned run @planned (number @seq) in a fresh guest and write its
 * record to runs/, on slot @slot of host @h. The record (new reference),
 * or NULL when a signal interrupted the run or its record could not be
 * written (said, and counted in s->unrecorded): not a result, it is redone
 * on resume. When the host rather than the guest failed (session_hosts.c),
 * the reason is in @dropped too: no more runs should go there.
 */
struct plan_entry;
/*
 * What ran beside a run on the other slots (session_runs.c): @v holds
 * pairs, workload then kernel, of every run that overlapped it; other
 * workers add to it while it runs, so it is read under @lock.
 */
struct run_partners {
	pthread_mutex_t *lock;
	const struct strvec *v;
};
json_t *session_run_one(struct session *s, struct session_host *h, int slot,
			const struct plan_entry *planned, int seq,
			const struct run_partners *partners, struct strbuf *dropped);

/* --- session_output.c --- */
/* Kernel builds and guest setup talk on stdout; keep stdout for the report. */
void session_stdout_to_stderr(struct session *s);
void session_stdout_restore(struct session *s);
/*
 * Write the reports, print report.txt on stdout, the JUnit file when
 * asked; the exit status (@end PLAN_STOPPED: with the resume command;
 * a report or JUnit file that cannot be written, a run not recorded
 * (s->unrecorded) or a record not read back is LAB_ELAB, named, unless a
 * --fail-on verdict already makes it LAB_REGRESSION). The report says
 * complete only when no run is missing for these reasons.
 */
LAB_MUST_CHECK
int session_finish(struct session *s, enum plan_end end);

#endif
