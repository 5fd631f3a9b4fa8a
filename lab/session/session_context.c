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
#include "session_doc.h"
#include "session_plan.h"
#include "sha256.h"
#include "guest_accel.h"
#include "workload_def.h"

#include <errno.h>
#include <math.h>
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

/* The host's strings, owned while session.json is encoded. */
struct host_strings {
	char host[256];
	struct utsname u;
	char *cpu, *qemu, *libvirt, *uri;
};

/*
 * The host's own strings (its name, the CPU model, QEMU's banner, the
 * reason KVM failed) are any bytes: the encoder writes every string
 * lossily, so one that is not UTF-8 cannot make the document fail.
 */
static void host_fill(struct session *s, struct host_strings *hs, struct sdoc_host *h)
{
	unsigned long libver = 0;

	strcpy(hs->host, "unknown");
	gethostname(hs->host, sizeof(hs->host) - 1);
	uname(&hs->u);
	virGetVersion(&libver, NULL, NULL);
	hs->cpu = cpu_model();
	hs->qemu = first_line_of((const char *const[]){ "qemu-system-x86_64", "--version", NULL });
	hs->libvirt = xasprintf("%lu.%lu.%lu", libver / 1000000, libver / 1000 % 1000, libver % 1000);
	hs->uri = s->lab.conn ? virConnectGetURI(s->lab.conn) : NULL;
	h->hostname = hs->host;
	h->cpu = hs->cpu;
	h->cpus = sysconf(_SC_NPROCESSORS_ONLN);
	h->memory_mib = (double)((long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) >> 20);
	h->kernel = hs->u.release;
	h->qemu_version = hs->qemu;
	h->libvirt_version = hs->libvirt;
	h->libvirt_uri = hs->uri ? hs->uri : s->cfg.uri ? s->cfg.uri : "";
	h->accel = guest_accel_name(s->lab.accel);
	h->accel_reason = s->lab.accel_reason ? s->lab.accel_reason : "";
}

