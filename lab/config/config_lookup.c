// SPDX-License-Identifier: GPL-2.0
/*
 * The lookups on a loaded lab.conf (config.h): a kernel by name, a
 * bisection's prefix NAME@K and a watch's kernels made from a [kernel]
 * section on demand, a workload and its parameters' values and primaries.
 */
#include "config_priv.h"
#include "ini_schema.h"
#include "workload_params.h"

#include <stdlib.h>
#include <string.h>

const struct kernel_cfg *config_kernel(const struct lab_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nr_kernels; i++)
		if (!strcmp(cfg->kernels[i].name, name))
			return &cfg->kernels[i];
	return NULL;
}

/* " (did you mean 'NAME'?)" for a kernel lab.conf declares, or nothing. */
static void kernel_did_you_mean(const struct lab_config *cfg, const char *name,
				struct strbuf *err)
{
	struct strvec names = STRVEC_INIT;

	for (size_t i = 0; i < cfg->nr_kernels; i++)
		if (!cfg->kernels[i].prefix_of)
			strvec_push(&names, cfg->kernels[i].name);
	ini_did_you_mean(err, name, (const char *const *)names.v, names.n);
	strvec_clear(&names);
}

const struct kernel_cfg *config_kernel_resolve(struct lab_config *cfg, const char *name,
					       struct strbuf *err)
{
	const struct kernel_cfg *k = config_kernel(cfg, name);
	const char *at = strrchr(name, CONFIG_PREFIX_SEP);
	long prefix;

	if (k)
		return k;
	if (!at) {
		sb_addf(err, "no [kernel %s] in %s", name, cfg->path);
		kernel_did_you_mean(cfg, name, err);
		return NULL;
	}
	char *base_name = xstrndup(name, (size_t)(at - name));
	const struct kernel_cfg *base = config_kernel(cfg, base_name);
	if (!base) {
		sb_addf(err, "%s: no [kernel %s] in %s", name, base_name, cfg->path);
		kernel_did_you_mean(cfg, base_name, err);
	} else if (parse_long(at + 1, 0, 100000, &prefix)) {
		sb_addf(err, "%s: expected NAME%cK, K a patch count from 0, got '%s'", name,
			CONFIG_PREFIX_SEP, at + 1);
	} else if (!base->series.n) {
		sb_addf(err, "%s: [kernel %s] has no series to take patches from", name, base_name);
	} else {
		/* Copy the fields first: the array may move when it grows. */
		struct kernel_cfg nk = {
			.name = xstrdup(name), .line = base->line, .source = xstrdup(base->source),
			.ref = base->ref ? xstrdup(base->ref) : NULL, .config = xstrdup(base->config),
			.series_set = 1, .fragments_set = base->fragments_set,
			.prefix_of = xstrdup(base_name), .prefix = prefix,
			/* a watched series' prefixes build in its folder, incrementally */
			.build_name = base->build_name ? xstrdup(base->build_name) : NULL,
		};
		strvec_pushv(&nk.series, (const char *const *)base->series.v);
		strvec_pushv(&nk.fragments, (const char *const *)base->fragments.v);
		ALLOC_GROW(cfg->kernels, cfg->nr_kernels + 1, cfg->alloc_kernels);
		cfg->kernels[cfg->nr_kernels] = nk;
		k = &cfg->kernels[cfg->nr_kernels++];
	}
	free(base_name);
	return k;
}

/*
 * A kernel @name of @cfg's with [kernel @base_name]'s inputs, in the
 * watch's build folder, at @ref (NULL: the base's) and with @series after
 * the base's own (NULL: none).
 */
static const struct kernel_cfg *watch_kernel(struct lab_config *cfg, const char *base_name,
					     const char *name, const char *ref, const char *series,
					     struct strbuf *err)
{
	const struct kernel_cfg *base = config_kernel(cfg, base_name);

	if (!base) {
		sb_addf(err, "no [kernel %s] in %s", base_name, cfg->path);
		return NULL;
	}
	if (config_kernel(cfg, name)) {
		sb_addf(err, "[kernel %s] is in %s already", name, cfg->path);
		return NULL;
	}
	/* Copy the fields first: the array may move when it grows. */
	struct kernel_cfg nk = {
		.name = xstrdup(name), .line = base->line, .source = xstrdup(base->source),
		.ref = ref ? xstrdup(ref) : base->ref ? xstrdup(base->ref) : NULL,
		.config = xstrdup(base->config),
		.series_set = 1, .fragments_set = base->fragments_set,
		.build_name = xstrdup("watch"),
	};
	/* a baseline with a series of its own (a fix the lab carries): that first */
	strvec_pushv(&nk.series, (const char *const *)base->series.v);
	if (series)
		strvec_push(&nk.series, series);
	strvec_pushv(&nk.fragments, (const char *const *)base->fragments.v);
	ALLOC_GROW(cfg->kernels, cfg->nr_kernels + 1, cfg->alloc_kernels);
	cfg->kernels[cfg->nr_kernels] = nk;
	return &cfg->kernels[cfg->nr_kernels++];
}

const struct kernel_cfg *config_kernel_with_series(struct lab_config *cfg, const char *base_name,
						   const char *name, const char *series,
						   struct strbuf *err)
{
	return watch_kernel(cfg, base_name, name, NULL, series, err);
}

const struct kernel_cfg *config_kernel_at(struct lab_config *cfg, const char *base_name,
					  const char *name, const char *ref, struct strbuf *err)
{
	return watch_kernel(cfg, base_name, name, ref, NULL, err);
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
