// SPDX-License-Identifier: GPL-2.0
#include "workload_def.h"
#include "fsutil.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * The parameters are common/workload_params.c's, the table the programs
 * (workloads/NAME.c) parse their --NAME=value options with, so the guest
 * job passes them through unchanged. The metrics are the host's own.
 */

static const struct metric_def yield_pingpong_metrics[] = {
	{ "cs_per_sec_per_cpu_%dcpu_hostadj", "switches/s", BETTER_HIGHER,
	  "context switches per second per CPU at that CPU count: the median over the windows"
	  " and CPUs, each adjusted to the session's median host speed (reference loop)", 1 },
	{ "cs_per_sec_per_cpu_%dcpu", "switches/s", BETTER_HIGHER,
	  "context switches per second per CPU at that CPU count, median of the reps windows", 0 },
	{ "cs_per_sec_per_cpu_%dcpu_mean", "switches/s", BETTER_HIGHER,
	  "the same over the whole duration (the windows' time-weighted mean)", 0 },
	{ NULL, NULL, 0, NULL, 0 },
};

static const struct metric_def will_it_scale_metrics[] = {
	{ "ops_per_sec_hostadj", "ops/s", BETTER_HIGHER,
	  "operations per second, median of the one-second samples, each adjusted to the"
	  " session's median host speed (reference loop)", 1 },
	{ "ops_per_sec", "ops/s", BETTER_HIGHER,
	  "operations per second after warm-up, median of the one-second samples", 0 },
	{ "ops_per_sec_per_task", "ops/s", BETTER_HIGHER, "ops_per_sec divided by the tasks", 0 },
	{ "ops_per_sec_mean", "ops/s", BETTER_HIGHER,
	  "will-it-scale's average of the samples (integer, as it prints it)", 0 },
	{ NULL, NULL, 0, NULL, 0 },
};

static const struct metric_def numa_workload_metrics[] = {
	{ "aging_passes_node%d", "passes", BETTER_HIGHER, "aging passes completed on that node", 0 },
	{ "leaf_total_node%d", "entries", BETTER_LOWER, "leaf page-table entries scanned (MM_LEAF_TOTAL)", 1 },
	{ "leaf_young_node%d", "entries", BETTER_LOWER, "young leaf entries found (MM_LEAF_YOUNG)", 0 },
	{ "nonleaf_found_node%d", "entries", BETTER_LOWER, "non-leaf entries found in Bloom filters", 0 },
	{ "nonleaf_added_node%d", "entries", BETTER_LOWER, "non-leaf entries added to Bloom filters", 0 },
	{ "mm_stat%d_node%d", "entries", BETTER_LOWER, "extra mm-walk columns of a patched kernel", 0 },
	{ "leaf_per_pass_node%d", "PTEs/pass", BETTER_LOWER, "leaf entries scanned per aging pass", 1 },
	{ "worker_touch_passes", "passes", BETTER_HIGHER, "passes the workers made over their memory", 0 },
	{ "rss_before_mib", "MiB", BETTER_HIGHER, "workers' resident memory before aging", 0 },
	{ "rss_after_mib", "MiB", BETTER_HIGHER, "workers' resident memory after (must not drop)", 0 },
	{ "rss_change_pct", "%", BETTER_HIGHER, "RSS change; negative means premature reclaim", 0 },
	{ NULL, NULL, 0, NULL, 0 },
};

static const struct metric_def kernel_build_metrics[] = {
	{ "elapsed_s", "s", BETTER_LOWER, "wall-clock build time", 1 },
	{ "user_s", "s", BETTER_LOWER, "user CPU time of the build", 0 },
	{ "sys_s", "s", BETTER_LOWER, "system CPU time of the build", 0 },
	{ "pgpgin", "KiB", BETTER_LOWER, "paged in (/proc/vmstat pgpgin delta)", 0 },
	{ "pgmajfault", "faults", BETTER_LOWER, "major faults", 0 },
	{ "pswpin", "pages", BETTER_LOWER, "pages swapped in", 0 },
	{ "pswpout", "pages", BETTER_LOWER, "pages swapped out", 0 },
	{ "memcg_high_events", "events", BETTER_LOWER, "memory.events high", 0 },
	{ "memcg_max_events", "events", BETTER_LOWER, "memory.events max", 0 },
	{ "memcg_oom_events", "events", BETTER_LOWER, "memory.events oom", 0 },
	{ "memcg_oom_kill_events", "events", BETTER_LOWER, "memory.events oom_kill", 0 },
	{ NULL, NULL, 0, NULL, 0 },
};

