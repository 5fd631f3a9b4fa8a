// SPDX-License-Identifier: GPL-2.0
#include "domain_run_priv.h"
#include "fsutil.h"
#include "libvirt_conn.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libvirt/virterror.h>

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
		domain_wake_fd(r->wake);	/* over the cap: the run destroys the guest now */
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
		domain_wake_fd(r->wake);
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
struct reader *domain_reader_open(virDomainPtr dom, const char *channel, const char *path,
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
void domain_reader_close(struct reader *r, struct strbuf *why)
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
void domain_readers_drain(struct watch *w, struct reader *const *rs, int n)
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
		domain_watch_sleep(w, (int)((deadline - now) * 1000) + 1);
	}
}
