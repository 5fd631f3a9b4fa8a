/* SPDX-License-Identifier: GPL-2.0 */
/* What config.c shares with its other files (config_hosts.c). */
#ifndef LAB_CONFIG_PRIV_H
#define LAB_CONFIG_PRIV_H

#include "util.h"
#include "config.h"
#include "ini_schema.h"

/* A section name: letters, digits, '-', '_' or '.'. */
int config_valid_name(const char *name);

/* [host NAME] */
struct host_cfg *config_get_host(struct lab_config *cfg, const char *name, int line);
/* One key of [host NAME]: set and checked (0, or -1 with the error recorded). */
LAB_MUST_CHECK
int config_host_key(struct ini_check *ini, struct host_cfg *h, const char *section,
		    const char *key, const char *value, int line);
/*
 * After the parse: [run] hosts against the sections (or the implicit
 * host), each host's values, and what two hosts must not share.
 * @run_line: the [run] header's line (1 without one).
 */
void config_check_hosts(struct lab_config *cfg, struct ini_check *ini, int run_line);
void config_free_hosts(struct lab_config *cfg);

/*
 * [claim] (config_claim.c): one key of it, and its checks once the file is
 * read (mechanism and direction given; the workload and metric it names
 * are the lab's). Errors name the file and line, as every key's.
 */
LAB_MUST_CHECK
int config_claim_key(struct ini_check *ini, struct claim_cfg *c, const char *key,
		     const char *value, int line);
void config_check_claim(struct ini_check *ini, const struct lab_config *cfg);
void claim_cfg_release(struct claim_cfg *c);

/*
 * [run] coherence (config_coh.c): off, changed or all, or names of [run]
 * workloads (each an error at its line when it is not one). @run_line:
 * the [run] header's line (1 without one).
 */
void config_check_coherence(struct ini_check *ini, struct lab_config *cfg, int run_line);
/*
 * [workload NAME] coherence_params = KEY=VALUE ... (config_coh.c): each
 * KEY a parameter of the workload, each VALUE checked as lab.conf's own;
 * 0, or -1 with the error recorded at @line.
 */
LAB_MUST_CHECK
int config_workload_coh_params(struct ini_check *ini, struct workload_cfg *w,
			       const char *section, const char *value, int line);

#endif
