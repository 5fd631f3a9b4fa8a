/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One guest run: a transient libvirt domain booted from a kernel with a
 * per-run overlay of the guest image and a job, watched through libvirt
 * lifecycle events until it powers off, destroyed at the timeout. Each run
 * leaves in its folder: domain.xml, job.json, console.log, results.jsonl
 * (and disk.qcow2 when kept for extraction).
 *
 * Once a run has started, SIGINT and SIGTERM (lab/lib/interrupt.h) destroy
 * every domain the lab started; interrupted() then tells the caller to stop.
 *
 * guest_run() may be called from several threads at once, each with its
 * own run (one thread per host slot), on one connection or several: each
 * run waits on its own wake-up pipe, and a signal wakes them all.
 */
#ifndef LAB_DOMAIN_RUN_H
#define LAB_DOMAIN_RUN_H

#include <libvirt/libvirt.h>

#include "domain_xml.h"
#include "guest_conf.h"
#include "guest_result.h"
#include "strbuf.h"

enum guest_run_status {
	GUEST_RUN_OK,		/* the runner reported "done" */
	GUEST_RUN_FAILED,	/* boot failure, crash, protocol error, runner error */
	GUEST_RUN_TIMEOUT,	/* boot or run timeout: destroyed */
	GUEST_RUN_INTERRUPTED,	/* SIGINT/SIGTERM: destroyed */
};
const char *guest_run_status_name(enum guest_run_status s);

/*
 * A run on a host that is not this machine (lab/host/host_run.c fills it):
 * nothing goes by local path. The kernel, initrd, disk and job are volumes
 * in the host's pool, named by their paths there; console.log and
 * results.jsonl come back as libvirt streams into run_dir, as they are
 * for a local run (job.json is still written there, as the record).
 */
struct guest_remote {
	const char *host;		/* its [host] name, for messages */
	const char *kernel;		/* bzImage, path on the host */
	const char *initrd;		/* or NULL */
	const char *disk;		/* the run's own overlay volume, path on the host; NULL: no disk */
	const char *job;		/* the job volume's path on the host; NULL: no job */
	/*
	 * QEMU's log of the serial port, a volume's path on the host (NULL:
	 * none), and how to fetch it: once the domain stopped, its first @max
	 * bytes replace the streamed console.log at @path (0, or -1 with
	 * @err: the streamed copy stays). The pty stream may lose bytes a
	 * loaded host's guest wrote (2 of 40 runs, bench/host-stream-end);
	 * QEMU's log has them all.
	 */
	const char *console_log;
	int (*fetch_console)(void *ctx, const char *path, long long max, struct strbuf *err);
	void *fetch_ctx;
};

struct guest_run {
	/* in */
	const struct guest_topology *topo;
	enum guest_accel accel;		/* resolved: ACCEL_KVM or ACCEL_TCG */
	const char *kernel;		/* bzImage */
	const char *initrd;		/* or NULL */
	const char *base_image;		/* from guest_image_ensure(); NULL: no disk */
	const char *job_json;		/* from guest_job_json(); NULL: no job */
	const char *job_cmdline;	/* guest_job_cmdline()'s, or NULL */
	const char *extra_cmdline;	/* appended last (its init= wins), or NULL */
	const char *run_dir;		/* created if needed */
	/*
	 * The attribution plugin (guests/plugin/mglrulab_attr.c, a .so), or
	 * NULL: under TCG it writes its windows to run_dir/attr.N. Local
	 * hosts only.
	 */
	const char *attr_plugin;
	int keep_disk;			/* keep run_dir/disk.qcow2 for extraction */
	int boot_timeout_s, run_timeout_s;	/* 0: the topology's */
	const struct domain_share *shares;	/* read-only host folders over 9p (kernel_build's toolchain) */
	int nr_shares;
	/*
	 * Caps on console.log and results.jsonl while the guest runs; 0: the
	 * defaults, GUEST_CONSOLE_LOG_MAX and GUEST_RESULT_FILE_MAX (lowered,
	 * never raised, by $MGLRULAB_TEST_CONSOLE_MAX / _CHANNEL_MAX, for tests).
	 */
	long long console_max, channel_max;
	/*
	 * NULL: a run on this machine (local paths, file console and channel).
	 * Else kernel, initrd and base_image above are not used, and a run
	 * with shares or keep_disk is refused (no local path reaches the host).
	 */
	const struct guest_remote *remote;
	const char *workload;		/* for messages, or NULL */

