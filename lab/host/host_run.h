/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One guest run on a [host] (docs/hosts.md), everything through its
 * libvirt connection: the kernel (and initrd) and the guest image are
 * content-addressed volumes in the host's pool (host_volume_ensure(), done
 * once per host and local file in this process), the run's disk is a qcow2
 * overlay volume on the image, created for the run and always deleted after
 * it, the job is a small volume too (libvirt 9.0 cannot pass a JSON text
 * inline in a fw_cfg entry: host_run.c), and console.log and
 * results.jsonl come back into the run folder as libvirt streams
 * (domain_run.h, struct guest_remote). On the embedded host it is
 * guest_run() on its connection, local files as always.
 *
 * Safe to call from several threads at once, each with its own run (one
 * per host slot). Uploads are serialised within the process: the first run
 * on a host sends what it needs while the others wait, then none sends it
 * again.
 */
#ifndef LAB_HOST_RUN_H
#define LAB_HOST_RUN_H

#include "domain_run.h"
#include "host.h"

/*
 * What the host layer adds to a guest run: figures of the host, not of
 * the guest, so they live here rather than in struct guest_run. All 0
 * for a run on the embedded host.
 */
struct host_run_stats {
	double volume_s;	/* the volumes: ensure, overlay create and delete */
	int volumes_uploaded;	/* how many of them this run sent */
	/*
	 * The host failed the run, not the guest: its connection, pool or
	 * volumes ("host NAME: ..." in the run's failure).
	 */
	int host_error;
};

/*
 * Run @run (filled as for guest_run(), with local kernel, initrd and
 * base_image) on @h. Returns 0 when the run counts, -1 otherwise with
 * run->status and run->failure set, as guest_run() does; *@st is set
 * either way.
 */
int host_guest_run(struct lab_host *h, struct guest_run *run, struct host_run_stats *st);

/* host_guest_run() as guest_lab_run_with()'s runner: @ctx is a struct host_runner. */
struct host_runner {
	struct lab_host *host;
	struct host_run_stats stats;	/* out: the last run's */
};
int host_guest_runner(void *ctx, struct guest_run *run);

/*
 * Forget the volumes this process ensured (for a host whose pool was
 * emptied behind its back, and for tests).
 */
void host_run_forget_volumes(void);

#endif
