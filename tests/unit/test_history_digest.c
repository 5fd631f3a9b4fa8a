// SPDX-License-Identifier: GPL-2.0
/*
 * A report's digest (lab/history/history_digest.c): the digest cache's
 * entries are untrusted, so the decoder must read a good one whole, name
 * the member of a bad one, and give back what the encoder wrote.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history_digest.h"

#define GOOD "{\"id\":\"s1\",\"created\":\"2026-11-01T01:00:00Z\"," \
	"\"host\":{\"hostname\":\"h\"},\"kernels\":[{\"name\":\"next\"}]," \
	"\"runs\":3,\"failed\":1,\"counts\":{\"next\\nyield\":[2,1]}," \
	"\"nights\":[[\"0123456789ab\",\"next + mm: foo\",\"next\",\"yield\",\"cs\",1," \
	"\"1/s\",true,\"10 11.5\"],[\"0123456789ab\",\"next + mm: foo\",\"next\"," \
	"\"yield\",\"idle\",-1,\"\",false,\"\"]]}"

static json_t *parse(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	return j;
}

static void test_good(void **state)
{
	json_t *j = parse(GOOD);
	struct history_digest d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(history_digest_decode(j, &d, &err), 0);
	assert_string_equal(d.id, "s1");
	assert_string_equal(d.created, "2026-11-01T01:00:00Z");
	assert_true(json_is_object(d.host));
	assert_true(json_is_array(d.kernels));
	assert_int_equal(d.runs, 3);
	assert_int_equal(d.failed, 1);
	assert_int_equal(d.ncounts, 1);
	assert_string_equal(d.counts[0].kernel, "next");
	assert_string_equal(d.counts[0].workload, "yield");
	assert_int_equal(d.counts[0].ok, 2);
	assert_int_equal(d.counts[0].failed, 1);
	assert_int_equal(d.nnights, 2);
	assert_string_equal(d.nights[0].ctx, "0123456789ab");
	assert_string_equal(d.nights[0].line, "next + mm: foo");
	assert_string_equal(d.nights[0].metric, "cs");
	assert_string_equal(d.nights[0].unit, "1/s");
	assert_int_equal(d.nights[0].better, 1);
	assert_true(d.nights[0].primary);
	assert_int_equal(d.nights[0].n, 2);
	assert_true(d.nights[0].v[0] == 10 && d.nights[0].v[1] == 11.5);
	assert_int_equal(d.nights[1].better, -1);
	assert_false(d.nights[1].primary);
	assert_int_equal(d.nights[1].n, 0);
	history_digest_release(&d);
	json_decref(j);
	sb_release(&err);
}

/* What the encoder writes decodes to the same digest, and encodes the same again. */
static void test_round_trip(void **state)
{
	json_t *j = parse(GOOD), *e, *e2;
	struct history_digest d, d2;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(history_digest_decode(j, &d, &err), 0);
	e = history_digest_encode(&d);
	assert_true(json_equal(e, j));
	assert_int_equal(history_digest_decode(e, &d2, &err), 0);
	e2 = history_digest_encode(&d2);
	assert_true(json_equal(e2, e));
	/* doubles as text: the shortest that reads back the same */
	d.nights[0].v[0] = 0.1;
	d.nights[0].v[1] = 1.0 / 3;
	json_decref(e);
	e = history_digest_encode(&d);
	history_digest_release(&d2);
	assert_int_equal(history_digest_decode(e, &d2, &err), 0);
	assert_true(d2.nights[0].v[0] == 0.1 && d2.nights[0].v[1] == 1.0 / 3);
	history_digest_release(&d);
	history_digest_release(&d2);
	json_decref(j);
	json_decref(e);
	json_decref(e2);
	sb_release(&err);
}

/* Each wrong member is named: @edit applied to the good digest gives @want. */
static void bad(const char *path, json_t *val, const char *want)
{
	json_t *j = parse(GOOD), *where = j;
	struct history_digest d;
	struct strbuf err = STRBUF_INIT;
	char *p = strdup(path), *tok, *save;
	const char *last = NULL;

	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (last)
			where = json_is_array(where) ? json_array_get(where, strtoul(last, NULL, 10)) :
				json_object_get(where, last);
		last = tok;
	}
	if (json_is_array(where))
		json_array_set_new(where, strtoul(last, NULL, 10), val);
	else if (val)
		json_object_set_new(where, last, val);
	else
		json_object_del(where, last);
	assert_int_equal(history_digest_decode(j, &d, &err), -1);
	if (!strstr(sb_str(&err), want))
		fail_msg("%s: got \"%s\", want \"%s\"", path, sb_str(&err), want);
	assert_int_equal(d.nnights, 0);
	assert_null(d.id);
	free(p);
	json_decref(j);
	sb_release(&err);
}

static void test_bad_members(void **state)
{
	(void)state;
	bad("id", json_integer(1), "id: expected a string, got an integer");
	bad("created", NULL, "created: expected a string, got nothing");
	bad("host", json_string("h"), "host: expected an object, got a string");
	bad("kernels", json_object(), "kernels: expected an array, got an object");
	bad("runs", json_integer(-1), "runs: expected an integer from 0, got an integer");
	bad("failed", json_real(1.5), "failed: expected an integer from 0, got a number");
	bad("counts", json_array(), "counts: expected an object, got an array");
	bad("counts/next\nyield", json_pack("[i]", 1),
	    "counts[\"next\\nyield\"]: expected [ok runs, failed runs]");
	bad("counts/next\nyield", json_pack("[i,i]", 1, -2),
	    "counts[\"next\\nyield\"][1]: expected an integer from 0");
	bad("counts/nonewline", json_pack("[i,i]", 1, 2), "counts: a key");
	bad("nights", json_object(), "nights: expected an array, got an object");
	bad("nights/1", json_pack("[s]", "x"), "nights[1]: expected an array of 9");
	bad("nights/0/0", json_null(), "nights[0][0]: expected a string, got null");
	bad("nights/1/4", json_true(), "nights[1][4]: expected a string, got a boolean");
	bad("nights/0/5", json_integer(2), "nights[0][5]: expected -1, 0 or 1, got an integer");
	bad("nights/0/6", json_integer(2), "nights[0][6]: expected a string");
	bad("nights/0/7", json_integer(1), "nights[0][7]: expected a boolean");
	bad("nights/0/8", json_string("1  2"), "nights[0][8]: expected finite numbers");
	bad("nights/0/8", json_string("1 inf"), "nights[0][8]: expected finite numbers");
	bad("nights/0/8", json_string("1 "), "nights[0][8]: expected finite numbers");
}

static void test_not_an_object(void **state)
{
	json_t *j = json_array();
	struct history_digest d;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	assert_int_equal(history_digest_decode(j, &d, &err), -1);
	assert_string_equal(sb_str(&err), "the digest: expected an object, got an array");
	json_decref(j);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_members),
		cmocka_unit_test(test_not_an_object),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
