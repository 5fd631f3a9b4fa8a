// SPDX-License-Identifier: GPL-2.0
#include "sysroot.h"
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * 9p options: cache=loose because the shares do not change during a run
 * and the guest's page cache then behaves like a local disk's (major
 * faults and refaults under memory.max are what the build measures).
 */
#define SYSROOT_9P_OPTS "trans=virtio,version=9p2000.L,cache=loose"

/* Mount share @tag read-only on <root><dir>. 0 or -errno. */
static int mount_share(const char *root, const char *tag, const char *dir)
{
	char mp[512];
	int err = wl_mkdir_under(root, dir, 0755);

	if (err)
		return err;
	snprintf(mp, sizeof(mp), "%s%s", root, dir);
	if (tag[0] == '/') {
		/* A host directory (debugging on a host): a read-only bind mount. */
		if (mount(tag, mp, NULL, MS_BIND | MS_REC, NULL) ||
		    mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
			return -errno;
		return 0;
	}
	return mount(tag, mp, "9p", MS_RDONLY | MS_NOSUID | MS_NODEV, SYSROOT_9P_OPTS) ? -errno : 0;
}

static int mount_in(const char *root, const char *dir, const char *type, unsigned long fl,
		    const char *opts)
{
	char mp[512];
	int err = wl_mkdir_under(root, dir, 0755);

	if (err)
		return err;
	snprintf(mp, sizeof(mp), "%s%s", root, dir);
	return mount(type, mp, type, fl, opts) ? -errno : 0;
}

int wl_sysroot_make(struct wl_sysroot *r, const char *parent, const char *spec,
		    char *why, size_t whylen)
{
	static const char *const links[] = { "bin", "sbin", "lib", "lib64" };
	char *copy = NULL, *item, *save = NULL, p[512];
	int err;

	r->failed[0] = '\0';
	snprintf(r->dir, sizeof(r->dir), "%s/mglrulab-root-%d", parent, (int)getpid());
	if (mkdir(r->dir, 0755)) {
		snprintf(why, whylen, "mkdir %s: %s", r->dir, strerror(errno));
		r->dir[0] = '\0';
		return -1;
	}
	/* Its own tmpfs: one lazy unmount takes the root and its mounts away. */
	if (mount("tmpfs", r->dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")) {
		snprintf(why, whylen, "mount tmpfs on %s: %s", r->dir, strerror(errno));
		rmdir(r->dir);
		r->dir[0] = '\0';
		return -1;
	}
	copy = strdup(spec);
	if (!copy) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(item, ':');

		if (!colon || colon == item || colon[1] != '/' || !colon[2] || strstr(colon, "..")) {
			snprintf(why, whylen, "'%s': expected TAG:/DIR", item);
			goto fail;
		}
		*colon = '\0';
		err = mount_share(r->dir, item, colon + 1);
		if (err) {
			snprintf(r->failed, sizeof(r->failed), "%s", colon + 1);
			snprintf(why, whylen, "cannot mount %s share '%s' on %s: %s%s",
				 item[0] == '/' ? "bind" : "9p", item, colon + 1, strerror(-err),
				 err == -ENOENT && item[0] != '/' ?
				 " (the guest has no such share: mglrulab run adds it)" : "");
			goto fail;
		}
	}
	/* Debian's merged /usr: the loader is /lib64/ld-linux-x86-64.so.2. */
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		char target[16];

		snprintf(p, sizeof(p), "%s/%s", r->dir, links[i]);
		snprintf(target, sizeof(target), "usr/%s", links[i]);
		if (symlink(target, p) && errno != EEXIST) {
			snprintf(why, whylen, "symlink %s: %s", p, strerror(errno));
			goto fail;
		}
	}
	if ((err = mount_in(r->dir, "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) ||
	    (err = mount_in(r->dir, "/dev", "devtmpfs", MS_NOSUID | MS_NOEXEC, NULL)) ||
	    (err = wl_mkdir_under(r->dir, "/tmp", 01777))) {
		snprintf(why, whylen, "proc, dev or tmp in %s: %s", r->dir, strerror(-err));
		goto fail;
	}
	snprintf(p, sizeof(p), "%s/tmp", r->dir);
	chmod(p, 01777);
	free(copy);
	return 0;
fail:
	free(copy);
	wl_sysroot_remove(r);
	return -1;
}

void wl_sysroot_remove(struct wl_sysroot *r)
{
	if (!r->dir[0])
		return;
	/* MNT_DETACH takes the mounts inside along, even while files are open. */
	umount2(r->dir, MNT_DETACH);
	rmdir(r->dir);
	r->dir[0] = '\0';
}
