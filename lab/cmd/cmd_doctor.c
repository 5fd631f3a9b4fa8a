// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab doctor: check the host for everything the lab needs, and for each
 * problem say the exact command that fixes it.
 */
#include "cmd.h"
#include "xjson.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_accel.h"
#include "guest_lab.h"
#include "config.h"
#include "host.h"
#include "lab_paths.h"
#include "libvirt_conn.h"
#include "run_command.h"
#include "util.h"

#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

enum level { OK, WARN, FAIL };

struct doctor {
	int json, fails, warns;
	json_t *checks;
};

static void report(struct doctor *d, enum level lv, const char *what, const char *detail,
		   const char *fix)
{
	static const char *const tag[] = { "ok", "warn", "FAIL" };

	if (lv == FAIL)
		d->fails++;
	else if (lv == WARN)
		d->warns++;
	if (d->json) {
		/* Details quote the host (paths, versions): any bytes. */
		json_array_append_new(d->checks, xjson_pack("{s:o,s:s,s:o,s:o}", "check",
							   json_string_lossy(what), "status", tag[lv],
							   "detail", json_string_lossy(detail), "fix",
							   fix ? json_string_lossy(fix) : json_null()));
		return;
	}
	term_printf(stdout, "%-4s  %-26s %s\n", tag[lv], what, detail);
	if (fix && lv != OK)
		term_printf(stdout, "      fix: %s\n", fix);
}

static void check_program(struct doctor *d, const char *prog, const char *what, const char *pkg)
{
	char *fix = xasprintf("apt-get install %s", pkg);

	if (program_in_path(prog))
		report(d, OK, what, prog, NULL);
	else
		report(d, FAIL, what, "not found in PATH", fix);
	free(fix);
}

/* A statically linked ELF has no PT_INTERP program header. */
static int elf_is_static(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const Elf64_Ehdr *eh;
	int r = -1, fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	/* the program headers sit at the start of the file */
	sb_grow(&sb, 65536);
	n = read(fd, sb.buf, 65536);
	close(fd);
	if (n < (ssize_t)sizeof(Elf64_Ehdr))
		goto out;
	sb.len = (size_t)n;
	eh = (const Elf64_Ehdr *)sb.buf;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64)
		goto out;
	r = 1;
	for (int i = 0; i < eh->e_phnum; i++) {
		size_t off = eh->e_phoff + (size_t)i * eh->e_phentsize;
		const Elf64_Phdr *ph;

		if (off + sizeof(*ph) > sb.len)
			break;
		ph = (const Elf64_Phdr *)(sb.buf + off);
		if (ph->p_type == PT_INTERP)
			r = 0;
	}
out:
	sb_release(&sb);
	return r;
}

/* The guest runner where `mglrulab run` will look for it (lab_paths.h). */
static void check_runner(struct doctor *d)
{
	char *bin = lab_guest_bin_dir();
	char *runner = path_join(bin, "mglrulab-runner");
	int ok = elf_is_static(runner) == 1;
	char *what = xasprintf(ok ? "%s (static)" : "%s not built", runner);

	if (ok)
		report(d, OK, "guest runner", what, NULL);
	else
		report(d, WARN, "guest runner", what, "make");
	free(what);
	free(runner);
	free(bin);
}

static int glob_first(const char *pattern, char **out)
{
	glob_t g;
	int r = glob(pattern, 0, NULL, &g);

	if (!r && g.gl_pathc)
		*out = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
	globfree(&g);
	return r == 0;
}

