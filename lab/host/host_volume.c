// SPDX-License-Identifier: GPL-2.0
/* Content-addressed volumes and per-run overlays on a host (host_volume.h). */
#include "host_volume.h"
#include "escape.h"
#include "fsutil.h"
#include "libvirt_conn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#define MARKER_SUFFIX ".complete"

char *host_volume_name(enum host_vol_kind kind, const char *sha256_hex)
{
	return xasprintf("mglrulab-%s-%s", kind == HOST_VOL_KERNEL ? "kernel" : "image", sha256_hex);
}

char *host_volume_marker(const char *name)
{
	return xasprintf("%s%s", name, MARKER_SUFFIX);
}

void host_volume_release(struct host_volume *v)
{
	free(v->name);
	free(v->path);
	memset(v, 0, sizeof(*v));
}

/* qcow2's header: magic "QFI\xfb", then at byte 24 the disk size, big-endian. */
static void probe_format(int fd, struct host_volume *v)
{
	unsigned char hdr[32];

	v->format = "raw";
	v->virtual_bytes = v->bytes;
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || memcmp(hdr, "QFI\xfb", 4))
		return;
	v->format = "qcow2";
	v->virtual_bytes = 0;
	for (int i = 24; i < 32; i++)
		v->virtual_bytes = v->virtual_bytes << 8 | hdr[i];
}

/* The volume @name of the pool, NULL when there is none (*@failed on other errors). */
static virStorageVolPtr vol_lookup(struct lab_host *h, const char *name, int *failed,
				   struct strbuf *err)
{
	virStorageVolPtr v = virStorageVolLookupByName(h->pool, name);

	if (!v && virGetLastErrorCode() != VIR_ERR_NO_STORAGE_VOL) {
		sb_addf(err, "host %s: cannot look up volume %s: %s", h->cfg->name, name,
			lab_virt_error());
		*failed = 1;
	}
	return v;
}

static int vol_delete(struct lab_host *h, virStorageVolPtr v, const char *name, struct strbuf *err)
{
	int r = virStorageVolDelete(v, 0);

	if (r < 0)
		sb_addf(err, "host %s: cannot delete volume %s: %s", h->cfg->name, name,
			lab_virt_error());
	virStorageVolFree(v);
	return r < 0 ? -1 : 0;
}

/* @h's pool, ensured: 0, or -1 with @err (the embedded driver has none). */
static int volume_pool(struct lab_host *h, struct strbuf *err)
{
	if (h->embedded) {
		sb_addf(err, "host %s: the embedded driver has no storage volumes", h->cfg->name);
		return -1;
	}
	return host_pool_ensure(h, err);
}

int host_volume_delete(struct lab_host *h, const char *name, struct strbuf *err)
{
	int failed = 0;
	virStorageVolPtr v;

	if (volume_pool(h, err))
		return -1;
	v = vol_lookup(h, name, &failed, err);
	if (!v)
		return failed ? -1 : 0;
	return vol_delete(h, v, name, err);
}

/* A file volume; raw, since what we send is the file's bytes as they are. */
static virStorageVolPtr vol_create(struct lab_host *h, const char *name, uint64_t bytes,
				   struct strbuf *err)
{
	struct strbuf xml = STRBUF_INIT;
	virStorageVolPtr v;

	sb_adds(&xml, "<volume type='file'>\n  <name>");
	sb_add_xml(&xml, name);
	sb_addf(&xml, "</name>\n  <capacity unit='bytes'>%llu</capacity>\n"
		"  <allocation unit='bytes'>0</allocation>\n  <target>\n"
		"    <format type='raw'/>\n    <permissions><mode>0644</mode></permissions>\n"
		"  </target>\n</volume>\n", (unsigned long long)bytes);
	v = virStorageVolCreateXML(h->pool, sb_str(&xml), 0);
	if (!v)
		sb_addf(err, "host %s: cannot create volume %s in pool %s: %s", h->cfg->name, name,
			h->cfg->pool, lab_virt_error());
	sb_release(&xml);
	return v;
}

/*
 * What an upload reads: @bytes of @fd from offset 0, hashed on the way.
 * When a content-addressed volume is sent, @want is the hash its name
 * came from (of the same descriptor): bytes that no longer hash to it (the
 * file was written while it was sent) make the last read fail, so
 * virStreamSendAll() aborts the stream before the host sees its end.
 */
struct sender {
	int fd;
	uint64_t bytes, sent;
	struct sha256 hash;
	const char *want;		/* NULL: no check (host_volume_put()'s own bytes) */
	int changed;			/* the check failed */
	int read_errno;
};

