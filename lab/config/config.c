// SPDX-License-Identifier: GPL-2.0
/*
 * lab.conf parsing and validation. Two passes: the inih pass, here over
 * the key tables of every section, stores every key with its line
 * (checking syntax and types as it goes); the second pass (config_check.c)
 * resolves [kernel] inheritance and cross-references ([run] naming kernels,
 * workloads and a guest that exist). Both passes collect every error rather
 * than stopping at the first, so one `config check` shows them all. The
 * lookups on a loaded configuration are config_lookup.c's.
 */
#include "config_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "ini_lines.h"
#include "mail_addr.h"
#include "stats_defaults.h"
#include "workload_params.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A duration: 90s, 15m, 2h, 2d (parse_duration()); more than zero. */
static int parse_grace(const char *value, void *field)
{
	double s;

	if (parse_duration(value, &s) || !(s > 0))
		return -1;
	*(double *)field = s;
	return 0;
}

/* [watch] disk_budget: a size with a K, M, G or T suffix (param_parse_size()), or 0 or off. */
static int parse_disk_budget(const char *value, void *field)
{
	unsigned long long bytes = 0;

	if (strcmp(value, "off") && (!strcmp(value, "max") || param_parse_size(value, &bytes)))
		return -1;
	*(unsigned long long *)field = bytes;
	return 0;
}

#define LAB(f) .offset = offsetof(struct lab_config, f)
static const struct ini_key lab_keys[] = {
	{ "state_dir", INI_PATH, LAB(state_dir), .expected = "a folder" },
	{ "cache_dir", INI_PATH, LAB(cache_dir), .expected = "a folder" },
	{ "reports_dir", INI_PATH, LAB(reports_dir), .expected = "a folder" },
	{ "uri", INI_STRING, LAB(uri), .expected = "a libvirt URI" },
	{ "accel", INI_ENUM, LAB(accel), .choices = "auto|kvm|tcg" },
	{ "jobs", INI_LONG, LAB(jobs), .min = 0, .max = 4096 },
	{ "ccache", INI_ENUM, LAB(ccache), .choices = "no|yes" },
	{ "build_user", INI_STRING, LAB(sandbox.user), .expected = "an unprivileged user name" },
	{ "build_timeout", INI_CUSTOM, LAB(sandbox.wall_s), .parse = parse_grace,
	  .expected = "a duration over zero: 90s, 15m, 2h" },
	{ "build_memory", INI_LONG, LAB(sandbox.memory_mib), .min = 64, .max = 1L << 24 },
	{ NULL },
};

#define KERNEL(f) .offset = offsetof(struct kernel_cfg, f)
static const struct ini_key kernel_keys[] = {
	{ "from", INI_STRING, KERNEL(from), .expected = "a kernel name" },
	{ "source", INI_PATH, KERNEL(source),
	  .expected = "a kernel source: a directory, a .tar.* archive or a git repository" },
	{ "ref", INI_STRING, KERNEL(ref), .expected = "a git ref" },
	{ "series", INI_PATHS, KERNEL(series), .set_flag = INI_FLAG(struct kernel_cfg, series_set),
	  .expected = "mbox or .patch files" },
	{ "config", INI_STRING, KERNEL(config),
	  .expected = "tinyconfig, defconfig, allnoconfig or a config file" },
	{ "fragments", INI_PATHS, KERNEL(fragments),
	  .set_flag = INI_FLAG(struct kernel_cfg, fragments_set), .expected = "config fragment files" },
	{ NULL },
};

static const struct ini_key guest_keys[] = {
	{ "file", INI_PATH, .offset = offsetof(struct guest_cfg, file),
	  .expected = "a guest topology file" },
	{ NULL },
};

