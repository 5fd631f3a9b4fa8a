/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guests for a session: the one entry point the session runner needs.
 * guest_lab_open() opens libvirt once, resolves the accelerator when asked
 * and builds (or finds) the guest image;
 * guest_lab_run() runs one job in a fresh guest and checks the topology
 * the guest reports against the declared one before the run counts.
 */
#ifndef LAB_GUEST_LAB_H
#define LAB_GUEST_LAB_H

#include "util.h"

#include <libvirt/libvirt.h>

#include "domain_run.h"
#include "guest_conf.h"
#include "strbuf.h"

struct guest_lab_opts {
	const char *state_dir;		/* NULL: $MGLRULAB_STATE_DIR or .lab */
	const char *uri;		/* NULL or "": the embedded driver */
	const char *guest_bin_dir;	/* NULL: lab_guest_bin_dir() */
	int no_image;			/* boot without a disk (plumbing tests) */
	/*
	 * Resolve the accelerator now (a session: the report names it before
	 * the first run, and the image build's libguestfs then uses what was
	 * found), probing KVM with @probe_kernel. Otherwise the first
	 * guest_lab_run() resolves it from the topology.
	 */
	int resolve_accel;
	enum guest_accel accel;		/* wanted: ACCEL_AUTO, ACCEL_KVM or ACCEL_TCG */
	const char *probe_kernel;
};

struct guest_lab {
	char *state_dir;
	virConnectPtr conn;
	char *image;			/* the base image (NULL with no_image) */
	int image_cache_hit;
	double image_s;			/* time to build or find it */
	/* accel=auto resolved once per session */
	int accel_resolved;
	enum guest_accel accel;
	char *accel_reason;		/* for the report */
};

/* NULL: $MGLRULAB_STATE_DIR, else ".lab". */
const char *guest_default_state_dir(void);

/*
 * 0, or -1 with the reason in @err (which step failed, then why); either
 * way release @lab with guest_lab_close().
 */
LAB_MUST_CHECK
int guest_lab_open(struct guest_lab *lab, const struct guest_lab_opts *o, struct strbuf *err);
void guest_lab_close(struct guest_lab *lab);

struct guest_job_spec {
	const char *run_id;		/* echoed by the guest */
	const char *workload;		/* NULL or "": only boot and report the topology */
	const char *const *args;	/* "--key=value", NULL-terminated, or NULL */
	int workload_timeout_s;		/* the runner kills the workload after it (0: none) */
	const char *extra_cmdline;	/* appended to the kernel command line, or NULL */
	int keep_disk;			/* keep run_dir/disk.qcow2 for guest_extract_results() */
	const char *initrd;		/* NULL normally (lab kernels need none) */
	const struct domain_share *shares;	/* read-only 9p shares, or NULL */
	int nr_shares;
	const char *attr_plugin;	/* guest_run.attr_plugin, or NULL */
};

/*
 * Run one job in a fresh guest of @topo booted from @kernel, files in
 * @run_dir. @run is filled (release with guest_run_release()); the
 * workload's records are run->result.records. Returns 0 when the run
 * counts, -1 when not (run->status, run->failure: boot failure, timeout,
 * topology mismatch with both topologies shown, runner error).
 */
int guest_lab_run(struct guest_lab *lab, const struct guest_topology *topo, const char *kernel,
		  const struct guest_job_spec *job, const char *run_dir, struct guest_run *run);

/*
 * The same, with the guest booted by @fn(@ctx, run) instead of
 * guest_run(lab->conn, run): host_guest_run() (lab/host/host_run.h) runs
 * it on a [host], which this layer does not know. @run arrives filled as
 * for guest_run(), with the local kernel and image.
 */
typedef int guest_runner_fn(void *ctx, struct guest_run *run);
int guest_lab_run_with(struct guest_lab *lab, const struct guest_topology *topo, const char *kernel,
		       const struct guest_job_spec *job, const char *run_dir, struct guest_run *run,
		       guest_runner_fn *fn, void *ctx);

#endif
