// SPDX-License-Identifier: GPL-2.0
/*
 * kernel_build: `make -jJ` of a kernel tree inside a memory cgroup.
 *
 * Why: a patch to MGLRU aging or reclaim must not slow down a real
 * workload under memory pressure. The linux-mm thread on empty page-table
 * walks used "make -j4 in a 3G memory cgroup, 4 vCPU / 8GB 2-NUMA VM,
 * median of 3 runs": build time, pgpgin and pgmajfault.
 *
 * Method: the source tree (`src`, read-only, e.g. the lab's kernel source
 * shared over 9p) is built out of tree (O=) in a fresh directory under
 * `builddir` (tmpfs or the guest disk). First, not measured, `make
 * <config>` (default tinyconfig) creates the .config. Then a fresh cgroup
 * v2 memory cgroup gets memory.max = `memory_max`, and `make -jJ <target>`
 * runs in it, with `path` (the toolchain's bin directories, e.g. the
 * host's /usr/bin shared over 9p) prepended to PATH. Measured: wall time
 * (CLOCK_MONOTONIC), user and system CPU of make and everything it waited
 * for (wait4 rusage), and the /proc/vmstat deltas pgpgin, pgmajfault,
 * pswpin, pswpout, plus the cgroup's memory.events (high, max, oom,
 * oom_kill). make's output goes to a log file, never to stdout (stdout
 * carries only JSON lines); on failure its tail is in the error line.
 * The default target (scripts) is small so TCG guests finish in minutes;
 * on KVM hosts use target=bzImage with a real config.
 *
 * In a lab guest (busybox, no libc) the toolchain is the host's: with
 * `chroot` (set by `mglrulab run`: hostusr:/usr,hostalt:/etc/alternatives,
 * ksrc:/src) both make steps run chrooted in a tmpfs root built from 9p
 * shares of the host's /usr and the kernel tree (workloads/lib/sysroot.h);
 * `src` and `builddir` are then paths inside that root. Only the children
 * chroot, after entering the cgroup: this program stays outside, where
 * /sys/fs/cgroup, /proc/vmstat and debugfs are.
 */
#include "args.h"
#include "cgroup.h"
#include "fileio.h"
#include "jsonl.h"
#include "snap.h"
#include "sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static struct wl_cgroup cg;
static struct wl_sysroot sysroot;
/* outdir as this program sees it; inner: as make sees it (inside the chroot) */
static char outdir[800], inner[512], logpath[900];
static int keep, use_memcg;

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path) && errno != ENOENT ? -1 : 0;
}

static void cleanup(void)
{
	if (use_memcg)
		wl_cgroup_remove(&cg);
	if (!keep && outdir[0])
		nftw(outdir, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	if (!keep)
		wl_sysroot_remove(&sysroot);
}

/* Value of @key in /proc/vmstat text, or 0. */
static unsigned long long vmstat_get(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl) && p[kl] == ' ')
			return strtoull(p + kl + 1, NULL, 10);
	return 0;
}

/* Is @prog an executable in one of the PATH directories (under @root)? */
static int in_path(const char *root, const char *path, const char *prog)
{
	char *copy = strdup(path), *dir, *save = NULL;
	int found = 0;

	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char p[1024];

		snprintf(p, sizeof(p), "%s%s/%s", root, dir, prog);
		found = !access(p, X_OK);
	}
	free(copy);
	return found;
}

static _Noreturn void fail_with_log(const char *what, int status)
{
	size_t len;
	char *log = wl_read_file(logpath, 1 << 20, &len, NULL);
	const char *tail = log ? (len > 1500 ? log + len - 1500 : log) : "";

	wl_fail("%s failed (status %d); end of %s:\n%s", what, status, logpath, tail);
}

/*
 * Run make with @argv, output to the log, in the cgroup when @in_cg.
 * Returns the wait status; fills @ru.
 */