	/* out */
	int started;			/* the domain was created (a start failure proves nothing about the guest) */
	enum guest_run_status status;
	char *failure;			/* why it failed, with the console's last lines */
	char *domain_name;
	char *stop_reason;		/* the lifecycle event that ended it */
	double wall_s;			/* domain create .. stopped */
	double boot_s;			/* guest uptime when the runner started, or -1 */
	/*
	 * The same boot on the host's clock: domain created (and, remote,
	 * its streams open) until the results file first held a byte (the
	 * runner's hello is its first record), seen at the output checks, so
	 * late by at most GUEST_OUTPUT_CHECK_MS; -1 when never seen. Under
	 * icount the guest's clock is not the host's: boot_s said 161.8 s of
	 * a run that took 15 s.
	 */
	double boot_wall_s;
	double guest_s;			/* boot_s + runner's time until "done", or -1 */
	double host_s;			/* host-side work: overlay, XML, create, destroy, parse */
	/*
	 * QEMU's CPU time (virDomainGetInfo), sampled while the guest ran:
	 * the last sample before it stopped, so short by at most one
	 * GUEST_OUTPUT_CHECK_MS interval. QEMU is not our child (the
	 * embedded driver daemonizes it), so no rusage of ours counts it.
	 */
	double qemu_cpu_s;
	/*
	 * The run folder's file system ran out of space (under
	 * GUEST_SPACE_LOW free) before the run could finish: the guest is
	 * destroyed as soon as it is seen (its disk, console and results can
	 * no longer be written), and a run that failed with the folder full
	 * failed because of this machine, not the guest. Its failure says so,
	 * with the folder and "No space left on device".
	 */
	int out_of_space;
	struct guest_result result;	/* the parsed results channel */
};

/*
 * Free space under which a run folder counts as full: a qcow2 overlay
 * grows by 64 KiB clusters and QEMU writes the console and the results in
 * small pieces, so below this some of them are already being lost.
 */
#define GUEST_SPACE_LOW		(1024 * 1024)

/*
 * Run one guest to completion. Returns 0 when the runner reported "done"
 * (run->status GUEST_RUN_OK), -1 otherwise with run->status and
 * run->failure set. The caller can always go on with the next run (unless
 * interrupted()).
 */
int guest_run(virConnectPtr conn, struct guest_run *run);
void guest_run_release(struct guest_run *run);
/*
 * Append the last lines of the console log @console, filtered for the
 * terminal (escape.h): what a failure reason shows of a guest's console.
 */
void guest_console_tail(const char *console, struct strbuf *out);

/*
 * Is console.log (@console) or results.jsonl (@channel) over its cap
 * (@console_max, @channel_max)? 1 with the reason in @why (the file, its
 * size, the limit's name and value), 0 when both are within (or absent).
 */
int guest_output_over(const char *console, long long console_max, const char *channel,
		      long long channel_max, struct strbuf *why);
/*
 * The cap @name (an environment variable) asks for, when it is a number
 * from 1 to @def; else @def. Tests lower the caps with it; nothing raises them.
 */
long long guest_output_cap(const char *name, long long def);

/* interrupted() (lab/lib/interrupt.h), for the guest commands. */
int guest_interrupted(void);
/* Destroy every domain this process started and has not seen stop. */
void guest_destroy_all(void);

/*
 * The kernel command line of a run, before extra_cmdline. panic=-1: a panic
 * reboots at once, which on_reboot=destroy turns into the end of the run.
 * The rest skips probes that cost most of a second each under TCG: three
 * serial ports nobody uses, the PS/2 keyboard and mouse, and ACPI's PCI
 * interrupt links (acpi=noirq: the AML of LNKA-LNKD, interpreted in the
 * emulated CPU, took 1.0-1.4 s of guest time in every boot of tiny-icount,
 * 0.6 s of the host's; the MP table routes the same interrupts, and SRAT
 * and SLIT, the topology, are read as before).
 */
#define GUEST_BASE_CMDLINE \
	"console=ttyS0 panic=-1 reboot=t 8250.nr_uarts=1 i8042.noaux i8042.nokbd acpi=noirq"
/*
 * Under TCG the guest's TSCs come from one host clock and are in step, but
 * the boot-time synchronisation check sees the vCPUs' skew, marks the TSC
 * unstable and switches the clocksource to the emulated HPET: every clock
 * read becomes an MMIO exit, and its cost differs from boot to boot.
 * yield_pingpong ran either near 250k or near 145k switches/s per boot of
 * the same kernel (bench/noise-floor); the TSC kept as clocksource removes
 * that second mode.
 */
#define GUEST_TCG_CMDLINE "tsc=reliable"

#endif
