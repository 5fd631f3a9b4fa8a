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
 * `prepared` skips the config step: it names a build folder already
 * configured and through `make prepare` (mglrulab run makes one natively
 * on the host from the baseline kernel's .config and shares it). It is
 * copied, timestamps kept, into the fresh build folder before the measured
 * make, which then compiles only `target` (several targets may be given,
 * separated by spaces, e.g. "mm/vmscan.o mm/workingset.o"). Why: under
 * TCG every compiler start costs about half a second, and Kconfig plus
 * prepare start it hundreds of times; a prepared folder makes a build of a
 * few real kernel objects fit in a minute. The source tree must be at the
 * same path as when the folder was prepared (kbuild records it).
 *
 * In a lab guest (busybox, no libc) the toolchain is the host's: with
 * `chroot` (set by `mglrulab run`: usrbin:/usr/bin,usrlib:/usr/lib,...,
 * hostalt:/etc/alternatives,ksrc:/src) both make steps run chrooted in a
 * tmpfs root built from 9p shares of the host's toolchain folders under
 * /usr and the kernel tree (workloads/lib/sysroot.h);
 * `src` and `builddir` are then paths inside that root. Only the children
 * chroot, after entering the cgroup: this program stays outside, where
 * /sys/fs/cgroup, /proc/vmstat and debugfs are.
 */
#include "args.h"
#include "cgroup.h"
#include "copytree.h"
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
static int run_make_in(char *const argv[], int in_cg, struct rusage *ru, const char *cwd,
		       char *const envp[])
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
		if (cwd && chdir(cwd))
			_exit(123);
		if (envp)
			execvpe("make", argv, envp);
		else
			execvp("make", argv);
		_exit(127);
	}
	while (wait4(pid, &st, 0, ru) < 0) {
		if (errno != EINTR)
			wl_fail("wait4: %s", strerror(errno));
	}
	return st;
}

static int run_make(char *const argv[], int in_cg, struct rusage *ru)
{
	return run_make_in(argv, in_cg, ru, NULL, NULL);
}

#define MAX_TARGETS 16	/* --target's max in common/workload_params.c */

/*
 * A prepared folder says where it was made: "srctree PATH" and "objtree
 * PATH" lines in .mglrulab-prepared (written by mglrulab run). Its source
 * must be @src: kbuild recorded that path in every dependency, and any
 * other would rebuild everything. @objtree gets its path ("" if unknown).
 */
static void read_prepared(const char *dir, const char *src, char *objtree, size_t len)
{
	char path[900], *text, *line, *save = NULL;

	objtree[0] = '\0';
	snprintf(path, sizeof(path), "%s/.config", dir);
	if (access(path, R_OK))
		wl_precond("prepared", "no prepared build folder (with a .config) at %s: %s", dir,
			   strerror(errno));
	snprintf(path, sizeof(path), "%s/.mglrulab-prepared", dir);
	text = wl_read_file(path, 4096, NULL, NULL);
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "srctree ", 8) && strcmp(line + 8, src))
			wl_fail("the prepared folder %s was made for the source at %s, not --src=%s",
				dir, line + 8, src);
		if (!strncmp(line, "objtree /", 9) && !strstr(line, "..") && strlen(line + 8) < len)
			snprintf(objtree, len, "%s", line + 8);
	}
	free(text);
}

/*
 * Split @s at spaces into @out (NULL-terminated, pointing into a copy).
 * Every word must look like a make target, not a variable or an option.
 * The number of targets, or -1.
 */
static int split_targets(const char *s, char **out, int max)
{
	static char copy[1024];
	char *save = NULL, *t;
	int n = 0;

	if (strlen(s) >= sizeof(copy))
		return -1;
	strcpy(copy, s);
	for (t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == max || strchr(t, '=') || t[0] == '-')
			return -1;
		out[n++] = t;
	}
	out[n] = NULL;
	return n ? n : -1;
}

/*
 * kbuild's quiet output has one line per step, "  CC      mm/swap.o":
 * count those of the measured make (the log from @from on). A prepared
 * folder that is really up to date leaves only the targets' steps.
 */