#define RUN(f) .offset = offsetof(struct run_cfg, f)
static const struct ini_key run_keys[] = {
	{ "kernels", INI_WORDS, RUN(kernels), .expected = "kernel names" },
	{ "guest", INI_STRING, RUN(guest), .expected = "a guest name" },
	{ "workloads", INI_WORDS, RUN(workloads), .expected = "workload names" },
	{ "runs", INI_LONG, RUN(runs), .min = 1, .max = 10000 },
	{ "warmups", INI_LONG, RUN(warmups), .min = 0, .max = 1000 },
	{ "seed", INI_U64, RUN(seed) },
	{ "hosts", INI_WORDS, RUN(hosts), .expected = "host names" },
	{ "attribute", INI_CHOICE, RUN(attribute), .choices = RUN_ATTRIBUTE_CHOICES },
	{ "coherence", INI_WORDS, RUN(coherence_words),
	  .expected = "off, changed, all or names of [run] workloads" },
	{ "coherence_ns_node", INI_LONG, RUN(coherence_ns_node), .min = 1, .max = 100000 },
	{ "coherence_ns_remote", INI_LONG, RUN(coherence_ns_remote), .min = 1, .max = 100000 },
	{ "partners", INI_CHOICE, RUN(partners), .choices = RUN_PARTNERS_CHOICES },
	{ "note", INI_STRING, RUN(note), .expected = "a sentence for the reports" },
	{ NULL },
};

#define STATS(f) .offset = offsetof(struct stats_cfg, f)
static const struct ini_key stats_keys[] = {
	{ "alpha", INI_FRACTION, STATS(alpha) },
	{ "confidence", INI_FRACTION, STATS(confidence) },
	{ "threshold", INI_FRACTION, STATS(threshold) },
	{ "resamples", INI_LONG, STATS(resamples), .min = STATS_MIN_RESAMPLES,
	  .max = STATS_MAX_RESAMPLES },
	{ "max_failed", INI_FRACTION, STATS(max_failed) },
	{ NULL },
};

/*
 * A mail header's value: printable ASCII with an '@', nothing a header
 * could be cut or continued with (the mail writes it as it is).
 */
/* A list mail_addr.h takes: the reply mail writes it without checking it again. */
static int parse_mail_address(const char *value, void *field)
{
	struct mail_addrs a;
	struct strbuf err = STRBUF_INIT;
	int bad = mail_addr_parse(value, &a, &err);

	mail_addrs_release(&a);
	sb_release(&err);
	if (bad)
		return -1;
	free(*(char **)field);
	*(char **)field = xstrdup(value);
	return 0;
}

/* http(s)://HOST/PATH of printable ASCII without spaces: it goes into a mail as a link. */
static int parse_base_url(const char *value, void *field)
{
	size_t scheme = !strncmp(value, "https://", 8) ? 8 : !strncmp(value, "http://", 7) ? 7 : 0;

	if (!scheme || !value[scheme] || value[scheme] == '/')
		return -1;
	for (const char *p = value; *p; p++)
		if (*p <= ' ' || *p > '~' || strchr("\"<>\\^`{|}", *p))
			return -1;
	free(*(char **)field);
	*(char **)field = xstrdup(value);
	return 0;
}

#define REPORT(f) .offset = offsetof(struct report_cfg, f)
static const struct ini_key report_keys[] = {
	{ "mail_from", INI_CUSTOM, REPORT(mail_from), .parse = parse_mail_address,
	  .expected = "a mail address: user@example.org or Name <user@example.org>, the name "
		      "in UTF-8, the address in ASCII" },
	{ "mail_to", INI_CUSTOM, REPORT(mail_to), .parse = parse_mail_address,
	  .expected = "mail addresses (Name <user@example.org>), separated by commas" },
	{ "mail_cc", INI_CUSTOM, REPORT(mail_cc), .parse = parse_mail_address,
	  .expected = "mail addresses (Name <user@example.org>), separated by commas" },
	{ "base_url", INI_CUSTOM, REPORT(base_url), .parse = parse_base_url,
	  .expected = "an http:// or https:// URL without spaces or quotes" },
	{ NULL },
};

