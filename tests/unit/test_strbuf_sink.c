// SPDX-License-Identifier: GPL-2.0
/*
 * Outputs streamed to their files (issue 27): a strbuf's sink writes at
 * flush points only, past its threshold, and remembers a failed write;
 * a user's file written as it is produced appears whole or not at all;
 * and every renderer's streamed output is its unstreamed output, byte for
 * byte, on the fixtures and on a report large enough to cross many flush
 * points.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures_report.h"
#include "fsutil.h"
#include "report.h"
#include "strbuf.h"
#include "util.h"

static char *scratch(void)
{
	char tmpl[] = "/tmp/mglrulab-test-sink.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

/* The number of entries in @dir (the output and any temporary left). */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void add_bytes(struct strbuf *sb, char c, size_t n)
{
	sb_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

/* Up to the threshold a flush point keeps the bytes (the renderer may still rewrite them). */
static void test_flush_point_threshold(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *dir = scratch(), *path = xasprintf("%s/out", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);

	(void)state;
	assert_true(fd >= 0);
	/* No sink: nothing happens, whatever is held. */
	add_bytes(&sb, 'a', SB_SINK_THRESHOLD + 1);
	assert_int_equal(sb_flush_point(&sb), 0);
	assert_int_equal(sb.len, SB_SINK_THRESHOLD + 1);
	assert_int_equal(sb_sink_finish(&sb), 0);
	assert_int_equal(sb.len, SB_SINK_THRESHOLD + 1);
	sb_reset(&sb);

	sb_set_sink(&sb, fd);
	add_bytes(&sb, 'b', SB_SINK_THRESHOLD);
	assert_int_equal(sb_flush_point(&sb), 0);
	assert_int_equal(sb.len, SB_SINK_THRESHOLD);
	assert_int_equal(file_size(path), 0);
	add_bytes(&sb, 'c', 1);
	assert_int_equal(sb_flush_point(&sb), 0);
	assert_int_equal(sb.len, 0);
	assert_string_equal(sb_str(&sb), "");
	assert_int_equal(file_size(path), SB_SINK_THRESHOLD + 1);
	/* The rest goes at finish, and the strbuf is an ordinary one again. */
	sb_adds(&sb, "tail");
	assert_int_equal(sb_sink_finish(&sb), 0);
	assert_int_equal(file_size(path), SB_SINK_THRESHOLD + 5);
	sb_adds(&sb, "kept");
	add_bytes(&sb, 'd', SB_SINK_THRESHOLD + 1);
	assert_int_equal(sb_flush_point(&sb), 0);
	assert_int_equal(sb.len, SB_SINK_THRESHOLD + 5);
	assert_int_equal(file_size(path), SB_SINK_THRESHOLD + 5);
	close(fd);
	sb_release(&sb);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/*
 * A failed write is sticky: later flush points write nothing, return -1
 * and drop what they hold (memory stays bounded while the renderer runs
 * on), and finish reports the first error's errno.
 */
static void sticky_error(int fd, int want_errno)
{
	struct strbuf sb = STRBUF_INIT;

	sb_set_sink(&sb, fd);
	add_bytes(&sb, 'x', SB_SINK_THRESHOLD + 1);
	assert_int_equal(sb_flush_point(&sb), -1);
	assert_int_equal(sb.len, 0);
	sb_adds(&sb, "more");
	assert_int_equal(sb_flush_point(&sb), -1);
	assert_int_equal(sb.len, 0);
	sb_adds(&sb, "last");
	errno = 0;
	assert_int_equal(sb_sink_finish(&sb), -1);
	assert_int_equal(errno, want_errno);
	/* Detached: no error left behind. */
	assert_int_equal(sb_sink_finish(&sb), 0);
	sb_release(&sb);
}

static void test_sticky_error_full(void **state)
{
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	sticky_error(fd, ENOSPC);
	close(fd);
}

static void test_sticky_error_closed(void **state)
{
	int fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	close(fds[1]);
	sticky_error(fds[1], EBADF);
}

/* An error at finish alone (less than the threshold held) is reported too. */
static void test_finish_error(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	sb_set_sink(&sb, fd);
	sb_adds(&sb, "small");
	assert_int_equal(sb_flush_point(&sb), 0);
	errno = 0;
	assert_int_equal(sb_sink_finish(&sb), -1);
	assert_int_equal(errno, ENOSPC);
	close(fd);
	sb_release(&sb);
}

/* Streamed into a user's file and committed: the whole output, nothing else. */
static void test_user_file_commit(void **state)
{
	char *dir = scratch(), *path = xasprintf("%s/out.html", dir);
	struct strbuf sb = STRBUF_INIT, back = STRBUF_INIT;
	struct user_file uf;

	(void)state;
	assert_int_equal(write_file_atomic(path, "old\n", 4), 0);
	assert_int_equal(user_file_begin(path, &uf), 0);
	sb_set_sink(&sb, uf.fd);
	for (int i = 0; i < 3; i++) {
		add_bytes(&sb, (char)('a' + i), SB_SINK_THRESHOLD);
		sb_adds(&sb, "\n");
		assert_int_equal(sb_flush_point(&sb), 0);
	}
	/* Half written: a reader still sees the old file whole. */
	assert_int_equal(read_file(path, &back, 0), 0);
	assert_string_equal(back.buf, "old\n");
	assert_int_equal(entries(dir), 2);
	assert_int_equal(sb_sink_finish(&sb), 0);
	assert_int_equal(user_file_commit(&uf), 0);
	assert_int_equal(file_size(path), 3 * (SB_SINK_THRESHOLD + 1));
	assert_int_equal(entries(dir), 1);
	sb_release(&sb);
	sb_release(&back);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/*
 * A write that fails halfway (the file size limit: EFBIG, as ENOSPC on a
 * full disk) leaves the old file as it was and no temporary.
 */
static void test_user_file_write_fails(void **state)
{
	char *dir = scratch(), *path = xasprintf("%s/out.json", dir);
	struct strbuf sb = STRBUF_INIT, back = STRBUF_INIT;
	struct rlimit old, small = { 2 * SB_SINK_THRESHOLD, 0 };
	struct user_file uf;
	int r;

	(void)state;
	assert_int_equal(write_file_atomic(path, "old\n", 4), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	small.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(user_file_begin(path, &uf), 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	sb_set_sink(&sb, uf.fd);
	for (int i = 0; i < 4; i++) {
		add_bytes(&sb, 'x', SB_SINK_THRESHOLD + 1);
		LAB_IGNORE(sb_flush_point(&sb));	/* sticky: finish says */
	}
	errno = 0;
	r = sb_sink_finish(&sb);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(r, -1);
	assert_int_equal(errno, EFBIG);
	user_file_abort(&uf);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(read_file(path, &back, 0), 0);
	assert_string_equal(back.buf, "old\n");
	assert_int_equal(entries(dir), 1);
	/* A new file that fails is not there at all. */
	unlink(path);
	assert_int_equal(user_file_begin(path, &uf), 0);
	user_file_abort(&uf);
	assert_int_equal(entries(dir), 0);
	sb_release(&sb);
	sb_release(&back);
	rmdir(dir);
	free(path);
	free(dir);
}

/* write_user_file()'s refusals, and /dev/null written in place. */
static void test_user_file_refusals(void **state)
{
	char *dir = scratch(), *link = xasprintf("%s/link", dir);
	struct user_file uf;

	(void)state;
	assert_int_equal(symlink("/dev/null", link), 0);
	assert_int_equal(user_file_begin(link, &uf), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(user_file_begin(dir, &uf), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(user_file_begin("/dev/zero", &uf), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(user_file_begin("/dev/null", &uf), 0);
	assert_int_equal(write_all(uf.fd, "x", 1), 0);
	assert_int_equal(user_file_commit(&uf), 0);
	assert_true(is_regular_file("/dev/null") == 0);
	assert_int_equal(entries(dir), 1);
	unlink(link);
	rmdir(dir);
	free(link);
	free(dir);
}

/* Standard output is never closed by commit or abort. */
static void test_user_file_stdout(void **state)
{
	struct user_file uf;

	(void)state;
	assert_int_equal(user_file_begin(USER_OUTPUT_STDOUT, &uf), 0);
	assert_int_equal(uf.fd, STDOUT_FILENO);
	assert_int_equal(user_file_commit(&uf), 0);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0);
	assert_int_equal(user_file_begin(NULL, &uf), 0);
	user_file_abort(&uf);
	assert_true(fcntl(STDOUT_FILENO, F_GETFD) >= 0);
}

typedef void (*render_fn)(const json_t *report, struct strbuf *out);

/* @render's output, streamed through a file and read back. */
static char *streamed(const json_t *report, render_fn render, size_t *len)
{
	char *dir = scratch(), *path = xasprintf("%s/out", dir);
	struct strbuf sb = STRBUF_INIT, back = STRBUF_INIT;
	struct user_file uf;

	assert_int_equal(user_file_begin(path, &uf), 0);
	sb_set_sink(&sb, uf.fd);
	render(report, &sb);
	assert_int_equal(sb_sink_finish(&sb), 0);
	assert_int_equal(user_file_commit(&uf), 0);
	assert_int_equal(read_file(path, &back, 0), 0);
	*len = back.len;
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
	sb_release(&sb);
	return sb_detach(&back);
}

static void render_text(const json_t *r, struct strbuf *out) { fixture_render_text(r, out); }
static void render_html(const json_t *r, struct strbuf *out) { fixture_render_html(r, out); }
static void render_json(const json_t *r, struct strbuf *out) { report_dump(r, out); }
static void render_benchfmt(const json_t *r, struct strbuf *out)
{
	fixture_render_benchfmt(r, &(struct report_benchfmt_opts){ .counters = 1 }, out);
}

static const struct {
	const char *name;
	render_fn render;
} renderers[] = {
	{ "text", render_text }, { "html", render_html }, { "json", render_json },
	{ "benchfmt", render_benchfmt },
};

/*
 * Each renderer's output streamed equals it built whole, at the normal
 * threshold and at 0 (every flush point writes: a renderer reading back
 * across one would differ). Returns the largest output's size.
 */
static size_t same_streamed(const json_t *report, const char *what)
{
	size_t largest = 0;

	for (size_t i = 0; i < ARRAY_SIZE(renderers); i++) {
		struct strbuf whole = STRBUF_INIT;

		renderers[i].render(report, &whole);
		for (int t = 0; t < 2; t++) {
			size_t len;
			char *s;

			sb_sink_threshold = t ? 0 : SB_SINK_THRESHOLD;
			s = streamed(report, renderers[i].render, &len);
			if (len != whole.len || memcmp(s, whole.buf, len))
				fail_msg("%s: %s streamed (threshold %zu) differs from whole: %zu vs %zu "
					 "bytes", what, renderers[i].name, sb_sink_threshold, len,
					 whole.len);
			free(s);
		}
		sb_sink_threshold = SB_SINK_THRESHOLD;
		if (whole.len > largest)
			largest = whole.len;
		sb_release(&whole);
	}
	return largest;
}

static json_t *analyze(json_t *session, const char *what)
{
	struct strbuf err = STRBUF_INIT;
	json_t *r = report_analyze(session, &err);

	if (!r)
		fail_msg("%s: %s", what, err.buf);
	sb_release(&err);
	json_decref(session);
	return r;
}

static void test_fixtures_streamed(void **state)
{
	static const char *const fixtures[] = {
		"session-ab.json", "session-one.json", "session-small.json", "nightly-a.json",
		"nightly-b.json",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(fixtures); i++) {
		struct strbuf err = STRBUF_INIT;
		char *path = xasprintf("tests/fixtures/reports/%s", fixtures[i]);
		json_t *in, *r;

		if (report_load(path, &in, &err))
			fail_msg("%s", err.buf);
		r = analyze(in, path);
		same_streamed(r, path);
		json_decref(r);
		sb_release(&err);
		free(path);
	}
}

/*
 * A session of @n workloads (bench/input-bench's shape): 3 runs of each
 * kernel, 2 metrics each. Few resamples: the outputs' size is what counts.
 */
static json_t *generated(int n)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	json_t *s;
	int seq = 0;

	sb_adds(&sb, "{\"schema\": \"mglrulab-report/1\", \"generator\": {\"name\": \"mglrulab\", "
		"\"version\": \"0\"}, \"host\": {\"accel\": \"kvm\"}, \"design\": {\"baseline\": "
		"\"base\", \"patched\": \"patched\"}, \"statistics\": {\"resamples\": 100, "
		"\"counter_resamples\": 100}, \"kernels\": [{\"name\": \"base\"}, {\"name\": "
		"\"patched\"}], \"runs\": [");
	for (int w = 0; w < n; w++) {
		for (int r = 0; r < 6; r++, seq++)
			sb_addf(&sb, "%s{\"seq\":%d,\"kernel\":\"%s\",\"workload\":\"w%05d\","
				"\"block\":%d,\"status\":\"ok\",\"metrics\":{\"ops_per_s\":%d.%d,"
				"\"elapsed_s\":%d.%d}}", seq ? "," : "", seq, r % 2 ? "patched" : "base",
				w, seq / 4, 1000 + (seq * 7919) % 97, r, 2 + seq % 3, w % 10);
	}
	sb_adds(&sb, "]}\n");
	if (report_load_buffer(sb.buf, sb.len, &s, &err))
		fail_msg("generated: %s", err.buf);
	sb_release(&sb);
	sb_release(&err);
	return s;
}

static void test_large_streamed(void **state)
{
	json_t *r = analyze(generated(300), "generated");

	(void)state;
	/* Several flush points crossed at the normal threshold. */
	assert_true(same_streamed(r, "generated") > 4 * SB_SINK_THRESHOLD);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flush_point_threshold),
		cmocka_unit_test(test_sticky_error_full),
		cmocka_unit_test(test_sticky_error_closed),
		cmocka_unit_test(test_finish_error),
		cmocka_unit_test(test_user_file_commit),
		cmocka_unit_test(test_user_file_write_fails),
		cmocka_unit_test(test_user_file_refusals),
		cmocka_unit_test(test_user_file_stdout),
		cmocka_unit_test(test_fixtures_streamed),
		cmocka_unit_test(test_large_streamed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
