// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab report: regenerate every output of a session from its JSON. The
 * results stored in the file are ignored and recomputed from the raw runs
 * and the recorded settings, so the output depends on nothing but the file.
 */
#include "cmd.h"
#include "fsutil.h"
#include "config.h"
#include "report.h"
#include "report_cli.h"
#include "report_headline.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	REPORT_OPT_OUTPUT_("mail", REPORT_OUT_MAIL,
			   "a reply mail to the series on stdout, ready to send\n"
			   "(From/To/Cc and links: lab.conf [report])"),
	LAB_OPT_END
};

static const char *const report_synopsis[] = {
	"mglrulab report REPORT.json [--html FILE] [--text] [--benchfmt] [--json]",
	"                [--mail] [-o FILE]",
	NULL
};

const struct lab_usage report_usage = {
	.synopsis = report_synopsis,
	.description =
		"Recompute the statistics of a session from its raw runs and recorded\n"
		"settings, and write the outputs. Without an output option, --text.\n"
		"The same JSON always gives byte-identical outputs.\n"
		"\n"
		"--mail writes an LKP-style reply to the series the session measured:\n"
		"headers threaded under its cover letter (In-Reply-To, References), the\n"
		"answer, the lab's setup, how to reproduce, and the HTML's address when\n"
		"lab.conf's [report] base_url is set. From, To and Cc come from [report]\n"
		"mail_from, mail_to and mail_cc of $MGLRULAB_CONFIG or ./lab.conf (From\n"
		"defaults to $USER@hostname). Send it with git send-email or a mail client.\n",
	.options = report_options,
	.footer = "exit status: 0 ok, 1 unreadable or invalid JSON, 2 cannot write output.\n",
};

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
		case REPORT_OUT_BENCHFMT: report_render_benchfmt(report, &out); break;
		case REPORT_OUT_JSON: report_dump(report, &out); break;
		case REPORT_OUT_MAIL:
			ret = report_cli_mail(report, NULL, &out);
			if (ret)
				goto out;
			break;
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

int report_cli_mail(const json_t *report, const char *config_path, struct strbuf *out)
{
	struct lab_config cfg = { 0 };
	struct report_mail_opts o = { 0 };
	struct strbuf why = STRBUF_INIT;
	const char *path = cmd_config_path(config_path);
	char *from = NULL;
	int loaded = 0, r;

	/* lab.conf is optional here: a report can be mailed from anywhere. */
	if (config_path || access(path, F_OK) == 0) {
		if (config_load_or_report(path, &cfg)) {
			config_release(&cfg);
			return LAB_EUSER;
		}
		loaded = 1;
		o.from = cfg.report.mail_from;
		o.to = cfg.report.mail_to;
		o.cc = cfg.report.mail_cc;
		o.base_url = cfg.report.base_url;
	}
	if (!o.from)
		o.from = from = report_mail_default_from();
	r = report_render_mail(report, &o, out, &why);
	if (r)
		warning("mail: %s", sb_str(&why));
	free(from);
	if (loaded)
		config_release(&cfg);
	sb_release(&why);
	return r < 0 ? LAB_EUSER : LAB_OK;
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
