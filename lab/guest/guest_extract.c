// SPDX-License-Identifier: GPL-2.0
#include "guest_extract.h"
#include "xjson.h"
#include "escape.h"
#include "guest_protocol.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void extract_default_limits(struct extract_limits *lim)
{
	*lim = (struct extract_limits){
		.file_max = GUEST_EXTRACT_FILE_MAX,
		.total_max = GUEST_EXTRACT_TOTAL_MAX,
		.dir_size_max = GUEST_EXTRACT_DIR_SIZE_MAX,
		.entries_max = GUEST_EXTRACT_ENTRIES_MAX,
		.depth_max = GUEST_EXTRACT_DEPTH_MAX,
		.name_max = GUEST_EXTRACT_NAME_MAX,
	};
}

const char *extract_name_refusal(const char *name, size_t name_max)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t len = strlen(name);

	if (!len || !strcmp(name, ".") || !strcmp(name, ".."))
		return "not a file name";
	if (len > name_max)
		return "name too long";
	while (len) {
		unsigned cp;
		size_t n = utf8_decode(s, len, &cp);

		if (!n)
			return "name is not UTF-8";
		if (cp == '/')
			return "name holds a '/'";
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			return "name holds a control character";
		s += n;
		len -= n;
	}
	return NULL;
}

struct walk {
	const struct extract_source *src;
	const struct extract_limits *lim;
	struct extract_report *rep;
	long entries;
	int stopped;		/* entries_max reached: nothing more is looked at */
	struct strbuf err;
};

static void refuse(struct walk *w, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* @path is printable already (the guest path, its last name made safe by the caller). */
static void refuse(struct walk *w, const char *path, const char *fmt, ...)
{
	struct strbuf why = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&why, fmt, ap);
	va_end(ap);
	debug("extract: %s refused: %s", path, sb_str(&why));
	/* the reason may quote libguestfs, which may quote the guest's disk: lossy */
	if (w->rep->refused++ < GUEST_EXTRACT_REFUSALS_LISTED)
		json_array_append_new(w->rep->refusals,
				      xjson_pack("{s:o,s:o}", "path", json_string_lossy(path),
						 "reason", json_string_lossy(sb_str(&why))));
	sb_release(&why);
}

static const char *type_refusal(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFLNK: return "symbolic link: links are not extracted";
	case S_IFBLK: return "block device node: only regular files and folders are extracted";
	case S_IFCHR: return "character device node: only regular files and folders are extracted";
	case S_IFIFO: return "FIFO: only regular files and folders are extracted";
	case S_IFSOCK: return "socket: only regular files and folders are extracted";
	case 0: return "cannot be looked at (lstat failed)";
	default: return "unknown file type: only regular files and folders are extracted";
	}
}

static void walk_dir(struct walk *w, const char *path, int dfd, int depth);

static void copy_file_entry(struct walk *w, const char *path, int dfd, const struct extract_ent *e)
{
	const struct extract_limits *lim = w->lim;
	struct stat st;
	int fd;

	if (e->mode & (S_ISUID | S_ISGID)) {
		refuse(w, path, "setuid/setgid file (mode %04o): not extracted", e->mode & 07777);
		return;
	}
	if (e->size < 0 || e->size > lim->file_max) {
		refuse(w, path, "%lld bytes, over GUEST_EXTRACT_FILE_MAX (%lld bytes)",
		       (long long)e->size, (long long)lim->file_max);
		return;
	}
	if (w->rep->bytes + e->size > lim->total_max) {
		refuse(w, path, "%lld bytes would take the run past GUEST_EXTRACT_TOTAL_MAX (%lld bytes)",
		       (long long)e->size, (long long)lim->total_max);
		return;
	}
	/* ours alone: a new file, never through a link, readable by all, writable by us */
	fd = openat(dfd, e->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		refuse(w, path, "cannot create it on the host: %s", strerror(errno));
		return;
	}
	sb_reset(&w->err);
	if (fchmod(fd, 0644))
		sb_adds(&w->err, strerror(errno));
	else if (e->size && w->src->copy(w->src->ctx, path, fd, e->size, &w->err))
		;	/* the source said why */
	else if (fstat(fd, &st))
		sb_adds(&w->err, strerror(errno));
	else if (st.st_size != e->size)
		sb_addf(&w->err, "%lld bytes arrived, %lld expected", (long long)st.st_size,
			(long long)e->size);
	if (w->err.len) {
		refuse(w, path, "cannot copy: %s", sb_str(&w->err));
		close(fd);
		unlinkat(dfd, e->name, 0);
		return;
	}
	close(fd);
	w->rep->files++;
	w->rep->bytes += e->size;
}

/* A folder's own size grows with the names it holds: past the cap, do not even list it. */
static int dir_too_large(struct walk *w, const char *path, const struct extract_ent *e)
{
	if (e->size <= w->lim->dir_size_max)
		return 0;
	refuse(w, path, "folder of %lld bytes, over GUEST_EXTRACT_DIR_SIZE_MAX (%lld bytes): not listed",
	       (long long)e->size, (long long)w->lim->dir_size_max);
	return 1;
}

