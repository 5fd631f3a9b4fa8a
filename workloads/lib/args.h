/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --key=value arguments. Each program declares the options it accepts
 * (with defaults) in one table; anything else is an error, so a typo in
 * lab.conf fails loudly instead of silently running the default.
 * Keys may be written with '-' or '_' (--memory-max and --memory_max).
 */
#ifndef WL_ARGS_H
#define WL_ARGS_H

#include <stddef.h>

struct wl_opt {
	const char *name;	/* with underscores */
	const char *def;	/* default value, NULL = required */
	const char *help;
	const char *val;	/* filled by wl_args_parse */
};

/*
 * Parse argv into @opts (NULL-name terminated). --help prints the table
 * and exits 0; an unknown or malformed option prints an error line and
 * exits 1. @summary is printed by --help.
 */
void wl_args_parse(struct wl_opt *opts, int argc, char **argv, const char *summary);

const char *wl_arg(const struct wl_opt *opts, const char *name);
/* Integer in [min, max]; exits 1 with an error line otherwise. */
long wl_arg_long(const struct wl_opt *opts, const char *name, long min, long max);
/* Comma-separated integers in [min, max]; returns the count, *out is malloc'd. */
size_t wl_arg_long_list(const struct wl_opt *opts, const char *name, long min, long max,
			long **out);
/* One of "a|b|c"; returns the index. */
int wl_arg_choice(const struct wl_opt *opts, const char *name, const char *choices);

/* Emit {"type":"info","params":{...}} with every option's effective value. */
void wl_args_info(const struct wl_opt *opts, const char *program);

#endif
