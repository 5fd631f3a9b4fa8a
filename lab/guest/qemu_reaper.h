/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reaping the QEMU processes libvirt's embedded driver daemonizes. Each is
 * reparented to the nearest subreaper, normally init. When a guest stops,
 * libvirt sends QEMU SIGTERM and polls kill(pid, 0) every 200 ms until the
 * pid is gone; a zombie still answers, so the run lasts until init reaps
 * it. On these machines init (a firecracker agent) reaps orphans 1.1 to
 * 1.9 s late, and 1.4 s of every run's 5 s wall time went there
 * (bench/guest-stop measures both).
 *
 * So the process that runs guests makes itself a child subreaper
 * (prctl(PR_SET_CHILD_SUBREAPER)) and a thread reaps its zombie children
 * named qemu-system-* that nobody else reaped within REAPER_GRACE_MS. The
 * name and the grace keep it off every child someone waits for: the
 * children run_command() starts are never QEMU, and libguestfs waits for
 * its appliance's QEMU in waitpid() already when it exits. What it reaps
 * is what libvirt daemonized: the guests' QEMUs, and the QEMU libvirt
 * starts to probe capabilities (which a reaper for the guests' pids alone
 * left as a zombie, holding a domain start for 30 s).
 */
#ifndef LAB_QEMU_REAPER_H
#define LAB_QEMU_REAPER_H

#define REAPER_GRACE_MS 100

/* Become a child subreaper and start the reaping thread (once). 0, or -1 with errno. */
int qemu_reaper_enable(void);

#endif
