// SPDX-License-Identifier: GPL-2.0
#include "domain_run.h"
#include "domain_xml.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_image.h"
#include "guest_protocol.h"
#include "interrupt.h"
#include "libvirt_conn.h"
#include "qemu_reaper.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Wake-ups for the waiting main thread come through one pipe: the libvirt
 * event thread writes when a lab domain stops, the signal handler
 * (lab/lib/interrupt.h) writes on SIGINT/SIGTERM. poll() on it with the
 * next deadline as timeout is the whole wait: no sleeping, no polling the
 * domain state.
 */
static int wake_pipe[2] = { -1, -1 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define MAX_ACTIVE 64
static virDomainPtr active[MAX_ACTIVE];	/* started, not yet seen stop */

/* The run being waited for (one at a time per process). */
static struct {
	const char *name;
	int stopped;
	int event, detail;
} watch;

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

static void wake(void)
{
	int saved = errno;

	if (wake_pipe[1] >= 0 && write(wake_pipe[1], "x", 1) < 0) {
		/* pipe full: a wake-up is already pending */
	}
	errno = saved;
}

/* In the signal handler: the waiting main thread wakes up and sees interrupted(). */
static void wake_on_signal(int sig)
{
	(void)sig;
	wake();
}

/* From interrupt_cleanup(): no guest of the lab outlives the signal. */
static void destroy_on_interrupt(int sig)
{
	(void)sig;
	guest_destroy_all();
}

static int setup_once(void)
{
	if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK))
		return -1;
	if (qemu_reaper_enable())
		warning("cannot reap QEMU processes ourselves (%s): each run waits for init to",
			strerror(errno));
	if (interrupt_on_signal(wake_on_signal) || interrupt_on_cleanup(destroy_on_interrupt)) {
		errno = ENOSPC;
		return -1;
	}
	return interrupt_catch();
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

void guest_destroy_all(void)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAX_ACTIVE; i++)
		if (active[i]) {
			virDomainDestroy(active[i]);
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
	pthread_mutex_lock(&lock);
	debug("libvirt event: %s %s", name ? name : "?", event_name(event, detail));
	if (watch.name && name && !strcmp(name, watch.name) &&
	    (event == VIR_DOMAIN_EVENT_STOPPED || event == VIR_DOMAIN_EVENT_CRASHED)) {
		if (!watch.stopped) {
			watch.event = event;
			watch.detail = detail;
		}
		watch.stopped |= event == VIR_DOMAIN_EVENT_STOPPED;
		wake();
	}
	pthread_mutex_unlock(&lock);
	return 0;
}

static void drain_wake(void)
{
	char buf[64];

	while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
		;
}

