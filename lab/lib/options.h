/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Not thread-safe: getopt_long()'s globals (optind); for main()'s command
 * line only.
 *
 * Command-line options from a table, over glibc's getopt_long (git's
 * parse-options in spirit). A command declares its options once, next to
 * its code:
 *
 *	static const struct lab_option run_options[] = {
 *		LAB_OPT_STRING("config", 'c', struct session_opts, config, "FILE",
 *			       "configuration file (default: lab.conf)"),
 *		LAB_OPT_LONG("runs", 0, struct session_opts, runs, 1, 10000, "N",
 *			     "repetitions per kernel and workload"),
 *		LAB_OPT_END
 *	};
 *
 * and that one table drives the parsing (the getopt_long option array and
 * short-option string are built from it), the conversion and range check
 * of each value, the error messages, and the usage that -h prints.
 *
 * Where a value goes is an offset into the command's own options struct
 * (passed to lab_options_parse() as @base), so the tables can be static
 * const and `mglrulab help CMD` can print them without parsing anything;
 * an option that sets a global (-v, -q) names it with .ptr instead.
 *
 * What getopt_long gives us for free: --opt=V and --opt V, -cV and -c V,
 * clustered short flags (-qv) and "--" ending the options. Not its
 * abbreviations of long names: "--htm x.html" was taken as --html without
 * a word, and an abbreviation that works today breaks a script once a
 * second option shares its prefix. A long name is spelled whole; a prefix
 * of one is refused with "did you mean --html?".
 */
#ifndef LAB_OPTIONS_H
#define LAB_OPTIONS_H

#include "util.h"

#include <stddef.h>

struct strbuf;

enum lab_opt_kind {
	LAB_OPT_END_KIND,
	LAB_OPT_FLAG,		/* int = .ival (1 for a plain flag); also an enum field */
	LAB_OPT_COUNT,		/* int += 1 (-v -v) */
	LAB_OPT_STRING,		/* const char * = the argument (argv is not copied) */
	LAB_OPT_LONG,		/* long, an integer from .min to .max */
	LAB_OPT_U64,		/* uint64_t, any non-negative integer (0x allowed) */
	LAB_OPT_DURATION,	/* double seconds > 0: "900", "90s", "15m", "1h30m" */
	LAB_OPT_CHOICE,		/* int (or enum) = the value of one of .choices */
	LAB_OPT_CALLBACK,	/* .cb decides; for values that are more than one field */
};

/* LAB_OPT_CHOICE: the accepted words and what each stores; ends with { NULL }. */
struct lab_choice {
	const char *name;
	int value;
};

/*
 * .flags: LAB_OPT_OPTIONAL_ARG: the value may be left out ("--resume" or
 * "--resume ID"): it is --opt=V, or the next argument when that does not
 * start with '-'. Without a value, the option's value is NULL (a
 * callback's @arg; a STRING is left as it was).
 */
#define LAB_OPT_OPTIONAL_ARG	0x1
/*
 * With LAB_OPT_OPTIONAL_ARG: the next argument is the value only when it
 * is "-" (--mail -, as --html - says "stdout"); any other is left for the
 * command (`report --mail FILE.json` keeps its report).
 */
#define LAB_OPT_DASH_ONLY	0x2

struct lab_option;

/* What a callback is given; lab_opt_error() reports against it. */
struct lab_opt_ctx {
	const char *what;		/* "run", "kernel build": the command, for messages
					 * (NULL: mglrulab's own options) */
	const struct lab_option *opt;
	void *base;			/* the command's options struct */
};

/* A callback returns 0, or the status of lab_opt_error(). */
typedef int (*lab_opt_cb)(const struct lab_opt_ctx *ctx, const char *arg);

struct lab_option {
	const char *long_name;		/* NULL: short letter only */
	int short_name;			/* 0: long name only */
	enum lab_opt_kind kind;
	size_t off;			/* where the value goes: @base + off ... */
	void *ptr;			/* ... or here, when set (a global) */
	const char *argname;		/* "FILE", "N": in usage; NULL for no value */
	const char *help;		/* one line; '\n' continues it, indented */
	long min, max;			/* LAB_OPT_LONG */
	int ival;			/* LAB_OPT_FLAG */
	const struct lab_choice *choices;	/* LAB_OPT_CHOICE */
	lab_opt_cb cb;			/* LAB_OPT_CALLBACK */
	unsigned flags;
};

