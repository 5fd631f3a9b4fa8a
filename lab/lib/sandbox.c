// SPDX-License-Identifier: GPL-2.0
#include "sandbox.h"
#include "fsutil.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Whether @uid/@gid may enter folder @st (search permission, as the kernel would judge it). */
static int can_enter(const struct stat *st, uid_t uid, gid_t gid)
{
	if (st->st_uid == uid)
		return !!(st->st_mode & S_IXUSR);
	if (st->st_gid == gid)
		return !!(st->st_mode & S_IXGRP);
	return !!(st->st_mode & S_IXOTH);
}

/*
 * Every folder above @path must let the build user through, or bubblewrap
 * cannot bind it: say which one stops it, before the build starts.
 */
static int reachable(const char *path, uid_t uid, gid_t gid, struct strbuf *err)
{
	char *dir = path_dirname(path);
	int r = 0;

	while (!r && strcmp(dir, "/") && strcmp(dir, ".")) {
		struct stat st;
		char *up;

		if (!stat(dir, &st) && !can_enter(&st, uid, gid)) {
			sb_addf(err, "the sandbox's user (uid %ld) cannot reach %s: %s is mode %04o, "
				"owned by uid %ld; move the kernel cache (MGLRULAB_CACHE_DIR or "
				"[lab] cache_dir) to a folder others may enter, or chmod o+x %s",
				(long)uid, path, dir, (unsigned)(st.st_mode & 07777), (long)st.st_uid,
				dir);
			r = -1;
		}
		up = path_dirname(dir);
		free(dir);
		dir = up;
	}
	free(dir);
	return r;
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

/* timeout(1), then bubblewrap with everything @sc and @c ask for, then the command. */
static void build_argv(const struct sandbox_cmd *sc, const struct child *c, struct strvec *argv)
{
	strvec_pushv(argv, (const char *const[]){ "timeout", "-k", NULL });
	strvec_pushf(argv, "%d", SANDBOX_KILL_AFTER_S);
	strvec_pushf(argv, "%.0fs", sandbox_wall_s(sc->policy) + 0.5);
	strvec_pushv(argv, (const char *const[]){
		"bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
		"--new-session", "--hostname", "mglrulab-build", NULL });
	add_base(argv);
	for (size_t i = 0; i < sc->nr_binds; i++)
		strvec_pushv(argv, (const char *const[]){
			sc->binds[i].writable ? "--bind" : "--ro-bind", sc->binds[i].path,
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

int sandbox_run(struct sandbox_cmd *sc, struct child *c, struct strbuf *err)
{
	static const char *const outer_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LC_ALL=C",
						 NULL };
	struct strvec argv = STRVEC_INIT;
	struct child_creds cr = { .uid = (uid_t)-1, .gid = (gid_t)-1, .no_new_privs = 1 };
	struct child run = *c;
	double wall = sandbox_wall_s(sc->policy), t0;
	uid_t uid;
	gid_t gid;
	int r;

	sc->timed_out = 0;
	sc->seconds = 0;
	if (identity(sc->policy, &uid, &gid, err))
		return -1;
	for (size_t i = 0; i < sc->nr_binds; i++)
		if (reachable(sc->binds[i].path, uid, gid, err))
			return -1;
	if (geteuid() == 0) {
		cr.uid = uid;
		cr.gid = gid;
		cr.nproc = SANDBOX_NPROC;
	}
	cr.as_bytes = (unsigned long long)(sc->policy && sc->policy->memory_mib > 0 ?
					   sc->policy->memory_mib : SANDBOX_DEFAULT_MEMORY_MIB) << 20;
	cr.cpu_s = (unsigned long long)wall + 1;
	cr.fsize_bytes = SANDBOX_FSIZE_BYTES;
	build_argv(sc, c, &argv);
	run.argv = (const char *const *)argv.v;
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
	return r ? -1 : 0;
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
	struct sandbox_cmd sc = { .policy = p };
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
