/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Subcommands: one file each (cmd_*.c), dispatched from main.c. Each file
 * holds its command's option table and usage (options.h) next to the code
 * that uses them; main.c only lists the commands.
 */
#ifndef LAB_CMD_H
#define LAB_CMD_H

#include "options.h"
#include "report_gate.h"
#include "util.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the command name */
	const char *summary;
	const struct lab_usage *usage;		/* options and help text */
};

/* All commands, NULL-name terminated (main.c). */
extern const struct command lab_commands[];
const struct command *find_command(const char *name);

/*
 * Subcommands (kernel build, watch scan...) and the commands themselves,
 * each from one NULL-terminated table of names (cmd_select.c), not a chain
 * of strcmp(): the index of @word in @names, or -1 (@word NULL: -1).
 */
int cmd_select(const char *const *names, const char *word);
/*
 * The user error for a @word that is none of @names: "@what: unknown
 * subcommand 'bulid': did you mean 'build'? (build, list or gc)", or for
 * @what NULL "'reprot' is not a mglrulab command: did you mean 'report'?".
 * Returns LAB_EUSER.
 */
int cmd_select_error(const char *what, const char *const *names, const char *word);
/* The names of lab_commands, NULL-terminated, for cmd_select() (main.c). */
const char *const *cmd_command_names(void);

/* A lab_options_parse() result as the command's exit status: -h is success. */
static inline int cmd_status(int r)
{
	return r == LAB_OPTS_HELP ? LAB_OK : r;
}

/*
 * -c/--config FILE, for every command that reads lab.conf: the one
 * option entry, and the one place that applies the default
 * ($MGLRULAB_CONFIG, else ./lab.conf).
 */
#define CMD_OPT_CONFIG(type, field) \
	LAB_OPT_STRING("config", 'c', type, field, "FILE", "configuration file (default: lab.conf)")
const char *cmd_config_path(const char *given);

/*
 * report and compare: the output options both take, into struct
 * report_cli (cmd_report.c). --text, --benchfmt and --json are kept in
 * command-line order.
 */
LAB_MUST_CHECK
int report_opt_output(const struct lab_opt_ctx *ctx, const char *arg);
/* "--mail -" is stdout too, as "--html -" is; -o FILE sends them to a file. */
#define REPORT_OPT_OUTPUT_(name, what, h) \
	{ .long_name = (name), .kind = LAB_OPT_CALLBACK, .cb = report_opt_output, \
	  .ival = (what), .argname = "-", .flags = LAB_OPT_OPTIONAL_ARG | LAB_OPT_DASH_ONLY, \
	  .help = (h) }
#define REPORT_OUTPUT_OPTIONS \
	LAB_OPT_STRING("html", 0, struct report_cli, html, "FILE", \
		       "self-contained HTML report (inline CSS and SVG, no\n" \
		       "scripts; \"-\": stdout)"), \
	REPORT_OPT_OUTPUT_("text", REPORT_OUT_TEXT, "mail-ready text report (80 columns) on stdout"), \
	REPORT_OPT_OUTPUT_("benchfmt", REPORT_OUT_BENCHFMT, \
			   "Go benchmark format on stdout (for benchstat -col /kernel)"), \
	REPORT_OPT_OUTPUT_("json", REPORT_OUT_JSON, "the recomputed report JSON on stdout"), \
	LAB_OPT_STRING(NULL, 'o', struct report_cli, out, "FILE", \
		       "write what would go to stdout into FILE instead;\n" \
		       "one format per stdout: two are refused")
/* report and compare: their gate, as run's (cmd_gate_view()). */
#define REPORT_GATE_OPTIONS \
	CMD_OPT_FAIL_ON(struct report_cli, fail_on, \
			"exit 3 on a regression or a kernel failing in the\n" \
			"guest, 2 when the lab could not measure: regression,\n" \
			"change (improvements too), invalid (failures only),\n" \
			"none (default: exit 0 whatever the verdicts)"), \
	CMD_OPT_JUNIT(struct report_cli, junit)

/*
 * --max-runs N of run and bisect: the run cap per kernel of --until decided
 * (a session's, or each step's), into the long @field. From
 * STATS_SEQ_MIN_RUNS, the runs per kernel of the first look, which a lower
 * cap could never reach, to CMD_MAX_RUNS_MAX (cmd_opts.c).
 */
#define CMD_MAX_RUNS_MAX 10000
int cmd_opt_max_runs(const struct lab_opt_ctx *ctx, const char *arg);
#define CMD_OPT_MAX_RUNS(type, field, h) \
	{ .long_name = "max-runs", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_max_runs, \
	  LAB_OPT_FIELD_(type, field), .argname = "N", .help = (h) }
