// SPDX-License-Identifier: GPL-2.0
#include "workload_params.h"
#include "parse_num.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A program sizes its arrays by its own limits (workloads/lib/topo.h:
 * WL_MAX_CPUS 4096, WL_MAX_NODES 1024): a maximum here must stay within
 * them, because the program trusts this table.
 */

/* Every program takes these (workloads/lib/snap.h). */
#define COUNTER_PARAMS \
	{ "counters", PARAM_ENUM, "1", 0, 0, "0|1", \
	  "snapshot vmstat, node vmstat and lru_gen_full around the measured phase" }, \
	{ "tracepoints", PARAM_TRACEPOINTS, "", 0, 0, NULL, \
	  "tracepoints counted with hist triggers, sys:event,... (absent ones are recorded)" }

#define END { NULL, 0, NULL, 0, 0, NULL, NULL }

const char yield_pingpong_summary[] = "sched_yield ping-pong on a shared vs private mm";
const struct param_def yield_pingpong_params[] = {
	{ "mm", PARAM_ENUM, "shared", 0, 0, "shared|private",
	  "threads of one process (shared) or one process per CPU (private)" },
	{ "cpus", PARAM_INT_LIST, "1,2", 1, 4096, NULL,
	  "CPU counts to sweep, capped at the CPUs the program may use" },
	{ "duration", PARAM_SECONDS, "2", 100, 3600000, NULL,
	  "seconds measured per CPU count (to the millisecond: 0.5)" },
	{ "warmup", PARAM_INT, "1", 0, 600, NULL, "seconds run before measuring" },
	{ "reps", PARAM_INT, "5", 1, 100, NULL,
	  "windows the duration is cut into, read without stopping the tasks; the metric is"
	  " their median rate (1: one window)" },
	{ "ref_ms", PARAM_INT, "50", 0, 10000, NULL,
	  "milliseconds of a reference loop on each CPU before each window, which measures the"
	  " speed the host gives it (0: none; docs/reports.md, Host states)" },
	{ "ref_mib", PARAM_POW2, "8", 1, 1024, NULL,
	  "working set of the reference loop per CPU, MiB (a power of two)" },
	COUNTER_PARAMS,
	END,
};

const char will_it_scale_summary[] = "will-it-scale context_switch1 and sched_yield";
const struct param_def will_it_scale_params[] = {
	{ "test", PARAM_ENUM, "context_switch1", 0, 0, "context_switch1|sched_yield",
	  "will-it-scale test" },
	{ "mode", PARAM_ENUM, "threads", 0, 0, "threads|processes", "tasks as threads or processes" },
	{ "tasks", PARAM_INT, "1", 1, 4096, NULL, "-t: number of tasks" },
	{ "seconds", PARAM_INT, "3", 1, 3600, NULL, "-s: measured one-second samples" },
	{ "warmup", PARAM_INT, "5", 0, 600, NULL,
	  "warm-up samples before \"measurement\" (will-it-scale: 5; it discards warmup+1 samples)" },
	{ "binary", PARAM_STRING, "", 0, 0, NULL,
	  "guest path of a will-it-scale binary to run instead of the built-in test" },
	{ "ref_ms", PARAM_INT, "50", 0, 10000, NULL,
	  "milliseconds of a reference loop on each CPU before each measured sample (built-in"
	  " tests), which measures the speed the host gives it (0: none)" },
	{ "ref_mib", PARAM_POW2, "8", 1, 1024, NULL,
	  "working set of the reference loop per CPU, MiB (a power of two)" },
	COUNTER_PARAMS,
	END,
};

const char numa_workload_summary[] = "workers on one node while MGLRU ages the others";
const struct param_def numa_workload_params[] = {
	{ "workers", PARAM_INT, "2", 1, 1024, NULL, "W worker processes" },
	{ "mib", PARAM_INT, "16", 1, 1 << 20, NULL, "M MiB of anonymous memory per worker" },
	{ "node", PARAM_INT, "0", 0, 1023, NULL, "node the workers' CPUs and memory are bound to" },
	{ "duration", PARAM_INT, "5", 1, 36000, NULL, "seconds of touching while aging runs" },
	{ "age_interval_ms", PARAM_INT, "500", 10, 600000, NULL,
	  "explicit aging interval on the other nodes" },
	{ "can_swap", PARAM_ENUM, "1", 0, 0, "0|1", "4th field of the lru_gen aging command" },
	{ "force_scan", PARAM_ENUM, "0", 0, 0, "0|1", "5th field of the lru_gen aging command" },
	{ "on_erange", PARAM_ENUM, "evict", 0, 0, "evict|force|skip",
	  "when aging is refused (-ERANGE, MAX_NR_GENS reached): retire the empty generations,"
	  " force, or skip" },
	COUNTER_PARAMS,
	END,
};

