// SPDX-License-Identifier: GPL-2.0
/*
 * session.json's table (session_doc_fields[], lab/report/session_doc.c)
 * is its one definition: the published JSON Schema and reports/SCHEMA.md
 * must say what it says (a member added to the table and not to them, or
 * to them and not to the table, fails here, naming it); real session.json
 * files, as the lab wrote them, decode and encode again byte for byte; a
 * member of the wrong type is refused by its path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fixtures_table.h"
#include "fsutil.h"
#include "session_doc.h"
#include "strbuf.h"
#include "util.h"

#define SCHEMA_JSON "reports/schema/mglrulab-report-2.schema.json"
#define SCHEMA_MD "reports/SCHEMA.md"
#define FIXTURES "tests/fixtures/session/"

/* The JSON type a row reads, and whether it reads null as a value. */
static const char *type_of(const struct sdoc_field *f, int *null_ok)
{
	*null_ok = f->kind == SK_STRING_OR_NULL || f->kind == SK_NUMBER_OR_NULL;
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

/* A schema property's type (a "const" string is a string), and whether null is one. */
static const char *schema_type(const json_t *root, const json_t *prop, int *null_ok)
{
	const json_t *t, *el;
	const char *type = NULL;
	size_t i;

	if (json_object_get(prop, "$ref")) {
		assert_string_equal(json_string_value(json_object_get(prop, "$ref")), "#/$defs/num");
		prop = json_object_get(json_object_get(root, "$defs"), "num");
	}
	*null_ok = 0;
	if (json_is_string(json_object_get(prop, "const")) ||
	    json_is_string(json_array_get(json_object_get(prop, "enum"), 0)))
		return "string";
	t = json_object_get(prop, "type");
	if (json_is_string(t))
		return json_string_value(t);
	json_array_foreach(t, i, el) {
		if (!strcmp(json_string_value(el), "null"))
			*null_ok = 1;
		else
			type = json_string_value(el);
	}
	return type;
}

/*
 * Every row of @t against the schema object @obj: its type, null and
 * required. @whole: the schema has no member the table lacks (the top
 * level has the report's own members besides, runs and results).
 */
static void check_object(const json_t *root, const json_t *obj, const struct sdoc_field *t,
			 const char *where, int whole)
{
	const json_t *props = json_object_get(obj, "properties"), *prop, *req;
	const char *key, *type;
	int null_ok, tnull;
	size_t i, nreq = 0, nreq_ours = 0;

	json_object_foreach((json_t *)props, key, prop)
		if (whole && !fixture_row(t, key))
			fail_msg("%s: in the schema, not in the table", fixture_path_at(where, key));
	for (const struct sdoc_field *f = t; f->key; f++) {
		const char *want = type_of(f, &tnull);
		char *here = fixture_path_at(where, f->key);

		prop = json_object_get(props, f->key);
		if (!prop)
			fail_msg("%s: in the table, not in the schema", here);
		type = schema_type(root, prop, &null_ok);
		if (!type || strcmp(type, want))
			fail_msg("%s: the schema says %s, the table %s", here, type ? type : "no type",
				 want);
		if (tnull != null_ok)
			fail_msg("%s: the table %s null, the schema %s", here,
				 tnull ? "writes" : "never writes", null_ok ? "allows it" : "does not");
		if (f->kind == SK_OBJECT)
			check_object(root, prop, f->sub, here, 1);
		/* an array of objects: the schema's items are the row's table */
		if (f->kind == SK_ARRAY) {
			char *item = xasprintf("%s[]", here);

			if (!json_object_get(json_object_get(prop, "items"), "properties"))
				fail_msg("%s: the schema does not say its members", item);
			check_object(root, json_object_get(prop, "items"), f->sub, item, 1);
			free(item);
		}
		nreq_ours += f->need == SN_REQUIRED;
		free(here);
	}
	req = json_object_get(obj, "required");
	json_array_foreach(req, i, prop) {
		const struct sdoc_field *f = fixture_row(t, json_string_value(prop));

		if ((f && f->need != SN_REQUIRED) || (!f && whole))
			fail_msg("%s: required in the schema, not in the table",
				 fixture_path_at(where, json_string_value(prop)));
		nreq += f != NULL;
	}
	if (nreq != nreq_ours)
		fail_msg("%s: %zu members required in the table, %zu of them in the schema",
			 *where ? where : "the top level", nreq_ours, nreq);
}

static void test_schema_json(void **state)
{
	json_error_t jerr;
	json_t *root = json_load_file(SCHEMA_JSON, 0, &jerr);
	(void)state;

	if (!root)
		fail_msg("%s: %s", SCHEMA_JSON, jerr.text);
	check_object(root, root, session_doc_fields, "", 0);
	json_decref(root);
}

/* --- reports/SCHEMA.md --- */

/* The line of the markdown table row "| `@key` |" in @md; NULL: none. */
static char *table_row(const char *md, const char *key)
{
	char *want = xasprintf("\n| `%s` |", key);
	const char *p = strstr(md, want);

	free(want);
	return p ? xstrndup(p + 1, strcspn(p + 1, "\n")) : NULL;
}

/* Every member of @f's object named in its SCHEMA.md text, nested objects too. */
static void check_named(const char *text, const struct sdoc_field *f, const char *where)
{
	for (const struct sdoc_field *s = f->sub; s->key; s++) {
		if (!fixture_in_code(text, s->key))
			fail_msg("SCHEMA.md: %s.%s is not named", where, s->key);
		if (s->kind == SK_OBJECT || s->kind == SK_ARRAY) {
			char *sub = xasprintf("%s.%s", where, s->key);

			check_named(text, s, sub);
			free(sub);
		}
	}
}

/* A table's rows in @text: each first column's `names` must be members of @t. */
static void check_table_rows(const char *text, const struct sdoc_field *t, const char *where)
{
	for (const char *p = strstr(text, "\n| `"); p; p = strstr(p + 1, "\n| `")) {
		const char *end = strchr(p + 3, '|');

		for (const char *q = strchr(p + 3, '`'); q && q < end; q = strchr(q + 1, '`')) {
			const char *close = strchr(q + 1, '`');
			char *name = xstrndup(q + 1, (size_t)(close - q - 1));

			if (!fixture_row(t, name))
				fail_msg("SCHEMA.md: %s.%s is not in the table", where, name);
			free(name);
			q = close;
		}
	}
}

static void test_schema_md(void **state)
{
	char *md = fixture_read_all(SCHEMA_MD);
	char *top = fixture_section(md, "## Top level");
	char *files = strstr(md, "also holds `session.json`");
	(void)state;

	assert_non_null(top);
	assert_non_null(files);
	/* the paragraph on session.json: the members it has beside the report's */
	files = xstrndup(files, strstr(files, "\n\n") ? (size_t)(strstr(files, "\n\n") - files) :
			 strlen(files));
	for (const struct sdoc_field *f = session_doc_fields; f->key; f++) {
		char *head = xasprintf(f->kind == SK_ARRAY ? "### `%s[]`" : "### `%s`", f->key);
		char *text = fixture_section(md, head), *row = table_row(top, f->key);

		/* a member of the report's top level, or of session.json's alone */
		if (!row && !fixture_in_code(files, f->key))
			fail_msg("SCHEMA.md: `%s` is not a row of the top level", f->key);
		if (f->kind == SK_OBJECT) {
			/* its own section, else its row's meaning ("{name, version}") */
			if (!text && !row)
				fail_msg("SCHEMA.md: `%s` has neither a section nor a row", f->key);
			check_named(text ? text : row, f, f->key);
			if (text && strstr(text, "\n| `"))
				check_table_rows(text, f->sub, f->key);
		}
		/* an array of objects: its section, else what session.json's paragraph says */
		if (f->kind == SK_ARRAY)
			check_named(text ? text : files, f, f->key);
		free(head);
		free(text);
		free(row);
	}
	free(files);
	free(top);
	free(md);
}

/* --- real files --- */

/*
 * @name as the lab wrote it, decoded and encoded again: byte for byte what
 * session_write_json() writes. Files from before session.lab_conf_sha256
 * read it as null (session_doc.h: absent reads as null), and are compared
 * with it added.
 */
static void round_trip(const char *name)
{
	char *path = xasprintf(FIXTURES "%s", name), *text = fixture_read_all(path), *want, *got;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL), *out, *ses;
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;

	assert_non_null(j);
	if (session_doc_decode(j, &d, &err))
		fail_msg("%s: %s", path, sb_str(&err));
	out = session_doc_encode(&d);
	ses = json_object_get(j, "session");
	if (!json_object_get(ses, "lab_conf_sha256")) {
		json_object_set_new(ses, "lab_conf_sha256", json_null());
		want = fixture_dump(j, 1);
	} else {
		want = xstrndup(text, strlen(text) - 1);	/* the file ends in a newline */
	}
	got = fixture_dump(out, 1);
	session_doc_release(&d);
	if (strcmp(got, want)) {
		size_t i = 0;

		while (got[i] == want[i])
			i++;
		fail_msg("%s: encoded again, it differs at byte %zu: \"%.60s\" for \"%.60s\"", path,
			 i, got + i, want + i);
	}
	free(got);
	free(want);
	json_decref(out);
	json_decref(j);
	sb_release(&err);
	free(text);
	free(path);
}