static int kernel_build_prepare_run(const struct workload_def *def,
				    const struct workload_section *sec,
				    const struct workload_run_env *env, struct workload_run_setup *out);
static int kernel_build_check_share(const char *tag, const char *host_dir,
				    const struct workload_run_env *env);

static const struct metric_def mglru_aging_metrics[] = {
	{ "median_ms_per_gen_hostadj", "ms", BETTER_LOWER,
	  "median time per generation, each adjusted to the session's median host speed"
	  " (reference loop)", 1 },
	{ "total_ms", "ms", BETTER_LOWER, "time to age G generations", 0 },
	{ "avg_ms_per_gen", "ms", BETTER_LOWER, "average time per generation", 0 },
	{ "median_ms_per_gen", "ms", BETTER_LOWER, "median of the per-generation times", 0 },
	{ NULL, NULL, 0, NULL, 0 },
};

static const struct hoststate_metric mglru_aging_hoststate[] = {
	{ "median_ms_per_gen_hostadj", "gen_ms", "ref_cells", 1 },
	{ NULL, NULL, NULL, 0 },
};

static const struct hoststate_metric will_it_scale_hoststate[] = {
	{ "ops_per_sec_hostadj", "ops_per_sec_cells", "ref_cells", 0 },
	{ NULL, NULL, NULL, 0 },
};

static const struct hoststate_metric yield_pingpong_hoststate[] = {
	{ "cs_per_sec_per_cpu_%dcpu_hostadj", "cs_per_sec_per_cpu_%dcpu_cells", "ref_%dcpu_cells", 0 },
	{ NULL, NULL, NULL, 0 },
};

/*
 * thpscale's table: Duration User/System/Elapsed and the fault latency;
 * elapsed time and the median fault are the headline of the pageblock
 * flags thread. The vmstat deltas over the fault phase explain them.
 */
static const struct metric_def thp_scale_metrics[] = {
	{ "elapsed_s", "s", BETTER_LOWER, "wall-clock time of the run (fragmenting and faulting)", 1 },
	{ "user_s", "s", BETTER_LOWER, "user CPU time of the run", 0 },
	{ "sys_s", "s", BETTER_LOWER, "system CPU time of the run", 0 },
	{ "fault_elapsed_s", "s", BETTER_LOWER, "wall-clock time of the fault phase", 0 },
	{ "fault_p50_us", "us", BETTER_LOWER, "median latency of a huge-page-sized fault and fill", 1 },
	{ "fault_p90_us", "us", BETTER_LOWER, "90th percentile fault latency (nearest rank)", 0 },
	{ "fault_p99_us", "us", BETTER_LOWER, "99th percentile fault latency (nearest rank)", 0 },
	{ "fault_max_us", "us", BETTER_LOWER, "longest fault", 0 },
	{ "fault_mean_us", "us", BETTER_LOWER, "mean fault latency", 0 },
	{ "huge_pct", "%", BETTER_HIGHER, "faults that were given a huge page (mincore)", 0 },
	{ "thp_fault_alloc", "faults", BETTER_HIGHER, "vmstat delta over the fault phase", 0 },
	{ "thp_fault_fallback", "faults", BETTER_LOWER, "vmstat delta over the fault phase", 0 },
	{ "compact_stall", "events", BETTER_LOWER, "direct compaction entered (vmstat delta)", 0 },
	{ "compact_success", "events", BETTER_HIGHER, "direct compaction that freed a page", 0 },
	{ "compact_fail", "events", BETTER_LOWER, "direct compaction that did not", 0 },
	{ "compact_migrate_scanned", "pages", BETTER_LOWER, "pages scanned for migration", 0 },
	{ "compact_free_scanned", "pages", BETTER_LOWER, "pages scanned for free targets", 0 },
	{ NULL, NULL, 0, NULL, 0 },
};