static char *build_cmdline(const struct guest_run *run)
{
	struct strbuf sb = STRBUF_INIT;

	sb_adds(&sb, GUEST_BASE_CMDLINE);
	if (run->accel == ACCEL_TCG)
		sb_adds(&sb, " " GUEST_TCG_CMDLINE);
	if (run->base_image)
		sb_adds(&sb, " root=/dev/vda rootfstype=ext4 rw init=" GUEST_RUNNER_PATH);
	if (run->extra_cmdline && *run->extra_cmdline)
		sb_addf(&sb, " %s", run->extra_cmdline);
	return sb_detach(&sb);
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

/* Wait for the stop event, a deadline, a cap or a signal. Returns with the domain stopped. */
static void wait_for_stop(virDomainPtr dom, struct guest_run *run, double start,
			  const char *console, const char *channel)
{
	double boot_deadline = start + run->boot_timeout_s;
	double run_deadline = start + run->run_timeout_s;
	int boot_checked = run->boot_timeout_s >= run->run_timeout_s;

	for (;;) {
		double now = now_monotonic(), next = boot_checked ? run_deadline :
			(boot_deadline < run_deadline ? boot_deadline : run_deadline);
		struct pollfd p = { .fd = wake_pipe[0], .events = POLLIN };
		int stopped;

		/* the files' sizes: no event tells us, so look at a short interval */
		if (next > now + GUEST_OUTPUT_CHECK_MS / 1000.0)
			next = now + GUEST_OUTPUT_CHECK_MS / 1000.0;

		pthread_mutex_lock(&lock);
		stopped = watch.stopped;
		pthread_mutex_unlock(&lock);
		if (stopped)
			return;
		if (interrupted()) {
			set_failure(run, GUEST_RUN_INTERRUPTED, NULL, "interrupted by signal %d: domain destroyed",
				    interrupted());
			interrupt_cleanup();
			return;
		}
		if (check_output(dom, run, console, channel))
			return;
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
		int ms = (int)((next - now) * 1000) + 1;
		if (poll(&p, 1, ms) > 0)
			drain_wake();
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
	char *k = abs_path(run->kernel), *i = abs_path(run->initrd), *b = abs_path(run->base_image);
	char *d = abs_path(run->run_dir);
	int r;

	abs.kernel = k;
	abs.initrd = i;
	abs.base_image = b;
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

static int guest_run_abs(virConnectPtr conn, struct guest_run *run)
{
	char *xml_path, *job_path, *console, *channel, *disk = NULL, *cmdline, *xml;
	static unsigned seq;
	double t0 = now_monotonic(), t_created, t_stopped;
	struct domain_spec spec;
	struct strbuf err = STRBUF_INIT;
	virDomainPtr dom = NULL;
	int cb_id = -1;

	run->status = GUEST_RUN_OK;
	run->boot_s = run->guest_s = -1;
	guest_result_init(&run->result);
	if (!run->boot_timeout_s)
		run->boot_timeout_s = run->topo->boot_timeout_s;
	if (!run->run_timeout_s)
		run->run_timeout_s = run->topo->run_timeout_s;
	if (!run->console_max)
		run->console_max = guest_output_cap("MGLRULAB_TEST_CONSOLE_MAX", GUEST_CONSOLE_LOG_MAX);
	if (!run->channel_max)
		run->channel_max = guest_output_cap("MGLRULAB_TEST_CHANNEL_MAX", GUEST_RESULT_FILE_MAX);
	if (setup_once()) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot set up signal handling: %s", strerror(errno));
		return -1;
	}
	if (mkdir_p(run->run_dir, 0755)) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot create %s: %s", run->run_dir, strerror(errno));
		return -1;
	}
	xml_path = path_join(run->run_dir, "domain.xml");
	job_path = path_join(run->run_dir, "job.json");
	console = path_join(run->run_dir, "console.log");
	channel = path_join(run->run_dir, "results.jsonl");
	/* a rerun into the same folder must not see the last run's output */
	unlink(console);
	unlink(channel);
	run->domain_name = xasprintf(LAB_DOMAIN_PREFIX "%ld-%u", (long)getpid(), seq++);
	cmdline = build_cmdline(run);

	if (run->base_image) {
		disk = path_join(run->run_dir, "disk.qcow2");
		if (guest_overlay_create(run->base_image, disk, &err)) {
			set_failure(run, GUEST_RUN_FAILED, NULL, "%s", sb_str(&err));
			goto out;
		}
	}
	if (run->job_json && write_file_atomic(job_path, run->job_json, strlen(run->job_json))) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot write %s: %s", job_path, strerror(errno));
		goto out;
	}
	spec = (struct domain_spec){
		.name = run->domain_name, .topo = run->topo, .accel = run->accel,
		.kernel = run->kernel, .initrd = run->initrd, .cmdline = cmdline,
		.disk = disk, .job = run->job_json ? job_path : NULL,
		.console_log = console, .channel_log = channel,
		.shares = run->shares, .nr_shares = run->nr_shares,
	};
	xml = domain_xml(&spec);
	if (write_file_atomic(xml_path, xml, strlen(xml)))
		warning("cannot save %s: %s", xml_path, strerror(errno));

	pthread_mutex_lock(&lock);
	watch.name = run->domain_name;
	watch.stopped = 0;
	pthread_mutex_unlock(&lock);
	drain_wake();
	cb_id = virConnectDomainEventRegisterAny(conn, NULL, VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						 VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), NULL, NULL);
	if (cb_id < 0) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot watch libvirt lifecycle events: %s",
			    lab_virt_error());
		free(xml);
		goto out;
	}
	if (interrupted()) {
		set_failure(run, GUEST_RUN_INTERRUPTED, NULL, "interrupted by signal %d", interrupted());
		free(xml);
		goto out;
	}
	/*
	 * AUTODESTROY: should we die without cleaning up, the daemon kills the
	 * guest when our connection drops. The embedded driver has no daemon
	 * (and refuses the flag); there the next lab_virt_open() cleans up.
	 */
	dom = virDomainCreateXML(conn, xml, lab_virt_is_embedded(conn) ? 0 : VIR_DOMAIN_START_AUTODESTROY);
	free(xml);
	t_created = now_monotonic();
	if (!dom) {
		set_failure(run, GUEST_RUN_FAILED, NULL, "cannot start the domain: %s (XML in %s)",
			    lab_virt_error(), xml_path);
		goto out;
	}
	track(dom);
	qemu_reaper_watch(conn, run->domain_name);
	run->started = 1;
	debug("started %s (%.3f s host setup)", run->domain_name, t_created - t0);
	wait_for_stop(dom, run, t0, console, channel);
	/* a guest that flooded and stopped between two checks */
	check_output(NULL, run, console, channel);
	cut_to_cap(console, run->console_max, "GUEST_CONSOLE_LOG_MAX");
	cut_to_cap(channel, run->channel_max, NULL);
	t_stopped = now_monotonic();
	pthread_mutex_lock(&lock);
	if (watch.stopped || run->failure)
		run->stop_reason = xstrdup(watch.stopped ? event_name(watch.event, watch.detail) :
					   "destroyed by mglrulab");
	watch.name = NULL;
	pthread_mutex_unlock(&lock);
	untrack(dom);
	run->wall_s = t_stopped - t0;
	judge(run, console, channel);
	/* the guest's clock: kernel start to the runner's last record */
	if (run->boot_s >= 0 && run->result.done)
		run->guest_s = run->boot_s + run->result.done_t;
	/* host-side work: everything but the guest's own boot and run */
	run->host_s = (t_created - t0) + (now_monotonic() - t_stopped);
out:
	if (cb_id >= 0)
		virConnectDomainEventDeregisterAny(conn, cb_id);
	if (dom)
		virDomainFree(dom);
	if (disk && !run->keep_disk)
		unlink(disk);
	pthread_mutex_lock(&lock);
	watch.name = NULL;
	pthread_mutex_unlock(&lock);
	sb_release(&err);
	free(cmdline);
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