static void dir_entry(struct walk *w, const char *path, int dfd, const struct extract_ent *e,
		      int depth)
{
	int sub;

	if (depth + 1 > w->lim->depth_max) {
		refuse(w, path, "folder deeper than GUEST_EXTRACT_DEPTH_MAX (%d)", w->lim->depth_max);
		return;
	}
	if (dir_too_large(w, path, e))
		return;
	if (mkdirat(dfd, e->name, 0700)) {
		refuse(w, path, "cannot create it on the host: %s", strerror(errno));
		return;
	}
	sub = openat(dfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub < 0 || fchmod(sub, 0755)) {
		refuse(w, path, "cannot open it on the host: %s", strerror(errno));
		if (sub >= 0)
			close(sub);
		return;
	}
	w->rep->dirs++;
	walk_dir(w, path, sub, depth + 1);
	close(sub);
}

static int cmp_ent(const void *a, const void *b)
{
	return strcmp(((const struct extract_ent *)a)->name, ((const struct extract_ent *)b)->name);
}

static void walk_dir(struct walk *w, const char *path, int dfd, int depth)
{
	struct extract_ent *ents = NULL;
	size_t n = 0;

	sb_reset(&w->err);
	if (w->src->list(w->src->ctx, path, &ents, &n, &w->err)) {
		refuse(w, path, "cannot list the folder: %s", sb_str(&w->err));
		return;
	}
	if (n)
		qsort(ents, n, sizeof(*ents), cmp_ent);	/* the same refusals in the same order every time */
	for (size_t i = 0; i < n && !w->stopped; i++) {
		const struct extract_ent *e = &ents[i];
		const char *bad = extract_name_refusal(e->name, w->lim->name_max);
		struct strbuf child = STRBUF_INIT;

		sb_addf(&child, "%s/", path);
		if (++w->entries > w->lim->entries_max) {
			refuse(w, path, "more than GUEST_EXTRACT_ENTRIES_MAX (%ld) entries: the rest was not looked at",
			       w->lim->entries_max);
			w->stopped = 1;
		} else if (bad) {
			sb_add_text_safe(&child, e->name);
			refuse(w, sb_str(&child), "%s", bad);
		} else {
			sb_adds(&child, e->name);
			if (S_ISREG(e->mode))
				copy_file_entry(w, sb_str(&child), dfd, e);
			else if (S_ISDIR(e->mode))
				dir_entry(w, sb_str(&child), dfd, e, depth);
			else
				refuse(w, sb_str(&child), "%s", type_refusal(e->mode));
		}
		sb_release(&child);
	}
	for (size_t i = 0; i < n; i++)
		free(ents[i].name);
	free(ents);
}

int extract_tree(const struct extract_source *src, const char *root, const char *dest,
		 const struct extract_limits *lim, struct extract_report *rep, struct strbuf *err)
{
	struct walk w = { .src = src, .lim = lim, .rep = rep, .err = STRBUF_INIT };
	struct extract_ent st = { 0 };
	int dfd;

	memset(rep, 0, sizeof(*rep));
	rep->refusals = json_array();
	if (src->lstat(src->ctx, root, &st, err))
		return -1;
	if (!S_ISDIR(st.mode)) {
		if (S_ISLNK(st.mode))
			sb_addf(err, "%s is a symbolic link, not a folder: nothing extracted", root);
		else
			sb_addf(err, "%s is not a folder (mode %o): nothing extracted", root, st.mode);
		return -1;
	}
	if (mkdir(dest, 0700)) {
		sb_addf(err, "cannot create %s: %s", dest, strerror(errno));
		return -1;
	}
	dfd = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0 || fchmod(dfd, 0755)) {
		sb_addf(err, "cannot open %s: %s", dest, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	if (!dir_too_large(&w, root, &st))
		walk_dir(&w, root, dfd, 0);
	close(dfd);
	sb_release(&w.err);
	return 0;
}

void extract_report_release(struct extract_report *rep)
{
	json_decref(rep->refusals);
	memset(rep, 0, sizeof(*rep));
}

json_t *extract_report_json(const struct extract_report *rep, const char *root,
			    const struct extract_limits *lim)
{
	return xjson_pack("{s:s,s:I,s:I,s:I,s:I,s:O,s:{s:I,s:I,s:I,s:I,s:i,s:I}}",
			 "source", root, "files", (json_int_t)rep->files, "dirs", (json_int_t)rep->dirs,
			 "bytes", (json_int_t)rep->bytes, "refused_total", (json_int_t)rep->refused,
			 "refused", rep->refusals,
			 "limits",
			 "GUEST_EXTRACT_FILE_MAX", (json_int_t)lim->file_max,
			 "GUEST_EXTRACT_TOTAL_MAX", (json_int_t)lim->total_max,
			 "GUEST_EXTRACT_ENTRIES_MAX", (json_int_t)lim->entries_max,
			 "GUEST_EXTRACT_DIR_SIZE_MAX", (json_int_t)lim->dir_size_max,
			 "GUEST_EXTRACT_DEPTH_MAX", lim->depth_max,
			 "GUEST_EXTRACT_NAME_MAX", (json_int_t)lim->name_max);
}