static void check_libvirt(struct doctor *d, const char *state)
{
	struct strbuf err = STRBUF_INIT;
	virConnectPtr c;
	unsigned long ver = 0;

	if (!getpwnam("libvirt-qemu"))
		report(d, FAIL, "user libvirt-qemu", "missing: the embedded driver resolves it before reading qemu.conf",
		       "adduser --system --group --no-create-home libvirt-qemu");
	else
		report(d, OK, "user libvirt-qemu", "exists", NULL);
	if (geteuid())
		report(d, WARN, "running as root", "no: the embedded driver runs QEMU as root (qemu.conf user = root)",
		       "run mglrulab as root, or set uri = qemu:///system in lab.conf");
	char *drv = NULL;
	if (!glob_first("/usr/lib/*/libvirt/connection-driver/libvirt_driver_qemu.so", &drv))
		report(d, FAIL, "libvirt QEMU driver", "libvirt_driver_qemu.so not installed",
		       "apt-get install libvirt-daemon-driver-qemu");
	free(drv);
	c = lab_virt_open(NULL, state, &err);
	if (c && !virConnectGetLibVersion(c, &ver)) {
		char *s = xasprintf("qemu:///embed works (libvirt %lu.%lu.%lu)", ver / 1000000,
				    ver / 1000 % 1000, ver % 1000);
		report(d, OK, "libvirt embedded driver", s, NULL);
		free(s);
	} else if (strstr(sb_str(&err), "is in use by")) {
		report(d, WARN, "libvirt embedded driver", sb_str(&err), NULL);
	} else {
		report(d, FAIL, "libvirt embedded driver", sb_str(&err),
		       "apt-get install libvirt-daemon-driver-qemu qemu-system-x86; see DESIGN.md");
	}
	lab_virt_close(c);
	sb_release(&err);
}

static void check_kvm(struct doctor *d, const char *state)
{
	int cached;

	if (access("/dev/kvm", R_OK | W_OK)) {
		report(d, WARN, "KVM", "no usable /dev/kvm: guests run under TCG (slow, but results are valid)",
		       "enable virtualization in the firmware, or 'modprobe kvm_intel' / 'modprobe kvm_amd'");
		return;
	}
	cached = guest_kvm_cached(state);
	if (cached == 1)
		report(d, OK, "KVM", "/dev/kvm boots kernels (cached probe)", NULL);
	else if (cached == 0)
		report(d, WARN, "KVM", "/dev/kvm exists but cannot boot a kernel (cached probe): TCG is used",
		       "nothing to do on nested-virtualization hosts; delete STATE/kvm-probe.json to probe again");
	else
		report(d, WARN, "KVM", "/dev/kvm exists, not yet probed (the first guest boot probes it once)",
		       NULL);
}

static void check_libguestfs(struct doctor *d)
{
	char *k = NULL;

	if (glob_first("/boot/vmlinuz-*", &k)) {
		report(d, OK, "libguestfs appliance kernel", k, NULL);
		free(k);
	} else {
		report(d, FAIL, "libguestfs appliance kernel", "no /boot/vmlinuz-*",
		       "apt-get install linux-image-cloud-amd64");
	}
	check_program(d, "supermin", "supermin (libguestfs)", "supermin libguestfs-tools");
}

static void check_space(struct doctor *d, const char *state)
{
	struct statvfs st;
	char *dir = xstrdup(state);

	while (statvfs(dir, &st)) {
		char *up = path_dirname(dir);
		int same = !strcmp(up, dir);
		free(dir);
		dir = up;
		if (same)
			break;
	}
	double gib = (double)st.f_bavail * st.f_frsize / (1024.0 * 1024 * 1024);
	char *s = xasprintf("%.1f GiB free under %s", gib, dir);
	report(d, gib >= 20 ? OK : gib >= 5 ? WARN : FAIL, "disk space", s,
	       "free space: kernel builds need about 5 GiB each; 'mglrulab kernel gc' removes unused ones");
	free(s);
	free(dir);
}

static void host_report(void *ctx, enum host_level lv, const char *what, const char *detail,
			const char *fix)
{
	report(ctx, lv == HOST_OK ? OK : lv == HOST_WARN ? WARN : FAIL, what, detail, fix);
}

/* The lab's hosts: lab.conf here (or -c FILE); without one there is nothing to check. */
static void check_hosts(struct doctor *d, const char *given, const char *state)
{
	const char *path = cmd_config_path(given);
	struct strbuf err = STRBUF_INIT;
	struct lab_config cfg;

	if (!given && !path_exists(path)) {
		report(d, OK, "lab hosts", "no lab.conf here: -c FILE checks a lab's hosts", NULL);
		return;
	}
	if (config_load(path, &cfg, &err) || hosts_check_config(&cfg, &err)) {
		report(d, FAIL, "lab.conf", sb_str(&err), "mglrulab config check");
	} else {
		/*
		 * The embedded host at the state folder checked above: libvirt
		 * opens the embedded driver at one root per process.
		 */
		hosts_doctor(&cfg, state, host_report, d);
	}
	config_free(&cfg);
	sb_release(&err);
}

