// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab guest boot|run|image|extract: one guest by hand. `guest boot` is
 * the first thing a new user runs: it proves the whole chain (image,
 * libvirt, kernel, runner, results channel, topology check).
 */
#include "cmd.h"
#include "lab_uri.h"
#include "xjson.h"
#include "escape.h"
#include "config.h"
#include "domain_plan.h"
#include "fsutil.h"
#include "guest_accel.h"
#include "guest_image.h"
#include "guest_job.h"
#include "guest_lab.h"
#include "host.h"
#include "host_run.h"
#include "lab_paths.h"
#include "libvirt_conn.h"
#include "kbuild.h"
#include "kcache.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --jobs: guests at once (each a thread) */
#define GUEST_MAX_JOBS 16

struct guest_opts {
	const char *guest, *kernel, *initrd, *state, *uri, *cmdline, *run_dir, *workload;
	const char *guests_dir, *bin_dir, *host, *attr_plugin;
	struct strvec args;
	struct domain_share shares[8];
	int nr_shares;
	int json, keep_disk, no_image, hash_only, print_xml;
	int accel;			/* -1: the guest file's */
	long timeout, repeat, jobs;
};

/*
 * --kernel NAME: a [kernel NAME] of lab.conf ($MGLRULAB_CONFIG or ./lab.conf),
 * from the kernel cache (built first when it is not there yet; with
 * --print-xml, which builds nothing, only when it is there).
 */
static int kernel_by_name(struct guest_opts *o)
{
	static char bzimage[4096];
	struct lab_config cfg;
	struct kbuild_result res = { 0 };
	const struct kernel_cfg *k;
	int r = config_load_or_report(config_default_path(), &cfg);

	if (r)
		goto out;
	k = config_kernel(&cfg, o->kernel);
	if (!k) {
		r = user_error("--kernel %s: neither a file nor a [kernel %s] in %s", o->kernel,
			       o->kernel, cfg.path);
		goto out;
	}
	if (o->print_xml) {
		char key[SHA256_HEX_LEN + 1], *entry;

		if (kbuild_lookup(&cfg, k, key)) {
			r = user_error("--kernel %s: not in the kernel cache yet, and --print-xml builds "
				       "nothing ('mglrulab kernel build %s' first, or give a bzImage)",
				       o->kernel, o->kernel);
			goto out;
		}
		entry = kcache_entry_dir(cfg.cache_dir, key);
		snprintf(bzimage, sizeof(bzimage), "%s/bzImage", entry);
		free(entry);
		o->kernel = bzimage;
		goto out;
	}
	r = kbuild_kernel(&cfg, k, &res);
	if (!r) {
		snprintf(bzimage, sizeof(bzimage), "%s", res.bzimage);
		o->kernel = bzimage;
		/* Held until the command ends (its descriptor stays open): `kernel gc` leaves it alone. */
		res.hold_fd = -1;
	}
	kbuild_result_release(&res);
out:
	config_release(&cfg);
	return r;
}

/* --share HOSTDIR:TAG, read-only 9p */
static int opt_share(const struct lab_opt_ctx *ctx, const char *arg)
{
	struct guest_opts *o = ctx->base;
	char *colon = strrchr(arg, ':');

	if (!colon || colon == arg || !colon[1] || strlen(colon + 1) > 31 ||
	    o->nr_shares == (int)ARRAY_SIZE(o->shares))
		return lab_opt_error(ctx, "expected HOSTDIR:TAG (tag at most 31 characters, 8 shares), "
				     "got '%s'", arg);
	/* the value is argv's own string: split it in place */
	*colon = '\0';
	o->shares[o->nr_shares].host_dir = arg;
	o->shares[o->nr_shares++].tag = colon + 1;
	return 0;
}

/* --arg key=value becomes the workload's --key=value */
static int opt_arg(const struct lab_opt_ctx *ctx, const char *arg)
{
	if (!strchr(arg, '=') || arg[0] == '=')
		return lab_opt_error(ctx, "expected KEY=VALUE, got '%s'", arg);
	strvec_pushf(&((struct guest_opts *)ctx->base)->args, "--%s", arg);
	return 0;
}

