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
#include "report_view.h"
#include "session.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int report_opt_output(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct report_cli *cli = ctx->base;

	if (arg && strcmp(arg, "-"))
		return lab_opt_error(ctx, "writes to standard output (\"-\"), got '%s': -o FILE "
				     "sends it to a file", arg);
	if (cli->nwhat == ARRAY_SIZE(cli->what))
		return lab_opt_error(ctx, "too many output options");
	cli->what[cli->nwhat++] = (enum report_out)ctx->opt->ival;
	return 0;
}

static const struct lab_option report_options[] = {
	REPORT_OUTPUT_OPTIONS,
	REPORT_GATE_OPTIONS,
	CMD_OPT_CONFIG(struct report_cli, config),
	LAB_OPT_BOOL("benchfmt-counters", 0, struct report_cli, benchfmt_counters,
		     "--benchfmt: add each run's counters (GROUP.NAME values)"),
	REPORT_OPT_OUTPUT_("mail", REPORT_OUT_MAIL,
			   "a reply mail to the series on stdout, ready to send\n"
			   "(From/To/Cc and links: lab.conf [report])"),
	LAB_OPT_END
};

static const char *const report_synopsis[] = {
	"mglrulab report REPORT.json [--html FILE] [--text] [--benchfmt] [--json]",
	"                [--benchfmt-counters] [--mail] [-o FILE] [--fail-on WHAT]",
	"                [--junit FILE]",
	NULL
};

const struct lab_usage report_usage = {
	.synopsis = report_synopsis,
	.description =
		"Recompute the statistics of a session from its raw runs and recorded\n"
		"settings, and write the outputs. Without an output option, --text.\n"
		"The same JSON always gives byte-identical outputs. One output goes to\n"
		"standard output: --text, --benchfmt, --json, --mail (unless -o FILE),\n"
		"--html - or --junit -; two of them are refused.\n"
		"\n"
		"--mail writes an LKP-style reply to the series the session measured:\n"
		"headers threaded under its cover letter (In-Reply-To, References), the\n"
		"answer, the lab's setup, how to reproduce, and the HTML's address when\n"
		"lab.conf's [report] base_url is set. From, To and Cc come from [report]\n"
		"mail_from, mail_to and mail_cc of $MGLRULAB_CONFIG or ./lab.conf (From\n"
		"defaults to $USER@hostname). Send it with git send-email or a mail client.\n",
	.options = report_options,
	.footer = "exit status: 0 ok (without --fail-on, whatever the verdicts), 1 unreadable\n"
		  "or invalid JSON, 2 cannot write output or (--fail-on) the lab could not\n"
		  "measure a primary or runs of both kernels failed, 3 (--fail-on) a\n"
		  "regression, or a kernel whose runs failed in the guest while the other's\n"
		  "succeeded.\n",
};

/* The option of each stdout output, for messages: a new enum report_out adds its own. */
static const char *out_option(enum report_out w)
{
	static const char *const name[] = {
		[REPORT_OUT_TEXT] = "--text", [REPORT_OUT_BENCHFMT] = "--benchfmt",
		[REPORT_OUT_JSON] = "--json", [REPORT_OUT_MAIL] = "--mail",
	};

	return (size_t)w < ARRAY_SIZE(name) && name[w] ? name[w] : "an output option";
}

/*
 * At most one output on standard output (cmd_one_stdout_output()); the
 * ones -o FILE takes go to that file, together, as asked.
 */
static int one_stdout_output(const char *what, const struct report_cli *cli)
{
	struct cmd_output outs[ARRAY_SIZE(cli->what) + 2];
	size_t n = 0;

	for (size_t i = 0; i < cli->nwhat; i++)
		outs[n++] = (struct cmd_output){ out_option(cli->what[i]),
						 cli->out ? cli->out : USER_OUTPUT_STDOUT };
	outs[n++] = (struct cmd_output){ "--html -", cli->html };
	outs[n++] = (struct cmd_output){ "--junit -", cli->junit };
	return cmd_one_stdout_output(what, outs, n, NULL);
}

/*
 * A session folder (reports/latest/) names its report.json: what `run`
 * printed is what `report` takes. @path itself otherwise, for
 * report_load() to judge; *@own holds what the caller frees.
 */
static const char *session_report_file(const char *path, char **own)
{
	struct stat st;

	*own = NULL;
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return path;
	*own = xasprintf("%s%sreport.json", path, str_ends_with(path, "/") ? "" : "/");
	return *own;
}

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
	cli->fail_on = FAIL_ON_DEFAULT;
	cli->cmd = what;
	r = lab_options_parse(cmd->usage, what, argc, argv, cli, &nargs);
	if (r)
		return r;
	if (nargs > nfiles)
		return user_error("%s: too many arguments (see 'mglrulab help %s')", what, what);
	if (nargs < nfiles)
		return user_error("%s: expected %d JSON file%s (see 'mglrulab help %s')", what, nfiles,
				  nfiles == 1 ? "" : "s", what);
	for (int i = 0; i < nargs; i++)
		cli->files[cli->nfiles++] = session_report_file(argv[i], &cli->dir_files[i]);
	if (cli->benchfmt_counters && !wants_output(cli->what, cli->nwhat, REPORT_OUT_BENCHFMT))
		return user_error("%s: --benchfmt-counters goes with --benchfmt", what);
	/* The default --text, unless --junit - asked for stdout already. */
	if (!cli->nwhat && !cli->html && !(cli->junit && user_output_is_stdout(cli->junit)))
		cli->what[cli->nwhat++] = REPORT_OUT_TEXT;
	return one_stdout_output(what, cli);
}

