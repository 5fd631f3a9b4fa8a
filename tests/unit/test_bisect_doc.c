// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.json's table (bisect_doc_fields[], lab/bisect/bisect_doc.c) is
 * its one definition: the fixture bisection's bisect.json, as the lab
 * wrote it, decodes and encodes again byte for byte (the member order is
 * the table's), so do the endings the fixture has not (per-patch's
 * waterfall, a remaining of null); a member of the wrong type is refused
 * by its JSON path; docs/bisect.md's table of bisect.json names the rows,
 * in the table's order.
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

#include "bisect.h"
#include "bisect_doc.h"
#include "fsutil.h"
#include "strbuf.h"
#include "util.h"

#define FIXTURE "tests/fixtures/bisect/bisect-found.json"
#define DOC_MD "docs/bisect.md"

/* As session_write_json() writes bisect.json. */
static char *dump(const json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	char *out = xasprintf("%s\n", text);

	free(text);
	return out;
}

/* @text decoded and encoded again: the same bytes. */
static void round_trip(const char *what, const char *text)
{
	json_t *j = json_loads(text, 0, NULL), *again;
	struct bisect_doc d;
	struct strbuf err = STRBUF_INIT;
	char *out;

	assert_non_null(j);
	if (bisect_doc_decode(j, &d, &err))
		fail_msg("%s: %s", what, sb_str(&err));
	again = bisect_doc_encode(&d);
	out = dump(again);
	if (strcmp(out, text))
		fail_msg("%s: encoded again, it differs:\n%s", what, out);
	free(out);
	json_decref(again);
	bisect_doc_release(&d);
	json_decref(j);
	sb_release(&err);
}

static char *read_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 0), 0);
	return sb_detach(&sb);
}

static char *fixture_text(void)
{
	return read_text(FIXTURE);
}

static void test_round_trip(void **state)
{
	char *text = fixture_text();
	(void)state;

	round_trip(FIXTURE, text);
	free(text);
}

/* The fixture with its result replaced by @result (bisect.c's member order), round-tripped. */
static void ending(const char *what, json_t *result)
{
	char *text = fixture_text(), *alt;
	json_t *j = json_loads(text, 0, NULL);

	json_object_set_new(j, "result", result);
	alt = dump(j);
	round_trip(what, alt);
	free(alt);
	free(text);
	json_decref(j);
}

static void test_endings(void **state)
{
	json_t *j = json_load_file(FIXTURE, 0, NULL);
	json_t *res = json_object_get(json_array_get(json_object_get(j, "steps"), 0), "results");
	json_t *patch = json_object_get(json_object_get(j, "result"), "patch");
	(void)state;

	ending("per-patch", json_pack("{s:s, s:[{s:I, s:I, s:s, s:s, s:O}]}", "outcome", "per-patch",
		"waterfall", "from", (json_int_t)0, "to", (json_int_t)2, "a", "baseline", "b", "three@2",
		"results", res));
	ending("remaining null", json_pack("{s:s, s:I, s:I, s:I, s:I, s:O, s:O, s:{}, s:n}",
		"outcome", "found", "first", (json_int_t)2, "last", (json_int_t)2, "probes",
		(json_int_t)1, "culprit", (json_int_t)2, "patch", patch, "own_effect", res,
		"attribution", "remaining"));
	ending("spread", json_pack("{s:s, s:I, s:I, s:I, s:I}", "outcome", "spread", "first",
		(json_int_t)1, "last", (json_int_t)3, "probes", (json_int_t)2, "split", (json_int_t)2));
	ending("not confirmed", json_pack("{s:s}", "outcome", "not-confirmed"));
	json_decref(j);
}

