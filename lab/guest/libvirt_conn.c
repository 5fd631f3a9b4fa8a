// SPDX-License-Identifier: GPL-2.0
#include "libvirt_conn.h"
#include "domain_owner.h"
#include "fsutil.h"
#include "lab_uri.h"
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
 * What Debian 12's libvirt 9.0 embedded driver needs to run QEMU without a
 * daemon: no security driver (no SELinux or AppArmor labels for a
 * driver nobody else shares), QEMU's stdio straight to files (virtlogd is
 * not running), and no dynamic_ownership/remember_owner: the lab owns
 * every file a run uses, and otherwise libvirt would chown the kernel and
 * log files and keep xattrs on them (and warn about them on every run).
 * QEMU's seccomp sandbox stays libvirt's default (on).
 *
 * As root, QEMU runs as root too: no privilege drop. As anyone else, no
 * user or group at all: the embedded driver then runs QEMU as the lab's
 * own user. Naming root there makes it create its dbus state folder as
 * uid 0, which an ordinary user cannot ("Failed to create dbus state dir
 * ...: Operation not permitted").
 */
static const char qemu_conf_root[] =
	"# written by mglrulab: the embedded QEMU driver, running as root\n"
	"user = \"root\"\n"
	"group = \"root\"\n"
	"security_driver = \"none\"\n"
	"stdio_handler = \"file\"\n"
	"# we are root and own every file a run uses: no chown, no xattr bookkeeping\n"
	"dynamic_ownership = 0\n"
	"remember_owner = 0\n";

static const char qemu_conf_user[] =
	"# written by mglrulab: the embedded QEMU driver, running as this user (not root)\n"
	"security_driver = \"none\"\n"
	"stdio_handler = \"file\"\n"
	"# we own every file a run uses: no chown, no xattr bookkeeping\n"
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
	/* signals belong to the main thread (domain_events.c's handlers) */
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
	const char *qemu_conf = geteuid() ? qemu_conf_user : qemu_conf_root;
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

/*
 * The state folder each open connection was opened for, so that the
 * domains started on it carry it in their owner tag (lab_virt_owner()).
 */
struct conn_state {
	struct conn_state *next;
	virConnectPtr conn;
	char *state;			/* absolute */
};
static pthread_mutex_t conns_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn_state *conns;

static void conn_remember(virConnectPtr conn, const char *state_dir)
{
	struct conn_state *c = xcalloc(1, sizeof(*c));

	c->conn = conn;
	c->state = path_absolute(NULL, state_dir);
	pthread_mutex_lock(&conns_lock);
	c->next = conns;
	conns = c;
	pthread_mutex_unlock(&conns_lock);
}

static void conn_forget(virConnectPtr conn)
{
	pthread_mutex_lock(&conns_lock);
	for (struct conn_state **p = &conns; *p; p = &(*p)->next) {
		struct conn_state *c = *p;

		if (c->conn == conn) {
			*p = c->next;
			free(c->state);
			free(c);
			break;
		}
	}
	pthread_mutex_unlock(&conns_lock);
}

void lab_virt_owner(virConnectPtr conn, struct domain_owner *o)
{
	char *state = NULL;

	pthread_mutex_lock(&conns_lock);
	for (struct conn_state *c = conns; c; c = c->next)
		if (c->conn == conn) {
			state = c->state ? xstrdup(c->state) : NULL;
			break;
		}
	pthread_mutex_unlock(&conns_lock);
	domain_owner_self(o, state);
	free(state);
}

/* One lab domain left alone: said once per open, with why. */
static void left_alone(const char *name, enum domain_owner_verdict v, const char *why,
		       const char *uri)
{
	if (v == OWNER_UNTAGGED)
		warning("left domain %s alone: named like the lab's, but %s (a guest of another "
			"program, or of an mglrulab from before owner tags); if it is a leftover of "
			"yours: virsh -c '%s' destroy %s", name, why, uri, name);
	else if (v == OWNER_ELSEWHERE)
		info("left domain %s alone: %s", name, why);
	else
		debug("domain %s: %s", name, why);
}

/*
 * Destroy lab domains whose owner is gone (a session killed with SIGKILL),
 * judged by their owner tag (domain_owner.h), never by the pid in a name:
 * on a daemon several jobs share, another job's domain is left alone. On
 * the embedded driver @state_dir's lock is ours, so a domain tagged with
 * that state folder is an orphan whatever its pid. Only active domains:
 * the lab starts transient ones, and a defined one is someone's choice.
 */
static void destroy_stale(virConnectPtr conn, const char *state_dir, int embedded)
{
	virDomainPtr *doms = NULL;
	struct domain_owner self;
	char *uri = virConnectGetURI(conn);
	int n = virConnectListAllDomains(conn, &doms, VIR_CONNECT_LIST_DOMAINS_ACTIVE);

	domain_owner_self(&self, state_dir);
	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);
		struct strbuf why = STRBUF_INIT;
		struct domain_owner tag;
		char *xml;
		int tagged = 0;

		if (!name || !str_starts_with(name, LAB_DOMAIN_PREFIX)) {
			virDomainFree(doms[i]);
			continue;
		}
		xml = virDomainGetXMLDesc(doms[i], 0);
		tagged = xml && !domain_owner_find(xml, &tag);
		enum domain_owner_verdict v = domain_owner_judge(tagged ? &tag : NULL, &self,
								 embedded, domain_owner_proc_start, &why);
		if (v == OWNER_GONE) {
			warning("destroying domain %s left by a dead mglrulab: %s", name, sb_str(&why));
			if (virDomainDestroy(doms[i]) < 0)
				debug("destroying %s: %s", name, lab_virt_error());
		} else {
			left_alone(name, v, sb_str(&why), uri ? uri : "?");
		}
		if (tagged)
			domain_owner_release(&tag);
		sb_release(&why);
		free(xml);
		virDomainFree(doms[i]);
	}
	free(doms);
	free(uri);
	domain_owner_release(&self);
}

