// SPDX-License-Identifier: GPL-2.0
#include "domain_run.h"
#include "domain_plan.h"
#include "domain_xml.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_image.h"
#include "guest_protocol.h"
#include "interrupt.h"
#include "libvirt_conn.h"
#include "subreaper.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/virterror.h>

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

struct watch {
	struct watch *next;
	const char *name;		/* the run's domain */
	int stopped;
	int event, detail;
	int pipe[2];			/* [1]: written by the event thread; [0]: polled by the run */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct watch *watches;		/* the runs waiting now, under lock */
#define MAX_ACTIVE 64
static virDomainPtr active[MAX_ACTIVE];	/* started, not yet seen stop (any connection) */

const char *guest_run_status_name(enum guest_run_status s)
{
	switch (s) {
	case GUEST_RUN_OK: return "ok";
	case GUEST_RUN_TIMEOUT: return "timeout";
	case GUEST_RUN_INTERRUPTED: return "interrupted";
	default: return "failed";
	}
}

int guest_interrupted(void)
{
	return interrupted();
}

static void wake_fd(int fd)
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
	wake_fd(sig_pipe[1]);
}

/* From interrupt_cleanup(): no guest of the lab outlives the signal. */
static void destroy_on_interrupt(int sig)
{
	(void)sig;
	guest_destroy_all();
}

static int setup_once(void)
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
static int watch_add(struct watch *w, const char *name)
{
	memset(w, 0, sizeof(*w));
	w->name = name;
	if (pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK))
		return -1;
	pthread_mutex_lock(&lock);
	w->next = watches;
	watches = w;
	pthread_mutex_unlock(&lock);
	return 0;
}

/* Once removed (under the lock), no event thread touches @w again. */
static void watch_remove(struct watch *w)
{
	pthread_mutex_lock(&lock);
	for (struct watch **p = &watches; *p; p = &(*p)->next)
		if (*p == w) {
			*p = w->next;
			break;
		}
	pthread_mutex_unlock(&lock);
	close(w->pipe[0]);
	close(w->pipe[1]);
	w->pipe[0] = w->pipe[1] = -1;
}

static void track(virDomainPtr dom)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (!active[i]) {
			active[i] = dom;
			virDomainRef(dom);
			break;
		}
	pthread_mutex_unlock(&lock);
}

static void untrack(virDomainPtr dom)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i] == dom) {
			virDomainFree(active[i]);
			active[i] = NULL;
		}
	pthread_mutex_unlock(&lock);
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
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i]) {
			destroy_watched(active[i]);
			virDomainFree(active[i]);
			active[i] = NULL;
		}
	pthread_mutex_unlock(&lock);
}

static const char *event_name(int event, int detail)
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
	pthread_mutex_lock(&lock);
	debug("libvirt event: %s %s", name, event_name(event, detail));
	for (struct watch *w = watches; w; w = w->next) {
		if (strcmp(name, w->name))
			continue;
		if (!w->stopped) {
			w->event = event;
			w->detail = detail;
		}
		w->stopped |= event == VIR_DOMAIN_EVENT_STOPPED;
		wake_fd(w->pipe[1]);
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

/*
 * One lifecycle callback per connection, shared by the runs on it (libvirt
 * refuses the same callback twice on one connection): registered by the
 * first run, dropped by the last. reg_lock, not lock: registering is a
 * call over the connection, and lifecycle_cb takes lock in the event thread.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct conn_events {
	virConnectPtr conn;
	int cb_id;
	int users;
} conn_events[MAX_ACTIVE];

enum events_status {
	EVENTS_WATCHED,
	EVENTS_LIBVIRT_ERROR,	/* libvirt's error is set */
	EVENTS_TABLE_FULL,	/* more connections than conn_events holds */
};

static LAB_MUST_CHECK enum events_status events_get(virConnectPtr conn)
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

