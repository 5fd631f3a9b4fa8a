// SPDX-License-Identifier: GPL-2.0
/*
 * What the run stage reads of session.json (lab/session/session_jobs.c):
 * a session's jobs and kernels' images made whole from the document's
 * rows, and a member of the wrong type refused naming it (by the table,
 * or by session_jobs_of() for what the table does not require), never
 * handed to a guest as a NULL argument or share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "session_doc.h"
#include "session_jobs.h"

#define GOOD "{\"kernels\":[{\"name\":\"base\",\"bzImage\":\"/c/e1/bzImage\"}," \
	"{\"name\":\"next\"}],\"guest\":{\"name\":\"g\",\"file\":\"guests/g.conf\"}," \
	"\"workloads\":[{\"name\":\"yield\",\"type\":\"yield_pingpong\",\"args\":[\"--duration=5s\"]," \
	"\"runs\":6},{\"name\":\"build\",\"type\":\"kernel_build\",\"args\":[]," \
	"\"shares\":[{\"tag\":\"tc\",\"host_dir\":\"/srv/tc\"}]}]}"

static json_t *parse(const char *text)
{
	json_t *j = json_loads(text, 0, NULL);

	assert_non_null(j);
	return j;
}

/*
 * @ctx's kernels and workloads into a document, as session_doc_decode()
 * reads them, then its jobs into @j: 0, or -1 with the table's error or
 * session_jobs_of()'s in @err.
 */
static int jobs_of(const json_t *ctx, struct session_jobs *j, struct strbuf *err)
{
	struct session_doc doc;
	int r = 0;

	session_doc_init(&doc);
	memset(j, 0, sizeof(*j));
	if (session_doc_member_decode(ctx, "kernels", &doc, err) ||
	    session_doc_member_decode(ctx, "workloads", &doc, err))
		r = -1;
	if (!r)
		r = session_jobs_of(&doc, j, err);
	session_doc_release(&doc);
	return r;
}

static void test_good(void **state)
{
	json_t *ctx = parse(GOOD);
	struct session_jobs j;
	struct strbuf err = STRBUF_INIT;
	const struct session_job *w;

	(void)state;
	assert_int_equal(jobs_of(ctx, &j, &err), 0);
	assert_int_equal(j.nw, 2);
	w = session_job_find(&j, "yield");
	assert_non_null(w);
	assert_string_equal(w->type, "yield_pingpong");
	assert_int_equal(w->args.n, 1);
	assert_string_equal(w->args.v[0], "--duration=5s");
	assert_int_equal(w->nshares, 0);
	w = session_job_find(&j, "build");
	assert_int_equal(w->args.n, 0);
	assert_int_equal(w->nshares, 1);
	assert_string_equal(w->shares[0].tag, "tc");
	assert_string_equal(w->shares[0].host_dir, "/srv/tc");
	assert_null(session_job_find(&j, "other"));
	assert_int_equal(j.nk, 2);
	assert_string_equal(session_jobs_image(&j, "base"), "/c/e1/bzImage");
	assert_null(session_jobs_image(&j, "next"));	/* not recorded */
	assert_null(session_jobs_image(&j, "gone"));
	session_jobs_release(&j);
	json_decref(ctx);
	sb_release(&err);
}

/* @path's member @key set to @val (NULL: removed): refused, naming @want. */
static void bad(const char *path, const char *key, json_t *val, const char *want)
{
	json_t *ctx = parse(GOOD), *o = ctx;
	struct session_jobs j;
	struct strbuf err = STRBUF_INIT;
	char *p = strdup(path), *tok, *save;

	for (tok = strtok_r(p, "/", &save); tok; tok = strtok_r(NULL, "/", &save))
		o = json_is_array(o) ? json_array_get(o, strtoul(tok, NULL, 10)) :
			json_object_get(o, tok);
	if (json_is_array(o))
		json_array_set_new(o, strtoul(key, NULL, 10), val);
	else if (val)
		json_object_set_new(o, key, val);
	else
		json_object_del(o, key);
	assert_int_equal(jobs_of(ctx, &j, &err), -1);
	if (strcmp(sb_str(&err), want))
		fail_msg("%s %s: got \"%s\", want \"%s\"", path, key, sb_str(&err), want);
	assert_int_equal(j.nw, 0);
	assert_int_equal(j.nk, 0);
	free(p);
	json_decref(ctx);
	sb_release(&err);
}

static void test_bad_members(void **state)
{
	(void)state;
	bad("", "workloads", NULL, "workloads: expected an array, got nothing");
	bad("workloads", "1", json_string("x"), "workloads[1]: expected an object, got a string");
	bad("workloads/0", "name", json_integer(1),
	    "workloads[0].name: expected a string, got an integer");
	bad("workloads/0", "type", NULL, "workloads[0].type: expected a string, got nothing");
	bad("workloads/0", "args", json_string("--a"),
	    "workloads[0].args: expected an array, got a string");
	bad("workloads/0/args", "0", json_null(), "workloads[0].args[0]: expected a string, got null");
	bad("workloads/1", "shares", json_object(),
	    "workloads[1].shares: expected an array, got an object");
	bad("workloads/1/shares", "0", json_true(),
	    "workloads[1].shares[0]: expected an object, got a boolean");
	bad("workloads/1/shares/0", "host_dir", NULL,
	    "workloads[1].shares[0].host_dir: missing (expected a string)");
	bad("", "kernels", json_object(), "kernels: expected an array, got an object");
	bad("kernels/0", "name", NULL, "kernels[0].name: missing (expected a string)");
	bad("workloads/0", "coherence_args", json_pack("[s, i]", "--a", 1),
	    "workloads[0].coherence_args[1]: expected a string, got an integer");
	bad("kernels/0", "bzImage", json_integer(3),
	    "kernels[0].bzImage: expected a string, got an integer");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
