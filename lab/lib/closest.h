/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Did you mean": the name a mistyped word was most likely meant to be
 * (git's help.autocorrect in spirit), for commands, subcommands and
 * options.
 */
#ifndef LAB_CLOSEST_H
#define LAB_CLOSEST_H

#include <stddef.h>

/*
 * Edit distance of @a and @b: insertions, deletions, substitutions and
 * swaps of two neighbours, one each (optimal string alignment), so
 * "reprot" is 1 from "report".
 */
size_t str_edit_distance(const char *a, const char *b);

/*
 * The name of @names (@n of them) closest to @word, or NULL when none is
 * close enough to be a typo: at most 2 edits, and fewer than half the
 * name's length (so "ls" is not "gc"). A word that begins exactly one
 * name ("rep" for "report") is that name. The first of equals wins.
 */
const char *str_closest(const char *word, const char *const *names, size_t n);

#endif