static void events_put(virConnectPtr conn)
{
	pthread_mutex_lock(&reg_lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (conn_events[i].conn == conn && !--conn_events[i].users) {
			virConnectDomainEventDeregisterAny(conn, conn_events[i].cb_id);
			conn_events[i].conn = NULL;
		}
	pthread_mutex_unlock(&reg_lock);
}

static int watch_stopped(struct watch *w)
{
	int stopped;

	pthread_mutex_lock(&lock);
	stopped = w->stopped;
	pthread_mutex_unlock(&lock);
	return stopped;
}

/* Sleep until @w's pipe or a signal wakes us, or @ms pass. */
static void watch_sleep(struct watch *w, int ms)
{
	struct pollfd p[2] = { { .fd = w->pipe[0], .events = POLLIN },
			       { .fd = sig_pipe[0], .events = POLLIN } };
	char buf[64];

	if (poll(p, 2, ms) > 0 && (p[0].revents & POLLIN))
		while (read(w->pipe[0], buf, sizeof(buf)) > 0)
			;
}

void guest_console_tail(const char *console, struct strbuf *out)
{
	struct strbuf raw = STRBUF_INIT;

	/* The guest wrote it: no escapes on to terminals, CI logs, reports. */
	tail_lines(console, 15, &raw);
	sb_add_term_safe(out, sb_str(&raw));
	sb_release(&raw);
}

static void set_failure(struct guest_run *run, enum guest_run_status st, const char *console,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int guest_run_abs(virConnectPtr conn, struct guest_run *run);

static void set_failure(struct guest_run *run, enum guest_run_status st, const char *console,
			const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT, tail = STRBUF_INIT;
	va_list ap;

	if (run->failure)
		return;	/* the first reason is the real one */
	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (console) {
		guest_console_tail(console, &tail);
		if (tail.len)
			sb_addf(&sb, "\nlast lines of %s:\n%s", console, sb_str(&tail));
	}
	run->status = st;
	run->failure = sb_detach(&sb);
	sb_release(&tail);
}

/* Does the results file already hold the runner's hello? (checked once, at the boot deadline) */
static int runner_said_hello(const char *channel)
{
	struct guest_result r;
	int ok;

	guest_result_init(&r);
	ok = !guest_result_parse_file(channel, &r) && r.hello;
	guest_result_release(&r);
	return ok;
}

long long guest_output_cap(const char *name, long long def)
{
	const char *v = getenv(name);
	long n;

	if (!v || !*v || parse_long(v, 1, def, &n))
		return def;
	return n;
}

static int file_over(const char *path, long long max, const char *limit, long long def,
		     const char *knob, struct strbuf *why)
{
	long long size = file_size(path);

	if (size <= max)
		return 0;
	sb_addf(why, "%s grew to %lld bytes, over %s (%lld bytes", path, size, limit, max);
	if (max != def)
		sb_addf(why, ", lowered by $%s from %lld", knob, def);
	sb_adds(why, ")");
	return 1;
}

int guest_output_over(const char *console, long long console_max, const char *channel,
		      long long channel_max, struct strbuf *why)
{
	return file_over(console, console_max, "GUEST_CONSOLE_LOG_MAX", GUEST_CONSOLE_LOG_MAX,
			 "MGLRULAB_TEST_CONSOLE_MAX", why) ||
	       file_over(channel, channel_max, "GUEST_RESULT_FILE_MAX", GUEST_RESULT_FILE_MAX,
			 "MGLRULAB_TEST_CHANNEL_MAX", why);
}

/* Over a cap: the run fails and the guest goes. 1 when that happened. */
static int check_output(virDomainPtr dom, struct guest_run *run, const char *console,
			const char *channel)
{
	struct strbuf why = STRBUF_INIT;

	if (!guest_output_over(console, run->console_max, channel, run->channel_max, &why)) {
		sb_release(&why);
		return 0;
	}
	if (dom)
		virDomainDestroy(dom);
	set_failure(run, GUEST_RUN_FAILED, NULL, "%s: the guest was destroyed", sb_str(&why));
	sb_release(&why);
	return 1;
}

/*
 * What QEMU wrote between the last check and the guest's end goes: the
 * file keeps its first @max bytes (the boot, for the console), and the
 * console says where it was cut.
 */
static void cut_to_cap(const char *path, long long max, const char *limit)
{
	char note[160];
	int n, fd;

	if (file_size(path) <= max)
		return;
	n = snprintf(note, sizeof(note), "\n[mglrulab: cut here, at %s (%lld bytes)]\n", limit, max);
	if (!limit || n >= max) {
		if (truncate(path, max))
			warning("cannot cut %s to %lld bytes: %s", path, max, strerror(errno));
		return;
	}
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || ftruncate(fd, max - n) || pwrite(fd, note, (size_t)n, max - n) != n)
		warning("cannot cut %s to %lld bytes: %s", path, max, strerror(errno));
	if (fd >= 0)
		close(fd);
}

/*
 * A remote run's console and results port come back as libvirt streams
 * (virDomainOpenConsole, virDomainOpenChannel) into the same local files a
 * local run's QEMU writes, so the caps, judge() and everything after it
 * read them unchanged. The streams are non-blocking and read in libvirt's
 * event thread (virStreamEventAddCallback), as virsh console does.
 *
 * A reader is shared with that thread: its callback may still be running
 * when the run is done with it, so it is reference-counted (the run, and
 * libvirt until it calls the free callback) and the callback does nothing
 * once the run has set closed under its lock.
 */
struct reader {
	pthread_mutex_t mu;
	int refs;
	const char *what;		/* "console" or "results channel", for messages */
	virStreamPtr st;
	int fd;				/* the local file */
	long long written, max;		/* what goes past max + 1 bytes is dropped */
	int wake;			/* the run's wake pipe (write end) */
	int registered;			/* the callback is on the stream */
	int closed;			/* the run is done with it */
	int done, failed;		/* end of stream seen; by an error */
	char error[256];
};

/* How long the streams may take to deliver their rest once the domain stopped. */
#define STREAM_DRAIN_S 5.0
/* Chunks read per callback: a flooding guest must not keep the event thread to itself. */
#define STREAM_CHUNKS_PER_EVENT 16

static void reader_unref(void *opaque)
{
	struct reader *r = opaque;
	int last;

	pthread_mutex_lock(&r->mu);
	last = --r->refs == 0;
	pthread_mutex_unlock(&r->mu);
	if (!last)
		return;
	pthread_mutex_destroy(&r->mu);
	free(r);
}

static void reader_write(struct reader *r, const char *buf, int n)
{
	long long room = r->max + 1 - r->written;

	/* one byte past the cap is enough for guest_output_over() to see it */
	if (room <= 0)
		return;
	if (n > room)
		n = (int)room;
	if (write_all(r->fd, buf, (size_t)n) < 0 && !r->failed) {
		r->failed = 1;
		snprintf(r->error, sizeof(r->error), "cannot write: %s", strerror(errno));
	}
	r->written += n;
	if (r->written > r->max)
		wake_fd(r->wake);	/* over the cap: the run destroys the guest now */
}

/* Runs in the libvirt event thread. */
static void reader_cb(virStreamPtr st, int events, void *opaque)
{
	struct reader *r = opaque;
	char buf[65536];

	(void)events;
	pthread_mutex_lock(&r->mu);
	for (int i = 0; i < STREAM_CHUNKS_PER_EVENT && !r->closed && !r->done; i++) {
		int n = virStreamRecv(st, buf, sizeof(buf));

		if (n == -2)
			break;	/* nothing more for now */
		if (n > 0) {
			reader_write(r, buf, n);
			continue;
		}
		/* 0: the end (QEMU closed the pty); -1: the stream broke */
		r->done = 1;
		if (n < 0) {
			r->failed = 1;
			snprintf(r->error, sizeof(r->error), "%s", lab_virt_error());
		}
		virStreamEventRemoveCallback(st);
		r->registered = 0;
		wake_fd(r->wake);
	}
	pthread_mutex_unlock(&r->mu);
}

static int file_create(const char *path)
{
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
}

/*
 * Open @dom's console (@channel NULL) or its channel @channel as a stream
 * into local file @path. NULL with the reason in @err.
 */
static struct reader *reader_open(virDomainPtr dom, const char *channel, const char *path,
				  long long max, int wake, struct strbuf *err)
{
	struct reader *r = xcalloc(1, sizeof(*r));
	int rc;

	pthread_mutex_init(&r->mu, NULL);
	r->refs = 1;
	r->what = channel ? "results channel" : "console";
	r->max = max;
	r->wake = wake;
	r->fd = file_create(path);
	if (r->fd < 0) {
		sb_addf(err, "cannot create %s: %s", path, strerror(errno));
		goto fail;
	}
	r->st = virStreamNew(virDomainGetConnect(dom), VIR_STREAM_NONBLOCK);
	if (!r->st) {
		sb_addf(err, "cannot make a stream for the %s: %s", r->what, lab_virt_error());
		goto fail;
	}
	/* FORCE: a stale reader (a dead earlier controller) cannot hold our own domain's pty */
	rc = channel ? virDomainOpenChannel(dom, channel, r->st, VIR_DOMAIN_CHANNEL_FORCE) :
		       virDomainOpenConsole(dom, NULL, r->st, VIR_DOMAIN_CONSOLE_FORCE);
	if (rc < 0) {
		sb_addf(err, "cannot open the %s stream: %s", r->what, lab_virt_error());
		goto fail;
	}
	r->refs++;	/* libvirt's, dropped by its free callback */
	if (virStreamEventAddCallback(r->st, VIR_STREAM_EVENT_READABLE | VIR_STREAM_EVENT_ERROR |
				      VIR_STREAM_EVENT_HANGUP, reader_cb, r, reader_unref) < 0) {
		r->refs--;
		sb_addf(err, "cannot watch the %s stream: %s", r->what, lab_virt_error());
		virStreamAbort(r->st);
		goto fail;
	}
	r->registered = 1;
	return r;
fail:
	if (r->st)
		virStreamFree(r->st);
	if (r->fd >= 0)
		close(r->fd);
	pthread_mutex_destroy(&r->mu);
	free(r);
	return NULL;
}

static int reader_done(struct reader *r)
{
	int done;

	pthread_mutex_lock(&r->mu);
	done = r->done;
	pthread_mutex_unlock(&r->mu);
	return done;
}

/*
 * The run is done with @r: no callback writes after this returns. A stream
 * that broke (not one that ended) is reported in @why.
 */
static void reader_close(struct reader *r, struct strbuf *why)
{
	int registered, finished;

	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->closed = 1;
	registered = r->registered;
	r->registered = 0;
	finished = r->done && !r->failed;
	if (r->failed && why)
		sb_addf(why, "%sthe %s stream broke: %s", why->len ? "; " : "", r->what, r->error);
	close(r->fd);
	r->fd = -1;
	pthread_mutex_unlock(&r->mu);
	if (registered)
		virStreamEventRemoveCallback(r->st);
	if (finished ? virStreamFinish(r->st) : virStreamAbort(r->st))
		virResetLastError();	/* a stream the domain's end already closed */
	virStreamFree(r->st);
	reader_unref(r);
}

/* After the domain stopped: let both streams deliver what is left, for a while. */
static void readers_drain(struct watch *w, struct reader *const *rs, int n)
{
	double deadline = now_monotonic() + STREAM_DRAIN_S;

	for (;;) {
		int open = 0;
		double now = now_monotonic();

		for (int i = 0; i < n; i++)
			open += rs[i] && !reader_done(rs[i]);
		if (!open || now >= deadline) {
			debug("streams: %d still open %.3f s after the stop", open,
			      now - (deadline - STREAM_DRAIN_S));
			return;
		}
		watch_sleep(w, (int)((deadline - now) * 1000) + 1);
	}
}

/* Has @dir's file system under GUEST_SPACE_LOW free? Its free bytes in *@avail. */
static int folder_full(const char *dir, long long *avail)
{
	struct statvfs v;

	if (statvfs(dir, &v))
		return 0;
	*avail = (long long)v.f_bavail * (long long)v.f_frsize;
	return *avail < GUEST_SPACE_LOW;
}

/* The run folder filled while the guest ran: 1 when the guest was destroyed for it. */
static int check_space(virDomainPtr dom, struct guest_run *run)
{
	long long avail;

	if (!folder_full(run->run_dir, &avail))
		return 0;
	virDomainDestroy(dom);
	set_failure(run, GUEST_RUN_FAILED, NULL, "%s: %s (%lld KiB free): the guest was destroyed, "
		    "its disk, console and results could no longer be written", run->run_dir,
		    strerror(ENOSPC), avail / 1024);
	run->out_of_space = 1;
	return 1;
}

/*
 * A run that failed: was the run folder full (or did a write of ours
 * fail with @err ENOSPC or EDQUOT)? Then this machine failed it, not the
 * guest: say so in its failure.
 */
static void note_space(struct guest_run *run, int err)
{
	long long avail = -1;

	if (run->out_of_space)
		return;
	if (!folder_full(run->run_dir, &avail) && err != ENOSPC && err != EDQUOT)
		return;
	run->out_of_space = 1;
	if (avail < 0)
		return;	/* the failure names the folder and errno already */
	char *f = xasprintf("%s (%s: %lld KiB free: %s)", run->failure ? run->failure : "failed",
			    run->run_dir, avail / 1024, strerror(ENOSPC));
	free(run->failure);
	run->failure = f;
}

/* The runner's first record reached the results file: the boot is over, on the host's clock. */
static void note_boot_wall(struct guest_run *run, const char *channel, double now,
			   double t_created)
{
	if (run->boot_wall_s < 0 && file_size(channel) > 0)
		run->boot_wall_s = now - t_created;
}

/*
 * Wait for the stop event, a deadline, a cap or a signal. Returns with the
 * domain stopped. @start: the run's start (its deadlines count from it);
 * @t_created: the domain's (its boot counts from it).
 */
static void wait_for_stop(virDomainPtr dom, struct guest_run *run, struct watch *w, double start,
			  double t_created, const char *console, const char *channel)
{
	double boot_deadline = start + run->boot_timeout_s;
	double run_deadline = start + run->run_timeout_s;
	int boot_checked = run->boot_timeout_s >= run->run_timeout_s;

	for (;;) {
		double now = now_monotonic(), next = boot_checked ? run_deadline :
			(boot_deadline < run_deadline ? boot_deadline : run_deadline);

		/* the files' sizes: no event tells us, so look at a short interval */
		if (next > now + GUEST_OUTPUT_CHECK_MS / 1000.0)
			next = now + GUEST_OUTPUT_CHECK_MS / 1000.0;

		note_boot_wall(run, channel, now, t_created);
		if (watch_stopped(w))
			return;
		if (interrupted()) {
			set_failure(run, GUEST_RUN_INTERRUPTED, NULL, "interrupted by signal %d: domain destroyed",
				    interrupted());
			interrupt_cleanup();
			return;
		}
		if (check_output(dom, run, console, channel) || check_space(dom, run))
			return;
		/* a host whose connection closed sends no stop event: do not wait for the timeout */
		if (run->remote && virConnectIsAlive(virDomainGetConnect(dom)) == 0) {
			set_failure(run, GUEST_RUN_FAILED, console,
				    "host %s: the connection closed while the guest ran",
				    run->remote->host ? run->remote->host : "?");
			return;
		}
		virDomainInfo info;
		if (!virDomainGetInfo(dom, &info) && info.cpuTime)
			run->qemu_cpu_s = (double)info.cpuTime / 1e9;
		if (!boot_checked && now >= boot_deadline) {
			boot_checked = 1;
			if (!runner_said_hello(channel)) {
				set_failure(run, GUEST_RUN_TIMEOUT, console,
					    "the guest runner did not report within the boot timeout (%d s): destroyed",
					    run->boot_timeout_s);
				virDomainDestroy(dom);
				return;
			}
			continue;
		}
		if (now >= run_deadline) {
			set_failure(run, GUEST_RUN_TIMEOUT, console,
				    "the run did not finish within the run timeout (%d s): destroyed",
				    run->run_timeout_s);
			virDomainDestroy(dom);
			return;
		}
		watch_sleep(w, (int)((next - now) * 1000) + 1);
	}
}

/* After the guest stopped: parse what it sent and decide whether the run counts. */
static void judge(struct guest_run *run, const char *console, const char *channel)
{
	struct guest_result *r = &run->result;

	if (guest_result_parse_file(channel, r) && errno != ENOENT)
		warning("cannot read %s: %s", channel, strerror(errno));
	run->boot_s = guest_result_uptime(r);
	if (run->status != GUEST_RUN_OK)
		return;
	if (!r->hello) {
		set_failure(run, GUEST_RUN_FAILED, console,
			    "the guest stopped (%s) before the runner reported: kernel panic or boot failure?",
			    run->stop_reason ? run->stop_reason : "?");
		return;
	}
	if (!r->done) {
		set_failure(run, GUEST_RUN_FAILED, console,
			    "the guest stopped (%s) before the runner finished: the runner crashed or the stream was cut",
			    run->stop_reason ? run->stop_reason : "?");
		return;
	}
	if (r->bad.n) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "%zu malformed result line%s, first: %s",
			    r->bad.n, r->bad.n == 1 ? "" : "s", r->bad.v[0]);
		return;
	}
	if (json_array_size(r->errors)) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "the guest runner reported: %s",
			    json_string_value(json_array_get(r->errors, 0)));
		return;
	}
}

