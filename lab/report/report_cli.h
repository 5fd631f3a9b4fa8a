/* SPDX-License-Identifier: GPL-2.0 */
/* Option handling shared by `mglrulab report` and `mglrulab compare`. */
#ifndef LAB_REPORT_CLI_H
#define LAB_REPORT_CLI_H

#include "report_gate.h"
#include "util.h"

#include <jansson.h>
#include <stddef.h>

#include "strbuf.h"

enum report_out { REPORT_OUT_TEXT, REPORT_OUT_BENCHFMT, REPORT_OUT_JSON, REPORT_OUT_MAIL };

struct report_cli {
	const char *cmd;	/* "report" or "compare", for messages */
	const char *files[2];	/* a folder's report.json for a folder */
	char *dir_files[2];	/* those paths, report_cli_release() frees them */
	int nfiles;
	const char *html;	/* --html FILE */
	const char *out;	/* -o FILE: stdout outputs go there */
	enum report_out what[8];	/* stdout outputs, in command-line order */
	size_t nwhat;
	const char *kernel_a, *kernel_b;	/* compare: --kernel-a / --kernel-b */
	enum fail_on fail_on;	/* --fail-on; FAIL_ON_DEFAULT: exit 0 whatever the verdicts */
	const char *junit;	/* --junit FILE */
	int benchfmt_counters;			/* report: --benchfmt-counters */
	const char *config;	/* report: -c FILE, for --mail's [report] */
};

/*
 * Parse argv (argv[0] = command name) expecting @nfiles JSON files (a
 * session folder: its report.json).
 * Returns 0, LAB_OPTS_HELP (lab/lib/options.h) after printing the usage
 * for -h, or an exit status.
 */
LAB_MUST_CHECK
int report_cli_parse(int argc, char **argv, int nfiles, struct report_cli *cli);
/* Free what report_cli_parse() allocated (the folders' report.json paths). */
void report_cli_release(struct report_cli *cli);
/*
 * Render and write every requested output of an analysed report @v
 * (report_analyze_view()), then its gate (--junit, --fail-on:
 * cmd_gate_view()): every output rendered from the one view, the JSON
 * written result by result (report_view_dump()); only --mail builds the
 * whole tree. Returns an exit status.
 */
struct report_view;
LAB_MUST_CHECK
int report_cli_write_view(const struct report_view *v, const struct report_cli *cli);

/*
 * The reply mail of @report into @out, its From, To, Cc and links from
 * lab.conf's [report] (@config_path; NULL: $MGLRULAB_CONFIG or ./lab.conf
 * when it exists). Why it is not threaded goes to stderr. An exit status.
 */
LAB_MUST_CHECK
int report_cli_mail(const json_t *report, const char *config_path, struct strbuf *out);

#endif
