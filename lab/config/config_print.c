// SPDX-License-Identifier: GPL-2.0
/* The resolved configuration, as text for people and JSON for programs. */
#include "config.h"
#include "lab_uri.h"
#include "xjson.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const attribute_names[] = {
	[RUN_ATTRIBUTE_OFF] = "off", [RUN_ATTRIBUTE_CHANGED] = "changed", [RUN_ATTRIBUTE_ALL] = "all",
};

const char *config_attribute_name(int a)
{
	return a >= 0 && a < (int)ARRAY_SIZE(attribute_names) ? attribute_names[a] : "off";
}

int config_attribute_parse(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(attribute_names); i++)
		if (!strcmp(name, attribute_names[i]))
			return (int)i;
	return -1;
}

static const char *const partners_names[] = {
	[RUN_PARTNERS_BALANCED] = "balanced", [RUN_PARTNERS_FREE] = "free",
};

const char *config_partners_name(int p)
{
	return p >= 0 && p < (int)ARRAY_SIZE(partners_names) ? partners_names[p] : "balanced";
}

int config_partners_parse(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(partners_names); i++)
		if (!strcmp(name, partners_names[i]))
			return (int)i;
	return -1;
}

static json_t *strvec_json(const struct strvec *sv)
{
	json_t *a = json_array();

	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, json_string(sv->v[i]));
	return a;
}

/* [report] is shown only when lab.conf has it: most labs send no mail. */
static int report_set(const struct report_cfg *r)
{
	return r->mail_from || r->mail_to || r->mail_cc || r->base_url;
}

/* [watch] likewise: only when lab.conf has it. */
static int watch_set(const struct watch_cfg *w)
{
	return w->archive || w->paths.n || w->grace_s > 0 || w->max_patches || w->baseline ||
	       w->budget_s > 0 || w->interval_s > 0 || w->history != WATCH_HISTORY_SKIP;
}

static json_t *opt_string(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *workload_json(const struct workload_cfg *w, long runs)
{
	json_t *params = json_object();

	for (const struct param_def *p = w->def ? w->def->params : NULL; p && p->name; p++)
		json_object_set_new(params, p->name, json_string(workload_cfg_value(w, p->name)));
	return xjson_pack("{s:s, s:s?, s:I, s:o}", "name", w->name, "type", w->def ? w->def->name : NULL,
			 "runs", (json_int_t)(w->runs ? w->runs : runs), "params", params);
}

static json_t *hosts_json(const struct lab_config *cfg)
{
	json_t *a = json_array();

	for (size_t i = 0; i < cfg->nr_hosts; i++) {
		const struct host_cfg *h = &cfg->hosts[i];
		json_array_append_new(a, xjson_pack("{s:s, s:s, s:I, s:b, s:o, s:s, s:s, s:b}",
			"name", h->name, "uri", h->uri, "slots", (json_int_t)h->slots,
			"slots_auto", !h->slots_set,
			"cpus", opt_string(h->cpus), "pool", h->pool, "pool_dir", h->pool_dir,
			"implicit", !h->line));
	}
	return a;
}

char *config_to_json(const struct lab_config *cfg)
{
	json_t *root, *kernels = json_array(), *guests = json_array(), *workloads = json_array();
	char *text;

	for (size_t i = 0; i < cfg->nr_kernels; i++) {
		const struct kernel_cfg *k = &cfg->kernels[i];
		json_array_append_new(kernels, xjson_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			"name", k->name, "from", opt_string(k->from), "source", opt_string(k->source),
			"ref", opt_string(k->ref), "config", opt_string(k->config),
			"series", strvec_json(&k->series), "fragments", strvec_json(&k->fragments)));
	}
	for (size_t i = 0; i < cfg->nr_guests; i++)
		json_array_append_new(guests, xjson_pack("{s:s, s:o}", "name", cfg->guests[i].name,
							"file", opt_string(cfg->guests[i].file)));
	for (size_t i = 0; i < cfg->nr_workloads; i++)
		json_array_append_new(workloads, workload_json(&cfg->workloads[i], cfg->run.runs));
	root = xjson_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s, s:I, s:s}, s:o, s:o, s:o, s:o,"
			 " s:{s:o, s:s, s:o, s:I, s:I, s:I, s:o, s:s, s:s, s:o, s:I, s:I, s:s, s:o},"
			 " s:{s:f, s:f, s:f, s:I, s:f}}",
		"file", cfg->path,
		"lab", "state_dir", cfg->state_dir, "cache_dir", cfg->cache_dir,
		"reports_dir", cfg->reports_dir, "uri", cfg->uri, "accel", cfg->accel,
		"jobs", (json_int_t)cfg->jobs, "ccache", cfg->ccache,
		"kernels", kernels, "guests", guests, "workloads", workloads, "hosts", hosts_json(cfg),
		"run", "kernels", strvec_json(&cfg->run.kernels), "guest", cfg->run.guest,
		"workloads", strvec_json(&cfg->run.workloads), "runs", (json_int_t)cfg->run.runs,
		"warmups", (json_int_t)cfg->run.warmups, "seed", (json_int_t)cfg->run.seed,
		"hosts", strvec_json(&cfg->run.hosts),
		"attribute", config_attribute_name(cfg->run.attribute),
		"coherence", config_attribute_name(cfg->run.coherence),
		"coherence_workloads", strvec_json(&cfg->run.coherence_workloads),
		"coherence_ns_node", (json_int_t)cfg->run.coherence_ns_node,
		"coherence_ns_remote", (json_int_t)cfg->run.coherence_ns_remote,
		"partners", config_partners_name(cfg->run.partners),
		"note", opt_string(cfg->run.note),
		"stats", "alpha", cfg->stats.alpha, "confidence", cfg->stats.confidence,
		"threshold", cfg->stats.threshold, "resamples", (json_int_t)cfg->stats.resamples,
		"max_failed", cfg->stats.max_failed);
	if (report_set(&cfg->report))
		json_object_set_new(root, "report", xjson_pack("{s:o, s:o, s:o, s:o}",
			"mail_from", opt_string(cfg->report.mail_from),
			"mail_to", opt_string(cfg->report.mail_to),
			"mail_cc", opt_string(cfg->report.mail_cc),
			"base_url", opt_string(cfg->report.base_url)));
	if (watch_set(&cfg->watch))
		json_object_set_new(root, "watch", xjson_pack("{s:o, s:o, s:f, s:I, s:o, s:f, s:f, s:s}",
			"archive", opt_string(cfg->watch.archive),
			"paths", strvec_json(&cfg->watch.paths), "grace_s", cfg->watch.grace_s,
			"max_patches", (json_int_t)cfg->watch.max_patches,
			"baseline", opt_string(cfg->watch.baseline), "budget_s", cfg->watch.budget_s,
			"interval_s", cfg->watch.interval_s, "history",
			cfg->watch.history == WATCH_HISTORY_MEASURE ? "measure" : "skip"));
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	return text;
}

