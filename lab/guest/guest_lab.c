// SPDX-License-Identifier: GPL-2.0
#include "guest_lab.h"
#include "fsutil.h"
#include "guest_accel.h"
#include "guest_image.h"
#include "guest_job.h"
#include "lab_paths.h"
#include "libvirt_conn.h"
#include "subreaper.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *guest_default_state_dir(void)
{
	const char *s = getenv("MGLRULAB_STATE_DIR");

	return s && *s ? s : ".lab";
}

int guest_lab_open(struct guest_lab *lab, const struct guest_lab_opts *o, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	double t0 = now_monotonic();
	int r = -1;

	memset(lab, 0, sizeof(*lab));
	lab->state_dir = xstrdup(o->state_dir ? o->state_dir : guest_default_state_dir());
	if (mkdir_p(lab->state_dir, 0755)) {
		sb_addf(err, "cannot create %s: %s", lab->state_dir, strerror(errno));
		goto out;
	}
	/*
	 * A subreaper from here on, whether or not a guest boots next: the
	 * embedded driver daemonizes QEMU (capability probes included), and
	 * the rest of the session, a later kernel build among it, runs with
	 * the same reaping as the first run of a warm machine.
	 */
	if (subreaper_enable())
		warning("cannot become a subreaper (%s): each run waits for init to reap its QEMU",
			strerror(errno));
	/* first: it takes the state folder's lock, so a second process stops before building anything */
	lab->conn = lab_virt_open(o->uri, lab->state_dir, &why);
	if (!lab->conn) {
		sb_addf(err, "cannot open the libvirt connection: %s", sb_str(&why));
		goto out;
	}
	if (o->resolve_accel) {
		if (guest_accel_resolve(lab->conn, lab->state_dir, o->probe_kernel, o->accel, &lab->accel,
					&lab->accel_reason)) {
			sb_addf(err, "accel: %s", lab->accel_reason ? lab->accel_reason : "cannot decide");
			goto out;
		}
		lab->accel_resolved = 1;
	}
	if (!o->no_image) {
		char *bin = o->guest_bin_dir ? xstrdup(o->guest_bin_dir) : lab_guest_bin_dir();
		struct guest_image_spec spec = { .state_dir = lab->state_dir, .guest_bin_dir = bin };

		guest_libguestfs_env(o->resolve_accel ? lab->accel == ACCEL_KVM :
				     guest_kvm_cached(lab->state_dir) == 1);
		sb_reset(&why);
		lab->image = guest_image_ensure(&spec, &lab->image_cache_hit, &why);
		free(bin);
		if (!lab->image) {
			sb_addf(err, "cannot build the guest image: %s", sb_str(&why));
			goto out;
		}
		lab->image_s = now_monotonic() - t0;
	}
	r = 0;
out:
	sb_release(&why);
	return r;
}

void guest_lab_close(struct guest_lab *lab)
{
	guest_destroy_all();
	lab_virt_close(lab->conn);
	free(lab->state_dir);
	free(lab->image);
	free(lab->accel_reason);
	memset(lab, 0, sizeof(*lab));
}

static void check_topology(const struct guest_topology *topo, struct guest_run *run)
{
	char *problem = guest_result_topology_problem(&run->result, topo);

	if (problem) {
		run->status = GUEST_RUN_FAILED;
		free(run->failure);
		run->failure = problem;
	}
}

int guest_lab_run(struct guest_lab *lab, const struct guest_topology *topo, const char *kernel,
		  const struct guest_job_spec *job, const char *run_dir, struct guest_run *run)
{
	return guest_lab_run_with(lab, topo, kernel, job, run_dir, run, NULL, NULL);
}

int guest_lab_run_with(struct guest_lab *lab, const struct guest_topology *topo, const char *kernel,
		       const struct guest_job_spec *job, const char *run_dir, struct guest_run *run,
		       guest_runner_fn *fn, void *ctx)
{
	char *job_json;

	memset(run, 0, sizeof(*run));
	run->topo = topo;
	run->kernel = kernel;
	run->run_dir = run_dir;
	run->base_image = lab->image;
	run->extra_cmdline = job->extra_cmdline;
	run->keep_disk = job->keep_disk;
	run->initrd = job->initrd;
	run->shares = job->shares;
	run->nr_shares = job->nr_shares;
	run->attr_plugin = job->attr_plugin;
	run->workload = job->workload;
	if (!lab->accel_resolved || topo->accel != ACCEL_AUTO) {
		enum guest_accel a;
		char *reason;

		if (guest_accel_resolve(lab->conn, lab->state_dir, kernel, topo->accel, &a, &reason)) {
			run->status = guest_interrupted() ? GUEST_RUN_INTERRUPTED : GUEST_RUN_FAILED;
			run->failure = reason ? reason : xstrdup("interrupted while probing KVM");
			return -1;
		}
		if (topo->accel == ACCEL_AUTO) {
			lab->accel_resolved = 1;
			lab->accel = a;
			free(lab->accel_reason);
			lab->accel_reason = reason;
		} else {
			free(reason);
		}
		run->accel = a;
	}
	if (topo->accel == ACCEL_AUTO)
		run->accel = lab->accel;
	job_json = guest_job_json(job->run_id, job->workload, job->args, job->workload_timeout_s);
	if (!job_json) {
		run->status = GUEST_RUN_FAILED;
		run->failure = xasprintf("cannot write the job: %s", errno == EILSEQ ?
					 "its run id, workload name or an argument is not valid UTF-8" :
					 strerror(errno));
		return -1;
	}
	run->job_json = job_json;
	char *job_cmdline = guest_job_cmdline(job->args);
	run->job_cmdline = job_cmdline;
	if (fn)
		fn(ctx, run);
	else
		guest_run(lab->conn, run);
	run->job_json = NULL;
	run->job_cmdline = NULL;
	free(job_cmdline);
	free(job_json);
	if (run->status == GUEST_RUN_OK)
		check_topology(topo, run);
	return run->status == GUEST_RUN_OK ? 0 : -1;
}