static int cannot_write(const char *path)
{
	return lab_error("cannot write %s: %s", user_output_name(path), user_file_strerror(errno));
}

typedef int (*render_fn)(const struct report_view *v, const struct report_cli *cli,
			 struct strbuf *out);

static int render_html(const struct report_view *v, const struct report_cli *cli,
		       struct strbuf *out)
{
	(void)cli;
	report_render_html_view(v, out);
	return LAB_OK;
}

/* The mail reads the report as a tree: the view's is made for it alone. */
static int render_mail(const struct report_view *v, const struct report_cli *cli,
		       struct strbuf *out)
{
	json_t *tree = report_view_tree(v);
	int ret = report_cli_mail(tree, cli->config, out);

	json_decref(tree);
	return ret;
}

/* The outputs -o FILE (or standard output) takes, one after the other as asked. */
static int render_outputs(const struct report_view *v, const struct report_cli *cli,
			  struct strbuf *out)
{
	const struct report_benchfmt_opts bf = { .counters = cli->benchfmt_counters };

	for (size_t i = 0; i < cli->nwhat; i++) {
		int ret;

		switch (cli->what[i]) {
		case REPORT_OUT_TEXT:
			report_render_text_view(v, out);
			break;
		case REPORT_OUT_BENCHFMT:
			report_render_benchfmt_view(v, &bf, out);
			break;
		case REPORT_OUT_JSON:
			report_view_dump(v, out);
			break;
		case REPORT_OUT_MAIL:
			ret = render_mail(v, cli, out);
			if (ret)
				return ret;
			break;
		}
	}
	return LAB_OK;
}

/*
 * @render's output streams to @path as it is produced (the renderers'
 * flush points): a report's HTML page or JSON of hundreds of MB is never
 * held whole. A file appears whole or not at all (user_file_begin()).
 */
static int write_streamed(const char *path, render_fn render, const struct report_view *v,
			  const struct report_cli *cli)
{
	struct strbuf out = STRBUF_INIT;
	struct user_file uf;
	int ret;

	if (user_file_begin(path, &uf))
		return cannot_write(path);
	sb_set_sink(&out, uf.fd);
	ret = render(v, cli, &out);
	if (!ret && sb_sink_finish(&out))
		ret = cannot_write(path);
	if (ret)
		user_file_abort(&uf);
	else if (user_file_commit(&uf))
		ret = cannot_write(path);
	sb_release(&out);
	return ret;
}

int report_cli_write_view(const struct report_view *v, const struct report_cli *cli)
{
	int ret;

	if (cli->html) {
		ret = write_streamed(cli->html, render_html, v, cli);
		if (ret)
			return ret;
	}
	if (cli->nwhat) {
		ret = write_streamed(cli->out, render_outputs, v, cli);
		if (ret)
			return ret;
	}
	return cmd_gate_view(cli->cmd, v, cli->fail_on, cli->junit);
}

void report_cli_release(struct report_cli *cli)
{
	for (size_t i = 0; i < ARRAY_SIZE(cli->dir_files); i++) {
		free(cli->dir_files[i]);
		cli->dir_files[i] = NULL;
	}
}

int report_cli_mail(const json_t *report, const char *config_path, struct strbuf *out)
{
	struct report_cfg rc = { 0 };
	struct strbuf why = STRBUF_INIT;
	const char *path = cmd_config_path(config_path);
	/* A named lab.conf (-c, $MGLRULAB_CONFIG) must be there; ./lab.conf need not. */
	int named = config_path || getenv("MGLRULAB_CONFIG");
	int r = LAB_OK;

	/* Only its [report] is read: a mail can be made from anywhere. */
	if ((named || access(path, F_OK) == 0) && config_load_report(path, &rc, &why)) {
		sb_trim_trailing_newlines(&why);
		r = user_error("%s", sb_str(&why));
	} else if (session_render_mail(report, &rc, NULL, out)) {
		r = LAB_EUSER;
	}
	report_cfg_release(&rc);
	sb_release(&why);
	return r;
}

int cmd_report(int argc, char **argv)
{
	struct strbuf err = STRBUF_INIT;
	struct report_cli cli;
	struct report_view v = { 0 };
	json_t *in = NULL;
	int ret;

	ret = report_cli_parse(argc, argv, 1, &cli);
	if (ret) {
		report_cli_release(&cli);
		return cmd_status(ret);
	}
	if (report_load(cli.files[0], &in, &err)) {
		ret = user_error("%s", err.buf);
		goto out;
	}
	/* Analysed once: every output is rendered from the one view. */
	if (report_analyze_view(in, &v, &err)) {
		/* The analysis names the member; the file is the user's to find. */
		ret = user_error("%s: %s", cli.files[0], err.buf);
		goto out;
	}
	ret = report_cli_write_view(&v, &cli);
out:
	report_view_release(&v);
	report_cli_release(&cli);
	json_decref(in);
	sb_release(&err);
	return ret;
}
