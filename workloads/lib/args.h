/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --key=value arguments, parsed with the program's parameter table from
 * common/workload_params.h: the table the host checks lab.conf with, so
 * defaults, allowed values and help are defined once. Every value is
 * checked as it is parsed, and anything unknown is an error, so a typo
 * fails loudly instead of silently running the default. Keys may be
 * written with '-' or '_' (--memory-max and --memory_max).
 */
#ifndef WL_ARGS_H
#define WL_ARGS_H

#include <stddef.h>

#include "workload_params.h"

#define WL_ARGS_MAX 32

struct wl_args {
	const char *program;
	const struct param_def *params;	/* NULL-name terminated */
	const char *val[WL_ARGS_MAX];	/* by index in params, filled by wl_args_parse */
};

/*
 * Parse argv into @a. --help prints the table and exits 0; an unknown,
 * malformed or refused option prints an error line and exits WL_EXIT_FAIL.
 * @summary is printed by --help.
 */
void wl_args_parse(struct wl_args *a, const char *program, const struct param_def *params,
		   const char *summary, int argc, char **argv);

const char *wl_arg(const struct wl_args *a, const char *name);
/* A PARAM_INT, or a PARAM_ENUM of numbers ("0|1"), as a number. */
long wl_arg_long(const struct wl_args *a, const char *name);
/* A PARAM_SECONDS, in seconds (its millisecond resolution kept). */
double wl_arg_seconds(const struct wl_args *a, const char *name);
/* A PARAM_INT_LIST; returns the count, *out is malloc'd. */
size_t wl_arg_long_list(const struct wl_args *a, const char *name, long **out);
/* A PARAM_ENUM: the index of its value among the choices. */
int wl_arg_choice(const struct wl_args *a, const char *name);

/* Emit {"type":"info","program":...,"param_NAME":...} with every option's effective value. */
void wl_args_info(const struct wl_args *a);

#endif
