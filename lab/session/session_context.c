// SPDX-License-Identifier: GPL-2.0
/*
 * A new session's session.json, written once before the first run: the
 * host, the kernels, the guest, the workloads, the design and statistics
 * settings, and the plan (session_plan.h orders the runs). A resumed
 * session takes all of it from there, not from lab.conf, so editing
 * lab.conf cannot change a session half way.
 */
#include "session_priv.h"
#include "seq_state.h"
#include "xjson.h"
#include "escape.h"
#include "fsutil.h"
#include "report.h"
#include "run_command.h"
#include "session_plan.h"
#include "sha256.h"
#include "guest_accel.h"
#include "workload_def.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

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
	j = xjson_pack("{s:o, s:o, s:I, s:I, s:o, s:o, s:s, s:o, s:s, s:o}",
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

/*
 * A budget that cannot hold the first look of every workload would end
 * the session with nothing decided: refuse it before any kernel is built.
 */
int session_check_budget(const struct session_opts *o, const struct lab_config *cfg)
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

/* The planned runs, in order, by the session's names for kernels and workloads. */
static json_t *planned_json(const struct session_plan *plan, const char *const *names,
			    const struct strvec *wl)
{
	json_t *planned = json_array();

	for (size_t i = 0; i < plan->n; i++) {
		const struct planned_run *p = &plan->runs[i];

		json_array_append_new(planned, plan_entry_encode(p, names[p->kernel],
								 wl->v[p->workload]));
	}
	return planned;
}

/* The guest's nodes: their CPUs and memory. */
static json_t *nodes_json(const struct guest_topology *t)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *nodes = json_array();

	for (int n = 0; n < t->nr_nodes; n++) {
		sb_reset(&sb);
		cpuset_format(&t->nodes[n].cpus, &sb);
		json_array_append_new(nodes, xjson_pack("{s:i, s:s, s:I}", "id", n, "cpus", sb_str(&sb),
			"memory_mib", (json_int_t)t->nodes[n].memory_mib));
	}
	sb_release(&sb);
	return nodes;
}

/* --until decided: the stopping rule's settings, for the report. */
static json_t *sequential_json(const struct session_opts *o, const struct lab_config *cfg, long runs)
{
	struct stats_seq_plan sp;

	json_t *j;

	stats_seq_plan_default(&sp, (size_t)runs);
	sp.alpha = cfg->stats.alpha;
	j = xjson_pack("{s:s, s:s, s:f, s:I, s:I, s:I, s:f, s:o}", "until", "decided",
		       "method", SESSION_SEQ_METHOD, "alpha", sp.alpha,
		       "min_runs", (json_int_t)sp.min_runs, "max_runs", (json_int_t)sp.max_runs,
		       "step", (json_int_t)sp.step, "rho", sp.rho,
		       "budget_s", o->budget_s > 0 ? json_real(o->budget_s) : json_null());
	if (o->placement && o->placement->n)
		json_object_set_new(j, "placement", seq_placements_encode(o->placement));
	return j;
}

/*
 * How many guests ran at once (every host's slots), and, when more than
 * one, the workloads whose runs took the host alone (workload_def.alone):
 * the report says both. Then [run] partners as the scheduler will follow
 * it, also on --resume whatever lab.conf says by then: a session of one
 * kernel (@nk) has no A and B to balance, and its slots run free.
 */
static void slots_json(const struct session *s, const struct strvec *wl, int nk, json_t *design)
{
	int partners = nk == 2 ? s->cfg.run.partners : RUN_PARTNERS_FREE;

	json_t *alone = json_array();
	long slots = 0;

	for (size_t i = 0; i < s->hosts.n; i++)
		slots += s->hosts.v[i].cfg.slots;
	for (size_t i = 0; slots > 1 && i < wl->n; i++) {
		const struct workload_cfg *w = config_workload(&s->cfg, wl->v[i]);

		if (w && w->def && w->def->alone)
			json_array_append_new(alone, json_string(wl->v[i]));
	}
	json_object_set_new(design, "slots", json_integer(slots ? slots : 1));
	if (json_array_size(alone))
		json_object_set_new(design, "alone", alone);
	else
		json_decref(alone);
	json_object_set_new(design, "partners", json_string(config_partners_name(partners)));
}

/*
 * lab.conf's [claim] into session.json's "claim", so that every report of
 * the session reads its answer against it (reports/SCHEMA.md). Whether
 * this guest can see its mechanism, hosts_check_config() said before.
 */
static void claim(struct session *s)
{
	const struct claim_cfg *c = &s->cfg.claim;
	json_t *j;

	if (!c->line)
		return;
	j = xjson_pack("{s:s?, s:s?, s:s?, s:s?, s:s?}", "workload", c->workload, "metric",
		       c->metric, "direction", c->direction, "mechanism", c->mechanism, "source",
		       c->source);
	if (c->size >= 0)
		json_object_set_new(j, "size_pct", json_real(100 * c->size));
	json_object_set_new(s->ctx, "claim", j);
}

