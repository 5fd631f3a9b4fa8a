// SPDX-License-Identifier: GPL-2.0
#include "guest_accel.h"
#include "guest_accel_cache.h"
#include "xjson.h"
#include "domain_run.h"
#include "guest_lab.h"
#include "escape.h"
#include "fsutil.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define PROBE_TIMEOUT_S 20
#define PROBE_INIT "/mglrulab-kvm-probe"

/* What makes a KVM answer stale: the host kernel, the CPU, QEMU. */
static void host_key(char hex[65])
{
	struct sha256 c;
	struct utsname u;
	struct strbuf cpu = STRBUF_INIT;
	struct stat st;
	const char *flags;

	sha256_init(&c);
	if (!uname(&u)) {
		sha256_field_str(&c, "nodename", u.nodename);
		sha256_field_str(&c, "release", u.release);
		sha256_field_str(&c, "version", u.version);
	}
	/* the first CPU's model and flags: nested-virtualization changes show there */
	if (!read_file("/proc/cpuinfo", &cpu, 1 << 20) && (flags = strstr(sb_str(&cpu), "flags"))) {
		const char *eol = strchr(flags, '\n');
		sha256_field(&c, "flags", flags, eol ? (size_t)(eol - flags) : strlen(flags));
	}
	if (!stat("/usr/bin/qemu-system-x86_64", &st)) {
		sha256_field(&c, "qemu-size", &st.st_size, sizeof(st.st_size));
		sha256_field(&c, "qemu-mtime", &st.st_mtime, sizeof(st.st_mtime));
	}
	sha256_final_hex(&c, hex);
	sb_release(&cpu);
}

static char *cache_path(const char *state_dir)
{
	return path_join(state_dir, "kvm-probe.json");
}

/* 1/0 from the cache (with its reason), -1 when there is no answer for this host. */
static int cache_lookup(const char *state_dir, char **reason)
{
	char *path = cache_path(state_dir), key[65];
	json_t *j = json_load_file(path, 0, NULL);
	struct strbuf err = STRBUF_INIT;
	struct kvm_probe_cache c;
	int r = -1;

	host_key(key);
	/* A file that does not decode is no answer: the host is probed again. */
	if (j && kvm_probe_cache_decode(j, &c, &err)) {
		debug("%s: %s; probing again", path, sb_str(&err));
	} else if (j) {
		if (!strcmp(c.host_key, key)) {
			r = c.kvm_works;
			if (reason)
				*reason = xstrdup(c.reason);
		}
		kvm_probe_cache_release(&c);
	}
	sb_release(&err);
	json_decref(j);
	free(path);
	return r;
}

int guest_kvm_cached(const char *state_dir)
{
	return cache_lookup(state_dir, NULL);
}

int guest_kvm_cached_reason(const char *state_dir, char **reason)
{
	*reason = NULL;
	return cache_lookup(state_dir, reason);
}

static void cache_store(const char *state_dir, int works, const char *reason)
{
	char *path = cache_path(state_dir), key[65], when[32], *s;
	struct kvm_probe_cache c = { .host_key = key, .kvm_works = works,
				     .reason = (char *)reason, .probed_at = when };
	json_t *j;

	host_key(key);
	iso8601_now(when);
	j = kvm_probe_cache_encode(&c);
	s = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	if (s && (mkdir_p(state_dir, 0755) || write_file_atomic(path, s, strlen(s))))
		warning("cannot cache the KVM probe in %s: %s", path, strerror(errno));
	free(s);
	json_decref(j);
	free(path);
}

/* QEMU's error is a paragraph; the report needs its first line (the rest is in the probe's folder). */
static const char *first_line(char *s)
{
	char *nl = strchr(s, '\n');

	if (nl)
		*nl = '\0';
	return s;
}

static int run_on_conn(void *conn, struct guest_run *run)
{
	return guest_run(conn, run);
}

