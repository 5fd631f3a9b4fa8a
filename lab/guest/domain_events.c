// SPDX-License-Identifier: GPL-2.0
#include "domain_run_priv.h"
#include "interrupt.h"
#include "libvirt_conn.h"
#include "subreaper.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * Each run waits on a pipe of its own (struct watch): the libvirt event
 * thread writes to it when that run's domain stops or one of its streams
 * ends, and poll() on it with the next deadline as timeout is the whole
 * wait: no sleeping, no polling the domain state. Several threads may run
 * guests at once (one per host slot), each with its own watch; the lifecycle
 * callback finds a run's watch by its domain's name.
 *
 * Signals: the handler (lab/lib/interrupt.h) writes to one more pipe,
 * sig_pipe, that nobody drains. Every waiter polls it too, so a SIGINT
 * wakes all of them at once, and each sees interrupted() (which stays set).
 */
static int sig_pipe[2] = { -1, -1 };

pthread_mutex_t domain_watch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct watch *watches;		/* the runs waiting now, under domain_watch_lock */
#define MAX_ACTIVE 64
static virDomainPtr active[MAX_ACTIVE];	/* started, not yet seen stop (any connection) */

void domain_wake_fd(int fd)
{
	int saved = errno;

	if (fd >= 0 && write(fd, "x", 1) < 0) {
		/* pipe full: a wake-up is already pending */
	}
	errno = saved;
}

/* In the signal handler: every waiting run wakes up and sees interrupted(). */
static void wake_on_signal(int sig)
{
	(void)sig;
	domain_wake_fd(sig_pipe[1]);
}

/* From interrupt_cleanup(): no guest of the lab outlives the signal. */
static void destroy_on_interrupt(int sig)
{
	(void)sig;
	guest_destroy_all();
}

int domain_events_setup(void)
{
	static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;
	int r = 0;

	pthread_mutex_lock(&setup_lock);
	/* guest_lab_open() did it already, unless the caller runs guests without one */
	if (subreaper_enable())
		warning("cannot become a subreaper (%s): each run waits for init to reap its QEMU",
			strerror(errno));
	if (sig_pipe[0] < 0 && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		r = -1;
	else if (interrupt_on_signal(wake_on_signal) || interrupt_on_cleanup(destroy_on_interrupt)) {
		errno = ENOSPC;
		r = -1;
	} else {
		r = interrupt_catch();
	}
	pthread_mutex_unlock(&setup_lock);
	return r;
}

/* Start waiting for domain @name: 0, or -1 with errno. */
int domain_watch_add(struct watch *w, const char *name)
{
	memset(w, 0, sizeof(*w));
	w->name = name;
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK))
		return -1;
	pthread_mutex_lock(&domain_watch_lock);
	w->next = watches;
	watches = w;
	pthread_mutex_unlock(&domain_watch_lock);
	return 0;
}

/* Once removed (under the lock), no event thread touches @w again. */
void domain_watch_remove(struct watch *w)
{
	pthread_mutex_lock(&domain_watch_lock);
	for (struct watch **p = &watches; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	pthread_mutex_unlock(&domain_watch_lock);
	close(w->pipe[0]);
	close(w->pipe[1]);
	w->pipe[0] = w->pipe[1] = -1;
}

void domain_track(virDomainPtr dom)
{
	pthread_mutex_lock(&domain_watch_lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (!active[i]) {
			active[i] = dom;
			virDomainRef(dom);
			break;
		}
	pthread_mutex_unlock(&domain_watch_lock);
}

void domain_untrack(virDomainPtr dom)
{
	pthread_mutex_lock(&domain_watch_lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i] == dom) {
			virDomainFree(active[i]);
			active[i] = NULL;
		}
	pthread_mutex_unlock(&domain_watch_lock);
}

/*
 * A destroy that takes long must not look like a hang after SIGINT.
 * libvirt's destroy sends QEMU SIGTERM, then SIGKILL after 10 s, and waits
 * for its pid to vanish; with every orphan reaped (subreaper.h) that takes
 * well under a second, but a QEMU stuck in the kernel (a hung disk) can
 * hold it for 30 s. After DESTROY_PATIENCE_MS the watchdog names the
 * domain and what libvirt is doing.
 */
#define DESTROY_PATIENCE_MS 2000

struct destroy_watchdog {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int done;
	const char *name;
};

static void *destroy_watchdog_main(void *arg)
{
	struct destroy_watchdog *wd = arg;
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += DESTROY_PATIENCE_MS / 1000;
	pthread_mutex_lock(&wd->mu);
	while (!wd->done)
		if (pthread_cond_timedwait(&wd->cv, &wd->mu, &until) == ETIMEDOUT)
			break;
	if (!wd->done)
		warning("still waiting for libvirt to destroy domain %s: its QEMU has not exited "
			"(libvirt sends SIGKILL after 10 s and gives up after about 30 s)",
			wd->name ? wd->name : "?");
	pthread_mutex_unlock(&wd->mu);
	return NULL;
}

/* virDomainDestroy(), with the watchdog above. */
static void destroy_watched(virDomainPtr dom)
{
	struct destroy_watchdog wd = { .mu = PTHREAD_MUTEX_INITIALIZER, .name = virDomainGetName(dom) };
	pthread_condattr_t ca;
	pthread_t th;
	int watching;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&wd.cv, &ca);
	pthread_condattr_destroy(&ca);
	watching = !pthread_create(&th, NULL, destroy_watchdog_main, &wd);
	virDomainDestroy(dom);
	if (watching) {
		pthread_mutex_lock(&wd.mu);
		wd.done = 1;
		pthread_cond_signal(&wd.cv);
		pthread_mutex_unlock(&wd.mu);
		pthread_join(th, NULL);
	}
	pthread_cond_destroy(&wd.cv);
}