#define WATCH(f) .offset = offsetof(struct watch_cfg, f)
static const struct ini_key watch_keys[] = {
	{ "archive", INI_PATH, WATCH(archive),
	  .expected = "a maildir or a public-inbox v2 folder" },
	{ "paths", INI_WORDS, WATCH(paths),
	  .expected = "folders (mm/) or patterns (include/linux/mm*.h)" },
	{ "grace", INI_CUSTOM, WATCH(grace_s), .parse = parse_grace,
	  .expected = "a duration over zero: 90s, 15m, 12h, 2d" },
	{ "max_patches", INI_LONG, WATCH(max_patches), .min = 1, .max = 10000 },
	{ "baseline", INI_STRING, WATCH(baseline), .expected = "a kernel name" },
	{ "budget", INI_CUSTOM, WATCH(budget_s), .parse = parse_grace,
	  .expected = "a duration over zero: 90s, 15m, 1h" },
	{ "interval", INI_CUSTOM, WATCH(interval_s), .parse = parse_grace,
	  .expected = "a duration over zero: 90s, 15m, 1h" },
	{ "history", INI_CHOICE, WATCH(history), .choices = WATCH_HISTORY_CHOICES },
	{ "bisect", INI_CHOICE, WATCH(bisect), .choices = WATCH_BISECT_CHOICES },
	{ "disk_budget", INI_CUSTOM, WATCH(disk_budget), .parse = parse_disk_budget,
	  .set_flag = INI_FLAG(struct watch_cfg, disk_budget_set),
	  .expected = "a size with a K, M, G or T suffix (40G), or 0 or off" },
	{ NULL },
};

/*
 * An error about a name that refers to something lab.conf does not
 * declare, at the line that wrote the name, with the nearest name of
 * @known when one is close: a typo is then a one-glance fix.
 */
void config_ref_error(struct parse_ctx *ctx, int line, const struct strvec *known,
		      const char *word, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sb_vaddf(&sb, fmt, ap);
	va_end(ap);
	ini_did_you_mean(&sb, word, (const char *const *)known->v, known->n);
	cfg_error(ctx, line, "%s", sb_str(&sb));
	sb_release(&sb);
}

static int set_from_specs(struct parse_ctx *ctx, void *base, const struct ini_key *keys,
			  const char *section, const char *key, const char *value, int line)
{
	return ini_check_set(&ctx->ini, base, keys, section, key, value, line);
}

/* "kernel baseline" -> kind "kernel", name "baseline". */
static int split_section(const char *section, char **kind, char **name)
{
	const char *sp = strpbrk(section, " \t");

	if (!sp) {
		*kind = xstrdup(section);
		*name = NULL;
		return 0;
	}
	*kind = xstrndup(section, (size_t)(sp - section));
	sp += strspn(sp, " \t");
	*name = xstrdup(sp);
	return 0;
}

