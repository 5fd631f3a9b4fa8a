// SPDX-License-Identifier: GPL-2.0
/* mglrulab run: options; the work is in session.c. */
#include "cmd.h"
#include "fsutil.h"
#include "session.h"

#include <stdlib.h>
#include <string.h>

/* --resume [SESSION] */
static int opt_resume(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct session_opts *o = ctx->base;

	o->resume = 1;
	o->resume_id = arg;
	return 0;
}

static int opt_seed(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct session_opts *o = ctx->base;

	if (parse_u64(arg, &o->seed))
		return lab_opt_error(ctx, "expected a non-negative integer, got '%s'", arg);
	o->seed_set = 1;
	return 0;
}

static const struct lab_choice until_choices[] = {
	{ "decided", 1 }, { "runs", 0 }, { NULL, 0 },
};

/* LAB_OPT_SET_INT and LAB_OPT_CHOICE store an int. */
_Static_assert(sizeof(enum session_mode) == sizeof(int), "enum session_mode is not int-sized");
_Static_assert(sizeof(enum fail_on) == sizeof(int), "enum fail_on is not int-sized");

static const struct lab_option run_options[] = {
	LAB_OPT_SET_INT("ab", 0, struct session_opts, mode, SESSION_AB,
			"baseline against patched ([run] kernels, first is A)"),
	LAB_OPT_SET_INT("aa", 0, struct session_opts, mode, SESSION_AA,
			"the baseline against itself: the noise floor and\n"
			"false-positive rate of this host"),
	CMD_OPT_CONFIG(struct session_opts, config),
	LAB_OPT_LONG("runs", 0, struct session_opts, runs, 1, 10000, "N",
		     "repetitions per kernel and workload ([run] runs)"),
	LAB_OPT_CHOICE("until", 0, struct session_opts, until_decided, until_choices, "decided",
		       "run until every primary metric is decided: a look after\n"
		       "6 runs per kernel, then after every ABBA/BAAB pair of\n"
		       "blocks; a workload stops once all its primaries are\n"
		       "improvement, regression, ~, or ~= inside the band\n"
		       "(a sequential test that keeps the error rate at\n"
		       "alpha; docs/reports.md)"),
	CMD_OPT_MAX_RUNS(struct session_opts, max_runs,
			 "run cap per kernel and workload of --until (default 20,\n"
			 "at least 6: the runs of the first look)"),
	LAB_OPT_DURATION("budget", 0, struct session_opts, budget_s, "DURATION",
			 "run time of --until (90s, 15m, 1h30m): then stop, with\n"
			 "\"?\" and the runs it would take for what is undecided"),
	LAB_OPT_LONG("warmups", 0, struct session_opts, warmups, 0, 1000, "N",
		     "extra runs per kernel first, excluded from statistics"),
	LAB_OPT_CALLBACK("seed", 0, opt_seed, "S",
			 "seeds the block order and the bootstrap ([run] seed)"),
	CMD_OPT_WORKLOADS(struct session_opts, workloads),
	LAB_OPT_STRING("kernel", 0, struct session_opts, kernel, "NAME",
		       "the kernel of a single-kernel run (default: the first)"),
	{ .long_name = "resume", .kind = LAB_OPT_CALLBACK, .cb = opt_resume, .argname = "SESSION",
	  .flags = LAB_OPT_OPTIONAL_ARG,
	  .help = "continue a stopped session (default: reports/latest)" },
	CMD_OPT_FAIL_ON(struct session_opts, fail_on,
			"what fails the session: regression (the default: a\n"
			"regression, a kernel failing in the guest, the lab\n"
			"unable to measure), change (improvements too),\n"
			"invalid (kernel or lab failures only), none"),
	CMD_OPT_JUNIT(struct session_opts, junit),
	CMD_OPT_JSON(struct session_opts, json,
		     "a JSON summary to FILE, or to stdout in place of the\n"
		     "text report (no FILE, or \"-\"): the session folder,\n"
		     "each primary's verdict, the exit status and its\n"
		     "meaning, the reports' paths"),
	LAB_OPT_STRING("mail", 0, struct session_opts, mail, "FILE",
		       "a reply mail to the series, ready to send (see\n"
		       "'mglrulab help report')"),
	{ .long_name = "attribute", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_attribute,
	  LAB_OPT_FIELD_(struct session_opts, attribute), .argname = "WHICH",
	  .flags = LAB_OPT_OPTIONAL_ARG, .help = "once the verdicts are in, attribution runs: where each\n"
		  "kernel spent its instructions, per function and per unit,\n"
		  "for the workloads whose primary changed (changed, the\n"
		  "default), or all (off: not, whatever lab.conf says); needs\n"
		  "a TCG guest under icount ([run] attribute; docs/attribution.md)" },
	{ .long_name = "coherence", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_attribute,
	  LAB_OPT_FIELD_(struct session_opts, coherence), .argname = "WHICH",
	  .flags = LAB_OPT_OPTIONAL_ARG, .help = "once the verdicts are in, coherence runs: the modelled\n"
		  "cache-line transfers between vCPUs per unit, by function\n"
		  "and line, for the workloads whose primary changed (changed,\n"
		  "the default), or all (off: not); a model, never a verdict\n"
		  "([run] coherence; docs/coherence.md)" },
	LAB_OPT_BOOL("no-counters", 0, struct session_opts, no_counters,
		     "skip vmstat/tracepoint/lru_gen collection"),
	LAB_OPT_GLOBAL_BOOL(NULL, 'q', lab_quiet, "no progress output"),
	LAB_OPT_GLOBAL_COUNT(NULL, 'v', lab_verbose, "more output (twice: debug)"),
	LAB_OPT_END
};

