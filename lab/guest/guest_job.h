/* SPDX-License-Identifier: GPL-2.0 */
/* The job handed to a guest (common/guest_protocol.h, docs/guest-protocol.md). */
#ifndef LAB_GUEST_JOB_H
#define LAB_GUEST_JOB_H

#include "util.h"

/*
 * The job JSON for one run: @workload ("" for a topology-only boot) run
 * with @args (NULL-terminated "--key=value" strings, or NULL), killed by
 * the runner after @timeout_s (0: never; the host's run timeout still
 * applies). Caller frees. NULL with errno EILSEQ when @run_id, @workload
 * or an argument is not valid UTF-8 (JSON cannot carry it), ENOMEM when
 * out of memory.
 */
LAB_MUST_CHECK
char *guest_job_json(const char *run_id, const char *workload, const char *const *args,
		     int timeout_s);

/*
 * The kernel command line a job needs, or NULL when it needs nothing:
 * "trace_event=sys:evt,..." for the tracepoints in @args' --tracepoints=
 * (unless --counters=0), so that the kernel registers their probes at boot,
 * before the secondary CPUs start. Registering one later rewrites a call in
 * the hottest kernel text (trace_sched_switch() in __schedule()) while the
 * other vCPUs run it; under multi-threaded TCG (QEMU 7.2) a vCPU then now
 * and then executes the int3 of that rewrite after the kernel has taken it
 * out again and the guest panics ("Oops: int3"; 1 run in 40 of
 * tests/fixtures/labs/workloads.conf's yield_shared). The runner then keeps
 * the probes registered (workloads/lib/snap.c). Caller frees.
 */
char *guest_job_cmdline(const char *const *args);

#endif