const char kernel_build_summary[] = "make -jJ of a kernel tree inside a memory cgroup";
const struct param_def kernel_build_params[] = {
	{ "jobs", PARAM_INT, "2", 1, 1024, NULL, "make -jJ" },
	{ "memory_max", PARAM_SIZE, "512M", 0, 0, NULL, "memory.max of the build's cgroup" },
	{ "config", PARAM_TARGETS, "tinyconfig", 0, 1, NULL,
	  "config target made first, not measured (\"\" keeps none; unused with prepared)" },
	{ "prepared", PARAM_STRING, "", 0, 0, NULL,
	  "configured and prepared build folder (guest path) copied instead of the config step;"
	  " in lab.conf, host: mglrulab run prepares it natively from the baseline's .config" },
	{ "target", PARAM_TARGETS, "scripts", 1, 16, NULL,
	  "make targets measured, space-separated (the full kernel: bzImage)" },
	{ "artifact", PARAM_STRING, "", 0, 0, NULL,
	  "file (relative to the build dir) that must exist afterwards" },
	{ "src", PARAM_STRING, "/mnt/src", 0, 0, NULL,
	  "guest path of the kernel source (read-only is fine: built with O=)" },
	{ "path", PARAM_STRING, "", 0, 0, NULL,
	  "guest directories prepended to PATH (the toolchain), colon-separated" },
	{ "builddir", PARAM_STRING, "/tmp", 0, 0, NULL,
	  "guest directory for the O= build (tmpfs or disk)" },
	{ "keep", PARAM_ENUM, "0", 0, 0, "0|1", "1: keep the build directory afterwards" },
	{ "memcg", PARAM_ENUM, "1", 0, 0, "0|1",
	  "0: build outside a memory cgroup (debugging; not the original method)" },
	{ "chroot", PARAM_STRING, "", 0, 0, NULL,
	  "build chrooted in a tmpfs root of 9p shares TAG:/DIR,... (mglrulab run sets it)" },
	COUNTER_PARAMS,
	END,
};

const char mglru_aging_summary[] = "age a memcg through /sys/kernel/debug/lru_gen";
const struct param_def mglru_aging_params[] = {
	{ "mib", PARAM_INT, "64", 1, 1 << 20, NULL, "S MiB mapped and touched in a fresh memcg" },
	{ "generations", PARAM_INT, "20", 1, 100000, NULL, "G generations to age and time" },
	{ "warmup", PARAM_INT, "3", 0, 1000, NULL,
	  "generations aged first, not timed (the first ones run cold: 1.1-6 times the steady"
	  " cost in tiny-icount)" },
	{ "node", PARAM_INT, "0", 0, 1023, NULL, "node whose lruvec is aged (memory bound to it)" },
	{ "can_swap", PARAM_ENUM, "1", 0, 0, "0|1",
	  "4th field of the lru_gen aging command (anon is aged when 1)" },
	{ "force_scan", PARAM_ENUM, "1", 0, 0, "0|1",
	  "5th field of the lru_gen aging command (1: age even when MAX_NR_GENS generations exist)" },
	{ "ref_ms", PARAM_INT, "10", 0, 10000, NULL,
	  "milliseconds of a reference loop before each generation, on the CPU the aging runs on"
	  " (the node's first), which measures the speed the host gives it (0: none)" },
	{ "ref_mib", PARAM_POW2, "8", 1, 1024, NULL,
	  "working set of the reference loop, MiB (a power of two)" },
	COUNTER_PARAMS,
	END,
};