static const char *const run_synopsis[] = {
	"mglrulab run [--ab [BASE NEW] | --aa [BASE]] [-c FILE] [--runs N] [--warmups N] [--seed S]",
	"             [--workloads a,b] [--kernel NAME] [--junit FILE] [--json [FILE]]",
	"             [--mail FILE] [--attribute[=changed|all|off]] [--coherence[=changed|all|off]]",
	"             [--fail-on regression|change|invalid|none] [--no-counters] [-q] [-v]",
	"             [--until decided [--max-runs N] [--budget DURATION]]",
	"mglrulab run --resume [SESSION] [--budget DURATION] [-c FILE] [--fail-on ...] [--junit FILE]",
	"             [--json [FILE]] [--mail FILE] [--attribute[=changed|all|off]]",
	"             [--coherence[=changed|all|off]]",
	NULL
};

const struct lab_usage run_usage = {
	.synopsis = run_synopsis,
	.description =
		"Build (or take from the cache) the kernels and the guest image, then run each\n"
		"workload N times on each kernel, one fresh guest boot per run, in seeded\n"
		"ABBA/BAAB blocks. Every run's record is written to reports/<session>/runs/ the\n"
		"moment it completes; report.json, report.html and report.txt follow, and the\n"
		"text report goes to stdout (progress goes to stderr).\n"
		"\n"
		"With --ab, baseline against patched; with --aa, the baseline against itself;\n"
		"with neither, one kernel (--kernel NAME, default the first), to explore.\n"
		"The kernels are [run] kernels unless named: `run --ab BASE NEW` compares any\n"
		"two [kernel] sections, and NAME@K is kernel NAME after the first K patches of\n"
		"its series (`run --ab patched@2 patched@3`: what patch 3 does on its own).\n",
	.options = run_options,
	.footer =
		"exit status: 0 no failing verdict, 1 user error, 2 lab failure or interrupted\n"
		"(the resume command is printed), or the lab could not measure (runs of both\n"
		"kernels failed, a primary without a verdict), 3 regression found, or runs of\n"
		"one kernel failed in the guest while the other's succeeded (--fail-on).\n",
};

/*
 * --json -, --junit - or --mail - take stdout from the text report; two
 * of them is one too many.
 */
static int one_stdout_output(struct session_opts *o)
{
	struct cmd_output outs[] = {
		{ "--json", o->json }, { "--junit -", o->junit }, { "--mail -", o->mail },
	};

	return cmd_one_stdout_output("run", outs, ARRAY_SIZE(outs), &o->no_stdout_report);
}

int cmd_run(int argc, char **argv)
{
	struct session_opts o = { .warmups = -1, .fail_on = FAIL_ON_REGRESSION, .mode = SESSION_ONE,
				  .attribute = -1, .coherence = -1 };
	int nargs, r;

	r = lab_options_parse(&run_usage, "run", argc, argv, &o, &nargs);
	if (!r && nargs && !o.resume &&
	    nargs == (o.mode == SESSION_AB ? 2 : o.mode == SESSION_AA ? 1 : -1))
		for (int i = 0; i < nargs; i++)
			strvec_push(&o.kernel_names, argv[i]);
	else if (!r && nargs)
		r = user_error("run: unexpected argument '%s': --ab takes two kernel names (BASE NEW), "
			       "--aa one, a resumed session none (see 'mglrulab run -h')", argv[0]);
	if (!r && o.resume && (o.runs || o.seed_set || o.workloads.n || o.warmups >= 0))
		r = user_error("run --resume: the session's plan is fixed; --runs, --seed, --warmups "
			       "and --workloads apply to new sessions only");
	if (!r && o.resume && (o.until_decided || o.max_runs))
		r = user_error("run --resume: --until and --max-runs are fixed when a session starts "
			       "(a resumed sequential session continues at its next look; --budget "
			       "may raise its budget)");
	if (!r && !o.resume && !o.until_decided && (o.max_runs || o.budget_s))
		r = user_error("run: --max-runs and --budget need --until decided");
	if (!r && o.until_decided && o.runs)
		r = user_error("run: --runs fixes the runs; --until decided chooses them "
			       "(cap them with --max-runs)");
	if (!r && o.until_decided && o.mode == SESSION_ONE)
		r = user_error("run: --until decided compares two kernels: add --ab or --aa");
	if (!r && o.kernel && o.mode != SESSION_ONE)
		r = user_error("run: --kernel is for a single-kernel run (without --ab/--aa)");
	if (!r)
		r = one_stdout_output(&o);
	if (!r) {
		o.config = cmd_config_path(o.config);
		r = session_main(&o);
	}
	strvec_clear(&o.workloads);
	strvec_clear(&o.kernel_names);
	return cmd_status(r);
}
