// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab doctor: check the host for everything the lab needs, and for each
 * problem say the exact command that fixes it.
 */
#include "cmd.h"
#include "appliance_kernel.h"
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
#include "sandbox.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	if (geteuid()) {
		char *who = xasprintf("uid %ld: the embedded driver runs QEMU as this user "
				      "(libvirt's seccomp sandbox on)", (long)geteuid());

		report(d, OK, "running as", who, NULL);
		free(who);
	}
	char *drv = NULL;
	if (!glob_first("/usr/lib/*/libvirt/connection-driver/libvirt_driver_qemu.so", &drv))
		report(d, FAIL, "libvirt QEMU driver", "libvirt_driver_qemu.so not installed",
		       "apt-get install libvirt-daemon-driver-qemu");
	free(drv);
	c = lab_virt_open(NULL, state, &err);
	/* "run 'mglrulab doctor'" is advice for the other commands, not for doctor */
	if (str_ends_with(sb_str(&err), LAB_VIRT_DOCTOR_HINT))
		err.buf[err.len -= strlen(LAB_VIRT_DOCTOR_HINT)] = 0;
	if (c && !virConnectGetLibVersion(c, &ver)) {
		char *s = xasprintf("qemu:///embed works (libvirt %lu.%lu.%lu)", ver / 1000000,
				    ver / 1000 % 1000, ver % 1000);
		report(d, OK, "libvirt embedded driver", s, NULL);
		free(s);
	} else if (strstr(sb_str(&err), "is in use by")) {
		report(d, WARN, "libvirt embedded driver", sb_str(&err), NULL);
	} else {
		report(d, FAIL, "libvirt embedded driver", sb_str(&err),
		       "apt-get install libvirt-daemon-driver-qemu qemu-system-x86; the log: "
		       "libvirt.log in the state folder's libvirt/");
	}
	lab_virt_close(c);
	sb_release(&err);
}

/*
 * What provides /dev/kvm, from /sys/module (a module, or built in with
 * parameters) or /proc/modules: kvm_intel, kvm_amd, or kvm_pvm, the
 * pagetable-based nested KVM of some cloud VMs ("kvm-pvm: loaded" in
 * dmesg), which runs only PVM-aware guest kernels: a stock kernel hangs
 * right after decompression (DESIGN.md). Files only, no dmesg: its ring
 * buffer may have rotated, and reading it can need privileges.
 */
