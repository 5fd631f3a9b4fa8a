// SPDX-License-Identifier: GPL-2.0
/* Command-line options from a table, over getopt_long (see options.h). */
#include "options.h"
#include "strbuf.h"
#include "util.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for an option without a short letter: past every char. */
#define LONG_ONLY_BASE 256

static size_t count_options(const struct lab_option *opts)
{
	size_t n = 0;

	while (opts && opts[n].kind != LAB_OPT_END_KIND)
		n++;
	return n;
}

static int takes_arg(const struct lab_option *opt)
{
	return opt->argname != NULL;
}

const char *lab_opt_name(const struct lab_option *opt, char buf[64])
{
	if (opt->long_name)
		snprintf(buf, 64, "--%s", opt->long_name);
	else
		snprintf(buf, 64, "-%c", opt->short_name);
	return buf;
}

void *lab_opt_value(const struct lab_opt_ctx *ctx)
{
	if (ctx->opt->ptr)
		return ctx->opt->ptr;
	return (char *)ctx->base + ctx->opt->off;
}

int lab_opt_error(const struct lab_opt_ctx *ctx, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	char name[64];
	va_list ap;
	int r;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	r = user_error("%s%s%s: %s", ctx->what ?: "", ctx->what ? ": " : "",
		       lab_opt_name(ctx->opt, name), sb_str(&sb));
	sb_release(&sb);
	return r;
}

/* "'a', 'b' or 'c'" */
static void format_choices(const struct lab_choice *c, struct strbuf *sb)
{
	for (size_t i = 0; c[i].name; i++) {
		if (i)
			sb_adds(sb, c[i + 1].name ? ", " : " or ");
		sb_addf(sb, "'%s'", c[i].name);
	}
}

static int store_choice(const struct lab_opt_ctx *ctx, const char *arg)
{
	const struct lab_choice *c = ctx->opt->choices;
	struct strbuf sb = STRBUF_INIT;
	int r;

	for (size_t i = 0; c[i].name; i++) {
		if (!strcmp(c[i].name, arg)) {
			*(int *)lab_opt_value(ctx) = c[i].value;
			return 0;
		}
	}
	format_choices(c, &sb);
	r = lab_opt_error(ctx, "expected %s, got '%s'", sb_str(&sb), arg);
	sb_release(&sb);
	return r;
}

/* Convert, range-check and store one option's value. */
static int store(const struct lab_opt_ctx *ctx, const char *arg)
{
	const struct lab_option *opt = ctx->opt;
	void *v = opt->kind == LAB_OPT_CALLBACK ? NULL : lab_opt_value(ctx);

	switch (opt->kind) {
	case LAB_OPT_FLAG:
		*(int *)v = opt->ival;
		return 0;
	case LAB_OPT_COUNT:
		(*(int *)v)++;
		return 0;
	case LAB_OPT_STRING:
		if (arg)
			*(const char **)v = arg;
		return 0;
	case LAB_OPT_LONG:
		if (parse_long(arg, opt->min, opt->max, v))
			return lab_opt_error(ctx, "expected an integer from %ld to %ld, got '%s'",
					     opt->min, opt->max, arg);
		return 0;
	case LAB_OPT_U64:
		if (parse_u64(arg, v))
			return lab_opt_error(ctx, "expected a non-negative integer, got '%s'", arg);
		return 0;
	case LAB_OPT_DURATION:
		if (parse_duration(arg, v))
			return lab_opt_error(ctx, "expected a duration such as 900, 90s, 15m or 1h30m, "
					     "got '%s'", arg);
		return 0;
	case LAB_OPT_CHOICE:
		return store_choice(ctx, arg);
	case LAB_OPT_CALLBACK:
		return opt->cb(ctx, arg);
	case LAB_OPT_END_KIND:
		break;
	}
	return user_error("%s: option table entry of kind %d", ctx->what, (int)opt->kind);
}

/* The getopt_long tables: one struct option per entry plus --help, and "-:...h". */
static void build_getopt(const struct lab_option *opts, size_t n, struct option *lo,
			 struct strbuf *shorts)
{
	size_t k = 0;

