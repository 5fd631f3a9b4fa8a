// SPDX-License-Identifier: GPL-2.0
/* options.c: option tables over getopt_long, their messages and usage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "options.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct t_opts {
	const char *config, *name;
	int flag, mode, count, choice, cb_calls, resume;
	long n;
	uint64_t seed;
	double budget;
	const char *cb_arg, *resume_id;
};

static int t_global;

static int t_cb(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct t_opts *o = ctx->base;

	if (!strcmp(arg, "bad"))
		return lab_opt_error(ctx, "expected anything but 'bad'");
	o->cb_calls++;
	o->cb_arg = arg;
	return 0;
}

static int t_resume(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct t_opts *o = ctx->base;

	o->resume = 1;
	o->resume_id = arg;
	return 0;
}

static const struct lab_choice t_choices[] = {
	{ "low", 10 }, { "mid", 20 }, { "high", 30 }, { NULL, 0 },
};

static const struct lab_option t_options[] = {
	LAB_OPT_STRING("config", 'c', struct t_opts, config, "FILE", "configuration file"),
	LAB_OPT_BOOL("flag", 0, struct t_opts, flag, "a plain flag"),
	LAB_OPT_SET_INT("ab", 0, struct t_opts, mode, 7, "mode seven"),
	LAB_OPT_SET_INT("aa", 0, struct t_opts, mode, 8, "mode eight\nsecond line of help"),
	LAB_OPT_LONG("num", 'n', struct t_opts, n, 1, 10, "N", "a number from 1 to 10"),
	LAB_OPT_U64("seed", 0, struct t_opts, seed, "S", "a seed"),
	LAB_OPT_DURATION("budget", 0, struct t_opts, budget, "DURATION", "a duration"),
	LAB_OPT_CHOICE("level", 0, struct t_opts, choice, t_choices, "WHAT", "low, mid or high"),
	LAB_OPT_CALLBACK("call", 0, t_cb, "X", "a callback"),
	{ .long_name = "resume", .kind = LAB_OPT_CALLBACK, .cb = t_resume, .argname = "ID",
	  .flags = LAB_OPT_OPTIONAL_ARG, .help = "optional value" },
	{ .long_name = "mail", .kind = LAB_OPT_CALLBACK, .cb = t_resume, .argname = "-",
	  .flags = LAB_OPT_OPTIONAL_ARG | LAB_OPT_DASH_ONLY, .help = "\"-\" or nothing" },
	LAB_OPT_GLOBAL_COUNT(NULL, 'v', t_global, "a counter in a global"),
	LAB_OPT_BOOL("kernel-a", 0, struct t_opts, count, "for abbreviations"),
	LAB_OPT_BOOL("kernel-b", 0, struct t_opts, count, "for abbreviations"),
	LAB_OPT_BOOL("secret", 0, struct t_opts, count, NULL),
	LAB_OPT_END
};

static const char *const t_synopsis[] = {
	"mglrulab t [options] ARG...", "mglrulab t --other", NULL
};

static const struct lab_usage t_usage = {
	.synopsis = t_synopsis,
	.description = "What t does.\n",
	.options = t_options,
	.footer = "exit status: 0 ok\n",
};

/* Parse a NULL-terminated argument list; what went to stderr lands in @err. */
static int parse(const struct lab_usage *u, struct t_opts *o, struct strbuf *err,
		 char ***args, int *nargs, ...)
{
	static char *argv[32];
	FILE *tmp = tmpfile();
	int argc = 0, saved, r;
	char buf[4096];
	size_t n;
	va_list ap;

	va_start(ap, nargs);
	argv[argc++] = "t";
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	assert_non_null(tmp);
	memset(o, 0, sizeof(*o));
	t_global = 0;
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(tmp), 2);
	r = lab_options_parse(u, "t", argc, argv, o, nargs);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	sb_reset(err);
	while ((n = fread(buf, 1, sizeof(buf), tmp)))
		sb_add(err, buf, n);
	fclose(tmp);
	*args = argv;
	return r;
}

#define PARSE(o, err, args, nargs, ...) parse(&t_usage, o, err, args, nargs, __VA_ARGS__, NULL)

