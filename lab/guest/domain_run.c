// SPDX-License-Identifier: GPL-2.0
#include "domain_run_priv.h"
#include "domain_plan.h"
#include "domain_xml.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_image.h"
#include "guest_protocol.h"
#include "interrupt.h"
#include "libvirt_conn.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/virterror.h>

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

void guest_console_tail(const char *console, struct strbuf *out)
{
	struct strbuf raw = STRBUF_INIT;

	/* The guest wrote it: no escapes on to terminals, CI logs, reports. */
	tail_lines(console, 15, &raw);
	sb_add_term_safe(out, sb_str(&raw));
	sb_release(&raw);
}

static int guest_run_abs(virConnectPtr conn, struct guest_run *run);

void domain_set_failure(struct guest_run *run, enum guest_run_status st, const char *console,
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
		if (domain_watch_stopped(w))
			return;
		if (interrupted()) {
			domain_set_failure(run, GUEST_RUN_INTERRUPTED, NULL,
					   "interrupted by signal %d: domain destroyed", interrupted());
			interrupt_cleanup();
			return;
		}
		if (domain_check_output(dom, run, console, channel) || domain_check_space(dom, run))
			return;
		/* a host whose connection closed sends no stop event: do not wait for the timeout */
		if (run->remote && virConnectIsAlive(virDomainGetConnect(dom)) == 0) {
			domain_set_failure(run, GUEST_RUN_FAILED, console,
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
				domain_set_failure(run, GUEST_RUN_TIMEOUT, console,
						   "the guest runner did not report within the boot timeout (%d s): destroyed",
						   run->boot_timeout_s);
				virDomainDestroy(dom);
				return;
			}
			continue;
		}
		if (now >= run_deadline) {
			domain_set_failure(run, GUEST_RUN_TIMEOUT, console,
					   "the run did not finish within the run timeout (%d s): destroyed",
					   run->run_timeout_s);
			virDomainDestroy(dom);
			return;
		}
		domain_watch_sleep(w, (int)((next - now) * 1000) + 1);
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
		domain_set_failure(run, GUEST_RUN_FAILED, console,
				   "the guest stopped (%s) before the runner reported: kernel panic or boot failure?",
				   run->stop_reason ? run->stop_reason : "?");
		return;
	}
	if (!r->done) {
		domain_set_failure(run, GUEST_RUN_FAILED, console,
				   "the guest stopped (%s) before the runner finished: the runner crashed or the stream was cut",
				   run->stop_reason ? run->stop_reason : "?");
		return;
	}
	if (r->bad.n) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "%zu malformed result line%s, first: %s",
				   r->bad.n, r->bad.n == 1 ? "" : "s", r->bad.v[0]);
		return;
	}
	if (json_array_size(r->errors)) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "the guest runner reported: %s",
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
		domain_set_failure(run, GUEST_RUN_FAILED, NULL,
				   "%s%s needs the 9p share %s (%s), a folder on this machine, which a run on "
				   "host %s cannot reach: run it on the embedded host",
				   wl ? "workload " : "the run", wl ? wl : "", run->shares[0].tag,
				   run->shares[0].host_dir, run->remote->host ? run->remote->host : "?");
		return -1;
	}
	if (run->keep_disk) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL,
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

	rs[0] = domain_reader_open(dom, NULL, console, run->console_max, w->pipe[1], &err);
	if (rs[0])
		rs[1] = domain_reader_open(dom, GUEST_CHANNEL_NAME, channel, run->channel_max, w->pipe[1], &err);
	if (!rs[0] || !rs[1] || virDomainResume(dom) < 0) {
		if (!err.len)
			sb_addf(&err, "cannot resume the domain: %s", lab_virt_error());
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "host %s: %s",
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
	if (domain_events_setup()) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot set up signal handling: %s",
				   strerror(errno));
		return -1;
	}
	if (mkdir_p(run->run_dir, 0755)) {
		int e = errno;

		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot create %s: %s", run->run_dir,
				   strerror(e));
		domain_note_space(run, e);
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
			domain_set_failure(run, GUEST_RUN_FAILED, NULL, "%s", sb_str(&err));
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
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot write %s: %s", job_path, strerror(errno));
		return NULL;
	}
	/* one composition of the domain for this and `guest boot --print-xml` */
	lab_virt_owner(conn, &owner);
	xml = guest_run_domain_xml(run, run->domain_name, &owner);
	domain_owner_release(&owner);
	if (!xml) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot compose the domain of %s: %s",
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

	if (domain_watch_add(w, run->domain_name)) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	*watching = 1;
	ev = domain_events_get(conn);
	*events = ev == EVENTS_WATCHED;
	if (!*events) {
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot watch libvirt lifecycle events: %s",
				   ev == EVENTS_TABLE_FULL ? "more connections than MAX_ACTIVE" : lab_virt_error());
		return -1;
	}
	if (interrupted()) {
		domain_set_failure(run, GUEST_RUN_INTERRUPTED, NULL, "interrupted by signal %d", interrupted());
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
		domain_set_failure(run, GUEST_RUN_FAILED, NULL, "cannot start the domain: %s (XML in %s)",
				   lab_virt_error(), xml_path);
		return NULL;
	}
	domain_track(dom);
	run->started = 1;
	return dom;
}

