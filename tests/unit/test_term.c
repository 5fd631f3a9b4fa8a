// SPDX-License-Identifier: GPL-2.0
/*
 * What reaches the operator's terminal: error(), warning(), info() and
 * term_printf() pass every string through sb_add_term_safe(), so a patch
 * subject, a guest's console or a report value cannot retitle, clear or
 * recolour the terminal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "domain_run.h"
#include "escape.h"
#include "fsutil.h"
#include "session.h"
#include "session_plan.h"
#include "run_record.h"
#include "strbuf.h"
#include "util.h"

/* An OSC title change, a screen clear, a cursor move, a C1 CSI, a bidi override. */
#define HOSTILE "\x1b]0;pwned\a\x1b[2J\x1b[H\xc2\x9b" "31m\xe2\x80\xae" "end"
#define HOSTILE_SAFE "?]0;pwned??[2J?[H?31m?end"

/* Run @fn with @fd (1 or 2) redirected to a file; return what it wrote. */
static char *capture(int fd, void (*fn)(void))
{
	char path[] = "/tmp/test_term.XXXXXX";
	int tmp = mkstemp(path), saved = dup(fd);
	struct strbuf sb = STRBUF_INIT;

	assert_true(tmp >= 0 && saved >= 0);
	fflush(stdout);
	fflush(stderr);
	dup2(tmp, fd);
	fn();
	fflush(stdout);
	fflush(stderr);
	dup2(saved, fd);
	close(saved);
	close(tmp);
	assert_int_equal(read_file(path, &sb, 1 << 20), 0);
	unlink(path);
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}

static void term_is(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	sb_add_term_safe(&sb, in);
	assert_string_equal(sb_str(&sb), want);
	sb_release(&sb);
}

static void test_term_safe(void **state)
{
	(void)state;
	term_is(HOSTILE, HOSTILE_SAFE);
	/* Lines and tabs survive: messages and log tails span lines. */
	term_is("line 1\n\tline 2\n", "line 1\n\tline 2\n");
	term_is("over\rwrite\bx\x7f", "over?write?x?");
	term_is("crlf\r\nends\r\n", "crlf\nends\n");
	term_is("caf\xc3\xa9 \xff", "caf\xc3\xa9 ?");
	term_is(NULL, "");
}

static void emit_error(void)
{
	assert_int_equal(user_error("patch \"%s\" does not apply", HOSTILE), LAB_EUSER);
	warning("guest said: %s", HOSTILE);
}

static void test_error_and_warning_filtered(void **state)
{
	char *out = capture(2, emit_error);
	(void)state;

	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\a'));
	assert_string_equal(out, "mglrulab: error: patch \"" HOSTILE_SAFE "\" does not apply\n"
				 "mglrulab: warning: guest said: " HOSTILE_SAFE "\n");
	free(out);
}

static void emit_info(void)
{
	info("console:\n%s\n", HOSTILE);
	term_printf(stdout, "[%s] %s\n", "k", HOSTILE);
}

static void test_info_and_term_printf_filtered(void **state)
{
	char *out = capture(1, emit_info);
	(void)state;

	assert_string_equal(out, "console:\n" HOSTILE_SAFE "\n\n[k] " HOSTILE_SAFE "\n");
	free(out);
}

/* A guest console log: CRLF line ends (serial), escapes the guest printed. */
static void test_console_tail_filtered(void **state)
{
	char path[] = "/tmp/test_term_console.XXXXXX";
	int fd = mkstemp(path);
	static const char log[] = "[    1.0] booting\r\n[    1.1] " HOSTILE "\r\n"
				  "over\rwritten\r\n";
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, log, sizeof(log) - 1), (ssize_t)sizeof(log) - 1);
	close(fd);
	guest_console_tail(path, &sb);
	unlink(path);
	assert_string_equal(sb_str(&sb), "[    1.0] booting\n[    1.1] " HOSTILE_SAFE "\n"
					  "over?written\n");
	sb_release(&sb);
}

/* The progress line of a failed run shows the guest's reason, filtered. */
static void test_progress_line_filtered(void **state)
{
	struct plan_entry planned = { .seq = 3, .block = 2, .kernel = "base", .workload = "yp" };
	json_t *failed = json_pack("{s:i, s:s, s:s, s:s, s:s}", "seq", 3, "kernel", "base",
				   "workload", "yp", "status", "failed",
				   "failure", "workload: " HOSTILE "\nsecond line");
	json_t *ok = json_pack("{s:i, s:s, s:s, s:s, s:{s:f}, s:{}}", "seq", 4, "kernel", "base",
			       "workload", "yp", "status", "ok",
			       "metrics", "\x1b[2Jops", 12.5, "timings");
	struct run_record rf, rok;
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_int_equal(run_record_decode(failed, &rf, &sb), 0);
	assert_int_equal(run_record_decode(ok, &rok, &sb), 0);
	session_progress_line(&sb, 3, 8, &planned, &rf);
	assert_string_equal(sb_str(&sb), "run 3/8 base yp: failed: workload: " HOSTILE_SAFE);
	sb_reset(&sb);
	session_progress_line(&sb, 4, 8, &planned, &rok);
	assert_string_equal(sb_str(&sb), "run 4/8 base yp: ok ?[2Jops=12.5"
			    " (boot 0.0s [guest clock], workload 0.0s [guest clock], host 0.00s)");
	sb_reset(&sb);
	/* A record that does not decode is not a crash either. */
	session_progress_line(&sb, 5, 8, &planned, NULL);
	assert_string_equal(sb_str(&sb), "run 5/8 base yp: ?: ");
	sb_release(&sb);
	run_record_release(&rf);
	run_record_release(&rok);
	json_decref(failed);
	json_decref(ok);
}

/*
 * Under icount the guest's uptime is not the host's time: a run that took
 * 15 s printed "boot 161.8s". The progress line gives the host's clock
 * and labels the guest's.
 */
static void test_progress_boot_wall_clock(void **state)
{
	struct plan_entry planned = { .seq = 1, .block = 1, .kernel = "base", .workload = "yp" };
	json_t *ok = json_pack("{s:i, s:s, s:s, s:s, s:{s:f}, s:{s:f, s:f, s:f, s:f}}", "seq", 1,
			       "kernel", "base", "workload", "yp", "status", "ok", "metrics", "ops",
			       1.0, "timings", "boot_s", 161.8, "boot_wall_s", 15.2,
			       "workload_s", 4.0, "host_overhead_s", 0.25);
	struct run_record r;
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_int_equal(run_record_decode(ok, &r, &sb), 0);
	assert_true(r.timings.boot_wall_s == 15.2 && r.timings.boot_s == 161.8);
	session_progress_line(&sb, 1, 2, &planned, &r);
	assert_string_equal(sb_str(&sb), "run 1/2 base yp: ok ops=1"
			    " (boot 15.2s [guest clock 161.8s], workload 4.0s [guest clock],"
			    " host 0.25s)");
	sb_release(&sb);
	run_record_release(&r);
	json_decref(ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_safe),
		cmocka_unit_test(test_error_and_warning_filtered),
		cmocka_unit_test(test_info_and_term_printf_filtered),
		cmocka_unit_test(test_console_tail_filtered),
		cmocka_unit_test(test_progress_line_filtered),
		cmocka_unit_test(test_progress_boot_wall_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
