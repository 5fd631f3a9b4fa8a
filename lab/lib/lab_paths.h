/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe while no thread changes the environment (getenv()).
 *
 * Where the lab's own files are. mglrulab runs from its build tree (the
 * README's `make` then `./mglrulab`), so what it built beside itself, the
 * static guest programs, is found from the executable's path, not from
 * the caller's current folder.
 */
#ifndef LAB_LAB_PATHS_H
#define LAB_LAB_PATHS_H

#include "util.h"

/* Relative to the mglrulab executable's folder (see lab_guest_bin_dir()). */
#define LAB_GUEST_BIN_SUBDIR "build/guest"

/* The running executable (/proc/self/exe): caller frees; NULL with errno set. */
LAB_MUST_CHECK
char *lab_exe_path(void);

/*
 * The folder of the static guest programs (mglrulab-runner and the
 * workloads) when no --bin-dir says otherwise: $MGLRULAB_GUEST_BIN when
 * set, else build/guest beside the executable, else "build/guest" (when
 * /proc is not there to say where the executable is). Caller frees.
 */
char *lab_guest_bin_dir(void);

#endif
