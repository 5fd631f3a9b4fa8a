// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab run: kernels -> guest image -> planned runs, one fresh guest
 * each, every record on disk the moment it exists -> report.
 *
 * What a session needs to continue lives in session.json (written once,
 * before the first run) and runs/; a resumed session takes its kernels,
 * guest, workloads, parameters and plan from there, not from lab.conf, so
 * editing lab.conf cannot change a session half way.
 */
#include "session.h"
#include "domain_run.h"
#include "escape.h"
#include "fsutil.h"
#include "guest_accel.h"
#include "guest_conf.h"
#include "guest_image.h"
#include "guest_job.h"
#include "guest_lab.h"
#include "host_load.h"
#include "interrupt.h"
#include "kbuild.h"
#include "kbuild_prep.h"
#include "kcache.h"
#include "kimage.h"
#include "libvirt_conn.h"
#include "report.h"
#include "run_command.h"
#include "session_plan.h"
#include "session_seq.h"
#include "workload_def.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

struct session {
	struct session_opts *o;
	struct lab_config cfg;
	char *dir, *id;
	json_t *ctx;			/* session.json */
	struct guest_topology topo;
	struct guest_lab lab;		/* libvirt, the accelerator, the guest image */
	int saved_stdout;
	double t0;
	struct session_seq *seq;	/* --until decided, else NULL */
};

/* Kernel builds and guest setup talk on stdout; keep stdout for the report. */
static void stdout_to_stderr(struct session *s)
{
	fflush(stdout);
	s->saved_stdout = dup(1);
	dup2(2, 1);
}

static void stdout_restore(struct session *s)
{
	fflush(stdout);
	if (s->saved_stdout >= 0) {
		dup2(s->saved_stdout, 1);
		close(s->saved_stdout);
		s->saved_stdout = -1;
	}
}

static char *first_line_of(const char *const *argv)
{
	struct strbuf sb = STRBUF_INIT;

	if (run_capture(argv, NULL, &sb) || !sb.len) {
		sb_release(&sb);
		return xstrdup("unknown");
	}
	char *s = xstrndup(sb.buf, strcspn(sb.buf, "\n"));
	sb_release(&sb);
	return s;
}

static char *cpu_model(void)
{
	struct strbuf sb = STRBUF_INIT;
	char *model = NULL;

	if (!read_file("/proc/cpuinfo", &sb, 1 << 20)) {
		const char *m = strstr(sb_str(&sb), "model name");
		const char *colon = m ? strchr(m, ':') : NULL;
		if (colon)
			model = xstrndup(colon + 2, strcspn(colon + 2, "\n"));
	}
	sb_release(&sb);
	return model ? model : xstrdup("unknown");
}

static json_t *host_json(struct session *s)
{
	char host[256] = "unknown";
	struct utsname u;
	unsigned long libver = 0;
	char *cpu = cpu_model();
	char *qemu = first_line_of((const char *const[]){ "qemu-system-x86_64", "--version", NULL });
	json_t *j;

	gethostname(host, sizeof(host) - 1);
	uname(&u);
	virGetVersion(&libver, NULL, NULL);
	char *libvirt = xasprintf("%lu.%lu.%lu", libver / 1000000, libver / 1000 % 1000, libver % 1000);
	char *uri = s->lab.conn ? virConnectGetURI(s->lab.conn) : NULL;
	/*
	 * The host's own strings (its name, the CPU model, QEMU's banner, the
	 * reason KVM failed) are any bytes: a plain "s" would make the whole
	 * pack fail on one that is not UTF-8.
	 */
	j = json_pack("{s:o, s:o, s:I, s:I, s:o, s:o, s:s, s:o, s:s, s:o}",
		"hostname", json_string_lossy(host), "cpu", json_string_lossy(cpu),
		"cpus", (json_int_t)sysconf(_SC_NPROCESSORS_ONLN),
		"memory_mib", (json_int_t)((long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) >> 20),
		"kernel", json_string_lossy(u.release), "qemu_version", json_string_lossy(qemu),
		"libvirt_version", libvirt, "libvirt_uri", json_string_lossy(uri ? uri : s->cfg.uri),
		"accel", guest_accel_name(s->lab.accel),
		"accel_reason", json_string_lossy(s->lab.accel_reason ? s->lab.accel_reason : ""));
	free(uri);
	free(cpu);
	free(qemu);
	free(libvirt);
	return j;
}

