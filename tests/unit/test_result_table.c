// SPDX-License-Identifier: GPL-2.0
/*
 * The result record's table (result_record_fields[], report_result.c) is
 * its one definition: the published JSON Schema's result item and
 * reports/SCHEMA.md's results section must say what it says (a member in
 * one and not the other fails here, naming it), and real reports' results,
 * as the lab writes them, decode and encode again byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures_table.h"
#include "fsutil.h"
#include "report.h"
#include "report_result.h"
#include "session_doc.h"
#include "strbuf.h"
#include "util.h"

#define SCHEMA_JSON "reports/schema/mglrulab-report-2.schema.json"
#define SCHEMA_MD "reports/SCHEMA.md"

/* The JSON type a row writes, and whether it writes null. */
static const char *type_of(const struct sdoc_field *f, int *null)
{
	*null = f->kind == SK_NUMBER_OR_NULL || (f->kind == SK_STRING_OR_NULL && !f->when) ||
		(f->kind == SK_OBJECT && f->or_null);
	switch (f->kind) {
	case SK_STRING: case SK_STRING_OR_NULL: case SK_TEXT: return "string";
	case SK_INT: case SK_LONG: case SK_COUNT: return "integer";
	case SK_INT_NUMBER: case SK_NUMBER: case SK_NUMBER_OR_NULL: return "number";
	case SK_BOOL: case SK_FLAG: return "boolean";
	case SK_OBJECT: return "object";
	case SK_JSON: case SK_CODEC: return f->json_type;
	case SK_ARRAY: return "array";
	case SK_MAP: return "object";
	}
	return "?";
}

/* $defs/NAME of a "$ref", else @prop itself. */
static const json_t *deref(const json_t *root, const json_t *prop)
{
	const char *ref = json_string_value(json_object_get(prop, "$ref"));

	if (!ref)
		return prop;
	assert_true(!strncmp(ref, "#/$defs/", 8));
	prop = json_object_get(json_object_get(root, "$defs"), ref + 8);
	assert_non_null(prop);
	return prop;
}

/* A schema property's type (an enum of strings is a string), and whether null is one. */
static const char *schema_type(const json_t *prop, int *null)
{
	const json_t *t = json_object_get(prop, "type"), *el;
	const char *type = NULL;
	size_t i;

	*null = 0;
	if (json_is_string(json_array_get(json_object_get(prop, "enum"), 0)))
		return "string";
	if (json_is_string(t))
		return json_string_value(t);
	json_array_foreach(t, i, el) {
		if (!strcmp(json_string_value(el), "null"))
			*null = 1;
		else
			type = json_string_value(el);
	}
	return type;
}

/* Whether row @f is written whatever its value: no when(), a kind that is never left out. */
static int always(const struct sdoc_field *f)
{
	if (f->when)
		return 0;
	switch (f->kind) {
	case SK_LONG: case SK_COUNT: case SK_FLAG: case SK_TEXT: case SK_CODEC:
	case SK_NUMBER_OR_NULL: case SK_STRING_OR_NULL:
		return 1;
	case SK_OBJECT: return !f->has_present || f->or_null;
	default: return f->need == SN_REQUIRED;	/* a decoder refuses it absent */
	}
}

/*
 * Every row of @t against the schema object @obj, both ways: its members,
 * their types and null; what the schema requires is written always.
 */
static void check_object(const json_t *root, const json_t *obj, const struct sdoc_field *t,
			 const char *where)
{
	const json_t *props = json_object_get(obj, "properties"), *prop, *req;
	const char *key, *type, *want;
	int null, tnull;
	size_t i;

	json_object_foreach((json_t *)props, key, prop)
		if (!fixture_row(t, key))
			fail_msg("%s: in the schema, not in the table", fixture_path_at(where, key));
	for (const struct sdoc_field *f = t; f->key; f++) {
		char *here = fixture_path_at(where, f->key);

		want = type_of(f, &tnull);
		prop = json_object_get(props, f->key);
		if (!prop)
			fail_msg("%s: in the table, not in the schema", here);
		prop = deref(root, prop);
		type = schema_type(prop, &null);
		if (!type || strcmp(type, want))
			fail_msg("%s: the schema says %s, the table %s", here, type ? type : "no type",
				 want);
		if (tnull != null)
			fail_msg("%s: the table %s null, the schema %s", here,
				 tnull ? "writes" : "never writes", null ? "allows it" : "does not");
		if (f->kind == SK_OBJECT)
			check_object(root, prop, f->sub, here);
		free(here);
	}
	req = json_object_get(obj, "required");
	json_array_foreach(req, i, prop) {
		const struct sdoc_field *f = fixture_row(t, json_string_value(prop));

		if (f && !always(f))
			fail_msg("%s: required in the schema, not always written",
				 fixture_path_at(where, json_string_value(prop)));
	}
}

