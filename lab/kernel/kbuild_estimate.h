/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many steps (Kbuild's quiet lines: CC, AR, LD ...) a build will print,
 * for the progress line's total and ETA before a build like it was timed.
 *
 * kbuild_estimate_steps(): a first build of a configured tree, before any
 * build of that config has been timed. Read from the tree's Kbuild files,
 * not by running make: the directories the config descends
 * into (one AR each) and the objects it compiles there (one CC or AS
 * each, a composite object's parts and its link), plus the steps every
 * build has (host tools, headers, the final link and image).
 *
 * An estimate: conditionals (ifdef, ifeq) are not evaluated, so both of
 * their branches count, and objects named through make variables are not
 * counted. On linux-source-6.12 with the lab's tinyconfig and fragment it
 * gave 1,774 steps for a build of 1,792 (and 3,773 for
 * x86_64 defconfig, whose build was not timed). Never a reason to fail a build:
 * 0 means "no estimate".
 *
 * kbuild_estimate_rebuild(): an incremental build, from the dependency
 * lists the last build left (below).
 *
 * Thread-safe: no state.
 */
#ifndef LAB_KBUILD_ESTIMATE_H
#define LAB_KBUILD_ESTIMATE_H

#include <stddef.h>

/* Steps every build prints besides its objects and directories (measured, 6.12). */
#define KBUILD_FIXED_STEPS	130

/*
 * The steps a build of source tree @tree with the merged .config
 * @config_text for architecture @srcarch ("x86") would print; 0 when the
 * tree has no Kbuild to read.
 */
long kbuild_estimate_steps(const char *tree, const char *config_text, const char *srcarch);

/*
 * Steps of an incremental build that are not compiles or archives: the
 * config sync, objtool's check, vmlinux.a, vmlinux and System.map, the
 * compressed image and bzImage (6.12, tinyconfig and the lab fragment: 31
 * steps for a change to kernel/sched/syscalls.c, which recompiles
 * build_policy.o and archives three built-in.a).
 */
#define KBUILD_RELINK_STEPS	27
/*
 * The first build in a folder seeded from a sibling's also rebuilds
 * objtool and its libsubcmd, whose dependency files name the sibling's
 * folder (57 steps for a change to mm/vmscan.c: 1 + 2 + 27 + 27).
 */
#define KBUILD_SEEDED_STEPS	27

/*
 * The steps an incremental build in @build_dir (built before, its objects'
 * .NAME.o.cmd files in place) will print when the files @changed (paths
 * relative to the source tree @tree, which the .cmd files name absolutely)
 * are newer than its objects: one per object whose source or dependency
 * list names one of them, one per built-in.a archived again (their folders
 * and every folder above), and the relink. 0 when nothing would recompile
 * or @build_dir has no .cmd files: no estimate.
 *
 * Exact in what it counts where the last build's dependency lists are
 * (Kbuild's fixdep output); a change to the config, the Makefiles or a
 * generated header is not seen. About 1,500 files read for the lab's
 * kernel, a fraction of a second from the page cache.
 */
long kbuild_estimate_rebuild(const char *build_dir, const char *tree, const char *const *changed,
			     size_t nchanged);

#endif