static void test_round_trip(void **state)
{
	(void)state;
	round_trip("one-alone.json");		/* one kernel, design.alone, icount_shift */
	round_trip("ab-note.json");		/* A/B, note */
	round_trip("ab-claim.json");		/* claim */
	round_trip("ab-sequential.json");	/* design.sequential */
}

/*
 * A fixture with its member @path/@key set to @val (NULL: removed):
 * refused, naming @want; NULL: decoded.
 */
static void refused(const char *path, const char *key, json_t *val, const char *want)
{
	json_t *j = json_load_file(FIXTURES "ab-sequential.json", 0, NULL), *o = j;
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	char *p = xstrdup(path), *tok, *save;

	assert_non_null(j);
	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		o = json_object_get(o, tok);
	if (val)
		json_object_set_new(o, key, val);
	else
		json_object_del(o, key);
	if (!want) {
		assert_int_equal(session_doc_decode(j, &d, &err), 0);
		session_doc_release(&d);
	} else {
		assert_int_equal(session_doc_decode(j, &d, &err), -1);
		if (strcmp(sb_str(&err), want))
			fail_msg("%s %s: got \"%s\", want \"%s\"", path, key, sb_str(&err), want);
	}
	free(p);
	json_decref(j);
	sb_release(&err);
}

static void test_refused(void **state)
{
	(void)state;
	refused("", "design", NULL, "design: missing (expected an object)");
	refused("", "guest", json_string("g"), "guest: expected an object, got a string");
	refused("guest", "file", json_false(), "guest.file: expected a string, got a boolean");
	refused("design", "slots", json_string("2"), "design.slots: expected an integer, got a string");
	refused("design/sequential", "budget_s", json_string("1h"),
		"design.sequential.budget_s: expected a number or null, got a string");
	refused("design/sequential", "rho", NULL, "design.sequential.rho: missing (expected a number)");
	refused("host", "accel", json_null(), "host.accel: expected a string, got null");
	refused("", "plan", json_object(), "plan: expected an array, got an object");
	/* the arrays of objects, element by element (issue 48: they were read by key) */
	refused("", "kernels", json_pack("[{s:s}]", "role", "baseline"),
		"kernels[0].name: missing (expected a string)");
	refused("", "kernels", json_pack("[s]", "baseline"),
		"kernels[0]: expected an object, got a string");
	refused("", "kernels", json_pack("[{s:s, s:i}]", "name", "a", "cache_key", 5),
		"kernels[0].cache_key: expected a string, got an integer");
	refused("", "kernels", json_pack("[{s:s, s:[{}]}]", "name", "a", "series"),
		"kernels[0].series[0].subject: missing (expected a string)");
	refused("", "workloads", json_pack("[{s:s, s:[{s:s}]}]", "name", "w", "shares", "tag", "t"),
		"workloads[0].shares[0].host_dir: missing (expected a string)");
	refused("", "workloads", json_pack("[{s:s, s:s}]", "name", "w", "params", "x"),
		"workloads[0].params: expected an object, got a string");
	refused("", "hosts", json_pack("[{s:s, s:s, s:s}]", "name", "h", "uri", "u", "slots", "2"),
		"hosts[0].slots: expected an integer, got a string");
	refused("", "hosts", json_pack("[{s:s, s:s}]", "name", "h", "uri", "u"),
		"hosts[0].slots: missing (expected an integer)");
	/* null for an optional member that has no null is "none" (reports/SCHEMA.md) */
	refused("design", "slots", json_null(), NULL);
	refused("guest", "icount_shift", json_null(), NULL);
}

