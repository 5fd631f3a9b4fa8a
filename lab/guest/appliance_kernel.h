/* SPDX-License-Identifier: GPL-2.0 */
#ifndef APPLIANCE_KERNEL_H
#define APPLIANCE_KERNEL_H

#include "strbuf.h"

#include <sys/types.h>

/*
 * libguestfs boots its appliance with the host's own kernel, which supermin
 * finds as /boot/vmlinuz-* (or $SUPERMIN_KERNEL). Some distributions
 * install it mode 0600, root's: then, for an ordinary user, the appliance
 * fails deep inside libguestfs ("supermin exited with error status 1",
 * "Permission denied" somewhere in its log). Asked before the launch, the
 * lab says which file and what to do instead.
 *
 * appliance_kernel_check(BOOT_DIR, UID, GID, ERR): 0 when UID/GID may read
 * $SUPERMIN_KERNEL when it is set, else some BOOT_DIR/vmlinuz-* (or there
 * is none: libguestfs then says what it misses); -1 with the reason and the
 * fix in ERR otherwise. Root reads everything. Mode bits only (an ACL may
 * grant more: then libguestfs has the last word).
 */
int appliance_kernel_check(const char *boot_dir, uid_t uid, gid_t gid, struct strbuf *err);

#endif
