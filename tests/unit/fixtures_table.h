/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the table tests share (test_session_doc_table.c, test_result_table.c:
 * a record's field table held to reports/schema/ and reports/SCHEMA.md),
 * once (fixtures_table.c, linked into them: the Makefile). Each fails the
 * running cmocka test when it cannot do its part.
 */
#ifndef TESTS_FIXTURES_TABLE_H
#define TESTS_FIXTURES_TABLE_H

#include <jansson.h>

#include "session_doc.h"

/* The row of @t (ending in { NULL }) whose key is @key; NULL: none. */
const struct sdoc_field *fixture_row(const struct sdoc_field *t, const char *key);

/* "@where.@key", or @key at the top (@where ""); allocated. */
char *fixture_path_at(const char *where, const char *key);

/*
 * The text of the markdown @md from the line that starts with @head to the
 * next heading, allocated; NULL: no line starts with @head.
 */
char *fixture_section(const char *md, const char *head);

/* @j as JSON text indented by @indent, members in their order; allocated. */
char *fixture_dump(const json_t *j, int indent);

/* The whole file @path (up to 16 MiB), allocated; fails the test when unreadable. */
char *fixture_read_all(const char *path);

/*
 * Whether @word stands as a word inside a `code span` of the markdown
 * @text (SCHEMA.md names a member as `name`, or within `a.name`).
 */
int fixture_in_code(const char *text, const char *word);

#endif