static json_t *kernel_json(const struct kernel_cfg *k, const char *name, const char *role,
			   const struct kbuild_result *res)
{
	struct kcache_meta meta;
	struct strbuf err = STRBUF_INIT;
	json_t *series = json_array(), *files = json_array();

	/* An unreadable meta.json leaves the series empty, as the kernel list shows it. */
	if (kcache_entry_meta(res->entry_dir, &meta, &err))
		debug("%s", sb_str(&err));
	for (size_t i = 0; i < meta.subjects.n; i++)
		json_array_append_new(series, json_pack("{s:s}", "subject", meta.subjects.v[i]));
	for (size_t i = 0; i < meta.nr_series; i++)
		json_array_append_new(files, json_pack("{s:s?, s:s?}", "file", meta.series[i].file,
						       "sha256", meta.series[i].sha256));
	json_t *j = json_pack("{s:s, s:s, s:s, s:o, s:o, s:s?, s:s, s:s, s:s}",
		"name", name, "role", role, "source", k->source,
		"ref", k->ref ? json_string(k->ref) : json_null(), "series", series,
		"config_hash", meta.config_sha256,
		"cache_key", res->key, "bzImage", res->bzimage, "config_name", k->name);
	json_object_set_new(j, "series_files", files);
	/* The release the image reports ("6.12.57"): what the report names the kernel by. */
	char *release = kimage_release(res->bzimage);
	if (release)
		json_object_set_new(j, "version", json_string(release));
	free(release);
	kcache_meta_release(&meta);
	sb_release(&err);
	return j;
}

/* Metric names of a workload for this guest: "%d" expands over CPU counts or nodes. */
static json_t *metrics_json(const struct workload_cfg *w, const struct guest_topology *t)
{
	json_t *a = json_array();
	struct strvec prim = STRVEC_INIT;

	workload_cfg_primaries(w, &prim);

	for (const struct metric_def *m = w->def->metrics; m->name; m++) {
		struct strvec idx = STRVEC_INIT;
		const char *pct = strstr(m->name, "%d");
		const char *cpus = workload_cfg_value(w, "cpus");
		/*
		 * Per-CPU-count names are known from the sweep. Which nodes a
		 * workload reports on depends on the run (numa_workload reports
		 * the nodes it ages, not its own), and names with two indices
		 * only appear with a patched kernel's extra columns: the report
		 * matches those against the definition when they appear, rather
		 * than expecting them and calling them missing.
		 */
		if (pct && (strstr(pct + 2, "%d") || !cpus || !strstr(m->name, "cpu")))
			continue;
		if (pct) {
			strvec_split(&idx, cpus, ", ");
		} else {
			strvec_push(&idx, "");
		}
		for (size_t i = 0; i < idx.n; i++) {
			if (*idx.v[i] && strstr(m->name, "cpu") && atoi(idx.v[i]) > t->vcpus)
				continue;	/* the program caps the sweep at the guest's CPUs */
			char *name = *idx.v[i] ? xasprintf(m->name, atoi(idx.v[i])) : xstrdup(m->name);
			json_t *decl = json_pack("{s:s, s:s, s:s}", "name", name, "unit", m->unit,
				"better", m->better == BETTER_HIGHER ? "higher" : "lower");
			for (size_t p = 0; p < prim.n; p++)
				if (metric_pattern_match(prim.v[p], name))
					json_object_set_new(decl, "primary", json_true());
			json_array_append_new(a, decl);
			free(name);
		}
		strvec_clear(&idx);
	}
	strvec_clear(&prim);
	return a;
}

/*
 * The primary metrics, declared before the first run: names or "%d"
 * patterns (per-node metrics are only named once the run shows its nodes).
 */
static json_t *primaries_json(const struct workload_cfg *w)
{
	struct strvec names = STRVEC_INIT;
	json_t *a = json_array();

	workload_cfg_primaries(w, &names);
	for (size_t i = 0; i < names.n; i++)
		json_array_append_new(a, json_string(names.v[i]));
	strvec_clear(&names);
	return a;
}

static int workload_cfg_has(const struct workload_cfg *w, const char *param)
{
	for (size_t i = 0; i < w->keys.n; i++)
		if (!strcmp(w->keys.v[i], param))
			return 1;
	return 0;
}

/* The real path of the lab-managed work tree of a built kernel (its meta.json "tree"), or NULL. */
static char *kernel_tree(const struct kbuild_result *res)
{
	struct kcache_meta meta;
	struct strbuf err = STRBUF_INIT;
	char *r = NULL;

	if (kcache_entry_meta(res->entry_dir, &meta, &err))
		debug("%s", sb_str(&err));
	if (meta.tree && *meta.tree && !access(meta.tree, R_OK | X_OK))
		r = realpath(meta.tree, NULL);
	kcache_meta_release(&meta);
	sb_release(&err);
	return r;
}

/* The value a workload's prepare_run hook set for @param, or NULL. */
static const char *setup_value(const struct workload_run_setup *setup, const char *param)
{
	for (size_t i = 0; i + 1 < setup->set.n; i += 2)
		if (!strcmp(setup->set.v[i], param))
			return setup->set.v[i + 1];
	return NULL;
}

