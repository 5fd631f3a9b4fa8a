/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reaping the embedded driver's QEMU processes ourselves. libvirt's
 * embedded driver daemonizes QEMU, so it is reparented to the nearest
 * subreaper, normally init. When a guest stops, libvirt sends QEMU SIGTERM
 * and polls kill(pid, 0) every 200 ms until the pid is gone; a zombie
 * still answers, so the run lasts until init reaps it. On these machines
 * init (a firecracker agent) reaps orphans 1 to 2 s late: 1.4 s of every
 * run's 5 s wall time went there (bench/guest-stop measures it).
 *
 * So the process that runs guests makes itself a child subreaper
 * (prctl(PR_SET_CHILD_SUBREAPER)) and, for each domain it starts, waits for
 * that one QEMU pid (from the embedded driver's pid file) in a thread of
 * its own: no other child of ours (run_command(), libguestfs's appliance)
 * is ever reaped here, so their owners' waitpid() calls stay theirs.
 */
#ifndef LAB_QEMU_REAPER_H
#define LAB_QEMU_REAPER_H

#include <libvirt/libvirt.h>

/* Become a child subreaper (once). 0, or -1 with errno. */
int qemu_reaper_enable(void);
/*
 * Reap domain @name's QEMU when it exits: @conn must be the embedded
 * driver (its pid file is under the root of its URI). A no-op elsewhere,
 * or when the pid file cannot be read (then libvirt waits for init, as
 * before).
 */
void qemu_reaper_watch(virConnectPtr conn, const char *name);

#endif