/* QEMU runs in another folder: every path it sees must be absolute. */
static char *abs_path(const char *p)
{
	char *cwd, *r;

	if (!p)
		return NULL;
	cwd = getcwd(NULL, 0);
	r = path_absolute(cwd ? cwd : "/", p);
	free(cwd);
	return r;
}

int guest_run(virConnectPtr conn, struct guest_run *run)
{
	struct guest_run abs = *run;
	char *k = NULL, *i = NULL, *b = NULL, *d = abs_path(run->run_dir);
	int r;

	/* a remote run's paths are the host's, already absolute there */
	if (!run->remote) {
		k = abs_path(run->kernel);
		i = abs_path(run->initrd);
		b = abs_path(run->base_image);
		abs.kernel = k;
		abs.initrd = i;
		abs.base_image = b;
	}
	abs.run_dir = d;
	r = guest_run_abs(conn, &abs);
	abs.kernel = run->kernel;
	abs.initrd = run->initrd;
	abs.base_image = run->base_image;
	abs.run_dir = run->run_dir;
	*run = abs;
	free(k);
	free(i);
	free(b);
	free(d);
	return r;
}

/* What a remote run cannot do: no local path reaches the host. 0, or -1 with the failure set. */
static int remote_refuses(struct guest_run *run)
{
	const char *wl = run->workload && *run->workload ? run->workload : NULL;

	if (run->nr_shares) {
		set_failure(run, GUEST_RUN_FAILED, NULL,
			    "%s%s needs the 9p share %s (%s), a folder on this machine, which a run on "
			    "host %s cannot reach: run it on the embedded host",
			    wl ? "workload " : "the run", wl ? wl : "", run->shares[0].tag,
			    run->shares[0].host_dir, run->remote->host ? run->remote->host : "?");
		return -1;
	}
	if (run->keep_disk) {
		set_failure(run, GUEST_RUN_FAILED, NULL,
			    "keep_disk: the run's disk on host %s is a volume there, not a file to extract "
			    "from here", run->remote->host ? run->remote->host : "?");
		return -1;
	}
	return 0;
}