/* @setup: what the workload's prepare_run hook decided for its runs. */
static json_t *workload_json(const struct workload_cfg *w, const struct guest_topology *t,
			     int counters, const struct workload_run_setup *setup)
{
	json_t *params = json_object(), *args = json_array(), *j;

	for (const struct param_def *p = w->def->params; p->name; p++) {
		const char *v = workload_cfg_value(w, p->name);
		const char *hook = setup_value(setup, p->name);
		/* --no-counters wins over lab.conf for this session. */
		if (!counters && !strcmp(p->name, "counters"))
			v = "0";
		if (hook)
			v = hook;
		json_object_set_new(params, p->name, json_string(v ? v : ""));
		/* An empty value written in lab.conf overrides a default ("config =" keeps none). */
		if (v && (*v || hook || workload_cfg_has(w, p->name)))
			json_array_append_new(args, json_sprintf("--%s=%s", p->name, v));
	}
	j = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "name", w->name, "type", w->def->name,
		      "params", params, "metrics", metrics_json(w, t), "primary", primaries_json(w),
		      "args", args);
	/* The band of this workload's metrics, where lab.conf sets one. */
	if (w->threshold >= 0)
		json_object_set_new(j, "threshold", json_real(w->threshold));
	/* In session.json, so a resumed session shares the same folders. */
	if (setup->shares.n) {
		json_t *shares = json_array();
		for (size_t i = 0; i + 1 < setup->shares.n; i += 2)
			json_array_append_new(shares, json_pack("{s:s, s:s}", "tag", setup->shares.v[i],
								"host_dir", setup->shares.v[i + 1]));
		json_object_set_new(j, "shares", shares);
	}
	return j;
}

/* workload_run_env.prepare_build_dir: the baseline's tree with its .config, log in logs/. */
static int prepare_build_dir(const struct workload_run_env *env, const char *workload, char **dir)
{
	struct session *s = env->data;
	char *dotconfig = xasprintf("%s/config", env->kernel_entry);
	char *log = xasprintf("%s/logs/prepare-%s.log", s->dir, workload);
	int r = kbuild_prepare_dir(&s->cfg, env->kernel_tree, dotconfig, log, dir);

	free(dotconfig);
	free(log);
	return r;
}

static int pick_kernels(struct session *s, const struct kernel_cfg **k, const char **names,
			const char **roles, int *nk)
{
	struct lab_config *cfg = &s->cfg;

	if (s->o->mode == SESSION_ONE) {
		const char *n = s->o->kernel ? s->o->kernel :
				(cfg->run.kernels.n ? cfg->run.kernels.v[0] : NULL);
		if (!n || !(k[0] = config_kernel(cfg, n)))
			return user_error("run: no kernel '%s' in %s", n ? n : "(none)", cfg->path);
		names[0] = k[0]->name;
		roles[0] = "baseline";
		*nk = 1;
		return LAB_OK;
	}
	if (cfg->run.kernels.n < (s->o->mode == SESSION_AB ? 2u : 1u))
		return user_error("run --%s: [run] kernels in %s must name %s", s->o->mode == SESSION_AB ? "ab" : "aa",
				  cfg->path, s->o->mode == SESSION_AB ? "two kernels" : "a kernel");
	k[0] = config_kernel(cfg, cfg->run.kernels.v[0]);
	names[0] = k[0]->name;
	roles[0] = "baseline";
	if (s->o->mode == SESSION_AB) {
		k[1] = config_kernel(cfg, cfg->run.kernels.v[1]);
		names[1] = k[1]->name;
	} else {
		/* A/A: the baseline against itself, under a second name. */
		k[1] = k[0];
		names[1] = NULL;
	}
	roles[1] = "patched";
	*nk = 2;
	return LAB_OK;
}

static char *guest_bin_dir(void)
{
	const char *env = getenv("MGLRULAB_GUEST_BIN");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return xstrdup("build/guest");
	exe[n] = '\0';
	char *dir = path_dirname(exe);
	char *bin = xasprintf("%s/build/guest", dir);
	free(dir);
	return bin;
}

