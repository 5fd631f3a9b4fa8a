// SPDX-License-Identifier: GPL-2.0
/* The table tests' shared helpers: fixtures_table.h. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "fixtures_table.h"
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"

const struct sdoc_field *fixture_row(const struct sdoc_field *t, const char *key)
{
	for (; t->key; t++)
		if (!strcmp(t->key, key))
			return t;
	return NULL;
}

char *fixture_path_at(const char *where, const char *key)
{
	return *where ? xasprintf("%s.%s", where, key) : xstrdup(key);
}

char *fixture_section(const char *md, const char *head)
{
	const char *p = md, *end;

	while ((p = strstr(p, head)) && p != md && p[-1] != '\n')
		p++;
	if (!p)
		return NULL;
	end = strstr(p + 1, "\n#");
	return xstrndup(p, end ? (size_t)(end - p) : strlen(p));
}

char *fixture_dump(const json_t *j, int indent)
{
	char *s = json_dumps(j, JSON_INDENT(indent) | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);

	assert_non_null(s);
	return s;
}

char *fixture_read_all(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (read_file(path, &sb, 1 << 24))
		fail_msg("cannot read %s", path);
	return sb_detach(&sb);
}

int fixture_in_code(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = strchr(text, '`'); p; p = strchr(p + 1, '`')) {
		const char *end = strchr(p + 1, '`');

		if (!end)
			break;
		for (const char *w = p + 1; w < end; w++) {
			if ((w == p + 1 || !(isalnum((unsigned char)w[-1]) || w[-1] == '_')) &&
			    (size_t)(end - w) >= n && !strncmp(w, word, n) &&
			    !(isalnum((unsigned char)w[n]) || w[n] == '_'))
				return 1;
		}
		p = end;
	}
	return 0;
}
