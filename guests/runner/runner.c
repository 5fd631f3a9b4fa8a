// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab-runner: the guest's PID 1. Mounts the pseudo file systems,
 * reports the topology the guest really has, reads the job from fw_cfg,
 * runs the workload, forwards what it prints as JSON lines on the
 * virtio-serial port, syncs and powers off. Protocol: common/guest_protocol.h
 * (and common/workload_contract.h for what a workload prints) and
 * docs/guest-protocol.md.
 *
 * Not PID 1 (debugging on a host): `mglrulab-runner --job FILE --out FILE
 * [--workload-dir DIR]` does the same without mounting or powering off.
 *
 * Linked statically with libjansson: every record is built and escaped by
 * jansson, and every workload line is parsed before it is forwarded, so a
 * workload cannot break the stream's framing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "guest_protocol.h"
#include "workload_contract.h"

#define RUNNER_VERSION "1"

static const char *workload_dir = GUEST_WORKLOAD_DIR;
static int out_fd = -1;		/* the virtio port (or --out file) */
static long seq;
static double t0;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Diagnostics go to the console, which the host keeps as the run's log. */
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("mglrulab-runner: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Text for a JSON string: jansson refuses invalid UTF-8, and a message cut
 * at a buffer's end may stop inside a sequence. Such bytes become '?', so
 * the record still carries the text.
 */
static json_t *json_text(const char *s, size_t len)
{
	json_t *j = json_stringn(s, len);
	char *copy;

	if (j)
		return j;
	copy = strndup(s, len);
	if (!copy)
		return NULL;
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j;
}

/* One record as a line: adds v, seq, t and type, takes ownership of @rec. NULL: out of memory. */
static char *serialise(const char *type, json_t *rec)
{
	char *s;

	if (!rec)
		rec = json_object();
	if (!rec)
		return NULL;
	json_object_set_new(rec, "v", json_integer(GUEST_PROTOCOL_VERSION));
	json_object_set_new(rec, "seq", json_integer(seq));
	json_object_set_new(rec, "t", json_real(now() - t0));
	json_object_set_new(rec, "type", json_string(type));
	s = json_dumps(rec, JSON_COMPACT);
	json_decref(rec);
	return s;
}

/*
 * The line that replaces a record over GUEST_RECORD_MAX: an "error" record
 * like any other (v, seq, type), so the host reports the reason instead of
 * a protocol error and a lost record.
 */
static char *oversized(const char *type, size_t len)
{
	char msg[256];

	snprintf(msg, sizeof(msg), "a %s record of %zu bytes is over GUEST_RECORD_MAX (%d bytes): dropped",
		 type, len, GUEST_RECORD_MAX);
	say("%s", msg);
	return serialise(GUEST_REC_ERROR, json_pack("{s:s}", "message", msg));
}

/* Send a line from serialise() and free it; returns its bytes on the port (0: none). */
static size_t send_line(char *s)
{
	size_t len;

	if (!s)
		return 0;
	len = strlen(s) + 1;
	seq++;
	if (out_fd >= 0 && (write_all(out_fd, s, len - 1) || write_all(out_fd, "\n", 1)))
		say("cannot write to the results port: %s", strerror(errno));
	free(s);
	return len;
}

/* serialise(), with a record over GUEST_RECORD_MAX replaced by an error record. */
static char *record_line(const char *type, json_t *rec)
{
	char *s = serialise(type, rec);

	if (s && strlen(s) + 1 > GUEST_RECORD_MAX) {
		size_t len = strlen(s) + 1;

		free(s);
		s = oversized(type, len);
	}
	return s;
}

/* Send one record (see serialise()); returns the bytes sent. */
static size_t emit(const char *type, json_t *rec)
{
	return send_line(record_line(type, rec));
}

/* An "error" record's body (the message also goes to the console). */
static json_t *error_body(const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	say("%s", msg);
	return json_pack("{s:o}", "message", json_text(msg, strlen(msg)));
}

static void emit_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void emit_error(const char *fmt, ...)
{
	va_list ap;
	json_t *rec;

	va_start(ap, fmt);
	rec = error_body(fmt, ap);
	va_end(ap);
	emit(GUEST_REC_ERROR, rec);
}

/* Read a small file, trailing newlines removed; NULL if it cannot be read. */
static char *slurp(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t len = 0;

	if (fd < 0)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		close(fd);
		return NULL;
	}
	while (len < max) {
		ssize_t r = read(fd, buf + len, max - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\0'))
		len--;
	buf[len] = '\0';
	return buf;
}

/* ---- setting up PID 1's world ---- */

static void mount_one(const char *src, const char *dir, const char *type, const char *opts)
{
	mkdir(dir, 0755);
	if (mount(src, dir, type, MS_NOSUID | MS_NODEV, opts) && errno != EBUSY)
		say("mount %s on %s: %s", type, dir, strerror(errno));
}

static void setup_pid1(void)
{
	mount_one("proc", "/proc", "proc", NULL);
	mount_one("sysfs", "/sys", "sysfs", NULL);
	mkdir("/dev", 0755);
	if (mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, NULL) && errno != EBUSY)
		say("mount devtmpfs: %s", strerror(errno));
	mount_one("debugfs", "/sys/kernel/debug", "debugfs", NULL);
	mount_one("tracefs", "/sys/kernel/tracing", "tracefs", NULL);
	mount_one("cgroup2", "/sys/fs/cgroup", "cgroup2", NULL);
	mount_one("tmpfs", "/tmp", "tmpfs", "mode=1777");
	mount_one("tmpfs", "/run", "tmpfs", "mode=0755");
	mkdir(GUEST_RESULTS_DIR, 0755);
	setenv("PATH", "/usr/lib/mglrulab/workloads:/sbin:/bin:/usr/sbin:/usr/bin", 1);
	setenv("HOME", "/root", 1);
}

/* The virtio port named GUEST_CHANNEL_NAME, as /dev/vportNpM. */
static int open_port(void)
{
	for (int tries = 0; tries < 100; tries++) {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[300], *name;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
			name = slurp(path, 256);
			if (name && !strcmp(name, GUEST_CHANNEL_NAME)) {
				int fd;

				free(name);
				snprintf(path, sizeof(path), "/dev/%s", e->d_name);
				closedir(d);
				fd = open(path, O_WRONLY | O_CLOEXEC);
				if (fd >= 0) {
					say("results port %s (%.2f s after start)", path, now() - t0);
					return fd;
				}
				say("open %s: %s", path, strerror(errno));
				d = NULL;
				break;
			}
			free(name);
		}
		if (d)
			closedir(d);
		usleep(50 * 1000);	/* the port's driver may still be probing */
	}
	say("no virtio-serial port named %s: results cannot be sent", GUEST_CHANNEL_NAME);
	return -1;
}

