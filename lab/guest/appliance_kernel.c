// SPDX-License-Identifier: GPL-2.0
/* appliance_kernel.h: may this user's libguestfs read a host kernel? */
#include "appliance_kernel.h"

#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Would @uid/@gid be let read @st by its mode bits (supplementary groups too when @uid is us)? */
static int readable_by(const struct stat *st, uid_t uid, gid_t gid)
{
	if (!uid)
		return 1;
	if (st->st_uid == uid)
		return !!(st->st_mode & S_IRUSR);
	if (st->st_gid == gid)
		return !!(st->st_mode & S_IRGRP);
	if (uid == geteuid()) {
		gid_t groups[256];
		int n = getgroups(256, groups);

		for (int i = 0; i < n; i++)
			if (groups[i] == st->st_gid)
				return !!(st->st_mode & S_IRGRP);
	}
	return !!(st->st_mode & S_IROTH);
}

int appliance_kernel_check(const char *boot_dir, uid_t uid, gid_t gid, struct strbuf *err)
{
	const char *env = getenv("SUPERMIN_KERNEL");
	char *first = NULL;
	struct dirent *de;
	struct stat st;
	DIR *d;
	int ok = 0, seen = 0;

	if (env && *env) {
		int missing = stat(env, &st);

		if (!missing && readable_by(&st, uid, gid))
			return 0;
		sb_addf(err, "SUPERMIN_KERNEL=%s: not a kernel this user may read (%s): "
			"libguestfs boots its appliance with it", env,
			missing ? strerror(errno) : "its mode forbids it");
		return -1;
	}
	d = opendir(boot_dir);
	if (!d)
		return 0;	/* no /boot at all: libguestfs says what it misses */
	while (!ok && (de = readdir(d))) {
		char path[4096];

		if (strncmp(de->d_name, "vmlinuz-", 8))
			continue;
		snprintf(path, sizeof(path), "%s/%s", boot_dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		seen = 1;
		ok = readable_by(&st, uid, gid);
		if (!ok && !first)
			first = strdup(path);
	}
	closedir(d);
	if (ok || !seen) {
		free(first);
		return 0;
	}
	sb_addf(err, "libguestfs boots its appliance with the host's kernel, and this user may "
		"not read %s (mode 0600, root's, as Debian and Ubuntu install it): as root, once, "
		"`dpkg-statoverride --update --add root root 0644 %s` (scripts/install-deps does it "
		"for the kernels it finds), or point SUPERMIN_KERNEL (and SUPERMIN_MODULES) at a "
		"readable copy", first ? first : boot_dir, first ? first : boot_dir);
	free(first);
	return -1;
}
