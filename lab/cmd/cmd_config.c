// SPDX-License-Identifier: GPL-2.0
/* mglrulab config check: validate lab.conf and show what it resolves to. */
#include "cmd.h"
#include "escape.h"
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cmd_config(int argc, char **argv)
{
	const char *path = NULL;
	int json = 0, i = 1;
	struct lab_config cfg;

	if (wants_help(argc, argv)) {
		print_command_help(find_command("config"));
		return LAB_OK;
	}
	if (argc < 2 || strcmp(argv[1], "check"))
		return user_error("usage: mglrulab config check [-c FILE | FILE] [--json]");
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc)
			path = argv[++i];
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			return user_error("config check: unexpected argument '%s'", argv[i]);
	}
	if (!path)
		path = config_default_path();
	if (config_load_or_report(path, &cfg)) {
		config_free(&cfg);
		return LAB_EUSER;
	}
	if (json) {
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
	config_free(&cfg);
	return LAB_OK;
}
