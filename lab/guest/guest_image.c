// SPDX-License-Identifier: GPL-2.0
#include "guest_image.h"
#include "appliance_kernel.h"
#include "fsutil.h"
#include "guest_extract.h"
#include "guest_protocol.h"
#include "run_command.h"
#include "sha256.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <guestfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bump when the image layout changes: every cached image is then rebuilt. */
#define IMAGE_FORMAT "mglrulab-image-1"

int guest_appliance_launches;

void guest_libguestfs_env(int kvm_works)
{
	setenv("LIBGUESTFS_BACKEND", "direct", 0);
	/* /dev/kvm exists here but cannot run the appliance kernel */
	if (!kvm_works)
		setenv("LIBGUESTFS_BACKEND_SETTINGS", "force_tcg", 0);
}

/* The static programs for the image, sorted so the hash does not depend on readdir order. */
static int list_programs(const char *dir, struct strvec *names, struct strbuf *err)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d) {
		sb_addf(err, "cannot read %s: %s (run 'make' first)", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
			continue;	/* skip dependency files and the like */
		p = path_join(dir, e->d_name);
		if (is_regular_file(p) && !access(p, X_OK))
			strvec_push(names, e->d_name);
		free(p);
	}
	closedir(d);
	strvec_sort(names);
	for (size_t i = 0; i < names->n; i++)
		if (!strcmp(names->v[i], "mglrulab-runner"))
			return 0;
	sb_addf(err, "%s/mglrulab-runner is missing (run 'make')", dir);
	return -1;
}

static const char *busybox_path(const struct guest_image_spec *spec)
{
	return spec->busybox ? spec->busybox : "/bin/busybox";
}

int guest_image_hash(const struct guest_image_spec *spec, char hex[65], struct strbuf *err)
{
	struct strvec names = STRVEC_INIT;
	struct sha256 c = { 0 };
	char h[SHA256_HEX_LEN + 1];
	int r = -1;

	if (list_programs(spec->guest_bin_dir, &names, err))
		goto out;
	sha256_init(&c);
	sha256_field_str(&c, "format", IMAGE_FORMAT);
	sha256_field(&c, "size", &spec->size_mib, sizeof(spec->size_mib));
	if (sha256_file_hex(busybox_path(spec), h)) {
		sb_addf(err, "cannot read %s: %s (apt-get install busybox-static)",
			busybox_path(spec), strerror(errno));
		goto out;
	}
	sha256_field_str(&c, "busybox", h);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(spec->guest_bin_dir, names.v[i]);

		if (sha256_file_hex(p, h)) {
			sb_addf(err, "cannot read %s: %s", p, strerror(errno));
			free(p);
			goto out;
		}
		free(p);
		sha256_field_str(&c, "name", names.v[i]);
		sha256_field_str(&c, "content", h);
	}
	sha256_final_hex(&c, hex);
	r = 0;
out:
	sha256_release(&c);
	strvec_clear(&names);
	return r;
}

#define G(call) do { if ((call) < 0) goto fail; } while (0)

