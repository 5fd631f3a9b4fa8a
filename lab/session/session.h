/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session: the kernels, guest, workloads and planned runs of one
 * `mglrulab run`, kept in reports/<id>/ so it survives anything:
 *
 *   session.json     the context and the plan, written once at the start
 *   runs/NNNN.json   one record per completed run, written atomically
 *   logs/            build logs; logs/run-NNNN/ console, domain XML, job, results
 *   report.json      the analysed report (regenerated from the above)
 *   report.html, report.txt
 *
 * A session killed at any point resumes from these files alone: the plan
 * says what to run, runs/ what is done.
 */
#ifndef LAB_SESSION_H
#define LAB_SESSION_H

#include "util.h"

#include <jansson.h>
#include <stdint.h>

#include "config.h"
#include "report_gate.h"
#include "strbuf.h"

enum session_mode { SESSION_AB, SESSION_AA, SESSION_ONE };

struct seq_placements;

struct session_opts {
	const char *config;
	enum session_mode mode;
	long runs;			/* 0: lab.conf's */
	long warmups;			/* -1: lab.conf's */
	int seed_set;
	uint64_t seed;
	struct strvec workloads;	/* empty: lab.conf's */
	const char *kernel;		/* SESSION_ONE: which kernel (default: the first) */
	int resume;
	const char *resume_id;		/* NULL: reports/latest */
	enum fail_on fail_on;
	const char *junit;
	const char *json;		/* --json FILE ("-": stdout): session_summary_json() */
	const char *mail;		/* --mail FILE: the reply mail of the report */
	const char *mail_appendix;	/* words after the mail's answer (NULL: none) */
	int no_counters;
	int until_decided;		/* --until decided: sequential session */
	long max_runs;			/* --max-runs: run cap per kernel and workload (0: default) */
	double budget_s;		/* --budget: run time for the session, seconds (0: none) */
	/*
	 * A bisection's probe (bisect.c): stop once every listed primary
	 * is placed against its midpoint (seq_state.h); NULL: none. Only
	 * with until_decided; recorded in design.sequential.placement.
	 */
	const struct seq_placements *placement;
	/*
	 * Kernel names of the command line in place of [run] kernels (run
	 * --ab BASE NEW, --aa BASE); "NAME@K" names a prefix kernel
	 * (config_kernel_resolve()).
	 */
	struct strvec kernel_names;
	/*
	 * A kernel that is not in lab.conf: [kernel base]'s inputs with the
	 * series in the mbox @series, named @name (`mglrulab watch`: a series
	 * from the list); NULL: none. It joins the configuration before
	 * kernel_names are resolved, so kernel_names may name it.
	 */
	const struct session_series_kernel {
		const char *base, *name, *series;
		/*
		 * A git commit (the series' base-commit): then @name goes
		 * on [kernel @base] at that commit, a kernel named @base_at
		 * that joins the configuration too; NULL: on @base.
		 */
		const char *commit, *base_at;
	} *series_kernel;
	const char *reports_dir;	/* NULL: lab.conf's (a bisection's steps: its folder) */
	int no_stdout_report;		/* leave report.txt unprinted (a bisection prints its own) */
	/*
	 * --attribute: RUN_ATTRIBUTE_* (config.h), or -1 for lab.conf's
	 * [run] attribute: attribution runs once the verdicts are in
	 * (session_attribute.c).
	 */
	int attribute;
	/*
	 * --coherence: RUN_ATTRIBUTE_*, or -1 for lab.conf's [run] coherence:
	 * coherence runs once the verdicts are in (session_coherence.c).
	 */
	int coherence;
	/*
	 * mglrulab profile: a session without a table for each workload
	 * (attribution not possible, a workload skipped or failed) fails.
	 */
	int attribution_required;
};

/*
 * A sequential session (`--until decided`) plans up to SESSION_SEQ_MAX_RUNS
 * runs per kernel unless --max-runs; its looks follow the statistics'
 * default plan (stats.h: stats_seq_plan_default(), first look after
 * STATS_SEQ_MIN_RUNS runs, then after every pair of ABBA/BAAB blocks).
 */
#define SESSION_SEQ_MAX_RUNS	20
#define SESSION_SEQ_METHOD	"repeated confidence intervals, alpha spent as alpha t^rho, " \
				"union bound; Jennison & Turnbull 1989, Lan & DeMets 1983"
/* The least run time of one run (boot, a short workload, host work) under
 * which --budget is refused as unable to hold the first look. */
#define SESSION_SEQ_MIN_RUN_S	5.0

/* Run (or resume) a session; returns the exit status. */
LAB_MUST_CHECK
int session_main(struct session_opts *o);

/* --- session_store.c: the session folder --- */

/*
 * A new session's folder: take <state_dir>/session.lock (session_lock(),
 * *@lock_fd as there), then create reports/<id>/ with runs/ and logs/ and
 * point reports/latest at it. In that order: a run that loses the lock
 * leaves no folder behind and reports/latest as it was (*@dir and *@id
 * NULL then). Returns the exit status, the message printed.
 */
LAB_MUST_CHECK
int session_dir_create(const char *reports_dir, const char *state_dir, const char *mode,
		       char **dir, char **id, int *lock_fd);
