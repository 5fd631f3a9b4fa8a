/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What kbuild.c (the work tree, the build folder and the run of one
 * build), kbuild_series.c (the series applied), kbuild_make.c (configure
 * and make) and kbuild_meta.c (the cache entry and its meta.json) share,
 * and nothing outside lab/kernel/ includes.
 */
#ifndef LAB_KBUILD_PRIV_H
#define LAB_KBUILD_PRIV_H

#include "kbuild.h"
#include "ksource.h"
#include "strbuf.h"

struct build_ctx {
	const struct lab_config *cfg;
	const struct sandbox_policy *sp;	/* &cfg->sandbox: how the tree's code runs */
	const struct kernel_cfg *k;
	struct ksource src;
	struct strvec series_text;	/* contents of each series file */
	struct strvec fragment_text;
	char *config_base;		/* base name, or the base file's contents */
	char *compiler;
	char ikey[SHA256_HEX_LEN + 1];
	char key[SHA256_HEX_LEN + 1];
	char *build_dir;
	char *log;
	struct strvec subjects;		/* applied patches, for meta.json */
	char *prev_head;		/* where the shared tree was before this build */
	int series_cut;			/* a prefix kernel short of the series' end: */
	long prefix;			/* apply only this many patches */
	enum kbuild_failure failure;	/* what failed, for the result */
	struct strbuf why;		/* what may be said of it in public (kbuild.h) */
	char *head_commit;
	double t_unpack, t_apply, t_config, t_compile;
	/* progress */
	long steps, est_steps;		/* est_steps: kbuild_settle_and_estimate()'s; 0: unknown */
	char *est_file;			/* where this build's count is kept for the next */
	const char *phase;
	double last_tick;
	int tty;
};

/*
 * A folder seeded from a sibling carries this file until its own build
 * completes. Such a folder is no seed for others: its state file is the
 * sibling's, but its .config or objects may be anything (a config check
 * that failed, an interrupted build), and copies keep the sibling's
 * timestamps, so nothing else tells them apart.
 */
#define SEEDED_MARK ".mglrulab-seeded"

/* A line of the build's progress, "[NAME] ...", unless quiet (kbuild.c). */
void kbuild_info(struct build_ctx *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The signal that stopped this build, 0 when none came (kbuild.c). */
int kbuild_stopped(void);

/* Say the build was stopped (nothing of it is in the cache): LAB_ELAB (kbuild.c). */
int kbuild_stopped_error(struct build_ctx *b);

/* The series (or its prefix) applied with git am: the status, said (kbuild_series.c). */
LAB_MUST_CHECK int kbuild_apply_series(struct build_ctx *b);

/* A prefix kernel NAME@K's cut of its series: 0, or -1 with @err (kbuild_series.c). */
LAB_MUST_CHECK int kbuild_series_prefix(struct build_ctx *b, struct strbuf *err);

/* The .config, made and verified, into @config_text: the status, said (kbuild_make.c). */
LAB_MUST_CHECK int kbuild_configure(struct build_ctx *b, struct strbuf *config_text);

/* The stamps settled and the step count estimated before make (kbuild_make.c). */
void kbuild_settle_and_estimate(struct build_ctx *b, const char *config_text);

/* make bzImage in the build folder: the status, said (kbuild_make.c). */
LAB_MUST_CHECK int kbuild_compile(struct build_ctx *b);

/* The built kernel stored as the cache entry b->key: the status, said (kbuild_meta.c). */
LAB_MUST_CHECK int kbuild_store_entry(struct build_ctx *b, const char *config_text);

#endif
