// SPDX-License-Identifier: GPL-2.0
/* One guest run on a [host], everything through its connection (host_run.h). */
#include "host_run.h"
#include "host_volume.h"
#include "libvirt_conn.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The volumes ensured so far, per host (its URI and pool) and local file
 * (path, and device, inode, size, modification and change times as the
 * descriptor that was hashed and sent saw them): hashing a 100 MB image
 * costs about 0.1 s, and a session would otherwise pay it before every
 * run. A file changed in place gets a new ctime (which no one can set
 * back), a file replaced another inode: either way a new look. The URI is
 * compared as a string: it is the host's own, from one [host] section.
 */
struct vol_entry {
	struct vol_entry *next;
	char *uri, *pool, *file;
	struct host_volume vol;		/* vol.st: the file as hashed */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vol_entry *cache;

void host_run_forget_volumes(void)
{
	pthread_mutex_lock(&cache_lock);
	while (cache) {
		struct vol_entry *e = cache;

		cache = e->next;
		host_volume_release(&e->vol);
		free(e->uri);
		free(e->pool);
		free(e->file);
		free(e);
	}
	pthread_mutex_unlock(&cache_lock);
}

static int same_file(const struct vol_entry *e, const struct lab_host *h, const char *file,
		     const struct stat *st)
{
	const struct stat *was = &e->vol.st;

	return !strcmp(e->uri, h->cfg->uri) && !strcmp(e->pool, h->cfg->pool) &&
	       !strcmp(e->file, file) && was->st_dev == st->st_dev && was->st_ino == st->st_ino &&
	       was->st_size == st->st_size && was->st_mtim.tv_sec == st->st_mtim.tv_sec &&
	       was->st_mtim.tv_nsec == st->st_mtim.tv_nsec &&
	       was->st_ctim.tv_sec == st->st_ctim.tv_sec &&
	       was->st_ctim.tv_nsec == st->st_ctim.tv_nsec;
}

/*
 * @file on @h: its path there in *@path (caller frees), from this
 * process's cache or host_volume_ensure(). *@vol (when not NULL) gets a
 * copy of the volume for an overlay's backing store; an upload is counted
 * in @stats. 0, or -1 with @err.
 * The lock is held through the upload: two slots' threads must not send
 * one volume twice (the second would fail on the existing name).
 */
static int ensure(struct lab_host *h, const char *file, enum host_vol_kind kind,
		  struct host_volume *vol, struct host_run_stats *stats, struct strbuf *err)
{
	struct vol_entry *e;
	struct stat st;
	int r = -1;