static void count_steps(long from, long *steps, long *compiled)
{
	size_t len;
	char *log = wl_read_file(logpath, 64 << 20, &len, NULL);

	*steps = *compiled = 0;
	if (!log || from < 0 || (size_t)from > len) {
		free(log);
		return;
	}
	for (const char *p = log + from; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t w = 0;

		if (p[0] != ' ' || p[1] != ' ')
			continue;
		while ((p[2 + w] >= 'A' && p[2 + w] <= 'Z') || (p[2 + w] >= '0' && p[2 + w] <= '9') ||
		       p[2 + w] == '_')
			w++;
		if (!w || p[2 + w] != ' ')
			continue;
		(*steps)++;
		*compiled += w == 2 && !strncmp(p + 2, "CC", 2);
	}
	free(log);
}

/*
 * Is @t an object (DIR/NAME.o, .i or .s) or a directory (DIR/) that kbuild
 * builds per directory? Its directory goes to @dir.
 */
static int dir_target(const char *t, char *dir, size_t len)
{
	size_t n = strlen(t);
	const char *slash = strrchr(t, '/');

	if (!n || t[0] == '/' || t[0] == '.' || strstr(t, "..") || !slash || slash == t ||
	    strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./+-") != n)
		return 0;
	if (t[n - 1] != '/' && !(n > 2 && t[n - 2] == '.' && strchr("ois", t[n - 1])))
		return 0;
	if ((size_t)(slash - t) >= len)
		return 0;
	snprintf(dir, len, "%.*s", (int)(slash - t), t);
	return 1;
}

/* The recorded environment (NUL-separated K=V), with PATH set to @path; NULL if none. */
static char **load_make_env(const char *file, const char *path)
{
	size_t len, n = 0;
	char *text = wl_read_file(file, 1 << 22, &len, NULL), **env;

	if (!text)
		return NULL;
	for (size_t i = 0; i < len; i++)
		n += !text[i];
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		wl_fail("out of memory");
	n = 0;
	for (char *p = text; p < text + len; p += strlen(p) + 1)
		if (strchr(p, '=') && strncmp(p, "PATH=", 5))
			env[n++] = p;
	if (asprintf(&env[n++], "PATH=%s", path) < 0)
		wl_fail("out of memory");
	return env;
}

static void add_rusage(struct rusage *sum, const struct rusage *ru)
{
	sum->ru_utime.tv_sec += ru->ru_utime.tv_sec;
	sum->ru_utime.tv_usec += ru->ru_utime.tv_usec;
	sum->ru_stime.tv_sec += ru->ru_stime.tv_sec;
	sum->ru_stime.tv_usec += ru->ru_stime.tv_usec;
	sum->ru_utime.tv_sec += sum->ru_utime.tv_usec / 1000000;
	sum->ru_utime.tv_usec %= 1000000;
	sum->ru_stime.tv_sec += sum->ru_stime.tv_usec / 1000000;
	sum->ru_stime.tv_usec %= 1000000;
}

/*
 * kbuild's per-directory build as the top-level Makefile runs it, "make -f
 * $(srctree)/scripts/Makefile.build obj=DIR need-builtin=1 ... GOALS", in
 * the build folder @objtree with the environment that Makefile exports
 * (@envp). One make per directory, in the order the targets name them; a
 * directory target builds the whole directory. Returns the wait status of
 * the first make that fails, else of the last; @sum gets their rusage.
 */
static int build_per_directory(char **targets, char **envp, const char *srctree,
			       const char *objtree, const char *jarg, int in_cg, struct rusage *sum)
{
	char mkfile[600], dirs[MAX_TARGETS][256], obj[MAX_TARGETS][300];
	int ndirs = 0, whole[MAX_TARGETS] = { 0 }, st = 0;

	snprintf(mkfile, sizeof(mkfile), "%s/scripts/Makefile.build", srctree);
	for (int i = 0; targets[i]; i++) {
		char d[256];
		int k;

		dir_target(targets[i], d, sizeof(d));
		for (k = 0; k < ndirs && strcmp(dirs[k], d); k++)
			;
		if (k == ndirs)
			snprintf(dirs[ndirs++], sizeof(dirs[0]), "%s", d);
		whole[k] |= targets[i][strlen(targets[i]) - 1] == '/';
	}
	memset(sum, 0, sizeof(*sum));
	for (int k = 0; k < ndirs; k++) {
		char *argv[8 + MAX_TARGETS + 1] = { "make", (char *)jarg, "-f", mkfile, obj[k],
						    "need-builtin=1", "need-modorder=1" };
		struct rusage ru;
		int n = 7;

		/* dirs[k]'s own bound, said: inlined, GCC loses it (-Wformat-truncation). */
		snprintf(obj[k], sizeof(obj[k]), "obj=%.*s", (int)sizeof(dirs[k]) - 1, dirs[k]);
		for (int i = 0; targets[i] && !whole[k]; i++) {
			char d[256];

			dir_target(targets[i], d, sizeof(d));
			if (!strcmp(d, dirs[k]))
				argv[n++] = targets[i];
		}
		argv[n] = NULL;
		st = run_make_in(argv, in_cg, &ru, objtree, envp);
		add_rusage(sum, &ru);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			break;
	}
	return st;
}

static struct wl_args args;

/* The run's options, and the paths and make arguments made from them. */
struct kbuild {
	const char *src, *builddir, *path, *config, *target, *artifact, *memmax, *shares;
	const char *prepared;
	long jobs;
	char *targets[MAX_TARGETS + 1];
	char *newpath;			/* PATH with the toolchain first */
	char **make_env;		/* the prepared folder's environment: per-directory build */
	char from[800];			/* the prepared folder, seen from here */
	char jarg[32], oarg[600];	/* -jN, O=DIR */
};

/* The options make sense, and a memory cgroup can be made when asked for. */
static void check_options(struct kbuild *k)
{
	char why[512];

	/*
	 * --target, --config and --memory_max: wl_args_parse() checked them
	 * with the host's check (PARAM_TARGETS, PARAM_SIZE), so lab.conf's
	 * `config check` refuses what would fail here.
	 */
	if (split_targets(k->target, k->targets, MAX_TARGETS) < 0)
		wl_fail("internal: --target=%s passed its check but does not split", k->target);
	if (use_memcg && wl_cgroup_check(why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
}

/* --chroot: the build root of the shares, the build folder in its /tmp; then the source. */
static void make_build_root(struct kbuild *k)
{
	char why[512], mk[900];

	if (*k->shares) {
		/* The shares are this run's toolchain and source: missing ones are preconditions. */
		if (wl_sysroot_make(&sysroot, k->builddir, k->shares, why, sizeof(why))) {
			size_t sl = strlen(sysroot.failed);

			if (sl && !strncmp(k->src, sysroot.failed, sl) &&
			    (!k->src[sl] || k->src[sl] == '/'))
				wl_precond("source", "%s", why);
			if (sysroot.failed[0])
				wl_precond("toolchain", "%s", why);
			wl_fail("cannot make the build root: %s", why);
		}
		atexit(cleanup);
		k->builddir = "/tmp";
	}
	snprintf(mk, sizeof(mk), "%s%s/Makefile", sysroot.dir, k->src);
	if (access(mk, R_OK))
		wl_precond("source", "no kernel source at %s%s%s (%s)", k->src,
			   sysroot.dir[0] ? " in the chroot " : "", sysroot.dir, strerror(errno));
}

/* The toolchain comes first in PATH: make and cc are found there. */
static void set_path(struct kbuild *k)
{
	const char *old = getenv("PATH");
	size_t n = strlen(k->path) + (old ? strlen(old) : 0) + 32;

	k->newpath = malloc(n);
	if (!k->newpath)
		wl_fail("out of memory");
	snprintf(k->newpath, n, "%s%s%s", k->path, *k->path ? ":" : "",
		 old ? old : "/usr/bin:/bin");
	setenv("PATH", k->newpath, 1);
	if (!in_path(sysroot.dir, k->newpath, "make") || !in_path(sysroot.dir, k->newpath, "gcc"))
		wl_precond("toolchain", "make and gcc must be in PATH=%s%s%s", k->newpath,
			   sysroot.dir[0] ? " in the chroot " : "", sysroot.dir);
}

/* The build folder (where it was prepared, in a chroot), its log, and make's -j and O=. */
static void place_outdir(struct kbuild *k)
{
	int err;

	snprintf(inner, sizeof(inner), "%s/mglrulab-kbuild-%d", k->builddir, (int)getpid());
	if (*k->prepared) {
		char objtree[512];

		snprintf(k->from, sizeof(k->from), "%s%s", sysroot.dir, k->prepared);
		read_prepared(k->from, k->src, objtree, sizeof(objtree));
		/*
		 * objtool's own Makefile records absolute output paths: in the
		 * chroot the build folder goes where it was prepared, so that
		 * nothing but the targets is rebuilt.
		 */
		if (sysroot.dir[0] && objtree[0])
			snprintf(inner, sizeof(inner), "%s", objtree);
	}
	snprintf(outdir, sizeof(outdir), "%s%s", sysroot.dir, inner);
	snprintf(logpath, sizeof(logpath), "%s.log", outdir);
	if ((err = wl_mkdir_under("", outdir, 0755)))
		wl_fail("mkdir %s: %s", outdir, strerror(-err));
	if (!*k->shares)
		atexit(cleanup);
	snprintf(k->oarg, sizeof(k->oarg), "O=%s", inner);
	snprintf(k->jarg, sizeof(k->jarg), "-j%ld", k->jobs);
}

/*
 * Not measured: the prepared folder copied in (its targets removed, so the
 * measured make really builds them), or the config step.
 */
static void configure(struct kbuild *k)
{
	char why[512], mk[900];
	struct rusage ru;
	int st;

	if (*k->prepared) {
		int per_dir = 1;

		/* Not measured, like the config step it replaces. */
		if (wl_copy_tree(k->from, outdir, why, sizeof(why)))
			wl_fail("cannot copy the prepared folder %s: %s", k->prepared, why);
		/*
		 * Objects and directories go straight to kbuild's per-directory
		 * build when the folder recorded its environment; anything else
		 * (bzImage, ...) needs the top-level Makefile.
		 */
		for (int i = 0; k->targets[i]; i++) {
			char d[256], obj[1200];

			per_dir &= dir_target(k->targets[i], d, sizeof(d));
			/* The measured make must really build them. */
			snprintf(obj, sizeof(obj), "%s/%s", outdir, k->targets[i]);
			if (k->targets[i][strlen(k->targets[i]) - 1] != '/')
				unlink(obj);
		}
		snprintf(mk, sizeof(mk), "%s/.mglrulab-make-env", outdir);
		if (per_dir)
			k->make_env = load_make_env(mk, k->newpath);
	} else if (*k->config) {
		char *cargv[] = { "make", "-C", (char *)k->src, k->oarg, (char *)k->config, NULL };

		st = run_make(cargv, 0, &ru);
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_with_log("make config", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
}

static void create_memcg(const struct kbuild *k)
{
	char why[512], name[64];
	int err;

	snprintf(name, sizeof(name), "mglrulab-kbuild-%d", (int)getpid());
	if (wl_cgroup_create(&cg, name, why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	if ((err = wl_cgroup_set(&cg, "memory.max", k->memmax)))
		wl_fail("memory.max=%s: %s", k->memmax, strerror(-err));
}

/* The measured make through the top-level Makefile. Its status. */
static int build_top_level(struct kbuild *k, struct rusage *ru)
{
	char *bargv[5 + MAX_TARGETS + 1] = { "make", "-C", (char *)k->src, k->oarg, k->jarg };
	int n = 5;

	for (int i = 0; k->targets[i]; i++)
		bargv[n++] = k->targets[i];
	bargv[n] = NULL;
	return run_make(bargv, use_memcg, ru);
}

/* What the build read and swapped, from /proc/vmstat before and after. */
static void report_vmstat(const char *vm0, const char *vm1)
{
	static const char *const keys[] = { "pgpgin", "pgmajfault", "pswpin", "pswpout" };
	/* pgpgin counts KiB (despite its name); pswp* count pages. */
	static const char *const units[] = { "KiB", "faults", "pages", "pages" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		int f0 = 0, f1 = 0;
		unsigned long long a = wl_vmstat_get(vm0, keys[i], &f0), b = wl_vmstat_get(vm1, keys[i], &f1);

		/*
		 * A kernel without CONFIG_VM_EVENT_COUNTERS has no such line:
		 * then the metric is absent, not a 0 that looks measured.
		 */
		if (f0 && f1)
			jl_metric(keys[i], b >= a ? (double)(b - a) : 0, units[i]);
	}
}

/* The memory cgroup's events: how often the build hit memory.max. */
static void report_memcg_events(void)
{
	static const char *const ev[] = { "high", "max", "oom", "oom_kill" };
	char name[64];

	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		long long v = wl_cgroup_key(&cg, "memory.events", ev[i]);

		snprintf(name, sizeof(name), "memcg_%s_events", ev[i]);
		if (v >= 0)
			jl_metric(name, (double)v, "events");
	}
}

/* The "build" info record: what was built and how many steps the log shows. */
static void info_build(const struct kbuild *k, long log_start)
{
	long steps, compiled;
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "build");
	jl_str(&j, "target", k->target);
	jl_str(&j, "outdir", outdir);
	jl_bool(&j, "target_built", 1);
	count_steps(log_start, &steps, &compiled);
	jl_int(&j, "steps", steps);
	jl_int(&j, "compiled", compiled);
	jl_str(&j, "log", logpath);
	jl_end(&j);
}

int main(int argc, char **argv)
{
	struct kbuild k = { 0 };
	char *vm0 = NULL, *vm1 = NULL;
	struct wl_snap snap;
	struct rusage ru;
	struct stat lst;
	long log_start;
	double t0, t1;
	int st;

	wl_args_parse(&args, "kernel_build", kernel_build_params, kernel_build_summary,
		      argc, argv);
	k.src = wl_arg(&args, "src");
	k.builddir = wl_arg(&args, "builddir");
	k.path = wl_arg(&args, "path");
	k.jobs = wl_arg_long(&args, "jobs");
	k.memmax = wl_arg(&args, "memory_max");
	k.config = wl_arg(&args, "config");
	k.target = wl_arg(&args, "target");
	k.prepared = wl_arg(&args, "prepared");
	k.artifact = wl_arg(&args, "artifact");
	keep = (int)wl_arg_long(&args, "keep");
	use_memcg = (int)wl_arg_long(&args, "memcg");
	k.shares = wl_arg(&args, "chroot");
	wl_snap_init(&snap, &args);
	wl_args_info(&args);

	check_options(&k);
	make_build_root(&k);
	set_path(&k);
	place_outdir(&k);
	configure(&k);
	if (use_memcg)
		create_memcg(&k);

	log_start = stat(logpath, &lst) ? 0 : (long)lst.st_size;
	vm0 = wl_read_file("/proc/vmstat", 1 << 20, NULL, NULL);
	wl_snap_before(&snap, "");
	t0 = wl_now();
	if (k.make_env)
		st = build_per_directory(k.targets, k.make_env, k.src, inner, k.jarg, use_memcg,
					 &ru);
	else
		st = build_top_level(&k, &ru);
	t1 = wl_now();
	wl_snap_after(&snap);
	vm1 = wl_read_file("/proc/vmstat", 1 << 20, NULL, NULL);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_with_log("make", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (*k.artifact) {
		char ap[1200];

		snprintf(ap, sizeof(ap), "%s/%s", outdir, k.artifact);
		if (access(ap, F_OK))
			wl_fail("make succeeded but %s was not produced", k.artifact);
	}

	jl_metric("elapsed_s", t1 - t0, "s");
	jl_metric("user_s", (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6, "s");
	jl_metric("sys_s", (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, "s");
	if (vm0 && vm1)
		report_vmstat(vm0, vm1);
	if (use_memcg)
		report_memcg_events();
	info_build(&k, log_start);
	free(vm0);
	free(vm1);
	free(k.newpath);
	return WL_EXIT_OK;
}
