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

int report_cli_parse(int argc, char **argv, int nfiles, struct report_cli *cli)
{
	memset(cli, 0, sizeof(*cli));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--html") || !strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return user_error("%s needs a file name", a);
			if (!strcmp(a, "--html"))
				cli->html = argv[++i];
			else
				cli->out = argv[++i];
		} else if (!strcmp(a, "--kernel-a") || !strcmp(a, "--kernel-b")) {
			if (!strcmp(argv[0], "report"))
				return user_error("%s is an option of 'mglrulab compare'", a);
			if (i + 1 >= argc)
				return user_error("%s needs a kernel name", a);
			if (a[9] == 'a')
				cli->kernel_a = argv[++i];
			else
				cli->kernel_b = argv[++i];
		} else if (!strncmp(a, "--html=", 7)) {
			cli->html = a + 7;
		} else if (!strcmp(a, "--text")) {
			cli->what[cli->nwhat++] = REPORT_OUT_TEXT;
		} else if (!strcmp(a, "--benchfmt")) {
			cli->what[cli->nwhat++] = REPORT_OUT_BENCHFMT;
		} else if (!strcmp(a, "--json")) {
			cli->what[cli->nwhat++] = REPORT_OUT_JSON;
		} else if (a[0] == '-' && a[1]) {
			return user_error("unknown option '%s' (see 'mglrulab help %s')", a, argv[0]);
		} else if (cli->nfiles < nfiles) {
			cli->files[cli->nfiles++] = a;
		} else {
			return user_error("too many arguments (see 'mglrulab help %s')", argv[0]);
		}
		if (cli->nwhat == ARRAY_SIZE(cli->what))
			return user_error("too many output options");
	}
	if (cli->nfiles != nfiles)
		return user_error("expected %d JSON file%s (see 'mglrulab help %s')", nfiles,
				  nfiles == 1 ? "" : "s", argv[0]);
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
		if (write_file_atomic(cli->html, out.buf, out.len)) {
			ret = lab_error("cannot write %s: %s", cli->html, strerror(errno));
			goto out;
		}
		sb_reset(&out);
	}
	for (size_t i = 0; i < cli->nwhat; i++) {
		switch (cli->what[i]) {
		case REPORT_OUT_TEXT: report_render_text(report, &out); break;
		case REPORT_OUT_BENCHFMT: report_render_benchfmt(report, &out); break;
		case REPORT_OUT_JSON: report_dump(report, &out); break;
		}
	}
	if (!out.len)
		goto out;
	if (cli->out) {
		if (write_file_atomic(cli->out, out.buf, out.len))
			ret = lab_error("cannot write %s: %s", cli->out, strerror(errno));
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

	if (wants_help(argc, argv)) {
		print_command_help(find_command("report"));
		return LAB_OK;
	}
	ret = report_cli_parse(argc, argv, 1, &cli);
	if (ret)
		return ret;
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