struct doctor_opts {
	const char *state;
	const char *config;
	int json;
};

static const struct lab_option doctor_options[] = {
	LAB_OPT_STRING("state", 0, struct doctor_opts, state, "DIR",
		       "lab state folder (default $MGLRULAB_STATE_DIR or .lab)"),
	CMD_OPT_CONFIG(struct doctor_opts, config),
	LAB_OPT_BOOL("json", 0, struct doctor_opts, json, "machine-readable result"),
	LAB_OPT_END
};

static const char *const doctor_synopsis[] = {
	"mglrulab doctor [-c FILE] [--state DIR] [--json]", NULL
};

const struct lab_usage doctor_usage = {
	.synopsis = doctor_synopsis,
	.description =
		"Check QEMU, libvirt (embedded driver, the libvirt-qemu user), libguestfs and\n"
		"its appliance kernel, busybox-static, whether KVM really works (cached\n"
		"probe), kernel source, disk space and the guest programs; then every\n"
		"[run] host of the lab (lab.conf, or -c FILE) over its libvirt connection:\n"
		"reachable, its QEMU and KVM, the storage pool, CPUs and free memory for\n"
		"the guest. Every problem comes with the command that fixes it. Exit status\n"
		"0 when nothing blocks, 2 when something does (an unreachable host, too).\n",
	.options = doctor_options,
};

int cmd_doctor(int argc, char **argv)
{
	struct doctor_opts o = { 0 };
	struct doctor d = { 0 };
	const char *state;
	char *src = NULL;
	int nargs, r;

	r = lab_options_parse(&doctor_usage, "doctor", argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	if (nargs)
		return user_error("doctor: unexpected argument '%s'", argv[0]);
	d.json = o.json;
	state = o.state ? o.state : guest_default_state_dir();
	d.checks = json_array();
	if (mkdir_p(state, 0755))
		report(&d, FAIL, "state folder", state, "check permissions of the state folder");

	check_program(&d, "qemu-system-x86_64", "QEMU", "qemu-system-x86");
	check_program(&d, "qemu-img", "qemu-img", "qemu-utils");
	check_libvirt(&d, state);
	check_kvm(&d, state);
	check_libguestfs(&d);
	switch (elf_is_static("/bin/busybox")) {
	case 1:
		report(&d, OK, "busybox (static)", "/bin/busybox", NULL);
		break;
	case 0:
		report(&d, FAIL, "busybox (static)", "/bin/busybox is dynamically linked",
		       "apt-get install busybox-static");
		break;
	default:
		report(&d, FAIL, "busybox (static)", "/bin/busybox missing", "apt-get install busybox-static");
	}
	if (glob_first("/usr/lib/*/libjansson.a", &src)) {
		report(&d, OK, "static libjansson", src, NULL);
		free(src);
	} else {
		report(&d, FAIL, "static libjansson", "libjansson.a missing (the guest runner links it)",
		       "apt-get install libjansson-dev");
	}
	src = NULL;
	if (glob_first("/usr/src/linux-source-*.tar.*", &src)) {
		report(&d, OK, "kernel source", src, NULL);
		free(src);
	} else {
		report(&d, WARN, "kernel source", "no /usr/src/linux-source-*.tar.* (needed unless lab.conf points at a tree)",
		       "apt-get install linux-source-6.12");
	}
	check_runner(&d);
	check_space(&d, state);
	check_hosts(&d, o.config, state);

	if (d.json) {
		json_t *out = xjson_pack("{s:o,s:i,s:i}", "checks", d.checks, "failures", d.fails,
					"warnings", d.warns);
		json_dumpf(out, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
	} else {
		json_decref(d.checks);
		term_printf(stdout, "\n%d problem%s, %d warning%s\n", d.fails, d.fails == 1 ? "" : "s", d.warns,
				    d.warns == 1 ? "" : "s");
	}
	return d.fails ? LAB_ELAB : LAB_OK;
}