const char thp_scale_summary[] = "THP faults on fragmented memory while compaction runs (thpscale)";
const struct param_def thp_scale_params[] = {
	{ "threads", PARAM_INT, "2", 1, 1024, NULL, "T threads faulting in huge-page-sized regions" },
	{ "mib", PARAM_INT, "0", 0, 1 << 22, NULL,
	  "mapsize in MiB: half filled and punched, half faulted (0: 80% of MemTotal, as mmtests)" },
	{ "thp", PARAM_ENUM, "always", 0, 0, "always|madvise|never",
	  "transparent_hugepage/enabled during the run (madvise: the faulted regions get"
	  " MADV_HUGEPAGE)" },
	{ "defrag", PARAM_ENUM, "madvise", 0, 0, "always|defer|defer+madvise|madvise|never",
	  "transparent_hugepage/defrag during the run (madvise, the kernel default: direct"
	  " compaction only for MADV_HUGEPAGE regions)" },
	{ "fragment", PARAM_ENUM, "1", 0, 0, "0|1",
	  "1: fill half the mapsize with small pages and free every other half huge page first" },
	COUNTER_PARAMS,
	END,
};

const char coh_calib_summary[] =
	"coherence model calibration: two pinned threads add to a shared, false-shared or own line";
const struct param_def coh_calib_params[] = {
	{ "case", PARAM_ENUM, "all", 0, 0, "all|shared|false|separate",
	  "which counters the two threads add to (all: the three in turn, one measured phase each)" },
	{ "iters", PARAM_INT, "200000", 1, 1000000000, NULL, "locked adds per thread and case" },
	COUNTER_PARAMS,
	END,
};