static const struct lab_choice accel_choices[] = {
	{ "auto", ACCEL_AUTO }, { "kvm", ACCEL_KVM }, { "tcg", ACCEL_TCG }, { NULL, 0 }
};

#define GUEST_STRING(l, s, field, arg, h) LAB_OPT_STRING(l, s, struct guest_opts, field, arg, h)
#define GUEST_BOOL(l, field, h) LAB_OPT_BOOL(l, 0, struct guest_opts, field, h)

static const struct lab_option guest_options[] = {
	GUEST_STRING("kernel", 'k', kernel, "K",
		     "bzImage to boot, or a [kernel NAME] of lab.conf (from the cache)"),
	GUEST_STRING("cmdline", 0, cmdline, "ARGS",
		     "appended to the kernel command line (e.g. numa=off)"),
	GUEST_STRING("initrd", 0, initrd, "PATH", "initramfs (only for distribution kernels)"),
	GUEST_STRING("workload", 'w', workload, "NAME",
		     "(run) program under /usr/lib/mglrulab/workloads"),
	LAB_OPT_CALLBACK("arg", 0, opt_arg, "KEY=VALUE",
			 "(run) passed to the workload as --KEY=VALUE"),
	LAB_OPT_LONG("timeout", 0, struct guest_opts, timeout, 1, 7 * 86400, "SECONDS",
		     "(run) the runner kills the workload after this"),
	GUEST_STRING("state", 0, state, "DIR",
		     "lab state folder (default $MGLRULAB_STATE_DIR or .lab)"),
	GUEST_STRING("uri", 0, uri, "URI",
		     "libvirt URI (default: embedded qemu:///embed?root=STATE/libvirt)"),
	GUEST_STRING("host", 0, host, "NAME",
		     "boot on [host NAME] of lab.conf ($MGLRULAB_CONFIG or ./lab.conf):\n"
		     "kernel and image as volumes there, console and results as streams"),
	GUEST_STRING("run-dir", 0, run_dir, "DIR", "where the run's files go (default STATE/runs/...)"),
	GUEST_BOOL("keep-disk", keep_disk, "keep the run's overlay disk for 'guest extract'"),
	GUEST_STRING("attr-plugin", 0, attr_plugin, "SO",
		     "(run, TCG) load the attribution plugin (build/plugin/mglrulab-attr.so):\n"
		     "instructions per block of each measured phase in RUN_DIR/attr.N"),
	LAB_OPT_LONG("repeat", 0, struct guest_opts, repeat, 1, 10000, "N",
		     "N fresh guests in a row through one connection"),
	LAB_OPT_LONG("jobs", 0, struct guest_opts, jobs, 1, GUEST_MAX_JOBS, "J",
		     "with --repeat: J guests at once, a thread each"),
	LAB_OPT_CALLBACK("share", 0, opt_share, "DIR:TAG",
			 "share a host folder read-only over 9p (mount -t 9p\n"
			 "-o trans=virtio,version=9p2000.L TAG /mnt in the guest)"),
	GUEST_BOOL("no-image", no_image, "boot without a disk (plumbing checks)"),
	LAB_OPT_CHOICE("accel", 0, struct guest_opts, accel, accel_choices, "auto|kvm|tcg",
		       "instead of the guest file's accel (kvm needs a usable /dev/kvm)"),
	GUEST_BOOL("print-xml", print_xml,
		   "(boot, run) print the libvirt domain XML the guest would start\n"
		   "with, and start nothing (no libvirt, no image, no KVM probe)"),
	GUEST_STRING("guests-dir", 0, guests_dir, "DIR", "where GUEST.conf files are (default guests)"),
	GUEST_STRING("bin-dir", 0, bin_dir, "DIR",
		     "the static guest programs for the image (default build/guest beside mglrulab)"),
	GUEST_BOOL("hash", hash_only, "(image) only print the input hash the cache uses"),
	GUEST_BOOL("json", json, "machine-readable result"),
	LAB_OPT_END
};

