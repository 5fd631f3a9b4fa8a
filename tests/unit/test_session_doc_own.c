// SPDX-License-Identifier: GPL-2.0
/*
 * A struct session_doc that owns its strings (lab/report/session_doc_own.c):
 * a copy outlives everything it was copied from (run under AddressSanitizer,
 * a string or JSON member left pointing at its source is a use after
 * free), as do the strings and JSON a writer gives it to keep, and a
 * document read from a file keeps the file's tree, encoding
 * again to the file byte for byte; a file that does not read or decode is
 * refused naming the file and the member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "session_doc.h"
#include "strbuf.h"
#include "util.h"

#define FIXTURE "tests/fixtures/session/ab-note.json"

/* @j as session_write_json() writes it, newline and all; allocated. */
static char *as_written(const json_t *j)
{
	char *text = json_dumps(j, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	char *out;

	assert_non_null(text);
	out = xasprintf("%s\n", text);
	free(text);
	return out;
}

static char *read_all(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 1 << 24), 0);
	return sb_detach(&sb);
}

/*
 * A copy reads and encodes as its source did after the source, its tree,
 * and a string given by a writer (a note with a byte that is not UTF-8)
 * are freed and overwritten; the string is kept as the file holds it.
 */
static void test_copy_owns(void **state)
{
	char *text = read_all(FIXTURE), *note = xstrdup("slow \xff disk"), *want, *got;
	json_t *tree = json_loads(text, 0, NULL), *out;
	struct session_doc src, copy;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_non_null(tree);
	assert_int_equal(session_doc_decode(tree, &src, &err), 0);
	src.note = note;
	out = session_doc_encode(&src);
	want = as_written(out);
	json_decref(out);

	session_doc_copy(&copy, &src);
	memset(note, 'x', strlen(note));
	free(note);
	session_doc_release(&src);
	json_decref(tree);
	memset(text, 0, strlen(text));
	free(text);

	assert_string_equal(copy.note, "slow \xef\xbf\xbd disk");
	assert_string_equal(sdoc_kernel_at(&copy, 0)->role, "baseline");
	assert_true(json_is_array(copy.plan));
	out = session_doc_encode(&copy);
	got = as_written(out);
	assert_string_equal(got, want);
	json_decref(out);
	session_doc_release(&copy);
	assert_null(copy.kernels.v);
	assert_null(copy.json);
	assert_int_equal(copy.strings.n, 0);
	free(got);
	free(want);
	sb_release(&err);
}

/*
 * A writer's temporaries kept by the document it fills (a new session's
 * workloads): read after the writer freed its own, as the file holds them.
 */
static void test_keep(void **state)
{
	struct session_doc d;
	char *name = xstrdup("yield\xff");
	json_t *args = json_pack("[s]", "--cpus=1");
	const char *kept;
	const json_t *kept_args;
	(void)state;

	session_doc_init(&d);
	kept = session_doc_keep(&d, name);
	kept_args = session_doc_keep_json(&d, args);	/* the reference is the document's */
	memset(name, 'x', strlen(name));
	free(name);
	assert_string_equal(kept, "yield\xef\xbf\xbd");
	assert_string_equal(json_string_value(json_array_get(kept_args, 0)), "--cpus=1");
	assert_null(session_doc_keep(&d, NULL));
	assert_null(session_doc_keep_json(&d, NULL));
	session_doc_release(&d);
	assert_int_equal(d.strings.n, 0);
	assert_null(d.json);
}

/* Read from the file, the document keeps its tree: encoded, the file again. */
static void test_load_file(void **state)
{
	char *text = read_all(FIXTURE), *got;
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	json_t *out;
	(void)state;

	if (session_doc_load_file(FIXTURE, &d, &err))
		fail_msg("%s", sb_str(&err));
	assert_non_null(d.owned);
	assert_non_null(d.session.id);
	out = session_doc_encode(&d);
	session_doc_release(&d);
	assert_null(d.owned);
	got = as_written(out);
	assert_string_equal(got, text);
	json_decref(out);
	free(got);
	free(text);
	sb_release(&err);
}

/* A file that is not JSON, or not a session.json, is named with what is wrong. */
static void test_load_file_refused(void **state)
{
	char path[] = "/tmp/test_session_doc_own.XXXXXX";
	int fd = mkstemp(path);
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	char *want;
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(write_file_atomic(path, "{\"schema\": ", 11), 0);
	assert_int_equal(session_doc_load_file(path, &d, &err), -1);
	assert_true(!strncmp(sb_str(&err), path, strlen(path)));
	assert_null(d.owned);
	sb_reset(&err);
	assert_int_equal(write_file_atomic(path, "{\"schema\": 2}", 13), 0);
	assert_int_equal(session_doc_load_file(path, &d, &err), -1);
	want = xasprintf("%s: schema: expected a string, got an integer", path);
	assert_string_equal(sb_str(&err), want);
	assert_null(d.owned);
	sb_reset(&err);
	unlink(path);
	assert_int_equal(session_doc_load_file(path, &d, &err), -1);
	assert_true(!strncmp(sb_str(&err), path, strlen(path)));
	free(want);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_owns),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_load_file),
		cmocka_unit_test(test_load_file_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
