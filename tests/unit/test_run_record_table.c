// SPDX-License-Identifier: GPL-2.0
/*
 * The run record's table (run_record_fields[], run_record.c) is its one
 * definition: the published JSON Schema's "run" and reports/SCHEMA.md's
 * runs[] table must say what it says. A member added to the table and not
 * to them, or the other way round, fails here, naming it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_record.h"
#include "strbuf.h"
#include "util.h"

#define SCHEMA_JSON "reports/schema/mglrulab-report-2.schema.json"
#define SCHEMA_MD "reports/SCHEMA.md"

static size_t nr_fields(const struct run_field *t)
{
	size_t n = 0;

	while (t[n].key)
		n++;
	return n;
}

static const struct run_field *find(const struct run_field *t, const char *key)
{
	for (; t->key; t++)
		if (!strcmp(t->key, key))
			return t;
	return NULL;
}

/* The JSON type a row reads (RK_STATUS: an enum, checked apart). */
static const char *type_of(const struct run_field *f)
{
	switch (f->kind) {
	case RK_LONG: case RK_INT: return "integer";
	case RK_STRING: case RK_STRING_OR_NULL: return "string";
	case RK_BOOL: return "boolean";
	case RK_STATUS: return NULL;
	case RK_NUMBER: return "number";
	case RK_OBJECT: return "object";
	case RK_CUSTOM: return f->json_type;
	}
	return "?";
}

/* A schema's "type", string or array, as its non-null type and whether null is allowed. */
static void schema_type(const json_t *root, const json_t *prop, const char **type, int *null_ok)
{
	const json_t *t, *el;
	size_t i;

	if (json_object_get(prop, "$ref")) {
		const char *ref = json_string_value(json_object_get(prop, "$ref"));

		assert_string_equal(ref, "#/$defs/num");
		prop = json_object_get(json_object_get(root, "$defs"), "num");
	}
	t = json_object_get(prop, "type");
	*type = NULL;
	*null_ok = 0;
	if (json_is_string(t)) {
		*type = json_string_value(t);
		return;
	}
	json_array_foreach(t, i, el) {
		if (!strcmp(json_string_value(el), "null"))
			*null_ok = 1;
		else
			*type = json_string_value(el);
	}
}

/* Every row of @t against the schema object @obj (its properties and required). */
static void check_object(const json_t *root, const json_t *obj, const struct run_field *t,
			 const char *where)
{
	const json_t *props = json_object_get(obj, "properties"), *prop, *req;
	const char *key, *type;
	int null_ok;
	size_t i, nreq = 0;

	json_object_foreach((json_t *)props, key, prop)
		if (!find(t, key))
			fail_msg("%s.%s: in the schema, not in the table", where, key);
	for (const struct run_field *f = t; f->key; f++) {
		prop = json_object_get(props, f->key);
		if (!prop)
			fail_msg("%s.%s: in the table, not in the schema", where, f->key);
		if (f->kind == RK_STATUS) {
			const json_t *e = json_object_get(prop, "enum");

			assert_int_equal(json_array_size(e), 2);
			assert_string_equal(json_string_value(json_array_get(e, 0)), "ok");
			assert_string_equal(json_string_value(json_array_get(e, 1)), "failed");
		} else {
			schema_type(root, prop, &type, &null_ok);
			if (!type || strcmp(type, type_of(f)))
				fail_msg("%s.%s: the schema says %s, the table %s", where, f->key,
					 type ? type : "no type", type_of(f));
			if ((f->kind == RK_STRING_OR_NULL || f->kind == RK_NUMBER) && !null_ok)
				fail_msg("%s.%s: the table reads null, the schema has none", where, f->key);
			/* null for an optional member reads as absent; the schema may say so */
			if (null_ok && f->need == RN_REQUIRED)
				fail_msg("%s.%s: required, yet null in the schema", where, f->key);
		}
		if (f->max > f->min) {
			assert_int_equal(json_integer_value(json_object_get(prop, "minimum")), f->min);
			assert_int_equal(json_integer_value(json_object_get(prop, "maximum")), f->max);
		}
		if (f->name_max) {
			char *pat = xasprintf("^[ -~]{1,%zu}$", f->name_max);

			assert_string_equal(json_string_value(json_object_get(prop, "pattern")), pat);
			free(pat);
		}
		if (f->kind == RK_OBJECT) {
			char *sub = xasprintf("%s.%s", where, f->key);

			check_object(root, prop, f->sub, sub);
			free(sub);
		}
		nreq += f->need == RN_REQUIRED;
	}
	req = json_object_get(obj, "required");
	json_array_foreach(req, i, prop) {
		const struct run_field *f = find(t, json_string_value(prop));

		if (!f || f->need != RN_REQUIRED)
			fail_msg("%s.%s: required in the schema, not in the table", where,
				 json_string_value(prop));
	}
	assert_int_equal(json_array_size(req), nreq);
}

