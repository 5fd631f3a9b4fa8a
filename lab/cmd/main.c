// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab: build a baseline and a patched kernel, boot each in NUMA guests,
 * run workloads, and report what changed with what confidence.
 */
#include "cmd.h"
#include "kbuild_prep.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

const struct command lab_commands[] = {
	{ "config", cmd_config, "validate lab.conf and print the resolved configuration",
	  "usage: mglrulab config check [-c FILE | FILE] [--json]\n"
	  "\n"
	  "Parse the lab configuration (default: ./lab.conf), check every section and\n"
	  "key, resolve relative paths against the file's folder and print the result.\n"
	  "Errors name file:line, the section and key, and what was expected.\n"
	  "\n"
	  "  -c, --config FILE   configuration file (default: lab.conf)\n"
	  "  --json              print the resolved configuration as JSON\n" },
	{ "kernel", cmd_kernel, "build kernels into the content-addressed cache; list; gc",
	  "usage: mglrulab kernel build [-c FILE] [--json] [NAME...]\n"
	  "       mglrulab kernel list  [-c FILE] [--json]\n"
	  "       mglrulab kernel gc    [-c FILE] [--dry-run]\n"
	  "\n"
	  "build  Build the named [kernel NAME] sections (default: all of them): prepare\n"
	  "       the source (directory, .tar.* archive, or git repository plus ref) in a\n"
	  "       lab-managed git tree, apply the series with git am, merge the config\n"
	  "       base and fragments, verify every requested option, build bzImage out of\n"
	  "       tree. Unchanged inputs are a cache hit.\n"
	  "list   Show the cache entries.\n"
	  "gc     Remove cache entries no kernel of the configuration resolves to.\n"
	  "\n"
	  "  -c, --config FILE   configuration file (default: lab.conf)\n"
	  "  --json              machine-readable output\n"
	  "  --dry-run           (gc) only say what would be removed\n" },
	{ "report", cmd_report, "regenerate HTML, text and benchfmt reports from a session's JSON",
	  "usage: mglrulab report REPORT.json [--html FILE] [--text] [--benchfmt] [--json]\n"
	  "                       [-o FILE]\n"
	  "\n"
	  "Recompute the statistics of a session from its raw runs and recorded\n"
	  "settings, and write the outputs. Without an output option, --text.\n"
	  "The same JSON always gives byte-identical outputs.\n"
	  "\n"
	  "  --html FILE   self-contained HTML report (inline CSS and SVG, no scripts)\n"
	  "  --text        mail-ready text report (80 columns) on stdout\n"
	  "  --benchfmt    Go benchmark format on stdout (for benchstat -col /kernel)\n"
	  "  --json        the recomputed report JSON on stdout\n"
	  "  -o FILE       write what would go to stdout into FILE instead\n"
	  "\n"
	  "exit status: 0 ok, 1 unreadable or invalid JSON, 2 cannot write output.\n" },
	{ "compare", cmd_compare, "compare two sessions (e.g. last night against tonight)",
	  "usage: mglrulab compare A.json B.json [--kernel-a NAME] [--kernel-b NAME]\n"
	  "                        [--html FILE] [--text] [--benchfmt] [--json] [-o FILE]\n"
	  "\n"
	  "Compare two sessions metric by metric: the runs of one kernel of A (default:\n"
	  "its patched kernel) are the baseline, those of one kernel of B the new\n"
	  "sample. Same statistics and outputs as 'mglrulab report'; the statistics\n"
	  "settings are B's. Without an output option, --text.\n"
	  "\n"
	  "  --kernel-a NAME   kernel of A to use (default: A's design.patched)\n"
	  "  --kernel-b NAME   kernel of B to use (default: B's design.patched)\n"
	  "  --html FILE, --text, --benchfmt, --json, -o FILE   as in 'mglrulab report'\n" },
	{ "guest", cmd_guest, "boot a NUMA guest, run one workload in it, build the guest image",
	  "usage: mglrulab guest boot GUEST --kernel BZIMAGE [options]\n"
	  "       mglrulab guest run GUEST --kernel BZIMAGE --workload NAME [--arg KEY=VALUE]... [options]\n"
	  "       mglrulab guest image [--state DIR] [--bin-dir DIR] [--hash] [--json]\n"
	  "       mglrulab guest extract RUN_DIR...\n"
	  "\n"
	  "boot     Boot GUEST (guests/GUEST.conf or a path) with the kernel, check that\n"
	  "         the guest shows exactly the declared NUMA topology, print it and the\n"
	  "         boot time, power off. A mismatch fails and shows both topologies.\n"
	  "run      The same, then run workload NAME with --KEY=VALUE arguments and\n"
	  "         show the records it printed.\n"
	  "image    Build the guest image (or find it in the cache) and print its path.\n"
	  "extract  Copy /results out of runs kept with --keep-disk (one appliance),\n"
	  "         as data: regular files and folders only; refusals in RUN/extract.json.\n"
	  "\n"
	  "  -k, --kernel K       bzImage to boot, or a [kernel NAME] of lab.conf (from the cache)\n"
	  "  --cmdline ARGS       appended to the kernel command line (e.g. numa=off)\n"
	  "  --initrd PATH        initramfs (only for distribution kernels)\n"
	  "  -w, --workload NAME  (run) program under /usr/lib/mglrulab/workloads\n"
	  "  --arg KEY=VALUE      (run) passed to the workload as --KEY=VALUE\n"
	  "  --timeout SECONDS    (run) the runner kills the workload after this\n"
	  "  --state DIR          lab state folder (default $MGLRULAB_STATE_DIR or .lab)\n"
	  "  --uri URI            libvirt URI (default: embedded qemu:///embed?root=STATE/libvirt)\n"
	  "  --run-dir DIR        where the run's files go (default STATE/runs/...)\n"
	  "  --keep-disk          keep the run's overlay disk for 'guest extract'\n"
	  "  --repeat N           N fresh guests in a row through one connection\n"
	  "  --share DIR:TAG      share a host folder read-only over 9p (mount -t 9p\n"
	  "                       -o trans=virtio,version=9p2000.L TAG /mnt in the guest)\n"
	  "  --no-image           boot without a disk (plumbing checks)\n"
	  "  --guests-dir DIR     where GUEST.conf files are (default guests)\n"
	  "  --bin-dir DIR        the static guest programs for the image (default build/guest)\n"
	  "  --hash               (image) only print the input hash the cache uses\n"
	  "  --json               machine-readable result\n" },
	{ "doctor", cmd_doctor, "check this host for what the lab needs, and say how to fix it",
	  "usage: mglrulab doctor [--state DIR] [--json]\n"
	  "\n"
	  "Check QEMU, libvirt (embedded driver, the libvirt-qemu user), libguestfs and\n"
	  "its appliance kernel, busybox-static, whether KVM really works (cached\n"
	  "probe), kernel source, disk space and the guest programs. Every problem\n"
	  "comes with the command that fixes it. Exit status 0 when nothing blocks.\n" },
	{ "run", cmd_run, "run a session: A/B (--ab), A/A calibration (--aa) or one kernel",
	  "usage: mglrulab run [--ab | --aa] [-c FILE] [--runs N] [--warmups N] [--seed S]\n"
	  "                    [--workloads a,b] [--kernel NAME] [--fail-on regression|change|none]\n"
	  "                    [--junit FILE] [--no-counters] [-q] [-v]\n"
	  "                    [--until decided [--max-runs N] [--budget DURATION]]\n"
	  "       mglrulab run --resume [SESSION] [-c FILE] [--fail-on ...] [--junit FILE]\n"
	  "\n"
	  "Build (or take from the cache) the kernels and the guest image, then run each\n"
	  "workload N times on each kernel, one fresh guest boot per run, in seeded\n"
	  "ABBA/BAAB blocks. Every run's record is written to reports/<session>/runs/ the\n"
	  "moment it completes; report.json, report.html and report.txt follow, and the\n"
	  "text report goes to stdout (progress goes to stderr).\n"
	  "\n"
	  "  --ab                 baseline against patched ([run] kernels, first is A)\n"
	  "  --aa                 the baseline against itself: the noise floor and\n"
	  "                       false-positive rate of this host\n"
	  "  (neither)            one kernel (--kernel NAME, default the first), to explore\n"
	  "  --runs N             repetitions per kernel and workload ([run] runs)\n"
	  "  --until decided      run until every primary metric is decided: a look after\n"
	  "                       6 runs per kernel, then after every ABBA/BAAB pair of\n"
	  "                       blocks; a workload stops once all its primaries are\n"
	  "                       improvement, regression, ~, or ~= inside the band\n"
	  "                       (a sequential test that keeps the error rate at\n"
	  "                       alpha; docs/reports.md)\n"
	  "  --max-runs N         run cap per kernel and workload of --until (default 20)\n"
	  "  --budget DURATION    run time of --until (90s, 15m, 1h30m): then stop, with\n"
	  "                       \"?\" and the runs it would take for what is undecided\n"
	  "  --warmups N          extra runs per kernel first, excluded from statistics\n"
	  "  --seed S             seeds the block order and the bootstrap ([run] seed)\n"
	  "  --workloads a,b      a subset of workloads ([run] workloads)\n"
	  "  --resume [SESSION]   continue a stopped session (default: reports/latest)\n"
	  "  --fail-on WHAT       exit 3 on a regression (default), on any change, or never\n"
	  "  --junit FILE         one JUnit test case per workload metric with its verdict\n"
	  "  --no-counters        skip vmstat/tracepoint/lru_gen collection\n"
	  "\n"
	  "exit status: 0 no failing verdict, 1 user error, 2 lab failure or interrupted\n"
	  "(the resume command is printed), 3 regression found (--fail-on).\n" },
	{ "help", cmd_help, "show help for mglrulab or one command",
	  "usage: mglrulab help [COMMAND]\n" },
	{ "version", cmd_version, "print the version",
	  "usage: mglrulab version\n" },
	{ NULL, NULL, NULL, NULL },
};

