// SPDX-License-Identifier: GPL-2.0
#include "libvirt_conn.h"
#include "fsutil.h"
#include "lockfile.h"
#include "util.h"

#include <dlfcn.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvirt/virterror.h>

/*
 * What Debian 12's libvirt 9.0 embedded driver needs to run QEMU as root
 * without a daemon: no privilege drop, no security driver, and QEMU's
 * stdio straight to files (virtlogd is not running). Without
 * dynamic_ownership/remember_owner it would chown the kernel and log files
 * and keep xattrs on them (and warn about them on every run).
 */
static const char qemu_conf[] =
	"# written by mglrulab: the embedded QEMU driver, running as root\n"
	"user = \"root\"\n"
	"group = \"root\"\n"
	"security_driver = \"none\"\n"
	"stdio_handler = \"file\"\n"
	"# we are root and own every file a run uses: no chown, no xattr bookkeeping\n"
	"dynamic_ownership = 0\n"
	"remember_owner = 0\n";

static void silent_error(void *data, virErrorPtr e)
{
	(void)data;
	(void)e;	/* errors are fetched with virGetLastErrorMessage() and reported by us */
}

const char *lab_virt_error(void)
{
	const char *m = virGetLastErrorMessage();

	return m ? m : "unknown libvirt error";
}

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			warning("libvirt event loop: %s", lab_virt_error());
	return NULL;
}

/* libvirt wants its event implementation registered before the first connection. */
static int start_event_loop(struct strbuf *err)
{
	static int started;
	pthread_t th;
	sigset_t all, old;

	if (started)
		return 0;
	if (virEventRegisterDefaultImpl() < 0) {
		sb_addf(err, "cannot set up the libvirt event loop: %s", lab_virt_error());
		return -1;
	}
	/* signals belong to the main thread (domain_run.c's handlers) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int r = pthread_create(&th, NULL, event_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r) {
		sb_addf(err, "cannot start the libvirt event thread: %s", strerror(r));
		return -1;
	}
	pthread_detach(th);
	started = 1;
	return 0;
}

char *lab_virt_embed_uri(const char *state_dir)
{
	char *cwd = getcwd(NULL, 0);
	char *abs = path_absolute(cwd ? cwd : "/", state_dir);
	char *uri = xasprintf("qemu:///embed?root=%s/libvirt", abs);

	free(cwd);
	free(abs);
	return uri;
}

static int setup_embed_root(const char *state_dir, struct strbuf *err)
{
	char *etc = xasprintf("%s/libvirt/etc", state_dir);
	char *conf = xasprintf("%s/qemu.conf", etc);
	struct strbuf cur = STRBUF_INIT;
	int r = 0;

	if (mkdir_p(etc, 0700)) {
		sb_addf(err, "cannot create %s: %s", etc, strerror(errno));
		r = -1;
	} else if (read_file(conf, &cur, 65536) || strcmp(sb_str(&cur), qemu_conf)) {
		if (write_file_atomic(conf, qemu_conf, strlen(qemu_conf))) {
			sb_addf(err, "cannot write %s: %s", conf, strerror(errno));
			r = -1;
		}
	}
	/* Keep libvirt's own log lines off the user's terminal: into a file. */
	if (!r && !getenv("LIBVIRT_LOG_OUTPUTS")) {
		char *cwd = getcwd(NULL, 0);
		char *abs = path_absolute(cwd ? cwd : "/", state_dir);
		/* libvirt ignores a relative log path and falls back to stderr */
		char *out = xasprintf("3:file:%s/libvirt/libvirt.log", abs);

		setenv("LIBVIRT_LOG_OUTPUTS", out, 0);
		free(out);
		free(abs);
		free(cwd);
	}
	sb_release(&cur);
	free(conf);
	free(etc);
	return r;
}

int lab_virt_uri_is_local(const char *uri)
{
	const char *s = uri ? strstr(uri, "://") : NULL;

	return s && s[3] == '/';
}

/* The owner pid in a lab domain's name ("mglrulab-<pid>-<n>"), or 0. */
static long owner_pid(const char *name)
{
	char *num, *dash;
	long pid = 0;

	if (!str_starts_with(name, LAB_DOMAIN_PREFIX))
		return 0;
	num = xstrdup(name + strlen(LAB_DOMAIN_PREFIX));
	dash = strchr(num, '-');
	if (dash)
		*dash = '\0';
	if (parse_long(num, 1, 1 << 30, &pid))
		pid = 0;
	free(num);
	return pid;
}

static int pid_dead(long pid)
{
	return pid > 0 && pid != getpid() && kill((pid_t)pid, 0) && errno == ESRCH;
}

/*
 * Destroy lab domains whose owning process is gone (a session killed with
 * SIGKILL). Only on this machine: the pid in a domain's name is a pid of
 * the machine that started it, and another controller's guests on a shared
 * remote host are not ours to judge.
 */
static void destroy_stale(virConnectPtr conn)
{
	virDomainPtr *doms = NULL;
	char *uri = virConnectGetURI(conn);
	int local = lab_virt_uri_is_local(uri);
	int n;

	free(uri);
	if (!local)
		return;
	n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);

	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && pid_dead(owner_pid(name))) {
			warning("destroying domain %s left by a dead mglrulab (pid %ld)", name,
				owner_pid(name));
			virDomainDestroy(doms[i]);
		}
		virDomainFree(doms[i]);
	}
	free(doms);
}

