/* SPDX-License-Identifier: GPL-2.0 */
/*
 * accel=auto: does KVM really boot a kernel on this host? A /dev/kvm node is
 * no proof (our build machines have one that cannot run ordinary kernels),
 * so we boot the kernel with KVM once and watch it reach its panic on a
 * missing init. The answer is cached per host in <state>/kvm-probe.json.
 */
#ifndef LAB_GUEST_ACCEL_H
#define LAB_GUEST_ACCEL_H

#include "util.h"

#include <libvirt/libvirt.h>

#include "guest_conf.h"
#include "guest_lab.h"

/*
 * Resolve @want (ACCEL_AUTO becomes KVM or TCG). *@reason says why, for the
 * report (caller frees). An explicit kvm that does not work is an error
 * (returns -1 with the reason); auto falling back to TCG prints a warning.
 */
LAB_MUST_CHECK
int guest_accel_resolve(virConnectPtr conn, const char *state_dir, const char *kernel,
			enum guest_accel want, enum guest_accel *out, char **reason);

enum kvm_probe {
	KVM_PROBE_WORKS,	/* KVM booted the kernel */
	KVM_PROBE_FAILS,	/* it did not */
	KVM_PROBE_NO_ANSWER,	/* the domain could not start for another reason: not cached */
	KVM_PROBE_INTERRUPTED,	/* a signal stopped the probe; *@reason NULL */
};

/*
 * Boot @kernel with KVM through @runner (guest_run() on a connection, or
 * another host's runner) into a panic on a missing init, files under
 * @state_dir/kvm-probe. What was found, with the reason in *@reason.
 */
LAB_MUST_CHECK
enum kvm_probe guest_kvm_probe(guest_runner_fn *runner, void *ctx, const char *state_dir,
			       const char *kernel, char **reason);

/* The cached probe result: 1 KVM works, 0 it does not, -1 not probed on this host yet. */
int guest_kvm_cached(const char *state_dir);
/* The same, with the probe's reason in *@reason when there is one (caller frees; else NULL). */
int guest_kvm_cached_reason(const char *state_dir, char **reason);

#endif