static int copy_exec(const char *src, const char *dst, struct strbuf *err)
{
	if (copy_file(src, dst, 0755)) {
		sb_addf(err, "cannot copy %s to %s: %s", src, dst, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The root file system as a host folder: busybox and its applet links, the
 * runner, the workloads. It goes into the image as one tar stream, because
 * every libguestfs call is a round trip to an appliance running under TCG.
 */
static int stage_root(const struct guest_image_spec *spec, const char *root, struct strbuf *err)
{
	static const char *const dirs[] = {
		"bin", "sbin", "usr/bin", "usr/sbin", "etc", "proc", "sys", "dev", "tmp",
		"run", "root", "mnt", "var", GUEST_WORKLOAD_DIR + 1, GUEST_RESULTS_DIR + 1,
	};
	static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n", group[] = "root:x:0:\n";
	struct strvec names = STRVEC_INIT, applets = STRVEC_INIT;
	struct strbuf list = STRBUF_INIT;
	const char *argv[] = { busybox_path(spec), "--list", NULL };
	int r = -1;

	rm_rf(root);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		char *d = path_join(root, dirs[i]);
		int bad = mkdir_p(d, 0755);

		free(d);
		if (bad) {
			sb_addf(err, "cannot create %s/%s: %s", root, dirs[i], strerror(errno));
			goto out;
		}
	}
	char *p = path_join(root, "bin/busybox");
	int bad = copy_exec(busybox_path(spec), p, err);
	free(p);
	if (bad)
		goto out;
	if (run_capture(argv, NULL, &list)) {
		sb_addf(err, "'%s --list' failed", busybox_path(spec));
		goto out;
	}
	strvec_split(&applets, sb_str(&list), "\n");
	for (size_t i = 0; i < applets.n; i++) {
		/* an applet name is a plain word; anything else is not ours to create */
		if (strchr(applets.v[i], '/') || !strcmp(applets.v[i], "busybox"))
			continue;
		p = xasprintf("%s/bin/%s", root, applets.v[i]);
		if (symlink("busybox", p) && errno != EEXIST) {
			sb_addf(err, "cannot create %s: %s", p, strerror(errno));
			free(p);
			goto out;
		}
		free(p);
	}
	p = path_join(root, "etc/passwd");
	bad = write_file_atomic(p, passwd, sizeof(passwd) - 1);
	free(p);
	p = path_join(root, "etc/group");
	bad |= write_file_atomic(p, group, sizeof(group) - 1);
	free(p);
	if (bad) {
		sb_addf(err, "cannot write %s/etc: %s", root, strerror(errno));
		goto out;
	}
	if (list_programs(spec->guest_bin_dir, &names, err))
		goto out;
	for (size_t i = 0; i < names.n; i++) {
		char *src = path_join(spec->guest_bin_dir, names.v[i]);
		char *dst = !strcmp(names.v[i], "mglrulab-runner") ?
			    xasprintf("%s%s", root, GUEST_RUNNER_PATH) :
			    xasprintf("%s%s/%s", root, GUEST_WORKLOAD_DIR, names.v[i]);

		bad = copy_exec(src, dst, err);
		free(src);
		free(dst);
		if (bad)
			goto out;
	}
	r = 0;
out:
	strvec_clear(&names);
	strvec_clear(&applets);
	sb_release(&list);
	return r;
}

static int make_tar(const char *root, const char *tar, struct strbuf *err)
{
	const char *argv[] = { "tar", "--numeric-owner", "--owner=0", "--group=0", "-C", root,
			       "-cf", tar, ".", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .merge_stderr = 1 };
	int r = run_command(&c);

	if (r)
		sb_addf(err, "tar of the guest root failed: %s", r < 0 ? strerror(errno) : sb_str(&out));
	sb_release(&out);
	return r ? -1 : 0;
}

static int build_image(const struct guest_image_spec *spec, const char *path, struct strbuf *err)
{
	char *tmp = xasprintf("%s.tmp-%ld", path, (long)getpid());
	char *root = xasprintf("%s.root-%ld", path, (long)getpid());
	char *tar = xasprintf("%s.tar-%ld", path, (long)getpid());
	uint64_t size = (spec->size_mib ? spec->size_mib : 512) * 1024 * 1024;
	guestfs_h *g = NULL;
	int r = -1;
	double t0 = now_monotonic();

	if (appliance_kernel_check("/boot", geteuid(), getegid(), err) ||
	    stage_root(spec, root, err) || make_tar(root, tar, err))
		goto out;
	debug("guest image: root staged in %.2f s", now_monotonic() - t0);
	g = guestfs_create();
	if (!g) {
		sb_adds(err, "cannot create a libguestfs handle");
		goto out;
	}
	guestfs_set_error_handler(g, NULL, NULL);	/* we report guestfs_last_error() ourselves */
	unlink(tmp);
	G(guestfs_disk_create(g, tmp, "qcow2", (int64_t)size, -1));
	G(guestfs_add_drive_opts(g, tmp, GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2", -1));
	guest_appliance_launches++;
	G(guestfs_launch(g));
	debug("guest image: appliance up after %.2f s", now_monotonic() - t0);
	/* the whole disk is the file system: the kernel mounts root=/dev/vda, no partition table */
	G(guestfs_mkfs(g, "ext4", "/dev/sda"));
	G(guestfs_mount(g, "/dev/sda", "/"));
	G(guestfs_tar_in(g, tar, "/"));
	G(guestfs_chmod(g, 01777, "/tmp"));
	G(guestfs_umount_all(g));
	G(guestfs_shutdown(g));
	if (rename(tmp, path)) {
		sb_addf(err, "cannot rename %s: %s", tmp, strerror(errno));
		goto out;
	}
	r = 0;
	goto out;
fail:
	sb_addf(err, "building the guest image with libguestfs: %s",
		guestfs_last_error(g) ? guestfs_last_error(g) : "unknown error");
out:
	if (g)
		guestfs_close(g);
	if (r)
		unlink(tmp);
	rm_rf(root);
	unlink(tar);
	free(root);
	free(tar);
	free(tmp);
	return r;
}

char *guest_image_ensure(const struct guest_image_spec *spec, int *cache_hit, struct strbuf *err)
{
	char hex[65], *dir, *path;
	double t0 = now_monotonic();

	*cache_hit = 0;
	if (guest_image_hash(spec, hex, err))
		return NULL;
	dir = path_join(spec->state_dir, "images");
	path = xasprintf("%s/%.16s.qcow2", dir, hex);
	if (is_regular_file(path)) {
		*cache_hit = 1;
		debug("guest image %s: cache hit", path);
		free(dir);
		return path;
	}
	if (mkdir_p(dir, 0755)) {
		sb_addf(err, "cannot create %s: %s", dir, strerror(errno));
		free(dir);
		free(path);
		return NULL;
	}
	info("building the guest image %s (libguestfs, one appliance launch)", path);
	if (build_image(spec, path, err)) {
		free(dir);
		free(path);
		return NULL;
	}
	info("guest image built in %.1f s", now_monotonic() - t0);
	free(dir);
	return path;
}

int guest_overlay_create(const char *base, const char *overlay, struct strbuf *err)
{
	char *cwd = getcwd(NULL, 0);
	char *abs = path_absolute(cwd ? cwd : "/", base);
	const char *argv[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-F", "qcow2",
			       "-b", abs, overlay, NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .merge_stderr = 1 };
	int r;

	unlink(overlay);
	r = run_command(&c);
	if (r)
		sb_addf(err, "qemu-img create (overlay on %s) failed: %s", abs,
			r < 0 ? strerror(errno) : sb_str(&out));
	sb_release(&out);
	free(abs);
	free(cwd);
	return r ? -1 : 0;
}

/* ---- the guest's results folder: the libguestfs source of guest_extract.h ---- */

static void gfs_error(guestfs_h *g, const char *what, struct strbuf *err)
{
	sb_addf(err, "%s", guestfs_last_error(g) ? guestfs_last_error(g) : what);
}

static int gfs_lstat(void *ctx, const char *path, struct extract_ent *e, struct strbuf *err)
{
	guestfs_h *g = ctx;
	struct guestfs_statns *st = guestfs_lstatns(g, path);

	if (!st) {
		gfs_error(g, "lstat failed", err);
		return -1;
	}
	e->mode = (uint32_t)st->st_mode;
	e->size = st->st_size;
	guestfs_free_statns(st);
	return 0;
}

/* Two round trips per folder: the names, then all their lstat results at once. */
static int gfs_list(void *ctx, const char *path, struct extract_ent **ents, size_t *n,
		    struct strbuf *err)
{
	guestfs_h *g = ctx;
	char **names = guestfs_ls(g, path);
	struct guestfs_statns_list *sts = NULL;
	size_t count = 0;

	*ents = NULL;
	*n = 0;
	if (!names) {
		gfs_error(g, "cannot list", err);
		return -1;
	}
	while (names[count])
		count++;
	if (count && !(sts = guestfs_lstatnslist(g, path, names))) {
		gfs_error(g, "cannot lstat the entries", err);
		goto fail;
	}
	if (count && sts->len != count) {
		sb_addf(err, "%u lstat results for %zu names", sts->len, count);
		goto fail;
	}
	*ents = xcalloc(count ? count : 1, sizeof(**ents));
	for (size_t i = 0; i < count; i++) {
		(*ents)[i].name = names[i];
		/* st_ino -1: the entry could not be lstat'ed; mode 0 makes it refused */
		(*ents)[i].mode = sts->val[i].st_ino == -1 ? 0 : (uint32_t)sts->val[i].st_mode;
		(*ents)[i].size = sts->val[i].st_size;
	}
	*n = count;
	free(names);
	guestfs_free_statns_list(sts);
	return 0;
fail:
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	if (sts)
		guestfs_free_statns_list(sts);
	return -1;
}

/*
 * Into the descriptor extract_tree() opened (O_EXCL|O_NOFOLLOW), named
 * /dev/fd/N, as guestfs(3) shows; exactly @size bytes, the size lstat
 * reported and the limits allowed.
 */
static int gfs_copy(void *ctx, const char *path, int fd, int64_t size, struct strbuf *err)
{
	guestfs_h *g = ctx;
	char devfd[32];

	snprintf(devfd, sizeof(devfd), "/dev/fd/%d", fd);
	if (guestfs_download_offset(g, path, devfd, 0, size) < 0) {
		gfs_error(g, "download failed", err);
		return -1;
	}
	return 0;
}

/*
 * One run's GUEST_RESULTS_DIR into DEST/results, replaced as a whole, and
 * DEST/extract.json saying what was copied and what was refused and why.
 */
static int extract_one(guestfs_h *g, const char *disk, const char *dest_dir, struct strbuf *err)
{
	const struct extract_source src = {
		.ctx = g, .lstat = gfs_lstat, .list = gfs_list, .copy = gfs_copy,
	};
	struct extract_limits lim;
	struct extract_report rep = { 0 };
	struct strbuf why = STRBUF_INIT;
	char *tmp = xasprintf("%s/results.tmp-%ld", dest_dir, (long)getpid());
	char *final = path_join(dest_dir, "results");
	char *record = path_join(dest_dir, "extract.json");
	char *text = NULL;
	json_t *j = NULL;
	int r = -1;

	extract_default_limits(&lim);
	if (mkdir_p(dest_dir, 0755)) {
		sb_addf(err, "%s: cannot create %s: %s\n", disk, dest_dir, strerror(errno));
		goto out;
	}
	unlink(record);
	rm_rf(tmp);
	if (extract_tree(&src, GUEST_RESULTS_DIR, tmp, &lim, &rep, &why)) {
		sb_addf(err, "%s: %s\n", disk, sb_str(&why));
		goto out;
	}
	j = extract_report_json(&rep, GUEST_RESULTS_DIR, &lim);
	text = json_dumps(j, JSON_INDENT(2));
	sb_reset(&why);
	sb_addf(&why, "%s\n", text ? text : "");
	if (!text || write_file_atomic(record, why.buf, why.len)) {
		sb_addf(err, "%s: cannot write %s: %s\n", disk, record, strerror(errno));
		goto out;
	}
	if (rm_rf(final) || rename(tmp, final)) {
		sb_addf(err, "%s: cannot move %s to %s: %s\n", disk, tmp, final, strerror(errno));
		goto out;
	}
	if (rep.refused)
		sb_addf(err, "%s: %ld entr%s of %s refused (only regular files and folders within the limits "
			"are extracted): see %s\n", disk, rep.refused, rep.refused == 1 ? "y" : "ies",
			GUEST_RESULTS_DIR, record);
	r = 0;
out:
	rm_rf(tmp);
	extract_report_release(&rep);
	json_decref(j);
	free(text);
	sb_release(&why);
	free(tmp);
	free(final);
	free(record);
	return r;
}

int guest_extract_results(const char *const *disks, const char *const *dest_dirs, size_t n,
			  struct strbuf *err)
{
	guestfs_h *g;
	char **devs = NULL;
	int done = 0;

	if (!n)
		return 0;
	if (appliance_kernel_check("/boot", geteuid(), getegid(), err))
		return -1;
	g = guestfs_create();
	if (!g) {
		sb_adds(err, "cannot create a libguestfs handle\n");
		return -1;
	}
	guestfs_set_error_handler(g, NULL, NULL);
	for (size_t i = 0; i < n; i++)
		if (guestfs_add_drive_opts(g, disks[i], GUESTFS_ADD_DRIVE_OPTS_FORMAT, "qcow2",
					   GUESTFS_ADD_DRIVE_OPTS_READONLY, 1, -1) < 0)
			goto fail;
	guest_appliance_launches++;
	if (guestfs_launch(g) < 0 || !(devs = guestfs_list_devices(g)))
		goto fail;
	for (size_t i = 0; i < n && devs[i]; i++) {
		if (guestfs_mount_ro(g, devs[i], "/") < 0) {
			sb_addf(err, "%s: cannot mount: %s\n", disks[i], guestfs_last_error(g));
			continue;
		}
		if (!extract_one(g, disks[i], dest_dirs[i], err))
			done++;
		guestfs_umount_all(g);
	}
	for (char **d = devs; *d; d++)
		free(*d);
	free(devs);
	guestfs_close(g);
	return done;
fail:
	sb_addf(err, "libguestfs: %s\n", guestfs_last_error(g) ? guestfs_last_error(g) : "unknown error");
	guestfs_close(g);
	return -1;
}
