// SPDX-License-Identifier: GPL-2.0
/*
 * Commands and subcommands from one table of names each (cmd.h): the
 * lookup and the error that lists them, with "did you mean" for a typo.
 */
#include "cmd.h"
#include "closest.h"
#include "strbuf.h"

#include <string.h>

int cmd_select(const char *const *names, const char *word)
{
	for (int i = 0; word && names[i]; i++)
		if (!strcmp(names[i], word))
			return i;
	return -1;
}

static size_t count_names(const char *const *names)
{
	size_t n = 0;

	while (names[n])
		n++;
	return n;
}

int cmd_select_error(const char *what, const char *const *names, const char *word)
{
	size_t n = count_names(names);
	const char *close = str_closest(word, names, n);
	struct strbuf list = STRBUF_INIT, hint = STRBUF_INIT;
	int r;

	for (size_t i = 0; i < n; i++)
		sb_addf(&list, "%s%s", i ? (i + 1 < n ? ", " : " or ") : "", names[i]);
	if (close)
		sb_addf(&hint, ": did you mean '%s'?", close);
	if (what)
		r = user_error("%s: unknown subcommand '%s'%s (%s)", what, word, sb_str(&hint),
			       sb_str(&list));
	else
		r = user_error("'%s' is not a mglrulab command%s (see 'mglrulab help')", word,
			       sb_str(&hint));
	sb_release(&list);
	sb_release(&hint);
	return r;
}
