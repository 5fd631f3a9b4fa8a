// SPDX-License-Identifier: GPL-2.0
/*
 * lab.conf's second pass (config.c reads the keys first): once every
 * section is read, [kernel] inheritance and each kernel's inputs, [run]'s
 * kernels, workloads and guest against the sections (or guests/NAME.conf),
 * then the hosts, the claim and coherence (config_hosts.c, config_claim.c,
 * config_coh.c), the folders' defaults and the paths the reports carry.
 * Every error at the line that wrote the value, none stops the pass.
 */
#include "config_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "ini_lines.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where key @key of [@kind @name] was set; @fallback when it was not. */
static int key_line(const struct parse_ctx *ctx, const char *kind, const char *name,
		    const char *key, int fallback)
{
	char *section = xasprintf("%s %s", kind, name);
	int line = ini_check_line(&ctx->ini, section, key);

	free(section);
	return line ? line : fallback;
}

/* Where item @i of list key @key of [@kind @name] was written; @fallback when not. */
static int item_line(const struct parse_ctx *ctx, const char *kind, const char *name,
		     const char *key, size_t i, int fallback)
{
	char *section = name ? xasprintf("%s %s", kind, name) : xstrdup(kind);
	int line = ini_check_item_line(&ctx->ini, section, key, i);

	free(section);
	return line ? line : fallback;
}

static void default_path(struct lab_config *cfg, char **field, const char *rel)
{
	if (!*field)
		*field = path_absolute(cfg->dir, rel);
}

/* Fill unset keys of @k from its `from` chain; detect cycles. */
static int inherit_kernel(struct parse_ctx *ctx, struct kernel_cfg *k, int depth)
{
	struct lab_config *cfg = ctx->cfg;

	if (!k->from)
		return 0;
	if (depth > (int)cfg->nr_kernels) {
		cfg_error(ctx, key_line(ctx, "kernel", k->name, "from", k->line),
			  "[kernel %s] from: 'from' chain loops back to itself", k->name);
		return -1;
	}
	struct kernel_cfg *p = NULL;
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		if (!strcmp(cfg->kernels[i].name, k->from))
			p = &cfg->kernels[i];
	if (!p) {
		struct strvec names = STRVEC_INIT;

		for (size_t i = 0; i < cfg->nr_kernels; i++)
			if (&cfg->kernels[i] != k)
				strvec_push(&names, cfg->kernels[i].name);
		config_ref_error(ctx, key_line(ctx, "kernel", k->name, "from", k->line), &names, k->from,
			  "[kernel %s] from: no [kernel %s] section", k->name, k->from);
		strvec_clear(&names);
		return -1;
	}
	if (p == k || inherit_kernel(ctx, p, depth + 1)) {
		if (p == k)
			cfg_error(ctx, key_line(ctx, "kernel", k->name, "from", k->line),
				  "[kernel %s] from: a kernel cannot inherit from itself", k->name);
		return -1;
	}
	if (!k->source && p->source)
		k->source = xstrdup(p->source);
	if (!k->ref && p->ref)
		k->ref = xstrdup(p->ref);
	if (!k->config && p->config)
		k->config = xstrdup(p->config);
	if (!k->series_set && p->series_set) {
		strvec_pushv(&k->series, (const char *const *)p->series.v);
		k->series_set = 1;
	}
	if (!k->fragments_set && p->fragments_set) {
		strvec_pushv(&k->fragments, (const char *const *)p->fragments.v);
		k->fragments_set = 1;
	}
	return 0;
}

static void check_kernel(struct parse_ctx *ctx, struct kernel_cfg *k)
{
	int source_line = key_line(ctx, "kernel", k->name, "source", k->line);
	int config_line = key_line(ctx, "kernel", k->name, "config", k->line);

	if (!k->source) {
		cfg_error(ctx, k->line, "[kernel %s] source: missing (a directory, a .tar.* archive or "
			  "a git repository)", k->name);
	} else if (!path_exists(k->source)) {
		cfg_error(ctx, source_line, "[kernel %s] source: '%s' does not exist%s", k->name,
			  k->source, str_starts_with(k->source, "/usr/src/linux-source-")
			  ? " (apt-get install linux-source-6.12, or run scripts/install-deps)" : "");
	}
	if (!k->config)
		k->config = xstrdup("tinyconfig");
	if (strcmp(k->config, "tinyconfig") && strcmp(k->config, "defconfig") &&
	    strcmp(k->config, "allnoconfig")) {
		char *abs = path_absolute(ctx->cfg->dir, k->config);
		if (!is_regular_file(abs))
			cfg_error(ctx, config_line, "[kernel %s] config: expected tinyconfig, defconfig, "
				  "allnoconfig or a config file; '%s' is none", k->name, abs);
		free(k->config);
		k->config = abs;
	}
	for (size_t i = 0; i < k->series.n; i++)
		if (!path_exists(k->series.v[i]))
			cfg_error(ctx, item_line(ctx, "kernel", k->name, "series", i, k->line),
				  "[kernel %s] series: '%s' does not exist", k->name, k->series.v[i]);
	for (size_t i = 0; i < k->fragments.n; i++)
		if (!is_regular_file(k->fragments.v[i]))
			cfg_error(ctx, item_line(ctx, "kernel", k->name, "fragments", i, k->line),
				  "[kernel %s] fragments: '%s' is not a file", k->name,
				  k->fragments.v[i]);
}