static const char *const guest_synopsis[] = {
	"mglrulab guest boot GUEST --kernel BZIMAGE [options]",
	"mglrulab guest run GUEST --kernel BZIMAGE --workload NAME [--arg KEY=VALUE]... [options]",
	"mglrulab guest image [--state DIR] [--bin-dir DIR] [--hash] [--json]",
	"mglrulab guest extract RUN_DIR...",
	NULL
};

static const char guest_description[] =
	"boot     Boot GUEST (guests/GUEST.conf or a path) with the kernel, check that\n"
	"         the guest shows exactly the declared NUMA topology, print it and the\n"
	"         boot time, power off. A mismatch fails and shows both topologies.\n"
	"         --print-xml: print the domain XML it would start, start nothing.\n"
	"run      The same, then run workload NAME with --KEY=VALUE arguments and\n"
	"         show the records it printed.\n"
	"image    Build the guest image (or find it in the cache) and print its path.\n"
	"extract  Copy /results out of runs kept with --keep-disk (one appliance),\n"
	"         as data: regular files and folders only; refusals in RUN/extract.json.\n";

const struct lab_usage guest_usage = {
	.synopsis = guest_synopsis,
	.description = guest_description,
	.options = guest_options,
};

/* guest extract takes run folders and no options. */
static const struct lab_usage extract_usage = {
	.synopsis = guest_synopsis + 3,
	.description =
		"Copy /results out of runs kept with --keep-disk (one appliance), as data:\n"
		"regular files and folders only; refusals in RUN/extract.json.\n",
};

static int parse_opts(int argc, char **argv, struct guest_opts *o, int need_guest)
{
	char what[32];
	int nargs, r;

	snprintf(what, sizeof(what), "guest %s", argv[0]);
	r = lab_options_parse(&guest_usage, what, argc, argv, o, &nargs);
	if (r)
		return r;
	if (nargs > 1)
		return user_error("guest: unexpected argument '%s'", argv[1]);
	if (nargs)
		o->guest = argv[0];
	if (need_guest && !o->guest)
		return user_error("guest: which guest? (e.g. 'mglrulab guest boot tiny --kernel PATH')");
	if (need_guest && !o->kernel)
		return user_error("guest: --kernel PATH_TO_BZIMAGE is required");
	if (o->attr_plugin && o->host)
		return user_error("--attr-plugin: not with --host (QEMU loads it from this machine's files)");
	if (o->attr_plugin && !is_regular_file(o->attr_plugin))
		return user_error("--attr-plugin %s: no such file (make plugin builds "
				  "build/plugin/mglrulab-attr.so)", o->attr_plugin);
	if (o->kernel && !is_regular_file(o->kernel)) {
		if (strchr(o->kernel, '/'))
			return user_error("--kernel %s: no such file (a bzImage, or a [kernel NAME] of lab.conf)",
					  o->kernel);
		return kernel_by_name(o);
	}
	return 0;
}

static void print_topology_json(json_t *out, const struct guest_run *run)
{
	if (run->result.topology)
		json_object_set(out, "topology", run->result.topology);
}

