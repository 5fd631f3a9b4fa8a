/* SPDX-License-Identifier: GPL-2.0 */
/* Modification times in the shared work tree (see kbuild_mtime.c). */
#ifndef LAB_KBUILD_MTIME_H
#define LAB_KBUILD_MTIME_H

#include "util.h"
#include "sandbox.h"

#include <time.h>

/*
 * The tree at @tree is at commit @head, switched there from @prev_head; the
 * build folder about to be used was last built at @built_at, its build
 * ending at @built_time (0: unknown). Re-stamp the files any of these
 * states changed, and those stamped since @built_time. Returns the number
 * of files stamped, or -1 when @built_at is unknown (nothing is changed
 * then). @renewed (or NULL) gets the tree-relative paths stamped "now",
 * those whose objects make will compile again.
 */
LAB_MUST_CHECK
int kbuild_settle_mtimes(const struct sandbox_policy *sp, const char *tree,
			 const char *prev_head, const char *head,
			 const char *built_at, time_t built_time, struct strvec *renewed);
/* The commit a build folder was last built at (.mglrulab-state), or NULL. */
char *kbuild_state_read(const char *build_dir);
LAB_MUST_CHECK
int kbuild_state_write(const char *build_dir, const char *commit);

#endif
