/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fresh cgroup v2 memory cgroup for one workload run: found through
 * /proc/self/mountinfo (the guest may mount cgroup2 anywhere), created
 * under the hierarchy root so the "no internal processes" rule never
 * bites, removed again at the end.
 */
#ifndef WL_CGROUP_H
#define WL_CGROUP_H

#include <stdint.h>
#include <sys/types.h>

struct wl_cgroup {
	char mount[256];	/* cgroup2 mount point */
	char path[512];		/* absolute directory of our cgroup */
	char rel[256];		/* path relative to the root, as lru_gen prints it */
};

/*
 * Check that cgroup v2 with the memory controller is usable; on failure
 * write why into @why and return -1.
 */
int wl_cgroup_check(char *why, size_t whylen);
/* Create <mount>/@name, enable memory in the root's subtree_control. 0 or -errno. */
int wl_cgroup_create(struct wl_cgroup *cg, const char *name, char *why, size_t whylen);
/* Write @value ("max", "3G", ...) to memory.max. 0 or -errno. */
int wl_cgroup_set(const struct wl_cgroup *cg, const char *file, const char *value);
/* Move @pid (0 = the caller) into the cgroup. 0 or -errno. */
int wl_cgroup_enter(const struct wl_cgroup *cg, pid_t pid);
/* Move @pid back to the root cgroup. */
int wl_cgroup_leave(const struct wl_cgroup *cg, pid_t pid);
/* Read "key value" from a flat-keyed file such as memory.events; -1 if absent. */
long long wl_cgroup_key(const struct wl_cgroup *cg, const char *file, const char *key);
/* Remove the (empty) cgroup, retrying briefly while exiting tasks drain. */
int wl_cgroup_remove(struct wl_cgroup *cg);

#endif