static int read_chunk(virStreamPtr st, char *data, size_t n, void *opaque)
{
	struct sender *s = opaque;
	char got[SHA256_HEX_LEN + 1];
	ssize_t r;

	(void)st;
	if (n > s->bytes - s->sent)
		n = (size_t)(s->bytes - s->sent);
	if (!n) {
		sha256_final_hex(&s->hash, got);
		s->hash.md = NULL;
		if (s->want && strcmp(got, s->want)) {
			s->changed = 1;
			return -1;
		}
		return 0;
	}
	do
		r = pread(s->fd, data, n, (off_t)s->sent);
	while (r < 0 && errno == EINTR);
	if (r <= 0) {
		/* the file shrank (0) or cannot be read: not what was hashed */
		s->read_errno = r < 0 ? errno : 0;
		s->changed = r == 0;
		return -1;
	}
	sha256_update(&s->hash, data, (size_t)r);
	s->sent += (uint64_t)r;
	return (int)r;
}

/*
 * Send @fd's @bytes into @v over the connection, then check what arrived.
 * @sha256: the hash the bytes must still have (NULL: none to check).
 */
static int upload(struct lab_host *h, virStorageVolPtr v, const char *name, int fd,
		  uint64_t bytes, const char *sha256, struct strbuf *err)
{
	virStreamPtr st = virStreamNew(h->conn, 0);
	struct sender snd = { .fd = fd, .bytes = bytes, .want = sha256 };
	virStorageVolInfo vi;
	int r = -1;

	if (!st) {
		sb_addf(err, "host %s: cannot open a stream: %s", h->cfg->name, lab_virt_error());
		return -1;
	}
	sha256_init(&snd.hash);
	if (virStorageVolUpload(v, st, 0, bytes, 0) < 0) {
		sb_addf(err, "host %s: cannot upload to %s: %s", h->cfg->name, name, lab_virt_error());
	} else if (virStreamSendAll(st, read_chunk, &snd) < 0) {
		/* virStreamSendAll() aborted the stream: the volume stays incomplete */
		if (snd.changed)
			sb_addf(err, "host %s: the file for %s changed while it was sent (its bytes no "
				"longer hash to the name's sha256): not uploaded; run again once it "
				"stays put", h->cfg->name, name);
		else if (snd.read_errno)
			sb_addf(err, "host %s: cannot read the file for %s: %s", h->cfg->name, name,
				strerror(snd.read_errno));
		else
			sb_addf(err, "host %s: upload to %s failed: %s", h->cfg->name, name,
				lab_virt_error());
	} else if (virStreamFinish(st) < 0) {
		sb_addf(err, "host %s: upload to %s did not finish: %s", h->cfg->name, name,
			lab_virt_error());
	} else if (virStorageVolGetInfoFlags(v, &vi, VIR_STORAGE_VOL_GET_PHYSICAL) < 0) {
		sb_addf(err, "host %s: cannot read back %s: %s", h->cfg->name, name, lab_virt_error());
	} else if (vi.allocation != bytes) {
		sb_addf(err, "host %s: %s holds %llu bytes after the upload, not %llu", h->cfg->name,
			name, vi.allocation, (unsigned long long)bytes);
	} else {
		r = 0;
	}
	sha256_release(&snd.hash);
	virStreamFree(st);
	return r;
}

/* Is the data volume @v complete: its marker exists and its size is the file's? */
static int vol_complete(struct lab_host *h, virStorageVolPtr v, const char *marker,
			uint64_t bytes, int *failed, struct strbuf *err)
{
	virStorageVolPtr m = vol_lookup(h, marker, failed, err);
	virStorageVolInfo vi;
	int ok;

	if (!m)
		return 0;
	virStorageVolFree(m);
	ok = virStorageVolGetInfoFlags(v, &vi, VIR_STORAGE_VOL_GET_PHYSICAL) == 0 &&
	     vi.allocation == bytes;
	return ok;
}

/* Send the file: the data volume, then (the commit point) its marker. */
static virStorageVolPtr send_volume(struct lab_host *h, const char *name, const char *marker,
				    int fd, uint64_t bytes, const char *sha256, struct strbuf *err)
{
	virStorageVolPtr v = vol_create(h, name, bytes, err), m;

	if (!v)
		return NULL;
	if (upload(h, v, name, fd, bytes, sha256, err)) {
		/* best effort: a leftover is found without its marker and sent again */
		struct strbuf ignore = STRBUF_INIT;
		vol_delete(h, v, name, &ignore);
		sb_release(&ignore);
		return NULL;
	}
	m = vol_create(h, marker, 0, err);
	if (!m) {
		virStorageVolFree(v);
		return NULL;
	}
	virStorageVolFree(m);
	return v;
}

