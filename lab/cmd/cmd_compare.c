// SPDX-License-Identifier: GPL-2.0
/* mglrulab compare A.json B.json: last night against tonight (see report_compare.c). */
#include "cmd.h"
#include "report.h"
#include "report_cli.h"
#include "report_priv.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

int cmd_compare(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct report_cli cli;
	json_t *a = NULL, *b = NULL, *session = NULL, *report = NULL;
	int ret;

	if (wants_help(argc, argv)) {
		print_command_help(find_command("compare"));
		return LAB_OK;
	}
	ret = report_cli_parse(argc, argv, 2, &cli);
	if (ret)
		return ret;
	if (report_load(cli.files[0], &a, &err) || report_load(cli.files[1], &b, &err)) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	session = report_compare_session(a, b, cli.kernel_a, cli.kernel_b, &err);
	if (!session || !(report = report_analyze(session, &err))) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	ret = report_cli_write(report, &cli);
out:
	json_decref(a);
	json_decref(b);
	json_decref(session);
	json_decref(report);
	sb_release(&err);
	return ret;
}
