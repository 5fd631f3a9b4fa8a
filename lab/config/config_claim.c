// SPDX-License-Identifier: GPL-2.0
/*
 * [claim]: the effect a series claims, the reference the answer is read
 * against (config.h, struct claim_cfg; mechanism.h for why a guest may
 * not be able to test it).
 */
#include "config_priv.h"
#include "mechanism.h"
#include "workload_def.h"

#include <stdlib.h>
#include <string.h>

#define CLAIM(f) .offset = offsetof(struct claim_cfg, f)
static const struct ini_key claim_keys[] = {
	{ "workload", INI_STRING, CLAIM(workload) },
	{ "metric", INI_STRING, CLAIM(metric) },
	{ "direction", INI_ENUM, CLAIM(direction), .choices = "higher|lower" },
	{ "size", INI_FRACTION, CLAIM(size) },
	{ "mechanism", INI_ENUM, CLAIM(mechanism), .choices = MECHANISM_CHOICES },
	{ "source", INI_STRING, CLAIM(source) },
	{ NULL },
};

int config_claim_key(struct ini_check *ini, struct claim_cfg *c, const char *key,
		     const char *value, int line)
{
	return ini_check_set(ini, c, claim_keys, "claim", key, value, line);
}

/* Does a primary of workload @w match the claim's metric (a name or %d pattern)? */
static int claims_metric(const struct claim_cfg *c, const struct workload_cfg *w)
{
	if (!c->metric)
		return 1;
	for (const struct metric_def *m = w->def ? w->def->metrics : NULL; m && m->name; m++)
		if (metric_pattern_match(m->name, c->metric) ||
		    metric_pattern_match(c->metric, m->name))
			return 1;
	return 0;
}

void config_check_claim(struct ini_check *ini, const struct lab_config *cfg)
{
	const struct claim_cfg *c = &cfg->claim;
	const struct workload_cfg *w;

	if (!c->line)
		return;
	/* a value that was refused has its own error already */
	if (!c->mechanism && !ini_check_line(ini, "claim", "mechanism"))
		ini_check_error(ini, c->line, "[claim] needs mechanism = %s: what the claimed "
				"effect goes through, which decides the guests that can test it",
				MECHANISM_CHOICES);
	if (!c->direction && !ini_check_line(ini, "claim", "direction"))
		ini_check_error(ini, c->line, "[claim] needs direction = higher|lower: which way "
				"the claimed metric moves");
	if (!c->workload)
		return;
	w = config_workload(cfg, c->workload);
	if (!w) {
		ini_check_error(ini, ini_check_line(ini, "claim", "workload"), "[claim] workload: "
				"no [workload %s] in this file", c->workload);
		return;
	}
	if (!claims_metric(c, w))
		ini_check_error(ini, ini_check_line(ini, "claim", "metric"), "[claim] metric: "
				"[workload %s] (%s) has no metric '%s'", c->workload,
				w->def ? w->def->name : "?", c->metric);
}

void claim_cfg_release(struct claim_cfg *c)
{
	free(c->workload);
	free(c->metric);
	free(c->direction);
	free(c->mechanism);
	free(c->source);
	memset(c, 0, sizeof(*c));
}