/* Build the kernels, describe everything, plan: session.json for a new session. */
static int new_session(struct session *s, struct kbuild_result *res)
{
	struct session_opts *o = s->o;
	struct lab_config *cfg = &s->cfg;
	const struct kernel_cfg *k[2];
	const char *names[2] = { NULL, NULL }, *roles[2] = { NULL, NULL };
	int nk = 0, r;

	r = pick_kernels(s, k, names, roles, &nk);
	if (r)
		return r;
	char *aa_name = nk == 2 && !names[1] ? xasprintf("%s-again", names[0]) : NULL;
	if (aa_name)
		names[1] = aa_name;
	for (int i = 0; i < nk; i++) {
		if (i == 1 && k[1] == k[0]) {
			res[1] = res[0];
			res[1].entry_dir = xstrdup(res[0].entry_dir);
			res[1].bzimage = xstrdup(res[0].bzimage);
			continue;
		}
		r = interrupted() ? lab_error("interrupted by signal %d", interrupted()) :
					  kbuild_kernel(cfg, k[i], &res[i]);
		if (r) {
			free(aa_name);
			return r;
		}
	}
	struct strvec wl = STRVEC_INIT;
	strvec_pushv(&wl, (const char *const *)(o->workloads.n ? o->workloads.v : cfg->run.workloads.v));
	if (!wl.n) {
		free(aa_name);
		return user_error("run: no workloads: set [run] workloads in %s or pass --workloads",
				  cfg->path);
	}
	json_t *wls = json_array();
	char *ktree = kernel_tree(&res[0]);
	/*
	 * --runs sets every workload; else a [workload] runs = N, else [run]
	 * runs. A sequential session plans up to its run cap: a workload's
	 * own runs = N caps it lower (a kernel build), and the stopping rule
	 * skips what a decided workload no longer needs.
	 */
	long runs = o->runs ? o->runs : cfg->run.runs;
	if (o->until_decided)
		runs = o->max_runs ? o->max_runs : SESSION_SEQ_MAX_RUNS;
	int *wruns = xcalloc(wl.n, sizeof(*wruns));
	struct workload_run_env env = { .kernel_tree = ktree, .kernel_entry = res[0].entry_dir,
					.prepare_build_dir = prepare_build_dir, .data = s };
	for (size_t i = 0; i < wl.n; i++) {
		const struct workload_cfg *w = config_workload(cfg, wl.v[i]);
		if (!w || !w->def) {
			r = user_error("run: '%s' is not a workload of %s", wl.v[i], cfg->path);
			goto fail_workloads;
		}
		wruns[i] = (int)(o->runs || !w->runs ? runs : w->runs);
		if (o->until_decided && w->runs && w->runs < runs)
			wruns[i] = (int)w->runs;
		struct workload_run_setup setup = { STRVEC_INIT, STRVEC_INIT };
		r = w->def->prepare_run ? w->def->prepare_run(w, &env, &setup) : LAB_OK;
		json_t *wj = r ? NULL : workload_json(w, &s->topo, !o->no_counters, &setup);
		strvec_clear(&setup.set);
		strvec_clear(&setup.shares);
		if (r)
			goto fail_workloads;
		json_object_set_new(wj, "runs", json_integer(wruns[i]));
		json_array_append_new(wls, wj);
	}
	free(ktree);
	long warmups = o->warmups >= 0 ? o->warmups : cfg->run.warmups;
	uint64_t seed = o->seed_set ? o->seed : cfg->run.seed;
	struct session_plan plan;
	session_plan_make(&plan, nk, (int)wl.n, wruns, (int)warmups, seed);
	long blocks = 0;
	for (size_t i = 0; i < wl.n; i++)
		blocks = wruns[i] > blocks ? wruns[i] : blocks;
	free(wruns);
	json_t *planned = json_array();
	for (size_t i = 0; i < plan.n; i++) {
		struct planned_run *p = &plan.runs[i];
		json_array_append_new(planned, json_pack("{s:i, s:i, s:s, s:s, s:b}", "seq", p->seq,
			"block", p->block, "kernel", names[p->kernel], "workload", wl.v[p->workload],
			"warmup", p->warmup));
	}
	json_t *kernels = json_array();
	for (int i = 0; i < nk; i++)
		json_array_append_new(kernels, kernel_json(k[i], names[i], roles[i], &res[i]));
	struct strbuf nodes_sb = STRBUF_INIT;
	json_t *nodes = json_array();
	for (int n = 0; n < s->topo.nr_nodes; n++) {
		sb_reset(&nodes_sb);
		cpuset_format(&s->topo.nodes[n].cpus, &nodes_sb);
		json_array_append_new(nodes, json_pack("{s:i, s:s, s:I}", "id", n, "cpus", sb_str(&nodes_sb),
			"memory_mib", (json_int_t)s->topo.nodes[n].memory_mib));
	}
	sb_release(&nodes_sb);
	char created[32];
	iso8601_now(created);
	const char *mode = o->mode == SESSION_AB ? "ab" : o->mode == SESSION_AA ? "aa" : "one";
	char *command = xasprintf("mglrulab run --%s -c %s", mode, cfg->path);
	s->ctx = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s}, s:o, s:o,"
			   " s:{s:s, s:s, s:i, s:I, s:o, s:s}, s:o,"
			   " s:{s:s, s:s?, s:I, s:I, s:s, s:I, s:I},"
			   " s:{s:f, s:f, s:I, s:I, s:f, s:f}, s:o}",
		"schema", REPORT_SCHEMA,
		"generator", "name", "mglrulab", "version", MGLRULAB_VERSION,
		"session", "id", s->id, "created", created, "mode", mode, "command", command,
		"host", host_json(s),
		"kernels", kernels,
		"guest", "name", cfg->run.guest, "file", s->topo.path ? s->topo.path : "",
		"vcpus", s->topo.vcpus, "memory_mib", (json_int_t)s->topo.memory_mib, "nodes", nodes,
		"accel", guest_accel_name(s->lab.accel),
		"workloads", wls,
		"design", "baseline", names[0], "patched", nk == 2 ? names[1] : NULL,
		"runs_per_kernel", (json_int_t)runs, "warmups", (json_int_t)warmups,
		"order", plan.order, "seed", (json_int_t)seed, "blocks", (json_int_t)blocks,
		"statistics", "alpha", cfg->stats.alpha, "confidence", cfg->stats.confidence,
		"resamples", (json_int_t)cfg->stats.resamples, "seed", (json_int_t)seed,
		"threshold", cfg->stats.threshold, "max_failed_fraction", cfg->stats.max_failed,
		"plan", planned);
	free(command);
	if (o->until_decided) {
		struct stats_seq_plan sp;
		stats_seq_plan_default(&sp, (size_t)runs);
		sp.alpha = cfg->stats.alpha;
		json_object_set_new(json_object_get(s->ctx, "design"), "sequential",
			json_pack("{s:s, s:s, s:f, s:I, s:I, s:I, s:f, s:o}", "until", "decided",
				  "method", SESSION_SEQ_METHOD, "alpha", sp.alpha,
				  "min_runs", (json_int_t)sp.min_runs, "max_runs", (json_int_t)sp.max_runs,
				  "step", (json_int_t)sp.step, "rho", sp.rho,
				  "budget_s", o->budget_s > 0 ? json_real(o->budget_s) : json_null()));
	}
	session_plan_free(&plan);
	strvec_clear(&wl);
	free(aa_name);
	char *path = xasprintf("%s/session.json", s->dir);
	r = session_write_json(path, s->ctx) ? lab_error("cannot write %s: %s", path, strerror(errno)) : LAB_OK;
	free(path);
	/* Build logs belong with the session. */
	for (int i = 0; i < nk && !r; i++) {
		char *from = xasprintf("%s/build.log", res[i].entry_dir);
		char *to = xasprintf("%s/logs/build-%s.log", s->dir, names[i] ? names[i] : "kernel");
		copy_file(from, to, 0644);
		free(from);
		free(to);
	}
	return r;
