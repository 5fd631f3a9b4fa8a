// SPDX-License-Identifier: GPL-2.0
#include "workload_def.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/*
 * Defaults are sized for the `tiny` guest under TCG so the demo and CI stay
 * short; lab.conf's comments show the full-size values of the original
 * linux-mm measurements.
 */
static const struct param_def yield_pingpong_params[] = {
	{ "mm", PARAM_ENUM, "shared", 0, 0, "shared|private",
	  "threads of one process (shared) or one process per CPU (private)" },
	{ "cpus", PARAM_INT_LIST, "1,2", 1, 4096, NULL,
	  "CPU counts to sweep, capped at the guest's CPUs" },
	{ "duration", PARAM_INT, "2", 1, 3600, NULL, "seconds measured per CPU count" },
	{ "warmup", PARAM_INT, "1", 0, 600, NULL, "seconds run before measuring" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

static const struct metric_def yield_pingpong_metrics[] = {
	{ "cs_per_sec_per_cpu_%dcpu", "switches/s", BETTER_HIGHER,
	  "context switches per second per CPU at that CPU count" },
	{ NULL, NULL, 0, NULL },
};

static const struct param_def will_it_scale_params[] = {
	{ "test", PARAM_ENUM, "context_switch1", 0, 0, "context_switch1|sched_yield", "will-it-scale test" },
	{ "mode", PARAM_ENUM, "threads", 0, 0, "threads|processes", "tasks as threads or processes" },
	{ "tasks", PARAM_INT, "1", 1, 4096, NULL, "-t: number of tasks" },
	{ "seconds", PARAM_INT, "8", 6, 3600, NULL, "-s: seconds, the first 5 are warm-up" },
	{ "checkout", PARAM_PATH, "", 0, 0, NULL, "optional local will-it-scale checkout to build instead" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

static const struct metric_def will_it_scale_metrics[] = {
	{ "ops_per_sec", "ops/s", BETTER_HIGHER, "average operations per second after warm-up" },
	{ NULL, NULL, 0, NULL },
};

static const struct param_def numa_workload_params[] = {
	{ "workers", PARAM_INT, "2", 1, 1024, NULL, "W workers" },
	{ "mib", PARAM_INT, "16", 1, 1 << 20, NULL, "M MiB of anonymous memory per worker" },
	{ "node", PARAM_INT, "0", 0, 1023, NULL, "node the workers are bound to" },
	{ "duration", PARAM_INT, "5", 1, 36000, NULL, "seconds of touching" },
	{ "age_interval_ms", PARAM_INT, "500", 10, 600000, NULL, "explicit aging interval on the other nodes" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

static const struct metric_def numa_workload_metrics[] = {
	{ "walks_node%d", "walks", BETTER_LOWER, "page-table walks on that node" },
	{ "leaf_per_walk_node%d", "PTEs/walk", BETTER_LOWER, "leaf entries scanned per walk" },
	{ NULL, NULL, 0, NULL },
};

static const struct param_def kernel_build_params[] = {
	{ "jobs", PARAM_INT, "2", 1, 1024, NULL, "make -jJ" },
	{ "memory_max", PARAM_STRING, "512M", 0, 0, NULL, "memory.max of the build's cgroup" },
	{ "target", PARAM_STRING, "scripts", 0, 0, NULL, "make target (the full kernel: bzImage)" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

static const struct metric_def kernel_build_metrics[] = {
	{ "elapsed_s", "s", BETTER_LOWER, "wall-clock build time" },
	{ "pgpgin", "pages", BETTER_LOWER, "pages paged in" },
	{ "pgmajfault", "faults", BETTER_LOWER, "major faults" },
	{ NULL, NULL, 0, NULL },
};

static const struct param_def mglru_aging_params[] = {
	{ "mib", PARAM_INT, "64", 1, 1 << 20, NULL, "S MiB mapped in a fresh memcg" },
	{ "generations", PARAM_INT, "20", 1, 100000, NULL, "G generations to age" },
	{ NULL, 0, NULL, 0, 0, NULL, NULL },
};

static const struct metric_def mglru_aging_metrics[] = {
	{ "total_ms", "ms", BETTER_LOWER, "time to age G generations" },
	{ "avg_ms_per_gen", "ms", BETTER_LOWER, "average time per generation" },
	{ NULL, NULL, 0, NULL },
};

const struct workload_def workload_defs[] = {
	{ "yield_pingpong", "sched_yield ping-pong on a shared vs private mm",
	  yield_pingpong_params, yield_pingpong_metrics },
	{ "will_it_scale", "will-it-scale context_switch1 and sched_yield",
	  will_it_scale_params, will_it_scale_metrics },
	{ "numa_workload", "workers on one node while MGLRU ages the others",
	  numa_workload_params, numa_workload_metrics },
	{ "kernel_build", "make -jJ inside a memory cgroup",
	  kernel_build_params, kernel_build_metrics },
	{ "mglru_aging", "age a memcg through /sys/kernel/debug/lru_gen",
	  mglru_aging_params, mglru_aging_metrics },
	{ NULL, NULL, NULL, NULL },
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
	for (const struct param_def *p = w->params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

static int choice_ok(const char *choices, const char *value)
{
	size_t vl = strlen(value);

	for (const char *c = choices; *c;) {
		size_t l = strcspn(c, "|");
		if (l == vl && !strncmp(c, value, l))
			return 1;
		c += l;
		if (*c == '|')
			c++;
	}
	return 0;
}

int workload_param_check(const struct param_def *p, const char *value, char **expected)
{
	long v;

	switch (p->type) {
	case PARAM_INT:
		if (!parse_long(value, p->min, p->max, &v))
			return 0;
		*expected = xasprintf("an integer from %ld to %ld", p->min, p->max);
		return -1;
	case PARAM_INT_LIST: {
		struct strvec items = STRVEC_INIT;
		int bad = 0;
		strvec_split(&items, value, ", ");
		bad = items.n == 0;
		for (size_t i = 0; i < items.n && !bad; i++)
			bad = parse_long(items.v[i], p->min, p->max, &v) != 0;
		strvec_clear(&items);
		if (!bad)
			return 0;
		*expected = xasprintf("a comma-separated list of integers from %ld to %ld",
				      p->min, p->max);
		return -1;
	}
	case PARAM_ENUM:
		if (choice_ok(p->choices, value))
			return 0;
		*expected = xasprintf("one of %s", p->choices);
		return -1;
	case PARAM_STRING:
	case PARAM_PATH:
		return 0;
	}
	return 0;
}