static void list(struct strbuf *out, const char *label, const struct strvec *sv)
{
	sb_addf(out, "  %-10s", label);
	if (!sv->n)
		sb_adds(out, " (none)");
	for (size_t i = 0; i < sv->n; i++)
		sb_addf(out, "%s%s", i ? "\n             " : " ", sv->v[i]);
	sb_addc(out, '\n');
}

static void print_coherence(struct strbuf *out, const struct run_cfg *run)
{
	sb_adds(out, "  coherence ");
	/* a list: those workloads, whatever their verdicts */
	for (size_t i = 0; i < run->coherence_workloads.n; i++)
		sb_addf(out, " %s", run->coherence_workloads.v[i]);
	if (!run->coherence_workloads.n)
		sb_addf(out, " %s", config_attribute_name(run->coherence));
	sb_addf(out, " (%ld ns per transfer within a node, %ld across)\n",
		run->coherence_ns_node, run->coherence_ns_remote);
}

/* [run]'s choices: the runs after the verdicts, and how the slots share the runs. */
static void print_run_choices(struct strbuf *out, const struct run_cfg *run)
{
	sb_addf(out, "  attribute  %s\n", config_attribute_name(run->attribute));
	print_coherence(out, run);
	sb_addf(out, "  partners   %s\n", run->partners == RUN_PARTNERS_FREE ? "free (each slot "
		"its own blocks)" : "balanced (a host's slots in pairs, A beside B)");
}