/* The coherence model's calibration (docs/coherence.md): its figures are the plugin's. */
static const struct metric_def coh_calib_metrics[] = {
	{ "shared_ns_per_add", "ns", BETTER_LOWER, "guest time per locked add, one shared counter", 1 },
	{ "false_ns_per_add", "ns", BETTER_LOWER, "guest time per locked add, two counters in one line",
	  0 },
	{ "separate_ns_per_add", "ns", BETTER_LOWER, "guest time per locked add, a line per counter",
	  0 },
	{ NULL, NULL, 0, NULL, 0 },
};

/*
 * The threads' tables (struct report_layout). Seed threads: context
 * switches per second per CPU at each CPU count, shared against private
 * mm; walks and PTEs scanned per node (6.12 counts aging passes, not
 * walks: the column says so); build time, pgpgin, pgmajfault; ms per
 * aging generation; thpscale's Duration User/System/Elapsed and latency.
 */
static const struct report_layout yield_pingpong_layout = {
	LAYOUT_SWEEP, "Context switches per second per CPU", "CPUs", "mm",
	(const struct layout_item[]){
		{ "cs_per_sec_per_cpu_%dcpu_hostadj", "switches/s/CPU (host-adjusted)" },
		{ "cs_per_sec_per_cpu_%dcpu", "switches/s/CPU" },
		{ NULL, NULL },
	},
	0,
};

static const struct report_layout numa_workload_layout = {
	LAYOUT_SWEEP, "Aging passes and PTEs scanned per node", "node", NULL,
	(const struct layout_item[]){
		{ "aging_passes_node%d", "aging passes" },
		{ "leaf_total_node%d", "PTEs scanned" },
		{ "leaf_per_pass_node%d", "PTEs/pass" },
		{ NULL, NULL },
	},
	0,
};

static const struct report_layout kernel_build_layout = {
	LAYOUT_ROWS, "Kernel build in a memory cgroup", NULL, NULL,
	(const struct layout_item[]){
		{ "elapsed_s", "build time (s)" },
		{ "pgpgin", "pgpgin" },
		{ "pgmajfault", "pgmajfault" },
		{ NULL, NULL },
	},
	0,
};

static const struct report_layout mglru_aging_layout = {
	LAYOUT_ROWS, "MGLRU aging, time per generation", NULL, NULL,
	(const struct layout_item[]){
		{ "total_ms", "Total (ms)" },
		{ "avg_ms_per_gen", "Average (ms/gen)" },
		{ "median_ms_per_gen", "Median (ms/gen)" },
		{ "median_ms_per_gen_hostadj", "Median, host-adjusted (ms/gen)" },
		{ NULL, NULL },
	},
	0,
};

static const struct report_layout thp_scale_layout = {
	LAYOUT_ROWS, "thpscale", NULL, NULL,
	(const struct layout_item[]){
		{ "user_s", "Duration User" },
		{ "sys_s", "Duration System" },
		{ "elapsed_s", "Duration Elapsed" },
		{ "fault_p50_us", "Fault latency p50 (us)" },
		{ "fault_p90_us", "Fault latency p90 (us)" },
		{ "fault_p99_us", "Fault latency p99 (us)" },
		{ "fault_max_us", "Fault latency max (us)" },
		{ "huge_pct", "Huge page faults (%)" },
		{ NULL, NULL },
	},
	1,
};

