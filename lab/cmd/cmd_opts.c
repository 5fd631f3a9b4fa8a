// SPDX-License-Identifier: GPL-2.0
/* Option callbacks that more than one command takes (cmd.h). */
#include "cmd.h"
#include "stats.h"

#include <stddef.h>

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
