/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copying what a guest left in a folder onto the host, as data. The guest
 * is untrusted (a buggy kernel, a hostile workload), and libguestfs'
 * copy-out runs `tar -xf` on the host as root: a setuid-root file, a
 * world-writable device node or a link to /etc/shadow made in the guest
 * came back exactly so. Here every entry is looked at first (lstat, never
 * following a link) and only regular files and folders are written, by us,
 * with fixed modes, through O_EXCL|O_NOFOLLOW descriptors under a folder
 * we just created; sizes, counts, depth and names are bounded (the
 * GUEST_EXTRACT_* limits of guest_protocol.h). Whatever is refused is
 * listed with the reason.
 *
 * The walk does not know libguestfs: a source lists a folder and copies
 * one regular file into a host descriptor. guest_image.c gives the
 * libguestfs source (one appliance for a batch of disks); the unit test a
 * host folder full of hostile entries.
 */
#ifndef LAB_GUEST_EXTRACT_H
#define LAB_GUEST_EXTRACT_H

#include "util.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "strbuf.h"

/* One entry as lstat() sees it. */
struct extract_ent {
	char *name;		/* in a listing; NULL from lstat */
	uint32_t mode;		/* st_mode: type and permission bits; 0: could not be lstat'ed */
	int64_t size;
};

struct extract_source {
	void *ctx;
	/* lstat @path: 0, or -1 with the reason in @err */
	int (*lstat)(void *ctx, const char *path, struct extract_ent *st, struct strbuf *err);
	/* the entries of folder @path, without "." and "..": 0, or -1 with @err (caller frees) */
	int (*list)(void *ctx, const char *path, struct extract_ent **ents, size_t *n,
		    struct strbuf *err);
	/* write the first @size (> 0) bytes of regular file @path to @fd: 0, or -1 with @err */
	int (*copy)(void *ctx, const char *path, int fd, int64_t size, struct strbuf *err);
};

struct extract_limits {
	int64_t file_max, total_max, dir_size_max;
	long entries_max;
	int depth_max;
	size_t name_max;
};
/* The GUEST_EXTRACT_* values. */
void extract_default_limits(struct extract_limits *lim);

struct extract_report {
	long files, dirs, refused;
	int64_t bytes;
	json_t *refusals;	/* [{"path", "reason"}], the first GUEST_EXTRACT_REFUSALS_LISTED */
};

/*
 * Copy the tree at @root of @src into @dest, a folder this creates (it
 * must not exist; its parent must). Returns 0 with what was copied and
 * refused in @rep (release with extract_report_release()), or -1 with the
 * reason in @err when @root is not a folder (a link to one counts as not)
 * or @dest cannot be created; then nothing was written.
 */
LAB_MUST_CHECK
int extract_tree(const struct extract_source *src, const char *root, const char *dest,
		 const struct extract_limits *lim, struct extract_report *rep, struct strbuf *err);
void extract_report_release(struct extract_report *rep);

/* @rep as the run's extract.json: counts, refusals, and the limits in force. */
json_t *extract_report_json(const struct extract_report *rep, const char *root,
			    const struct extract_limits *lim);

/*
 * Why the file name @name may not be written on the host, or NULL: empty,
 * "." or "..", a '/', longer than @name_max bytes, not UTF-8, or holding a
 * control character (C0, DEL, C1: a name is shown in terminals and reports).
 */
const char *extract_name_refusal(const char *name, size_t name_max);

#endif