static void test_kinds(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	assert_int_equal(PARSE(&o, &err, &args, &nargs, "-c", "a.conf", "--flag", "--aa", "-n", "7",
			       "--seed", "0x10", "--budget", "1h30m", "--level", "mid", "--call", "x",
			       "-vv", "-v"), 0);
	assert_string_equal(o.config, "a.conf");
	assert_int_equal(o.flag, 1);
	assert_int_equal(o.mode, 8);
	assert_int_equal(o.n, 7);
	assert_true(o.seed == 16);
	assert_true(o.budget == 5400);
	assert_int_equal(o.choice, 20);
	assert_int_equal(o.cb_calls, 1);
	assert_string_equal(o.cb_arg, "x");
	assert_int_equal(t_global, 3);
	assert_int_equal(nargs, 0);
	assert_string_equal(sb_str(&err), "");
	/* the last of two SET_INT options wins */
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--aa", "--ab"), 0);
	assert_int_equal(o.mode, 7);
	sb_release(&err);
}

/* --opt=V and --opt V, -cV and -c V all store the same. */
static void test_value_spellings(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--num=3", "--config=x.conf"), 0);
	assert_int_equal(o.n, 3);
	assert_string_equal(o.config, "x.conf");
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--num", "4", "--config", "y.conf"), 0);
	assert_int_equal(o.n, 4);
	assert_string_equal(o.config, "y.conf");
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "-n5", "-cz.conf"), 0);
	assert_int_equal(o.n, 5);
	assert_string_equal(o.config, "z.conf");
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--num", "6", "--level=high"), 0);
	assert_int_equal(o.n, 6);
	assert_int_equal(o.choice, 30);
	/* a value that starts with '-' is still the value of an option that needs one */
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--config", "-x"), 0);
	assert_string_equal(o.config, "-x");
	sb_release(&err);
}

static void test_optional_value(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--resume"), 0);
	assert_int_equal(o.resume, 1);
	assert_null(o.resume_id);
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--resume", "s1"), 0);
	assert_string_equal(o.resume_id, "s1");
	assert_int_equal(nargs, 0);
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--resume=s2", "arg"), 0);
	assert_string_equal(o.resume_id, "s2");
	assert_int_equal(nargs, 1);
	assert_string_equal(args[0], "arg");
	/* the next option is not taken as the value */
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--resume", "--flag"), 0);
	assert_null(o.resume_id);
	assert_int_equal(o.flag, 1);
	/* "-" is a value (stdout: run --json -), not an option nor an argument */
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--resume", "-", "arg"), 0);
	assert_string_equal(o.resume_id, "-");
	assert_int_equal(nargs, 1);
	/*
	 * LAB_OPT_DASH_ONLY: "--mail -" is stdout (report --mail - was "too
	 * many arguments"), but "--mail report.json" keeps the report an
	 * argument, not the mail's file.
	 */
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--mail", "-"), 0);
	assert_string_equal(o.resume_id, "-");
	assert_int_equal(nargs, 0);
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "--mail", "report.json"), 0);
	assert_null(o.resume_id);
	assert_int_equal(nargs, 1);
	assert_string_equal(args[0], "report.json");
	sb_release(&err);
}

static void test_positionals(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	assert_int_equal(PARSE(&o, &err, &args, &nargs, "one", "--flag", "two", "-n", "2", "-",
			       "--", "--num", "-c"), 0);
	assert_int_equal(o.flag, 1);
	assert_int_equal(o.n, 2);
	assert_int_equal(nargs, 5);
	assert_string_equal(args[0], "one");
	assert_string_equal(args[1], "two");
	assert_string_equal(args[2], "-");
	assert_string_equal(args[3], "--num");
	assert_string_equal(args[4], "-c");
	sb_release(&err);
}

