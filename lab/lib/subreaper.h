/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: subreaper_enable() from any thread, the first call wins.
 *
 * The lab as a child subreaper, and the thread that reaps what it inherits.
 *
 * Why a subreaper: libvirt's embedded driver daemonizes each guest's QEMU
 * (and the QEMU it starts to probe capabilities), so QEMU is re-parented
 * to the nearest subreaper, normally init. When a guest stops, libvirt
 * sends SIGTERM and polls kill(pid, 0) every 200 ms until the pid is gone;
 * a zombie still answers, so a run lasts until its QEMU is reaped. On these
 * machines init reaps orphans 1.1 to 1.9 s late (bench/guest-stop). So the
 * process that runs guests makes itself a subreaper and reaps them itself.
 *
 * A subreaper inherits every orphan of its descendants, not only QEMU: a
 * `git gc --auto` that daemonized during a kernel build, a make job's
 * stray child. Each must be reaped too, or it stays a zombie for the life
 * of the process. (A zombie the old QEMU-only reaper left first in the
 * child list hid every QEMU behind it: libvirt then waited 40 s for each
 * guest to die, and the first cold `make demo` crawled.)
 *
 * Which pids it reaps: a zombie child of this process that
 *  1. run_command() is not waiting for (run_command_owns(): children are
 *     forked and entered under one lock, so none is ever missed), and
 *  2. has stayed a zombie for REAPER_GRACE_QEMU_MS if its name is
 *     qemu-system-*, else REAPER_GRACE_OTHER_MS.
 * Every zombie child is looked at (a scan of /proc while any exists), so
 * one that must not be reaped yet never hides the others.
 *
 * Why it cannot steal a child someone waits for: the other waiters in this
 * process are libvirt (virProcessWait(): blocked in waitpid() on the middle
 * process of its daemonizing double fork and on the commands it runs) and
 * libguestfs (waitpid() on its appliance's QEMU at shutdown and on each
 * helper command as it ends). A waiter already blocked in waitpid(pid)
 * reaps the child the moment it exits, far inside either grace. What no
 * one has reaped within the grace is an orphan; at worst a waiter that
 * comes later than a second gets ECHILD for a child that already ended.
 */
#ifndef LAB_SUBREAPER_H
#define LAB_SUBREAPER_H

#include "util.h"

#define REAPER_GRACE_QEMU_MS 100
#define REAPER_GRACE_OTHER_MS 1000

/* Become a child subreaper and start the reaping thread (once). 0, or -1 with errno. */
LAB_MUST_CHECK
int subreaper_enable(void);

#endif
