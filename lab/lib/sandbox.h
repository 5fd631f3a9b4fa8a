/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: no shared state (the policy is read, never written).
 *
 * The sandbox for code the lab did not write and must still run: a patch
 * series' Makefile lines, Kconfig and Kbuild files, scripts/, git hooks
 * and configuration in a series' work tree, an #include of any path. A
 * series posted to a public list is the attacker's code; building it is
 * running it. Every command that touches a series' tree goes through
 * sandbox_run() (docs/security.md, "Building a series"):
 *
 * - an unprivileged uid: the policy's build user when the lab runs as
 *   root (never root itself), else the lab's own uid;
 * - bubblewrap: new user, pid, network (only lo), ipc, uts and cgroup
 *   namespaces, no nested user namespaces, a new session (no terminal to
 *   inject into), killed with the lab;
 * - a file system of /usr, /proc, /dev, an empty /tmp, the few files of
 *   /etc the toolchain reads (the dynamic loader's cache, alternatives),
 *   and the binds the caller names: read-write only the series' own
 *   folders. No /root, /home, lab state, keys, /etc/shadow;
 * - no new privileges, no capabilities outside its namespaces;
 * - limits: wall time of the whole command (policy->wall_s, then SIGKILL),
 *   address space and CPU time per process, processes of the build user,
 *   file size, no core files;
 * - a clean environment: PATH, HOME=/tmp, TMPDIR, LC_ALL=C and what the
 *   caller passes in c->env, nothing of the lab's.
 *
 * Why bubblewrap rather than systemd-run or unshare + setpriv: it needs no
 * running systemd (there is none on CI machines), sets up every namespace
 * and the bind list in one unprivileged step with --die-with-parent, and
 * is what Flatpak's builds rely on. The uid change comes first, in our own
 * fork (run_command.h's child_creds), so bubblewrap itself never runs as
 * root and a file the build user cannot read stays unreadable even if a
 * bind exposed it.
 */
#ifndef LAB_SANDBOX_H
#define LAB_SANDBOX_H

#include "util.h"
#include "strbuf.h"
#include "run_command.h"

#include <stddef.h>
#include <sys/types.h>

/* lab.conf's [lab] build_user, build_timeout, build_memory (config.h). */
struct sandbox_policy {
	char *user;		/* the uid untrusted code runs as when the lab is root */
	double wall_s;		/* one sandboxed command at most this long (0: default) */
	long memory_mib;	/* address space of each of its processes (0: default) */
};

#define SANDBOX_DEFAULT_USER	"mglrulab-build"
#define SANDBOX_DEFAULT_WALL_S	(2 * 3600.0)
#define SANDBOX_DEFAULT_MEMORY_MIB 4096L
/* Processes of the build user at once (when the lab switches to it). */
#define SANDBOX_NPROC		1024
/* One file a build writes; a vmlinux with debug info is far below it. */
#define SANDBOX_FSIZE_BYTES	(8ULL << 30)
/* After the wall limit's SIGTERM, how long before SIGKILL. */
#define SANDBOX_KILL_AFTER_S	10

/* A folder or file the command sees, at the same path as on the host, or at @dest. */
struct sandbox_bind {
	const char *path;
	int writable;
	const char *dest;	/* where the sandbox sees it; NULL: at @path */
};

struct sandbox_cmd {
	const struct sandbox_policy *policy;
	/* In order: a later bind inside an earlier one overrides it (a tree rw, its .git ro). */
	const struct sandbox_bind *binds;
	size_t nr_binds;
	/* out: the wall limit stopped it; how long it ran */
	int timed_out;
	double seconds;
};

/*
 * Run @c in the sandbox @sc describes: c->argv inside it, c->dir its
 * working folder there (it must be under a bind), c->env its whole
 * environment beyond the sandbox's own; c's output routing, groups and
 * stop handling as run_command() has them. A root lab stages each bind in
 * the child's own mount namespace first, so the build user needs no way
 * through the folders above it. Returns run_command()'s
 * status, or -1 with the reason in @err (no build user, a bind that cannot
 * be opened); sc->timed_out says whether the wall limit ended it.
 */
LAB_MUST_CHECK
int sandbox_run(struct sandbox_cmd *sc, struct child *c, struct strbuf *err);

/*
 * Make @dir and everything in it the build user's, when the lab runs as
 * root and @dir's top is not (a cache made before the sandbox, a folder
 * the lab just created). Never follows a symbolic link. 1 when it did, 0
 * when there was nothing to do, -1 with the reason in @err.
 */
LAB_MUST_CHECK
int sandbox_adopt(const struct sandbox_policy *p, const char *dir, struct strbuf *err);

/* lchown() one path the lab wrote into a sandbox's folder to the build user (root only). */
LAB_MUST_CHECK
int sandbox_give(const struct sandbox_policy *p, const char *path);

/*
 * Whether the sandbox works here: bubblewrap installed, the build user
 * known, and a command really runs in it with no network. 0, or -1 with
 * what is missing and how to fix it in @err (for doctor and the tests).
 */
LAB_MUST_CHECK
int sandbox_probe(const struct sandbox_policy *p, struct strbuf *err);

/* The policy's wall limit with its default applied. */
double sandbox_wall_s(const struct sandbox_policy *p);

#endif