/*
 * design.partners, the scheduler's pairing of slots (issue 49), as the
 * session started with it: config_partners_name()'s words and nothing
 * else, so that config_partners_parse() of it is -1 only when it is
 * absent (a session from before it, which ran free). Decoded here since
 * issue 48; it was read again by key in session_jobs.c.
 */
static void test_partners(void **state)
{
	json_t *j = json_load_file(FIXTURES "ab-sequential.json", 0, NULL);
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_non_null(j);
	json_object_del(json_object_get(j, "design"), "partners");
	assert_int_equal(session_doc_decode(j, &d, &err), 0);
	assert_null(d.design.partners);
	session_doc_release(&d);
	assert_int_equal(config_partners_parse(d.design.partners), -1);
	for (int p = RUN_PARTNERS_BALANCED; p <= RUN_PARTNERS_FREE; p++) {
		json_object_set_new(json_object_get(j, "design"), "partners",
				    json_string(config_partners_name(p)));
		assert_int_equal(session_doc_decode(j, &d, &err), 0);
		assert_int_equal(config_partners_parse(d.design.partners), p);
		session_doc_release(&d);
	}
	json_decref(j);
	sb_release(&err);
	refused("design", "partners", json_string("paired"),
		"design.partners: expected balanced or free, got a string");
	refused("design", "partners", json_true(),
		"design.partners: expected balanced or free, got a boolean");
	refused("design", "partners", json_string("free"), NULL);
	refused("design", "partners", json_null(), NULL);
	/* a report's copy of design is checked alone, and any string passes there */
	j = json_pack("{s:{s:s, s:s}}", "design", "baseline", "a", "partners", "paired");
	assert_int_equal(session_doc_check(j, "design", &err), 0);
	json_decref(j);
	sb_release(&err);
}

