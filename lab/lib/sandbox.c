// SPDX-License-Identifier: GPL-2.0
#include "sandbox.h"
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

double sandbox_wall_s(const struct sandbox_policy *p)
{
	return p && p->wall_s > 0 ? p->wall_s : SANDBOX_DEFAULT_WALL_S;
}

static const char *policy_user(const struct sandbox_policy *p)
{
	return p && p->user && *p->user ? p->user : SANDBOX_DEFAULT_USER;
}

/*
 * Who sandboxed code runs as: the build user when we are root (it must
 * exist, and must not be root), else ourselves. 0, or -1 with @err.
 */
static int identity(const struct sandbox_policy *p, uid_t *uid, gid_t *gid, struct strbuf *err)
{
	const char *name = policy_user(p);
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (geteuid() != 0) {
		*uid = getuid();
		*gid = getgid();
		return 0;
	}
	if (getpwnam_r(name, &pw, buf, sizeof(buf), &res) || !res) {
		sb_addf(err, "the sandbox's build user '%s' does not exist: run scripts/install-deps "
			"as root (it creates it), or name another unprivileged user in [lab] build_user",
			name);
		return -1;
	}
	if (!pw.pw_uid || !pw.pw_gid) {
		sb_addf(err, "[lab] build_user = %s is uid %ld, gid %ld: untrusted code never runs "
			"as root; name an unprivileged user", name, (long)pw.pw_uid, (long)pw.pw_gid);
		return -1;
	}
	*uid = pw.pw_uid;
	*gid = pw.pw_gid;
	return 0;
}

/* The parts of the host every command sees, read-only. */
static void add_base(struct strvec *argv)
{
	static const char *const top[] = { "bin", "sbin", "lib", "lib64", "lib32", "libx32" };
	/* what the toolchain reads of /etc: never passwords, keys or the lab's files */
	static const char *const etc[] = { "/etc/ld.so.cache", "/etc/ld.so.conf",
					   "/etc/ld.so.conf.d", "/etc/alternatives" };

	strvec_pushv(argv, (const char *const[]){ "--ro-bind", "/usr", "/usr", NULL });
	for (size_t i = 0; i < ARRAY_SIZE(top); i++) {
		char *host = xasprintf("/%s", top[i]);
		char target[4096];
		ssize_t n = readlink(host, target, sizeof(target) - 1);

		/* merged /usr: /bin -> usr/bin stays a link; an old layout's folder is bound */
		if (n > 0) {
			target[n] = '\0';
			strvec_pushv(argv, (const char *const[]){ "--symlink", target, host, NULL });
		} else if (is_dir(host)) {
			strvec_pushv(argv, (const char *const[]){ "--ro-bind", host, host, NULL });
		}
		free(host);
	}
	for (size_t i = 0; i < ARRAY_SIZE(etc); i++)
		strvec_pushv(argv, (const char *const[]){ "--ro-bind-try", etc[i], etc[i], NULL });
	strvec_pushv(argv, (const char *const[]){ "--proc", "/proc", "--dev", "/dev",
						  "--tmpfs", "/tmp", NULL });
}

/*
 * Where a root lab stages the binds for the build user: a folder of the
 * lab's, covered in the child's own mount namespace by a tmpfs that holds
 * one bind mount per folder the command may see (stage_binds()). The
 * build user reaches them there, whatever the folders above the original
 * (a cache in a clone under /root, a test's 0700 folder); the host's
 * mount table never sees them.
 */
#define SANDBOX_STAGE "/run/mglrulab-sandbox"

struct stage {
	size_t n;
	char **src, **dst;	/* host path, its bind below SANDBOX_STAGE */
	int *is_dir;
	int info_fd;		/* bubblewrap's --info-fd: inherited, or -1 */
};

static void stage_release(struct stage *st)
{
	for (size_t i = 0; i < st->n; i++) {
		free(st->src[i]);
		free(st->dst[i]);
	}
	free(st->src);
	free(st->dst);
	free(st->is_dir);
	memset(st, 0, sizeof(*st));
}

/*
 * In the child: bubblewrap's info descriptor handed on; as root, a private
 * mount namespace with the binds staged.
 */
static int stage_binds(const void *data)
{
	const struct stage *st = data;

	if (st->info_fd >= 0 && fcntl(st->info_fd, F_SETFD, 0))
		return -1;
	if (!st->n)
		return 0;
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tmpfs", SANDBOX_STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k"))
		return -1;
	for (size_t i = 0; i < st->n; i++) {
		int fd;

		if (st->is_dir[i]) {
			if (mkdir(st->dst[i], 0755))
				return -1;
		} else {
			fd = open(st->dst[i], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0)
				return -1;
			close(fd);
		}
		if (mount(st->src[i], st->dst[i], NULL, MS_BIND, NULL))
			return -1;
	}
	return 0;
}

