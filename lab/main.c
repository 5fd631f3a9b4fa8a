// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab: build a baseline and a patched kernel, boot each in NUMA guests,
 * run workloads, and report what changed with what confidence.
 */
#include "cmd.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

const struct command lab_commands[] = {
	{ "config", cmd_config, "validate lab.conf and print the resolved configuration",
	  "usage: mglrulab config check [-c FILE | FILE] [--json]\n"
	  "\n"
	  "Parse the lab configuration (default: ./lab.conf), check every section and\n"
	  "key, resolve relative paths against the file's folder and print the result.\n"
	  "Errors name file:line, the section and key, and what was expected.\n"
	  "\n"
	  "  -c, --config FILE   configuration file (default: lab.conf)\n"
	  "  --json              print the resolved configuration as JSON\n" },
	{ "kernel", cmd_kernel, "build kernels into the content-addressed cache; list; gc",
	  "usage: mglrulab kernel build [-c FILE] [--json] [NAME...]\n"
	  "       mglrulab kernel list  [-c FILE] [--json]\n"
	  "       mglrulab kernel gc    [-c FILE] [--dry-run]\n"
	  "\n"
	  "build  Build the named [kernel NAME] sections (default: all of them): prepare\n"
	  "       the source (directory, .tar.* archive, or git repository plus ref) in a\n"
	  "       lab-managed git tree, apply the series with git am, merge the config\n"
	  "       base and fragments, verify every requested option, build bzImage out of\n"
	  "       tree. Unchanged inputs are a cache hit.\n"
	  "list   Show the cache entries.\n"
	  "gc     Remove cache entries no kernel of the configuration resolves to.\n"
	  "\n"
	  "  -c, --config FILE   configuration file (default: lab.conf)\n"
	  "  --json              machine-readable output\n"
	  "  --dry-run           (gc) only say what would be removed\n" },
	{ "help", cmd_help, "show help for mglrulab or one command",
	  "usage: mglrulab help [COMMAND]\n" },
	{ "version", cmd_version, "print the version",
	  "usage: mglrulab version\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct command *find_command(const char *name)
{
	for (const struct command *c = lab_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void print_command_help(const struct command *cmd)
{
	fputs(cmd->usage, stdout);
}

int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

static void print_main_help(FILE *f)
{
	fprintf(f,
		"usage: mglrulab [-v] [-q] [--version] <command> [options]\n"
		"\n"
		"Kernel A/B performance lab: build a baseline and a patched kernel, boot\n"
		"them in NUMA guests, run workloads, report what changed.\n"
		"\n"
		"commands:\n");
	for (const struct command *c = lab_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"'mglrulab help COMMAND' or 'mglrulab COMMAND -h' shows a command's options.\n"
		"\n"
		"exit status: 0 ok, 1 user error (bad config or input, a series that does\n"
		"not apply), 2 lab failure (build, boot or host), 3 regression found.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_main_help(stdout);
		return LAB_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return user_error("no such command '%s' (see 'mglrulab help')", argv[1]);
	print_command_help(c);
	return LAB_OK;
}

static int cmd_version(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		print_command_help(find_command("version"));
		return LAB_OK;
	}
	printf("mglrulab %s\n", MGLRULAB_VERSION);
	return LAB_OK;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version"))
			return cmd_version(1, argv);
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_main_help(stdout);
			return LAB_OK;
		} else if (!strcmp(argv[i], "-v"))
			lab_verbose++;
		else if (!strcmp(argv[i], "-q"))
			lab_quiet = 1;
		else
			return user_error("unknown option '%s' (see 'mglrulab help')", argv[i]);
	}
	if (i == argc) {
		print_main_help(stderr);
		return LAB_EUSER;
	}
	const struct command *c = find_command(argv[i]);
	if (!c)
		return user_error("'%s' is not a mglrulab command (see 'mglrulab help')", argv[i]);
	return c->fn(argc - i, argv + i);
}