/* ---- topology ---- */

/* A string from the guest's files as JSON, null when absent or not UTF-8. */
static json_t *str_or_null(const char *s)
{
	json_t *j = s ? json_string(s) : NULL;

	return j ? j : json_null();
}

static long long node_memtotal_kib(int node)
{
	char path[128], *text, *p;
	long long kib = -1;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	text = slurp(path, 64 * 1024);
	if (text && (p = strstr(text, "MemTotal:")))
		kib = strtoll(p + strlen("MemTotal:"), NULL, 10);
	free(text);
	return kib;
}

static void report_topology(void)
{
	json_t *rec = json_object(), *nodes = json_array();
	char *online = slurp("/sys/devices/system/node/online", 4096);
	char *s;
	int ids[1024], n;

	s = slurp("/proc/sys/kernel/osrelease", 4096);
	json_object_set_new(rec, "kernel_release", str_or_null(s));
	free(s);
	s = slurp("/proc/cmdline", 8192);
	json_object_set_new(rec, "cmdline", str_or_null(s));
	free(s);
	s = slurp("/sys/kernel/mm/lru_gen/enabled", 4096);
	json_object_set_new(rec, "lru_gen", str_or_null(s));
	free(s);
	json_object_set_new(rec, "vcpus_online", json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	s = slurp("/sys/devices/system/cpu/online", 4096);
	json_object_set_new(rec, "cpus_online", str_or_null(s));
	free(s);

	/* No NUMA support in the kernel: one node, as numa=off would show. */
	n = online ? cpulist_ids(online, 1024, ids, 1024) : 0;
	if (n < 0) {
		say("/sys/devices/system/node/online is not a node list: '%s'", online);
		n = 0;
	}
	for (int i = 0; i < n; i++) {
		char path[128], *cpus, *dist;
		json_t *node = json_object(), *darr = json_array();
		int d[1024], nd;

		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", ids[i]);
		cpus = slurp(path, 4096);
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/distance", ids[i]);
		dist = slurp(path, 4096);
		json_object_set_new(node, "id", json_integer(ids[i]));
		json_object_set_new(node, "cpus", str_or_null(cpus ? cpus : ""));
		json_object_set_new(node, "memory_kib", json_integer(node_memtotal_kib(ids[i])));
		/* "10 20": space separated */
		nd = 0;
		for (char *p = dist, *end; p && *p && nd < 1024; p = end) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			d[nd++] = (int)v;
		}
		for (int j = 0; j < nd; j++)
			json_array_append_new(darr, json_integer(d[j]));
		json_object_set_new(node, "distances", darr);
		json_array_append_new(nodes, node);
		free(cpus);
		free(dist);
	}
	if (!online)
		say("/sys/devices/system/node/online missing: kernel without NUMA?");
	free(online);
	json_object_set_new(rec, "nodes", nodes);
	emit(GUEST_REC_TOPOLOGY, rec);
}

