// SPDX-License-Identifier: GPL-2.0
/*
 * ini_lines.c: libinih with line numbers, over-long lines, NUL bytes and
 * invalid UTF-8 caught where the line is known. lab.conf and the guest
 * topology files are untrusted input, and every error must name FILE:LINE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "ini_lines.h"
#include "util.h"

struct seen {
	struct strvec keys;		/* "LINE section.key=value" */
	struct strvec sections;		/* "LINE name" */
	const char *fail_key;		/* the handler refuses this key */
};

static int on_key(void *user, const char *section, const char *key, const char *value, int line)
{
	struct seen *s = user;

	strvec_pushf(&s->keys, "%d %s.%s=%s", line, section, key, value);
	return s->fail_key && !strcmp(key, s->fail_key);
}

static void on_section(void *user, const char *section, int line)
{
	struct seen *s = user;

	strvec_pushf(&s->sections, "%d %s", line, section);
}

static char path[] = "/tmp/mglrulab-ini-XXXXXX";

static int parse(const char *text, size_t len, struct seen *s, struct strbuf *err)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	memset(&s->keys, 0, sizeof(s->keys));
	memset(&s->sections, 0, sizeof(s->sections));
	int r = ini_parse_lines_sections(path, on_key, on_section, s, err);
	unlink(path);
	strcpy(path, "/tmp/mglrulab-ini-XXXXXX");
	return r;
}

static void release(struct seen *s, struct strbuf *err)
{
	strvec_clear(&s->keys);
	strvec_clear(&s->sections);
	sb_release(err);
}

static void test_line_numbers(void **state)
{
	static const char text[] =
		"; comment\n"
		"\n"
		"[lab]\n"
		"a = 1\n"
		"# another comment\n"
		"\n"
		"[kernel base]\n"
		"b=two words\n"
		"[  padded\t]\n"
		"c = last";		/* no newline at the end */
	struct seen s = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(parse(text, sizeof(text) - 1, &s, &err), 0);
	assert_int_equal(err.len, 0);
	assert_int_equal(s.keys.n, 3);
	assert_string_equal(s.keys.v[0], "4 lab.a=1");
	assert_string_equal(s.keys.v[1], "8 kernel base.b=two words");
	assert_string_equal(s.keys.v[2], "10   padded\t.c=last");	/* inih's section text */
	assert_int_equal(s.sections.n, 3);
	assert_string_equal(s.sections.v[0], "3 lab");
	assert_string_equal(s.sections.v[1], "7 kernel base");
	assert_string_equal(s.sections.v[2], "9 padded");	/* the header's name, trimmed */
	release(&s, &err);
}

/* Every error in one pass: the handler's refusals count, parsing goes on. */
static void test_handler_errors_counted(void **state)
{
	static const char text[] = "[s]\nbad = 1\nok = 2\nbad = 3\n";
	struct seen s = { .fail_key = "bad" };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(parse(text, sizeof(text) - 1, &s, &err), 2);
	assert_int_equal(s.keys.n, 3);
	assert_string_equal(s.keys.v[2], "4 s.bad=3");
	release(&s, &err);
}

static void test_long_line(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct seen s = { 0 };
	(void)state;

	sb_adds(&text, "[s]\nk = ");
	for (int i = 0; i < 500; i++)
		sb_addc(&text, 'x');
	sb_adds(&text, "\nafter = 1\n");
	assert_int_equal(parse(text.buf, text.len, &s, &err), 1);
	assert_non_null(strstr(sb_str(&err), ":2: line longer than 198 characters\n"));
	/* the rest of the long line is not taken for keys; the next line keeps its number */
	assert_int_equal(s.keys.n, 1);
	assert_string_equal(s.keys.v[0], "3 s.after=1");
	sb_release(&text);
	release(&s, &err);
}

static void test_nul_byte(void **state)
{
	static const char text[] = "[s]\nk = a\0b\nnext = 1\n";
	struct seen s = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(parse(text, sizeof(text) - 1, &s, &err), 1);
	assert_non_null(strstr(sb_str(&err), ":2: NUL byte at column 6 (not a text file?)\n"));
	assert_int_equal(s.keys.n, 1);
	assert_string_equal(s.keys.v[0], "3 s.next=1");
	release(&s, &err);
}

static void test_invalid_utf8(void **state)
{
	static const char text[] = "[s]\nname = caf\xe9\nk\xff = 1\nok = caf\xc3\xa9\n";
	struct seen s = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(parse(text, sizeof(text) - 1, &s, &err), 2);
	assert_non_null(strstr(sb_str(&err),
			       ":2: the value is not valid UTF-8 (byte 0xe9 at offset 3)\n"));
	assert_non_null(strstr(sb_str(&err),
			       ":3: the key is not valid UTF-8 (byte 0xff at offset 1)\n"));
	/* refused keys never reach the handler */
	assert_int_equal(s.keys.n, 1);
	assert_string_equal(s.keys.v[0], "4 s.ok=caf\xc3\xa9");
	release(&s, &err);
}

static void test_syntax_error(void **state)
{
	static const char text[] = "[s]\nk = 1\nthis is not ini\n";
	struct seen s = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(parse(text, sizeof(text) - 1, &s, &err), 1);
	assert_non_null(strstr(sb_str(&err),
			       ":3: expected '[section]', 'key = value' or a comment\n"));
	release(&s, &err);
}

static void test_missing_file(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct seen s = { 0 };
	(void)state;

	assert_int_equal(ini_parse_lines("/nonexistent/lab.conf", on_key, &s, &err), -1);
	assert_string_equal(sb_str(&err), "/nonexistent/lab.conf: cannot read: No such file or directory\n");
	assert_int_equal(s.keys.n, 0);
	sb_release(&err);
}

static void test_ini_error_format(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	ini_error(&err, "lab.conf", 12, "expected a number, got '%s'", "x");
	assert_string_equal(sb_str(&err), "lab.conf:12: expected a number, got 'x'\n");
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_numbers),
		cmocka_unit_test(test_handler_errors_counted),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_nul_byte),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_ini_error_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
