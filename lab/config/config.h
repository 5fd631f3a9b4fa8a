/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab.conf: which kernels to build and compare, in which guest, with which
 * workloads, how many times. Parsed with libinih (through ini_lines.h for
 * line numbers); every error names file:line, the section and key, and
 * what was expected. Unknown sections and keys are errors.
 */
#ifndef LAB_CONFIG_H
#define LAB_CONFIG_H

#include <stdint.h>

#include "strbuf.h"
#include "sandbox.h"
#include "strmap.h"
#include "util.h"
#include "workload_def.h"

struct kernel_cfg {
	char *name;
	int line;			/* of the [kernel NAME] header */
	char *from;			/* inherit unset keys from this kernel */
	char *source;			/* directory, .tar.* archive or git repository */
	char *ref;			/* git ref, for git sources */
	struct strvec series;		/* mbox / .patch files, in order */
	int series_set;
	char *config;			/* tinyconfig, defconfig, allnoconfig or a file */
	struct strvec fragments;
	int fragments_set;
	/*
	 * A prefix kernel "NAME@K" (config_kernel_resolve()): NAME's inputs
	 * with its series cut after patch K (cover letters not counted).
	 * prefix_of is NAME, NULL for a kernel of lab.conf.
	 */
	char *prefix_of;
	long prefix;
	/*
	 * The build folder's name when it is not prefix_of or name: every
	 * series `mglrulab watch` builds shares one ("watch"), so each is an
	 * incremental build of the one before. NULL for lab.conf's kernels.
	 */
	char *build_name;
};

struct guest_cfg {
	char *name;
	int line;
	char *file;			/* guests/NAME.conf */
};

struct workload_cfg {
	char *name;			/* section name, what [run] workloads lists */
	int line;
	const struct workload_def *def;
	struct strvec keys, values;	/* parameters as written (validated) */
	long runs;			/* runs = N of the section; 0: [run] runs */
	struct strvec primary;		/* primary = NAME ... as written (checked) */
	int primary_set;		/* primary = was given (empty: no primaries) */
	double threshold;		/* threshold = band of its metrics; < 0: [stats]'s */
	int threshold_line;		/* where it was set (for messages), 0: not set */
	/*
	 * coherence_params = KEY=VALUE ...: parameters of its coherence runs
	 * only (docs/coherence.md), in place of the section's (checked as
	 * they are); empty: the coherence runs are the workload's own run.
	 */
	struct strvec coh_keys, coh_values;
};

/*
 * A libvirt host the session's runs go to (docs/hosts.md). Without any
 * [host NAME] section there is one implicit host, "local": [lab] uri, one
 * slot, every CPU.
 */
struct host_cfg {
	char *name;
	int line;			/* of the [host NAME] header; 0 for the implicit host */
	char *uri;			/* "qemu:///embed": the embedded driver under state_dir */
	long slots;			/* guests at once on this host */
	int slots_set;			/* lab.conf gave slots; else config_resolve_slots() */
	char *cpus;			/* host CPUs the lab may use, as written; NULL: every CPU */
	int *cpu_ids;			/* cpus as CPU ids, in the order written */
	int nr_cpus;
	int cpus_line;			/* where cpus was set (for messages) */
	char *pool;			/* the host's libvirt storage pool for the lab's volumes */
	char *pool_dir;			/* a dir pool's folder on that host, when the lab creates it */
};

/* The URI that means the lab's own embedded driver (rooted at state_dir). */
#define CONFIG_EMBED_URI "qemu:///embed"
/* A host's pool when lab.conf names none, and where a new one goes on that host. */
#define CONFIG_DEFAULT_POOL "mglrulab"
#define CONFIG_DEFAULT_POOL_DIR "/var/lib/libvirt/mglrulab"	/* beside libvirt's images; not resolved against lab.conf */
/* Most CPUs a [host] cpus list may name (ids 0 .. CONFIG_MAX_HOST_CPUS-1). */
#define CONFIG_MAX_HOST_CPUS 4096

