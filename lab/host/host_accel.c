// SPDX-License-Identifier: GPL-2.0
/*
 * The accelerator on a host (host.h). The lab's own host keeps its cached
 * probe (guest_accel.h). Another host is asked over its connection: whether
 * its libvirt offers KVM for x86_64 at all, and then, for accel=auto,
 * whether KVM really boots the session's kernel there (the same probe,
 * run through host_guest_run(): a /dev/kvm is no proof, DESIGN.md). The
 * answer is the session's; it is not cached across sessions, since
 * nothing on this machine tells when the other host changed.
 */
#include "host.h"
#include "host_run.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_accel.h"
#include "libvirt_conn.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int host_accel_resolve(struct lab_host *h, const char *state_dir, const char *kernel,
		       enum guest_accel want, enum guest_accel *out, char **reason)
{
	const char *name = h->cfg->name;
	struct host_runner runner = { .host = h };
	char *caps, *dir;
	enum kvm_probe works;

	*reason = NULL;
	if (h->embedded)
		return guest_accel_resolve(h->conn, state_dir, kernel, want, out, reason);
	*out = ACCEL_TCG;
	if (want == ACCEL_TCG) {
		*reason = xasprintf("accel = tcg (host %s)", name);
		return 0;
	}
	caps = virConnectGetDomainCapabilities(h->conn, NULL, "x86_64", NULL, "kvm", 0);
	if (!caps) {
		*reason = xasprintf("host %s: libvirt offers no KVM for x86_64 (%s)", name,
				    lab_virt_error());
		if (want == ACCEL_KVM)
			return -1;
		return 0;
	}
	free(caps);
	if (want == ACCEL_KVM) {
		*out = ACCEL_KVM;
		*reason = xasprintf("accel = kvm (host %s offers it)", name);
		return 0;
	}
	dir = xasprintf("%s/hosts/%s", state_dir, name);
	works = guest_kvm_probe(host_guest_runner, &runner, dir, kernel, reason);
	free(dir);
	if (works == KVM_PROBE_INTERRUPTED)
		return -1;
	char *why = xasprintf("host %s: %s", name, *reason ? *reason : "?");
	free(*reason);
	*reason = why;
	*out = works == KVM_PROBE_WORKS ? ACCEL_KVM : ACCEL_TCG;
	if (works != KVM_PROBE_WORKS)
		warning("accel=auto: %s: TCG there", *reason);
	return 0;
}
