/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt domain XML from a guest topology and one run's files. A pure
 * function (no I/O), so the XML is unit-tested and saved beside each run.
 */
#ifndef LAB_DOMAIN_XML_H
#define LAB_DOMAIN_XML_H

#include "domain_owner.h"
#include "guest_conf.h"

/* A host folder shared read-only over virtio-9p: mount -t 9p -o trans=virtio TAG DIR in the guest. */
struct domain_share {
	const char *host_dir;
	const char *tag;		/* at most 31 characters */
};

struct domain_spec {
	const char *name;		/* libvirt domain name */
	const struct guest_topology *topo;
	enum guest_accel accel;		/* resolved: ACCEL_KVM or ACCEL_TCG */
	const char *kernel;		/* bzImage, booted directly */
	const char *initrd;		/* or NULL */
	const char *cmdline;		/* the whole kernel command line */
	const char *disk;		/* qcow2 root disk (vda), or NULL */
	const char *job;		/* the job file handed over through fw_cfg, or NULL */
	const char *console_log;	/* serial console (ttyS0) goes here */
	const char *channel_log;	/* the results port's host file, or NULL */
	/*
	 * A remote host: the console and the results port are ptys on the
	 * host, read over the connection (virDomainOpenConsole/OpenChannel
	 * streams); console_log and channel_log are then not used, and a
	 * results port is always there.
	 */
	int streams;
	/*
	 * With streams: QEMU's own log of the serial port, a file on the
	 * host (<log file=.../>), or NULL. It holds every byte the guest
	 * wrote, which the pty stream does not promise (domain_streams.c).
	 */
	const char *console_host_log;
	const struct domain_share *shares;	/* read-only 9p shares, or NULL */
	int nr_shares;
	/* who starts it, in <metadata> (domain_owner.h); NULL: no tag */
	const struct domain_owner *owner;
	/* TCG only: -plugin's value (the .so and its arguments, QEMU's commas doubled), or NULL */
	const char *qemu_plugin;
};

/* The domain XML (caller frees). */
char *domain_xml(const struct domain_spec *s);

#endif