struct stats_cfg {
	double alpha;			/* significance level */
	double confidence;		/* for the intervals */
	double threshold;		/* noise threshold, as a fraction (0.01 = 1%) */
	long resamples;			/* bootstrap resamples */
	double max_failed;		/* fraction of failed runs that makes a metric invalid */
};

struct run_cfg {
	struct strvec kernels;		/* first is the baseline */
	char *guest;
	struct strvec workloads;
	long runs;			/* repetitions per kernel and workload */
	long warmups;			/* extra runs per kernel, excluded from statistics */
	uint64_t seed;
	struct strvec hosts;		/* [host] names the runs go to (never empty after load) */
	int attribute;			/* RUN_ATTRIBUTE_*: attribution runs after the verdicts */
	int coherence;			/* RUN_ATTRIBUTE_*: coherence runs after the verdicts */
	/*
	 * [run] coherence = NAME ...: only these workloads get coherence runs,
	 * whatever their verdicts (coherence is then RUN_ATTRIBUTE_ALL); empty:
	 * coherence's choice applies to every workload. coherence_words is the
	 * key as written, which config_check_coherence() resolves.
	 */
	struct strvec coherence_workloads, coherence_words;
	/* the coherence cost model: ns per cache-line transfer within a node, across nodes */
	long coherence_ns_node, coherence_ns_remote;
	/*
	 * [run] partners (RUN_PARTNERS_*): with two slots or more on a host,
	 * whether its slots run a block's runs two at a time, baseline beside
	 * patched (balanced, the default), or each slot its own block (free).
	 */
	int partners;
	/*
	 * A sentence every report of the lab shows: what the experiment can
	 * and cannot see (a seed lab whose mechanism costs no instructions
	 * says why it runs on the host's clock). NULL: none.
	 */
	char *note;
};

/*
 * [run] coherence_ns_node, coherence_ns_remote: the latency model's
 * defaults, nanoseconds per cache-line transfer. Unverified: the paper
 * they were quoted from (David et al., SOSP 2013, Table 2) could not be
 * checked; docs/coherence.md, "The latency model", says what was.
 */
#define CONFIG_COH_NS_NODE	50
#define CONFIG_COH_NS_REMOTE	130

/* [run] attribute (docs/attribution.md), in the order of its choices. */
enum {
	RUN_ATTRIBUTE_OFF,
	RUN_ATTRIBUTE_CHANGED,		/* the workloads whose primary changed */
	RUN_ATTRIBUTE_ALL,
};
#define RUN_ATTRIBUTE_CHOICES	"off|changed|all"
/* RUN_ATTRIBUTE_* as lab.conf spells it ("off" for none), and back (-1: not one). */
const char *config_attribute_name(int attribute);
int config_attribute_parse(const char *name);

/*
 * [run] partners (docs/hosts.md, "Partners"): balanced pairs the slots of
 * a host and runs each block's A and B runs side by side, so that every
 * run's partner is the same workload on the other kernel; free gives each
 * slot blocks of its own (what ran beside a run is chance). 0 (balanced)
 * is the default.
 */
enum {
	RUN_PARTNERS_BALANCED,
	RUN_PARTNERS_FREE,
};
#define RUN_PARTNERS_CHOICES	"balanced|free"
/* RUN_PARTNERS_* as lab.conf and session.json spell it, and back (-1: not one). */
const char *config_partners_name(int partners);
int config_partners_parse(const char *name);

/* [report]: what the reply mail (`report --mail`, `run --mail`) says about its sender. */
struct report_cfg {
	char *mail_from;		/* NULL: "mglrulab <$USER@hostname>" */
	char *mail_to, *mail_cc;	/* NULL: left for the user */
	char *base_url;			/* where reports_dir is published; NULL: no link */
};