static int run_make(char *const argv[], int in_cg, struct rusage *ru)
{
	int st, fd;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		wl_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (in_cg && wl_cgroup_enter(&cg, 0))
			_exit(125);
		if (sysroot.dir[0] && (chroot(sysroot.dir) || chdir("/")))
			_exit(124);
		execvp("make", argv);
		_exit(127);
	}
	while (wait4(pid, &st, 0, ru) < 0) {
		if (errno != EINTR)
			wl_fail("wait4: %s", strerror(errno));
	}
	return st;
}

static struct wl_opt opts[] = {
	{ "src", "/mnt/src", "kernel source tree (read-only is fine: built with O=)", NULL },
	{ "builddir", "/tmp", "directory for the out-of-tree build (tmpfs or disk)", NULL },
	{ "path", "", "directories prepended to PATH (the toolchain), colon-separated", NULL },
	{ "jobs", "2", "make -jJ", NULL },
	{ "memory_max", "512M", "memory.max of the build's cgroup", NULL },
	{ "config", "tinyconfig", "config target run first, not measured (\"\" = none)", NULL },
	{ "target", "scripts", "make target measured (the full kernel: bzImage)", NULL },
	{ "artifact", "", "file (relative to the build dir) that must exist afterwards", NULL },
	{ "keep", "0", "1: keep the build directory", NULL },
	{ "memcg", "1", "0: no memory cgroup (debugging on hosts without cgroup v2)", NULL },
	{ "chroot", "", "build chrooted in a tmpfs root of 9p shares TAG:/DIR,... (mglrulab run sets it)", NULL },
	WL_SNAP_OPTS,
	{ NULL, NULL, NULL, NULL },
};

