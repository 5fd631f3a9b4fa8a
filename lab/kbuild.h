/* SPDX-License-Identifier: GPL-2.0 */
/* Build one [kernel NAME] into the cache, or find it there. */
#ifndef LAB_KBUILD_H
#define LAB_KBUILD_H

#include "config.h"
#include "sha256.h"

struct kbuild_result {
	char key[SHA256_HEX_LEN + 1];
	char *entry_dir;	/* <cache>/entries/<key> */
	char *bzimage;		/* <entry_dir>/bzImage */
	int cache_hit;
	double seconds;
	long long image_size;
};

/*
 * Build @k (or take it from the cache). Returns LAB_OK, LAB_EUSER (the
 * series does not apply, a fragment option was dropped, bad input) or
 * LAB_ELAB (the build failed); the message has already been printed.
 */
int kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
		  struct kbuild_result *res);
/* The entry @k resolves to without building: 0 and @key, or -1 when unknown. */
int kbuild_lookup(const struct lab_config *cfg, const struct kernel_cfg *k,
		  char key[SHA256_HEX_LEN + 1]);
void kbuild_result_free(struct kbuild_result *res);

/*
 * Take the cache's build lock (waiting for it): everything that runs make
 * in the shared work tree holds it. LAB_OK with the descriptor to close in
 * @fd_out, or LAB_ELAB (message printed).
 */
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
