// SPDX-License-Identifier: GPL-2.0
/* mglrulab compare A.json B.json: last night against tonight (see report_compare.c). */
#include "cmd.h"
#include "report.h"
#include "report_cli.h"
#include "report_view.h"
#include "xjson.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static const struct lab_option compare_options[] = {
	LAB_OPT_STRING("kernel-a", 0, struct report_cli, kernel_a, "NAME",
		       "kernel of A to use (default: A's design.patched)"),
	LAB_OPT_STRING("kernel-b", 0, struct report_cli, kernel_b, "NAME",
		       "kernel of B to use (default: B's design.patched)"),
	REPORT_OUTPUT_OPTIONS,
	REPORT_GATE_OPTIONS,
	LAB_OPT_END
};

static const char *const compare_synopsis[] = {
	"mglrulab compare A.json B.json [--kernel-a NAME] [--kernel-b NAME]",
	"                 [--html FILE] [--text] [--benchfmt] [--json] [-o FILE]",
	"                 [--fail-on WHAT] [--junit FILE]",
	NULL
};

const struct lab_usage compare_usage = {
	.synopsis = compare_synopsis,
	.description =
		"Compare two sessions metric by metric: the runs of one kernel of A (default:\n"
		"its patched kernel) are the baseline, those of one kernel of B the new\n"
		"sample. Same statistics and outputs as 'mglrulab report'; the statistics\n"
		"settings are B's. Without an output option, --text; one output on\n"
		"standard output, as for 'mglrulab report'.\n",
	.options = compare_options,
	.footer = "exit status: 0 ok (without --fail-on, whatever the verdicts), 1 unreadable\n"
		  "or invalid JSON, or kernels that cannot be compared, 2 cannot write output\n"
		  "or (--fail-on) the lab could not measure, 3 (--fail-on) a regression of B\n"
		  "against A, or a kernel whose runs failed in the guest.\n",
};

int cmd_compare(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct report_cli cli;
	json_t *a = NULL, *b = NULL, *session = NULL;
	struct report_view v = { 0 };
	int ret;

	ret = report_cli_parse(argc, argv, 2, &cli);
	if (ret) {
		report_cli_release(&cli);
		return cmd_status(ret);
	}
	if (report_load(cli.files[0], &a, &err) || report_load(cli.files[1], &b, &err)) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	session = report_compare_session(a, b, cli.kernel_a, cli.kernel_b, &err);
	/* Analysed once, as `mglrulab report` does: every output from the one view. */
	if (!session || report_analyze_view(session, &v, &err)) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	ret = report_cli_write_view(&v, &cli);
out:
	report_view_release(&v);	/* before the session it points into */
	json_decref(a);
	json_decref(b);
	json_decref(session);
	report_cli_release(&cli);
	sb_release(&err);
	return ret;
}