/* The staging of @sc's binds, or -1 with @err (a bind that is not there). */
static int stage_prepare(const struct sandbox_cmd *sc, struct stage *st, struct strbuf *err)
{
	if (mkdir(SANDBOX_STAGE, 0755) && errno != EEXIST) {
		sb_addf(err, "cannot create %s: %s", SANDBOX_STAGE, strerror(errno));
		return -1;
	}
	st->src = xcalloc(sc->nr_binds + 1, sizeof(*st->src));
	st->dst = xcalloc(sc->nr_binds + 1, sizeof(*st->dst));
	st->is_dir = xcalloc(sc->nr_binds + 1, sizeof(*st->is_dir));
	for (; st->n < sc->nr_binds; st->n++) {
		struct stat sb;
		size_t i = st->n;

		if (stat(sc->binds[i].path, &sb)) {
			sb_addf(err, "cannot bind %s into the sandbox: %s", sc->binds[i].path,
				strerror(errno));
			return -1;
		}
		st->src[i] = xstrdup(sc->binds[i].path);
		st->dst[i] = xasprintf(SANDBOX_STAGE "/%zu", i);
		st->is_dir[i] = S_ISDIR(sb.st_mode);
	}
	return 0;
}

/*
 * timeout(1), then bubblewrap with everything @sc and @c ask for, then the
 * command; each bind from its staged place when @st has them.
 */
static void build_argv(const struct sandbox_cmd *sc, const struct child *c,
		       const struct stage *st, struct strvec *argv)
{
	strvec_pushv(argv, (const char *const[]){ "timeout", "-k", NULL });
	strvec_pushf(argv, "%d", SANDBOX_KILL_AFTER_S);
	strvec_pushf(argv, "%.0fs", sandbox_wall_s(sc->policy) + 0.5);
	strvec_pushv(argv, (const char *const[]){
		"bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
		"--new-session", "--hostname", "mglrulab-build", NULL });
	if (st->info_fd >= 0) {
		strvec_push(argv, "--info-fd");
		strvec_pushf(argv, "%d", st->info_fd);
	}
	add_base(argv);
	for (size_t i = 0; i < sc->nr_binds; i++)
		strvec_pushv(argv, (const char *const[]){
			sc->binds[i].writable ? "--bind" : "--ro-bind",
			st->n ? st->dst[i] : sc->binds[i].path,
			sc->binds[i].dest ? sc->binds[i].dest : sc->binds[i].path, NULL });
	if (c->dir)
		strvec_pushv(argv, (const char *const[]){ "--chdir", c->dir, NULL });
	strvec_pushv(argv, (const char *const[]){
		"--clearenv", "--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin",
		"--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
		"--setenv", "LC_ALL", "C", NULL });
	for (const char *const *e = c->env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		char *name;

		if (!eq)
			continue;
		name = xstrndup(*e, (size_t)(eq - *e));
		strvec_pushv(argv, (const char *const[]){ "--setenv", name, eq + 1, NULL });
		free(name);
	}
	strvec_push(argv, "--");
	strvec_pushv(argv, c->argv);
}

/*
 * After the command: wait until its pid namespace is empty. A stop kills
 * bubblewrap's outer process; the namespace's first process dies with it
 * (--die-with-parent) and takes every other with it, but after our child
 * has been reaped. A compiler must not outlive the lab's hold on
 * build.lock, and a test that looks for processes of the build right
 * after must find none. The first process is gone, or a zombie, only
 * once all the others are: its pid comes from bubblewrap's --info-fd.
 */
