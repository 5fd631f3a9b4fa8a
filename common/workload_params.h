/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parameters of each workload program, defined once: name, type,
 * default, allowed values and help. The host checks a [workload NAME]
 * section of lab.conf against them (lab/workload/workload_defs.c) and
 * passes each value as --name=value; the program (workloads/NAME.c,
 * through workloads/lib/args.c) parses its argv with the same table and
 * the same check, so a value the host refuses the program refuses too,
 * with the same words, and --help prints these defaults.
 *
 * Plain C without dependencies: compiled into mglrulab and into the static
 * guest programs.
 */
#ifndef LAB_WORKLOAD_PARAMS_H
#define LAB_WORKLOAD_PARAMS_H

#include "must_check.h"

#include <stddef.h>

enum param_type {
	PARAM_INT,		/* integer in [min, max] */
	PARAM_INT_LIST,		/* comma-separated integers, each in [min, max] */
	PARAM_ENUM,		/* one of choices ("a|b|c") */
	PARAM_STRING,		/* free text (a guest path, a binary, ...) */
	PARAM_PATH,		/* a host path, resolved against lab.conf's folder */
	PARAM_SIZE,		/* a memory size for a cgroup file: param_parse_size() */
	PARAM_POW2,		/* a power of two in [min, max] */
	PARAM_TARGETS,		/* make targets: param_targets() */
	PARAM_TRACEPOINTS,	/* subsystem:event list: param_tracepoint() */
	PARAM_SECONDS,		/* seconds, to the millisecond: param_parse_ms(); min, max in ms */
};

struct param_def {
	const char *name;	/* the program's --name (with underscores) and the lab.conf key */
	enum param_type type;
	const char *def;	/* default, as written in lab.conf; never NULL */
	long min, max;		/* PARAM_INT, _INT_LIST, _POW2; PARAM_TARGETS: how many;
				 * PARAM_SECONDS: milliseconds */
	const char *choices;	/* PARAM_ENUM: "threads|processes" */
	const char *help;
};

/*
 * Each workload's parameters (NULL-name terminated) and one-line summary.
 * Defaults are sized for the `tiny` guest under TCG so the demo and CI stay
 * short; lab.conf's comments show the full-size values of the original
 * linux-mm measurements.
 */
extern const struct param_def yield_pingpong_params[];
extern const char yield_pingpong_summary[];
extern const struct param_def will_it_scale_params[];
extern const char will_it_scale_summary[];
extern const struct param_def numa_workload_params[];
extern const char numa_workload_summary[];
extern const struct param_def kernel_build_params[];
extern const char kernel_build_summary[];
extern const struct param_def mglru_aging_params[];
extern const char mglru_aging_summary[];
extern const struct param_def thp_scale_params[];
extern const char thp_scale_summary[];
extern const struct param_def coh_calib_params[];
extern const char coh_calib_summary[];

/* @name in @params, or NULL. */
const struct param_def *param_find(const struct param_def *params, const char *name);

/* Is @value allowed for @p? 0 or -1. */
LAB_MUST_CHECK
int param_check(const struct param_def *p, const char *value);
/* What @p allows, for a message "expected ...": "an integer from 1 to 3600". */
void param_expected(const struct param_def *p, char *buf, size_t size);
/*
 * A PARAM_SECONDS value ("2", "0.5", "1.25": seconds with at most three
 * decimals, no sign, no exponent) in milliseconds into *@ms; 0 or -1.
 * Under icount a rate is exact, so half a second of measurement is as
 * good as two: the unit is the second, its resolution the millisecond.
 */
LAB_MUST_CHECK
int param_parse_ms(const char *value, long *ms);
/*
 * A PARAM_INT_LIST value: integers in [p->min, p->max] separated by
 * commas, blanks around them allowed, empty items skipped, at least one.
 * Stores up to @max of them in @out (may be NULL) and returns how many
 * there are, or -1 when malformed.
 */
LAB_MUST_CHECK
long param_parse_list(const struct param_def *p, const char *value, long *out, size_t max);
/*
 * A PARAM_SIZE value, as a cgroup v2 memory.max takes it and the guest
 * program writes it: "max", or decimal digits with at most one suffix
 * K, M, G or T (either case; powers of 1024), such as 512M or 3G. No
 * blanks, no "B" ("160MB" is refused: the kernel would refuse it in the
 * guest). Stores the bytes in *@bytes (may be NULL; "max" is
 * PARAM_SIZE_MAX). 0, or -1 when malformed or past 2^64.
 */
#define PARAM_SIZE_MAX (~0ULL)
LAB_MUST_CHECK
int param_parse_size(const char *value, unsigned long long *bytes);
/*
 * A PARAM_TARGETS value: make targets separated by blanks, none starting
 * with '-' (an option) or holding '=' (a variable), shorter than
 * PARAM_TARGETS_MAX_LEN in all. How many there are, or -1.
 */
#define PARAM_TARGETS_MAX_LEN 1024
LAB_MUST_CHECK
long param_targets(const char *value);

/*
 * One item of a PARAM_TRACEPOINTS list (items separated by ',' or
 * blanks): [s, s + len) is "subsystem:event", each part of letters,
 * digits, '_', '-' and '.', not starting with '.' (a tracefs path), the
 * subsystem shorter than PARAM_TP_SYS_LEN, the event than
 * PARAM_TP_EVT_LEN. The colon's offset, or -1.
 */
#define PARAM_TP_SYS_LEN 64
#define PARAM_TP_EVT_LEN 128
LAB_MUST_CHECK
long param_tracepoint(const char *s, size_t len);
/* Index of @value among @p's choices, or -1. */
LAB_MUST_CHECK
int param_choice(const struct param_def *p, const char *value);

#endif
