// SPDX-License-Identifier: GPL-2.0
/*
 * [run] coherence (docs/coherence.md): which workloads get coherence runs
 * after the verdicts. One of off, changed (those whose primary changed)
 * or all; or the names of the workloads to run it for whatever their
 * verdicts, since a run costs several plain ones and the model's effect
 * is one the verdicts cannot see: the demo names its shared-mm workload
 * and its control. A name that is not one of [run] workloads is an error
 * at the line that wrote it.
 *
 * [workload NAME] coherence_params: what a workload's coherence runs take
 * in place of its own parameters, so that a model run, several times a
 * plain one's cost, measures only the case the series is about (the
 * demo's yield_shared at two CPUs, not one).
 */
#include "config_priv.h"

#include "workload_params.h"

#include <stdlib.h>
#include <string.h>

void config_check_coherence(struct ini_check *ini, struct lab_config *cfg, int run_line)
{
	struct run_cfg *run = &cfg->run;
	const struct strvec *w = &run->coherence_words;
	int choice = w->n == 1 ? config_attribute_parse(w->v[0]) : -1;

	if (!w->n)
		return;
	if (choice >= 0) {
		run->coherence = choice;
		return;
	}
	for (size_t i = 0; i < w->n; i++) {
		int line = ini_check_item_line(ini, "run", "coherence", i);
		int listed = 0;

		if (!line)
			line = run_line;
		for (size_t j = 0; j < run->workloads.n && !listed; j++)
			listed = !strcmp(run->workloads.v[j], w->v[i]);
		if (config_attribute_parse(w->v[i]) >= 0) {
			ini_check_error(ini, line, "[run] coherence: '%s' is a choice of its own "
					"(off, changed or all), not one of a list of workloads", w->v[i]);
		} else if (!listed) {
			struct strbuf sb = STRBUF_INIT;

			sb_addf(&sb, "[run] coherence: '%s' is not one of [run] workloads (off, "
				"changed, all, or names of [run] workloads)", w->v[i]);
			ini_did_you_mean(&sb, w->v[i], (const char *const *)run->workloads.v,
					 run->workloads.n);
			ini_check_error(ini, line, "%s", sb_str(&sb));
			sb_release(&sb);
		} else {
			strvec_push(&run->coherence_workloads, w->v[i]);
		}
	}
	run->coherence = RUN_ATTRIBUTE_ALL;
}

int config_workload_coh_params(struct ini_check *ini, struct workload_cfg *w,
			       const char *section, const char *value, int line)
{
	struct strvec words = STRVEC_INIT;
	int bad = !*value;

	strvec_split(&words, value, " \t");
	if (!words.n)
		ini_check_error(ini, line, "[%s] coherence_params: expected KEY=VALUE ...", section);
	for (size_t i = 0; i < words.n; i++) {
		const char *eq = strchr(words.v[i], '=');
		char *key = eq ? xstrndup(words.v[i], (size_t)(eq - words.v[i])) : NULL;
		const struct param_def *p = key ? workload_param(w->def, key) : NULL;
		char *expected = NULL;

		if (!eq) {
			bad = 1;
			ini_check_error(ini, line, "[%s] coherence_params: expected KEY=VALUE, "
					"not '%s'", section, words.v[i]);
		} else if (!p) {
			bad = 1;
			ini_check_error(ini, line, "[%s] coherence_params: '%s' is not a "
					"parameter of %s", section, key, w->def->name);
		} else if (workload_cfg_coh_value(w, key)) {
			/* the program would take one, the report's window another */
			bad = 1;
			ini_check_error(ini, line, "[%s] coherence_params: %s given twice",
					section, key);
		} else if (workload_param_check(p, eq + 1, &expected)) {
			bad = 1;
			ini_check_error(ini, line, "[%s] coherence_params: %s: expected %s, not "
					"'%s'", section, key, expected, eq + 1);
		} else {
			strvec_push(&w->coh_keys, key);
			strvec_push(&w->coh_values, eq + 1);
		}
		free(expected);
		free(key);
	}
	bad |= !words.n;
	strvec_clear(&words);
	return bad ? -1 : 0;
}

const char *workload_cfg_coh_value(const struct workload_cfg *w, const char *param)
{
	for (size_t i = 0; i < w->coh_keys.n; i++)
		if (!strcmp(w->coh_keys.v[i], param))
			return w->coh_values.v[i];
	return NULL;
}
