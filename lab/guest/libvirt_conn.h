/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's libvirt connection. The default is libvirt's embedded QEMU
 * driver rooted in the lab's state folder (no daemon needed); any other URI
 * (qemu:///system, qemu+ssh://host/system) is passed through unchanged.
 * Opening also starts the event loop thread that libvirt's embedded driver
 * (QEMU monitor I/O) and our lifecycle events need.
 */
#ifndef LAB_LIBVIRT_CONN_H
#define LAB_LIBVIRT_CONN_H

#include "util.h"

#include <libvirt/libvirt.h>

#include "domain_owner.h"
#include "strbuf.h"

/* The embedded URI for @state_dir: "qemu:///embed?root=<abs state dir>/libvirt". */
char *lab_virt_embed_uri(const char *state_dir);

/*
 * Open @uri (NULL or "" means the embedded driver under @state_dir, which is
 * set up first: <root>/etc/qemu.conf as DESIGN.md says, and locked: one
 * process per embedded root). Domains a previous mglrulab process left
 * running are destroyed when their owner tag (domain_owner.h) says that
 * process is gone; the others named like the lab's are left alone, and
 * said so. NULL with the reason in @err on failure; when another process
 * holds the state folder (our lock, or libvirt's own driver.pid lock) the
 * reason says "is in use by" and names the folder and the holder's pid.
 * A failed embedded connection ends with LAB_VIRT_DOCTOR_HINT, which
 * doctor itself leaves out.
 */
#define LAB_VIRT_DOCTOR_HINT " (run 'mglrulab doctor')"

LAB_MUST_CHECK
virConnectPtr lab_virt_open(const char *uri, const char *state_dir, struct strbuf *err);

/*
 * A daemon's connection (not the embedded driver's) sends libvirt
 * keepalive messages: one after LAB_VIRT_KEEPALIVE_S seconds without
 * traffic, then one every LAB_VIRT_KEEPALIVE_S; LAB_VIRT_KEEPALIVE_COUNT
 * unanswered in a row close it, so a host that stops answering without
 * closing the connection (hung, cut off, its libvirtd frozen) is a closed
 * connection about 35 s later, and every call waiting on it fails. virsh
 * uses the same values by default.
 */
#define LAB_VIRT_KEEPALIVE_S		5
#define LAB_VIRT_KEEPALIVE_COUNT	6
void lab_virt_close(virConnectPtr conn);

/* Is @conn libvirt's embedded driver (which, for one, has no AUTODESTROY)? */
int lab_virt_is_embedded(virConnectPtr conn);

/*
 * This process as the owner of the domains it starts on @conn, with the
 * state folder @conn was opened for (domain_owner.h): what guest_run()
 * tags each domain with. Release @o with domain_owner_release().
 */
void lab_virt_owner(virConnectPtr conn, struct domain_owner *o);

/* The last libvirt error as text (never NULL). */
const char *lab_virt_error(void);

/*
 * Domain names the lab uses: "mglrulab-<pid>-<n>". The pid is for people;
 * whose a domain is, the owner tag in its <metadata> says.
 */
#define LAB_DOMAIN_PREFIX "mglrulab-"

#endif