/* A number from the guest for JSON: non-finite ones (jansson refuses them) as null. */
static json_t *finite_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static int report_run(const struct guest_opts *o, const struct guest_lab *lab,
		      const struct guest_topology *topo, struct guest_run *run, const char *run_dir,
		      const struct lab_host *h, const struct host_run_stats *st)
{
	struct guest_topology seen;
	struct strbuf sb = STRBUF_INIT;

	if (o->json) {
		/* The failure and the probe's reason may quote the guest's console. */
		/*
		 * The guest's name is a file name the user typed (not checked as
		 * UTF-8); boot_s and guest_s come from the guest and may not be
		 * finite, which json_pack refuses.
		 */
		json_t *out = xjson_pack("{s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s,s:o,s:b}",
					"guest", json_string_lossy(topo->name),
					"status", guest_run_status_name(run->status),
					"run_dir", json_string_lossy(run_dir), "failure",
					run->failure ? json_string_lossy(run->failure) : json_null(),
					"boot_s", finite_or_null(run->boot_s),
					"boot_wall_s", run->boot_wall_s >= 0 ?
					finite_or_null(run->boot_wall_s) : json_null(),
					"wall_s", finite_or_null(run->wall_s),
					"guest_s", finite_or_null(run->guest_s),
					"host_s", finite_or_null(run->host_s),
					"accel", guest_accel_name(run->accel),
					"accel_reason", json_string_lossy(lab->accel_reason),
					"image_cache_hit", lab->image_cache_hit);
		print_topology_json(out, run);
		if (h)
			json_object_set_new(out, "host", xjson_pack("{s:s,s:o,s:f,s:i,s:b}",
					    "name", h->cfg->name, "uri", json_string_lossy(h->cfg->uri),
					    "volume_s", st->volume_s, "volumes_uploaded", st->volumes_uploaded,
					    "host_error", st->host_error));
		json_object_set(out, "records", run->result.records);
		/* one run: readable; --repeat: one JSON object per line */
		json_dumpf(out, stdout, o->repeat > 1 ? JSON_COMPACT : JSON_INDENT(2));
		putchar('\n');
		json_decref(out);
	}
	if (run->status != GUEST_RUN_OK) {
		sb_release(&sb);
		return lab_error("guest %s: %s: %s\n(run files in %s)", topo->name,
				 guest_run_status_name(run->status), run->failure ? run->failure : "?", run_dir);
	}
	if (o->json)
		return LAB_OK;
	if (guest_result_topology(&run->result, &seen, &sb)) {
		int r = lab_error("guest %s: %s\n(run files in %s)", topo->name, sb_str(&sb), run_dir);

		sb_release(&sb);
		return r;
	}
	sb_reset(&sb);
	guest_topology_format(&seen, &sb);
	term_printf(stdout, "guest %s: topology verified (%s, %s)\n", topo->name, guest_accel_name(run->accel),
			    topo->path ? topo->path : "");
	term_printf(stdout, "%s", sb_str(&sb));
	term_printf(stdout, "  kernel %s\n", run->result.kernel_release ?: "?");
	term_printf(stdout, "  lru_gen %s\n", run->result.lru_gen ?: "(not available)");
	if (run->boot_wall_s >= 0)
		term_printf(stdout, "boot to runner: %.2f s (host clock), %.2f s (guest clock); ",
			    run->boot_wall_s, run->boot_s);
	else
		term_printf(stdout, "boot to runner: %.2f s (guest clock); ", run->boot_s);
	term_printf(stdout, "guest lifetime %.2f s (guest clock); wall %.2f s; "
		    "host overhead %.2f s\n", run->guest_s, run->wall_s, run->host_s);
	if (h && !h->embedded)
		term_printf(stdout, "host %s: volumes %.2f s (%d uploaded)\n", h->cfg->name, st->volume_s,
			    st->volumes_uploaded);
	if (lab->accel_reason && run->accel == ACCEL_TCG)
		term_printf(stdout, "accel: tcg (%s)\n", lab->accel_reason);
	term_printf(stdout, "run files: %s\n", run_dir);
	sb_release(&sb);
	return LAB_OK;
}

static char *default_run_dir(const char *state, const char *what, const char *guest)
{
	char when[32];

	iso8601_now(when);
	for (char *p = when; *p; p++)
		if (*p == ':')
			*p = '-';
	return xasprintf("%s/runs/%s-%s-%s-%ld", state, what, guest, when, (long)getpid());
}

/*
 * --host NAME: its [host] section, opened. The embedded host is the lab's
 * own connection (it holds the state folder's lock): *@h stays unused.
 */