/* The fixture with @path's member @key set to @val: refused with @want, or decoded (@want NULL). */
static void refused(const char *path, const char *key, json_t *val, const char *want)
{
	json_t *j = json_load_file(FIXTURE, 0, NULL), *o = j;
	struct bisect_doc d;
	struct strbuf err = STRBUF_INIT;
	char *p = xstrdup(path), *tok, *save;

	assert_non_null(j);
	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		o = json_is_array(o) ? json_array_get(o, (size_t)atoi(tok)) : json_object_get(o, tok);
	assert_non_null(o);
	if (val)
		json_object_set_new(o, key, val);
	else
		json_object_del(o, key);
	if (!want) {
		if (bisect_doc_decode(j, &d, &err))
			fail_msg("%s %s: refused: %s", path, key, sb_str(&err));
		bisect_doc_release(&d);
	} else {
		assert_int_equal(bisect_doc_decode(j, &d, &err), -1);
		if (strcmp(sb_str(&err), want))
			fail_msg("%s %s: got \"%s\", want \"%s\"", path, key, sb_str(&err), want);
		/* left absent: nothing to release, nothing leaked (ASan) */
		assert_null(d.steps.v);
	}
	free(p);
	json_decref(j);
	sb_release(&err);
}

static void test_refused(void **state)
{
	(void)state;
	refused("steps/1", "dir", json_integer(5), "steps[1].dir: expected a string, got an integer");
	refused("steps/2/results/0", "delta_pct", json_string("-1"),
		"steps[2].results[0].delta_pct: expected a number or null, got a string");
	refused("steps/0", "results", json_object(),
		"steps[0].results: expected an array, got an object");
	refused("", "steps", json_pack("[i]", 1), "steps[0]: expected an object, got an integer");
	refused("settings", "per_patch", NULL, "settings.per_patch: missing (expected true or false)");
	refused("", "n", json_string("3"), "n: expected an integer, got a string");
	refused("prefixes/1", "builds", json_string("yes"),
		"prefixes.1.builds: expected true or false, got a string");
	refused("prefixes", "2", json_integer(1), "prefixes.2: expected an object, got an integer");
	refused("result", "remaining", json_object(),
		"result.remaining: expected an array or null, got an object");
	refused("patches/0", "subject", json_true(),
		"patches[0].subject: expected a string or null, got a boolean");
	/* what the lab writes, or may have written */
	refused("result", "remaining", json_null(), NULL);
	refused("patches/0", "message_id", json_null(), NULL);
	refused("settings", "attribute", json_string("changed"), NULL);
}

/* The decoded struct: what the bisection reads of it. */
static void test_decoded(void **state)
{
	json_t *j = json_load_file(FIXTURE, 0, NULL);
	struct bisect_doc d;
	struct strbuf err = STRBUF_INIT;
	const struct bisect_doc_step *st;
	const struct bisect_doc_result *r;
	(void)state;

	assert_int_equal(bisect_doc_decode(j, &d, &err), 0);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.complete, 1);
	assert_true(d.settings.attribute == NULL && d.settings.max_runs == 8);
	assert_int_equal(d.steps.n, 6);
	st = (const struct bisect_doc_step *)d.steps.v + 2;
	assert_string_equal(st->purpose, "probe-end");
	assert_int_equal(st->results.n, 3);
	r = st->results.v;
	assert_string_equal(r->verdict, "regression");
	assert_int_equal(r->primary, 1);
	assert_int_equal(d.result.present, 1);
	assert_int_equal(d.result.culprit, 2);
	assert_int_equal(d.result.patch.present, 1);
	assert_int_equal(d.result.patch.position, 2);
	assert_int_equal(d.patches.n, 3);
	assert_int_equal(d.probes.n, 2);
	assert_string_equal(((const struct bisect_doc_probe *)d.probes.v)[1].cls, "at-series-end");
	bisect_doc_release(&d);
	json_decref(j);
	sb_release(&err);
}

/*
 * The state's writers, in the order a bisection calls them (begun, each
 * step added running and then measured, the prefixes, the probes, tracked,
 * the result), write @text's bisect.json byte for byte. Everything they
 * were given (the decoded @text, its tree) is gone before the encoding:
 * what the writers did not copy, ASan sees read after its free.
 */