const struct workload_def workload_defs[] = {
	{ "yield_pingpong", yield_pingpong_summary, yield_pingpong_params, yield_pingpong_metrics,
	  NULL, yield_pingpong_hoststate, &yield_pingpong_layout, NULL, 0, 1,
	  MECH_INSTRUCTIONS | MECH_CACHE_LINES | MECH_WALL_CLOCK },
	{ "will_it_scale", will_it_scale_summary, will_it_scale_params, will_it_scale_metrics, NULL,
	  will_it_scale_hoststate, NULL, NULL, 0, 1,
	  MECH_INSTRUCTIONS | MECH_CACHE_LINES | MECH_WALL_CLOCK },
	{ "numa_workload", numa_workload_summary, numa_workload_params, numa_workload_metrics, NULL,
	  NULL, &numa_workload_layout, NULL, 0, 0,
	  MECH_INSTRUCTIONS | MECH_MEMORY_LATENCY | MECH_WALL_CLOCK },
	{ "kernel_build", kernel_build_summary, kernel_build_params, kernel_build_metrics,
	  kernel_build_prepare_run, NULL, &kernel_build_layout, kernel_build_check_share, 1, 0, MECH_ALL },
	{ "mglru_aging", mglru_aging_summary, mglru_aging_params, mglru_aging_metrics, NULL,
	  mglru_aging_hoststate, &mglru_aging_layout, NULL, 0, 1,
	  MECH_INSTRUCTIONS | MECH_MEMORY_LATENCY | MECH_WALL_CLOCK },
	{ "thp_scale", thp_scale_summary, thp_scale_params, thp_scale_metrics, NULL, NULL,
	  &thp_scale_layout, NULL, 0, 1,
	  MECH_INSTRUCTIONS | MECH_MEMORY_LATENCY | MECH_WALL_CLOCK },
	{ "coh_calib", coh_calib_summary, coh_calib_params, coh_calib_metrics, NULL, NULL, NULL,
	  NULL, 0, 1, MECH_INSTRUCTIONS | MECH_CACHE_LINES | MECH_WALL_CLOCK },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0, 0 },
};