static int open_host(struct guest_opts *o, struct lab_config *cfg, struct lab_host *h, int *use)
{
	struct strbuf err = STRBUF_INIT;
	const struct host_cfg *hc;
	int r;

	*use = 0;
	r = config_load_or_report(config_default_path(), cfg);
	if (r)
		return r;
	hc = config_host(cfg, o->host);
	if (!hc)
		return user_error("--host %s: no [host %s] in %s", o->host, o->host, cfg->path);
	if (lab_uri_same(hc->uri, CONFIG_EMBED_URI))
		return LAB_OK;
	if (o->uri)
		return user_error("--host and --uri: the host's uri is in %s", cfg->path);
	if (host_open(h, hc, o->state ? o->state : cfg->state_dir, &err)) {
		r = lab_error("%s", sb_str(&err));
		sb_release(&err);
		return r;
	}
	*use = 1;
	return LAB_OK;
}

/* One guest of a --repeat/--jobs batch. */
struct one_run {
	struct guest_lab *lab;
	const struct guest_topology *topo;
	const char *kernel;
	struct host_runner runner;	/* .host NULL: the lab's own connection */
	struct guest_job_spec job;
	char *run_dir;
	struct guest_run run;
};

static void *one_run(void *arg)
{
	struct one_run *x = arg;

	if (x->runner.host)
		guest_lab_run_with(x->lab, x->topo, x->kernel, &x->job, x->run_dir, &x->run,
				   host_guest_runner, &x->runner);
	else
		guest_lab_run(x->lab, x->topo, x->kernel, &x->job, x->run_dir, &x->run);
	return NULL;
}

/* @n guests at once, each in its own thread (one: in this one). */
static void run_batch(struct one_run *runs, int n)
{
	pthread_t th[GUEST_MAX_JOBS];
	int started[GUEST_MAX_JOBS] = { 0 };

	if (n == 1) {
		one_run(&runs[0]);
		return;
	}
	for (int j = 0; j < n; j++)
		started[j] = !pthread_create(&th[j], NULL, one_run, &runs[j]);
	for (int j = 0; j < n; j++) {
		if (started[j])
			pthread_join(th[j], NULL);
		else
			one_run(&runs[j]);	/* no thread for it: it runs after the others */
	}
}

/*
 * accel=auto for --print-xml, without booting anything: the cached probe's
 * answer; no usable /dev/kvm is TCG, as guest_accel_resolve() decides; a
 * /dev/kvm never probed is shown as KVM, with a note that the first boot
 * decides.
 */
static enum guest_accel print_xml_accel(const char *state, enum guest_accel want)
{
	int cached;

	if (want != ACCEL_AUTO)
		return want;
	cached = guest_kvm_cached(state);
	if (cached >= 0)
		return cached ? ACCEL_KVM : ACCEL_TCG;
	if (access("/dev/kvm", R_OK | W_OK))
		return ACCEL_TCG;
	info("accel=auto: KVM not probed on this host yet (%s/kvm-probe.json): the XML is KVM's; "
	     "the first boot probes, and falls back to TCG if KVM does not boot a kernel "
	     "(--accel tcg shows that XML)", state);
	return ACCEL_KVM;
}

/*
 * --print-xml: the domain XML this boot or run would start, on stdout,
 * started nowhere. Nothing is opened or written: no libvirt connection,
 * no guest image (the domain gets the run's overlay RUN/disk.qcow2 of it),
 * no job file (RUN/job.json), no KVM probe.
 */
