/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Copy a folder (files, folders, symlinks) keeping modes and modification
 * times. Why the times: a kernel build folder prepared elsewhere is only
 * "up to date" for make while every file keeps its timestamp relative to
 * the sources; a plain copy would make everything look new and rebuild it.
 */
#ifndef WL_COPYTREE_H
#define WL_COPYTREE_H

#include <stddef.h>

/*
 * Copy the contents of @src into the existing folder @dst. 0, or -1 with
 * the failing path and reason in @why. Not thread-safe (nftw has no
 * context argument).
 */
int wl_copy_tree(const char *src, const char *dst, char *why, size_t whylen);

#endif
