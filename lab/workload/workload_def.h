/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Workload definitions: the parameters a [workload NAME] section may set
 * (with defaults and limits: common/workload_params.h, the table the guest
 * programs parse their options with) and the metrics the workload reports
 * (with unit and direction). lab.conf validation, the guest job and the
 * report all read this one table (lab/workload/workload_defs.c).
 */
#ifndef LAB_WORKLOAD_DEF_H
#define LAB_WORKLOAD_DEF_H

#include "mechanism.h"
#include "util.h"
#include "workload_params.h"

enum better { BETTER_HIGHER, BETTER_LOWER };

struct metric_def {
	const char *name;	/* may contain "%d" for per-CPU-count or per-node metrics */
	const char *unit;
	enum better better;
	const char *help;
	/*
	 * 1: a primary metric, the headline number of the linux-mm thread the
	 * workload comes from. Primaries are declared before the first run
	 * (session.json), form their own multiplicity family and are what
	 * `run --until decided` waits for; lab.conf's `primary =` overrides.
	 */
	int primary;
};

/*
 * The workload's own table in the text and HTML reports, shaped the way
 * the linux-mm thread it comes from showed its numbers (lab/report/
 * report_layout.c builds it from a report's results, medians and change):
 *
 * LAYOUT_ROWS: one row per entry of @items (a metric and the thread's
 *   label for it), in that order: "Duration User / System / Elapsed".
 * LAYOUT_SWEEP: one row per number N that the %d patterns of @items take
 *   in the results ("cs_per_sec_per_cpu_%dcpu": CPU counts; "..._node%d":
 *   nodes), headed @row_head, one column per item.
 *
 * @group_by names a parameter: every workload of this type in a session
 * then goes into one table, side by side, a column group per workload
 * labelled "param=value" (shared against private mm). Without it each
 * workload gets its own table.
 *
 * @per_run (LAYOUT_ROWS): the thread showed every run's value, kernel by
 * kernel (thpscale's three runs per kernel); the reports then add each
 * run's value where it fits.
 */
enum layout_kind { LAYOUT_NONE, LAYOUT_ROWS, LAYOUT_SWEEP };

struct layout_item {
	const char *metric;	/* a metric name, or a pattern with one %d (LAYOUT_SWEEP) */
	const char *label;	/* the thread's words for it */
};

struct report_layout {
	enum layout_kind kind;
	const char *title;
	const char *row_head;			/* LAYOUT_SWEEP: what N is ("CPUs", "node") */
	const char *group_by;			/* a parameter name, or NULL */
	const struct layout_item *items;	/* NULL-metric terminated */
	int per_run;
};

/*
 * A [workload NAME] section as a prepare_run hook sees it: its name and
 * the keys lab.conf sets, with their values. Not lab/config's struct, so
 * that this stage stays below config (docs/layout.md).
 */
struct workload_section {
	const char *name;
	const struct strvec *keys, *values;
};

/*
 * What a session offers a workload's prepare_run hook: the baseline
 * kernel's source tree, and on request a build folder of it made on the host.
 */
struct workload_run_env {
	const char *kernel_tree;	/* real path of the baseline's source work tree, or NULL */
	const char *kernel_entry;	/* the baseline's kernel cache entry (for messages) */
	/*
	 * Configure and `make prepare` a build folder of kernel_tree with the
	 * baseline's .config (lab/kernel/kbuild_prep.h), make's output in the
	 * session's logs/ under @workload's name. LAB_OK with the folder's real
	 * path in *@dir (free it), or a lab status with the message printed.
	 */
	int (*prepare_build_dir)(const struct workload_run_env *env, const char *workload, char **dir);
	/* Is @dir a folder prepare_build_dir() makes? (for check_share) */
	int (*is_build_dir)(const struct workload_run_env *env, const char *dir);
	void *data;			/* the session's, for prepare_build_dir */
};