static void test_schema_json(void **state)
{
	json_error_t jerr;
	json_t *root = json_load_file(SCHEMA_JSON, 0, &jerr);
	const json_t *props;
	(void)state;

	if (!root)
		fail_msg("%s: %s", SCHEMA_JSON, jerr.text);
	props = json_object_get(root, "properties");
	/* results and counter_results: arrays of the one item */
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(props, "results"), "items"), "$ref")), "#/$defs/result");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(props, "counter_results"), "items"), "$ref")), "#/$defs/result");
	check_object(root, deref(root, json_object_get(json_object_get(props, "results"), "items")),
		     result_record_fields, "");
	json_decref(root);
}

/* --- reports/SCHEMA.md --- */

/* Every row of @t named in @text, the objects' members too. */
static void check_named(const char *text, const struct sdoc_field *t, const char *where)
{
	for (const struct sdoc_field *f = t; f->key; f++) {
		char *here = fixture_path_at(where, f->key);

		if (!fixture_in_code(text, f->key))
			fail_msg("SCHEMA.md: %s is not named in the results section", here);
		if (f->kind == SK_OBJECT)
			check_named(text, f->sub, here);
		free(here);
	}
}

/*
 * Each item of the section's lists that begins with a `name` names a
 * member: "- `warnings[]`: ...", "  - `pooled`: ...".
 */
static void check_items(const char *text)
{
	for (const char *p = strstr(text, "\n"); p; p = strstr(p + 1, "\n")) {
		const char *q = p + 1;
		char *name;
		size_t n;

		while (*q == ' ')
			q++;
		if (strncmp(q, "- `", 3))
			continue;
		q += 3;
		n = strcspn(q, "`[");
		name = xstrndup(q, n);
		if (!fixture_row(result_record_fields, name))
			fail_msg("SCHEMA.md: the results section's `%s` is not in the table", name);
		free(name);
	}
}

static void test_schema_md(void **state)
{
	char *md = fixture_read_all(SCHEMA_MD);
	char *text = fixture_section(md, "### `results[]` and `counter_results[]`");
	(void)state;

	assert_non_null(text);
	check_named(text, result_record_fields, "");
	check_items(text);
	free(text);
	free(md);
}

/* --- real reports --- */

/*
 * The report of @name as the lab writes it, read back from its text: each
 * element of results and counter_results decoded and encoded again is the
 * element, byte for byte.
 */
static void round_trip(const char *name)
{
	char *path = xasprintf("tests/fixtures/reports/%s", name), *text;
	static const char *const members[] = { "results", "counter_results" };
	struct strbuf err = STRBUF_INIT;
	json_t *s = NULL, *r, *back;
	size_t nres = 0;

	if (report_load(path, &s, &err) || !(r = report_analyze(s, &err)))
		fail_msg("%s: %s", path, sb_str(&err));
	text = fixture_dump(r, 2);
	back = json_loads(text, 0, NULL);
	assert_non_null(back);
	for (size_t m = 0; m < ARRAY_SIZE(members); m++) {
		const json_t *a = json_object_get(back, members[m]), *el;
		size_t i;

		json_array_foreach(a, i, el) {
			struct result_record rec;
			json_t *again;
			char *want = fixture_dump(el, 2), *got;

			if (result_record_decode(el, &rec, &err))
				fail_msg("%s %s[%zu]: %s", name, members[m], i, sb_str(&err));
			again = result_record_encode(&rec);
			got = fixture_dump(again, 2);
			if (strcmp(got, want))
				fail_msg("%s %s[%zu]: encoded again, it differs:\n%s\nfor\n%s", name,
					 members[m], i, got, want);
			nres++;
			free(got);
			free(want);
			json_decref(again);
			result_record_release(&rec);
		}
	}
	assert_true(nres > 0);
	free(text);
	json_decref(back);
	json_decref(r);
	json_decref(s);
	sb_release(&err);
	free(path);
}

static void test_round_trip(void **state)
{
	(void)state;
	round_trip("session-ab.json");		/* A/B, counters */
	round_trip("session-one.json");		/* one kernel: no verdicts */
	round_trip("session-small.json");
	round_trip("nightly-a.json");
	round_trip("nightly-b.json");
}

/* A counter's members are a counter's: "counter", group, name, change; no unit, no verdict. */
static void test_counter_rows(void **state)
{
	struct result_record rec;
	json_t *j;
	(void)state;

	result_record_clear(&rec);
	rec.workload = "w";
	rec.metric = "vmstat.pgfault";
	rec.is_counter = 1;
	rec.group = "vmstat";
	rec.name = "pgfault";
	rec.change_id = "increase";
	rec.verdict_id = "improvement";	/* set too, as the decoder sets it: not written */
	j = result_record_encode(&rec);
	assert_string_equal(json_string_value(json_object_get(j, "counter")), "vmstat.pgfault");
	assert_string_equal(json_string_value(json_object_get(j, "change")), "increase");
	assert_null(json_object_get(j, "metric"));
	assert_null(json_object_get(j, "unit"));
	assert_null(json_object_get(j, "verdict"));
	assert_null(json_object_get(j, "marker"));
	assert_true(json_is_boolean(json_object_get(j, "final")));
	json_decref(j);
	result_record_release(&rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_json),
		cmocka_unit_test(test_schema_md),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_counter_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
