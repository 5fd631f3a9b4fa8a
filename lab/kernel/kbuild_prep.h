/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel build folder configured and through `make prepare`, made
 * natively on the host for kernel_build runs in TCG guests.
 *
 * Why: in a TCG guest every compiler start costs about half a second and
 * Kconfig plus `make prepare` start it hundreds of times (tinyconfig alone
 * took 513 s of guest time). Made here once, in seconds, and copied into
 * each run's guest with its timestamps, the folder lets the guest's
 * measured make compile only the objects it was asked for.
 *
 * The folder lives in <cache>/prepared/<key>, the key covering the work
 * tree's commit and path, the compiler and the .config. Every call runs
 * `make prepare` again (a no-op when nothing changed), so the folder is
 * current for the tree as it is now. kbuild records absolute paths: the
 * guest must see the tree and the folder at the paths written into
 * <folder>/.mglrulab-prepared ("srctree PATH", "objtree PATH").
 *
 * The folder also holds .mglrulab-make-env: the environment the top-level
 * Makefile exports to its per-directory sub-makes (scripts/Makefile.build),
 * recorded from a real native build of one object, NUL-separated. With it
 * the guest runs kbuild's per-directory build directly: the top level's
 * checks and compiler probes start about 700 processes, which under TCG
 * took 270 s of guest time for a single object.
 */
#ifndef LAB_KBUILD_PREP_H
#define LAB_KBUILD_PREP_H

#include "util.h"
#include "config.h"
#include "strbuf.h"

#include <stddef.h>

/*
 * Prepare (or refresh) the folder for work tree @tree and the .config at
 * @config_path; make's output goes to @log_path. LAB_OK with the folder's
 * real path in *@dir_out (free it), or LAB_ELAB with the message printed.
 */
LAB_MUST_CHECK
int kbuild_prepare_dir(const struct lab_config *cfg, const char *tree, const char *config_path,
		       const char *log_path, char **dir_out);
/*
 * Is @dir, exactly as written, a folder kbuild_prepare_dir() gives out:
 * the real path of an existing <cache>/prepared/<key>? 1 or 0.
 */
int kbuild_prepared_dir_is(const struct lab_config *cfg, const char *dir);

/*
 * The recorder make runs as $(MAKE) while the environment is recorded:
 * `mglrulab __make-recorder ARGS...` writes its environment and arguments
 * under $MGLRULAB_MAKE_RECORD, then becomes `make ARGS...`.
 */
#define KBUILD_MAKE_RECORDER "__make-recorder"
LAB_MUST_CHECK
int kbuild_make_recorder(int argc, char **argv);

/*
 * One record of the recorder is NUL-terminated strings: the working
 * folder, make's arguments, "--env--", the environment. If it is the
 * sub-make that built lib/ctype.o with scripts/Makefile.build (obj=lib),
 * append its environment without the recorder's traces (MAKE, the
 * MAKE=... override in MAKEFLAGS, MGLRULAB_MAKE_RECORD) to @out,
 * NUL-separated, and return 0; else -1.
 */
LAB_MUST_CHECK
int kbuild_make_env_pick(const char *rec, size_t len, struct strbuf *out);

#endif