fail_workloads:
	json_decref(wls);
	strvec_clear(&wl);
	free(aa_name);
	free(ktree);
	free(wruns);
	return r;
}

static const char *kernel_image(const json_t *ctx, const char *name)
{
	return json_string_value(json_object_get(report_find_named(ctx, "kernels", name), "bzImage"));
}

static void fmt_duration(char *buf, size_t len, double s)
{
	if (s < 60)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}

static void progress(struct session *s, size_t done_now, size_t todo, size_t total, size_t i,
		     const json_t *p, const json_t *rec, double elapsed)
{
	char el[32], eta[32] = "?";

	if (lab_quiet)
		return;
	if (done_now)
		fmt_duration(eta, sizeof(eta), elapsed / (double)done_now * (double)(todo - done_now));
	fmt_duration(el, sizeof(el), elapsed);
	if (isatty(2) && !rec) {
		/* Our cursor control, then the line through the terminal filter. */
		fputs("\r\033[K", stderr);
		term_printf(stderr, "[%zu/%zu] %s %s%s  elapsed %s  ETA %s", i, total,
			    json_string_value(json_object_get(p, "kernel")),
			    json_string_value(json_object_get(p, "workload")),
			    json_is_true(json_object_get(p, "warmup")) ? " (warm-up)" : "", el, eta);
		return;
	}
	if (!rec)
		return;
	if (isatty(2))
		fputs("\r\033[K", stderr);
	struct strbuf line = STRBUF_INIT;
	session_progress_line(&line, i, total, p, rec);
	fprintf(stderr, "%s  [%s, ETA %s]\n", sb_str(&line), el, eta);
	sb_release(&line);
	(void)s;
}

/*
 * Which planned runs have a record: one flag per seq (1..@total), so a
 * resumed session of thousands of runs does not rescan its records for
 * every planned run.
 */
static unsigned char *done_flags(const json_t *runs, size_t total)
{
	unsigned char *f = xcalloc(total + 2, 1);
	json_t *r;
	size_t i;

	json_array_foreach(runs, i, r) {
		json_int_t seq = json_integer_value(json_object_get(r, "seq"));

		if (seq >= 1 && (size_t)seq <= total)
			f[seq] = 1;
	}
	return f;
}