/* ---- the job ---- */

static int valid_workload_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

struct job {
	json_t *json;
	const char *workload;
	const char *argv[GUEST_JOB_ARGS_MAX + 2];
	long timeout_s;
};

static int load_job(const char *path, struct job *job)
{
	json_error_t jerr;
	char *text = slurp(path, GUEST_JOB_MAX);
	json_t *args, *v;
	size_t i, n;

	memset(job, 0, sizeof(*job));
	if (!text) {
		emit_error("cannot read the job from %s: %s", path, strerror(errno));
		return -1;
	}
	job->json = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	free(text);
	if (!json_is_object(job->json)) {
		emit_error("the job is not a JSON object: %s (line %d)", jerr.text, jerr.line);
		return -1;
	}
	v = json_object_get(job->json, GUEST_JOB_V);
	if (json_integer_value(v) != GUEST_PROTOCOL_VERSION) {
		emit_error("job protocol version %lld, this runner speaks %d",
			   (long long)json_integer_value(v), GUEST_PROTOCOL_VERSION);
		return -1;
	}
	job->workload = json_string_value(json_object_get(job->json, GUEST_JOB_WORKLOAD));
	if (!job->workload)
		job->workload = "";
	if (*job->workload && !valid_workload_name(job->workload)) {
		emit_error("invalid workload name in the job");
		return -1;
	}
	job->timeout_s = json_integer_value(json_object_get(job->json, GUEST_JOB_TIMEOUT));
	args = json_object_get(job->json, GUEST_JOB_ARGS);
	n = json_array_size(args);
	if (n > GUEST_JOB_ARGS_MAX) {
		emit_error("job has %zu args, at most %d allowed", n, GUEST_JOB_ARGS_MAX);
		return -1;
	}
	job->argv[0] = job->workload;
	for (i = 0; i < n; i++) {
		job->argv[i + 1] = json_string_value(json_array_get(args, i));
		if (!job->argv[i + 1]) {
			emit_error("job arg %zu is not a string", i);
			return -1;
		}
	}
	job->argv[n + 1] = NULL;
	emit(GUEST_REC_JOB, json_pack("{s:O?,s:s,s:O?}",
				       "run_id", json_object_get(job->json, GUEST_JOB_RUN_ID),
				       "workload", job->workload, "args", args));
	return 0;
}

/* ---- running the workload ---- */

/* Line assembly with a hard bound: an over-long line is counted, not kept. */
struct linebuf {
	char *buf;
	size_t len, max;
	int overflow;
};

/*
 * What the workload's stdout has cost so far. Every record it causes
 * counts, error records for its bad lines too: a flood of garbage is as
 * unbounded as a flood of records.
 */
static struct {
	pid_t pid;		/* its process group */
	long records;
	size_t bytes;
	int over;		/* a limit was reached: the rest is dropped, the workload killed */
} wl_out;

static void output_over(const char *limit, long value, const char *unit)
{
	char msg[256];

	snprintf(msg, sizeof(msg),
		 "workload output reached %s (%ld %s): the rest was dropped and the workload killed",
		 limit, value, unit);
	wl_out.over = 1;
	if (wl_out.pid > 0)
		kill(-wl_out.pid, SIGKILL);
	emit_error("%s", msg);
}

/* Send a record the workload's stdout caused, within GUEST_WORKLOAD_RECORDS_MAX and _BYTES_MAX. */
static void forward_record(const char *type, json_t *rec)
{
	char *s;

	if (wl_out.over) {
		json_decref(rec);
		return;
	}
	if (wl_out.records >= GUEST_WORKLOAD_RECORDS_MAX) {
		json_decref(rec);
		output_over("GUEST_WORKLOAD_RECORDS_MAX", GUEST_WORKLOAD_RECORDS_MAX, "records");
		return;
	}
	s = record_line(type, rec);
	if (s && wl_out.bytes + strlen(s) + 1 > GUEST_WORKLOAD_BYTES_MAX) {
		free(s);
		output_over("GUEST_WORKLOAD_BYTES_MAX", GUEST_WORKLOAD_BYTES_MAX, "bytes");
		return;
	}
	wl_out.bytes += send_line(s);
	wl_out.records++;
}