/* Drop what an earlier, unfinished upload left: the data volume and a stray marker. */
static int drop_partial(struct lab_host *h, virStorageVolPtr v, const char *name,
			const char *marker, struct strbuf *err)
{
	int failed = 0;
	virStorageVolPtr m;

	if (v) {
		warning("host %s: %s is an unfinished upload: sending it again", h->cfg->name, name);
		if (vol_delete(h, v, name, err))
			return -1;
	}
	m = vol_lookup(h, marker, &failed, err);
	if (m && vol_delete(h, m, marker, err))
		return -1;
	return failed ? -1 : 0;
}

static int ensure_remote(struct lab_host *h, int fd, enum host_vol_kind kind,
			 struct host_volume *out, struct strbuf *err)
{
	char *marker;
	virStorageVolPtr v;
	int failed = 0, r = -1;

	if (host_pool_ensure(h, err))
		return -1;
	out->name = host_volume_name(kind, out->sha256);
	marker = host_volume_marker(out->name);
	v = vol_lookup(h, out->name, &failed, err);
	if (failed)
		goto out;
	if (v && vol_complete(h, v, marker, out->bytes, &failed, err)) {
		debug("host %s: %s is there already", h->cfg->name, out->name);
	} else if (failed) {
		goto out;
	} else if (drop_partial(h, v, out->name, marker, err)) {
		v = NULL;	/* freed by drop_partial() */
		goto out;
	} else {
		v = send_volume(h, out->name, marker, fd, out->bytes, out->sha256, err);
		if (!v)
			goto out;
		out->uploaded = 1;
	}
	out->path = virStorageVolGetPath(v);
	if (!out->path)
		sb_addf(err, "host %s: no path for %s: %s", h->cfg->name, out->name, lab_virt_error());
	else
		r = 0;
out:
	if (v)
		virStorageVolFree(v);
	free(marker);
	return r;
}

int host_volume_ensure(struct lab_host *h, const char *local_file, enum host_vol_kind kind,
		       struct host_volume *out, struct strbuf *err)
{
	double t0 = now_monotonic();
	struct stat st;
	int fd, r = -1;

	memset(out, 0, sizeof(*out));
	fd = open(local_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		sb_addf(err, "%s: %s", local_file, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		sb_addf(err, "%s: not a regular file", local_file);
		goto out;
	}
	out->bytes = (uint64_t)st.st_size;
	out->st = st;
	probe_format(fd, out);
	/*
	 * The descriptor's bytes, not the path's: what is uploaded below is
	 * read from this same descriptor and checked against this hash as it
	 * is sent, so a file replaced or rewritten meanwhile cannot end up
	 * under another content's name.
	 */
	if (sha256_fd_hex(fd, out->bytes, out->sha256)) {
		sb_addf(err, "%s: cannot hash it: %s", local_file, errno == EIO ?
			"it grew shorter while it was read" : strerror(errno));
		goto out;
	}
	if (h->embedded) {
		/* no storage driver: the domain names the local file, as today */
		out->path = realpath(local_file, NULL);
		r = out->path ? 0 : -1;
		if (r)
			sb_addf(err, "%s: %s", local_file, strerror(errno));
	} else {
		r = ensure_remote(h, fd, kind, out, err);
	}
out:
	if (fd >= 0)
		close(fd);
	out->seconds = now_monotonic() - t0;
	return r;
}

int host_volume_put(struct lab_host *h, const char *name, const void *data, size_t len,
		    struct host_volume *out, struct strbuf *err)
{
	virStorageVolPtr v;
	int fd = -1, r = -1;

	memset(out, 0, sizeof(*out));
	if (volume_pool(h, err))
		return -1;
	/* upload() sends from a file: a memory one */
	fd = memfd_create("mglrulab-volume", MFD_CLOEXEC);
	if (fd < 0 || write_all(fd, data, len)) {
		sb_addf(err, "host %s: cannot stage %s: %s", h->cfg->name, name, strerror(errno));
		goto out;
	}
	v = vol_create(h, name, len, err);
	if (!v)
		goto out;
	out->name = xstrdup(name);
	out->format = "raw";
	out->bytes = out->virtual_bytes = len;
	if (upload(h, v, name, fd, len, NULL, err) == 0) {
		out->path = virStorageVolGetPath(v);
		if (!out->path)
			sb_addf(err, "host %s: no path for %s: %s", h->cfg->name, name, lab_virt_error());
	}
	virStorageVolFree(v);
	r = out->path ? 0 : -1;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int host_volume_make(struct lab_host *h, const char *name, struct host_volume *out,
		     struct strbuf *err)
{
	virStorageVolPtr v;