/* Run every planned run that has no record yet. Returns 1 when interrupted. */
static int run_plan(struct session *s)
{
	struct strbuf err = STRBUF_INIT;
	json_t *done = session_load_runs(s->dir, &err);
	json_t *plan = json_object_get(s->ctx, "plan"), *p;
	size_t i, total = json_array_size(plan), todo = 0, done_now = 0;
	double t0 = now_monotonic();
	int stopped = 0;

	if (err.len)
		warning("%s", sb_str(&err));
	sb_reset(&err);
	if (!s->seq)
		s->seq = session_seq_open(s->dir, s->ctx, &err);
	if (err.len) {
		lab_error("%s", sb_str(&err));
		json_decref(done);
		sb_release(&err);
		return -1;
	}
	/* A resumed session first takes any look that a crash interrupted. */
	json_array_foreach(json_object_get(s->ctx, "workloads"), i, p)
		if (s->seq && json_is_string(json_object_get(p, "name")))
			session_seq_after_run(s->seq, s->ctx, done,
					      json_string_value(json_object_get(p, "name")));
	unsigned char *have = done_flags(done, total);
	json_array_foreach(plan, i, p) {
		json_int_t seq = json_integer_value(json_object_get(p, "seq"));
		todo += !(seq >= 1 && (size_t)seq <= total && have[seq]);
	}
	if (todo < total && !lab_quiet)
		fprintf(stderr, "resuming: %zu of %zu runs already done\n", total - todo, total);
	json_array_foreach(plan, i, p) {
		int seq = (int)json_integer_value(json_object_get(p, "seq"));
		if (seq >= 1 && (size_t)seq <= total && have[seq])
			continue;
		if (interrupted()) {
			stopped = 1;
			break;
		}
		const char *wname = json_string_value(json_object_get(p, "workload"));
		if (s->seq && (session_seq_budget_spent(s->seq, done) ||
			       session_seq_stopped(s->seq, wname)))
			continue;
		const char *kname = json_string_value(json_object_get(p, "kernel"));
		json_t *w = report_find_named(s->ctx, "workloads", wname);
		const char *image = kernel_image(s->ctx, kname);
		struct strvec args = STRVEC_INIT;
		json_t *a;
		size_t j;
		json_array_foreach(json_object_get(w, "args"), j, a)
			strvec_push(&args, json_string_value(a));
		char *run_id = xasprintf("%s/%04d", s->id, seq);
		char *job = guest_job_json(run_id, json_string_value(json_object_get(w, "type")),
					   (const char *const *)args.v, s->topo.run_timeout_s);
		char *run_dir = xasprintf("%s/logs/run-%04d", s->dir, seq);
		char started[32];
		iso8601_now(started);
		struct domain_share shares[8];
		int nr_shares = 0;
		json_array_foreach(json_object_get(w, "shares"), j, a)
			if (nr_shares < (int)ARRAY_SIZE(shares)) {
				shares[nr_shares].host_dir = json_string_value(json_object_get(a, "host_dir"));
				shares[nr_shares++].tag = json_string_value(json_object_get(a, "tag"));
			}
		struct guest_run gr = { .topo = &s->topo, .accel = s->lab.accel, .kernel = image,
					.base_image = s->lab.image, .job_json = job, .run_dir = run_dir,
					.shares = shares, .nr_shares = nr_shares };
		progress(s, done_now, todo, total, i + 1, p, NULL, now_monotonic() - t0);
		struct host_sample hs_before, hs_after;
		host_sample_take(&hs_before);
		guest_run(s->lab.conn, &gr);
		host_sample_take(&hs_after);
		if (gr.status == GUEST_RUN_INTERRUPTED) {
			/* Not a result: the run is redone on resume. */
			stopped = 1;
		} else {
			json_t *rec = session_record(p, &gr, &s->topo, started);
			json_object_set_new(rec, "run_dir", json_string(run_dir));
			json_t *load = host_load_json(&hs_before, &hs_after, gr.qemu_cpu_s);
			if (load)
				json_object_set_new(rec, "host_load", load);
			char *path = session_run_path(s->dir, seq);
			if (session_write_json(path, rec))
				lab_error("cannot write %s: %s", path, strerror(errno));
			free(path);
			done_now++;
			progress(s, done_now, todo, total, i + 1, p, rec, now_monotonic() - t0);
			json_array_append_new(done, rec);
			if (s->seq)
				session_seq_after_run(s->seq, s->ctx, done, wname);
		}
		guest_run_release(&gr);
		free(run_id);
		free(job);
		free(run_dir);
		strvec_clear(&args);
		if (stopped)
			break;
	}
	free(have);
	json_decref(done);
	sb_release(&err);
	return stopped || interrupted();
}

