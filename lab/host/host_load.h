/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How busy the host was while a run ran. Under TCG every guest instruction
 * is host work, so anything else the host does (another build, a second
 * lab, the hypervisor under a cloud VM stealing time) moves the result.
 * Each run records its own host CPU time (QEMU's, as libvirt reports it,
 * and this process's), the CPU time everything else took, and the steal
 * time, so the report can flag runs taken on a busy host.
 */
#ifndef LAB_HOST_LOAD_H
#define LAB_HOST_LOAD_H

#include "util.h"

#include <jansson.h>

struct host_sample {
	double wall;			/* monotonic seconds */
	double busy_s, steal_s;		/* /proc/stat: non-idle and steal CPU seconds */
	double self_s, children_s;	/* getrusage: this process, its reaped children */
	double load1;			/* /proc/loadavg */
	int ok;				/* /proc/stat could be read */
};

/*
 * A run is flagged when the rest of the host used more than this much of
 * one CPU on average during the run, or the hypervisor stole more than
 * HOST_STEAL_LIMIT of the run's CPU time.
 */
#define HOST_OTHER_CPU_LIMIT	0.25
#define HOST_STEAL_LIMIT	0.05

void host_sample_take(struct host_sample *s);

/*
 * The run's "host_load" record from two samples taken around it and
 * QEMU's CPU time over the run (@qemu_cpu_s, domain_run.h):
 * {"wall_s", "run_cpu_s", "other_cpu_s", "steal_s", "load1", "busy", ...}.
 * NULL when /proc/stat was not readable.
 */
json_t *host_load_json(const struct host_sample *before, const struct host_sample *after,
		       double qemu_cpu_s);

/* Parse the "cpu " line of /proc/stat: busy (non-idle, non-iowait) and steal ticks. */
LAB_MUST_CHECK
int host_parse_proc_stat(const char *text, unsigned long long *busy, unsigned long long *steal);

#endif