	memset(out, 0, sizeof(*out));
	if (volume_pool(h, err))
		return -1;
	v = vol_create(h, name, 0, err);
	if (!v)
		return -1;
	out->name = xstrdup(name);
	out->format = "raw";
	out->path = virStorageVolGetPath(v);
	virStorageVolFree(v);
	if (!out->path) {
		sb_addf(err, "host %s: no path for %s: %s", h->cfg->name, name, lab_virt_error());
		return -1;
	}
	return 0;
}

/* Where a download writes: a local file, and how much of it may. */
struct receiver {
	int fd;
	uint64_t max, got;
	int write_errno;
};

static int write_chunk(virStreamPtr st, const char *data, size_t n, void *opaque)
{
	struct receiver *rc = opaque;
	size_t take = n;

	(void)st;
	if (rc->got >= rc->max)
		return (int)n;	/* past the cap: read on, keep nothing (the length bounds it) */
	if (take > rc->max - rc->got)
		take = (size_t)(rc->max - rc->got);
	if (write_all(rc->fd, data, take) < 0) {
		rc->write_errno = errno;
		return -1;
	}
	rc->got += take;
	return (int)n;
}

int host_volume_get(struct lab_host *h, const char *name, const char *path, uint64_t max,
		    struct strbuf *err)
{
	struct receiver rc = { .fd = -1, .max = max };
	virStreamPtr st = NULL;
	virStorageVolPtr v;
	int failed = 0, r = -1;

	if (volume_pool(h, err))
		return -1;
	v = vol_lookup(h, name, &failed, err);
	if (!v) {
		if (!failed)
			sb_addf(err, "host %s: no volume %s in pool %s", h->cfg->name, name,
				h->cfg->pool);
		return -1;
	}
	rc.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	st = rc.fd < 0 ? NULL : virStreamNew(h->conn, 0);
	if (rc.fd < 0) {
		sb_addf(err, "cannot create %s: %s", path, strerror(errno));
	} else if (!st) {
		sb_addf(err, "host %s: cannot open a stream: %s", h->cfg->name, lab_virt_error());
	} else if (virStorageVolDownload(v, st, 0, max, 0) < 0) {
		sb_addf(err, "host %s: cannot download %s: %s", h->cfg->name, name, lab_virt_error());
	} else if (virStreamRecvAll(st, write_chunk, &rc) < 0) {
		/* virStreamRecvAll() aborted the stream */
		if (rc.write_errno)
			sb_addf(err, "cannot write %s: %s", path, strerror(rc.write_errno));
		else
			sb_addf(err, "host %s: download of %s failed: %s", h->cfg->name, name,
				lab_virt_error());
	} else if (virStreamFinish(st) < 0) {
		sb_addf(err, "host %s: download of %s did not finish: %s", h->cfg->name, name,
			lab_virt_error());
	} else {
		r = 0;
	}
	if (st)
		virStreamFree(st);
	if (rc.fd >= 0 && close(rc.fd) < 0 && !r) {
		sb_addf(err, "cannot write %s: %s", path, strerror(errno));
		r = -1;
	}
	virStorageVolFree(v);
	return r;
}

int host_overlay_create(struct lab_host *h, const struct host_volume *base, const char *name,
			struct host_volume *out, struct strbuf *err)
{
	struct strbuf xml = STRBUF_INIT;
	virStorageVolPtr v;

	memset(out, 0, sizeof(*out));
	if (h->embedded) {
		sb_addf(err, "host %s: the embedded driver has no storage volumes (its runs keep "
			"local overlays)", h->cfg->name);
		return -1;
	}
	if (host_pool_ensure(h, err))
		return -1;
	sb_adds(&xml, "<volume type='file'>\n  <name>");
	sb_add_xml(&xml, name);
	sb_addf(&xml, "</name>\n  <capacity unit='bytes'>%llu</capacity>\n  <target>\n"
		"    <format type='qcow2'/>\n    <permissions><mode>0644</mode></permissions>\n"
		"  </target>\n  <backingStore>\n    <path>",
		(unsigned long long)base->virtual_bytes);
	sb_add_xml(&xml, base->path);
	sb_addf(&xml, "</path>\n    <format type='%s'/>\n  </backingStore>\n</volume>\n",
		base->format);
	v = virStorageVolCreateXML(h->pool, sb_str(&xml), 0);
	sb_release(&xml);
	if (!v) {
		sb_addf(err, "host %s: cannot create the overlay %s on %s: %s", h->cfg->name, name,
			base->name ? base->name : base->path, lab_virt_error());
		return -1;
	}
	out->name = xstrdup(name);
	out->path = virStorageVolGetPath(v);
	out->format = "qcow2";
	out->virtual_bytes = base->virtual_bytes;
	virStorageVolFree(v);
	if (!out->path) {
		sb_addf(err, "host %s: no path for %s: %s", h->cfg->name, name, lab_virt_error());
		return -1;
	}
	return 0;
}