static void write_again(const char *what, const char *text)
{
	json_t *j = json_loads(text, 0, NULL), *p, *out;
	struct bisect_doc d, w;
	struct strbuf err = STRBUF_INIT;
	const struct bisect_doc_step *sv;
	const struct bisect_doc_probe *pv;
	const char *key;
	char *got;

	assert_non_null(j);
	if (bisect_doc_decode(j, &d, &err))
		fail_msg("%s: %s", what, sb_str(&err));
	/* begun as begin_state() begins it: not complete, no step, prefix or probe */
	d.complete = 0;
	bisect_doc_init(&w);
	bisect_doc_begin(&w, &d);
	assert_int_equal(w.steps.n, 0);
	assert_int_equal(json_object_size(w.prefixes), 0);
	assert_int_equal(w.probes.n, 0);
	sv = d.steps.v;
	for (size_t i = 0; i < d.steps.n; i++) {
		struct bisect_doc_step s = sv[i];

		s.state = "running";
		s.session = NULL;
		s.results = (struct sdoc_array){ 0 };
		assert_int_equal(bisect_doc_add_step(&w, &s), i);
		bisect_doc_step_measured(&w, i, sv[i].session, &sv[i].results);
	}
	json_object_foreach(json_object_get(j, "prefixes"), key, p) {
		struct bisect_doc_prefix pre;

		assert_int_equal(sdoc_fields_decode(bisect_prefix_fields, p, &pre, &err), 0);
		bisect_doc_set_prefix(&w, atol(key), &pre);
	}
	pv = d.probes.v;
	for (size_t i = 0; i < d.probes.n; i++)
		bisect_doc_add_probe(&w, &pv[i]);
	bisect_doc_set_tracked(&w, &d.tracked);
	bisect_doc_set_result(&w, &d.result);
	bisect_doc_release(&d);
	json_decref(j);
	out = bisect_doc_encode(&w);
	got = dump(out);
	if (strcmp(got, text))
		fail_msg("%s: the writers wrote another file:\n%s", what, got);
	free(got);
	json_decref(out);
	bisect_doc_release(&w);
	sb_release(&err);
}

static void test_writers(void **state)
{
	char *text = fixture_text();
	json_t *j = json_loads(text, 0, NULL);
	json_t *res = json_object_get(json_array_get(json_object_get(j, "steps"), 0), "results");
	/* the fixture's patch, kept past the first ending's result */
	json_t *patch = json_incref(json_object_get(json_object_get(j, "result"), "patch"));
	(void)state;

	write_again(FIXTURE, text);
	/* the endings the fixture has not: result's arrays, null and its attribution copied too */
	json_object_set_new(j, "result", json_pack("{s:s, s:[{s:I, s:I, s:s, s:s, s:O}]}",
		"outcome", "per-patch", "waterfall", "from", (json_int_t)0, "to", (json_int_t)2,
		"a", "baseline", "b", "three@2", "results", res));
	free(text);
	text = dump(j);
	write_again("per-patch", text);
	json_object_set_new(j, "result", json_pack("{s:s, s:I, s:I, s:I, s:I, s:O, s:O, s:{s:s}, s:n}",
		"outcome", "found", "first", (json_int_t)2, "last", (json_int_t)2, "probes",
		(json_int_t)1, "culprit", (json_int_t)2, "patch", patch, "own_effect", res,
		"attribution", "method", "perf", "remaining"));
	free(text);
	text = dump(j);
	write_again("remaining null", text);
	free(text);
	json_decref(patch);
	json_decref(j);
}

/*
 * A step measured again (its session resumed for the attribution runs)
 * has the new results, the old array freed; one that failed keeps the
 * results it had, as bisect.json always did. A prefix set again keeps its
 * place in the object and leaves the object a reader holds as it was.
 */
