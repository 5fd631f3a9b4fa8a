// SPDX-License-Identifier: GPL-2.0
/* mglrulab bisect: options; the work is in lab/bisect/bisect.c. */
#include "cmd.h"
#include "bisect.h"
#include "session.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int opt_resume(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct bisect_opts *o = ctx->base;

	o->resume = 1;
	o->resume_id = arg;
	return 0;
}

static const struct lab_option bisect_options[] = {
	CMD_OPT_CONFIG(struct bisect_opts, config),
	CMD_OPT_MAX_RUNS(struct bisect_opts, max_runs,
			 "run cap per kernel of each step (default 20, at\n"
			 "least 6: the runs of the first look)"),
	LAB_OPT_DURATION("budget", 0, struct bisect_opts, budget_s, "DURATION",
			 "run time of each step (90s, 15m): then the step\n"
			 "stops with what it has"),
	CMD_OPT_WORKLOADS(struct bisect_opts, workloads),
	LAB_OPT_BOOL("per-patch", 0, struct bisect_opts, per_patch,
		     "measure every patch's own step instead of searching\n"
		     "(series of up to 6 patches): a waterfall"),
	{ .long_name = "attribute", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_attribute,
	  LAB_OPT_FIELD_(struct bisect_opts, attribute), .argname = "WHICH",
	  .flags = LAB_OPT_OPTIONAL_ARG,
	  .help = "the culprit's own step gets attribution runs: which kernel\n"
		  "functions its instructions moved to (changed, the default:\n"
		  "if its primary changed; all; off); needs a TCG guest under\n"
		  "icount ([run] attribute; docs/attribution.md)" },
	LAB_OPT_STRING("confirmed", 0, struct bisect_opts, confirmed, "SESSION",
		       "a finished `run --ab BASE NEW` session of the reports\n"
		       "folder (its folder or name) is the confirm step: the\n"
		       "whole series is not measured again"),
	{ .long_name = "resume", .kind = LAB_OPT_CALLBACK, .cb = opt_resume, .argname = "BISECTION",
	  .flags = LAB_OPT_OPTIONAL_ARG,
	  .help = "continue a stopped bisection (default: reports/latest-bisect)" },
	CMD_OPT_JSON(struct bisect_opts, json,
		     "a JSON summary to FILE, or to stdout in place of the\n"
		     "text summary (no FILE, or \"-\"): the bisection's folder,\n"
		     "the culprit, the series' verdicts, each step's session,\n"
		     "the exit status and its meaning, the reports' paths"),
	LAB_OPT_GLOBAL_BOOL(NULL, 'q', lab_quiet, "no progress output"),
	LAB_OPT_GLOBAL_COUNT(NULL, 'v', lab_verbose, "more output (twice: debug)"),
	LAB_OPT_END
};

static const char *const bisect_synopsis[] = {
	"mglrulab bisect [BASE NEW] [-c FILE] [--max-runs N] [--budget DURATION]",
	"                [--workloads a,b] [--per-patch] [--attribute[=WHICH]]",
	"                [--confirmed SESSION] [--json [FILE]] [-q] [-v]",
	"mglrulab bisect --resume [BISECTION] [-c FILE] [--json [FILE]]",
	NULL
};

const struct lab_usage bisect_usage = {
	.synopsis = bisect_synopsis,
	.description =
		"Which patch of NEW's series moved the metric (BASE NEW default to [run] kernels).\n"
		"First an A/B session of BASE against NEW, until decided, confirms the change on\n"
		"the primary metrics (all metrics of a workload that declares none); without a\n"
		"confirmed change it stops there (--confirmed: a session of BASE against NEW\n"
		"already run is that step). Then it bisects the prefix kernels NEW@K: each\n"
		"probe is a session of BASE against NEW@K and one of NEW@K against NEW, each run\n"
		"until decided or its --max-runs/--budget is spent, in the same ABBA order and\n"
		"with the same statistics as `run --ab --until decided`. A prefix that does not\n"
		"build is skipped, as git bisect skip does. It names the culprit (subject,\n"
		"position, Message-Id), its own effect (NEW@(c-1) against NEW@c) with its\n"
		"interval, and what the remaining patches do; with --attribute, which kernel\n"
		"functions the culprit's instructions moved to. A change spread over patches is\n"
		"said to be so. Everything is in reports/<stamp>-bisect/ (bisect.json,\n"
		"bisect.txt, bisect.html: the answer, then each step linked to its report;\n"
		"steps/ with each step's session); the summary goes to stdout.\n",
	.options = bisect_options,
	.footer = "exit status: 0 finished (whatever it found), 1 user error, 2 lab failure or\n"
		  "interrupted (the resume command is printed).\n",
};

int cmd_bisect(int argc, char **argv)
{
	struct bisect_opts o = { .attribute = -1 };
	int nargs, r;

	r = lab_options_parse(&bisect_usage, "bisect", argc, argv, &o, &nargs);
	if (!r && nargs == 2 && !o.resume) {
		o.base = argv[0];
		o.series = argv[1];
	} else if (!r && nargs) {
		r = user_error("bisect: expected two kernel names (BASE NEW) or none, got %d "
			       "argument%s%s", nargs, nargs == 1 ? "" : "s",
			       o.resume ? " with --resume (which takes them from the bisection)" : "");
	}
	/* Each step must hold its first look; refused before any kernel is built. */
	if (!r && o.budget_s && o.budget_s < STATS_SEQ_MIN_RUNS * 2 * SESSION_SEQ_MIN_RUN_S)
		r = user_error("bisect: --budget %.0fs cannot fit a step's first look: %d runs per "
			       "kernel, at least %.0f s", o.budget_s, STATS_SEQ_MIN_RUNS,
			       STATS_SEQ_MIN_RUNS * 2 * SESSION_SEQ_MIN_RUN_S);
	if (!r && o.resume && (o.max_runs || o.budget_s || o.per_patch || o.workloads.n ||
			       o.attribute >= 0 || o.confirmed))
		r = user_error("bisect --resume: --max-runs, --budget, --per-patch, --workloads, "
			       "--attribute and --confirmed are fixed when a bisection starts");
	if (!r) {
		o.config = cmd_config_path(o.config);
		r = bisect_main(&o);
	}
	strvec_clear(&o.workloads);
	return cmd_status(r);
}
