/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest image: an ext4 qcow2 holding busybox (static), the guest runner
 * and the workload programs, built with the libguestfs C API and cached by
 * the content hash of its inputs. One appliance launch builds it; runs get
 * qcow2 overlays created without any appliance; files runs leave behind are
 * extracted read-only, as data (guest_extract.h), a whole batch of runs
 * through one appliance launch.
 */
#ifndef LAB_GUEST_IMAGE_H
#define LAB_GUEST_IMAGE_H

#include "util.h"

#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

struct guest_image_spec {
	const char *state_dir;		/* images go to <state>/images/<hash>.qcow2 */
	const char *guest_bin_dir;	/* build/guest: mglrulab-runner and the workloads */
	const char *busybox;		/* NULL: /bin/busybox (Debian's busybox-static) */
	uint64_t size_mib;		/* 0: 512 */
};

/*
 * The image for @spec: a cache hit when an image with the same input hash
 * exists, else built (one appliance launch). Returns its path (caller
 * frees) or NULL with the reason in @err. *@cache_hit says which.
 */
LAB_MUST_CHECK
char *guest_image_ensure(const struct guest_image_spec *spec, int *cache_hit, struct strbuf *err);

/* The input hash alone (what guest_image_ensure() would look up). */
LAB_MUST_CHECK
int guest_image_hash(const struct guest_image_spec *spec, char hex[65], struct strbuf *err);

/* A qcow2 overlay backed by @base (read-only to QEMU); no appliance. */
LAB_MUST_CHECK
int guest_overlay_create(const char *base, const char *overlay, struct strbuf *err);

/*
 * Copy GUEST_RESULTS_DIR out of each of @n run disks into @dest_dirs[i]
 * (which then holds a "results" folder, replaced as a whole, and
 * "extract.json": what was copied, what was refused and why, the limits),
 * read-only, through one appliance launch. Only regular files and folders
 * within the GUEST_EXTRACT_* limits are written (guest_extract.h); a run
 * with refusals gets a line in @err. A disk whose file system or folder is
 * missing (or whose folder is a link) is noted in @err and skipped.
 * Returns the number of disks extracted, -1 when the appliance failed.
 */
LAB_MUST_CHECK
int guest_extract_results(const char *const *disks, const char *const *dest_dirs, size_t n,
			  struct strbuf *err);

/* Appliance launches by this process (for the benchmark and the report). */
extern int guest_appliance_launches;

/* LIBGUESTFS_BACKEND=direct and, unless KVM works, force_tcg (when the user has not set them). */
void guest_libguestfs_env(int kvm_works);

#endif