	/*
	 * '-': arguments come back in order as option 1 (we keep them in
	 * order ourselves, and POSIXLY_CORRECT cannot change the parse);
	 * ':': a missing value is reported as ':', not '?'.
	 */
	sb_adds(shorts, "-:h");
	for (size_t i = 0; i < n; i++) {
		const struct lab_option *o = &opts[i];
		int has = !takes_arg(o) ? no_argument :
			  (o->flags & LAB_OPT_OPTIONAL_ARG) ? optional_argument : required_argument;
		int val = o->short_name ? o->short_name : LONG_ONLY_BASE + (int)i;

		if (o->long_name)
			lo[k++] = (struct option){ o->long_name, has, NULL, val };
		if (o->short_name) {
			sb_addc(shorts, (char)o->short_name);
			if (has != no_argument)
				sb_adds(shorts, has == optional_argument ? "::" : ":");
		}
	}
	lo[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[k] = (struct option){ NULL, 0, NULL, 0 };
}

static const struct lab_option *find_option(const struct lab_option *opts, size_t n, int val)
{
	if (val >= LONG_ONLY_BASE)
		return (size_t)(val - LONG_ONLY_BASE) < n ? &opts[val - LONG_ONLY_BASE] : NULL;
	for (size_t i = 0; val > 0 && i < n; i++)
		if (opts[i].short_name == val)
			return &opts[i];
	return NULL;
}

/* An unknown option: say so, or which long names an abbreviation could be. */
static int unknown_option(const struct lab_option *opts, size_t n, const char *what,
			  const char *arg)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len, matches = 0;
	int r;

	if (!strncmp(arg, "--", 2)) {
		len = strcspn(arg + 2, "=");
		for (size_t i = 0; i < n; i++) {
			if (opts[i].long_name && !strncmp(opts[i].long_name, arg + 2, len)) {
				sb_addf(&sb, "%s--%s", matches ? ", " : "", opts[i].long_name);
				matches++;
			}
		}
	}
	if (matches > 1)
		r = user_error("%s%sambiguous option '%s' (%s)", what ?: "", what ? ": " : "", arg,
			       sb_str(&sb));
	else
		r = user_error("%s%sunknown option '%s' (see 'mglrulab %s%s-h')", what ?: "",
			       what ? ": " : "", arg, what ?: "", what ? " " : "");
	sb_release(&sb);
	return r;
}

/* getopt_long returned '?' or ':'. */
static int option_error(int c, const struct lab_option *opts, size_t n, const char *what,
			char **argv)
{
	const struct lab_option *opt = find_option(opts, n, optopt);
	struct lab_opt_ctx ctx = { .what = what, .opt = opt };
	char arg[3] = { '-', (char)optopt, 0 };

	if (c == ':' && opt)
		return lab_opt_error(&ctx, "needs a value (%s)", opt->argname);
	if (opt)	/* --flag=V */
		return lab_opt_error(&ctx, "takes no value");
	return unknown_option(opts, n, what, optopt ? arg : argv[optind - 1]);
}

/*
 * Did getopt_long take @given ("--htm", "--htm=x") for the long option
 * @name by abbreviation? options.h says why that is refused.
 */
static int abbreviated(const char *given, const char *name)
{
	size_t len;

	if (strncmp(given, "--", 2))
		return 0;
	given += 2;
	len = strcspn(given, "=");
	return len != strlen(name) || strncmp(given, name, len);
}

/*
 * -v and -q are mglrulab's own options, and every command takes them as
 * well (`mglrulab report F -v`, as git takes -c anywhere it makes sense);
 * a table that declares the letter itself keeps its own.
 */
static const struct lab_option global_options[] = {
	LAB_OPT_GLOBAL_COUNT(NULL, 'v', lab_verbose, "more output (twice: debug)"),
	LAB_OPT_GLOBAL_BOOL(NULL, 'q', lab_quiet, "no progress output"),
};

static int has_short(const struct lab_option *opts, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (opts[i].short_name == c)
			return 1;
	return 0;
}

/* @opts followed by the global options it does not declare, END-terminated. */
static struct lab_option *with_globals(const struct lab_option *opts, size_t *n)
{
	struct lab_option *all = xcalloc(*n + ARRAY_SIZE(global_options) + 1, sizeof(*all));
	size_t k = *n;

	if (*n)
		memcpy(all, opts, *n * sizeof(*all));
	for (size_t i = 0; i < ARRAY_SIZE(global_options); i++)
		if (!has_short(opts, *n, global_options[i].short_name))
			all[k++] = global_options[i];
	all[k].kind = LAB_OPT_END_KIND;
	*n = k;
	return all;
}

/* -q and -v together: the one says less, the other more; neither wins quietly. */
static int quiet_and_verbose(const char *what)
{
	if (!lab_quiet || !lab_verbose)
		return 0;
	return user_error("%s%s-q and -v contradict each other (-q: no progress output, -v: "
			  "more output): give one", what ?: "", what ? ": " : "");
}

