// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab: build a baseline and a patched kernel, boot each in NUMA guests,
 * run workloads, and report what changed with what confidence.
 */
#include "cmd.h"
#include "kbuild_prep.h"
#include "strbuf.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const char *const help_synopsis[] = { "mglrulab help [COMMAND]", NULL };
static const struct lab_usage help_usage = { .synopsis = help_synopsis };
static const char *const version_synopsis[] = { "mglrulab version", NULL };
static const struct lab_usage version_usage = { .synopsis = version_synopsis };

const struct command lab_commands[] = {
	{ "config", cmd_config, "validate lab.conf and print the resolved configuration",
	  &config_usage },
	{ "kernel", cmd_kernel, "build kernels into the content-addressed cache; list; gc",
	  &kernel_usage },
	{ "report", cmd_report, "regenerate HTML, text and benchfmt reports from a session's JSON",
	  &report_usage },
	{ "compare", cmd_compare, "compare two sessions (e.g. last night against tonight)",
	  &compare_usage },
	{ "history", cmd_history, "every session as series of nights, with their change points",
	  &history_usage },
	{ "guest", cmd_guest, "boot a NUMA guest, run one workload in it, build the guest image",
	  &guest_usage },
	{ "host", cmd_host, "put kernels and the guest image on the lab's libvirt hosts",
	  &host_usage },
	{ "doctor", cmd_doctor, "check this host for what the lab needs, and say how to fix it",
	  &doctor_usage },
	{ "run", cmd_run, "run a session: A/B (--ab), A/A calibration (--aa) or one kernel",
	  &run_usage },
	{ "bisect", cmd_bisect, "which patch of a series moved the metric: confirm, bisect prefixes",
	  &bisect_usage },
	{ "attribute", cmd_attribute, "which kernel functions a run's instructions went to (TCG plugin)",
	  &attribute_usage },
	{ "profile", cmd_profile, "where one kernel spends a workload's instructions, per function",
	  &profile_usage },
	{ "watch", cmd_watch, "a mailing-list archive's patch series into a durable queue",
	  &watch_usage },
	{ "help", cmd_help, "show help for mglrulab or one command", &help_usage },
	{ "version", cmd_version, "print the version", &version_usage },
	{ NULL, NULL, NULL, NULL },
};

const char *const *cmd_command_names(void)
{
	static const char *names[ARRAY_SIZE(lab_commands)];

	if (!names[0])
		for (size_t i = 0; lab_commands[i].name; i++)
			names[i] = lab_commands[i].name;
	return names;
}

const struct command *find_command(const char *name)
{
	int i = cmd_select(cmd_command_names(), name);

	return i < 0 ? NULL : &lab_commands[i];
}

/* mglrulab's own options, before the command. */
struct main_opts {
	int version;
};

static const struct lab_option main_options[] = {
	LAB_OPT_GLOBAL_COUNT(NULL, 'v', lab_verbose, "more output (twice: debug)"),
	LAB_OPT_GLOBAL_BOOL(NULL, 'q', lab_quiet, "no progress output"),
	LAB_OPT_BOOL("version", 0, struct main_opts, version, "print the version"),
	LAB_OPT_END
};

static const char *const main_synopsis[] = {
	"mglrulab [-v] [-q] [--version] <command> [options]", NULL
};

/* The main usage lists the commands: built once, from lab_commands. */
static const struct lab_usage *main_usage(void)
{
	static struct lab_usage u = {
		.synopsis = main_synopsis,
		.options = main_options,
		.stop_at_arg = 1,
		.footer = "'mglrulab help COMMAND' or 'mglrulab COMMAND -h' shows a command's options.\n"
			  "-v and -q may also follow the command; -q with -v is refused.\n"
			  "\n"
			  "exit status: 0 ok, 1 user error (bad config or input, a series that does\n"
			  "not apply), 2 lab failure (build, boot or host; --fail-on: the lab could\n"
			  "not measure), 3 regression found or a kernel failed in the guest\n"
			  "(--fail-on).\n",
	};
	static struct strbuf desc = STRBUF_INIT;

	if (!u.description) {
		sb_adds(&desc, "Kernel A/B performance lab: build a baseline and a patched kernel, boot\n"
			       "them in NUMA guests, run workloads, report what changed.\n"
			       "\n"
			       "commands:\n");
		for (const struct command *c = lab_commands; c->name; c++)
			sb_addf(&desc, "  %-10s %s\n", c->name, c->summary);
		u.description = sb_str(&desc);
	}
	return &u;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;
	int nargs, r = lab_options_parse(&help_usage, "help", argc, argv, NULL, &nargs);

	if (r)
		return cmd_status(r);
	if (!nargs) {
		lab_usage_print(main_usage());
		return LAB_OK;
	}
	c = find_command(argv[0]);
	if (!c)
		return cmd_select_error(NULL, cmd_command_names(), argv[0]);
	lab_usage_print(c->usage);
	return LAB_OK;
}

static int cmd_version(int argc, char **argv)
{
	int nargs, r = lab_options_parse(&version_usage, "version", argc, argv, NULL, &nargs);

	if (r)
		return cmd_status(r);
	printf("mglrulab %s\n", MGLRULAB_VERSION);
	return LAB_OK;
}

int main(int argc, char **argv)
{
	struct main_opts o = { 0 };
	const struct command *c;
	int nargs, r;

	/* Not a command: make runs it as $(MAKE) while a build folder is prepared. */
	if (argc > 1 && !strcmp(argv[1], KBUILD_MAKE_RECORDER))
		return kbuild_make_recorder(argc - 1, argv + 1);
	r = lab_options_parse(main_usage(), NULL, argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	if (o.version)
		return cmd_version(1, (char *[]){ "version", NULL });
	if (!nargs) {
		struct strbuf sb = STRBUF_INIT;

		lab_usage_format(main_usage(), &sb);
		fputs(sb_str(&sb), stderr);
		sb_release(&sb);
		return LAB_EUSER;
	}
	c = find_command(argv[0]);
	if (!c)
		return cmd_select_error(NULL, cmd_command_names(), argv[0]);
	return c->fn(nargs, argv);
}