static void drain_namespace(int info_rd)
{
	char buf[512], *p, path[64];
	ssize_t n;
	long pid;

	fcntl(info_rd, F_SETFL, O_NONBLOCK);
	n = read(info_rd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return;		/* bubblewrap never got that far */
	buf[n] = '\0';
	p = strstr(buf, "\"child-pid\"");
	if (!p || !(p = strchr(p, ':')) || (pid = strtol(p + 1, NULL, 10)) <= 1)
		return;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	for (double until = now_monotonic() + SANDBOX_KILL_AFTER_S; now_monotonic() < until;) {
		struct strbuf st = STRBUF_INIT;
		const char *state;
		int gone = read_file(path, &st, 4096) ||
			   !(state = strrchr(sb_str(&st), ')')) || state[1] != ' ' ||
			   state[2] == 'Z' || state[2] == 'X';

		sb_release(&st);
		if (gone)
			return;
		usleep(10 * 1000);
	}
	warning("the sandbox's processes (namespace of pid %ld) still run %d s after the build",
		pid, SANDBOX_KILL_AFTER_S);
}

int sandbox_run(struct sandbox_cmd *sc, struct child *c, struct strbuf *err)
{
	static const char *const outer_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C",
						 NULL };
	struct strvec argv = STRVEC_INIT;
	struct child_creds cr = { .uid = (uid_t)-1, .gid = (gid_t)-1, .no_new_privs = 1 };
	struct child run = *c;
	double wall = sandbox_wall_s(sc->policy), t0;
	struct stage st = { .info_fd = -1 };
	int info[2] = { -1, -1 };
	uid_t uid;
	gid_t gid;
	int r = -1;

	sc->timed_out = 0;
	sc->seconds = 0;
	if (identity(sc->policy, &uid, &gid, err))
		return -1;
	if (geteuid() == 0 && stage_prepare(sc, &st, err))
		goto out;
	/* where bubblewrap says its namespace's first process, to wait for at the end */
	if (!pipe2(info, O_CLOEXEC))
		st.info_fd = info[1];
	if (geteuid() == 0) {
		cr.uid = uid;
		cr.gid = gid;
		cr.nproc = SANDBOX_NPROC;
	}
	cr.as_bytes = (unsigned long long)(sc->policy && sc->policy->memory_mib > 0 ?
					   sc->policy->memory_mib : SANDBOX_DEFAULT_MEMORY_MIB) << 20;
	cr.cpu_s = (unsigned long long)wall + 1;
	cr.fsize_bytes = SANDBOX_FSIZE_BYTES;
	build_argv(sc, c, &st, &argv);
	run.argv = (const char *const *)argv.v;
	run.in_child = stage_binds;
	run.in_child_data = &st;
	run.dir = NULL;		/* bubblewrap's --chdir, inside */
	run.env = outer_env;	/* timeout and bubblewrap see nothing of the lab's */
	run.env_only = 1;
	run.creds = &cr;
	t0 = now_monotonic();
	r = run_command(&run);
	sc->seconds = now_monotonic() - t0;
	/* timeout(1): 124 after its SIGTERM, 128+9 when SIGKILL had to follow */
	sc->timed_out = (r == 124 || r == 128 + 9) && sc->seconds >= wall - 1;
	if (r < 0)
		sb_addf(err, "cannot start the sandbox (timeout, bwrap): %s", strerror(errno));
	if (info[1] >= 0) {
		close(info[1]);
		info[1] = -1;
		drain_namespace(info[0]);
	}
out:
	if (info[0] >= 0)
		close(info[0]);
	if (info[1] >= 0)
		close(info[1]);
	stage_release(&st);
	strvec_clear(&argv);
	return r;
}

static uid_t adopt_uid;
static gid_t adopt_gid;

static int adopt_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)flag;
	(void)ftw;
	if ((st->st_uid != adopt_uid || st->st_gid != adopt_gid) &&
	    lchown(path, adopt_uid, adopt_gid))
		return -1;
	return 0;
}

int sandbox_adopt(const struct sandbox_policy *p, const char *dir, struct strbuf *err)
{
	/* nftw() takes no context: one adoption at a time */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct stat st;
	uid_t uid;
	gid_t gid;
	int r;

	if (geteuid() != 0)
		return 0;
	if (identity(p, &uid, &gid, err))
		return -1;
	if (lstat(dir, &st)) {
		sb_addf(err, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (st.st_uid == uid && st.st_gid == gid)
		return 0;
	pthread_mutex_lock(&lock);
	adopt_uid = uid;
	adopt_gid = gid;
	/* depth first: the top changes last, so a crash midway is taken up again */
	r = nftw(dir, adopt_one, 32, FTW_PHYS | FTW_DEPTH);
	pthread_mutex_unlock(&lock);
	if (r)
		sb_addf(err, "cannot give %s to the sandbox's user (uid %ld): %s", dir, (long)uid,
			strerror(errno));
	return r ? -1 : 1;
}

int sandbox_give(const struct sandbox_policy *p, const char *path)
{
	struct strbuf err = STRBUF_INIT;
	uid_t uid;
	gid_t gid;
	int r = 0;

	if (geteuid() == 0) {
		r = identity(p, &uid, &gid, &err) ? -1 : lchown(path, uid, gid);
		if (r && err.len)
			errno = ENOENT;	/* no build user: sandbox_run() will say so */
	}
	sb_release(&err);
	return r;
}

int sandbox_probe(const struct sandbox_policy *p, struct strbuf *err)
{
	/* inside: no interface but lo, and /root out of sight */
	const char *argv[] = { "sh", "-c",
			       "test ! -e /root && test \"$(tail -n +3 /proc/net/dev | cut -d: -f1 | "
			       "tr -d ' ')\" = lo && echo sandboxed", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .merge_stderr = 1 };
	/* one bind, so that a root lab's staging (a mount namespace) is tried too */
	const struct sandbox_bind bind = { .path = "/usr/share", .writable = 0 };
	struct sandbox_cmd sc = { .policy = p, .binds = &bind, .nr_binds = 1 };
	int r;

	if (!program_in_path("bwrap")) {
		sb_adds(err, "bubblewrap (bwrap) is not installed: run scripts/install-deps "
			"(Debian package bubblewrap)");
		return -1;
	}
	r = sandbox_run(&sc, &c, err);
	if (r > 0 || (!r && !strstr(sb_str(&out), "sandboxed"))) {
		sb_addf(err, "a command in the sandbox failed (exit %d): %s", r, sb_str(&out));
		if (strstr(sb_str(&out), "namespace") || strstr(sb_str(&out), "permission"))
			sb_adds(err, " (are unprivileged user namespaces allowed? "
				"sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces)");
		r = -1;
	}
	sb_release(&out);
	return r ? -1 : 0;
}