/* Boot @kernel under KVM into a panic on a missing init: a working KVM gets there in a second or two. */
enum kvm_probe guest_kvm_probe(guest_runner_fn *runner, void *ctx, const char *state_dir,
			       const char *kernel, char **reason)
{
	struct guest_topology t;
	struct guest_run run;
	struct strbuf console = STRBUF_INIT;
	char *dir = path_join(state_dir, "kvm-probe");
	char *log;
	enum kvm_probe r = KVM_PROBE_FAILS;
	int booted;

	memset(&t, 0, sizeof(t));
	t.name = (char *)"kvm-probe";
	t.machine = (char *)"pc";
	t.vcpus = 1;
	t.nr_nodes = 1;
	t.memory_mib = t.nodes[0].memory_mib = 256;
	cpuset_set(&t.nodes[0].cpus, 0);
	t.boot_timeout_s = t.run_timeout_s = PROBE_TIMEOUT_S;

	memset(&run, 0, sizeof(run));
	run.topo = &t;
	run.accel = ACCEL_KVM;
	run.kernel = kernel;
	run.extra_cmdline = "init=" PROBE_INIT;
	run.run_dir = dir;
	info("checking whether KVM boots a kernel on this host (once; up to %d s)", PROBE_TIMEOUT_S);
	runner(ctx, &run);
	log = path_join(dir, "console.log");
	/* no console.log: the guest showed no sign of life, judged below */
	if (read_file(log, &console, 1 << 20))
		sb_reset(&console);
	booted = strstr(sb_str(&console), PROBE_INIT) != NULL ||
		 strstr(sb_str(&console), "Kernel panic") != NULL;
	if (booted)
		*reason = xstrdup("KVM booted the kernel on this host");
	else if (run.status == GUEST_RUN_INTERRUPTED)
		*reason = NULL;
	else if (!run.started && !(run.failure && strcasestr(run.failure, "kvm"))) {
		/* not an answer about KVM: say so, and do not cache it */
		*reason = xasprintf("could not start a KVM domain: %s", run.failure ? run.failure : "?");
		r = KVM_PROBE_NO_ANSWER;
	}
	else if (run.status == GUEST_RUN_TIMEOUT)
		*reason = xasprintf("/dev/kvm exists but a kernel booted with KVM showed no sign of life in %d s (nested KVM that cannot run ordinary kernels?)",
				    PROBE_TIMEOUT_S);
	else
		*reason = xasprintf("/dev/kvm exists but booting with KVM failed: %s",
				    first_line(run.failure ? run.failure : run.stop_reason ? run.stop_reason :
					       "no console output"));
	if (booted)
		r = KVM_PROBE_WORKS;
	guest_run_release(&run);
	sb_release(&console);
	free(log);
	free(dir);
	return *reason ? r : KVM_PROBE_INTERRUPTED;
}


int guest_accel_resolve(virConnectPtr conn, const char *state_dir, const char *kernel,
			enum guest_accel want, enum guest_accel *out, char **reason)
{
	int works;

	*reason = NULL;
	if (want == ACCEL_TCG) {
		*out = ACCEL_TCG;
		*reason = xstrdup("accel = tcg in the guest topology");
		return 0;
	}
	if (access("/dev/kvm", R_OK | W_OK)) {
		if (want == ACCEL_KVM) {
			*reason = xasprintf("accel = kvm but /dev/kvm is not usable: %s", strerror(errno));
			return -1;
		}
		*out = ACCEL_TCG;
		*reason = xasprintf("no usable /dev/kvm (%s): TCG", strerror(errno));
		warning("accel=auto: %s (guests run much slower)", *reason);
		return 0;
	}
	if (want == ACCEL_KVM) {
		*out = ACCEL_KVM;
		*reason = xstrdup("accel = kvm in the guest topology");
		return 0;
	}
	works = cache_lookup(state_dir, reason);
	if (works < 0) {
		enum kvm_probe p = guest_kvm_probe(run_on_conn, conn, state_dir, kernel, reason);

		if (p == KVM_PROBE_INTERRUPTED)
			return -1;
		works = p == KVM_PROBE_WORKS;
		if (p != KVM_PROBE_NO_ANSWER)	/* no answer: TCG for this session only */
			cache_store(state_dir, works, *reason);
	}
	*out = works ? ACCEL_KVM : ACCEL_TCG;
	if (!works) {
		char *r = xasprintf("%s: TCG", *reason);
		free(*reason);
		*reason = r;
		warning("accel=auto: %s (guests run much slower; recorded in the report)", *reason);
	}
	return 0;
}