int config_valid_name(const char *name)
{
	if (!*name)
		return 0;
	for (const char *p = name; *p; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
		      ('0' <= *p && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			return 0;
	return 1;
}

static struct kernel_cfg *get_kernel(struct lab_config *cfg, const char *name, int line)
{
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		if (!strcmp(cfg->kernels[i].name, name))
			return &cfg->kernels[i];
	ALLOC_GROW(cfg->kernels, cfg->nr_kernels + 1, cfg->alloc_kernels);
	struct kernel_cfg *k = &cfg->kernels[cfg->nr_kernels++];
	memset(k, 0, sizeof(*k));
	k->name = xstrdup(name);
	k->line = line;
	return k;
}

struct guest_cfg *config_get_guest(struct lab_config *cfg, const char *name, int line)
{
	for (size_t i = 0; i < cfg->nr_guests; i++)
		if (!strcmp(cfg->guests[i].name, name))
			return &cfg->guests[i];
	ALLOC_GROW(cfg->guests, cfg->nr_guests + 1, cfg->alloc_guests);
	struct guest_cfg *g = &cfg->guests[cfg->nr_guests++];
	memset(g, 0, sizeof(*g));
	g->name = xstrdup(name);
	g->line = line;
	return g;
}

struct workload_cfg *config_get_workload(struct lab_config *cfg, const char *name, int line)
{
	for (size_t i = 0; i < cfg->nr_workloads; i++)
		if (!strcmp(cfg->workloads[i].name, name))
			return &cfg->workloads[i];
	ALLOC_GROW(cfg->workloads, cfg->nr_workloads + 1, cfg->alloc_workloads);
	struct workload_cfg *w = &cfg->workloads[cfg->nr_workloads++];
	memset(w, 0, sizeof(*w));
	w->name = xstrdup(name);
	w->line = line;
	w->threshold = -1;
	/* The section name is the workload type unless a `type` key says otherwise. */
	w->def = workload_find(name);
	return w;
}

/*
 * primary = NAME ...: the metrics `run --until decided` waits for and that
 * form the primary verdict family, instead of the definition's. Each must
 * be a metric of the workload (a name or its "%d" pattern); an empty value
 * declares none.
 */
static int workload_primary_key(struct parse_ctx *ctx, struct workload_cfg *w,
				const char *section, const char *value, int line)
{
	struct strvec names = STRVEC_INIT;
	int r = 0;

	strvec_split(&names, value, " \t,");
	for (size_t i = 0; i < names.n; i++) {
		if (workload_metric(w->def, names.v[i]))
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (const struct metric_def *m = w->def->metrics; m->name; m++)
			sb_addf(&sb, "%s%s", m == w->def->metrics ? "" : ", ", m->name);
		cfg_error(ctx, line, "[%s] primary: '%s' is not a metric of %s (expected one of %s; "
			  "%%d stands for a CPU count or node)", section, names.v[i], w->def->name,
			  sb_str(&sb));
		sb_release(&sb);
		r = -1;
	}
	strvec_clear(&w->primary);
	strvec_pushv(&w->primary, (const char *const *)names.v);
	w->primary_set = 1;
	strvec_clear(&names);
	return r;
}

/* Every workload type (workload_defs), for messages and suggestions. */
void config_workload_types(struct strvec *out)
{
	for (const struct workload_def *x = workload_defs; x->name; x++)
		strvec_push(out, x->name);
}

/* type = NAME: which workload the section runs, before any of its parameters. */
static int workload_type_key(struct parse_ctx *ctx, struct workload_cfg *w,
			     const char *section, const char *value, int line)
{
	const struct workload_def *d = workload_find(value);

	if (!d) {
		struct strbuf sb = STRBUF_INIT;
		struct strvec types = STRVEC_INIT;

		config_workload_types(&types);
		for (size_t i = 0; i < types.n; i++)
			sb_addf(&sb, "%s%s", i ? ", " : "", types.v[i]);
		config_ref_error(ctx, line, &types, value, "[%s] type: expected one of %s, not '%s'",
			  section, sb_str(&sb), value);
		strvec_clear(&types);
		sb_release(&sb);
		return -1;
	}
	if (w->keys.n) {
		cfg_error(ctx, line, "[%s] type: must come before the workload's parameters",
			  section);
		return -1;
	}
	w->def = d;
	return 0;
}

/* A parameter of the workload's program, checked; a path made absolute. */
static int workload_param_key(struct parse_ctx *ctx, struct workload_cfg *w,
			      const char *section, const char *key, const char *value,
			      int line)
{
	const struct param_def *p = workload_param(w->def, key);
	char *expected = NULL;

	if (!p) {
		const char *known[32];
		size_t n = 0;
		known[n++] = "type";
		known[n++] = "runs";
		known[n++] = "primary";
		known[n++] = "threshold";
		for (const struct param_def *q = w->def->params; q->name && n < ARRAY_SIZE(known); q++)
			known[n++] = q->name;
		ini_check_unknown_key(&ctx->ini, line, section, key, known, n);
		return -1;
	}
	if (workload_param_check(p, value, &expected)) {
		cfg_error(ctx, line, "[%s] %s: expected %s, not '%s'", section, key, expected, value);
		free(expected);
		return -1;
	}
	strvec_push(&w->keys, key);
	if (p->type == PARAM_PATH && *value) {
		char *abs = path_absolute(ctx->cfg->dir, value);
		strvec_push(&w->values, abs);
		free(abs);
	} else {
		strvec_push(&w->values, value);
	}
	return 0;
}

static int workload_key(struct parse_ctx *ctx, struct workload_cfg *w, const char *section,
			const char *key, const char *value, int line)
{
	if (ini_check_once(&ctx->ini, section, key, line))
		return -1;
	if (!strcmp(key, "type"))
		return workload_type_key(ctx, w, section, value, line);
	/*
	 * runs belongs to the section, not to the program: long workloads
	 * (kernel_build) get fewer repetitions than the micro-benchmarks.
	 */
	if (!strcmp(key, "runs")) {
		long n;

		if (parse_long(value, 1, 10000, &n)) {
			cfg_error(ctx, line, "[%s] runs: expected an integer from 1 to 10000, not '%s'",
				  section, value);
			return -1;
		}
		w->runs = n;
		return 0;
	}
	/* The band of this workload's metrics: a section's, like runs. */
	if (!strcmp(key, "threshold")) {
		if (ini_parse_fraction(value, &w->threshold) || w->threshold > 0.5) {
			cfg_error(ctx, line, "[%s] threshold: expected a noise band from 0 to 50%% "
				  "(0.03 or 3%%), not '%s'", section, value);
			return -1;
		}
		w->threshold_line = line;
		return 0;
	}
	if (!w->def) {
		cfg_error(ctx, line, "[%s] '%s' is not a known workload: set 'type = ' first",
			  section, w->name);
		return -1;
	}
	if (!strcmp(key, "primary"))
		return workload_primary_key(ctx, w, section, value, line);
	if (!strcmp(key, "coherence_params"))
		return config_workload_coh_params(&ctx->ini, w, section, value, line);
	return workload_param_key(ctx, w, section, key, value, line);
}

static void on_section(void *user, const char *section, int line)
{
	struct parse_ctx *ctx = user;
	struct lab_config *cfg = ctx->cfg;
	char *kind, *name;

	split_section(section, &kind, &name);
	if (!strcmp(kind, "lab") || !strcmp(kind, "run") || !strcmp(kind, "stats") ||
	    !strcmp(kind, "report") || !strcmp(kind, "watch") || !strcmp(kind, "claim")) {
		if (name)
			cfg_error(ctx, line, "[%s] takes no name (write [%s])", section, kind);
		if (!strcmp(kind, "claim") && !cfg->claim.line)
			cfg->claim.line = line;
		if (!strcmp(kind, "run"))
			ctx->run_line = ctx->run_line ? ctx->run_line : line;
		else if (!strcmp(kind, "stats"))
			ctx->stats_line = ctx->stats_line ? ctx->stats_line : line;
		else if (!strcmp(kind, "lab"))
			ctx->lab_line = ctx->lab_line ? ctx->lab_line : line;
	} else if (!strcmp(kind, "kernel") || !strcmp(kind, "guest") || !strcmp(kind, "workload") ||
		   !strcmp(kind, "host")) {
		if (!name || !config_valid_name(name))
			cfg_error(ctx, line, "[%s] needs a name of letters, digits, '-', '_' or '.' "
				  "(e.g. [%s baseline])", section, kind);
		else if (!strcmp(kind, "kernel"))
			get_kernel(cfg, name, line);
		else if (!strcmp(kind, "guest"))
			config_get_guest(cfg, name, line);
		else if (!strcmp(kind, "host"))
			config_get_host(cfg, name, line);
		else
			config_get_workload(cfg, name, line);
	} else {
		cfg_error(ctx, line, "unknown section [%s] (expected [lab], [kernel NAME], "
			  "[guest NAME], [workload NAME], [host NAME], [run], [stats], [report], [watch] or "
			  "[claim])",
			  section);
	}
	free(kind);
	free(name);
}

static int on_key(void *user, const char *section, const char *key, const char *value, int line)
{
	struct parse_ctx *ctx = user;
	struct lab_config *cfg = ctx->cfg;
	char *kind, *name;
	int r = 0;

	if (!*section) {
		cfg_error(ctx, line, "'%s' is outside any section (put it under [lab], [run], ...)", key);
		return -1;
	}
	split_section(section, &kind, &name);
	if (!strcmp(kind, "lab") && !name)
		r = set_from_specs(ctx, cfg, lab_keys, section, key, value, line);
	else if (!strcmp(kind, "run") && !name)
		r = set_from_specs(ctx, &cfg->run, run_keys, section, key, value, line);
	else if (!strcmp(kind, "stats") && !name)
		r = set_from_specs(ctx, &cfg->stats, stats_keys, section, key, value, line);
	else if (!strcmp(kind, "report") && !name)
		r = set_from_specs(ctx, &cfg->report, report_keys, section, key, value, line);
	else if (!strcmp(kind, "watch") && !name)
		r = set_from_specs(ctx, &cfg->watch, watch_keys, section, key, value, line);
	else if (!strcmp(kind, "claim") && !name)
		r = config_claim_key(&ctx->ini, &cfg->claim, key, value, line);
	else if (name && config_valid_name(name) && !strcmp(kind, "kernel"))
		r = set_from_specs(ctx, get_kernel(cfg, name, line), kernel_keys, section, key, value, line);
	else if (name && config_valid_name(name) && !strcmp(kind, "guest"))
		r = set_from_specs(ctx, config_get_guest(cfg, name, line), guest_keys, section, key, value, line);
	else if (name && config_valid_name(name) && !strcmp(kind, "workload"))
		r = workload_key(ctx, config_get_workload(cfg, name, line), section, key, value, line);
	else if (name && config_valid_name(name) && !strcmp(kind, "host"))
		r = config_host_key(&ctx->ini, config_get_host(cfg, name, line), section, key, value,
				    line);
	else
		r = -1;	/* the section header error was already reported */
	free(kind);
	free(name);
	return r;
}

static void set_defaults(struct lab_config *cfg)
{
	cfg->uri = xstrdup("qemu:///embed");
	cfg->claim.size = -1;	/* [claim] size: not said (0 % is a claim of no change) */
	cfg->accel = xstrdup("auto");
	cfg->ccache = xstrdup("no");
	cfg->run.runs = 5;
	cfg->run.coherence_ns_node = CONFIG_COH_NS_NODE;
	cfg->run.coherence_ns_remote = CONFIG_COH_NS_REMOTE;
	cfg->run.seed = STATS_DEFAULT_SEED;
	cfg->stats.alpha = STATS_DEFAULT_ALPHA;
	cfg->stats.confidence = STATS_DEFAULT_CONFIDENCE;
	cfg->stats.threshold = STATS_DEFAULT_THRESHOLD;
	cfg->stats.resamples = STATS_DEFAULT_RESAMPLES;
	cfg->stats.max_failed = STATS_DEFAULT_MAX_FAILED;
}

int config_load(const char *path, struct lab_config *cfg, struct strbuf *err)
{
	struct parse_ctx ctx = { .cfg = cfg, .ini = { .path = path, .err = err } };
	size_t before = err->len;
	int r;

	memset(cfg, 0, sizeof(*cfg));
	cfg->path = path_absolute(NULL, path);
	if (!cfg->path) {
		sb_addf(err, "%s: cannot read the current folder to resolve it: %s\n", path,
			strerror(errno));
		return LAB_EUSER;
	}
	cfg->dir = path_dirname(cfg->path);
	set_defaults(cfg);
	ctx.ini.dir = cfg->dir;
	r = ini_parse_lines_sections(path, on_key, on_section, &ctx, err);
	if (r >= 0)
		config_check(&ctx);
	ini_check_release(&ctx.ini);
	return err->len > before ? LAB_EUSER : LAB_OK;
}

/* The [report] keys alone: a report can be mailed where no lab is set up. */
static int on_report_key(void *user, const char *section, const char *key, const char *value,
			 int line)
{
	struct parse_ctx *ctx = user;

	if (strcmp(section, "report"))
		return 0;
	return set_from_specs(ctx, &ctx->cfg->report, report_keys, section, key, value, line);
}

int config_load_report(const char *path, struct report_cfg *out, struct strbuf *err)
{
	struct lab_config cfg;
	struct parse_ctx ctx = { .cfg = &cfg, .ini = { .path = path, .err = err } };
	size_t before = err->len;
	int r;

	memset(&cfg, 0, sizeof(cfg));
	r = ini_parse_lines(path, on_report_key, &ctx, err);
	*out = cfg.report;
	ini_check_release(&ctx.ini);
	return r < 0 || err->len > before ? LAB_EUSER : LAB_OK;
}

void report_cfg_release(struct report_cfg *r)
{
	free(r->mail_from);
	free(r->mail_to);
	free(r->mail_cc);
	free(r->base_url);
	memset(r, 0, sizeof(*r));
}

void config_release(struct lab_config *cfg)
{
	free(cfg->path);
	free(cfg->dir);
	free(cfg->state_dir);
	free(cfg->cache_dir);
	free(cfg->reports_dir);
	free(cfg->uri);
	free(cfg->accel);
	free(cfg->ccache);
	free(cfg->sandbox.user);
	report_cfg_release(&cfg->report);
	claim_cfg_release(&cfg->claim);
	free(cfg->watch.archive);
	strvec_clear(&cfg->watch.paths);
	free(cfg->watch.baseline);
	for (size_t i = 0; i < cfg->nr_kernels; i++) {
		struct kernel_cfg *k = &cfg->kernels[i];
		free(k->name);
		free(k->from);
		free(k->source);
		free(k->ref);
		free(k->config);
		free(k->prefix_of);
		free(k->build_name);
		strvec_clear(&k->series);
		strvec_clear(&k->fragments);
	}
	free(cfg->kernels);
	for (size_t i = 0; i < cfg->nr_guests; i++) {
		free(cfg->guests[i].name);
		free(cfg->guests[i].file);
	}
	free(cfg->guests);
	for (size_t i = 0; i < cfg->nr_workloads; i++) {
		free(cfg->workloads[i].name);
		strvec_clear(&cfg->workloads[i].keys);
		strvec_clear(&cfg->workloads[i].values);
		strvec_clear(&cfg->workloads[i].primary);
		strvec_clear(&cfg->workloads[i].coh_keys);
		strvec_clear(&cfg->workloads[i].coh_values);
	}
	free(cfg->workloads);
	config_free_hosts(cfg);
	strvec_clear(&cfg->run.kernels);
	strvec_clear(&cfg->run.workloads);
	strvec_clear(&cfg->run.coherence_workloads);
	strvec_clear(&cfg->run.coherence_words);
	free(cfg->run.guest);
	free(cfg->run.note);
	memset(cfg, 0, sizeof(*cfg));
}

const char *config_default_path(void)
{
	const char *env = getenv("MGLRULAB_CONFIG");

	return env && *env ? env : "lab.conf";
}

int config_load_or_report(const char *path, struct lab_config *cfg)
{
	struct strbuf err = STRBUF_INIT;
	int r = config_load(path, cfg, &err);

	if (r) {
		/* The messages quote lab.conf's values: filtered like every other. */
		term_printf(stderr, "%s", sb_str(&err));
		term_printf(stderr, "%s: error: %s: the configuration has errors (see above)\n",
			    lab_progname, path);
	}
	sb_release(&err);
	return r;
}