/*
 * A lab killed while libvirt was starting a domain leaves its status file
 * in the embedded root, "paused, starting up", with no QEMU (pid 0) or a
 * dead one. The embedded driver loads it as a running domain whose start
 * job never ends, and virDomainDestroy() then waits 30 s for that job and
 * fails, at every open. Before opening (we hold the root's lock, so no
 * other process uses it), such a file of an owner that is gone (by the
 * owner tag in the domain it holds, as destroy_stale() judges) whose QEMU
 * is not running is removed: there is nothing left to destroy.
 */
static void forget_dead_starts(const char *state_dir)
{
	char *dir = xasprintf("%s/libvirt/run/qemu", state_dir);
	DIR *d = opendir(dir);
	struct domain_owner self;
	struct dirent *e;

	domain_owner_self(&self, state_dir);
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct strbuf xml = STRBUF_INIT, why = STRBUF_INIT;
		struct domain_owner tag;
		char *path, *name;
		const char *q;
		long qpid = -1;
		int tagged = 0;

		if (len < 5 || strcmp(e->d_name + len - 4, ".xml") ||
		    !str_starts_with(e->d_name, LAB_DOMAIN_PREFIX))
			continue;
		name = xstrndup(e->d_name, len - 4);
		path = xasprintf("%s/%s", dir, e->d_name);
		if (!read_file(path, &xml, 1 << 20)) {
			tagged = !domain_owner_find(sb_str(&xml), &tag);
			if ((q = strstr(sb_str(&xml), "<domstatus ")) && (q = strstr(q, " pid='")))
				qpid = strtol(q + 6, NULL, 10);
		}
		if (domain_owner_judge(tagged ? &tag : NULL, &self, 1, domain_owner_proc_start,
				       &why) == OWNER_GONE &&
		    (qpid == 0 || (qpid > 0 && kill((pid_t)qpid, 0) && errno == ESRCH))) {
			warning("forgetting domain %s: %s, it died while the domain started, and the "
				"domain has no QEMU", name, sb_str(&why));
			if (unlink(path))
				warning("cannot remove %s: %s", path, strerror(errno));
			char *pidfile = xasprintf("%s/%s.pid", dir, name);
			unlink(pidfile);	/* a dead QEMU's, if any */
			free(pidfile);
		}
		if (tagged)
			domain_owner_release(&tag);
		sb_release(&why);
		sb_release(&xml);
		free(path);
		free(name);
	}
	if (d)
		closedir(d);
	domain_owner_release(&self);
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
	int r = lab_uri_is_embedded(uri);

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
	int fd, r = -1;

	switch (lockfile_take(path, 0, pid, &held_by, &fd)) {
	case LOCKFILE_TAKEN:
		embed_lock_fd = fd;
		r = 0;
		break;
	case LOCKFILE_HELD:
		sb_addf(err, "the lab state folder %s is in use by mglrulab (%s): two processes on one "
			"embedded libvirt root would kill each other's guests; wait for it, or use "
			"another --state folder", state_dir, sb_str(&held_by));
		break;
	case LOCKFILE_FAILED:
		sb_addf(err, "cannot lock %s: %s", path, strerror(errno));
		break;
	}
	sb_release(&held_by);
	free(pid);
	free(path);
	return r;
}

