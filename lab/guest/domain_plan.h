/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The domain a run starts, without starting it: its kernel command line
 * and its domain XML, from a struct guest_run as guest_run() is given one
 * (domain_run.h). No libvirt, no file written: `mglrulab guest boot
 * --print-xml` shows with it the XML a boot would start (on any host,
 * KVM or not), and tests/integration/42-guest-kvm-xml.sh hands that XML
 * to libvirt's schema and to libvirt's own QEMU command line.
 *
 * guest_run() starts exactly this XML: it composes its domain here too.
 */
#ifndef LAB_DOMAIN_PLAN_H
#define LAB_DOMAIN_PLAN_H

#include "domain_run.h"

/*
 * GUEST_BASE_CMDLINE, GUEST_TCG_CMDLINE under TCG, the root disk and the
 * runner as init when the run has a disk, run->job_cmdline, then
 * run->extra_cmdline (so its init= wins). Caller frees.
 */
char *guest_run_cmdline(const struct guest_run *run);

/*
 * The domain XML guest_run() starts for @run under the name @name: the
 * run's files in run->run_dir (disk.qcow2, job.json, console.log,
 * results.jsonl), each path made absolute against the current folder as
 * guest_run() makes them (a remote run's are the host's, as given). Only
 * whether run->base_image and run->job_json are set matters: the domain
 * gets the run's overlay and job file, not the image itself. @owner (NULL:
 * none) is the tag in its <metadata> (domain_owner.h). Caller frees; NULL
 * when the current folder is needed and cannot be read.
 */
char *guest_run_domain_xml(const struct guest_run *run, const char *name,
			   const struct domain_owner *owner);

#endif