/*
 * A remote run's streams, opened while the domain is paused: QEMU drops
 * what the serial port writes to a pty nobody holds open, so the guest may
 * run only once both are open. 0, or -1 with the failure set.
 */
static int open_streams(virDomainPtr dom, struct guest_run *run, struct watch *w,
			const char *console, const char *channel, struct reader **rs)
{
	struct strbuf err = STRBUF_INIT;

	rs[0] = reader_open(dom, NULL, console, run->console_max, w->pipe[1], &err);
	if (rs[0])
		rs[1] = reader_open(dom, GUEST_CHANNEL_NAME, channel, run->channel_max, w->pipe[1], &err);
	if (!rs[0] || !rs[1] || virDomainResume(dom) < 0) {
		if (!err.len)
			sb_addf(&err, "cannot resume the domain: %s", lab_virt_error());
		set_failure(run, GUEST_RUN_FAILED, NULL, "host %s: %s",
			    run->remote->host ? run->remote->host : "?", sb_str(&err));
		virDomainDestroy(dom);
		sb_release(&err);
		return -1;
	}
	sb_release(&err);
	return 0;
}

/* The limits a run left at 0 takes from its topology and the lab's caps. */
static void run_defaults(struct guest_run *run)
{
	run->status = GUEST_RUN_OK;
	run->boot_s = run->guest_s = run->boot_wall_s = -1;
	guest_result_init(&run->result);
	if (!run->boot_timeout_s)
		run->boot_timeout_s = run->topo->boot_timeout_s;
	if (!run->run_timeout_s)
		run->run_timeout_s = run->topo->run_timeout_s;
	if (!run->console_max)
		run->console_max = guest_output_cap("MGLRULAB_TEST_CONSOLE_MAX", GUEST_CONSOLE_LOG_MAX);
	if (!run->channel_max)
		run->channel_max = guest_output_cap("MGLRULAB_TEST_CHANNEL_MAX", GUEST_RESULT_FILE_MAX);
}