/* What the session's readers get: the members, typed; absent ones as the header says. */
static void test_decoded(void **state)
{
	json_t *j = json_load_file(FIXTURES "ab-sequential.json", 0, NULL);
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(session_doc_decode(j, &d, &err), 0);
	assert_string_equal(d.design.baseline, json_string_value(json_object_get(
		json_object_get(j, "design"), "baseline")));
	assert_int_equal(d.design.sequential.present, 1);
	assert_true(d.design.sequential.budget_s != d.design.sequential.budget_s);	/* null: NaN */
	assert_int_equal(d.design.profile, -1);
	assert_null(d.design.attribute);
	assert_null(d.session.lab_conf_sha256);
	assert_true(d.session.finished == NULL && d.session.complete == -1);
	assert_true(d.statistics.counter_resamples == SDOC_NONE);
	assert_non_null(d.plan);
	assert_non_null(d.guest.file);
	/* the arrays' rows: what a resumed session checks, typed */
	assert_int_equal(d.kernels.n, 2);
	assert_string_equal(sdoc_kernel_at(&d, 1)->name, "slow5");
	assert_int_equal(strlen(sdoc_kernel_at(&d, 0)->cache_key), 64);
	assert_non_null(strstr(sdoc_kernel_at(&d, 0)->bzimage, "/bzImage"));
	assert_null(sdoc_kernel_at(&d, 0)->source_id);
	assert_true(sdoc_kernel_at(&d, 0)->ref == NULL && sdoc_kernel_at(&d, 0)->series.n == 0);
	assert_int_equal(sdoc_kernel_at(&d, 1)->series.n, 1);
	assert_int_equal(sdoc_kernel_at(&d, 1)->cover.present, 0);
	assert_int_equal(d.workloads.n, 1);
	assert_string_equal(sdoc_workload_at(&d, 0)->type, "yield_pingpong");
	assert_int_equal(sdoc_workload_at(&d, 0)->runs, 20);
	assert_int_equal(sdoc_workload_at(&d, 0)->shares.present, 0);
	assert_true(isnan(sdoc_workload_at(&d, 0)->threshold));
	assert_int_equal(sdoc_workload_at(&d, 0)->metrics.n, 3);
	assert_int_equal(((const struct sdoc_metric *)sdoc_workload_at(&d, 0)->metrics.v)[0].primary, 1);
	assert_int_equal(((const struct sdoc_metric *)sdoc_workload_at(&d, 0)->metrics.v)[1].primary, -1);
	assert_int_equal(d.hosts.n, 1);
	assert_string_equal(sdoc_host_at(&d, 0)->pool_dir, "/var/lib/libvirt/mglrulab");
	assert_int_equal(sdoc_host_at(&d, 0)->slots, 2);
	session_doc_release(&d);
	assert_int_equal(d.kernels.n, 0);
	json_decref(j);
	sb_release(&err);
}