#define LAB_OPT_FIELD_(type, field) .off = offsetof(type, field)

#define LAB_OPT_BOOL(l, s, type, field, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_FLAG, \
	  LAB_OPT_FIELD_(type, field), .ival = 1, .help = (h) }
#define LAB_OPT_SET_INT(l, s, type, field, v, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_FLAG, \
	  LAB_OPT_FIELD_(type, field), .ival = (v), .help = (h) }
#define LAB_OPT_STRING(l, s, type, field, arg, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_STRING, \
	  LAB_OPT_FIELD_(type, field), .argname = (arg), .help = (h) }
#define LAB_OPT_LONG(l, s, type, field, lo, hi, arg, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_LONG, \
	  LAB_OPT_FIELD_(type, field), .min = (lo), .max = (hi), .argname = (arg), .help = (h) }
#define LAB_OPT_U64(l, s, type, field, arg, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_U64, \
	  LAB_OPT_FIELD_(type, field), .argname = (arg), .help = (h) }
#define LAB_OPT_DURATION(l, s, type, field, arg, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_DURATION, \
	  LAB_OPT_FIELD_(type, field), .argname = (arg), .help = (h) }
#define LAB_OPT_CHOICE(l, s, type, field, list, arg, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_CHOICE, \
	  LAB_OPT_FIELD_(type, field), .choices = (list), .argname = (arg), .help = (h) }
/* @arg NULL: a flag, the callback gets NULL. */
#define LAB_OPT_CALLBACK(l, s, fn, arg, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_CALLBACK, \
	  .cb = (fn), .argname = (arg), .help = (h) }
/* A counter or flag kept in a global (lab_verbose, lab_quiet). */
#define LAB_OPT_GLOBAL_COUNT(l, s, var, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_COUNT, .ptr = &(var), .help = (h) }
#define LAB_OPT_GLOBAL_BOOL(l, s, var, h) \
	{ .long_name = (l), .short_name = (s), .kind = LAB_OPT_FLAG, .ptr = &(var), .ival = 1, \
	  .help = (h) }
#define LAB_OPT_END { .kind = LAB_OPT_END_KIND }

/*
 * A command's help: the synopsis lines (each printed after "usage: " or
 * its indent), a description, the options (one line each) and a closing
 * text (exit statuses). Everything but .synopsis may be NULL.
 */
struct lab_usage {
	const char *const *synopsis;	/* NULL-terminated: "mglrulab run [--ab | --aa] ..." */
	const char *description;
	const struct lab_option *options;
	const char *footer;
	int stop_at_arg;		/* options end at the first argument (a command name) */
};

/* lab_options_parse(): -h or --help was given and the usage printed. */
#define LAB_OPTS_HELP (-1)

/*
 * Parse argv[1..argc-1] (argv[0] is not looked at) against @u->options,
 * storing values at @base. Positional arguments are moved, in order, to
 * argv[0 .. *nargs - 1] (options and arguments may be mixed, as with
 * getopt_long; with .stop_at_arg everything from the first argument on
 * is positional). @what names the command in messages ("kernel build";
 * NULL for mglrulab's own options, before the command).
 *
 * Returns 0; LAB_OPTS_HELP after printing the usage to stdout for -h or
 * --help; or LAB_EUSER after an error naming the option and what was
 * expected ("run: --runs: expected an integer from 1 to 10000, got 'x'").
 */
LAB_MUST_CHECK
int lab_options_parse(const struct lab_usage *u, const char *what, int argc, char **argv,
		      void *base, int *nargs);

/* The usage, as -h prints it. */
void lab_usage_format(const struct lab_usage *u, struct strbuf *sb);
void lab_usage_print(const struct lab_usage *u);

/* Where @ctx's option stores its value. */
void *lab_opt_value(const struct lab_opt_ctx *ctx);
/* Print "error: WHAT: --name: <message>" and return LAB_EUSER. */
int lab_opt_error(const struct lab_opt_ctx *ctx, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "--name" or "-c", for messages. */
const char *lab_opt_name(const struct lab_option *opt, char buf[64]);

#endif