/* Signal handling and the run's folder. 0, or -1 with the failure set. */
static int run_dir_ready(struct guest_run *run)
{
	if (setup_once()) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot set up signal handling: %s", strerror(errno));
		return -1;
	}
	if (mkdir_p(run->run_dir, 0755)) {
		int e = errno;

		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot create %s: %s", run->run_dir, strerror(e));
		note_space(run, e);
		return -1;
	}
	return 0;
}

/*
 * The guest's disk in *@disk: the remote host's volume, or a fresh overlay
 * over the base image in the run's folder (NULL without a base image).
 * 0, or -1 with the failure set.
 */
static int make_disk(struct guest_run *run, char **disk)
{
	struct strbuf err = STRBUF_INIT;

	if (run->remote) {
		*disk = run->remote->disk ? xstrdup(run->remote->disk) : NULL;
	} else if (run->base_image) {
		*disk = path_join(run->run_dir, "disk.qcow2");
		if (guest_overlay_create(run->base_image, *disk, &err)) {
			set_failure(run, GUEST_RUN_FAILED, NULL, "%s", sb_str(&err));
			sb_release(&err);
			return -1;
		}
	}
	sb_release(&err);
	return 0;
}

/*
 * The job and the domain's XML, both kept beside the run (what the guest
 * was given). The XML, or NULL with the failure set.
 */