static int prepare_guest(struct session *s, const char *guest_file, const char *kernel_for_probe)
{
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;
	char *bin = guest_bin_dir();

	if (guest_topology_load(guest_file, &s->topo, &err)) {
		term_printf(stderr, "%s", sb_str(&err));
		r = user_error("%s: the guest topology has errors (see above)", guest_file);
		goto out;
	}
	struct guest_lab_opts lo = {
		.state_dir = s->cfg.state_dir,
		.uri = strcmp(s->cfg.uri, "qemu:///embed") ? s->cfg.uri : NULL,
		.guest_bin_dir = bin,
		/* lab.conf's accel wins over the topology's */
		.resolve_accel = 1,
		.accel = !strcmp(s->cfg.accel, "kvm") ? ACCEL_KVM :
			 !strcmp(s->cfg.accel, "tcg") ? ACCEL_TCG : s->topo.accel,
		.probe_kernel = kernel_for_probe,
	};
	if (guest_lab_open(&s->lab, &lo, &err)) {
		r = lab_error("%s", sb_str(&err));
		goto out;
	}
	if (!lab_quiet)
		term_printf(stderr, "guest %s: %d vCPUs, %d nodes, %s; image %s%s\n", s->topo.name,
			    s->topo.vcpus, s->topo.nr_nodes, guest_accel_name(s->lab.accel), s->lab.image,
			    s->lab.image_cache_hit ? " (cached)" : "");
out:
	free(bin);
	sb_release(&err);
	return r;
}

static const char *guest_file_of(struct session *s)
{
	for (size_t i = 0; i < s->cfg.nr_guests; i++)
		if (!strcmp(s->cfg.guests[i].name, s->cfg.run.guest))
			return s->cfg.guests[i].file;
	return NULL;
}

static int finish(struct session *s, int stopped)
{
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	json_t *session_json = json_deep_copy(s->ctx);
	json_t *runs = session_load_runs(s->dir, &err);
	char finished[32];
	int r = LAB_OK;

	iso8601_now(finished);
	json_object_set_new(json_object_get(session_json, "session"), "finished", json_string(finished));
	json_object_set_new(json_object_get(session_json, "session"), "complete",
			    json_boolean(!stopped));
	json_object_set_new(session_json, "runs", runs);
	/* Why each workload stopped where it did, and every look taken. */
	if (s->seq)
		json_object_set_new(session_json, "sequential", json_deep_copy(session_seq_state(s->seq)));
	json_t *report = session_write_reports(s->dir, session_json);
	json_decref(session_json);
	if (!report) {
		sb_release(&err);
		return LAB_ELAB;
	}
	stdout_restore(s);
	char *txt = xasprintf("%s/report.txt", s->dir);
	struct strbuf text = STRBUF_INIT;
	if (!read_file(txt, &text, 0))
		fputs(sb_str(&text), stdout);
	fflush(stdout);
	sb_release(&text);
	free(txt);
	if (s->o->junit)
		session_write_junit(s->o->junit, report, s->o->fail_on);
	term_printf(stderr, "\nreports: %s/report.html, report.txt, report.json\n", s->dir);
	json_t *summary = json_object_get(report, "summary");
	if (stopped) {
		term_printf(stderr, "interrupted: %lld of %zu runs done; continue with:\n"
			    "  mglrulab run --resume %s -c %s\n",
			    (long long)json_integer_value(json_object_get(summary, "runs")),
			    json_array_size(json_object_get(s->ctx, "plan")), s->id, s->cfg.path);
		r = LAB_ELAB;
	} else if (json_integer_value(json_object_get(summary, "runs_ok")) == 0) {
		r = lab_error("no run succeeded: the lab itself is failing (see %s/logs/)", s->dir);
	} else {
		r = session_verdict_status(report, s->o->fail_on, &why);
		if (r)
			term_printf(stderr, "failing (--fail-on %s):\n%s",
				    s->o->fail_on == FAIL_ON_CHANGE ? "change" : "regression", sb_str(&why));
	}
	json_decref(report);
	sb_release(&err);
	sb_release(&why);
	return r;
}

/*
 * A budget that cannot hold the first look of every workload would end
 * the session with nothing decided: refuse it before any kernel is built.
 */
static int check_budget(const struct session_opts *o, const struct lab_config *cfg)
{
	size_t nwl = o->workloads.n ? o->workloads.n : cfg->run.workloads.n;
	double least = (double)(STATS_SEQ_MIN_RUNS * 2 * nwl) * SESSION_SEQ_MIN_RUN_S;

	if (!o->until_decided || !o->budget_s || o->budget_s >= least)
		return LAB_OK;
	return user_error("run: --budget %.0fs cannot fit the first look: %d runs per kernel of "
			  "%zu workload(s) are %zu runs, at least %.0f s at %.0f s a run",
			  o->budget_s, STATS_SEQ_MIN_RUNS, nwl, STATS_SEQ_MIN_RUNS * 2 * nwl,
			  least, SESSION_SEQ_MIN_RUN_S);
}