/*
 * [claim]: the effect the series claims (issue 50), so that the answer
 * can say whether this guest can test it (mechanism.h) and how the
 * interval stands against it. Recorded in session.json as "claim".
 */
struct claim_cfg {
	int line;			/* of the [claim] header; 0: no claim */
	char *workload;			/* [workload NAME] it concerns; NULL: every one */
	char *metric;			/* a metric or %d pattern; NULL: the primaries */
	char *direction;		/* "higher" or "lower": the metric's move */
	double size;			/* 0.023 for 2.3 %; < 0: not said */
	char *mechanism;		/* MECHANISM_CHOICES: what it goes through */
	char *source;			/* where it comes from ("cover letter, hardware"); NULL */
};

/* [watch]: `mglrulab watch`, a mailing-list archive's series (docs/watch.md). */
struct watch_cfg {
	char *archive;			/* a maildir or a public-inbox v2 folder */
	struct strvec paths;		/* "mm/" (a folder) or fnmatch patterns; empty: defaults */
	double grace_s;			/* how long a series may stay incomplete (0: default) */
	long max_patches;		/* larger series are skipped (0: default) */
	char *baseline;			/* the kernel a series goes on (NULL: [run] kernels' first) */
	double budget_s;		/* run time of each series' session (0: default) */
	double interval_s;		/* `watch run`: between two scans (0: default) */
	int history;			/* WATCH_HISTORY_*: the first scan's series */
	int bisect;			/* WATCH_BISECT_*: after a regression */
	/*
	 * Bytes the watch may keep of its series' kernels, trees and reports
	 * before it removes the least recently used (lab/watch/watch_disk.h);
	 * 0 with disk_budget_set: off. Unset: WATCH_DISK_BUDGET_DEFAULT.
	 */
	unsigned long long disk_budget;
	int disk_budget_set;
};

#define WATCH_HISTORY_CHOICES	"skip|measure"
enum { WATCH_HISTORY_SKIP, WATCH_HISTORY_MEASURE };
#define WATCH_BISECT_CHOICES	"regression|no"
enum { WATCH_BISECT_REGRESSION, WATCH_BISECT_NO };

struct lab_config {
	char *path;			/* absolute path of the file */
	char *dir;			/* its folder: relative paths resolve here */
	char *state_dir;		/* libvirt embed root, sessions' locks */
	char *cache_dir;		/* kernel and image cache */
	char *reports_dir;
	char *uri;			/* libvirt URI; "qemu:///embed" means embedded at state_dir */
	char *accel;			/* auto, kvm or tcg */
	long jobs;			/* make -j; 0 = number of CPUs */
	char *ccache;			/* "yes": kernel builds through ccache; "no" */
	struct sandbox_policy sandbox;	/* build_user, build_timeout, build_memory */

	struct kernel_cfg *kernels;
	size_t nr_kernels, alloc_kernels;
	struct guest_cfg *guests;
	size_t nr_guests, alloc_guests;
	struct workload_cfg *workloads;
	size_t nr_workloads, alloc_workloads;
	struct host_cfg *hosts;		/* [host] sections, or the implicit "local" host */
	size_t nr_hosts, alloc_hosts;
	struct strmap host_index;	/* host name -> index in hosts (config_host()) */
	struct run_cfg run;
	struct stats_cfg stats;
	struct report_cfg report;
	struct watch_cfg watch;
	struct claim_cfg claim;
};

/*
 * Load and validate @path. Returns 0, or LAB_EUSER with every problem found
 * appended to @err, one "FILE:LINE: ..." line each.
 */
LAB_MUST_CHECK
int config_load(const char *path, struct lab_config *cfg, struct strbuf *err);
void config_release(struct lab_config *cfg);

/*
 * Only the [report] section of @path into @out (the rest is not checked:
 * `report --mail` needs no lab). 0, or LAB_EUSER with the errors in @err.
 * report_cfg_release() @out either way.
 */
