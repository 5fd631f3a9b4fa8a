// SPDX-License-Identifier: GPL-2.0
/*
 * [run] coherence (docs/coherence.md): which workloads get coherence runs
 * after the verdicts. One of off, changed (those whose primary changed)
 * or all; or the names of the workloads to run it for whatever their
 * verdicts, since a run costs several plain ones and the model's effect
 * is one the verdicts cannot see: the demo names its shared-mm workload
 * and its control. A name that is not one of [run] workloads is an error
 * at the line that wrote it.
 */
#include "config_priv.h"

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