/* Resolve --resume [ID|PATH] (NULL: reports/latest) to a session folder. */
LAB_MUST_CHECK
int session_dir_find(const char *reports_dir, const char *id, char **dir);
/*
 * Hold <state_dir>/session.lock until *@fd_out (>= 0 when taken) is closed:
 * session_main() closes it when the session ends, so a bisection runs its
 * steps' sessions one after another in one process. Another session
 * holding it is a clear error naming the holder.
 */
LAB_MUST_CHECK
int session_lock(const char *state_dir, const char *session_dir, int *fd_out);
/*
 * A resumed session's folder, under its lock: remove the temporary files
 * a killed process left (remove_atomic_leftovers()) in it, runs/ and
 * each logs/ folder. They never load as records; this keeps them from
 * piling up over kills. The number removed.
 */
LAB_MUST_CHECK
int session_dir_sweep(const char *dir);
LAB_MUST_CHECK
int session_write_json(const char *path, const json_t *obj);
/*
 * The run records in runs/, as an array sorted by seq (missing folder:
 * empty). A record loads only under the name session_run_path() gives its
 * seq: a file whose seq is not its name's, or a second name for one seq
 * ("09999.json" beside "9999.json"), is left out with a line in @err
 * naming the files, as is one that is not JSON. @err empty: all loaded.
 */
LAB_MUST_CHECK
json_t *session_load_runs(const char *dir, struct strbuf *err);
char *session_run_path(const char *dir, int seq);
/*
 * Write run @seq's record @rec to runs/ (atomically). 0, or -1 with the
 * error said (lab_error(), naming the file): the run is then no result.
 */
LAB_MUST_CHECK
int session_write_run(const char *dir, int seq, const json_t *rec);

/* --- session_record.c: a guest run into a run record --- */
struct guest_run;
struct guest_topology;
/*
 * Build the record of one run: status and failure reason, timings,
 * metrics, series and counters. @declared is the topology the guest must
 * show; a mismatch fails the run with both topologies in the reason.
 */
json_t *session_record(const json_t *planned, const struct guest_run *run,
		       const struct guest_topology *declared, const char *started);

/* --- session_output.c: reports, JUnit, verdict scan --- */
/*
 * session_finish() analyses the session once (report_analyze_view()) and
 * renders report.json, report.html, report.txt, the exit status, JUnit,
 * the --json summary and the mail from that one view, as `mglrulab
 * report` does.
 */
struct report_view;
/*
 * Exit status for the analysed report @v under @fail_on
 * (report_gate_status_view()): LAB_REGRESSION for a regression or a
 * kernel that failed in the guest, LAB_ELAB when the lab could not
 * measure.
 */
int session_verdict_status(const struct report_view *v, enum fail_on fail_on, struct strbuf *why);
/*
 * The JUnit file of @v at @path ("-": stdout; report_gate_junit_view()):
 * LAB_OK, or LAB_ELAB when it cannot be written (said, naming it).
 */
LAB_MUST_CHECK
int session_write_junit(const char *path, const struct report_view *v, enum fail_on fail_on);
/*
 * run --json: what a script needs of a finished session in @dir, from its
 * analysed report @v (NULL: none was written) and exit @status, as JSON
 * into @out: {schema, session (the folder), complete, reports {json, html,
 * text}, fail_on, exit_status, exit_meaning, primaries[] (each primary's
 * verdict and its gate: report_gate_results_view()), failing[] (every
 * result that fails @f)}.
 */
void session_summary_json(const char *dir, const struct report_view *v, enum fail_on f,
			  int status, struct strbuf *out);

/*
 * Add @sk's kernels to @cfg (session_opts.series_kernel): 0, or -1 with
 * the reason in @err. The session and the bisection call it.
 */
LAB_MUST_CHECK
int session_series_kernel_add(struct lab_config *cfg, const struct session_series_kernel *sk,
			      struct strbuf *err);

/*
 * The reply mail of @report (report_render_mail()) into @out, with From,
 * To, Cc and the link from lab.conf's [report] @rc (From defaults to
 * $USER@hostname): 0; -1 when the report cannot be read (said). Not
 * threaded is a warning. `report --mail` and `run --mail` share it.
 * @appendix: report_mail_opts' (NULL: none).
 */
LAB_MUST_CHECK
int session_render_mail(const json_t *report, const struct report_cfg *rc, const char *appendix,
			struct strbuf *out);

/*
 * The reply mail of @report (session_render_mail()) at @path, From, To, Cc
 * and the link from lab.conf's [report] @rc: LAB_OK, or LAB_ELAB when it
 * cannot be written (said, naming it). Not threaded is a warning.
 */
LAB_MUST_CHECK
int session_write_mail(const char *path, const json_t *report, const struct report_cfg *rc,
		       const char *appendix);

/*
 * The progress line of finished run @i of @total ("run 3/8 base yp: failed:
 * why"): the first line of the failure reason, or the first metrics. What
 * the guest wrote is in it, so it is filtered for the terminal. @rec NULL:
 * a record that does not decode ("run 3/8 base yp: ?: ").
 */
struct plan_entry;
struct run_record;
void session_progress_line(struct strbuf *out, size_t i, size_t total,
			   const struct plan_entry *planned, const struct run_record *rec);

#endif
