/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What lab.conf's files share: config.c (the key tables and the first
 * pass), config_check.c (the second pass), config_lookup.c (the lookups
 * on a loaded configuration) and the sections of their own files
 * (config_hosts.c, config_claim.c, config_coh.c).
 */
#ifndef LAB_CONFIG_PRIV_H
#define LAB_CONFIG_PRIV_H

#include "util.h"
#include "config.h"
#include "ini_schema.h"

/* Both passes over one lab.conf: what they fill, and where errors go. */
struct parse_ctx {
	struct lab_config *cfg;
	struct ini_check ini;		/* path, error text, keys seen */
	int run_line, stats_line, lab_line;
};

#define cfg_error(ctx, line, ...) ini_check_error(&(ctx)->ini, (line), __VA_ARGS__)

/*
 * An error about a name that refers to something lab.conf does not
 * declare, at the line that wrote the name, with the nearest name of
 * @known when one is close (config.c).
 */
void __attribute__((format(printf, 5, 6)))
config_ref_error(struct parse_ctx *ctx, int line, const struct strvec *known, const char *word,
		 const char *fmt, ...);
/* [guest NAME] and [workload NAME]: found, or added at @line (config.c). */
struct guest_cfg *config_get_guest(struct lab_config *cfg, const char *name, int line);
struct workload_cfg *config_get_workload(struct lab_config *cfg, const char *name, int line);
/* Every workload type (workload_defs), for messages and suggestions. */
void config_workload_types(struct strvec *out);
/* The second pass, once every key is read (config_check.c). */
void config_check(struct parse_ctx *ctx);

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
