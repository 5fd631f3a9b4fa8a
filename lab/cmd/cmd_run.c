// SPDX-License-Identifier: GPL-2.0
/* mglrulab run: options; the work is in session.c. */
#include "cmd.h"
#include "session.h"
#include "stats.h"

#include <stdlib.h>
#include <string.h>

static int need_arg(int argc, char **argv, int i)
{
	if (i + 1 >= argc)
		return user_error("run: %s needs a value", argv[i]);
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct session_opts o = { .warmups = -1, .fail_on = FAIL_ON_REGRESSION, .mode = SESSION_ONE };
	int r = LAB_OK;

	if (wants_help(argc, argv)) {
		print_command_help(find_command("run"));
		return LAB_OK;
	}
	for (int i = 1; i < argc && !r; i++) {
		const char *a = argv[i];
		long v;
		if (!strcmp(a, "--ab"))
			o.mode = SESSION_AB;
		else if (!strcmp(a, "--aa"))
			o.mode = SESSION_AA;
		else if (!strcmp(a, "-q"))
			lab_quiet = 1;
		else if (!strcmp(a, "-v"))
			lab_verbose++;
		else if (!strcmp(a, "--no-counters"))
			o.no_counters = 1;
		else if (!strcmp(a, "--resume")) {
			o.resume = 1;
			if (i + 1 < argc && argv[i + 1][0] != '-')
				o.resume_id = argv[++i];
		} else if (!strcmp(a, "-c") || !strcmp(a, "--config")) {
			if (!(r = need_arg(argc, argv, i)))
				o.config = argv[++i];
		} else if (!strcmp(a, "--runs")) {
			if (!(r = need_arg(argc, argv, i)) && parse_long(argv[++i], 1, 10000, &v))
				r = user_error("run: --runs: expected an integer from 1 to 10000, not '%s'", argv[i]);
			o.runs = v;
		} else if (!strcmp(a, "--until")) {
			if ((r = need_arg(argc, argv, i)))
				break;
			const char *u = argv[++i];
			if (!strcmp(u, "decided"))
				o.until_decided = 1;
			else if (strcmp(u, "runs"))
				r = user_error("run: --until: expected 'decided' (stop once every primary "
					       "metric is decided) or 'runs' (the planned runs), not '%s'", u);
		} else if (!strcmp(a, "--max-runs")) {
			if (!(r = need_arg(argc, argv, i)) && parse_long(argv[++i], 1, 10000, &v))
				r = user_error("run: --max-runs: expected an integer from %d to 10000, not '%s'",
					       STATS_SEQ_MIN_RUNS, argv[i]);
			else if (!r && v < STATS_SEQ_MIN_RUNS)
				r = user_error("run: --max-runs: expected at least %d, the runs per kernel "
					       "of the first look of --until decided, not %ld",
					       STATS_SEQ_MIN_RUNS, v);
			o.max_runs = v;
		} else if (!strcmp(a, "--budget")) {
			if (!(r = need_arg(argc, argv, i)) && parse_duration(argv[++i], &o.budget_s))
				r = user_error("run: --budget: expected a duration such as 900, 90s, 15m "
					       "or 1h30m, not '%s'", argv[i]);
		} else if (!strcmp(a, "--warmups")) {
			if (!(r = need_arg(argc, argv, i)) && parse_long(argv[++i], 0, 1000, &v))
				r = user_error("run: --warmups: expected an integer from 0 to 1000, not '%s'", argv[i]);
			o.warmups = v;
		} else if (!strcmp(a, "--seed")) {
			if (!(r = need_arg(argc, argv, i)) && parse_u64(argv[++i], &o.seed))
				r = user_error("run: --seed: expected a non-negative integer, not '%s'", argv[i]);
			o.seed_set = 1;
		} else if (!strcmp(a, "--workloads")) {
			if (!(r = need_arg(argc, argv, i)))
				strvec_split(&o.workloads, argv[++i], ", ");
		} else if (!strcmp(a, "--kernel")) {
			if (!(r = need_arg(argc, argv, i)))
				o.kernel = argv[++i];
		} else if (!strcmp(a, "--junit")) {
			if (!(r = need_arg(argc, argv, i)))
				o.junit = argv[++i];
		} else if (!strcmp(a, "--fail-on")) {
			if ((r = need_arg(argc, argv, i)))
				break;
			const char *f = argv[++i];
			if (!strcmp(f, "regression"))
				o.fail_on = FAIL_ON_REGRESSION;
			else if (!strcmp(f, "change"))
				o.fail_on = FAIL_ON_CHANGE;
			else if (!strcmp(f, "none"))
				o.fail_on = FAIL_ON_NONE;
			else
				r = user_error("run: --fail-on: expected regression, change or none, not '%s'", f);
		} else {
			r = user_error("run: unknown option '%s' (see 'mglrulab run -h')", a);
		}
	}
	if (!r && o.resume && (o.runs || o.seed_set || o.workloads.n || o.warmups >= 0))
		r = user_error("run --resume: the session's plan is fixed; --runs, --seed, --warmups "
			       "and --workloads apply to new sessions only");
	if (!r && o.resume && (o.until_decided || o.max_runs || o.budget_s))
		r = user_error("run --resume: --until, --max-runs and --budget are fixed when a "
			       "session starts (a resumed sequential session continues at its next look)");
	if (!r && !o.until_decided && (o.max_runs || o.budget_s))
		r = user_error("run: --max-runs and --budget need --until decided");
	if (!r && o.until_decided && o.runs)
		r = user_error("run: --runs fixes the runs; --until decided chooses them "
			       "(cap them with --max-runs)");
	if (!r && o.until_decided && o.mode == SESSION_ONE)
		r = user_error("run: --until decided compares two kernels: add --ab or --aa");
	if (!r && o.kernel && o.mode != SESSION_ONE)
		r = user_error("run: --kernel is for a single-kernel run (without --ab/--aa)");
	if (!r) {
		if (!o.config)
			o.config = config_default_path();
		r = session_main(&o);
	}
	strvec_clear(&o.workloads);
	return r;
}