/* .stop_at_arg: mglrulab's own options end at the command name. */
static void test_stop_at_arg(void **state)
{
	const struct lab_usage u = { .synopsis = t_synopsis, .options = t_options, .stop_at_arg = 1 };
	struct strbuf err = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	assert_int_equal(parse(&u, &o, &err, &args, &nargs, "-v", "run", "--flag", "-v", NULL), 0);
	assert_int_equal(t_global, 1);
	assert_int_equal(o.flag, 0);
	assert_int_equal(nargs, 3);
	assert_string_equal(args[0], "run");
	assert_string_equal(args[1], "--flag");
	assert_string_equal(args[2], "-v");
	sb_release(&err);
}

/* Each error: exit status 1, and one message naming the option and what was expected. */
static void test_errors(void **state)
{
	static const struct {
		const char *argv[3];
		const char *msg;
	} cases[] = {
		{ { "--num", "11" }, "t: --num: expected an integer from 1 to 10, got '11'" },
		{ { "--num", "0" }, "t: --num: expected an integer from 1 to 10, got '0'" },
		{ { "-n", "x" }, "t: --num: expected an integer from 1 to 10, got 'x'" },
		{ { "--num=" }, "t: --num: expected an integer from 1 to 10, got ''" },
		{ { "--seed", "-1" }, "t: --seed: expected a non-negative integer, got '-1'" },
		{ { "--budget", "5x" },
		  "t: --budget: expected a duration such as 900, 90s, 15m or 1h30m, got '5x'" },
		{ { "--level", "max" }, "t: --level: expected 'low', 'mid' or 'high', got 'max'" },
		{ { "--call", "bad" }, "t: --call: expected anything but 'bad'" },
		{ { "--num" }, "t: --num: needs a value (N)" },
		{ { "-c" }, "t: --config: needs a value (FILE)" },
		{ { "--nope" }, "t: unknown option '--nope' (see 'mglrulab t -h')" },
		{ { "--nope=1" }, "t: unknown option '--nope=1' (see 'mglrulab t -h')" },
		{ { "-x" }, "t: unknown option '-x' (see 'mglrulab t -h')" },
		{ { "-vx" }, "t: unknown option '-x' (see 'mglrulab t -h')" },
		{ { "--flag=1" }, "t: --flag: takes no value" },
		{ { "--kernel" }, "t: ambiguous option '--kernel' (--kernel-a, --kernel-b)" },
		/* a prefix of one option is refused, not taken for it: --htm was --html */
		{ { "--nu", "6" }, "t: '--nu' is not an option: did you mean --num? (long options "
				   "are spelled whole)" },
		{ { "--lev=high" }, "t: '--lev' is not an option: did you mean --level? (long "
				    "options are spelled whole)" },
		{ { "--he" }, "t: '--he' is not an option: did you mean --help? (long options are "
			      "spelled whole)" },
	};
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = parse(&t_usage, &o, &err, &args, &nargs, cases[i].argv[0], cases[i].argv[1],
			      NULL);

		sb_reset(&want);
		sb_addf(&want, "mglrulab: error: %s\n", cases[i].msg);
		if (r != LAB_EUSER || strcmp(sb_str(&err), sb_str(&want)))
			fail_msg("%s %s: status %d, message '%s', expected 1 and '%s'",
				 cases[i].argv[0], cases[i].argv[1] ? cases[i].argv[1] : "", r,
				 sb_str(&err), sb_str(&want));
	}
	sb_release(&err);
	sb_release(&want);
}

static void test_help(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	/* -h stops the parse: nothing after it is looked at */
	fflush(stdout);
	int saved = dup(1);
	FILE *null = fopen("/dev/null", "w");
	assert_non_null(null);
	dup2(fileno(null), 1);
	int r1 = PARSE(&o, &err, &args, &nargs, "--flag", "-h", "--nope");
	int r2 = PARSE(&o, &err, &args, &nargs, "--help");
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	fclose(null);
	assert_int_equal(r1, LAB_OPTS_HELP);
	assert_int_equal(r2, LAB_OPTS_HELP);
	assert_string_equal(sb_str(&err), "");
	sb_release(&err);
}