/*
 * A remote run's console.log from QEMU's own log on the host, over what
 * the pty stream delivered (which may have lost a loaded guest's bytes);
 * one more than the cap, so that the cap still sees a flood.
 */
static void fetch_console(struct guest_run *run, const char *console)
{
	const struct guest_remote *rem = run->remote;
	struct strbuf err = STRBUF_INIT;
	struct stat before, after;

	if (!rem->console_log || !rem->fetch_console)
		return;
	if (stat(console, &before))
		before.st_size = -1;
	if (rem->fetch_console(rem->fetch_ctx, console, run->console_max + 1, &err))
		warning("%s: the console as streamed (QEMU's log of it could not be read: %s)",
			console, sb_str(&err));
	else if (!stat(console, &after))
		/* (bench/host-stream-end counts the streams that fell short) */
		debug("console: %lld bytes streamed, %lld in QEMU's log", (long long)before.st_size,
		      (long long)after.st_size);
	sb_release(&err);
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
		domain_readers_drain(w, rs, 2);
		domain_reader_close(rs[0], why);
		domain_reader_close(rs[1], why);
		rs[0] = rs[1] = NULL;
		fetch_console(run, console);
	}
	/* a guest that flooded and stopped between two checks */
	domain_check_output(NULL, run, console, channel);
	domain_cut_to_cap(console, run->console_max, "GUEST_CONSOLE_LOG_MAX");
	domain_cut_to_cap(channel, run->channel_max, NULL);
	t_stopped = now_monotonic();
	pthread_mutex_lock(&domain_watch_lock);
	if (w->stopped || run->failure)
		run->stop_reason = xstrdup(w->stopped ? domain_event_name(w->event, w->detail) :
					   "destroyed by mglrulab");
	pthread_mutex_unlock(&domain_watch_lock);
	domain_untrack(dom);
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
		domain_untrack(dom);
		goto out;
	}
	t_created = now_monotonic();
	debug("started %s (%.3f s host setup)", run->domain_name, t_created - t0);
	wait_for_stop(dom, run, &w, t0, t_created, console, channel);
	after_stop(dom, run, &w, rs, &why, console, channel, t0, t_created);
out:
	/* before the overlay goes: its size may be what filled the folder */
	if (run->status != GUEST_RUN_OK && run->status != GUEST_RUN_INTERRUPTED)
		domain_note_space(run, 0);
	domain_reader_close(rs[0], NULL);
	domain_reader_close(rs[1], NULL);
	if (events)
		domain_events_put(conn);
	if (watching)
		domain_watch_remove(&w);
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
