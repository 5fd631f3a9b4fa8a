// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab report: regenerate every output of a session from its JSON. The
 * results stored in the file are ignored and recomputed from the raw runs
 * and the recorded settings, so the output depends on nothing but the file.
 */
#include "cmd.h"
#include "fsutil.h"
#include "report.h"
#include "report_cli.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int report_opt_output(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct report_cli *cli = ctx->base;

	(void)arg;
	if (cli->nwhat == ARRAY_SIZE(cli->what))
		return lab_opt_error(ctx, "too many output options");
	cli->what[cli->nwhat++] = (enum report_out)ctx->opt->ival;
	return 0;
}

static const struct lab_option report_options[] = {
	REPORT_OUTPUT_OPTIONS,
	LAB_OPT_BOOL("benchfmt-counters", 0, struct report_cli, benchfmt_counters,
		     "--benchfmt: add each run's counters (GROUP.NAME values)"),
	LAB_OPT_END
};

static const char *const report_synopsis[] = {
	"mglrulab report REPORT.json [--html FILE] [--text] [--benchfmt] [--json]",
	"                [--benchfmt-counters] [-o FILE]",
	NULL
};

const struct lab_usage report_usage = {
	.synopsis = report_synopsis,
	.description =
		"Recompute the statistics of a session from its raw runs and recorded\n"
		"settings, and write the outputs. Without an output option, --text.\n"
		"The same JSON always gives byte-identical outputs.\n",
	.options = report_options,
	.footer = "exit status: 0 ok, 1 unreadable or invalid JSON, 2 cannot write output.\n",
};

/* Is @want among the @n outputs of @what? */
static int wants_output(const enum report_out *what, size_t n, enum report_out want)
{
	for (size_t i = 0; i < n; i++)
		if (what[i] == want)
			return 1;
	return 0;
}

/*
 * argv[0] is "report" or "compare": that command's option table (the
 * output options of both, compare's --kernel-a and --kernel-b).
 */
int report_cli_parse(int argc, char **argv, int nfiles, struct report_cli *cli)
{
	const struct command *cmd = find_command(argv[0]);
	const char *what = cmd->name;
	int nargs, r;

	memset(cli, 0, sizeof(*cli));
	r = lab_options_parse(cmd->usage, what, argc, argv, cli, &nargs);
	if (r)
		return r;
	if (nargs > nfiles)
		return user_error("%s: too many arguments (see 'mglrulab help %s')", what, what);
	if (nargs < nfiles)
		return user_error("%s: expected %d JSON file%s (see 'mglrulab help %s')", what, nfiles,
				  nfiles == 1 ? "" : "s", what);
	for (int i = 0; i < nargs; i++)
		cli->files[cli->nfiles++] = argv[i];
	if (cli->benchfmt_counters && !wants_output(cli->what, cli->nwhat, REPORT_OUT_BENCHFMT))
		return user_error("%s: --benchfmt-counters goes with --benchfmt", what);
	if (!cli->nwhat && !cli->html)
		cli->what[cli->nwhat++] = REPORT_OUT_TEXT;
	return 0;
}

int report_cli_write(const json_t *report, const struct report_cli *cli)
{
	struct strbuf out = STRBUF_INIT;
	int ret = LAB_OK;

	if (cli->html) {
		report_render_html(report, &out);
		if (write_user_file(cli->html, out.buf, out.len)) {
			ret = lab_error("cannot write %s: %s", cli->html, user_file_strerror(errno));
			goto out;
		}
		sb_reset(&out);
	}
	for (size_t i = 0; i < cli->nwhat; i++) {
		switch (cli->what[i]) {
		case REPORT_OUT_TEXT: report_render_text(report, &out); break;
		case REPORT_OUT_BENCHFMT:
			report_render_benchfmt_opts(report, &(struct report_benchfmt_opts){
				.counters = cli->benchfmt_counters }, &out);
			break;
		case REPORT_OUT_JSON: report_dump(report, &out); break;
		}
	}
	if (!out.len)
		goto out;
	if (cli->out) {
		if (write_user_file(cli->out, out.buf, out.len))
			ret = lab_error("cannot write %s: %s", cli->out, user_file_strerror(errno));
	} else if (fwrite(out.buf, 1, out.len, stdout) != out.len || fflush(stdout)) {
		ret = lab_error("cannot write to standard output: %s", strerror(errno));
	}
out:
	sb_release(&out);
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct report_cli cli;
	json_t *in = NULL, *report = NULL;
	int ret;

	ret = report_cli_parse(argc, argv, 1, &cli);
	if (ret)
		return cmd_status(ret);
	if (report_load(cli.files[0], &in, &err)) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	report = report_analyze(in, &err);
	if (!report) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	ret = report_cli_write(report, &cli);
out:
	json_decref(in);
	json_decref(report);
	sb_release(&err);
	return ret;
}