static void forward_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void forward_error(const char *fmt, ...)
{
	va_list ap;
	json_t *rec;

	if (wl_out.over)
		return;
	va_start(ap, fmt);
	rec = error_body(fmt, ap);
	va_end(ap);
	forward_record(GUEST_REC_ERROR, rec);
}

static void forward_stdout(const char *line, size_t len, int overflow)
{
	json_error_t jerr;
	json_t *obj;

	if (wl_out.over)
		return;
	if (overflow) {
		forward_error("workload printed a line longer than %d bytes: dropped", WL_LINE_MAX);
		return;
	}
	if (!len)
		return;
	obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!json_is_object(obj)) {
		json_decref(obj);
		forward_error("workload printed a line that is not a JSON object (%s): %.80s", jerr.text, line);
		return;
	}
	forward_record(GUEST_REC_WORKLOAD, json_pack("{s:o}", "record", obj));
}

static int stderr_lines;

static void forward_stderr(const char *line, size_t len, int overflow)
{
	if (stderr_lines++ >= GUEST_STDERR_LINES_MAX)
		return;
	if (overflow)
		len = GUEST_STDERR_LINE_MAX;
	/* stderr is text for people: invalid UTF-8 becomes '?' so the record is valid JSON. */
	fprintf(stderr, "workload: %.*s\n", (int)len, line);
	emit(GUEST_REC_STDERR, json_pack("{s:o?}", "text", json_text(line, strnlen(line, len))));
}

static void feed(struct linebuf *lb, const char *data, size_t n,
		 void (*fn)(const char *, size_t, int))
{
	for (size_t i = 0; i < n; i++) {
		if (data[i] == '\n') {
			lb->buf[lb->len] = '\0';
			fn(lb->buf, lb->len, lb->overflow);
			lb->len = 0;
			lb->overflow = 0;
			continue;
		}
		if (lb->len < lb->max)
			lb->buf[lb->len++] = data[i];
		else
			lb->overflow = 1;
	}
}