LAB_MUST_CHECK
int config_load_report(const char *path, struct report_cfg *out, struct strbuf *err);
void report_cfg_release(struct report_cfg *r);

/* Default config path: $MGLRULAB_CONFIG, else ./lab.conf. */
const char *config_default_path(void);
/* Load, printing errors; shared by every command that takes -c. */
LAB_MUST_CHECK
int config_load_or_report(const char *path, struct lab_config *cfg);

const struct kernel_cfg *config_kernel(const struct lab_config *cfg, const char *name);
/*
 * Like config_kernel(), and "NAME@K" names the kernel after the first K
 * patches of [kernel NAME]'s series (K from 0; 0 is NAME's source and
 * config without the series). A prefix kernel is added to @cfg the first
 * time it is named: pointers into cfg->kernels taken before may move.
 * NULL with the reason in @err (no such kernel, no series, a bad K).
 * Whether K is past the series' end is only known when it is split
 * (lab/kernel/ says so).
 */
LAB_MUST_CHECK
const struct kernel_cfg *config_kernel_resolve(struct lab_config *cfg, const char *name,
					       struct strbuf *err);
/* The separator of "NAME@K". */
#define CONFIG_PREFIX_SEP '@'
/*
 * Add a kernel @name to @cfg: [kernel @base]'s source and config with
 * @series (one mbox) as its series (`mglrulab watch`: a series from the
 * list on the baseline). NULL with the reason in @err when @base is not
 * a kernel of @cfg or @name is taken.
 */
const struct kernel_cfg *config_kernel_with_series(struct lab_config *cfg, const char *base,
						   const char *name, const char *series,
						   struct strbuf *err);
/*
 * Add a kernel @name to @cfg: [kernel @base] at git commit @ref instead
 * of its own (`mglrulab watch`: the baseline at a series' base-commit),
 * in the watch's build folder. NULL with the reason in @err, as above.
 */
const struct kernel_cfg *config_kernel_at(struct lab_config *cfg, const char *base,
					  const char *name, const char *ref, struct strbuf *err);
const struct workload_cfg *config_workload(const struct lab_config *cfg, const char *name);
/* The [host NAME] (or the implicit host) called @name, or NULL. */
const struct host_cfg *config_host(const struct lab_config *cfg, const char *name);
/*
 * Do the CPUs of every [run] host hold its slots' guests? A host with
 * cpus = LIST needs slots x @guest_vcpus CPUs in it. The guest's vCPUs
 * come from its topology file, which lab/config does not read: the caller
 * (lab/host/) passes them. Appends "FILE:LINE: ..." per host that does
 * not fit; returns 0, or LAB_EUSER.
 */
LAB_MUST_CHECK
int config_check_host_cpus(const struct lab_config *cfg, int slot_cpus, int icount,
			   struct strbuf *err);
/*
 * The slots of the [run] hosts that lab.conf leaves unset: under @icount,
 * one per CPU the lab may use on this machine (`cpus`, else the CPUs this
 * process may run on), for the embedded driver and qemu:///system; else,
 * and on other machines, one (docs/hosts.md, "Slots under icount").
 */
void config_resolve_slots(struct lab_config *cfg, int icount);
/* A workload parameter's effective value (set, or the definition's default). */
const char *workload_cfg_value(const struct workload_cfg *w, const char *param);
/* Its coherence_params' value of @param; NULL: not set there. */
const char *workload_cfg_coh_value(const struct workload_cfg *w, const char *param);
/*
 * The workload's primary metrics (names or "%d" patterns) appended to @out:
 * lab.conf's `primary =` when set, else the definition's (workload_def.h).
 */
void workload_cfg_primaries(const struct workload_cfg *w, struct strvec *out);

/* Resolved configuration as JSON text (for `config check --json` and reports). */
char *config_to_json(const struct lab_config *cfg);
void config_print(const struct lab_config *cfg, struct strbuf *out);

#endif
