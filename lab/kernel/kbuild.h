/* SPDX-License-Identifier: GPL-2.0 */
/* Build one [kernel NAME] into the cache, or find it there. */
#ifndef LAB_KBUILD_H
#define LAB_KBUILD_H

#include "util.h"

#include <jansson.h>

#include "config.h"
#include "ksource.h"
#include "sha256.h"

/* What stopped a build whose inputs are to blame (not the lab, not a signal). */
enum kbuild_failure {
	KBUILD_FAIL_NONE,
	KBUILD_FAIL_APPLY,	/* a patch of the series does not apply */
	KBUILD_FAIL_CONFIG,	/* configuring failed, or dropped a fragment's option */
	KBUILD_FAIL_COMPILE,	/* make bzImage failed */
	KBUILD_FAIL_TIMEOUT,	/* a step ran past [lab] build_timeout */
};

struct kbuild_result {
	char key[SHA256_HEX_LEN + 1];
	char *entry_dir;	/* <cache>/entries/<key> */
	char *bzimage;		/* <entry_dir>/bzImage */
	int cache_hit;
	int build_failed;	/* the inputs make no kernel (a failure but APPLY):
				   a bisection skips such a prefix */
	enum kbuild_failure failure;
	/*
	 * With a failure: what may be said of it in public (a reply to the
	 * list, a page): the patch and hunk git named, the first error the
	 * log names at a file and line inside the tree, or the limit that
	 * stopped it. Never a host path or a line of a file outside the tree
	 * (kbuild_public_error()). NULL otherwise.
	 */
	char *public_reason;
	double seconds;
	long long image_size;
	int hold_fd;		/* the entry held (kcache_entry_hold()) until
				   kbuild_result_release(); -1: not held */
};

/*
 * Build @k (or take it from the cache). Returns LAB_OK, LAB_EUSER (the
 * series does not apply, a fragment option was dropped, bad input) or
 * LAB_ELAB (the build failed, or SIGINT/SIGTERM stopped it); the message
 * has already been printed. On LAB_OK the entry is held (kcache.h) until
 * kbuild_result_release(): `kernel gc` leaves it alone meanwhile.
 *
 * A signal caught by lab/lib/interrupt.h stops make and everything it
 * started, and waits for them, before build.lock is let go; nothing is
 * cached ("interrupted: [kernel NAME] build stopped by signal N, nothing
 * cached"), and the build folder keeps what was compiled for the next
 * build.
 */
LAB_MUST_CHECK
int kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
		  struct kbuild_result *res);
/* The entry @k resolves to without building: 0 and @key, or -1 when unknown. */
LAB_MUST_CHECK
int kbuild_lookup(const struct lab_config *cfg, const struct kernel_cfg *k,
		  char key[SHA256_HEX_LEN + 1]);
void kbuild_result_release(struct kbuild_result *res);
struct patch;
/*
 * Apply @p (one message of a series, mbox.h) in the git work tree @tree as
 * a commit, under the lab's git environment (lab_git_env): a mail with
 * `git am --patch-format=mboxrd`, alone in @tmpfile and quoted by
 * mbox_quote_rd() so that git cannot cut it in two; a bare diff with `git
 * apply --index` and a commit named after its file. Returns 0, or -1 with
 * git's output (or why @tmpfile could not be written) in @out. After a
 * failed git am the tree is mid-am: the caller aborts it. git runs in the
 * sandbox @sp (ksource_git()), the mail on its standard input.
 */
LAB_MUST_CHECK
int kbuild_apply_patch(const struct sandbox_policy *sp, const char *tree, const struct patch *p,
		       const char *tmpfile, struct strbuf *out);

/*
 * From the build log @log of the tree @tree built in @build_dir, what may
 * be said in public of a failed step @what: the first line that reads as
 * an error at FILE:LINE with FILE inside the tree (or the build folder),
 * both shown relative to it, and in which no other absolute path stands;
 * else only @what. Appended to @out, one line, filtered as text.
 */
void kbuild_public_error(const char *log, const char *tree, const char *build_dir,
			 const char *what, struct strbuf *out);
/* The patches of @k's series, cover letters not counted; -1 with @err. */
LAB_MUST_CHECK
long kbuild_series_length(const struct kernel_cfg *k, struct strbuf *err);
/*
 * The progress of a build: "312/~1422 steps, 40s, ETA 2m10s" when @est
 * (the step count of the last build of the same config) is known, else
 * "312 steps, 40s".
 */
void kbuild_progress_format(char *buf, size_t len, long steps, long est, double elapsed);

/* What a cache entry's meta.json records about its build. */
struct kbuild_meta {
	const char *key, *input_key, *name;
	const struct ksource *src;
	const struct strvec *series, *series_text;	/* files and their contents */
	const struct strvec *subjects;			/* of the applied patches */
	const struct strvec *fragments, *fragment_text;
	const char *config_base, *config_sha256, *compiler, *head_commit;
	double t_unpack, t_apply, t_config, t_compile;
	long long image_size;
	const char *image_sha256, *built_at, *build_dir;
};

/*
 * meta.json as JSON. Patch subjects may be Latin-1, and paths and the
 * compiler's banner any bytes: they go in with U+FFFD for invalid UTF-8
 * (json_string_lossy()), never dropped. NULL only when jansson fails
 * otherwise (out of memory), with the reason in @jerr.
 */
LAB_MUST_CHECK
json_t *kbuild_meta_json(const struct kbuild_meta *m, json_error_t *jerr);

/*
 * Take the cache's build lock (waiting for it): everything that runs make
 * in the shared work tree holds it. LAB_OK with the descriptor to close in
 * @fd_out, or LAB_ELAB (message printed).
 */
LAB_MUST_CHECK
int kbuild_lock(const char *cache_dir, int *fd_out);

/*
 * Options a fragment requests: "CONFIG_X=y" lines and "# CONFIG_X is not
 * set" (value "n"). Later fragments override earlier ones. Compare with a
 * merged .config; every mismatch is appended to @dropped as one line
 * "CONFIG_X: requested y, got n (not set)". Returns the number of mismatches.
 */
int kconfig_verify(const char *const *fragments, size_t n, const char *config_text,
		   struct strbuf *dropped);

#endif
