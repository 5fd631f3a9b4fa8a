/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernels and the guest image on a host, through its libvirt connection
 * only: storage volume streams (virStorageVolUpload), never scp or a shared
 * folder. Volumes are content-addressed, "mglrulab-<kind>-<sha256 of the
 * file>", so a host that has one skips the upload.
 *
 * Completion. libvirt cannot rename a volume, and a volume created for an
 * upload already has its full size (a sparse file), so neither the name nor
 * the size tells a finished upload from one cut short. The commit point is
 * a second, empty volume "<name>.complete", created only after the stream
 * finished and the host reports the data volume's full physical size. A
 * data volume without it is a partial upload: deleted and sent again.
 * One controller uploads to a pool at a time (a second one fails on the
 * existing name instead of writing over it).
 *
 * On the embedded host (no storage driver) the "volume" is the local file
 * itself, and there are no overlays here: guest_overlay_create() makes them.
 */
#ifndef LAB_HOST_VOLUME_H
#define LAB_HOST_VOLUME_H

#include "util.h"

#include <stdint.h>
#include <sys/stat.h>

#include "host.h"
#include "sha256.h"

enum host_vol_kind { HOST_VOL_KERNEL, HOST_VOL_IMAGE };

struct host_volume {
	char *name;			/* in the host's pool; NULL on the embedded host */
	char *path;			/* on the host: what a domain XML names */
	const char *format;		/* "raw" or "qcow2" (from the file's header) */
	uint64_t bytes;			/* the file's size */
	uint64_t virtual_bytes;		/* a qcow2 image's disk size; bytes for raw */
	char sha256[SHA256_HEX_LEN + 1];
	struct stat st;			/* the local file as it was hashed (host_volume_ensure()) */
	int uploaded;			/* 1: this call sent it; 0: the host had it */
	double seconds;			/* spent in this call (hash, look-up, upload) */
};

/* "mglrulab-kernel-<hex>" / "mglrulab-image-<hex>" (caller frees). */
char *host_volume_name(enum host_vol_kind kind, const char *sha256_hex);
/* The completion marker's name for a data volume's name (caller frees). */
char *host_volume_marker(const char *name);

/*
 * @local_file on host @h, uploaded unless complete there already (the pool
 * is ensured first). The file is opened once: hashed, and sent, from that
 * one descriptor, and the bytes sent must hash to the name's sha256 (a
 * file written meanwhile is an error, and nothing is committed). 0 with
 * @out filled, or -1 with "host NAME: ..." in @err; release @out with
 * host_volume_release() either way.
 */
LAB_MUST_CHECK
int host_volume_ensure(struct lab_host *h, const char *local_file, enum host_vol_kind kind,
		       struct host_volume *out, struct strbuf *err);

/*
 * A run's own disk: qcow2 volume @name in @h's pool, with @base (an
 * ensured image) as its backing store, of the base's disk size. Deleted
 * with host_volume_delete() after the run. -1 with @err on failure and on
 * the embedded host.
 */
LAB_MUST_CHECK
int host_overlay_create(struct lab_host *h, const struct host_volume *base, const char *name,
			struct host_volume *out, struct strbuf *err);

/*
 * A run's small data on host @h (its job, handed to QEMU as a fw_cfg
 * file): volume @name holding the @len bytes of @data, sent over the
 * connection. 0 with out->name and out->path, or -1 with @err; when
 * out->name is set the volume exists (delete it with
 * host_volume_delete()) either way. -1 on the embedded host.
 */
LAB_MUST_CHECK
int host_volume_put(struct lab_host *h, const char *name, const void *data, size_t len,
		    struct host_volume *out, struct strbuf *err);

/*
 * An empty raw volume @name on host @h, for QEMU to write (a run's console
 * log): 0 with out->name and out->path, or -1 with @err. Delete it with
 * host_volume_delete(). -1 on the embedded host.
 */
LAB_MUST_CHECK
int host_volume_make(struct lab_host *h, const char *name, struct host_volume *out,
		     struct strbuf *err);

/*
 * Volume @name of @h's pool into local file @path (created or truncated),
 * at most its first @max bytes, over the connection. 0, or -1 with @err
 * (the file then holds what arrived). -1 on the embedded host.
 */
LAB_MUST_CHECK
int host_volume_get(struct lab_host *h, const char *name, const char *path, uint64_t max,
		    struct strbuf *err);

/* Delete volume @name of @h's pool; a volume that is not there is not an error. */
LAB_MUST_CHECK
int host_volume_delete(struct lab_host *h, const char *name, struct strbuf *err);

void host_volume_release(struct host_volume *v);

#endif