/* The usage names every visible option with its value, and its help. */
static void test_usage(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	const char *s;
	(void)state;

	lab_usage_format(&t_usage, &sb);
	s = sb_str(&sb);
	assert_non_null(strstr(s, "usage: mglrulab t [options] ARG...\n"
				  "       mglrulab t --other\n\nWhat t does.\n\n"));
	for (const struct lab_option *o = t_options; o->kind != LAB_OPT_END_KIND; o++) {
		struct strbuf left = STRBUF_INIT;

		if (o->short_name && o->long_name)
			sb_addf(&left, "  -%c, --%s", o->short_name, o->long_name);
		else if (o->long_name)
			sb_addf(&left, "  --%s", o->long_name);
		else
			sb_addf(&left, "  -%c", o->short_name);
		if (o->argname)
			sb_addf(&left, o->flags & LAB_OPT_OPTIONAL_ARG ? " [%s] " : " %s ", o->argname);
		else
			sb_addc(&left, ' ');
		if (o->help && !strstr(s, sb_str(&left)))
			fail_msg("usage lacks '%s':\n%s", sb_str(&left), s);
		if (!o->help && strstr(s, sb_str(&left)))
			fail_msg("usage shows hidden '%s'", sb_str(&left));
		sb_release(&left);
		/* the first line of the help, after the padding */
		if (o->help) {
			char *first = xstrndup(o->help, strcspn(o->help, "\n"));
			char *line = xasprintf("  %s\n", first);

			if (!strstr(s, line))
				fail_msg("usage lacks the help '%s'", first);
			free(line);
			free(first);
		}
	}
	/* every help starts in the same column; continuation lines too */
	assert_non_null(strstr(s, "\n  -c, --config FILE  configuration file\n"));
	assert_non_null(strstr(s, "\n  --aa" "               mode eight\n"
				  "                     second line of help\n"));
	assert_non_null(strstr(s, "\n  --resume [ID]      optional value\n"));
	assert_true(str_ends_with(s, "\nexit status: 0 ok\n"));
	sb_release(&sb);
}

/*
 * -v and -q work after every command (`mglrulab report F -v` was refused
 * as an unknown option), and -q with -v is refused instead of one
 * silently winning.
 */
static const struct lab_option plain_options[] = {
	LAB_OPT_BOOL("flag", 0, struct t_opts, flag, "a plain flag"),
	LAB_OPT_END
};
static const struct lab_usage plain_usage = { .synopsis = t_synopsis, .options = plain_options };

static void test_global_options(void **state)
{
	struct strbuf err = STRBUF_INIT, sb = STRBUF_INIT;
	struct t_opts o;
	char **args;
	int nargs;
	(void)state;

	lab_verbose = lab_quiet = 0;
	assert_int_equal(parse(&plain_usage, &o, &err, &args, &nargs, "F", "-v", "-v", NULL), 0);
	assert_int_equal(lab_verbose, 2);
	assert_int_equal(nargs, 1);
	lab_verbose = 0;
	assert_int_equal(parse(&plain_usage, &o, &err, &args, &nargs, "-q", "--flag", NULL), 0);
	assert_int_equal(lab_quiet, 1);
	assert_int_equal(o.flag, 1);
	/* -q before the command (already set), -v after it: refused, naming both */
	assert_int_equal(parse(&plain_usage, &o, &err, &args, &nargs, "-v", NULL), LAB_EUSER);
	assert_non_null(strstr(sb_str(&err), "t: -q and -v contradict each other"));
	lab_quiet = 0;
	lab_verbose = 0;
	assert_int_equal(parse(&plain_usage, &o, &err, &args, &nargs, "-qv", NULL), LAB_EUSER);
	lab_quiet = lab_verbose = 0;
	/* a table with its own -v keeps it: t_options counts into t_global */
	assert_int_equal(PARSE(&o, &err, &args, &nargs, "-v", "-q"), 0);
	assert_int_equal(t_global, 1);
	assert_int_equal(lab_verbose, 0);
	assert_int_equal(lab_quiet, 1);
	lab_quiet = 0;
	/* and the usage says so */
	lab_usage_format(&plain_usage, &sb);
	assert_non_null(strstr(sb_str(&sb), "-v (more output"));
	sb_release(&sb);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_value_spellings),
		cmocka_unit_test(test_optional_value),
		cmocka_unit_test(test_positionals),
		cmocka_unit_test(test_stop_at_arg),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_global_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