static int print_xml(const struct guest_opts *o, const struct guest_topology *topo, int is_run)
{
	const char *state = o->state ? o->state : guest_default_state_dir();
	char *run_dir, *name, *job, *xml, *job_cmdline;
	struct domain_owner owner;
	struct guest_run run;
	int r = LAB_OK;

	if (o->host)
		return user_error("--print-xml: not with --host (there the kernel, disk and job are "
				  "volumes of the host's pool, named once uploaded)");
	if (o->repeat > 1 || o->jobs > 1)
		return user_error("--print-xml prints one guest's domain: not with --repeat or --jobs");
	run_dir = o->run_dir ? xstrdup(o->run_dir) :
		  default_run_dir(state, is_run ? "run" : "boot", topo->name);
	job = guest_job_json(path_basename(run_dir), is_run ? o->workload : "",
			     (const char *const *)o->args.v, (int)o->timeout);
	if (!job) {
		free(run_dir);
		return user_error("guest %s: cannot write the job: %s", topo->name, errno == EILSEQ ?
				  "the run folder's name, workload name or an argument is not valid UTF-8" :
				  strerror(errno));
	}
	memset(&run, 0, sizeof(run));
	run.topo = topo;
	run.accel = print_xml_accel(state, topo->accel);
	run.kernel = o->kernel;
	run.initrd = o->initrd;
	run.base_image = o->no_image ? NULL : "(the guest image)";
	run.job_json = job;
	job_cmdline = is_run ? guest_job_cmdline((const char *const *)o->args.v) : NULL;
	run.job_cmdline = job_cmdline;
	run.extra_cmdline = o->cmdline;
	run.run_dir = run_dir;
	run.shares = o->shares;
	run.nr_shares = o->nr_shares;
	run.attr_plugin = o->attr_plugin;
	/* the name and owner tag the first domain of this process would get */
	name = xasprintf(LAB_DOMAIN_PREFIX "%ld-0", (long)getpid());
	domain_owner_self(&owner, state);
	xml = guest_run_domain_xml(&run, name, &owner);
	domain_owner_release(&owner);
	if (xml)
		term_printf(stdout, "%s", xml);
	else
		r = lab_error("guest %s: cannot make %s absolute: %s", topo->name, run_dir,
			      strerror(errno));
	free(xml);
	free(name);
	free(job);
	free(job_cmdline);
	free(run_dir);
	return r;
}

/* Runs @first to @first + @n - 1 of --repeat, each with its folder and job. */
static void fill_batch(struct guest_opts *o, struct guest_lab *lab, const struct guest_topology *topo,
		       struct lab_host *host, int is_run, int first, int n, struct one_run *runs)
{
	for (int j = 0; j < n; j++) {
		char *base = o->run_dir ? xstrdup(o->run_dir) :
			     default_run_dir(lab->state_dir, is_run ? "run" : "boot", topo->name);

		runs[j] = (struct one_run){ .lab = lab, .topo = topo, .kernel = o->kernel,
					    .runner.host = host };
		runs[j].run_dir = o->repeat > 1 ? xasprintf("%s-%d", base, first + j) : xstrdup(base);
		free(base);
		runs[j].job = (struct guest_job_spec){
			.run_id = path_basename(runs[j].run_dir),
			.workload = is_run ? o->workload : "",
			.args = (const char *const *)o->args.v,
			.workload_timeout_s = (int)o->timeout,
			.extra_cmdline = o->cmdline,
			.keep_disk = o->keep_disk,
			.initrd = o->initrd,
			.shares = o->shares,
			.nr_shares = o->nr_shares,
			.attr_plugin = o->attr_plugin,
		};
		if (!o->json && !lab_quiet)
			term_printf(stdout, "booting %s (%d vCPUs, %d nodes) with %s ...\n", topo->name,
				    topo->vcpus, topo->nr_nodes, o->kernel);
	}
}

/*
 * --repeat N: N fresh guests through one connection, as a session runs
 * them; --jobs J: J of them at once, each in a thread of its own, as
 * a host's slots will. The first failure's status, or 128 + the signal.
 */
static int run_repeats(struct guest_opts *o, struct guest_lab *lab, const struct guest_topology *topo,
		       struct lab_host *host, int is_run)
{
	int r = LAB_OK;