static char *write_job_and_domain(virConnectPtr conn, struct guest_run *run,
				  const char *job_path, const char *xml_path)
{
	struct domain_owner owner;
	char *xml;

	if (run->job_json && write_file_atomic(job_path, run->job_json, strlen(run->job_json))) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot write %s: %s", job_path, strerror(errno));
		return NULL;
	}
	/* one composition of the domain for this and `guest boot --print-xml` */
	lab_virt_owner(conn, &owner);
	xml = guest_run_domain_xml(run, run->domain_name, &owner);
	domain_owner_release(&owner);
	if (!xml) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot compose the domain of %s: %s",
			    run->run_dir, strerror(errno));
		return NULL;
	}
	if (write_file_atomic(xml_path, xml, strlen(xml)))
		warning("cannot save %s: %s", xml_path, strerror(errno));
	return xml;
}

/*
 * Watch the run's domain, by name, before it exists: its lifecycle events
 * and the pipe the readers wake the wait with. *@watching and *@events say
 * what to undo. 0, or -1 with the failure set (also when interrupted).
 */
static int watch_domain(virConnectPtr conn, struct guest_run *run, struct watch *w,
			int *watching, int *events)
{
	enum events_status ev;

	if (watch_add(w, run->domain_name)) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	*watching = 1;
	ev = events_get(conn);
	*events = ev == EVENTS_WATCHED;
	if (!*events) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot watch libvirt lifecycle events: %s",
			    ev == EVENTS_TABLE_FULL ? "more connections than MAX_ACTIVE" : lab_virt_error());
		return -1;
	}
	if (interrupted()) {
		set_failure(run, GUEST_RUN_INTERRUPTED, NULL, "interrupted by signal %d", interrupted());
		return -1;
	}
	return 0;
}

