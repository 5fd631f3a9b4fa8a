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

struct workload_def {
	const char *name;	/* the program under workloads/ and the [workload NAME] type */
	const char *summary;
	const struct param_def *params;		/* NULL-name terminated, from common/ */
	const struct metric_def *metrics;	/* NULL-name terminated */
};

/* All workloads, NULL-name terminated. */
extern const struct workload_def workload_defs[];
const struct workload_def *workload_find(const char *name);
const struct param_def *workload_param(const struct workload_def *w, const char *name);
/*
 * Check @value against @p. Returns 0, or -1 with a message saying what was
 * expected in @expected (caller frees).
 */
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