int main(int argc, char **argv)
{
	const char *src, *builddir, *path, *config, *target, *artifact, *memmax, *shares;
	char why[512], name[64], jarg[32], oarg[600], *newpath, mk[800];
	char *vm0 = NULL, *vm1 = NULL;
	struct wl_snap snap;
	struct rusage ru;
	long jobs;
	double t0, t1;
	int st, err;

	wl_args_parse(opts, argc, argv, "make -jJ of a kernel tree inside a memory cgroup");
	src = wl_arg(opts, "src");
	builddir = wl_arg(opts, "builddir");
	path = wl_arg(opts, "path");
	jobs = wl_arg_long(opts, "jobs", 1, 1024);
	memmax = wl_arg(opts, "memory_max");
	config = wl_arg(opts, "config");
	target = wl_arg(opts, "target");
	artifact = wl_arg(opts, "artifact");
	keep = (int)wl_arg_long(opts, "keep", 0, 1);
	use_memcg = (int)wl_arg_long(opts, "memcg", 0, 1);
	shares = wl_arg(opts, "chroot");
	wl_snap_init(&snap, opts);
	wl_args_info(opts, "kernel_build");

	if (!*target || strchr(target, '=') || target[0] == '-')
		wl_fail("--target=%s is not a make target", target);
	if (*config && (strchr(config, '=') || config[0] == '-'))
		wl_fail("--config=%s is not a make target", config);
	if (strspn(memmax, "0123456789KMGTkmgt") != strlen(memmax) && strcmp(memmax, "max"))
		wl_fail("--memory_max=%s: expected a size such as 3G or max", memmax);
	if (use_memcg && wl_cgroup_check(why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	if (*shares) {
		/* The shares are this run's toolchain and source: missing ones are preconditions. */
		if (wl_sysroot_make(&sysroot, builddir, shares, why, sizeof(why))) {
			size_t sl = strlen(sysroot.failed);

			if (sl && !strncmp(src, sysroot.failed, sl) && (!src[sl] || src[sl] == '/'))
				wl_precond("source", "%s", why);
			if (sysroot.failed[0])
				wl_precond("toolchain", "%s", why);
			wl_fail("cannot make the build root: %s", why);
		}
		atexit(cleanup);
		builddir = "/tmp";
	}
	snprintf(mk, sizeof(mk), "%s%s/Makefile", sysroot.dir, src);
	if (access(mk, R_OK))
		wl_precond("source", "no kernel source at %s%s%s (%s)", src,
			   sysroot.dir[0] ? " in the chroot " : "", sysroot.dir, strerror(errno));

	/* The toolchain comes first in PATH: make and cc are found there. */
	{
		const char *old = getenv("PATH");
		size_t n = strlen(path) + (old ? strlen(old) : 0) + 32;

		newpath = malloc(n);
		if (!newpath)
			wl_fail("out of memory");
		snprintf(newpath, n, "%s%s%s", path, *path ? ":" : "",
			 old ? old : "/usr/bin:/bin");
		setenv("PATH", newpath, 1);
	}
	if (!in_path(sysroot.dir, newpath, "make") || !in_path(sysroot.dir, newpath, "gcc"))
		wl_precond("toolchain", "make and gcc must be in PATH=%s%s%s", newpath,
			   sysroot.dir[0] ? " in the chroot " : "", sysroot.dir);

	snprintf(inner, sizeof(inner), "%s/mglrulab-kbuild-%d", builddir, (int)getpid());
	snprintf(outdir, sizeof(outdir), "%s%s", sysroot.dir, inner);
	snprintf(logpath, sizeof(logpath), "%s.log", outdir);
	if (mkdir(outdir, 0755))
		wl_fail("mkdir %s: %s", outdir, strerror(errno));
	if (!*shares)
		atexit(cleanup);
	snprintf(oarg, sizeof(oarg), "O=%s", inner);
	snprintf(jarg, sizeof(jarg), "-j%ld", jobs);

	if (*config) {
		char *cargv[] = { "make", "-C", (char *)src, oarg, (char *)config, NULL };

		st = run_make(cargv, 0, &ru);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_with_log("make config", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}

	if (use_memcg) {
		snprintf(name, sizeof(name), "mglrulab-kbuild-%d", (int)getpid());
		if (wl_cgroup_create(&cg, name, why, sizeof(why)))
			wl_precond("cgroup_v2", "%s", why);
		if ((err = wl_cgroup_set(&cg, "memory.max", memmax)))
			wl_fail("memory.max=%s: %s", memmax, strerror(-err));
	}

	vm0 = wl_read_file("/proc/vmstat", 1 << 20, NULL, NULL);
	wl_snap_before(&snap, "");
	t0 = wl_now();
	{
		char *bargv[] = { "make", "-C", (char *)src, oarg, jarg, (char *)target, NULL };

		st = run_make(bargv, use_memcg, &ru);
	}
	t1 = wl_now();
	wl_snap_after(&snap);
	vm1 = wl_read_file("/proc/vmstat", 1 << 20, NULL, NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_with_log("make", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (*artifact) {
		char ap[1200];

		snprintf(ap, sizeof(ap), "%s/%s", outdir, artifact);
		if (access(ap, F_OK))
			wl_fail("make succeeded but %s was not produced", artifact);
	}

	jl_metric("elapsed_s", t1 - t0, "s");
	jl_metric("user_s", (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6, "s");
	jl_metric("sys_s", (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, "s");
	if (vm0 && vm1) {
		static const char *const keys[] = { "pgpgin", "pgmajfault", "pswpin", "pswpout" };
		/* pgpgin counts KiB (despite its name); pswp* count pages. */
		static const char *const units[] = { "KiB", "faults", "pages", "pages" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			unsigned long long a = vmstat_get(vm0, keys[i]), b = vmstat_get(vm1, keys[i]);

			jl_metric(keys[i], b >= a ? (double)(b - a) : 0, units[i]);
		}
	}
	if (use_memcg) {
		static const char *const ev[] = { "high", "max", "oom", "oom_kill" };

		for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
			long long v = wl_cgroup_key(&cg, "memory.events", ev[i]);

			snprintf(name, sizeof(name), "memcg_%s_events", ev[i]);
			if (v >= 0)
				jl_metric(name, (double)v, "events");
		}
	}
	{
		struct jl j;

		jl_begin(&j, "info");
		jl_str(&j, "name", "build");
		jl_str(&j, "target", target);
		jl_str(&j, "outdir", outdir);
		jl_bool(&j, "target_built", 1);
		jl_str(&j, "log", logpath);
		jl_end(&j);
	}
	free(vm0);
	free(vm1);
	free(newpath);
	return WL_EXIT_OK;
}