/*
 * A writer's array made as JSON, put into a document by its row alone
 * (session_new()'s kernels, workloads and hosts): the other members stay,
 * and what the rows do not say is not encoded.
 */
static void test_member_decode(void **state)
{
	json_t *made = json_pack("{s:[{s:s, s:s, s:s, s:i}]}", "hosts", "name", "h", "uri", "u",
				 "stray", "x", "slots", 2);
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	json_t *out;
	(void)state;

	session_doc_init(&d);
	d.schema = "s";
	assert_int_equal(session_doc_member_decode(made, "hosts", &d, &err), 0);
	assert_string_equal(d.schema, "s");
	assert_int_equal(d.hosts.n, 1);
	out = session_doc_member_encode(&d, "hosts");
	assert_non_null(out);
	assert_null(json_object_get(json_array_get(out, 0), "stray"));
	assert_true(json_is_null(json_object_get(json_array_get(out, 0), "cpus")));
	json_decref(out);
	session_doc_release(&d);
	/* refused: the member is left absent, nothing kept of it */
	json_object_set_new(made, "kernels", json_pack("[{s:s}, {}]", "name", "a"));
	assert_int_equal(session_doc_member_decode(made, "kernels", &d, &err), -1);
	assert_string_equal(sb_str(&err), "kernels[1].name: missing (expected a string)");
	assert_int_equal(d.kernels.present, 0);
	assert_null(d.kernels.v);
	sb_reset(&err);
	assert_int_equal(session_doc_member_decode(made, "nothing", &d, &err), -1);
	json_decref(made);
	sb_release(&err);
}

/* JSON has no infinity: a number that is not finite is written null, never left out. */
static void test_infinite_is_null(void **state)
{
	struct session_doc d;
	json_t *j;
	(void)state;

	session_doc_init(&d);
	d.design.sequential.present = 1;
	d.design.sequential.budget_s = INFINITY;
	j = session_doc_encode(&d);
	assert_true(json_is_null(json_object_get(json_object_get(json_object_get(j, "design"),
							     "sequential"), "budget_s")));
	json_decref(j);
}

/* SK_MAP's test document: an object "m" whose members are all map_elem_fields' objects. */
struct map_elem {
	const char *name;	/* the member's key */
	double x;
	int flag;
};