	for (int i = 1; i <= o->repeat && r == LAB_OK; i += (int)o->jobs) {
		int n = o->repeat - i + 1 < o->jobs ? (int)(o->repeat - i + 1) : (int)o->jobs;
		struct one_run runs[GUEST_MAX_JOBS];

		fill_batch(o, lab, topo, host, is_run, i, n, runs);
		fflush(stdout);
		run_batch(runs, n);
		for (int j = 0; j < n; j++) {
			int rj = report_run(o, lab, topo, &runs[j].run, runs[j].run_dir, host,
					    &runs[j].runner.stats);

			if (r == LAB_OK)
				r = rj;
			guest_run_release(&runs[j].run);
			free(runs[j].run_dir);
		}
		if (guest_interrupted())
			r = 128 + guest_interrupted();
	}
	return r;
}

static int do_boot_or_run(struct guest_opts *o, int is_run)
{
	struct guest_topology topo;
	struct guest_lab lab;
	struct lab_config cfg = { 0 };
	struct lab_host host = { 0 };
	int on_host = 0;
	struct strbuf err = STRBUF_INIT;
	struct guest_lab_opts lo = { .state_dir = o->state, .uri = o->uri, .no_image = o->no_image,
				     .guest_bin_dir = o->bin_dir };
	char *conf = guest_conf_path(o->guests_dir ? o->guests_dir : "guests", o->guest);
	int r;

	if (is_run && !o->workload) {
		free(conf);
		return user_error("guest run: --workload NAME is required");
	}
	if (guest_topology_load(conf, &topo, &err)) {
		term_printf(stderr, "%s", sb_str(&err));
		r = user_error("guest %s: invalid topology", o->guest);
		goto out_topo;
	}
	if (o->accel >= 0)
		topo.accel = (enum guest_accel)o->accel;
	if (o->print_xml) {
		r = print_xml(o, &topo, is_run);
		guest_topology_release(&topo);
		goto out_topo;
	}
	if (o->host && (r = open_host(o, &cfg, &host, &on_host)))
		goto out_host;
	if (on_host) {
		/*
		 * Whether KVM works there is the per-host probe, not built yet:
		 * TCG, unless the topology asks for KVM.
		 */
		lo.resolve_accel = 1;
		lo.accel = topo.accel == ACCEL_KVM ? ACCEL_KVM : ACCEL_TCG;
	}
	if ((o->jobs > 1 || o->attr_plugin) && !lo.resolve_accel) {
		/*
		 * now, before the threads: the first run would resolve it into
		 * @lab; and --attr-plugin must know it before any boot
		 */
		lo.resolve_accel = 1;
		lo.accel = topo.accel;
		lo.probe_kernel = o->kernel;
	}
	if (guest_lab_open(&lab, &lo, &err)) {
		r = lab_error("%s", sb_str(&err));
		goto out_lab;
	}
	/* KVM runs the guest on the CPU: the plugin would see no instruction at all */
	if (o->attr_plugin && lab.accel == ACCEL_KVM) {
		r = user_error("--attr-plugin: %s runs under KVM here, where QEMU's plugins see "
			       "no guest instruction: attribution needs TCG (accel = tcg in the "
			       "guest file; exact under icount, docs/attribution.md)", topo.name);
		goto out_lab;
	}
	if (o->attr_plugin && topo.icount_shift < 0)
		term_printf(stderr, "warning: --attr-plugin: %s has no icount: several vCPU threads "
			    "may lose each other's counts, so the table is approximate "
			    "(docs/attribution.md)\n", topo.name);
	if (on_host && topo.accel == ACCEL_AUTO) {
		free(lab.accel_reason);
		lab.accel_reason = xasprintf("host %s: no KVM probe on a [host] yet", o->host);
	}
	r = run_repeats(o, &lab, &topo, on_host ? &host : NULL, is_run);
out_lab:
	guest_lab_close(&lab);
out_host:
	if (on_host)
		host_close(&host);
	if (o->host)
		config_release(&cfg);
	guest_topology_release(&topo);
out_topo:
	free(conf);
	sb_release(&err);
	return r;
}