static void test_writers_again(void **state)
{
	json_t *j = json_load_file(FIXTURE, 0, NULL);
	struct bisect_doc d, w;
	struct strbuf err = STRBUF_INIT;
	const struct bisect_doc_step *sv;
	struct bisect_doc_step s;
	struct bisect_doc_prefix pre, got;
	const json_t *old;
	(void)state;

	assert_int_equal(bisect_doc_decode(j, &d, &err), 0);
	bisect_doc_init(&w);
	bisect_doc_begin(&w, &d);
	sv = d.steps.v;
	s = sv[0];
	s.results = (struct sdoc_array){ 0 };
	assert_int_equal(bisect_doc_add_step(&w, &s), 0);
	bisect_doc_step_measured(&w, 0, "/r/one", &sv[0].results);
	bisect_doc_step_measured(&w, 0, "/r/two", &sv[2].results);
	sv = w.steps.v;
	assert_string_equal(sv[0].session, "/r/two");
	assert_string_equal(sv[0].state, "done");
	assert_true(step_results_same(&sv[0].results, &((const struct bisect_doc_step *)d.steps.v)[2].results));
	bisect_doc_step_measured(&w, 0, "/r/three", NULL);
	assert_string_equal(sv[0].state, "failed");
	assert_int_equal(sv[0].results.n, 3);

	sdoc_fields_init(bisect_prefix_fields, &pre);
	pre.kernel = "three@1";
	pre.builds = 1;
	bisect_doc_set_prefix(&w, 1, &pre);
	pre.kernel = "three@2";
	bisect_doc_set_prefix(&w, 2, &pre);
	old = w.prefixes;
	pre.kernel = "three@1";
	pre.builds = 0;
	bisect_doc_set_prefix(&w, 1, &pre);
	assert_ptr_not_equal(w.prefixes, old);
	assert_int_equal(bisect_doc_prefix_at(&w, 1, &got), 0);
	assert_int_equal(got.builds, 0);
	assert_string_equal(json_object_iter_key(json_object_iter((json_t *)w.prefixes)), "1");
	/* the object held before: as it was */
	assert_true(json_is_true(json_object_get(json_object_get(old, "1"), "builds")));
	bisect_doc_release(&d);
	json_decref(j);
	/* nothing of @d's: the strings are @w's */
	assert_string_equal(((const struct bisect_doc_step *)w.steps.v)[0].a, "baseline");
	bisect_doc_release(&w);
	assert_null(w.steps.v);
	assert_null(w.json);
	sb_release(&err);
}

/* The `keys` of @cell in order, "[]" dropped, into @out (at most @max). */
static size_t keys_of(const char *cell, char out[][64], size_t max)
{
	size_t n = 0;

	for (const char *s = strchr(cell, '`'); s && n < max; s = strchr(s, '`')) {
		const char *e = strchr(s + 1, '`');

		if (!e)
			break;
		snprintf(out[n], 64, "%.*s", (int)(e - s - 1), s + 1);
		if (strstr(out[n], "[]"))
			*strstr(out[n], "[]") = '\0';
		n++;
		s = e + 1;
	}
	return n;
}

/* Every key of @t (and of its sub-tables not seen before) is `named` in @cell. */
static void names_rows(const char *cell, const struct sdoc_field *t, const struct sdoc_field **seen,
		       size_t *nseen, const char *where)
{
	for (size_t i = 0; i < *nseen; i++)
		if (seen[i] == t)
			return;
	seen[(*nseen)++] = t;
	for (const struct sdoc_field *f = t; f->key; f++) {
		char *quoted = xasprintf("`%s`", f->key), *array = xasprintf("`%s[]`", f->key);

		if (!strstr(cell, quoted) && !(f->kind == SK_ARRAY && strstr(cell, array)))
			fail_msg(DOC_MD ": the row of %s does not name %s", where, quoted);
		free(quoted);
		free(array);
		if (f->sub)
			names_rows(cell, f->sub, seen, nseen, where);
	}
}

static void test_doc_table(void **state)
{
	char *text = read_text(DOC_MD), *line, *save, keys[8][64];
	const struct sdoc_field *row = bisect_doc_fields, *seen[32];
	size_t nseen = 0;
	char *sec = strstr(text, "\n## bisect.json\n");
	(void)state;

	assert_non_null(sec);
	for (line = strtok_r(sec, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "## ", 3) && strcmp(line, "## bisect.json"))
			break;
		if (strncmp(line, "| `", 3))
			continue;
		/* "| `key`, `key` | what |": the keys, then what the row says */
		char *cell = strchr(line + 1, '|');

		assert_non_null(cell);
		*cell++ = '\0';
		size_t n = keys_of(line, keys, 8);

		for (size_t i = 0; i < n; i++, row++) {
			if (!row->key || strcmp(row->key, keys[i]))
				fail_msg(DOC_MD ": `%s` where the table's next row is %s", keys[i],
					 row->key ? row->key : "none");
			if (!strcmp(row->key, "prefixes"))
				names_rows(cell, bisect_prefix_fields, seen, &nseen, row->key);
			else if (row->sub)
				names_rows(cell, row->sub, seen, &nseen, row->key);
		}
	}
	if (row->key)
		fail_msg(DOC_MD ": no row names %s", row->key);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_endings),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_decoded),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_writers_again),
		cmocka_unit_test(test_doc_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