/*
 * Who holds libvirt's own lock on the embedded root, its driver pid file
 * (<root>/run/qemu/driver.pid, locked with fcntl by the embedded QEMU
 * driver of the process that opened it): a process that holds it without
 * our mglrulab.lock (another lab's binary, virsh on that URI) makes
 * virConnectOpen() fail with "Failed to acquire pid file", which reads as
 * a broken libvirt. F_GETLK names the holder without taking the lock.
 * 1 and "pid N, COMM" in @who when held; 0 when free or not there.
 */
static int embed_driver_holder(const char *state_dir, struct strbuf *who)
{
	char *path = xasprintf("%s/libvirt/run/qemu/driver.pid", state_dir);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), held = 0;

	free(path);
	if (fd < 0)
		return 0;
	if (!fcntl(fd, F_GETLK, &fl) && fl.l_type != F_UNLCK) {
		struct strbuf comm = STRBUF_INIT;
		char *p = xasprintf("/proc/%ld/comm", (long)fl.l_pid);

		held = 1;
		sb_addf(who, "pid %ld", (long)fl.l_pid);
		/* the holder's name is for people: a process gone since is only its pid */
		if (!read_file(p, &comm, 256)) {
			sb_trim_trailing_newlines(&comm);
			sb_addf(who, ", %s", sb_str(&comm));
		}
		sb_release(&comm);
		free(p);
	}
	close(fd);
	return held;
}

virConnectPtr lab_virt_open(const char *uri, const char *state_dir, struct strbuf *err)
{
	struct strbuf who = STRBUF_INIT;

	char *embed = NULL;
	virConnectPtr conn;

	if (!uri || !*uri) {
		if (setup_embed_root(state_dir, err))
			return NULL;
		if (embed_lock_fd < 0 && lock_embed_root(state_dir, err))
			return NULL;
		if (embed_driver_holder(state_dir, &who)) {
			sb_addf(err, "the lab state folder %s is in use by %s, which holds its "
				"embedded libvirt driver (%s/libvirt/run/qemu/driver.pid); wait for "
				"it, or use another --state folder", state_dir, sb_str(&who),
				state_dir);
			sb_release(&who);
			return NULL;
		}
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
			sb_adds(err, LAB_VIRT_DOCTOR_HINT);
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
	conn_remember(conn, state_dir);
	destroy_stale(conn, state_dir, lab_virt_is_embedded(conn));
	return conn;
}

void lab_virt_close(virConnectPtr conn)
{
	/* the embedded root's lock goes with the embedded connection, not another host's */
	int embedded = !conn || lab_virt_is_embedded(conn);

	if (conn) {
		conn_forget(conn);
		virConnectClose(conn);
	}
	if (embedded && embed_lock_fd >= 0) {
		close(embed_lock_fd);
		embed_lock_fd = -1;
	}
}