/* The forked child: the workload at @path, its output to the pipes @out and @err. */
static void __attribute__((noreturn)) exec_workload(const char *path, const struct job *job,
						    int out, int err)
{
	int devnull = open("/dev/null", O_RDWR);

	setsid();	/* own process group: a timeout kills all of it */
	if (devnull >= 0)
		dup2(devnull, 0);	/* not the console: a workload must not wait for input */
	dup2(out, 1);
	dup2(err, 2);
	if (chdir("/tmp"))
		_exit(127);
	execv(path, (char *const *)job->argv);
	fprintf(stderr, "cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

/*
 * How long poll() may wait for the workload's output: until its timeout
 * (-1: none). Past the timeout, its process group is killed once and the
 * output of what survives is read a second at a time.
 */
static int poll_timeout_ms(const struct job *job, double start, pid_t pid, int *timed_out)
{
	double left;

	if (job->timeout_s <= 0)
		return -1;
	left = start + (double)job->timeout_s - now();
	if (left > 0)
		return (int)(left * 1000) + 1;
	if (!*timed_out) {
		emit_error("workload timed out after %ld s: killed", job->timeout_s);
		kill(-pid, SIGKILL);
		*timed_out = 1;
	}
	return 1000;
}

/*
 * Read what @pfd has into its line buffer @lb, forwarding each line with
 * @fn. At its end the last line, without its newline, is flushed and the
 * descriptor closed: returns 1 then, else 0.
 */
static int read_stream(struct pollfd *pfd, struct linebuf *lb,
		       void (*fn)(const char *, size_t, int))
{
	char buf[65536];
	ssize_t n;

	if (pfd->fd < 0 || !(pfd->revents & (POLLIN | POLLHUP | POLLERR)))
		return 0;
	n = read(pfd->fd, buf, sizeof(buf));
	if (n < 0 && errno == EINTR)
		return 0;
	if (n <= 0) {
		/* flush a last line without its newline */
		lb->buf[lb->len] = '\0';
		if (lb->len || lb->overflow)
			fn(lb->buf, lb->len, lb->overflow);
		close(pfd->fd);
		pfd->fd = -1;
		return 1;
	}
	feed(lb, buf, (size_t)n, fn);
	return 0;
}

static void run_workload(struct job *job)
{
	char path[256];
	int out[2], err[2], status = 0, timed_out = 0;
	struct linebuf lo = { .max = WL_LINE_MAX }, le = { .max = GUEST_STDERR_LINE_MAX };
	double start = now();
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", workload_dir, job->workload);
	if (access(path, X_OK)) {
		emit_error("workload %s is not in the image (%s: %s)", job->workload, path, strerror(errno));
		emit(GUEST_REC_EXIT, json_pack("{s:i,s:i,s:b,s:f}", "status", -1, "signal", 0,
					       "timed_out", 0, "elapsed_s", 0.0));
		return;
	}
	lo.buf = malloc(lo.max + 1);
	le.buf = malloc(le.max + 1);
	if (!lo.buf || !le.buf || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		emit_error("cannot set up the workload's pipes: %s", strerror(errno));
		free(lo.buf);
		free(le.buf);
		return;
	}
	pid = fork();
	if (pid == 0)
		exec_workload(path, job, out[1], err[1]);
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		emit_error("fork: %s", strerror(errno));
		close(out[0]);
		close(err[0]);
		free(lo.buf);
		free(le.buf);
		return;
	}
	wl_out.pid = pid;
	say("running %s", path);
	struct pollfd pfd[2] = { { .fd = out[0], .events = POLLIN }, { .fd = err[0], .events = POLLIN } };
	int open_fds = 2, reaped = 0;
	while (open_fds) {
		pid_t w;
		int st;

		/* PID 1 inherits the workload's orphans: reap them, keep the workload's own status */
		while ((w = waitpid(-1, &st, WNOHANG)) > 0)
			if (w == pid) {
				status = st;
				reaped = 1;
			}
		int ms = poll_timeout_ms(job, start, pid, &timed_out);
		int r = poll(pfd, 2, ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0 && timed_out)
			break;	/* grandchildren hold the pipes open: stop listening */
		for (int i = 0; i < 2; i++)
			open_fds -= read_stream(&pfd[i], i == 0 ? &lo : &le,
						i == 0 ? forward_stdout : forward_stderr);
		if (wl_out.over)
			break;	/* killed: what it (or a child that escaped) still writes is not read */
	}
	for (int i = 0; i < 2; i++)
		if (pfd[i].fd >= 0)
			close(pfd[i].fd);
	while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (stderr_lines > GUEST_STDERR_LINES_MAX)
		emit_error("workload wrote %d stderr lines, only the first %d were sent",
			   stderr_lines, GUEST_STDERR_LINES_MAX);
	emit(GUEST_REC_EXIT, json_pack("{s:i,s:i,s:b,s:f}",
				       "status", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
				       "signal", WIFSIGNALED(status) ? WTERMSIG(status) : 0,
				       "timed_out", timed_out, "elapsed_s", now() - start));
	free(lo.buf);
	free(le.buf);
}

int main(int argc, char **argv)
{
	const char *job_path = GUEST_FWCFG_JOB_PATH, *out_path = NULL;
	int pid1 = getpid() == 1;
	struct job job;
	char *uptime;

	t0 = now();
	/*
	 * jansson seeds its hash function from getrandom(), which blocks until
	 * the guest's entropy pool is ready (seconds under TCG). Hash flooding
	 * is no threat here: seed it ourselves.
	 */
	json_object_seed((size_t)(t0 * 1e9) ^ (size_t)getpid());
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--job") && i + 1 < argc)
			job_path = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			out_path = argv[++i];
		else if (!strcmp(argv[i], "--workload-dir") && i + 1 < argc)
			workload_dir = argv[++i];
	}
	if (pid1) {
		setup_pid1();
		say("file systems mounted (%.2f s after start)", now() - t0);
	}
	if (out_path)
		out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	else
		out_fd = open_port();

	uptime = slurp("/proc/uptime", 256);
	emit(GUEST_REC_HELLO, json_pack("{s:s,s:f}", "runner", RUNNER_VERSION,
					"uptime_s", uptime ? strtod(uptime, NULL) : -1.0));
	free(uptime);
	report_topology();
	if (!load_job(job_path, &job) && *job.workload)
		run_workload(&job);
	json_decref(job.json);
	emit(GUEST_REC_DONE, json_pack("{s:I}", "records", (json_int_t)seq));
	if (out_fd >= 0) {
		fsync(out_fd);
		close(out_fd);
	}
	if (!pid1)
		return 0;
	sync();
	say("done, powering off");
	reboot(RB_POWER_OFF);
	/* reboot() failed: the host's timeout will end the domain */
	for (;;)
		pause();
}