/* What a prepare_run hook decides for every run of its workload in a session. */
struct workload_run_setup {
	struct strvec set;	/* name, value, name, value...: parameters in place of lab.conf's */
	struct strvec shares;	/* tag, host folder, ...: read-only 9p shares for the guest */
};

/*
 * A metric the host derives over the whole session from each run's series
 * (lab/report/report_hoststate.c): the run's value is the median of its
 * @cells (one rate per window and CPU), each adjusted for the speed the
 * host gave it, which @ref (the reference loop's rate before each cell)
 * measures. @metric, @cells and @ref each hold the same single "%d".
 * @metric is also in the metric table. Under icount the run's value is the
 * mean of its cells instead; with @repeats (the cells repeat one
 * measurement, as aging's generations do, rather than share it out, as the
 * two CPUs' windows of one emulator thread do) that mean leaves out cells
 * far off the run's median.
 */
struct hoststate_metric {
	const char *metric, *cells, *ref;
	int repeats;
};

struct workload_def {
	const char *name;	/* the program under workloads/ and the [workload NAME] type */
	const char *summary;
	const struct param_def *params;		/* NULL-name terminated, from common/ */
	const struct metric_def *metrics;	/* NULL-name terminated */
	/*
	 * NULL, or what the host prepares once per session before the
	 * workload's first run (kernel_build: a chroot of the host's toolchain
	 * and the kernel tree, shared into the guest). Called when a session
	 * is planned; what it decides goes into session.json, so a resumed
	 * session runs with the same. LAB_OK, or a lab status with the
	 * message printed.
	 */
	int (*prepare_run)(const struct workload_def *def, const struct workload_section *sec,
			   const struct workload_run_env *env, struct workload_run_setup *out);
	const struct hoststate_metric *hoststate;	/* NULL-metric terminated, or NULL */
	const struct report_layout *layout;	/* NULL: only the generic metric table */
	/*
	 * Could prepare_run have shared host folder @host_dir as @tag with
	 * @env? A resumed session reads its shares back from session.json,
	 * which anyone could have edited, and exports only those this says
	 * yes to (a 9p share is a host folder the guest reads). NULL: the
	 * workload shares nothing. 1 or 0.
	 */
	int (*check_share)(const char *tag, const char *host_dir, const struct workload_run_env *env);
	/*
	 * 1: its runs take a host slot alone, no other guest beside them.
	 * Its figures count time the guest waits on the host (kernel_build:
	 * 9p reads, idle), which icount does not take out: with a second
	 * guest beside it, its elapsed time moved +37 % and its CV from 14 %
	 * to 32 % (bench/icount-slots, 2026-12-02).
	 */
	int alone;
	/*
	 * 1: its loop marks each operation for the attribution plugin
	 * (workloads/lib/attr_mark.h), so run --attribute can put its
	 * instructions per operation side by side; 0: no table for it.
	 */
	int attr_units;
	/*
	 * What its primaries can reflect (mechanism.h): what a patch's
	 * claimed effect must go through for this workload to show it.
	 */
	unsigned mechanisms;
};

/* All workloads, NULL-name terminated. */
extern const struct workload_def workload_defs[];
const struct workload_def *workload_find(const char *name);
const struct param_def *workload_param(const struct workload_def *w, const char *name);
/*
 * Check @value against @p. Returns 0, or -1 with a message saying what was
 * expected in @expected (caller frees).
 */
LAB_MUST_CHECK
int workload_param_check(const struct param_def *p, const char *value, char **expected);

/*
 * Does metric @name (a pattern like "cs_per_sec_per_cpu_%dcpu" or one of its
 * instances like "cs_per_sec_per_cpu_2cpu") name a metric of @w? Returns
 * the definition, or NULL.
 */
const struct metric_def *workload_metric(const struct workload_def *w, const char *name);
/* "cs_per_sec_per_cpu_%dcpu" matches "cs_per_sec_per_cpu_2cpu" (and itself). */
int metric_pattern_match(const char *pattern, const char *name);

#endif