int session_main(struct session_opts *o)
{
	struct session s = { .o = o, .saved_stdout = -1 };
	struct kbuild_result res[2];
	int r, stopped = 0;

	memset(res, 0, sizeof(res));
	s.t0 = now_monotonic();
	r = config_load_or_report(o->config, &s.cfg);
	if (r)
		goto out;
	stdout_to_stderr(&s);
	if (o->resume) {
		r = session_dir_find(s.cfg.reports_dir, o->resume_id, &s.dir);
		if (r)
			goto out;
		s.id = xstrdup(path_basename(s.dir));
		char *path = xasprintf("%s/session.json", s.dir);
		json_error_t jerr;
		s.ctx = json_load_file(path, 0, &jerr);
		free(path);
		if (!s.ctx || !json_is_array(json_object_get(s.ctx, "plan"))) {
			r = user_error("%s/session.json: %s", s.dir, s.ctx ? "no plan" : jerr.text);
			goto out;
		}
		r = session_lock(s.cfg.state_dir, s.dir);
		if (r)
			goto out;
		json_t *k;
		size_t i;
		json_array_foreach(json_object_get(s.ctx, "kernels"), i, k) {
			const char *img = json_string_value(json_object_get(k, "bzImage"));
			if (!img || !is_regular_file(img)) {
				r = user_error("%s: kernel image %s is gone from the cache; rebuild it with "
					       "'mglrulab kernel build' (same inputs, same key)", s.dir,
					       img ? img : "(none)");
				goto out;
			}
		}
		const char *gfile = json_string_value(json_object_get(json_object_get(s.ctx, "guest"), "file"));
		r = prepare_guest(&s, gfile ? gfile : "", kernel_image(s.ctx,
			json_string_value(json_object_get(json_array_get(json_object_get(s.ctx, "kernels"), 0), "name"))));
		if (r)
			goto out;
	} else {
		const char *mode = o->mode == SESSION_AB ? "ab" : o->mode == SESSION_AA ? "aa" : "one";
		const char *gfile = guest_file_of(&s);
		if (!gfile) {
			r = user_error("run: no guest '%s' in %s", s.cfg.run.guest, s.cfg.path);
			goto out;
		}
		r = check_budget(o, &s.cfg);
		if (r)
			goto out;
		if (mkdir_p(s.cfg.reports_dir, 0755)) {
			r = lab_error("cannot create %s: %s", s.cfg.reports_dir, strerror(errno));
			goto out;
		}
		r = session_dir_create(s.cfg.reports_dir, mode, &s.dir, &s.id);
		if (r)
			goto out;
		r = session_lock(s.cfg.state_dir, s.dir);
		if (r)
			goto out;
		/* From here on SIGINT/SIGTERM stop kernel builds as well as guests. */
		if (interrupt_catch()) {
			r = lab_error("cannot set up signal handling: %s", strerror(errno));
			goto out;
		}
		if (!lab_quiet)
			term_printf(stderr, "session %s\n", s.dir);
		struct strbuf err = STRBUF_INIT;
		if (guest_topology_load(gfile, &s.topo, &err)) {
			term_printf(stderr, "%s", sb_str(&err));
			sb_release(&err);
			r = user_error("%s: the guest topology has errors (see above)", gfile);
			goto out;
		}
		sb_release(&err);
		guest_topology_release(&s.topo);
		memset(&s.topo, 0, sizeof(s.topo));
		/* Kernels first: the accel probe boots one. */
		const struct kernel_cfg *k0 = NULL;
		if (o->mode == SESSION_ONE && o->kernel)
			k0 = config_kernel(&s.cfg, o->kernel);
		else if (s.cfg.run.kernels.n)
			k0 = config_kernel(&s.cfg, s.cfg.run.kernels.v[0]);
		if (!k0) {
			r = user_error("run: no kernel to run in %s", s.cfg.path);
			goto out;
		}
		r = kbuild_kernel(&s.cfg, k0, &res[0]);
		if (r)
			goto out;
		r = prepare_guest(&s, gfile, res[0].bzimage);
		if (r)
			goto out;
		kbuild_result_free(&res[0]);
		r = new_session(&s, res);
		if (r)
			goto out;
	}
	stopped = run_plan(&s);
	r = finish(&s, stopped);
out:
	stdout_restore(&s);
	/* Destroys whatever guest of ours still runs, too. */
	guest_lab_close(&s.lab);
	guest_topology_release(&s.topo);
	kbuild_result_free(&res[0]);
	kbuild_result_free(&res[1]);
	json_decref(s.ctx);
	session_seq_free(s.seq);
	free(s.dir);
	free(s.id);
	config_free(&s.cfg);
	return r;
}