/* [run] kernels: each a [kernel] section, once; without the key, the first two. */
static void check_run_kernels(struct parse_ctx *ctx, int run_line)
{
	struct lab_config *cfg = ctx->cfg;
	struct run_cfg *run = &cfg->run;
	struct strvec names = STRVEC_INIT;

	if (!run->kernels.n && cfg->nr_kernels) {
		/* Default: compare the first two kernels, or run the only one. */
		for (size_t i = 0; i < cfg->nr_kernels && i < 2; i++)
			strvec_push(&run->kernels, cfg->kernels[i].name);
	}
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		strvec_push(&names, cfg->kernels[i].name);
	for (size_t i = 0; i < run->kernels.n; i++) {
		int line = item_line(ctx, "run", NULL, "kernels", i, run_line);

		if (!config_kernel(cfg, run->kernels.v[i]))
			config_ref_error(ctx, line, &names, run->kernels.v[i],
				  "[run] kernels: no [kernel %s] section", run->kernels.v[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(run->kernels.v[i], run->kernels.v[j]))
				cfg_error(ctx, line, "[run] kernels: '%s' is listed twice",
					  run->kernels.v[i]);
	}
	strvec_clear(&names);
}

/* [run] workloads: each a [workload] section or a workload type (run with its defaults). */
static void check_run_workloads(struct parse_ctx *ctx, int run_line)
{
	struct lab_config *cfg = ctx->cfg;
	struct run_cfg *run = &cfg->run;
	struct strvec names = STRVEC_INIT;

	for (size_t i = 0; i < cfg->nr_workloads; i++)
		strvec_push(&names, cfg->workloads[i].name);
	config_workload_types(&names);
	for (size_t i = 0; i < run->workloads.n; i++) {
		const char *w = run->workloads.v[i];
		int line = item_line(ctx, "run", NULL, "workloads", i, run_line);

		if (config_workload(cfg, w))
			continue;
		if (workload_find(w))
			config_get_workload(cfg, w, line);	/* a bare type with its defaults */
		else
			config_ref_error(ctx, line, &names, w, "[run] workloads: '%s' is neither a "
				  "[workload] section nor a known workload", w);
	}
	strvec_clear(&names);
}

/* The guests lab.conf could name: its [guest] sections and guests/NAME.conf beside it. */
static void guest_names(const struct lab_config *cfg, struct strvec *out)
{
	char *dir = path_absolute(cfg->dir, "guests");
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;

	for (size_t i = 0; i < cfg->nr_guests; i++)
		strvec_push(out, cfg->guests[i].name);
	while (d && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len > 5 && !strcmp(de->d_name + len - 5, ".conf"))
			strvec_pushf(out, "%.*s", (int)(len - 5), de->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	strvec_sort(out);	/* readdir's order is the file system's: one hint for one typo */
}

/* [run] guest: a [guest] section, else guests/NAME.conf beside lab.conf. */
static void check_run_guest(struct parse_ctx *ctx, int run_line)
{
	struct lab_config *cfg = ctx->cfg;
	struct run_cfg *run = &cfg->run;
	int line = ini_check_line(&ctx->ini, "run", "guest");

	if (!line)
		line = run_line;
	if (!run->guest)
		run->guest = xstrdup("tiny");
	for (size_t i = 0; i < cfg->nr_guests; i++)
		if (!strcmp(cfg->guests[i].name, run->guest))
			return;
	/* A guest without a section is guests/NAME.conf beside lab.conf. */
	char *rel = xasprintf("guests/%s.conf", run->guest);
	char *file = path_absolute(cfg->dir, rel);

	if (is_regular_file(file)) {
		struct guest_cfg *g = config_get_guest(cfg, run->guest, line);

		g->file = file;
		file = NULL;
	} else {
		struct strvec names = STRVEC_INIT;

		guest_names(cfg, &names);
		config_ref_error(ctx, line, &names, run->guest, "[run] guest: no [guest %s] section and "
			  "no %s", run->guest, file);
		strvec_clear(&names);
	}
	free(file);
	free(rel);
}

static void check_run(struct parse_ctx *ctx)
{
	struct lab_config *cfg = ctx->cfg;
	int line = ctx->run_line ? ctx->run_line : 1;

	check_run_kernels(ctx, line);
	check_run_workloads(ctx, line);
	check_run_guest(ctx, line);
	for (size_t i = 0; i < cfg->nr_guests; i++) {
		struct guest_cfg *g = &cfg->guests[i];
		if (!g->file) {
			char *rel = xasprintf("guests/%s.conf", g->name);
			g->file = path_absolute(cfg->dir, rel);
			free(rel);
		}
		if (!is_regular_file(g->file))
			cfg_error(ctx, key_line(ctx, "guest", g->name, "file", g->line),
				  "[guest %s] file: '%s' is not a file", g->name, g->file);
	}
	for (size_t i = 0; i < cfg->nr_workloads; i++) {
		struct strvec types = STRVEC_INIT;

		if (cfg->workloads[i].def)
			continue;
		config_workload_types(&types);
		config_ref_error(ctx, cfg->workloads[i].line, &types, cfg->workloads[i].name,
			  "[workload %s] is not a known workload: set 'type = '",
			  cfg->workloads[i].name);
		strvec_clear(&types);
	}
	if (cfg->stats.confidence < 0.5) {
		int key = ini_check_line(&ctx->ini, "stats", "confidence");

		cfg_error(ctx, key ? key : ctx->stats_line ? ctx->stats_line : 1,
			  "[stats] confidence: expected at least 0.5 (e.g. 0.95)");
	}
}

static void check_utf8_path(struct parse_ctx *ctx, const char *what, const char *path)
{
	size_t len = strlen(path), good = utf8_valid_len(path, len);

	if (good < len)
		sb_addf(ctx->ini.err, "%s: %s is not valid UTF-8 (byte 0x%02x at offset %zu); the lab "
			"writes its paths into JSON reports\n", path, what, (unsigned char)path[good], good);
}

/*
 * The second pass, once every key is read: [kernel] inheritance and each
 * kernel's inputs, [run]'s references, the hosts, the claim, coherence,
 * the folders' defaults and the paths the reports will carry. Every error
 * is recorded in @ctx->ini, none stops the pass.
 */
void config_check(struct parse_ctx *ctx)
{
	struct lab_config *cfg = ctx->cfg;
	struct strbuf *err = ctx->ini.err;

	for (size_t i = 0; i < cfg->nr_kernels; i++)
		inherit_kernel(ctx, &cfg->kernels[i], 0);
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		check_kernel(ctx, &cfg->kernels[i]);
	check_run(ctx);
	config_check_hosts(cfg, &ctx->ini, ctx->run_line ? ctx->run_line : 1);
	config_check_claim(&ctx->ini, cfg);
	config_check_coherence(&ctx->ini, cfg, ctx->run_line ? ctx->run_line : 1);
	default_path(cfg, &cfg->state_dir, ".lab");
	default_path(cfg, &cfg->cache_dir, "kernels/cache");
	default_path(cfg, &cfg->reports_dir, "reports");
	/* The environment wins, so CI can keep one cache across fresh clones. */
	const char *env_cache = getenv("MGLRULAB_CACHE_DIR");
	if (env_cache && *env_cache) {
		char *abs = path_absolute(NULL, env_cache);

		if (abs) {
			free(cfg->cache_dir);
			cfg->cache_dir = abs;
		} else {
			sb_addf(err, "MGLRULAB_CACHE_DIR: cannot read the current folder to "
				"resolve %s: %s\n", env_cache, strerror(errno));
		}
	}
	/*
	 * Every path the lab records in JSON starts from one of these
	 * (values were checked line by line): JSON must be UTF-8.
	 */
	check_utf8_path(ctx, "the folder of the configuration file", cfg->path);
	check_utf8_path(ctx, "MGLRULAB_CACHE_DIR", cfg->cache_dir);
}