const struct param_def *param_find(const struct param_def *params, const char *name)
{
	for (const struct param_def *p = params; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/* One list item: [s, s + len) without the blanks around it. */
static int list_item(const struct param_def *p, const char *s, size_t len, long *v)
{
	char buf[32];

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return parse_long(buf, p->min, p->max, v);
}

static int blank(const char *s, size_t len)
{
	return strspn(s, " \t") >= len;
}

long param_parse_list(const struct param_def *p, const char *value, long *out, size_t max)
{
	const char *s = value;
	long n = 0;

	for (;;) {
		size_t len = strcspn(s, ",");
		long v;

		if (!blank(s, len)) {
			if (list_item(p, s, len, &v))
				return -1;
			if (out && (size_t)n < max)
				out[n] = v;
			n++;
		}
		if (!s[len])
			break;
		s += len + 1;
	}
	return n ? n : -1;
}

int param_choice(const struct param_def *p, const char *value)
{
	size_t vl = strlen(value);
	int idx = 0;

	for (const char *c = p->choices; c && *c; idx++) {
		size_t l = strcspn(c, "|");

		if (l == vl && !strncmp(c, value, l))
			return idx;
		c += l;
		if (*c == '|')
			c++;
	}
	return -1;
}

/* K, M, G, T: the shift of the suffix @c; -1 for another character. */
static int size_shift(char c)
{
	static const char units[] = "KMGT";
	const char *u = c ? strchr(units, c >= 'a' ? c - 'a' + 'A' : c) : NULL;

	return u ? 10 * (int)(u - units + 1) : -1;
}

int param_parse_size(const char *value, unsigned long long *bytes)
{
	unsigned long long v = 0;
	const char *s = value;
	int shift = 0;

	if (!strcmp(value, "max")) {
		if (bytes)
			*bytes = PARAM_SIZE_MAX;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (PARAM_SIZE_MAX - (unsigned)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
	}
	if (*s) {
		shift = size_shift(*s);
		if (shift < 0 || s[1])
			return -1;
		if (v > PARAM_SIZE_MAX >> shift)
			return -1;
	}
	if (bytes)
		*bytes = v << shift;
	return 0;
}

long param_targets(const char *value)
{
	const char *s = value;
	long n = 0;

	if (strlen(value) >= PARAM_TARGETS_MAX_LEN)
		return -1;
	for (;;) {
		size_t len;

		s += strspn(s, " \t");
		len = strcspn(s, " \t");
		if (!len)
			return n;
		if (s[0] == '-' || memchr(s, '=', len))
			return -1;
		n++;
		s += len;
	}
}

/* A tracefs directory name: letters, digits, '_', '-', '.', not "." or ".." or hidden. */
static int tp_ident(const char *s, size_t n)
{
	if (!n || s[0] == '.')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

long param_tracepoint(const char *s, size_t len)
{
	const char *colon = memchr(s, ':', len);
	size_t sys, evt;

	if (!colon)
		return -1;
	sys = (size_t)(colon - s);
	evt = len - sys - 1;
	if (!tp_ident(s, sys) || !tp_ident(colon + 1, evt) || sys >= PARAM_TP_SYS_LEN ||
	    evt >= PARAM_TP_EVT_LEN)
		return -1;
	return (long)sys;
}

/* Every item of a tracepoint list is one (the list may be empty). */
static int tracepoints_ok(const char *value)
{
	for (const char *s = value;;) {
		size_t len;

		s += strspn(s, ", \t");
		len = strcspn(s, ", \t");
		if (!len)
			return 0;
		if (param_tracepoint(s, len) < 0)
			return -1;
		s += len;
	}
}

int param_parse_ms(const char *value, long *ms)
{
	long whole = 0, frac = 0;
	int digits = 0, decimals = 0;
	const char *s = value;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > 1000000000L)
			return -1;
		whole = whole * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, decimals++) {
			if (decimals == 3)
				return -1;
			frac = frac * 10 + (*s - '0');
		}
	if (*s || !digits)
		return -1;
	while (decimals++ < 3)
		frac *= 10;
	*ms = whole * 1000 + frac;
	return 0;
}

int param_check(const struct param_def *p, const char *value)
{
	long v;

	switch (p->type) {
	case PARAM_INT:
		return parse_long(value, p->min, p->max, &v);
	case PARAM_INT_LIST:
		return param_parse_list(p, value, NULL, 0) < 0 ? -1 : 0;
	case PARAM_ENUM:
		return param_choice(p, value) < 0 ? -1 : 0;
	case PARAM_SIZE:
		return param_parse_size(value, NULL);
	case PARAM_POW2:
		return parse_long(value, p->min, p->max, &v) || (v & (v - 1)) ? -1 : 0;
	case PARAM_TARGETS:
		v = param_targets(value);
		return v < p->min || v > p->max ? -1 : 0;
	case PARAM_TRACEPOINTS:
		return tracepoints_ok(value);
	case PARAM_SECONDS:
		return param_parse_ms(value, &v) || v < p->min || v > p->max ? -1 : 0;
	case PARAM_STRING:
	case PARAM_PATH:
		break;
	}
	return 0;
}

void param_expected(const struct param_def *p, char *buf, size_t size)
{
	switch (p->type) {
	case PARAM_INT:
		snprintf(buf, size, "an integer from %ld to %ld", p->min, p->max);
		return;
	case PARAM_INT_LIST:
		snprintf(buf, size, "a comma-separated list of integers from %ld to %ld",
			 p->min, p->max);
		return;
	case PARAM_ENUM:
		snprintf(buf, size, "one of %s", p->choices);
		return;
	case PARAM_SIZE:
		snprintf(buf, size, "a size in bytes with an optional K, M, G or T suffix "
			 "(such as 512M or 3G; no B), or max");
		return;
	case PARAM_POW2:
		snprintf(buf, size, "a power of two from %ld to %ld", p->min, p->max);
		return;
	case PARAM_TARGETS:
		if (p->max == 1)
			snprintf(buf, size, "%sa make target (not -OPTION or VAR=VALUE)",
				 p->min ? "" : "empty or ");
		else
			snprintf(buf, size, "%ld to %ld make targets separated by blanks "
				 "(not -OPTION or VAR=VALUE)", p->min, p->max);
		return;
	case PARAM_TRACEPOINTS:
		snprintf(buf, size, "subsystem:event tracepoints separated by commas "
			 "(such as vmscan:mm_vmscan_lru_gen_scan), or empty");
		return;
	case PARAM_SECONDS:
		snprintf(buf, size, "seconds from %g to %g, to the millisecond (such as 0.5)",
			 p->min / 1000.0, p->max / 1000.0);
		return;
	case PARAM_STRING:
	case PARAM_PATH:
		break;
	}
	snprintf(buf, size, "any text");
}
