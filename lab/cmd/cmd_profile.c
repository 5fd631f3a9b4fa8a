// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab profile KERNEL --workload NAME: where one kernel spends its
 * instructions on a workload, per kernel function and per unit, for an
 * author who wants to look before posting (docs/attribution.md).
 *
 * A profile is a one-kernel session (run without --ab) of one measured
 * run, the workload's figure for reference, followed by the attribution
 * runs of every chosen workload (and with --coherence, the coherence
 * model's runs: which cache lines move between its CPUs, per unit): the
 * same folders, reports and resume as any session, with a one-kernel
 * table in place of a comparison.
 */
#include "cmd.h"
#include "session.h"

#include <string.h>

static const struct lab_option profile_options[] = {
	CMD_OPT_CONFIG(struct session_opts, config),
	{ .long_name = "workload", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_workloads,
	  LAB_OPT_FIELD_(struct session_opts, workloads), .argname = "NAME[,NAME]",
	  .help = "the [workload NAME] sections to profile (required)" },
	LAB_OPT_SET_INT("coherence", 0, struct session_opts, coherence, RUN_ATTRIBUTE_ALL,
			"also the cache-line transfers between its CPUs per unit, from\n"
			"two runs with the coherence plugin (docs/coherence.md)"),
	LAB_OPT_END
};

static const char *const profile_synopsis[] = {
	"mglrulab profile KERNEL --workload NAME[,NAME] [--coherence] [-c FILE] [-q] [-v]",
	NULL
};

const struct lab_usage profile_usage = {
	.synopsis = profile_synopsis,
	.description =
		"Where KERNEL ([kernel KERNEL] of lab.conf, or a prefix NAME@K) spends its\n"
		"instructions on each workload: per kernel function, per unit of the workload\n"
		"(a yield, a generation), with each function's share of the whole and its\n"
		"spread between two attribution runs. The kernel is built (or found in the\n"
		"cache), the guest of [run] guest boots it once for the workload's own figure,\n"
		"then twice with the attribution plugin. The guest must run under icount\n"
		"(guests/tiny-icount.conf) and the plugin must be built (make plugin).\n"
		"The session folder and its reports are those of `mglrulab run`; the table is\n"
		"the report's \"Profile\" section (docs/attribution.md). With --coherence, two\n"
		"more runs with the coherence plugin give the modelled cache-line transfers\n"
		"between its CPUs per unit, by function and line: the report's \"Cache-line\n"
		"transfers (model)\" section (docs/coherence.md); lab.conf's [run] coherence\n"
		"does not apply to a profile.\n",
	.options = profile_options,
	.footer = "exit status: 0 a table for every workload, 1 a lab failure or no table\n"
		  "(the reason is printed: not under icount, no plugin, a workload that marks\n"
		  "no operations), 2 bad usage or configuration.\n",
};

int cmd_profile(int argc, char **argv)
{
	struct session_opts o = { .mode = SESSION_ONE, .runs = 1, .warmups = 0,
				  .fail_on = FAIL_ON_NONE, .attribute = RUN_ATTRIBUTE_ALL,
				  .coherence = RUN_ATTRIBUTE_OFF, .attribution_required = 1 };
	int nargs, r;

	r = lab_options_parse(&profile_usage, "profile", argc, argv, &o, &nargs);
	if (!r && nargs != 1)
		r = user_error("profile: expected one KERNEL, got %d arguments (see "
			       "'mglrulab profile -h')", nargs);
	if (!r && !o.workloads.n)
		r = user_error("profile: --workload NAME is required: which [workload] to profile");
	if (!r) {
		strvec_push(&o.kernel_names, argv[0]);
		o.config = cmd_config_path(o.config);
		r = session_main(&o);
	}
	strvec_clear(&o.workloads);
	strvec_clear(&o.kernel_names);
	return cmd_status(r);
}