void config_print(const struct lab_config *cfg, struct strbuf *out)
{
	sb_addf(out, "%s\n\n[lab]\n  state_dir  %s\n  cache_dir  %s\n  reports    %s\n"
		"  uri        %s\n  accel      %s\n  jobs       %ld%s\n  ccache     %s\n"
		"  build_user %s\n  build_timeout %.0f s\n  build_memory %ld MiB\n",
		cfg->path, cfg->state_dir, cfg->cache_dir, cfg->reports_dir, cfg->uri, cfg->accel,
		cfg->jobs, cfg->jobs ? "" : " (number of CPUs)", cfg->ccache,
		cfg->sandbox.user ? cfg->sandbox.user : SANDBOX_DEFAULT_USER,
		sandbox_wall_s(&cfg->sandbox), cfg->sandbox.memory_mib > 0 ?
		cfg->sandbox.memory_mib : SANDBOX_DEFAULT_MEMORY_MIB);
	for (size_t i = 0; i < cfg->nr_kernels; i++) {
		const struct kernel_cfg *k = &cfg->kernels[i];
		sb_addf(out, "\n[kernel %s]%s%s\n  source     %s\n", k->name,
			k->from ? " from " : "", k->from ? k->from : "", k->source);
		if (k->ref)
			sb_addf(out, "  ref        %s\n", k->ref);
		sb_addf(out, "  config     %s\n", k->config);
		list(out, "fragments", &k->fragments);
		list(out, "series", &k->series);
	}
	for (size_t i = 0; i < cfg->nr_guests; i++)
		sb_addf(out, "\n[guest %s]\n  file       %s\n", cfg->guests[i].name, cfg->guests[i].file);
	for (size_t i = 0; i < cfg->nr_workloads; i++) {
		const struct workload_cfg *w = &cfg->workloads[i];
		sb_addf(out, "\n[workload %s]\n  type       %s\n", w->name, w->def ? w->def->name : "?");
		if (w->runs)
			sb_addf(out, "  runs       %ld\n", w->runs);
		for (const struct param_def *p = w->def ? w->def->params : NULL; p && p->name; p++)
			sb_addf(out, "  %-10s %s\n", p->name, workload_cfg_value(w, p->name));
	}
	for (size_t i = 0; i < cfg->nr_hosts; i++) {
		const struct host_cfg *h = &cfg->hosts[i];
		char slots[32];

		snprintf(slots, sizeof(slots), "%ld", h->slots);
		sb_addf(out, "\n[host %s]%s\n  uri        %s%s\n  slots      %s\n  cpus       %s\n"
			"  pool       %s\n  pool_dir   %s\n", h->name,
			h->line ? "" : " (implicit: no [host] section)", h->uri,
			lab_uri_same(h->uri, CONFIG_EMBED_URI) ? " (embedded, under state_dir)" : "",
			h->slots_set ? slots : "auto (on this machine, one per CPU when the guest "
			"runs under icount; else 1)", h->cpus ? h->cpus : "(every CPU)", h->pool,
			h->pool_dir);
	}
	sb_adds(out, "\n[run]\n");
	list(out, "kernels", &cfg->run.kernels);
	list(out, "hosts", &cfg->run.hosts);
	sb_addf(out, "  guest      %s\n", cfg->run.guest);
	list(out, "workloads", &cfg->run.workloads);
	sb_addf(out, "  runs       %ld\n  warmups    %ld\n  seed       %llu\n", cfg->run.runs,
		cfg->run.warmups, (unsigned long long)cfg->run.seed);
	print_run_choices(out, &cfg->run);
	if (cfg->run.note)
		sb_addf(out, "  note       %s\n", cfg->run.note);
	sb_addf(out, "\n[stats]\n  alpha      %g\n  confidence %g\n  threshold  %g%%\n"
		"  resamples  %ld\n  max_failed %g%%\n", cfg->stats.alpha, cfg->stats.confidence,
		cfg->stats.threshold * 100, cfg->stats.resamples, cfg->stats.max_failed * 100);
	if (watch_set(&cfg->watch)) {
		sb_addf(out, "\n[watch]\n  archive    %s\n  paths     ",
			cfg->watch.archive ? cfg->watch.archive : "(none)");
		for (size_t i = 0; i < cfg->watch.paths.n; i++)
			sb_addf(out, " %s", cfg->watch.paths.v[i]);
		sb_addf(out, "%s\n", cfg->watch.paths.n ? "" : " (default)");
		if (cfg->watch.baseline)
			sb_addf(out, "  baseline   %s\n", cfg->watch.baseline);
		sb_addf(out, "  history    %s\n", cfg->watch.history == WATCH_HISTORY_MEASURE ?
			"measure" : "skip (the first scan's series)");
	}
	if (!report_set(&cfg->report))
		return;
	sb_adds(out, "\n[report]\n");
	if (cfg->report.mail_from)
		sb_addf(out, "  mail_from  %s\n", cfg->report.mail_from);
	if (cfg->report.mail_to)
		sb_addf(out, "  mail_to    %s\n", cfg->report.mail_to);
	if (cfg->report.mail_cc)
		sb_addf(out, "  mail_cc    %s\n", cfg->report.mail_cc);
	if (cfg->report.base_url)
		sb_addf(out, "  base_url   %s\n", cfg->report.base_url);
}
