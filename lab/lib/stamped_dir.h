/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a command that writes a folder of reports shares with the others
 * (the session's reports/<id>/, the bisection's <stamp>-bisect/): a free
 * name stamped with the time, the "latest" link to it replaced
 * atomically, and stdout kept for the summary while everything else goes
 * to stderr.
 */
#ifndef LAB_STAMPED_DIR_H
#define LAB_STAMPED_DIR_H

/*
 * The first "<UTC stamp>-@what" (then "-1", "-2", ... up to 99) in
 * @parent that does not exist, as a path; NULL when none is free. Its
 * name alone is path_basename() of it. Nothing is created.
 */
char *stamped_dir_free(const char *parent, const char *what);

/*
 * @parent/@link -> @target (a name in @parent), through a temporary link
 * renamed over it, so that a reader never sees it missing; a warning when
 * it cannot be made.
 */
void stamped_dir_link(const char *parent, const char *link, const char *target);

/*
 * stdout onto stderr, until stdout_restore(): builds and sessions talk on
 * stderr, and stdout carries only the summary printed at the end. The
 * saved stdout, or -1 (stdout then stays where it is).
 */
int stdout_to_stderr(void);
/* stdout back from *@saved (>= 0), which is closed and set to -1; nothing when -1. */
void stdout_restore(int *saved);

#endif