void guest_destroy_all(void)
{
	pthread_mutex_lock(&domain_watch_lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i]) {
			destroy_watched(active[i]);
			virDomainFree(active[i]);
			active[i] = NULL;
		}
	pthread_mutex_unlock(&domain_watch_lock);
}

const char *domain_event_name(int event, int detail)
{
	if (event == VIR_DOMAIN_EVENT_STOPPED) {
		switch (detail) {
		case VIR_DOMAIN_EVENT_STOPPED_SHUTDOWN: return "stopped: guest powered off";
		case VIR_DOMAIN_EVENT_STOPPED_DESTROYED: return "stopped: destroyed";
		case VIR_DOMAIN_EVENT_STOPPED_CRASHED: return "stopped: QEMU crashed";
		case VIR_DOMAIN_EVENT_STOPPED_FAILED: return "stopped: failed";
		default: return "stopped";
		}
	}
	if (event == VIR_DOMAIN_EVENT_CRASHED)
		return "guest crashed (panic)";
	return "other";
}

/* Runs in the libvirt event thread. */
static int lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	const char *name = virDomainGetName(dom);

	(void)conn;
	(void)opaque;
	if (!name || (event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_CRASHED))
		return 0;
	pthread_mutex_lock(&domain_watch_lock);
	debug("libvirt event: %s %s", name, domain_event_name(event, detail));
	for (struct watch *w = watches; w; w = w->next) {
		if (strcmp(name, w->name))
			continue;
		if (!w->stopped) {
			w->event = event;
			w->detail = detail;
		}
		w->stopped |= event == VIR_DOMAIN_EVENT_STOPPED;
		domain_wake_fd(w->pipe[1]);
	}
	pthread_mutex_unlock(&domain_watch_lock);
	return 0;
}

/*
 * One lifecycle callback per connection, shared by the runs on it (libvirt
 * refuses the same callback twice on one connection): registered by the
 * first run, dropped by the last. reg_lock, not domain_watch_lock:
 * registering is a call over the connection, and lifecycle_cb takes
 * domain_watch_lock in the event thread.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn_events {
	virConnectPtr conn;
	int cb_id;
	int users;
} conn_events[MAX_ACTIVE];

enum events_status domain_events_get(virConnectPtr conn)
{
	enum events_status r = EVENTS_LIBVIRT_ERROR;
	int free_slot = -1;

	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < MAX_ACTIVE; i++) {
		if (conn_events[i].conn == conn) {
			conn_events[i].users++;
			r = EVENTS_WATCHED;
			goto out;
		}
		if (!conn_events[i].conn && free_slot < 0)
			free_slot = i;
	}
	if (free_slot < 0) {
		r = EVENTS_TABLE_FULL;
		goto out;
	}
	conn_events[free_slot].cb_id = virConnectDomainEventRegisterAny(conn, NULL,
		VIR_DOMAIN_EVENT_ID_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), NULL, NULL);
	if (conn_events[free_slot].cb_id >= 0) {
		conn_events[free_slot].conn = conn;
		conn_events[free_slot].users = 1;
		r = EVENTS_WATCHED;
	}
out:
	pthread_mutex_unlock(&reg_lock);
	return r;
}

void domain_events_put(virConnectPtr conn)
{
	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (conn_events[i].conn == conn && !--conn_events[i].users) {
			virConnectDomainEventDeregisterAny(conn, conn_events[i].cb_id);
			conn_events[i].conn = NULL;
		}
	pthread_mutex_unlock(&reg_lock);
}

int domain_watch_stopped(struct watch *w)
{
	int stopped;

	pthread_mutex_lock(&domain_watch_lock);
	stopped = w->stopped;
	pthread_mutex_unlock(&domain_watch_lock);
	return stopped;
}

/* Sleep until @w's pipe or a signal wakes us, or @ms pass. */
void domain_watch_sleep(struct watch *w, int ms)
{
	struct pollfd p[2] = { { .fd = w->pipe[0], .events = POLLIN },
			       { .fd = sig_pipe[0], .events = POLLIN } };
	char buf[64];

	if (poll(p, 2, ms) > 0 && (p[0].revents & POLLIN))
		while (read(w->pipe[0], buf, sizeof(buf)) > 0)
			;
}