static int do_image_in(struct guest_opts *o, const char *bin)
{
	struct guest_image_spec spec = {
		.state_dir = o->state ? o->state : guest_default_state_dir(),
		.guest_bin_dir = bin,
	};
	struct strbuf err = STRBUF_INIT;
	int hit;
	double t0 = now_monotonic();
	char *path, hex[65];

	if (o->hash_only) {
		if (guest_image_hash(&spec, hex, &err)) {
			int r = lab_error("%s", sb_str(&err));
			sb_release(&err);
			return r;
		}
		term_printf(stdout, "%s\n", hex);
		return LAB_OK;
	}
	guest_libguestfs_env(guest_kvm_cached(spec.state_dir) == 1);
	path = guest_image_ensure(&spec, &hit, &err);
	if (!path) {
		int r = lab_error("%s", sb_str(&err));
		sb_release(&err);
		return r;
	}
	if (o->json)
		term_printf(stdout, "{\"image\": \"%s\", \"cache_hit\": %s, \"seconds\": %.3f, \"appliance_launches\": %d}\n",
				    path, hit ? "true" : "false", now_monotonic() - t0, guest_appliance_launches);
	else
		term_printf(stdout, "%s (%s, %.2f s)\n", path, hit ? "cache hit" : "built", now_monotonic() - t0);
	free(path);
	sb_release(&err);
	return LAB_OK;
}

static int do_image(struct guest_opts *o)
{
	char *bin = o->bin_dir ? xstrdup(o->bin_dir) : lab_guest_bin_dir();
	int r = do_image_in(o, bin);

	free(bin);
	return r;
}

/* guest extract DISK... --run-dir DEST: the batch path, one appliance for all disks. */
static int do_extract(int argc, char **argv)
{
	struct strvec disks = STRVEC_INIT, dests = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	int nargs, n, r;

	r = lab_options_parse(&extract_usage, "guest extract", argc, argv, NULL, &nargs);
	if (r)
		return r;
	for (int i = 0; i < nargs; i++) {
		/* each argument is a run folder holding disk.qcow2; results go to its results/ */
		strvec_pushf(&disks, "%s/disk.qcow2", argv[i]);
		strvec_push(&dests, argv[i]);
	}
	if (!disks.n)
		return user_error("guest extract: which run folders? (runs made with --keep-disk)");
	guest_libguestfs_env(0);
	n = guest_extract_results((const char *const *)disks.v, (const char *const *)dests.v,
				  disks.n, &err);
	term_printf(stderr, "%s", sb_str(&err));
	term_printf(stdout, "extracted %d of %zu runs (%d appliance launch)\n", n < 0 ? 0 : n, disks.n,
			    guest_appliance_launches);
	r = n == (int)disks.n ? LAB_OK : LAB_ELAB;
	strvec_clear(&disks);
	strvec_clear(&dests);
	sb_release(&err);
	return r;
}

int cmd_guest(int argc, char **argv)
{
	struct guest_opts o = { .args = STRVEC_INIT, .repeat = 1, .jobs = 1, .accel = -1 };
	const char *sub = argc > 1 ? argv[1] : NULL;
	static const char *const subs[] = { "boot", "run", "image", "extract", NULL };
	enum { BOOT, RUN, IMAGE, EXTRACT } which;
	int r, nargs;

	if (!sub) {
		lab_usage_print(&guest_usage);
		return LAB_EUSER;
	}
	which = cmd_select(subs, sub);
	if (which == EXTRACT)
		return cmd_status(do_extract(argc - 1, argv + 1));
	if ((int)which < 0) {
		/* -h, or not a subcommand */
		r = lab_options_parse(&guest_usage, "guest", argc, argv, &o, &nargs);
		if (!r)
			r = cmd_select_error("guest", subs, sub);
		goto out;
	}
	r = parse_opts(argc - 1, argv + 1, &o, which != IMAGE);
	if (r)
		goto out;
	if (o.json)
		lab_quiet = 1;	/* stdout is for the JSON alone */
	r = which == IMAGE ? do_image(&o) : do_boot_or_run(&o, which == RUN);
out:
	strvec_clear(&o.args);
	return cmd_status(r);
}
