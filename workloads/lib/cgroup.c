// SPDX-License-Identifier: GPL-2.0
#include "cgroup.h"
#include "fileio.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Find the first cgroup2 mount in mountinfo; 0 or -1. */
static int find_cgroup2(char *mnt, size_t len)
{
	char *s = wl_read_file("/proc/self/mountinfo", 1 << 20, NULL, NULL), *line, *save = NULL;
	int found = -1;

	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* id parent maj:min root mountpoint opts ... - fstype source superopts */
		char *sep = strstr(line, " - "), mp[256];

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %255s", mp) != 1)
			continue;
		/* Octal escapes (\040) in mount points are not worth supporting. */
		if (strchr(mp, '\\'))
			continue;
		snprintf(mnt, len, "%s", mp);
		found = 0;
		break;
	}
	free(s);
	return found;
}

static int has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += wl)
		if ((p == list || p[-1] == ' ') && (p[wl] == ' ' || p[wl] == '\n' || !p[wl]))
			return 1;
	return 0;
}

int wl_cgroup_check(char *why, size_t whylen)
{
	char mnt[256], path[320], *ctl;
	int ok;

	if (find_cgroup2(mnt, sizeof(mnt))) {
		snprintf(why, whylen, "cgroup v2 is not mounted");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
	ctl = wl_read_file(path, 4096, NULL, NULL);
	ok = ctl && has_word(ctl, "memory");
	free(ctl);
	if (!ok) {
		snprintf(why, whylen,
			 "cgroup v2 at %s has no memory controller (it is bound to cgroup v1)", mnt);
		return -1;
	}
	if (access(mnt, W_OK)) {
		snprintf(why, whylen, "cgroup v2 at %s is not writable", mnt);
		return -1;
	}
	return 0;
}

int wl_cgroup_create(struct wl_cgroup *cg, const char *name, char *why, size_t whylen)
{
	char path[320], *ctl;
	int err;

	if (wl_cgroup_check(why, whylen))
		return -ENOENT;
	find_cgroup2(cg->mount, sizeof(cg->mount));
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", cg->mount);
	ctl = wl_read_file(path, 4096, NULL, NULL);
	if (!ctl || !has_word(ctl, "memory")) {
		err = wl_write_file(path, "+memory");
		if (err) {
			free(ctl);
			snprintf(why, whylen, "cannot enable memory in %s: %s", path, strerror(-err));
			return err;
		}
	}
	free(ctl);
	snprintf(cg->rel, sizeof(cg->rel), "/%s", name);
	snprintf(cg->path, sizeof(cg->path), "%s/%s", cg->mount, name);
	if (mkdir(cg->path, 0755) < 0 && errno != EEXIST) {
		err = -errno;
		snprintf(why, whylen, "mkdir %s: %s", cg->path, strerror(errno));
		return err;
	}
	return 0;
}

int wl_cgroup_set(const struct wl_cgroup *cg, const char *file, const char *value)
{
	char path[640];

	snprintf(path, sizeof(path), "%s/%s", cg->path, file);
	return wl_write_file(path, value);
}

static int move_pid(const char *dir, pid_t pid)
{
	char path[640], buf[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(buf, sizeof(buf), "%d", pid ? (int)pid : (int)getpid());
	return wl_write_file(path, buf);
}

int wl_cgroup_enter(const struct wl_cgroup *cg, pid_t pid)
{
	return move_pid(cg->path, pid);
}

int wl_cgroup_leave(const struct wl_cgroup *cg, pid_t pid)
{
	return move_pid(cg->mount, pid);
}

long long wl_cgroup_key(const struct wl_cgroup *cg, const char *file, const char *key)
{
	char path[640], *s, *line, *save = NULL;
	size_t kl = strlen(key);
	long long v = -1;

	snprintf(path, sizeof(path), "%s/%s", cg->path, file);
	s = wl_read_file(path, 65536, NULL, NULL);
	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	free(s);
	return v;
}

int wl_cgroup_remove(struct wl_cgroup *cg)
{
	if (!cg->path[0])
		return 0;
	for (int i = 0; i < 100; i++) {
		if (!rmdir(cg->path) || errno == ENOENT) {
			cg->path[0] = '\0';
			return 0;
		}
		if (errno != EBUSY)
			break;
		wl_sleep(0.02);
	}
	return -errno;
}