	if (stat(file, &st)) {
		sb_addf(err, "%s: %s", file, strerror(errno));
		return -1;
	}
	pthread_mutex_lock(&cache_lock);
	for (e = cache; e && !same_file(e, h, file, &st); e = e->next)
		;
	if (!e) {
		e = xcalloc(1, sizeof(*e));
		if (host_volume_ensure(h, file, kind, &e->vol, err)) {
			host_volume_release(&e->vol);
			free(e);
			goto out;
		}
		stats->volumes_uploaded += e->vol.uploaded;
		debug("host %s: %s %s (%.3f s)", h->cfg->name, e->vol.name,
		      e->vol.uploaded ? "uploaded" : "already there", e->vol.seconds);
		e->uri = xstrdup(h->cfg->uri);
		e->pool = xstrdup(h->cfg->pool);
		e->file = xstrdup(file);
		e->next = cache;
		cache = e;
	}
	*vol = e->vol;
	vol->name = xstrdup(e->vol.name);
	vol->path = xstrdup(e->vol.path);
	r = 0;
out:
	pthread_mutex_unlock(&cache_lock);
	return r;
}

/* A run that never reached the guest: the host failed it. */
static int host_failed(struct lab_host *h, struct guest_run *run, struct host_run_stats *st,
		       struct strbuf *err)
{
	guest_result_init(&run->result);
	run->status = GUEST_RUN_FAILED;
	run->boot_s = run->guest_s = run->boot_wall_s = -1;
	st->host_error = 1;
	free(run->failure);
	/* host_volume.c's messages name the host already; local file errors do not */
	run->failure = strncmp(sb_str(err), "host ", 5) ?
		xasprintf("host %s: %s", h->cfg->name, sb_str(err)) : xstrdup(sb_str(err));
	return -1;
}

/* After a failed run: was it the host (its connection gone) rather than the guest? */
static void blame_host(struct lab_host *h, struct guest_run *run, struct host_run_stats *st)
{
	char *f;

	if (run->status == GUEST_RUN_OK || run->status == GUEST_RUN_INTERRUPTED ||
	    virConnectIsAlive(h->conn) == 1)
		return;
	st->host_error = 1;
	f = xasprintf("%s (host %s: the connection to %s is lost)", run->failure ? run->failure : "failed",
		      h->cfg->name, h->cfg->uri);
	free(run->failure);
	run->failure = f;
}

/* Delete the run's own volumes (a volume that is not there is no error). */
static void drop_volume(struct lab_host *h, const char *name)
{
	struct strbuf err = STRBUF_INIT;

	if (name && host_volume_delete(h, name, &err))
		warning("%s", sb_str(&err));
	sb_release(&err);
}

/* What fetch_console() needs: the host and the run's console log volume. */
struct console_vol {
	struct lab_host *h;
	const char *name;
};

/*
 * guest_remote's fetch_console: the log volume into a file beside @path,
 * renamed over it once whole, so that a failed download leaves the
 * streamed console as it was.
 */
static int fetch_console(void *ctx, const char *path, long long max, struct strbuf *err)
{
	const struct console_vol *cv = ctx;
	char *tmp = xasprintf("%s.host", path);
	int r = host_volume_get(cv->h, cv->name, tmp, (uint64_t)max, err);

	if (!r && rename(tmp, path) < 0) {
		sb_addf(err, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
		r = -1;
	}
	if (r)
		unlink(tmp);
	free(tmp);
	return r;
}

/* A run's volumes on the host: those it shares (ensured) and its own. */
struct run_vols {
	struct host_volume kernel, initrd, image;	/* ensured: kept */
	struct host_volume overlay, job, console;	/* the run's own: deleted after it */
	char *overlay_name, *job_name, *console_name;
	struct console_vol con;
};

/*
 * Everything @run needs on @h, into @v and @rem: its kernel, initrd and
 * image ensured, and its own overlay, job and console log volumes made.
 * 0, or -1 with @err (what was made is in @v, for run_vols_drop()).
 */
static int run_vols_make(struct lab_host *h, struct guest_run *run, struct run_vols *v,
			 struct guest_remote *rem, struct host_run_stats *st, struct strbuf *err)
{
	static unsigned seq;
	unsigned n;

	if (ensure(h, run->kernel, HOST_VOL_KERNEL, &v->kernel, st, err) ||
	    (run->initrd && ensure(h, run->initrd, HOST_VOL_KERNEL, &v->initrd, st, err)) ||
	    (run->base_image && ensure(h, run->base_image, HOST_VOL_IMAGE, &v->image, st, err)))
		return -1;
	rem->kernel = v->kernel.path;
	rem->initrd = run->initrd ? v->initrd.path : NULL;
	n = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
	if (run->base_image) {
		v->overlay_name = xasprintf("mglrulab-run-%ld-%u.qcow2", (long)getpid(), n);
		if (host_overlay_create(h, &v->image, v->overlay_name, &v->overlay, err))
			return -1;
		rem->disk = v->overlay.path;
	}
	/*
	 * The job as a volume, named by QEMU's fw_cfg file=: libvirt 9.0 puts
	 * an inline <entry>TEXT</entry> on QEMU's command line XML-escaped and
	 * with its commas unescaped, so a JSON text cannot go inline.
	 */
	if (run->job_json) {
		v->job_name = xasprintf("mglrulab-run-%ld-%u.job", (long)getpid(), n);
		if (host_volume_put(h, v->job_name, run->job_json, strlen(run->job_json), &v->job,
				    err))
			return -1;
		rem->job = v->job.path;
	}
	/* QEMU's log of the console, every byte (guest_remote) */
	v->console_name = xasprintf("mglrulab-run-%ld-%u.console", (long)getpid(), n);
	if (host_volume_make(h, v->console_name, &v->console, err))
		return -1;
	v->con = (struct console_vol){ .h = h, .name = v->console_name };
	rem->console_log = v->console.path;
	rem->fetch_console = fetch_console;
	rem->fetch_ctx = &v->con;
	return 0;
}

/* The run's own volumes deleted, whatever happened; all of @v released. */
static void run_vols_drop(struct lab_host *h, struct run_vols *v)
{
	drop_volume(h, v->overlay_name);
	drop_volume(h, v->job_name);
	drop_volume(h, v->console_name);
	host_volume_release(&v->kernel);
	host_volume_release(&v->initrd);
	host_volume_release(&v->image);
	host_volume_release(&v->overlay);
	host_volume_release(&v->job);
	host_volume_release(&v->console);
	free(v->overlay_name);
	free(v->job_name);
	free(v->console_name);
}

int host_guest_run(struct lab_host *h, struct guest_run *run, struct host_run_stats *st)
{
	struct run_vols v = { 0 };
	struct guest_remote rem = { .host = h->cfg->name };
	struct strbuf err = STRBUF_INIT;
	double t0 = now_monotonic(), t1;
	int r;

	*st = (struct host_run_stats){ 0 };
	if (h->embedded)
		return guest_run(h->conn, run);
	/* what guest_run() refuses for a remote run: refused before any upload */
	if (run->nr_shares || run->keep_disk) {
		run->remote = &rem;
		r = guest_run(h->conn, run);
		run->remote = NULL;
		return r;
	}
	if (run_vols_make(h, run, &v, &rem, st, &err)) {
		r = host_failed(h, run, st, &err);
	} else {
		run->remote = &rem;
		t1 = now_monotonic();
		r = guest_run(h->conn, run);
		run->remote = NULL;
		blame_host(h, run, st);
		t0 += now_monotonic() - t1;	/* the run itself is not volume time */
	}
	run_vols_drop(h, &v);
	st->volume_s = now_monotonic() - t0;
	sb_release(&err);
	return r;
}

int host_guest_runner(void *ctx, struct guest_run *run)
{
	struct host_runner *hr = ctx;

	return host_guest_run(hr->host, run, &hr->stats);
}
