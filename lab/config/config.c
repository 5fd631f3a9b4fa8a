// SPDX-License-Identifier: GPL-2.0
/*
 * lab.conf parsing and validation. Two passes: the inih pass stores every
 * key with its line (checking syntax and types as it goes); the second pass
 * resolves [kernel] inheritance and cross-references ([run] naming kernels,
 * workloads and a guest that exist). Both passes collect every error rather
 * than stopping at the first, so one `config check` shows them all.
 */
#include "config.h"
#include "escape.h"
#include "fsutil.h"
#include "ini_lines.h"
#include "report.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum key_kind {
	K_STRING,
	K_PATH,		/* resolved against the config file's folder */
	K_PATHS,	/* whitespace-separated, accumulates over lines */
	K_WORDS,	/* whitespace- or comma-separated names */
	K_LONG,
	K_U64,
	K_FRACTION,	/* 0.05 or 5% */
	K_ENUM,
};

struct key_spec {
	const char *key;
	enum key_kind kind;
	size_t offset;		/* into the section's struct */
	size_t set_offset;	/* int flag for K_PATHS, or (size_t)-1 */
	long min, max;
	const char *choices;	/* K_ENUM */
	const char *expected;	/* for messages */
};

#define NOFLAG ((size_t)-1)

static const struct key_spec lab_keys[] = {
	{ "state_dir", K_PATH, offsetof(struct lab_config, state_dir), NOFLAG, 0, 0, NULL, "a folder" },
	{ "cache_dir", K_PATH, offsetof(struct lab_config, cache_dir), NOFLAG, 0, 0, NULL, "a folder" },
	{ "reports_dir", K_PATH, offsetof(struct lab_config, reports_dir), NOFLAG, 0, 0, NULL, "a folder" },
	{ "uri", K_STRING, offsetof(struct lab_config, uri), NOFLAG, 0, 0, NULL, "a libvirt URI" },
	{ "accel", K_ENUM, offsetof(struct lab_config, accel), NOFLAG, 0, 0, "auto|kvm|tcg", NULL },
	{ "jobs", K_LONG, offsetof(struct lab_config, jobs), NOFLAG, 0, 4096, NULL, NULL },
	{ "ccache", K_ENUM, offsetof(struct lab_config, ccache), NOFLAG, 0, 0, "no|yes", NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct key_spec kernel_keys[] = {
	{ "from", K_STRING, offsetof(struct kernel_cfg, from), NOFLAG, 0, 0, NULL, "a kernel name" },
	{ "source", K_PATH, offsetof(struct kernel_cfg, source), NOFLAG, 0, 0, NULL,
	  "a kernel source: a directory, a .tar.* archive or a git repository" },
	{ "ref", K_STRING, offsetof(struct kernel_cfg, ref), NOFLAG, 0, 0, NULL, "a git ref" },
	{ "series", K_PATHS, offsetof(struct kernel_cfg, series),
	  offsetof(struct kernel_cfg, series_set), 0, 0, NULL, "mbox or .patch files" },
	{ "config", K_STRING, offsetof(struct kernel_cfg, config), NOFLAG, 0, 0, NULL,
	  "tinyconfig, defconfig, allnoconfig or a config file" },
	{ "fragments", K_PATHS, offsetof(struct kernel_cfg, fragments),
	  offsetof(struct kernel_cfg, fragments_set), 0, 0, NULL, "config fragment files" },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct key_spec guest_keys[] = {
	{ "file", K_PATH, offsetof(struct guest_cfg, file), NOFLAG, 0, 0, NULL, "a guest topology file" },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct key_spec run_keys[] = {
	{ "kernels", K_WORDS, offsetof(struct run_cfg, kernels), NOFLAG, 0, 0, NULL, "kernel names" },
	{ "guest", K_STRING, offsetof(struct run_cfg, guest), NOFLAG, 0, 0, NULL, "a guest name" },
	{ "workloads", K_WORDS, offsetof(struct run_cfg, workloads), NOFLAG, 0, 0, NULL, "workload names" },
	{ "runs", K_LONG, offsetof(struct run_cfg, runs), NOFLAG, 1, 10000, NULL, NULL },
	{ "warmups", K_LONG, offsetof(struct run_cfg, warmups), NOFLAG, 0, 1000, NULL, NULL },
	{ "seed", K_U64, offsetof(struct run_cfg, seed), NOFLAG, 0, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

static const struct key_spec stats_keys[] = {
	{ "alpha", K_FRACTION, offsetof(struct stats_cfg, alpha), NOFLAG, 0, 0, NULL, NULL },
	{ "confidence", K_FRACTION, offsetof(struct stats_cfg, confidence), NOFLAG, 0, 0, NULL, NULL },
	{ "threshold", K_FRACTION, offsetof(struct stats_cfg, threshold), NOFLAG, 0, 0, NULL, NULL },
	{ "resamples", K_LONG, offsetof(struct stats_cfg, resamples), NOFLAG,
	  REPORT_MIN_RESAMPLES, REPORT_MAX_RESAMPLES, NULL, NULL },
	{ "max_failed", K_FRACTION, offsetof(struct stats_cfg, max_failed), NOFLAG, 0, 0, NULL, NULL },
	{ NULL, 0, 0, 0, 0, 0, NULL, NULL },
};

/* Where each scalar key was first set, to report duplicates. */
struct seen_key {
	char *section;
	char *key;
	int line;
};

struct parse_ctx {
	struct lab_config *cfg;
	struct strbuf *err;
	const char *path;
	struct seen_key *seen;
	size_t nr_seen, alloc_seen;
	int run_line, stats_line, lab_line;
};

static void cfg_error(struct parse_ctx *ctx, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cfg_error(struct parse_ctx *ctx, int line, const char *fmt, ...)
{
	va_list ap;

	sb_addf(ctx->err, "%s:%d: ", ctx->path, line);
	va_start(ap, fmt);
	sb_vaddf(ctx->err, fmt, ap);
	va_end(ap);
	sb_addc(ctx->err, '\n');
}

/* Edit distance, to suggest the key a typo meant. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = xcalloc(lb + 1, sizeof(*row));

	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

static void unknown_key(struct parse_ctx *ctx, int line, const char *section,
			const char *key, const char *const *known, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *best = NULL;
	size_t best_d = 3;

	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(key, known[i]);
		if (d < best_d) {
			best_d = d;
			best = known[i];
		}
		sb_addf(&sb, "%s%s", i ? ", " : "", known[i]);
	}
	if (best)
		cfg_error(ctx, line, "[%s] unknown key '%s' (did you mean '%s'?)", section, key, best);
	else
		cfg_error(ctx, line, "[%s] unknown key '%s' (expected one of: %s)", section, key,
			  sb_str(&sb));
	sb_release(&sb);
}

static void unknown_spec_key(struct parse_ctx *ctx, int line, const char *section,
			     const char *key, const struct key_spec *specs)
{
	const char *known[32];
	size_t n = 0;

	for (const struct key_spec *s = specs; s->key && n < ARRAY_SIZE(known); s++)
		known[n++] = s->key;
	unknown_key(ctx, line, section, key, known, n);
}

/* Scalar keys may be set once per section; lists accumulate. */
static int check_duplicate(struct parse_ctx *ctx, const char *section, const char *key, int line)
{
	for (size_t i = 0; i < ctx->nr_seen; i++) {
		struct seen_key *s = &ctx->seen[i];
		if (!strcmp(s->section, section) && !strcmp(s->key, key)) {
			cfg_error(ctx, line, "[%s] %s: already set at line %d", section, key, s->line);
			return -1;
		}
	}
	ALLOC_GROW(ctx->seen, ctx->nr_seen + 1, ctx->alloc_seen);
	ctx->seen[ctx->nr_seen++] = (struct seen_key){ xstrdup(section), xstrdup(key), line };
	return 0;
}

static int parse_fraction(const char *value, double *out)
{
	size_t len = strlen(value);
	double v;

	if (len && value[len - 1] == '%') {
		char *num = xstrndup(value, len - 1);
		int r = parse_double(num, &v);
		free(num);
		if (r)
			return -1;
		v /= 100;
	} else if (parse_double(value, &v)) {
		return -1;
	}
	if (!(v >= 0 && v < 1))
		return -1;
	*out = v;
	return 0;
}

static int choice_in(const char *choices, const char *value)
{
	size_t vl = strlen(value);

	for (const char *c = choices; *c;) {
		size_t l = strcspn(c, "|");
		if (l == vl && !strncmp(c, value, l))
			return 1;
		c += l + (c[l] == '|');
	}
	return 0;
}

static int set_key(struct parse_ctx *ctx, void *base, const struct key_spec *spec,
		   const char *section, const char *value, int line)
{
	char *field = (char *)base + spec->offset;

	if (spec->kind != K_PATHS && spec->kind != K_WORDS &&
	    check_duplicate(ctx, section, spec->key, line))
		return -1;
	if (!*value && spec->kind != K_PATHS && spec->kind != K_WORDS && spec->kind != K_STRING) {
		cfg_error(ctx, line, "[%s] %s: empty value", section, spec->key);
		return -1;
	}
	switch (spec->kind) {
	case K_STRING:
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		return 0;
	case K_PATH:
		free(*(char **)field);
		*(char **)field = path_absolute(ctx->cfg->dir, value);
		return 0;
	case K_PATHS: {
		struct strvec *sv = (struct strvec *)field;
		struct strvec items = STRVEC_INIT;
		strvec_split(&items, value, " \t");
		for (size_t i = 0; i < items.n; i++) {
			char *abs = path_absolute(ctx->cfg->dir, items.v[i]);
			strvec_push(sv, abs);
			free(abs);
		}
		strvec_clear(&items);
		if (spec->set_offset != NOFLAG)
			*(int *)((char *)base + spec->set_offset) = 1;
		return 0;
	}
	case K_WORDS:
		strvec_split((struct strvec *)field, value, " \t,");
		return 0;
	case K_LONG: {
		long v;
		if (parse_long(value, spec->min, spec->max, &v)) {
			cfg_error(ctx, line, "[%s] %s: expected an integer from %ld to %ld, not '%s'",
				  section, spec->key, spec->min, spec->max, value);
			return -1;
		}
		*(long *)field = v;
		return 0;
	}
	case K_U64:
		if (parse_u64(value, (uint64_t *)field)) {
			cfg_error(ctx, line, "[%s] %s: expected a non-negative integer, not '%s'",
				  section, spec->key, value);
			return -1;
		}
		return 0;
	case K_FRACTION:
		if (parse_fraction(value, (double *)field)) {
			cfg_error(ctx, line,
				  "[%s] %s: expected a fraction from 0 to 1 (0.05) or a percentage (5%%), not '%s'",
				  section, spec->key, value);
			return -1;
		}
		return 0;
	case K_ENUM:
		if (!choice_in(spec->choices, value)) {
			cfg_error(ctx, line, "[%s] %s: expected one of %s, not '%s'",
				  section, spec->key, spec->choices, value);
			return -1;
		}
		free(*(char **)field);
		*(char **)field = xstrdup(value);
		return 0;
	}
	return 0;
}

static int set_from_specs(struct parse_ctx *ctx, void *base, const struct key_spec *specs,
			  const char *section, const char *key, const char *value, int line)
{
	for (const struct key_spec *s = specs; s->key; s++)
		if (!strcmp(s->key, key))
			return set_key(ctx, base, s, section, value, line);
	unknown_spec_key(ctx, line, section, key, specs);
	return -1;
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

static int valid_name(const char *name)
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

static struct guest_cfg *get_guest(struct lab_config *cfg, const char *name, int line)
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

static struct workload_cfg *get_workload(struct lab_config *cfg, const char *name, int line)
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

static int workload_key(struct parse_ctx *ctx, struct workload_cfg *w, const char *section,
			const char *key, const char *value, int line)
{
	if (check_duplicate(ctx, section, key, line))
		return -1;
	if (!strcmp(key, "type")) {
		const struct workload_def *d = workload_find(value);
		if (!d) {
			struct strbuf sb = STRBUF_INIT;
			for (const struct workload_def *x = workload_defs; x->name; x++)
				sb_addf(&sb, "%s%s", x == workload_defs ? "" : ", ", x->name);
			cfg_error(ctx, line, "[%s] type: expected one of %s, not '%s'", section,
				  sb_str(&sb), value);
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
	/*
	 * runs belongs to the section, not to the program: long workloads
	 * (kernel_build) get fewer repetitions than the micro-benchmarks.
	 */
	if (!strcmp(key, "runs")) {
		char *end;
		long n;

		errno = 0;
		n = strtol(value, &end, 10);
		if (errno || end == value || *end || n < 1 || n > 10000) {
			cfg_error(ctx, line, "[%s] runs: expected an integer from 1 to 10000, not '%s'",
				  section, value);
			return -1;
		}
		w->runs = n;
		return 0;
	}
	/* The band of this workload's metrics: a section's, like runs. */
	if (!strcmp(key, "threshold")) {
		if (parse_fraction(value, &w->threshold) || w->threshold > 0.5) {
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
	const struct param_def *p = workload_param(w->def, key);
	if (!p) {
		const char *known[32];
		size_t n = 0;
		known[n++] = "type";
		known[n++] = "runs";
		known[n++] = "primary";
		known[n++] = "threshold";
		for (const struct param_def *q = w->def->params; q->name && n < ARRAY_SIZE(known); q++)
			known[n++] = q->name;
		unknown_key(ctx, line, section, key, known, n);
		return -1;
	}
	char *expected = NULL;
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

static void on_section(void *user, const char *section, int line)
{
	struct parse_ctx *ctx = user;
	struct lab_config *cfg = ctx->cfg;
	char *kind, *name;

	split_section(section, &kind, &name);
	if (!strcmp(kind, "lab") || !strcmp(kind, "run") || !strcmp(kind, "stats")) {
		if (name)
			cfg_error(ctx, line, "[%s] takes no name (write [%s])", section, kind);
		if (!strcmp(kind, "run"))
			ctx->run_line = ctx->run_line ? ctx->run_line : line;
		else if (!strcmp(kind, "stats"))
			ctx->stats_line = ctx->stats_line ? ctx->stats_line : line;
		else
			ctx->lab_line = ctx->lab_line ? ctx->lab_line : line;
	} else if (!strcmp(kind, "kernel") || !strcmp(kind, "guest") || !strcmp(kind, "workload")) {
		if (!name || !valid_name(name))
			cfg_error(ctx, line, "[%s] needs a name of letters, digits, '-', '_' or '.' "
				  "(e.g. [%s baseline])", section, kind);
		else if (!strcmp(kind, "kernel"))
			get_kernel(cfg, name, line);
		else if (!strcmp(kind, "guest"))
			get_guest(cfg, name, line);
		else
			get_workload(cfg, name, line);
	} else {
		cfg_error(ctx, line, "unknown section [%s] (expected [lab], [kernel NAME], "
			  "[guest NAME], [workload NAME], [run] or [stats])", section);
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
	else if (name && valid_name(name) && !strcmp(kind, "kernel"))
		r = set_from_specs(ctx, get_kernel(cfg, name, line), kernel_keys, section, key, value, line);
	else if (name && valid_name(name) && !strcmp(kind, "guest"))
		r = set_from_specs(ctx, get_guest(cfg, name, line), guest_keys, section, key, value, line);
	else if (name && valid_name(name) && !strcmp(kind, "workload"))
		r = workload_key(ctx, get_workload(cfg, name, line), section, key, value, line);
	else
		r = -1;	/* the section header error was already reported */
	free(kind);
	free(name);
	return r;
}

static void set_defaults(struct lab_config *cfg)
{
	cfg->uri = xstrdup("qemu:///embed");
	cfg->accel = xstrdup("auto");
	cfg->ccache = xstrdup("no");
	cfg->run.runs = 5;
	cfg->run.seed = 1;
	cfg->stats.alpha = 0.05;
	cfg->stats.confidence = 0.95;
	cfg->stats.threshold = 0.01;
	cfg->stats.resamples = 10000;
	cfg->stats.max_failed = 0.25;
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
		cfg_error(ctx, k->line, "[kernel %s] from: 'from' chain loops back to itself", k->name);
		return -1;
	}
	struct kernel_cfg *p = NULL;
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		if (!strcmp(cfg->kernels[i].name, k->from))
			p = &cfg->kernels[i];
	if (!p) {
		cfg_error(ctx, k->line, "[kernel %s] from: no [kernel %s] section", k->name, k->from);
		return -1;
	}
	if (p == k || inherit_kernel(ctx, p, depth + 1)) {
		if (p == k)
			cfg_error(ctx, k->line, "[kernel %s] from: a kernel cannot inherit from itself",
				  k->name);
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
	if (!k->source) {
		cfg_error(ctx, k->line, "[kernel %s] source: missing (a directory, a .tar.* archive or "
			  "a git repository)", k->name);
	} else if (!path_exists(k->source)) {
		cfg_error(ctx, k->line, "[kernel %s] source: '%s' does not exist%s", k->name,
			  k->source, str_starts_with(k->source, "/usr/src/linux-source-")
			  ? " (apt-get install linux-source-6.12, or run scripts/install-deps)" : "");
	}
	if (!k->config)
		k->config = xstrdup("tinyconfig");
	if (strcmp(k->config, "tinyconfig") && strcmp(k->config, "defconfig") &&
	    strcmp(k->config, "allnoconfig")) {
		char *abs = path_absolute(ctx->cfg->dir, k->config);
		if (!is_regular_file(abs))
			cfg_error(ctx, k->line, "[kernel %s] config: expected tinyconfig, defconfig, "
				  "allnoconfig or a config file; '%s' is none", k->name, abs);
		free(k->config);
		k->config = abs;
	}
	for (size_t i = 0; i < k->series.n; i++)
		if (!path_exists(k->series.v[i]))
			cfg_error(ctx, k->line, "[kernel %s] series: '%s' does not exist", k->name,
				  k->series.v[i]);
	for (size_t i = 0; i < k->fragments.n; i++)
		if (!is_regular_file(k->fragments.v[i]))
			cfg_error(ctx, k->line, "[kernel %s] fragments: '%s' is not a file", k->name,
				  k->fragments.v[i]);
}

static void check_run(struct parse_ctx *ctx)
{
	struct lab_config *cfg = ctx->cfg;
	struct run_cfg *run = &cfg->run;
	int line = ctx->run_line ? ctx->run_line : 1;

	if (!run->kernels.n && cfg->nr_kernels) {
		/* Default: compare the first two kernels, or run the only one. */
		for (size_t i = 0; i < cfg->nr_kernels && i < 2; i++)
			strvec_push(&run->kernels, cfg->kernels[i].name);
	}
	for (size_t i = 0; i < run->kernels.n; i++) {
		if (!config_kernel(cfg, run->kernels.v[i]))
			cfg_error(ctx, line, "[run] kernels: no [kernel %s] section", run->kernels.v[i]);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(run->kernels.v[i], run->kernels.v[j]))
				cfg_error(ctx, line, "[run] kernels: '%s' is listed twice",
					  run->kernels.v[i]);
	}
	for (size_t i = 0; i < run->workloads.n; i++) {
		const char *w = run->workloads.v[i];
		if (!config_workload(cfg, w)) {
			if (workload_find(w))
				get_workload(cfg, w, line);	/* a bare type with its defaults */
			else
				cfg_error(ctx, line, "[run] workloads: '%s' is neither a [workload] "
					  "section nor a known workload", w);
		}
	}
	if (!run->guest)
		run->guest = xstrdup("tiny");
	int found = 0;
	for (size_t i = 0; i < cfg->nr_guests; i++)
		found |= !strcmp(cfg->guests[i].name, run->guest);
	if (!found) {
		/* A guest without a section is guests/NAME.conf beside lab.conf. */
		char *rel = xasprintf("guests/%s.conf", run->guest);
		char *file = path_absolute(cfg->dir, rel);
		if (is_regular_file(file)) {
			struct guest_cfg *g = get_guest(cfg, run->guest, line);
			g->file = file;
			file = NULL;
		} else {
			cfg_error(ctx, line, "[run] guest: no [guest %s] section and no %s",
				  run->guest, file);
		}
		free(file);
		free(rel);
	}
	for (size_t i = 0; i < cfg->nr_guests; i++) {
		struct guest_cfg *g = &cfg->guests[i];
		if (!g->file) {
			char *rel = xasprintf("guests/%s.conf", g->name);
			g->file = path_absolute(cfg->dir, rel);
			free(rel);
		}
		if (!is_regular_file(g->file))
			cfg_error(ctx, g->line, "[guest %s] file: '%s' is not a file", g->name, g->file);
	}
	for (size_t i = 0; i < cfg->nr_workloads; i++)
		if (!cfg->workloads[i].def)
			cfg_error(ctx, cfg->workloads[i].line,
				  "[workload %s] is not a known workload: set 'type = '",
				  cfg->workloads[i].name);
	if (cfg->stats.confidence < 0.5)
		cfg_error(ctx, ctx->stats_line ? ctx->stats_line : 1,
			  "[stats] confidence: expected at least 0.5 (e.g. 0.95)");
}

static void check_utf8_path(struct parse_ctx *ctx, const char *what, const char *path)
{
	size_t len = strlen(path), good = utf8_valid_len(path, len);

	if (good < len)
		sb_addf(ctx->err, "%s: %s is not valid UTF-8 (byte 0x%02x at offset %zu); the lab "
			"writes its paths into JSON reports\n", path, what, (unsigned char)path[good], good);
}

int config_load(const char *path, struct lab_config *cfg, struct strbuf *err)
{
	struct parse_ctx ctx = { .cfg = cfg, .err = err, .path = path };
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
	r = ini_parse_lines_sections(path, on_key, on_section, &ctx, err);
	if (r >= 0) {
		for (size_t i = 0; i < cfg->nr_kernels; i++)
			inherit_kernel(&ctx, &cfg->kernels[i], 0);
		for (size_t i = 0; i < cfg->nr_kernels; i++)
			check_kernel(&ctx, &cfg->kernels[i]);
		check_run(&ctx);
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
		check_utf8_path(&ctx, "the folder of the configuration file", cfg->path);
		check_utf8_path(&ctx, "MGLRULAB_CACHE_DIR", cfg->cache_dir);
	}
	for (size_t i = 0; i < ctx.nr_seen; i++) {
		free(ctx.seen[i].section);
		free(ctx.seen[i].key);
	}
	free(ctx.seen);
	return err->len > before ? LAB_EUSER : LAB_OK;
}

void config_free(struct lab_config *cfg)
{
	free(cfg->path);
	free(cfg->dir);
	free(cfg->state_dir);
	free(cfg->cache_dir);
	free(cfg->reports_dir);
	free(cfg->uri);
	free(cfg->accel);
	free(cfg->ccache);
	for (size_t i = 0; i < cfg->nr_kernels; i++) {
		struct kernel_cfg *k = &cfg->kernels[i];
		free(k->name);
		free(k->from);
		free(k->source);
		free(k->ref);
		free(k->config);
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
	}
	free(cfg->workloads);
	strvec_clear(&cfg->run.kernels);
	strvec_clear(&cfg->run.workloads);
	free(cfg->run.guest);
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

const struct kernel_cfg *config_kernel(const struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		if (!strcmp(cfg->kernels[i].name, name))
			return &cfg->kernels[i];
	return NULL;
}

const struct workload_cfg *config_workload(const struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nr_workloads; i++)
		if (!strcmp(cfg->workloads[i].name, name))
			return &cfg->workloads[i];
	return NULL;
}

const char *workload_cfg_value(const struct workload_cfg *w, const char *param)
{
	for (size_t i = 0; i < w->keys.n; i++)
		if (!strcmp(w->keys.v[i], param))
			return w->values.v[i];
	const struct param_def *p = w->def ? workload_param(w->def, param) : NULL;
	return p ? p->def : NULL;
}

void workload_cfg_primaries(const struct workload_cfg *w, struct strvec *out)
{
	if (w->primary_set) {
		strvec_pushv(out, (const char *const *)w->primary.v);
		return;
	}
	for (const struct metric_def *m = w->def ? w->def->metrics : NULL; m && m->name; m++)
		if (m->primary)
			strvec_push(out, m->name);
}
