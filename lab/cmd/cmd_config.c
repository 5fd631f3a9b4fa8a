// SPDX-License-Identifier: GPL-2.0
/* mglrulab config check: validate lab.conf and show what it resolves to. */
#include "cmd.h"
#include "escape.h"
#include "config.h"
#include "host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct config_opts {
	const char *config;
	int json;
};

static const struct lab_option config_options[] = {
	CMD_OPT_CONFIG(struct config_opts, config),
	LAB_OPT_BOOL("json", 0, struct config_opts, json, "print the resolved configuration as JSON"),
	LAB_OPT_END
};

static const char *const config_synopsis[] = {
	"mglrulab config check [-c FILE | FILE] [--json]", NULL
};

const struct lab_usage config_usage = {
	.synopsis = config_synopsis,
	.description =
		"Parse the lab configuration (default: ./lab.conf), check every section and\n"
		"key, resolve relative paths against the file's folder and print the result.\n"
		"Errors name file:line, the section and key, and what was expected.\n",
	.options = config_options,
};

const char *cmd_config_path(const char *given)
{
	return given ? given : config_default_path();
}

int cmd_config(int argc, char **argv)
{
	struct config_opts o = { 0 };
	struct lab_config cfg;
	const char *path;
	int nargs, r;

	if (argc < 2 || strcmp(argv[1], "check")) {
		r = lab_options_parse(&config_usage, "config", argc, argv, &o, &nargs);
		if (r)
			return cmd_status(r);
		return user_error("usage: mglrulab config check [-c FILE | FILE] [--json]");
	}
	argc--, argv++;		/* past the command: argv[0] is "check" */
	r = lab_options_parse(&config_usage, "config check", argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	/* the file: -c FILE or one argument, not both */
	if (nargs > 1 || (nargs && o.config))
		return user_error("config check: unexpected argument '%s'", argv[nargs - 1]);
	path = cmd_config_path(nargs ? argv[0] : o.config);
	if (config_load_or_report(path, &cfg)) {
		config_release(&cfg);
		return LAB_EUSER;
	}
	struct strbuf err = STRBUF_INIT;
	if (hosts_check_config(&cfg, &err)) {
		/* what needs the guest's topology file: the hosts' CPUs */
		term_printf(stderr, "%s", sb_str(&err));
		term_printf(stderr, "%s: error: %s: the configuration has errors (see above)\n",
			    lab_progname, path);
		sb_release(&err);
		config_release(&cfg);
		return LAB_EUSER;
	}
	sb_release(&err);
	if (o.json) {
		char *text = config_to_json(&cfg);
		puts(text);
		free(text);
	} else {
		struct strbuf sb = STRBUF_INIT;
		config_print(&cfg, &sb);
		term_printf(stdout, "%s", sb_str(&sb));
		term_printf(stdout, "\n%s: OK\n", path);
		sb_release(&sb);
	}
	config_release(&cfg);
	return LAB_OK;
}