/* --workloads a,b: a subset of the lab's workloads, into the strvec @field. */
int cmd_opt_workloads(const struct lab_opt_ctx *ctx, const char *arg);
#define CMD_OPT_WORKLOADS(type, field) \
	{ .long_name = "workloads", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_workloads, \
	  LAB_OPT_FIELD_(type, field), .argname = "a,b", \
	  .help = "a subset of workloads ([run] workloads)" }

/*
 * --fail-on WHAT and --junit FILE of run, report, compare and history:
 * one vocabulary (none, invalid, regression, change: report_gate.h) and
 * one help text each. The field is an enum fail_on, left at
 * FAIL_ON_DEFAULT when the option is not given.
 */
extern const struct lab_choice cmd_fail_on_choices[];
#define CMD_OPT_FAIL_ON(type, field, h) \
	LAB_OPT_CHOICE("fail-on", 0, type, field, cmd_fail_on_choices, "WHAT", h)
#define CMD_OPT_JUNIT(type, field) \
	LAB_OPT_STRING("junit", 0, type, field, "FILE", \
		       "JUnit XML, one test case per metric: <failure> for a\n" \
		       "regression or a kernel failing in the guest, <error>\n" \
		       "when the lab could not measure (\"-\": stdout)")
/*
 * The gate of an analysed report @v (report_analyze_view()) for report
 * and compare (@what): the JUnit file when @junit, then, unless @f is
 * FAIL_ON_DEFAULT, what fails @f on stderr and its exit status
 * (report_gate_status_view()). A JUnit file that cannot be written is an
 * error naming it, exit 2 (3 still wins).
 */
struct report_view;
LAB_MUST_CHECK
int cmd_gate_view(const char *what, const struct report_view *v, enum fail_on f,
		  const char *junit);
/*
 * The same gate over any @subject (history's is the nights): @ops renders
 * its JUnit file and judges it against @f, as report_gate_junit_view()
 * and report_gate_status_view() do for a report.
 */
struct cmd_gate_ops {
	void (*junit)(const void *subject, enum fail_on f, struct strbuf *out);
	int (*status)(const void *subject, enum fail_on f, struct strbuf *why);
};
LAB_MUST_CHECK
int cmd_gate_with(const char *what, const struct cmd_gate_ops *ops, const void *subject,
		  enum fail_on f, const char *junit);

/*
 * One output on standard output at most: two formats there are one stream
 * no program can split. @outputs are { option as the user wrote it, its
 * file (NULL: not asked; "-": stdout) } pairs, @n of them. LAB_OK, with
 * *@on_stdout set when one goes there, or a user error naming two.
 */
struct cmd_output {
	const char *option;
	const char *path;
};
LAB_MUST_CHECK
int cmd_one_stdout_output(const char *what, const struct cmd_output *outputs, size_t n,
			  int *on_stdout);

/* --attribute[=changed|all|off] of run and bisect: RUN_ATTRIBUTE_* into an int. */
int cmd_opt_attribute(const struct lab_opt_ctx *ctx, const char *arg);

/*
 * --json [FILE|-] of run and bisect: the machine-readable summary, to
 * FILE or (without one, or "-") to stdout in place of the text report.
 */
int cmd_opt_json(const struct lab_opt_ctx *ctx, const char *arg);
#define CMD_OPT_JSON(type, field, h) \
	{ .long_name = "json", .kind = LAB_OPT_CALLBACK, .cb = cmd_opt_json, \
	  LAB_OPT_FIELD_(type, field), .argname = "FILE", .flags = LAB_OPT_OPTIONAL_ARG, \
	  .help = (h) }

extern const struct lab_usage config_usage, kernel_usage, report_usage, compare_usage,
	guest_usage, doctor_usage, run_usage, history_usage, bisect_usage, host_usage,
	attribute_usage, profile_usage, watch_usage;

LAB_MUST_CHECK
int cmd_config(int argc, char **argv);
LAB_MUST_CHECK
int cmd_kernel(int argc, char **argv);
LAB_MUST_CHECK
int cmd_watch(int argc, char **argv);
LAB_MUST_CHECK
int cmd_run(int argc, char **argv);
LAB_MUST_CHECK
int cmd_bisect(int argc, char **argv);
LAB_MUST_CHECK
int cmd_report(int argc, char **argv);
LAB_MUST_CHECK
int cmd_compare(int argc, char **argv);
LAB_MUST_CHECK
int cmd_guest(int argc, char **argv);
LAB_MUST_CHECK
int cmd_doctor(int argc, char **argv);
LAB_MUST_CHECK
int cmd_host(int argc, char **argv);
LAB_MUST_CHECK
int cmd_history(int argc, char **argv);
LAB_MUST_CHECK
int cmd_attribute(int argc, char **argv);
LAB_MUST_CHECK
int cmd_profile(int argc, char **argv);

#endif