/* Create the domain of @xml, tracked. NULL with the failure set. */
static virDomainPtr start_domain(virConnectPtr conn, struct guest_run *run, const char *xml,
				 const char *xml_path)
{
	virDomainPtr dom;
	unsigned flags;

	/*
	 * AUTODESTROY: should we die without cleaning up, the daemon kills the
	 * guest when our connection drops. The embedded driver has no daemon
	 * (and refuses the flag); there the next lab_virt_open() cleans up.
	 * A remote run starts paused until its streams are open.
	 */
	flags = lab_virt_is_embedded(conn) ? 0 : VIR_DOMAIN_START_AUTODESTROY;
	if (run->remote)
		flags |= VIR_DOMAIN_START_PAUSED;
	dom = virDomainCreateXML(conn, xml, flags);
	if (!dom) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot start the domain: %s (XML in %s)",
			    lab_virt_error(), xml_path);
		return NULL;
	}
	track(dom);
	run->started = 1;
	return dom;
}

/*
 * The domain has stopped: collect what its streams still carry, cut the
 * output to its caps, and judge the run. @why gathers a stream's break.
 */
static void after_stop(virDomainPtr dom, struct guest_run *run, struct watch *w,
		       struct reader **rs, struct strbuf *why, const char *console,
		       const char *channel, double t0, double t_created)
{
	double t_stopped;

	if (run->remote) {
		/* what the streams still carry, then no more writes */
		readers_drain(w, rs, 2);
		reader_close(rs[0], why);
		reader_close(rs[1], why);
		rs[0] = rs[1] = NULL;
	}
	/* a guest that flooded and stopped between two checks */
	check_output(NULL, run, console, channel);
	cut_to_cap(console, run->console_max, "GUEST_CONSOLE_LOG_MAX");
	cut_to_cap(channel, run->channel_max, NULL);
	t_stopped = now_monotonic();
	pthread_mutex_lock(&lock);
	if (w->stopped || run->failure)
		run->stop_reason = xstrdup(w->stopped ? event_name(w->event, w->detail) :
					   "destroyed by mglrulab");
	pthread_mutex_unlock(&lock);
	untrack(dom);
	run->wall_s = t_stopped - t0;
	judge(run, console, channel);
	/* a run that failed with a broken stream: say so, it may be why */
	if (why->len && run->failure) {
		char *f = xasprintf("%s (%s)", run->failure, sb_str(why));

		free(run->failure);
		run->failure = f;
	}
	/* the guest's clock: kernel start to the runner's last record */
	if (run->boot_s >= 0 && run->result.done)
		run->guest_s = run->boot_s + run->result.done_t;
	/* host-side work: everything but the guest's own boot and run */
	run->host_s = (t_created - t0) + (now_monotonic() - t_stopped);
}