/* [run] note, and --attribute and profile kept for a resume (lab.conf may say otherwise). */
static void note_and_attribution(struct session *s)
{
	json_t *design = json_object_get(s->ctx, "design");

	if (s->cfg.run.note)
		json_object_set_new(s->ctx, "note", json_string_lossy(s->cfg.run.note));
	if (s->o->attribute >= 0)
		json_object_set_new(design, "attribute",
				    json_string(config_attribute_name(s->o->attribute)));
	if (s->o->attribution_required)
		json_object_set_new(design, "profile", json_true());
	if (s->o->coherence >= 0)
		json_object_set_new(design, "coherence",
				    json_string(config_attribute_name(s->o->coherence)));
}

int session_new(struct session *s)
{
	struct session_opts *o = s->o;
	struct lab_config *cfg = &s->cfg;
	struct session_kernels *sk = &s->kernels;
	const char *const *names = sk->name;
	int nk, r;

	r = session_kernels_build(s, sk);
	if (r)
		return r;
	nk = sk->n;
	struct strvec wl = STRVEC_INIT;
	strvec_pushv(&wl, (const char *const *)(o->workloads.n ? o->workloads.v : cfg->run.workloads.v));
	if (!wl.n)
		return user_error("run: no workloads: set [run] workloads in %s or pass --workloads",
				  cfg->path);
	json_t *wls = json_array();
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
	r = session_workloads_json(s, &wl, runs, &sk->res[0], wls, wruns);
	if (r) {
		json_decref(wls);
		strvec_clear(&wl);
		free(wruns);
		return r;
	}
	long warmups = o->warmups >= 0 ? o->warmups : cfg->run.warmups;
	uint64_t seed = o->seed_set ? o->seed : cfg->run.seed;
	struct session_plan plan;
	session_plan_make(&plan, nk, (int)wl.n, wruns, (int)warmups, seed);
	long blocks = 0;
	for (size_t i = 0; i < wl.n; i++)
		blocks = wruns[i] > blocks ? wruns[i] : blocks;
	free(wruns);
	json_t *planned = planned_json(&plan, names, &wl);
	json_t *kernels = session_kernels_json(sk);
	json_t *nodes = nodes_json(&s->topo);
	char created[32];
	iso8601_now(created);
	const char *mode = o->mode == SESSION_AB ? "ab" : o->mode == SESSION_AA ? "aa" : "one";
	const struct session_series_kernel *ser = o->series_kernel;
	/* a watched series' kernel is not in lab.conf: say how to put it there */
	char *command = !ser ? xasprintf("mglrulab run --%s -c %s", mode, cfg->path) :
			!ser->commit ? xasprintf("mglrulab run --%s %s %s -c %s, with [kernel %s] "
						 "(from = %s, series = %s) added to it", mode,
						 ser->base, ser->name, cfg->path, ser->name,
						 ser->base, ser->series) :
			xasprintf("mglrulab run --%s %s %s -c %s, with [kernel %s] (from = %s, ref = %s) "
				  "and [kernel %s] (from = %s, series = %s) added to it", mode,
				  ser->base_at, ser->name, cfg->path, ser->base_at, ser->base,
				  ser->commit, ser->name, ser->base_at, ser->series);
	/* session.lab_conf_sha256: which lab.conf ran, for the mail's recipe */
	char lab_hex[SHA256_HEX_LEN + 1];
	const char *lab_sha = cfg->path && !sha256_file_hex(cfg->path, lab_hex) ? lab_hex : NULL;
	s->ctx = xjson_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s, s:s?}, s:o, s:o,"
			   " s:{s:s, s:s, s:i, s:I, s:o, s:s}, s:o,"
			   " s:{s:s, s:s?, s:I, s:I, s:s, s:I, s:I},"
			   " s:{s:f, s:f, s:I, s:I, s:f, s:f}, s:o}",
		"schema", REPORT_SCHEMA,
		"generator", "name", "mglrulab", "version", MGLRULAB_VERSION,
		"session", "id", s->id, "created", created, "mode", mode, "command", command,
		"lab_conf_sha256", lab_sha,
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
	/* Recorded only when in force: under KVM the guest's icount is ignored. */
	if (s->topo.icount_shift >= 0 && s->lab.accel == ACCEL_TCG)
		json_object_set_new(json_object_get(s->ctx, "guest"), "icount_shift",
				    json_integer(s->topo.icount_shift));
	json_object_set_new(s->ctx, "hosts", session_hosts_state_json(s));
	note_and_attribution(s);
	claim(s);
	slots_json(s, &wl, nk, json_object_get(s->ctx, "design"));
	if (o->until_decided)
		json_object_set_new(json_object_get(s->ctx, "design"), "sequential",
				    sequential_json(o, cfg, runs));
	session_plan_release(&plan);
	strvec_clear(&wl);
	char *path = xasprintf("%s/session.json", s->dir);
	r = session_write_json(path, s->ctx) ? lab_error("cannot write %s: %s", path, strerror(errno)) : LAB_OK;
	free(path);
	if (!r) {
		session_kernels_copy_logs(s, sk);
		session_copy_inputs(s, sk);
	}
	return r;
}