const struct workload_def *workload_find(const char *name)
{
	for (const struct workload_def *w = workload_defs; w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

const struct param_def *workload_param(const struct workload_def *w, const char *name)
{
	return param_find(w->params, name);
}

int workload_param_check(const struct param_def *p, const char *value, char **expected)
{
	char buf[128];

	if (!param_check(p, value))
		return 0;
	param_expected(p, buf, sizeof(buf));
	*expected = xstrdup(buf);
	return -1;
}

int metric_pattern_match(const char *pat, const char *s)
{
	while (*pat) {
		if (pat[0] == '%' && pat[1] == 'd') {
			/* The pattern itself ("%d" against "%d") names every instance. */
			if (s[0] == '%' && s[1] == 'd') {
				s += 2;
				pat += 2;
				continue;
			}
			if (*s < '0' || *s > '9')
				return 0;
			while (*s >= '0' && *s <= '9')
				s++;
			pat += 2;
		} else if (*pat++ != *s++) {
			return 0;
		}
	}
	return !*s;
}

const struct metric_def *workload_metric(const struct workload_def *w, const char *name)
{
	for (const struct metric_def *m = w->metrics; m->name; m++)
		if (metric_pattern_match(m->name, name))
			return m;
	return NULL;
}

/* What lab.conf sets @param to in @sec ("" included), or NULL. */
static const char *lab_conf_value(const struct workload_section *sec, const char *param)
{
	for (size_t i = 0; i < sec->keys->n; i++)
		if (!strcmp(sec->keys->v[i], param))
			return sec->values->v[i];
	return NULL;
}

/*
 * kernel_build needs a toolchain and a kernel tree, and the lab guest
 * (busybox, no libc) has neither: the program runs the host's toolchain in
 * a chroot made of read-only 9p shares (workloads/lib/sysroot.h) of the
 * host's /usr folders a distribution toolchain lives in (KBUILD_USR_DIRS),
 * its /etc/alternatives (where Debian's awk and cc links point) and the
 * baseline kernel's source work tree (read-only is enough: the build is
 * out of tree), mounted at its host path because a prepared build folder
 * (prepared = host, lab/kernel/kbuild_prep.h) records that path. Unless
 * lab.conf sets chroot itself, this hook adds these shares and points
 * chroot, src (unless set) and prepared at them.
 *
 * Not /usr whole: the guest runs a kernel under test and reads the shares
 * as root (docs/security.md, "kernel_build's host folders"), and what a
 * site keeps under /usr/local (its own programs, their configuration:
 * /usr/local/etc), /usr/sbin, /usr/src or /usr/games is no toolchain's.
 */
static const char *const kbuild_usr_dirs[] = {
	"bin", "lib", "lib64", "libexec", "include", "share", NULL,
};
#define KBUILD_ALT "hostalt:/etc/alternatives"
#define KBUILD_PREP_MNT "/prep"

/* The share of /usr/@dir is tagged "usr@dir". */
static int kbuild_usr_share(const char *tag, const char *host_dir)
{
	for (const char *const *d = kbuild_usr_dirs; *d; d++)
		if (!strncmp(tag, "usr", 3) && !strcmp(tag + 3, *d) &&
		    !strncmp(host_dir, "/usr/", 5) && !strcmp(host_dir + 5, *d))
			return 1;
	return 0;
}

/* The shares kernel_build_prepare_run() makes, and no others. */
static int kernel_build_check_share(const char *tag, const char *host_dir,
				    const struct workload_run_env *env)
{
	if (kbuild_usr_share(tag, host_dir))
		return 1;
	if (!strcmp(tag, "hostalt"))
		return !strcmp(host_dir, "/etc/alternatives");
	if (!strcmp(tag, "ksrc"))
		return env->kernel_tree && !strcmp(host_dir, env->kernel_tree);
	if (!strcmp(tag, "kprep"))
		return env->is_build_dir && env->is_build_dir(env, host_dir);
	return 0;
}

static int kernel_build_prepare_run(const struct workload_def *def,
				    const struct workload_section *sec,
				    const struct workload_run_env *env, struct workload_run_setup *out)
{
	const char *prepared = lab_conf_value(sec, "prepared");
	char *prep = NULL;
	int r;

	if (lab_conf_value(sec, "chroot"))
		return LAB_OK;
	if (!prepared)
		prepared = workload_param(def, "prepared")->def;
	if (!env->kernel_tree)
		return lab_error("run: workload '%s' builds the kernel source, but %s/meta.json"
				 " names no readable source tree", sec->name, env->kernel_entry);
	/* prepared = host: the session makes the build folder natively. */
	if (!strcmp(prepared, "host")) {
		r = env->prepare_build_dir(env, sec->name, &prep);
		if (r)
			return r;
	}
	struct strbuf spec = STRBUF_INIT;

	for (const char *const *d = kbuild_usr_dirs; *d; d++) {
		char *dir = xasprintf("/usr/%s", *d);

		if (!is_dir(dir)) {
			r = lab_error("run: workload '%s' shares the host's toolchain with its guests, "
				      "but %s is not a folder here (kernel_build needs a merged-/usr "
				      "host with its toolchain in /usr, as Debian 12's)", sec->name, dir);
			free(dir);
			free(prep);
			sb_release(&spec);
			strvec_clear(&out->shares);
			return r;
		}
		sb_addf(&spec, "usr%s:%s,", *d, dir);
		strvec_pushf(&out->shares, "usr%s", *d);
		strvec_push(&out->shares, dir);
		free(dir);
	}
	strvec_push(&out->set, "chroot");
	strvec_pushf(&out->set, "%s" KBUILD_ALT ",ksrc:%s%s", sb_str(&spec), env->kernel_tree,
		     prep ? ",kprep:" KBUILD_PREP_MNT : "");
	sb_release(&spec);
	if (!lab_conf_value(sec, "src")) {
		strvec_push(&out->set, "src");
		strvec_push(&out->set, env->kernel_tree);
	}
	if (prep) {
		strvec_push(&out->set, "prepared");
		strvec_push(&out->set, KBUILD_PREP_MNT);
	}
	strvec_pushv(&out->shares, (const char *const[]){ "hostalt", "/etc/alternatives", "ksrc",
		     env->kernel_tree, NULL });
	if (prep) {
		strvec_push(&out->shares, "kprep");
		strvec_push(&out->shares, prep);
	}
	free(prep);
	return LAB_OK;
}
