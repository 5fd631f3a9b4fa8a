// SPDX-License-Identifier: GPL-2.0
/* Option callbacks that more than one command takes (cmd.h). */
#include "cmd.h"
#include "config.h"
#include "fsutil.h"
#include "stats.h"
#include "escape.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

int cmd_opt_max_runs(const struct lab_opt_ctx *ctx, const char *arg)
{
	long *max_runs = (long *)((char *)ctx->base + ctx->opt->off);

	if (parse_long(arg, 1, CMD_MAX_RUNS_MAX, max_runs))
		return lab_opt_error(ctx, "expected an integer from %d to %d, got '%s'",
				     STATS_SEQ_MIN_RUNS, CMD_MAX_RUNS_MAX, arg);
	/* Apart, to say why: a cap below the first look could never be reached. */
	if (*max_runs < STATS_SEQ_MIN_RUNS)
		return lab_opt_error(ctx, "expected at least %d, the runs per kernel of the first "
				     "look of --until decided, got %ld", STATS_SEQ_MIN_RUNS, *max_runs);
	return 0;
}

int cmd_opt_workloads(const struct lab_opt_ctx *ctx, const char *arg)
{
	strvec_split((struct strvec *)((char *)ctx->base + ctx->opt->off), arg, ", ");
	return 0;
}

int cmd_opt_attribute(const struct lab_opt_ctx *ctx, const char *arg)
{
	int *which = (int *)((char *)ctx->base + ctx->opt->off);

	*which = arg ? config_attribute_parse(arg) : RUN_ATTRIBUTE_CHANGED;
	if (*which < 0)
		return lab_opt_error(ctx, "expected changed, all or off, got '%s'", arg);
	return 0;
}

int cmd_opt_json(const struct lab_opt_ctx *ctx, const char *arg)
{
	*(const char **)((char *)ctx->base + ctx->opt->off) = arg ? arg : USER_OUTPUT_STDOUT;
	return 0;
}

int cmd_one_stdout_output(const char *what, const struct cmd_output *outputs, size_t n,
			  int *on_stdout)
{
	const char *first = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!outputs[i].path || !user_output_is_stdout(outputs[i].path))
			continue;
		if (first)
			return user_error("%s: %s and %s would both write to standard output: keep "
					  "one there and send the other to a file", what, first,
					  outputs[i].option);
		first = outputs[i].option;
	}
	if (on_stdout)
		*on_stdout = first != NULL;
	return LAB_OK;
}

/* From least to most strict; `none` first is what `run -h` lists first too. */
const struct lab_choice cmd_fail_on_choices[] = {
	{ "none", FAIL_ON_NONE }, { "invalid", FAIL_ON_INVALID },
	{ "regression", FAIL_ON_REGRESSION }, { "change", FAIL_ON_CHANGE }, { NULL, 0 },
};

int cmd_gate_with(const char *what, const struct cmd_gate_ops *ops, const void *subject,
		  enum fail_on f, const char *junit)
{
	struct strbuf sb = STRBUF_INIT;
	int r = LAB_OK, status = LAB_OK;

	if (junit) {
		/* Without --fail-on, the cases are judged by run's default. */
		ops->junit(subject, f == FAIL_ON_DEFAULT ? FAIL_ON_REGRESSION : f, &sb);
		if (write_user_output(junit, sb.buf, sb.len))
			r = lab_error("%s: cannot write %s: %s", what, user_output_name(junit),
				      user_file_strerror(errno));
		sb_reset(&sb);
	}
	if (f != FAIL_ON_DEFAULT)
		status = ops->status(subject, f, &sb);
	if (status)
		term_printf(stderr, "failing (--fail-on %s):\n%s", fail_on_name(f), sb_str(&sb));
	sb_release(&sb);
	return status == LAB_REGRESSION || !r ? status : r;
}

static void view_junit(const void *v, enum fail_on f, struct strbuf *out)
{
	report_gate_junit_view(v, f, out);
}

static int view_status(const void *v, enum fail_on f, struct strbuf *why)
{
	return report_gate_status_view(v, f, why);
}

int cmd_gate_view(const char *what, const struct report_view *v, enum fail_on f,
		  const char *junit)
{
	static const struct cmd_gate_ops ops = { view_junit, view_status };

	return cmd_gate_with(what, &ops, v, f, junit);
}
