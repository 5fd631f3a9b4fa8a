/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The job/result protocol between the orchestrator (host) and the guest
 * runner, defined once for both sides. docs/guest-protocol.md describes it
 * in prose; bump GUEST_PROTOCOL_VERSION on any incompatible change and say
 * what changed there.
 *
 * Host -> guest: the job, a JSON object, as a QEMU fw_cfg file (the kernel
 * command line is too short and a second disk costs a device per run).
 * Guest -> host: JSON lines on a virtio-serial port that libvirt writes to a
 * host file. Every line is one record with "v", "seq" and "type".
 *
 * Header only, no dependencies: the runner is a static guest program.
 */
#ifndef LAB_GUEST_PROTOCOL_H
#define LAB_GUEST_PROTOCOL_H

#define GUEST_PROTOCOL_VERSION 1

/* Where the job travels: libvirt <sysinfo type='fwcfg'> entry name, and where the guest reads it. */
#define GUEST_FWCFG_JOB_NAME	"opt/org.mglrulab/job"
#define GUEST_FWCFG_JOB_PATH	"/sys/firmware/qemu_fw_cfg/by_name/opt/org.mglrulab/job/raw"
/* The virtio-serial port's name (libvirt <channel><target name=...>). */
#define GUEST_CHANNEL_NAME	"org.mglrulab.0"

/* Paths inside the guest image. */
#define GUEST_RUNNER_PATH	"/sbin/mglrulab-runner"
#define GUEST_WORKLOAD_DIR	"/usr/lib/mglrulab/workloads"
/* A run may leave files here; the host extracts them after power-off. */
#define GUEST_RESULTS_DIR	"/results"

/* Limits. Anything over them is rejected, by the runner and again by the host. */
#define GUEST_JOB_MAX		(64 * 1024)		/* bytes of job JSON */
/* One workload stdout line: WL_LINE_MAX, common/workload_contract.h. */
#define GUEST_STDERR_LINE_MAX	4096			/* longer stderr lines are cut */
#define GUEST_STDERR_LINES_MAX	200			/* then stderr is counted, not sent */
/*
 * A workload's whole output: records forwarded, and their bytes as sent.
 * Past either, the runner drops the rest, says so in an "error" record and
 * kills the workload. Well under GUEST_RESULT_FILE_MAX, so an honest runner
 * never reaches the host's cap on the channel file.
 */
#define GUEST_WORKLOAD_RECORDS_MAX	100000
#define GUEST_WORKLOAD_BYTES_MAX	(64 * 1024 * 1024)
/* One record line: a wrapped 1 MiB workload line may grow by JSON escaping. */
#define GUEST_RECORD_MAX	(4 * 1024 * 1024)
#define GUEST_RESULT_FILE_MAX	(256LL * 1024 * 1024)	/* the whole channel file */
/*
 * The highest "seq" the host accepts: every record takes more than one byte
 * of a channel file of at most GUEST_RESULT_FILE_MAX bytes, so an honest
 * runner never numbers past it, and seq + 1 cannot overflow.
 */
#define GUEST_SEQ_MAX		GUEST_RESULT_FILE_MAX

/*
 * Host-side caps on what a guest leaves on the host (docs/security.md,
 * "The guest"). QEMU writes the console and the result channel straight to
 * files: the host checks their sizes every GUEST_OUTPUT_CHECK_MS while the
 * guest runs, and a run over a cap fails, its guest destroyed and the file
 * cut back to the cap.
 */
#define GUEST_CONSOLE_LOG_MAX	(16LL * 1024 * 1024)	/* console.log */
/* results.jsonl: GUEST_RESULT_FILE_MAX */
#define GUEST_OUTPUT_CHECK_MS	200

/*
 * Extracting GUEST_RESULTS_DIR after a run (lab/guest/guest_extract.h): data only.
 * Regular files (written 0644) and folders (0755), owned by whoever runs
 * mglrulab; no links, device nodes, FIFOs, sockets or setuid/setgid files;
 * names of at most GUEST_EXTRACT_NAME_MAX bytes of printable UTF-8, no
 * '/', '.' or '..'. Anything else is refused and listed in the run's
 * extract.json (the first GUEST_EXTRACT_REFUSALS_LISTED, then counted).
 */
#define GUEST_EXTRACT_FILE_MAX		(64LL * 1024 * 1024)	/* one file */
#define GUEST_EXTRACT_TOTAL_MAX		(256LL * 1024 * 1024)	/* all files of one run */
#define GUEST_EXTRACT_ENTRIES_MAX	10000	/* entries looked at, refused ones too */
#define GUEST_EXTRACT_DEPTH_MAX		16	/* folders below GUEST_RESULTS_DIR */
#define GUEST_EXTRACT_DIR_SIZE_MAX	(1024LL * 1024)	/* a folder's own size: not listed beyond */
#define GUEST_EXTRACT_NAME_MAX		128	/* bytes of one name */
#define GUEST_EXTRACT_REFUSALS_LISTED	1000

/*
 * Job keys (JSON object):
 *   "v"          int, GUEST_PROTOCOL_VERSION
 *   "run_id"     string, echoed back in the "job" record
 *   "workload"   string, a program name under GUEST_WORKLOAD_DIR ([a-z0-9_]+),
 *                or "" to only report the topology (mglrulab guest boot)
 *   "args"       array of strings, "--key=value", passed as argv[1..]
 *   "timeout_s"  int, the runner kills the workload's process group after it
 */
#define GUEST_JOB_V		"v"
#define GUEST_JOB_RUN_ID	"run_id"
#define GUEST_JOB_WORKLOAD	"workload"
#define GUEST_JOB_ARGS		"args"
#define GUEST_JOB_TIMEOUT	"timeout_s"
#define GUEST_JOB_ARGS_MAX	256

/* Record types, in the order the runner sends them. */
#define GUEST_REC_HELLO		"hello"		/* runner started: "uptime_s", "runner" */
#define GUEST_REC_TOPOLOGY	"topology"	/* what the guest really has (see below) */
#define GUEST_REC_JOB		"job"		/* the job as understood: "run_id", "workload", "args" */
#define GUEST_REC_WORKLOAD	"workload"	/* "record": one object the workload printed */
#define GUEST_REC_STDERR	"stderr"	/* "text": one line of the workload's stderr */
#define GUEST_REC_EXIT		"exit"		/* "status" (exit code or -1), "signal", "timed_out", "elapsed_s" */
#define GUEST_REC_ERROR		"error"		/* "message": the runner could not do something */
#define GUEST_REC_DONE		"done"		/* last line: "records" sent before it */

/*
 * "topology" record keys: "kernel_release", "cmdline", "lru_gen" (the
 * contents of /sys/kernel/mm/lru_gen/enabled, or null), "vcpus_online",
 * "nodes": [{"id", "cpus" ("0-1"), "memory_kib", "distances": [int...]}]
 * for every node in /sys/devices/system/node/online.
 */

/*
 * What a workload prints inside a "workload" record and how it exits: the
 * workload contract, common/workload_contract.h.
 */

#endif