static int guest_run_abs(virConnectPtr conn, struct guest_run *run)
{
	char *xml_path, *job_path, *console, *channel, *disk = NULL, *xml;
	static unsigned seq;
	double t0 = now_monotonic(), t_created;
	struct strbuf why = STRBUF_INIT;
	struct reader *rs[2] = { NULL, NULL };
	struct watch w = { .pipe = { -1, -1 } };
	virDomainPtr dom = NULL;
	int events = 0, watching = 0;

	run_defaults(run);
	if (run->remote && remote_refuses(run))
		return -1;
	if (run_dir_ready(run))
		return -1;
	xml_path = path_join(run->run_dir, "domain.xml");
	job_path = path_join(run->run_dir, "job.json");
	console = path_join(run->run_dir, "console.log");
	channel = path_join(run->run_dir, "results.jsonl");
	/* a rerun into the same folder must not see the last run's output */
	unlink(console);
	unlink(channel);
	run->domain_name = xasprintf(LAB_DOMAIN_PREFIX "%ld-%u", (long)getpid(),
				     __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));

	if (make_disk(run, &disk))
		goto out;
	xml = write_job_and_domain(conn, run, job_path, xml_path);
	if (!xml)
		goto out;
	if (watch_domain(conn, run, &w, &watching, &events)) {
		free(xml);
		goto out;
	}
	dom = start_domain(conn, run, xml, xml_path);
	free(xml);
	if (!dom)
		goto out;
	if (run->remote && open_streams(dom, run, &w, console, channel, rs)) {
		untrack(dom);
		goto out;
	}
	t_created = now_monotonic();
	debug("started %s (%.3f s host setup)", run->domain_name, t_created - t0);
	wait_for_stop(dom, run, &w, t0, t_created, console, channel);
	after_stop(dom, run, &w, rs, &why, console, channel, t0, t_created);
out:
	/* before the overlay goes: its size may be what filled the folder */
	if (run->status != GUEST_RUN_OK && run->status != GUEST_RUN_INTERRUPTED)
		note_space(run, 0);
	reader_close(rs[0], NULL);
	reader_close(rs[1], NULL);
	if (events)
		events_put(conn);
	if (watching)
		watch_remove(&w);
	if (dom)
		virDomainFree(dom);
	if (disk && !run->keep_disk && !run->remote)
		unlink(disk);
	sb_release(&why);
	free(disk);
	free(xml_path);
	free(job_path);
	free(console);
	free(channel);
	return run->status == GUEST_RUN_OK ? 0 : -1;
}

void guest_run_release(struct guest_run *run)
{
	free(run->failure);
	free(run->domain_name);
	free(run->stop_reason);
	guest_result_release(&run->result);
	run->failure = run->domain_name = run->stop_reason = NULL;
}
