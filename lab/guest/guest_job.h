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

#endif