int lab_options_parse(const struct lab_usage *u, const char *what, int argc, char **argv,
		      void *base, int *nargs)
{
	size_t n = count_options(u->options);
	struct lab_option *opts = with_globals(u->options, &n);
	struct option *lo = xcalloc(n + 2, sizeof(*lo));
	struct strbuf shorts = STRBUF_INIT;
	int c, r = 0, np = 0, rest;

	*nargs = 0;
	build_getopt(opts, n, lo, &shorts);
	optind = 0;	/* glibc: start over, forgetting any earlier parse */
	opterr = 0;	/* the messages are ours */
	for (;;) {
		const struct lab_option *opt;
		const char *arg;
		int at = optind ? optind : 1, li = -1;

		c = getopt_long(argc, argv, shorts.buf, lo, &li);
		if (c == -1)
			break;
		arg = optarg;
		if (li >= 0 && at < argc && abbreviated(argv[at], lo[li].name)) {
			r = user_error("%s%s'%.*s' is not an option: did you mean --%s? (long options "
				       "are spelled whole)", what ?: "", what ? ": " : "",
				       (int)strcspn(argv[at], "="), argv[at], lo[li].name);
			goto out;
		}

		if (c == 1) {
			if (u->stop_at_arg) {
				optind--;
				break;
			}
			argv[np++] = optarg;
			continue;
		}
		if (c == 'h') {
			lab_usage_print(u);
			r = LAB_OPTS_HELP;
			goto out;
		}
		if (c == '?' || c == ':') {
			r = option_error(c, opts, n, what, argv);
			goto out;
		}
		opt = find_option(opts, n, c);
		/*
		 * getopt_long takes an optional value only as --opt=V; --opt V
		 * too, and "--opt -" (stdout) though "-" starts with a dash.
		 */
		if (opt->flags & LAB_OPT_OPTIONAL_ARG && !arg && optind < argc &&
		    ((argv[optind][0] != '-' && !(opt->flags & LAB_OPT_DASH_ONLY)) ||
		     !strcmp(argv[optind], "-")))
			arg = argv[optind++];
		r = store(&(struct lab_opt_ctx){ .what = what, .opt = opt, .base = base }, arg);
		if (r)
			goto out;
	}
	/* after "--", or from the first argument on with .stop_at_arg */
	for (rest = optind; rest < argc; rest++)
		argv[np++] = argv[rest];
	*nargs = np;
	r = quiet_and_verbose(what);
out:
	free(opts);
	free(lo);
	sb_release(&shorts);
	return r;
}

static void option_left(const struct lab_option *o, struct strbuf *sb)
{
	if (o->short_name && o->long_name)
		sb_addf(sb, "-%c, --%s", o->short_name, o->long_name);
	else if (o->long_name)
		sb_addf(sb, "--%s", o->long_name);
	else
		sb_addf(sb, "-%c", o->short_name);
	if (o->argname)
		sb_addf(sb, o->flags & LAB_OPT_OPTIONAL_ARG ? " [%s]" : " %s", o->argname);
}

static void format_options(const struct lab_option *opts, struct strbuf *sb)
{
	struct strbuf left = STRBUF_INIT;
	size_t width = 0, n = count_options(opts);

	for (size_t i = 0; i < n; i++) {
		sb_reset(&left);
		option_left(&opts[i], &left);
		if (opts[i].help && left.len > width)
			width = left.len;
	}
	for (size_t i = 0; i < n; i++) {
		const char *h = opts[i].help;

		if (!h)		/* hidden */
			continue;
		sb_reset(&left);
		option_left(&opts[i], &left);
		sb_addf(sb, "  %-*s  ", (int)width, sb_str(&left));
		for (const char *nl; (nl = strchr(h, '\n')); h = nl + 1)
			sb_addf(sb, "%.*s\n  %-*s  ", (int)(nl - h), h, (int)width, "");
		sb_addf(sb, "%s\n", h);
	}
	sb_release(&left);
}

void lab_usage_format(const struct lab_usage *u, struct strbuf *sb)
{
	for (size_t i = 0; u->synopsis && u->synopsis[i]; i++)
		sb_addf(sb, "%s%s\n", i ? "       " : "usage: ", u->synopsis[i]);
	if (u->description)
		sb_addf(sb, "\n%s", u->description);
	if (count_options(u->options)) {
		sb_addc(sb, '\n');
		format_options(u->options, sb);
	}
	if (!has_short(u->options, count_options(u->options), 'v') ||
	    !has_short(u->options, count_options(u->options), 'q'))
		sb_adds(sb, "\nGlobal options, here as before the command: -v (more output; twice:\n"
			    "debug), -q (no progress output).\n");
	if (u->footer)
		sb_addf(sb, "\n%s", u->footer);
}

void lab_usage_print(const struct lab_usage *u)
{
	struct strbuf sb = STRBUF_INIT;

	lab_usage_format(u, &sb);
	fputs(sb_str(&sb), stdout);
	sb_release(&sb);
}
