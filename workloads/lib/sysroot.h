/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A throwaway root in which a host's dynamically linked toolchain can run
 * inside a guest whose own root (busybox, no libc) cannot run it.
 *
 * A fresh tmpfs gets read-only mounts of host folders shared over virtio-9p
 * ("TAG:DIR,...": the host's /usr/bin, /usr/lib, ... each at its place,
 * its /etc/alternatives, where Debian's awk and cc links point, a kernel
 * tree at /src; parent folders are made as needed), the merged-/usr
 * links bin, sbin, lib, lib64 -> usr/..., /proc, /dev and a /tmp. Children
 * chroot() into it just before exec; the caller stays outside, where its
 * cgroup, /proc/vmstat and debugfs are. A TAG that starts with '/' is a
 * host directory bind-mounted instead, so the same code runs on a host.
 */
#ifndef WL_SYSROOT_H
#define WL_SYSROOT_H

#include <stddef.h>

struct wl_sysroot {
	char dir[256];		/* the root, "" when none was made */
	char failed[256];	/* after a failure: DIR of the mount that failed, or "" */
};

/*
 * Make a root at <@parent>/mglrulab-root-<pid> with the mounts of @spec.
 * 0, or -1 with why in @why and r->failed set to the DIR of the share that
 * could not be mounted ("" when the root itself could not be made).
 */
int wl_sysroot_make(struct wl_sysroot *r, const char *parent, const char *spec,
		    char *why, size_t whylen);
/* Detach the root and everything mounted in it, remove its directory. */
void wl_sysroot_remove(struct wl_sysroot *r);

#endif