/*
 * A lab killed while libvirt was starting a domain leaves its status file
 * in the embedded root, "paused, starting up", with no QEMU (pid 0) or a
 * dead one. The embedded driver loads it as a running domain whose start
 * job never ends, and virDomainDestroy() then waits 30 s for that job and
 * fails, at every open. Before opening (we hold the root's lock, so no
 * other process uses it), such a file of a dead owner whose QEMU is not
 * running is removed: there is nothing left to destroy.
 */
static void forget_dead_starts(const char *state_dir)
{
	char *dir = xasprintf("%s/libvirt/run/qemu", state_dir);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct strbuf xml = STRBUF_INIT;
		char *path, *name;
		const char *q;
		long qpid = -1;

		if (len < 5 || strcmp(e->d_name + len - 4, ".xml"))
			continue;
		name = xstrndup(e->d_name, len - 4);
		if (!pid_dead(owner_pid(name))) {
			free(name);
			continue;
		}
		path = xasprintf("%s/%s", dir, e->d_name);
		if (!read_file(path, &xml, 1 << 20) && (q = strstr(sb_str(&xml), "<domstatus ")) &&
		    (q = strstr(q, " pid='")))
			qpid = strtol(q + 6, NULL, 10);
		if (qpid == 0 || (qpid > 0 && kill((pid_t)qpid, 0) && errno == ESRCH)) {
			warning("forgetting domain %s: its mglrulab (pid %ld) died while it started, "
				"and it has no QEMU", name, owner_pid(name));
			if (unlink(path))
				warning("cannot remove %s: %s", path, strerror(errno));
			char *pidfile = xasprintf("%s/%s.pid", dir, name);
			unlink(pidfile);	/* a dead QEMU's, if any */
			free(pidfile);
		}
		sb_release(&xml);
		free(path);
		free(name);
	}
	if (d)
		closedir(d);
	free(dir);
}

/*
 * libguestfs initializes libvirt from a library constructor, before we can
 * point libvirt's log at a file, so the embedded driver would log to our
 * stderr. libvirt re-reads LIBVIRT_LOG_* in virLogSetFromEnv(), a private
 * export: looked up at run time, so a libvirt without it only means noise.
 */
static void apply_log_env(void)
{
	int (*set_from_env)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "virLogSetFromEnv");

	if (set_from_env)
		set_from_env();
}

int lab_virt_is_embedded(virConnectPtr conn)
{
	char *uri = virConnectGetURI(conn);
	int r = uri && strstr(uri, "/embed") != NULL;

	free(uri);
	return r;
}

/*
 * One process per embedded root: a second embedded driver on the same root
 * "reconnects" to the first one's QEMU processes and kills them. Held for
 * the life of the connection (the kernel drops it when we die).
 */
static int embed_lock_fd = -1;

static int lock_embed_root(const char *state_dir, struct strbuf *err)
{
	char *path = xasprintf("%s/libvirt/mglrulab.lock", state_dir);
	char *pid = xasprintf("pid %ld\n", (long)getpid());
	struct strbuf held_by = STRBUF_INIT;
	int fd = lockfile_take(path, 0, pid, &held_by);

	if (fd == -2)
		sb_addf(err, "the lab state folder %s is in use by mglrulab (%s): two processes on one "
			"embedded libvirt root would kill each other's guests; wait for it, or use "
			"another --state folder", state_dir, sb_str(&held_by));
	else if (fd < 0)
		sb_addf(err, "cannot lock %s: %s", path, strerror(errno));
	else
		embed_lock_fd = fd;
	sb_release(&held_by);
	free(pid);
	free(path);
	return fd < 0 ? -1 : 0;
}

virConnectPtr lab_virt_open(const char *uri, const char *state_dir, struct strbuf *err)
{
	char *embed = NULL;
	virConnectPtr conn;

	if (!uri || !*uri) {
		if (setup_embed_root(state_dir, err))
			return NULL;
		if (embed_lock_fd < 0 && lock_embed_root(state_dir, err))
			return NULL;
		forget_dead_starts(state_dir);
		uri = embed = lab_virt_embed_uri(state_dir);
	}
	if (virInitialize() < 0) {
		sb_addf(err, "cannot initialize libvirt: %s", lab_virt_error());
		free(embed);
		return NULL;
	}
	apply_log_env();
	virSetErrorFunc(NULL, silent_error);
	if (start_event_loop(err)) {
		free(embed);
		return NULL;
	}
	conn = virConnectOpen(uri);
	if (!conn) {
		sb_addf(err, "cannot connect to %s: %s", uri, lab_virt_error());
		if (embed)
			sb_adds(err, " (run 'mglrulab doctor')");
		free(embed);
		return NULL;
	}
	debug("libvirt: connected to %s", uri);
	/*
	 * libvirt's calls have no timeout: without keepalive, a host that
	 * stopped answering held a session in virDomainCreateXML() for as
	 * long as it was frozen (13 min in a test, then counted as the
	 * guest's boot timeout). The embedded driver has no RPC and refuses it.
	 */
	if (!embed && virConnectSetKeepAlive(conn, LAB_VIRT_KEEPALIVE_S, LAB_VIRT_KEEPALIVE_COUNT) < 0) {
		debug("libvirt: no keepalive on %s: %s", uri, lab_virt_error());
		virResetLastError();
	}
	free(embed);
	destroy_stale(conn);
	return conn;
}

void lab_virt_close(virConnectPtr conn)
{
	/* the embedded root's lock goes with the embedded connection, not another host's */
	int embedded = !conn || lab_virt_is_embedded(conn);

	if (conn)
		virConnectClose(conn);
	if (embedded && embed_lock_fd >= 0) {
		close(embed_lock_fd);
		embed_lock_fd = -1;
	}
}