struct map_doc {
	struct sdoc_array m;
};

static const struct sdoc_field map_elem_fields[] = {
	{ "x", SK_NUMBER, .offset = offsetof(struct map_elem, x) },
	{ "flag", SK_FLAG, .offset = offsetof(struct map_elem, flag) },
	{ NULL },
};

static const struct sdoc_field map_fields[] = {
	{ "m", SK_MAP, .offset = offsetof(struct map_doc, m), .sub = map_elem_fields,
	  .elem_size = sizeof(struct map_elem) },
	{ NULL },
};

/* @text decoded by map_fields: refused with @want, or (@want NULL) decoded into @d. */
static void map_decode(const char *text, struct map_doc *d, const char *want)
{
	json_t *j = json_loads(text, 0, NULL);
	struct strbuf err = STRBUF_INIT;

	assert_non_null(j);
	if (!want) {
		if (sdoc_fields_decode(map_fields, j, d, &err))
			fail_msg("%s: %s", text, sb_str(&err));
	} else {
		assert_int_equal(sdoc_fields_decode(map_fields, j, d, &err), -1);
		assert_string_equal(sb_str(&err), want);
		/* a failed decode has released what it allocated */
		assert_null(d->m.v);
		assert_int_equal(d->m.n, 0);
	}
	json_decref(j);
	sb_release(&err);
}

/*
 * SK_MAP, an object whose members are all of one table (a report's
 * own_states.KERNEL, sequential.workloads.NAME): each member an element
 * named by its key, in the object's order, with its table's nones; a
 * member that is not an object, or a wrong one of its members, refused
 * by its path; encoded back under the names.
 */
static void test_map(void **state)
{
	static const char text[] = "{\"m\": {\"b\": {\"x\": 1.5, \"flag\": true}, \"a\": {}}}";
	json_t *j = json_loads(text, 0, NULL), *out, *want;
	struct map_doc d;
	struct strbuf err = STRBUF_INIT;
	const struct map_elem *e;
	(void)state;

	assert_int_equal(sdoc_fields_decode(map_fields, j, &d, &err), 0);
	assert_int_equal(d.m.present, 1);
	assert_int_equal(d.m.n, 2);
	e = d.m.v;
	assert_string_equal(e[0].name, "b");
	assert_true(e[0].x == 1.5 && e[0].flag == 1);
	assert_string_equal(e[1].name, "a");
	assert_true(isnan(e[1].x) && e[1].flag == 0);
	out = sdoc_fields_encode(map_fields, &d);
	want = json_loads("{\"m\": {\"b\": {\"x\": 1.5, \"flag\": true}, \"a\": {\"flag\": false}}}",
			  0, NULL);
	assert_true(json_equal(out, want));
	sdoc_fields_release(map_fields, &d);
	assert_null(d.m.v);
	assert_int_equal(d.m.n, 0);
	json_decref(out);
	json_decref(want);
	json_decref(j);
	sb_release(&err);

	map_decode("{\"m\": {\"a\": {}, \"b\": 3}}", &d, "m.b: expected an object, got an integer");
	map_decode("{\"m\": {\"a\": {\"x\": \"y\"}}}", &d, "m.a.x: expected a number, got a string");
	map_decode("{\"m\": []}", &d, "m: expected an object, got an array");
	/* null, or nothing, is none: not present, and not written */
	map_decode("{\"m\": null}", &d, NULL);
	assert_int_equal(d.m.present, 0);
	out = sdoc_fields_encode(map_fields, &d);
	assert_int_equal(json_object_size(out), 0);
	json_decref(out);
	map_decode("{\"m\": {}}", &d, NULL);
	assert_true(d.m.present == 1 && d.m.n == 0);
	sdoc_fields_release(map_fields, &d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_json),
		cmocka_unit_test(test_schema_md),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_decoded),
		cmocka_unit_test(test_partners),
		cmocka_unit_test(test_infinite_is_null),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_member_decode),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