static void test_schema_json(void **state)
{
	json_error_t jerr;
	json_t *root = json_load_file(SCHEMA_JSON, 0, &jerr), *run, *then, *req;
	size_t i, nif = 0;
	(void)state;

	if (!root)
		fail_msg("%s: %s", SCHEMA_JSON, jerr.text);
	run = json_object_get(json_object_get(root, "$defs"), "run");
	assert_non_null(run);
	check_object(root, run, run_record_fields, "run");
	/* "if status is ok, then required": the table's RN_IF_OK rows */
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(
		json_object_get(run, "if"), "properties"), "status"), "const")), "ok");
	then = json_object_get(json_object_get(run, "then"), "required");
	json_array_foreach(then, i, req) {
		const struct run_field *f = find(run_record_fields, json_string_value(req));

		if (!f || f->need != RN_IF_OK)
			fail_msg("run.%s: required when ok in the schema, not in the table",
				 json_string_value(req));
	}
	for (const struct run_field *f = run_record_fields; f->key; f++)
		nif += f->need == RN_IF_OK;
	assert_int_equal(json_array_size(then), nif);
	json_decref(root);
}

/* The rows of SCHEMA.md's "### `runs[]`" table: "| `member` | type | req. | meaning |". */
static void test_schema_md(void **state)
{
	FILE *f = fopen(SCHEMA_MD, "r");
	char line[8192];
	int in = 0;
	size_t rows = 0;
	(void)state;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (!strcmp(line, "### `runs[]`\n")) {
			in = 1;
			continue;
		}
		if (!in || strncmp(line, "| `", 3)) {
			if (in && rows && line[0] != '|')
				break;
			continue;
		}
		char *key = line + 3, *end = strchr(key, '`');
		char *cols[4] = { NULL };
		const struct run_field *fd;

		assert_non_null(end);
		*end = 0;
		fd = find(run_record_fields, key);
		if (!fd)
			fail_msg("SCHEMA.md runs[]: `%s` is not in the table", key);
		/* the third column: "yes", "if ok" or empty */
		cols[0] = strchr(end + 1, '|');
		cols[1] = cols[0] ? strchr(cols[0] + 1, '|') : NULL;
		cols[2] = cols[1] ? strchr(cols[1] + 1, '|') : NULL;
		assert_non_null(cols[2]);
		*cols[2] = 0;
		const char *req = cols[1] + 1;

		while (*req == ' ')
			req++;
		if ((fd->need == RN_REQUIRED) != !strncmp(req, "yes", 3) ||
		    (fd->need == RN_IF_OK) != !strncmp(req, "if ok", 5))
			fail_msg("SCHEMA.md runs[]: `%s` says \"%s\" in req.", key, req);
		if (fd->kind == RK_OBJECT) {
			/* its members are named in the row's meaning */
			const char *meaning = cols[2] + 1;

			for (const struct run_field *s = fd->sub; s->key; s++) {
				char *want = xasprintf("`%s`", s->key);

				if (!strstr(meaning, want))
					fail_msg("SCHEMA.md runs[]: `%s` does not name %s", key, want);
				free(want);
			}
		}
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, nr_fields(run_record_fields));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_json),
		cmocka_unit_test(test_schema_md),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
