/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lab's libvirt hosts ([host NAME] in lab.conf, docs/hosts.md): one
 * connection each, opened with lab_virt_open(), and the storage pool where
 * the host keeps the lab's volumes. Everything a run needs reaches a host
 * over that connection (host_volume.h); nothing is copied by other means.
 *
 * The embedded host (uri = qemu:///embed, the default) is the exception
 * libvirt imposes: its embedded QEMU driver has no storage driver, so its
 * "volumes" stay the local files the lab already has, and it has no pool.
 */
#ifndef LAB_HOST_H
#define LAB_HOST_H

#include "util.h"

#include <stdint.h>

#include <libvirt/libvirt.h>

#include "config.h"
#include "guest_conf.h"
#include "strbuf.h"

struct lab_host {
	const struct host_cfg *cfg;
	virConnectPtr conn;
	int embedded;			/* the lab's embedded driver: local files, no pool */
	virStoragePoolPtr pool;		/* after host_pool_ensure(); NULL on the embedded host */
};

/*
 * Open @hc's connection (the embedded one under @state_dir). 0, or -1 with
 * "host NAME (URI): why" in @err: an unreachable host is named with its URI.
 */
LAB_MUST_CHECK
int host_open(struct lab_host *h, const struct host_cfg *hc, const char *state_dir,
	      struct strbuf *err);
void host_close(struct lab_host *h);

/*
 * The host's pool, reused when it exists (started when inactive, refreshed
 * so volumes another session uploaded are seen) or else defined as a dir
 * pool at pool_dir, built (libvirt creates the folder on the host), started
 * and marked autostart. A no-op on the embedded host. 0, or -1 with @err.
 */
LAB_MUST_CHECK
int host_pool_ensure(struct lab_host *h, struct strbuf *err);

/*
 * The accelerator runs on @h use: on the embedded host
 * guest_accel_resolve() (its cached probe); elsewhere TCG unless the
 * host's libvirt offers KVM, and for @want ACCEL_AUTO only when the KVM
 * probe boots @kernel there (through host_guest_run(), every session).
 * 0 with *@out and *@reason (caller frees), or -1: an explicit kvm the
 * host lacks (the reason says so), or interrupted.
 */
LAB_MUST_CHECK
int host_accel_resolve(struct lab_host *h, const char *state_dir, const char *kernel,
		       enum guest_accel want, enum guest_accel *out, char **reason);

/* Every [run] host of @cfg, in order; all open, or none (-1 with @err). */
struct lab_hosts {
	struct lab_host *v;
	size_t n;
};
LAB_MUST_CHECK
int hosts_open(struct lab_hosts *hs, const struct lab_config *cfg, const char *state_dir,
	       struct strbuf *err);
void hosts_close(struct lab_hosts *hs);

/*
 * What lab.conf alone cannot check: every host's slots x the [run] guest's
 * vCPUs against its cpus (config_check_host_cpus() with the topology file
 * read). 0, or LAB_EUSER with "FILE:LINE: ..." lines in @err.
 */
LAB_MUST_CHECK
int hosts_check_config(const struct lab_config *cfg, struct strbuf *err);

/* ---- mglrulab doctor ---- */

enum host_level { HOST_OK, HOST_WARN, HOST_FAIL };
typedef void (*host_report_fn)(void *ctx, enum host_level lv, const char *what,
			       const char *detail, const char *fix);

/*
 * Check every [run] host of @cfg and call @report once per finding:
 * reachable (else a failure naming the host and its URI), the QEMU it
 * offers and whether it offers KVM, the pool (exists and active, or can be
 * created as a dir pool), its CPUs against cpus and slots, and free memory
 * against the [run] guest's times slots. Opens nothing it leaves open and
 * creates nothing (the pool is created at first use).
 */
void hosts_doctor(const struct lab_config *cfg, const char *state_dir, host_report_fn report,
		  void *ctx);

#endif