static int module_loaded(const char *name, const char *proc_modules)
{
	char *dir = xasprintf("/sys/module/%s", name);
	int r = is_dir(dir);

	free(dir);
	if (!r && proc_modules) {
		size_t n = strlen(name);

		for (const char *l = proc_modules; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
			if (!strncmp(l, name, n) && l[n] == ' ')
				r = 1;
	}
	return r;
}

/* Whether the first CPU's flags in /proc/cpuinfo name @flag. */
static int cpu_flag(const char *cpuinfo, const char *flag)
{
	const char *f = strstr(cpuinfo, "\nflags");
	const char *eol;
	size_t n = strlen(flag);

	if (!f)
		return 0;
	eol = strchr(f + 1, '\n');
	for (const char *p = strchr(f, ':'); p && (!eol || p < eol); p = strchr(p + 1, ' '))
		if (!strncmp(p + 1, flag, n) && (p[1 + n] == ' ' || p[1 + n] == '\n' || !p[1 + n]))
			return 1;
	return 0;
}

/* Why there is no usable /dev/kvm (@err: access()'s errno), and the fix. */
static void kvm_unusable(struct doctor *d, int err, const char *cpuinfo, int intel, int amd)
{
	int vmx = cpu_flag(cpuinfo, "vmx"), svm = cpu_flag(cpuinfo, "svm");
	const char *tcg = ": guests run under TCG (slow, but results are valid)";
	struct stat st;
	char *s;

	if (err == EACCES || err == EPERM) {
		struct group *g = !stat("/dev/kvm", &st) ? getgrgid(st.st_gid) : NULL;

		s = xasprintf("/dev/kvm (mode %04o, group %s) is not readable and writable by uid %ld%s",
			      (unsigned)(st.st_mode & 07777), g ? g->gr_name : "?", (long)geteuid(), tcg);
		report(d, WARN, "KVM", s, "run mglrulab as root, or 'adduser $USER kvm' and log in again");
	} else if (err != ENOENT) {
		s = xasprintf("/dev/kvm: %s%s", strerror(err), tcg);
		report(d, WARN, "KVM", s, "check /dev/kvm (ls -l /dev/kvm; dmesg | grep -i kvm)");
	} else if (vmx && !intel) {
		s = xasprintf("no /dev/kvm: the CPU has vmx but kvm_intel is not loaded%s", tcg);
		report(d, WARN, "KVM", s, "modprobe kvm_intel");
	} else if (svm && !amd) {
		s = xasprintf("no /dev/kvm: the CPU has svm but kvm_amd is not loaded%s", tcg);
		report(d, WARN, "KVM", s, "modprobe kvm_amd");
	} else if (!vmx && !svm && cpu_flag(cpuinfo, "hypervisor")) {
		s = xasprintf("no /dev/kvm: this machine is a VM whose CPU shows no vmx/svm (no nested "
			      "virtualization)%s", tcg);
		report(d, WARN, "KVM", s, "enable nested virtualization on the VM's host, or use a "
		       "machine with KVM");
	} else if (!vmx && !svm) {
		s = xasprintf("no /dev/kvm: the CPU shows no vmx/svm%s", tcg);
		report(d, WARN, "KVM", s, "enable virtualization (VT-x/AMD-V) in the firmware setup");
	} else {
		s = xasprintf("no /dev/kvm although kvm_%s is loaded%s", vmx ? "intel" : "amd", tcg);
		report(d, WARN, "KVM", s, "dmesg | grep -i kvm (virtualization disabled in the firmware?)");
	}
	free(s);
}

static void check_kvm(struct doctor *d, const char *state)
{
	struct strbuf cpuinfo = STRBUF_INIT, modules = STRBUF_INIT;
	char *reason = NULL, *s, *fix = NULL;
	const char *mods = read_file("/proc/modules", &modules, 1 << 20) ? NULL : sb_str(&modules);
	int intel = module_loaded("kvm_intel", mods), amd = module_loaded("kvm_amd", mods);
	int pvm = !intel && !amd && module_loaded("kvm_pvm", mods);
	const char *what = intel ? "kvm_intel" : amd ? "kvm_amd" : pvm ? "kvm-pvm" : "module unknown";
	int cached;

	/* unreadable: the hints below go without the CPU's flags */
	if (read_file("/proc/cpuinfo", &cpuinfo, 1 << 20))
		sb_reset(&cpuinfo);
	if (access("/dev/kvm", R_OK | W_OK)) {
		int err = errno;

		kvm_unusable(d, err, sb_str(&cpuinfo), intel, amd);
		goto out;
	}
	cached = guest_kvm_cached_reason(state, &reason);
	if (cached == 1) {
		s = xasprintf("/dev/kvm (%s) boots kernels (cached probe: %s)", what, reason);
		report(d, OK, "KVM", s, NULL);
	} else if (cached == 0) {
		s = xasprintf("/dev/kvm (%s) cannot boot a kernel (cached probe: %s)%s", what, reason,
			      pvm ? "; kvm-pvm runs only PVM-aware guest kernels" : "");
		fix = xasprintf("%s; delete %s/kvm-probe.json to probe again", pvm ?
				"nothing to do on a kvm-pvm host (TCG is used)" :
				"on a nested host, enable nested virtualization on its host", state);
		report(d, WARN, "KVM", s, fix);
	} else if (pvm) {
		s = xasprintf("/dev/kvm is kvm-pvm (/sys/module/kvm_pvm), a nested KVM that runs only "
			      "PVM-aware guest kernels (stock kernels hang): not yet probed; the first guest "
			      "boot's probe (up to 20 s) will fall back to TCG");
		report(d, WARN, "KVM", s, "nothing to do: accel = tcg in lab.conf skips the probe");
	} else {
		s = xasprintf("/dev/kvm (%s) is usable, not yet probed (the first guest boot probes it once)",
			      what);
		report(d, WARN, "KVM", s, NULL);
	}
	free(s);
out:
	free(fix);
	free(reason);
	sb_release(&cpuinfo);
	sb_release(&modules);
}

static void check_libguestfs(struct doctor *d)
{
	char *k = NULL;

	if (glob_first("/boot/vmlinuz-*", &k)) {
		struct strbuf why = STRBUF_INIT;

		/* an ordinary user's libguestfs must be able to read it */
		if (appliance_kernel_check("/boot", geteuid(), getegid(), &why))
			report(d, FAIL, "libguestfs appliance kernel", sb_str(&why),
			       "as root: scripts/install-deps (a dpkg stat override, 0644)");
		else
			report(d, OK, "libguestfs appliance kernel", k, NULL);
		sb_release(&why);
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
	config_release(&cfg);
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
		"its appliance kernel, busybox-static, whether KVM really works and why\n"
		"not (/dev/kvm, its module such as kvm-pvm, the CPU's vmx/svm, the cached\n"
		"probe), kernel source, disk space and the guest programs; then every\n"
		"[run] host of the lab (lab.conf, or -c FILE) over its libvirt connection:\n"
		"reachable, its QEMU and KVM, the storage pool, CPUs and free memory for\n"
		"the guest. Every problem comes with the command that fixes it. Exit status\n"
		"0 when nothing blocks, 2 when something does (an unreachable host, too).\n",
	.options = doctor_options,
};

/* Whether a series can be built at all: the sandbox runs a command with no network. */
static void check_sandbox(struct doctor *d)
{
	static const struct sandbox_policy defaults;
	struct strbuf err = STRBUF_INIT;

	if (sandbox_probe(&defaults, &err))
		report(d, FAIL, "build sandbox", sb_str(&err),
		       "scripts/install-deps (bubblewrap, the build user); docs/security.md");
	else
		report(d, OK, "build sandbox", geteuid() ? "bubblewrap, as this user" :
		       "bubblewrap, as " SANDBOX_DEFAULT_USER, NULL);
	sb_release(&err);
}

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
	check_sandbox(&d);
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