const struct command *find_command(const char *name)
{
	for (const struct command *c = lab_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

void print_command_help(const struct command *cmd)
{
	fputs(cmd->usage, stdout);
}

int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	}
	return 0;
}

static void print_main_help(FILE *f)
{
	fprintf(f,
		"usage: mglrulab [-v] [-q] [--version] <command> [options]\n"
		"\n"
		"Kernel A/B performance lab: build a baseline and a patched kernel, boot\n"
		"them in NUMA guests, run workloads, report what changed.\n"
		"\n"
		"commands:\n");
	for (const struct command *c = lab_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->summary);
	fprintf(f,
		"\n"
		"'mglrulab help COMMAND' or 'mglrulab COMMAND -h' shows a command's options.\n"
		"\n"
		"exit status: 0 ok, 1 user error (bad config or input, a series that does\n"
		"not apply), 2 lab failure (build, boot or host), 3 regression found.\n");
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		print_main_help(stdout);
		return LAB_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return user_error("no such command '%s' (see 'mglrulab help')", argv[1]);
	print_command_help(c);
	return LAB_OK;
}

static int cmd_version(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		print_command_help(find_command("version"));
		return LAB_OK;
	}
	printf("mglrulab %s\n", MGLRULAB_VERSION);
	return LAB_OK;
}

int main(int argc, char **argv)
{
	int i;

	/* Not a command: make runs it as $(MAKE) while a build folder is prepared. */
	if (argc > 1 && !strcmp(argv[1], KBUILD_MAKE_RECORDER))
		return kbuild_make_recorder(argc - 1, argv + 1);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--version"))
			return cmd_version(1, argv);
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_main_help(stdout);
			return LAB_OK;
		} else if (!strcmp(argv[i], "-v"))
			lab_verbose++;
		else if (!strcmp(argv[i], "-q"))
			lab_quiet = 1;
		else
			return user_error("unknown option '%s' (see 'mglrulab help')", argv[i]);
	}
	if (i == argc) {
		print_main_help(stderr);
		return LAB_EUSER;
	}
	const struct command *c = find_command(argv[i]);
	if (!c)
		return user_error("'%s' is not a mglrulab command (see 'mglrulab help')", argv[i]);
	return c->fn(argc - i, argv + i);
}