static void host_strings_release(struct host_strings *hs)
{
	free(hs->uri);
	free(hs->cpu);
	free(hs->qemu);
	free(hs->libvirt);
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

/* --until decided: the stopping rule's settings, for the report (design.sequential). */
static void sequential_fill(const struct session_opts *o, const struct lab_config *cfg, long runs,
			    struct sdoc_sequential *q)
{
	struct stats_seq_plan sp;

	stats_seq_plan_default(&sp, (size_t)runs);
	sp.alpha = cfg->stats.alpha;
	q->present = 1;
	q->until = "decided";
	q->method = SESSION_SEQ_METHOD;
	q->alpha = sp.alpha;
	q->min_runs = (long long)sp.min_runs;
	q->max_runs = (long long)sp.max_runs;
	q->step = (long long)sp.step;
	q->rho = sp.rho;
	q->budget_s = o->budget_s > 0 ? o->budget_s : NAN;
	if (o->placement && o->placement->n)
		q->placement = seq_placements_encode(o->placement);
}

/*
 * How many guests ran at once (every host's slots), and, when more than
 * one, the workloads whose runs took the host alone (workload_def.alone):
 * the report says both. Then [run] partners as the scheduler will follow
 * it, also on --resume whatever lab.conf says by then: a session of one
 * kernel has no A and B to balance, and its slots run free.
 */
static void slots_fill(const struct session *s, const struct strvec *wl, struct sdoc_design *d)
{
	int partners = s->kernels.n == 2 ? s->cfg.run.partners : RUN_PARTNERS_FREE;
	json_t *alone = json_array();
	long slots = 0;

	for (size_t i = 0; i < s->hosts.n; i++)
		slots += s->hosts.v[i].cfg.slots;
	for (size_t i = 0; slots > 1 && i < wl->n; i++) {
		const struct workload_cfg *w = config_workload(&s->cfg, wl->v[i]);

		if (w && w->def && w->def->alone)
			json_array_append_new(alone, json_string(wl->v[i]));
	}
	d->slots = slots ? slots : 1;
	if (json_array_size(alone))
		d->alone = alone;
	else
		json_decref(alone);
	d->partners = config_partners_name(partners);
}

/*
 * lab.conf's [claim] into session.json's "claim", so that every report of
 * the session reads its answer against it (reports/SCHEMA.md). Whether
 * this guest can see its mechanism, hosts_check_config() said before.
 */
static json_t *claim_json(const struct claim_cfg *c)
{
	json_t *j;

	if (!c->line)
		return NULL;
	j = xjson_pack("{s:s?, s:s?, s:s?, s:s?, s:s?}", "workload", c->workload, "metric",
		       c->metric, "direction", c->direction, "mechanism", c->mechanism, "source",
		       c->source);
	if (c->size >= 0)
		json_object_set_new(j, "size_pct", json_real(100 * c->size));
	return j;
}

/* The command that ran, for the report; a watched series' kernel is not in lab.conf: how to put it there. */
static char *command_of(const struct session_opts *o, const struct lab_config *cfg,
			const char *mode)
{
	const struct session_series_kernel *ser = o->series_kernel;

	if (!ser)
		return xasprintf("mglrulab run --%s -c %s", mode, cfg->path);
	if (!ser->commit)
		return xasprintf("mglrulab run --%s %s %s -c %s, with [kernel %s] (from = %s, "
				 "series = %s) added to it", mode, ser->base, ser->name, cfg->path,
				 ser->name, ser->base, ser->series);
	return xasprintf("mglrulab run --%s %s %s -c %s, with [kernel %s] (from = %s, ref = %s) "
			 "and [kernel %s] (from = %s, series = %s) added to it", mode,
			 ser->base_at, ser->name, cfg->path, ser->base_at, ser->base, ser->commit,
			 ser->name, ser->base_at, ser->series);
}

/* What a new session's session.json holds besides its workloads and plan. */
struct doc_parts {
	/*
	 * Its rows filled directly by their writers (session_kernels_rows(),
	 * session_workloads_rows(), session_hosts_rows()), keeping the
	 * strings they make here.
	 */
	struct session_doc doc;
	struct host_strings hs;
	char created[32];
	char lab_hex[SHA256_HEX_LEN + 1];
	char *command;
	struct session_plan plan;	/* design.order is its text */
	int planned;
};

/* session.json's members from lab.conf, the options and what was found; @p->doc's JSON is ours. */
static void doc_fill(struct session *s, const struct strvec *wl, long runs, struct doc_parts *p)
{
	const struct session_opts *o = s->o;
	const struct lab_config *cfg = &s->cfg;
	struct session_doc *d = &p->doc;
	const char *mode = o->mode == SESSION_AB ? "ab" : o->mode == SESSION_AA ? "aa" : "one";

	d->schema = REPORT_SCHEMA;
	d->generator = (struct sdoc_generator){ "mglrulab", MGLRULAB_VERSION };
	iso8601_now(p->created);
	p->command = command_of(o, cfg, mode);
	d->session.id = s->id;
	d->session.created = p->created;
	d->session.mode = mode;
	d->session.command = p->command;
	/* session.lab_conf_sha256: which lab.conf ran, for the mail's recipe */
	if (cfg->path && !sha256_file_hex(cfg->path, p->lab_hex))
		d->session.lab_conf_sha256 = p->lab_hex;
	host_fill(s, &p->hs, &d->host);
	d->kernels = session_kernels_rows(&s->kernels, d);
	d->guest.name = cfg->run.guest;
	d->guest.file = s->topo.path ? s->topo.path : "";
	d->guest.vcpus = s->topo.vcpus;
	d->guest.memory_mib = (double)s->topo.memory_mib;
	d->guest.nodes = nodes_json(&s->topo);
	d->guest.accel = guest_accel_name(s->lab.accel);
	/* Recorded only when in force: under KVM the guest's icount is ignored. */
	if (s->topo.icount_shift >= 0 && s->lab.accel == ACCEL_TCG)
		d->guest.icount_shift = s->topo.icount_shift;
	d->design.baseline = s->kernels.name[0];
	d->design.patched = s->kernels.n == 2 ? s->kernels.name[1] : NULL;
	/* --attribute and profile kept for a resume (lab.conf may say otherwise) */
	if (o->attribute >= 0)
		d->design.attribute = config_attribute_name(o->attribute);
	if (o->attribution_required)
		d->design.profile = 1;
	if (o->coherence >= 0)
		d->design.coherence = config_attribute_name(o->coherence);
	slots_fill(s, wl, &d->design);
	if (o->until_decided)
		sequential_fill(o, cfg, runs, &d->design.sequential);
	d->statistics.alpha = cfg->stats.alpha;
	d->statistics.confidence = cfg->stats.confidence;
	d->statistics.resamples = cfg->stats.resamples;
	d->statistics.threshold = cfg->stats.threshold;
	d->statistics.max_failed_fraction = cfg->stats.max_failed;
	d->hosts = session_hosts_rows(s);
	d->note = cfg->run.note;
	d->claim = claim_json(&cfg->claim);
}

/* What doc_fill() and session_new() made for @p. */
static void doc_parts_release(struct doc_parts *p)
{
	struct session_doc *d = &p->doc;
	const json_t *const made[] = { d->guest.nodes, d->design.alone,
				       d->design.sequential.placement, d->plan, d->claim };

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		json_decref((json_t *)made[i]);
	session_doc_release(d);
	host_strings_release(&p->hs);
	free(p->command);
	if (p->planned)
		session_plan_release(&p->plan);
}

/* The plan of @wl's runs into @p's design and plan; LAB_OK or the workloads' error. */
static int plan_fill(struct session *s, const struct strvec *wl, long runs, struct doc_parts *p)
{
	const struct session_opts *o = s->o;
	const struct lab_config *cfg = &s->cfg;
	struct sdoc_design *d = &p->doc.design;
	int *wruns = xcalloc(wl->n, sizeof(*wruns));
	int r = session_workloads_rows(s, wl, runs, &s->kernels.res[0], &p->doc, wruns);
	struct session_plan *plan = &p->plan;

	if (r) {
		free(wruns);
		return r;
	}
	d->runs_per_kernel = runs;
	d->warmups = o->warmups >= 0 ? o->warmups : cfg->run.warmups;
	d->seed = (long long)(o->seed_set ? o->seed : cfg->run.seed);
	p->doc.statistics.seed = d->seed;
	session_plan_make(plan, s->kernels.n, (int)wl->n, wruns, (int)d->warmups,
			  (uint64_t)d->seed);
	p->planned = 1;
	d->blocks = 0;
	for (size_t i = 0; i < wl->n; i++)
		d->blocks = wruns[i] > d->blocks ? wruns[i] : d->blocks;
	free(wruns);
	p->doc.plan = planned_json(plan, (const char *const *)s->kernels.name, wl);
	d->order = plan->order;
	return LAB_OK;
}

int session_new(struct session *s)
{
	struct session_opts *o = s->o;
	struct lab_config *cfg = &s->cfg;
	struct strvec wl = STRVEC_INIT;
	struct doc_parts p = { 0 };
	int r = session_kernels_build(s, &s->kernels);

	if (r)
		return r;
	strvec_pushv(&wl, (const char *const *)(o->workloads.n ? o->workloads.v : cfg->run.workloads.v));
	if (!wl.n)
		return user_error("run: no workloads: set [run] workloads in %s or pass --workloads",
				  cfg->path);
	/*
	 * --runs sets every workload; else a [workload] runs = N, else [run]
	 * runs. A sequential session plans up to its run cap: a workload's
	 * own runs = N caps it lower (a kernel build), and the stopping rule
	 * skips what a decided workload no longer needs.
	 */
	long runs = o->runs ? o->runs : cfg->run.runs;
	if (o->until_decided)
		runs = o->max_runs ? o->max_runs : SESSION_SEQ_MAX_RUNS;
	session_doc_init(&p.doc);
	r = plan_fill(s, &wl, runs, &p);
	/*
	 * The session's document is the one filled here, made to own its
	 * strings and JSON: @p's are temporaries (the writers' JSON, lab.conf's,
	 * the host's).
	 */
	if (!r) {
		doc_fill(s, &wl, runs, &p);
		session_doc_copy(&s->doc, &p.doc);
	}
	doc_parts_release(&p);
	strvec_clear(&wl);
	if (r)
		return r;
	char *path = xasprintf("%s/session.json", s->dir);
	json_t *j = session_doc_encode(&s->doc);

	r = session_write_json(path, j) ? lab_error("cannot write %s: %s", path, strerror(errno)) : LAB_OK;
	json_decref(j);
	free(path);
	if (!r) {
		session_kernels_copy_logs(s, &s->kernels);
		session_copy_inputs(s, &s->kernels);
	}
	return r;
}
