// SPDX-License-Identifier: GPL-2.0
/* lab/lib/interrupt.c: SIGINT/SIGTERM remembered, callbacks in the handler and at cleanup. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "interrupt.h"
#include "run_command.h"
#include "util.h"

static volatile sig_atomic_t in_handler, in_handler_sig;
static int cleanups, cleanup_sig, order[4], norder;

static void handler_fn(int sig)
{
	in_handler++;
	in_handler_sig = sig;
}

static void cleanup_a(int sig)
{
	cleanups++;
	cleanup_sig = sig;
	order[norder++ % 4] = 1;
}

static void cleanup_b(int sig)
{
	(void)sig;
	order[norder++ % 4] = 2;
}

/* One process per case: the interruption is process-wide and final. */
static int in_child(void (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		fn();
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void not_caught(void)
{
	/* Before interrupt_catch() SIGTERM keeps its default action. */
	raise(SIGTERM);
	_exit(7);
}

static void test_default_until_caught(void **state)
{
	int status = in_child(not_caught);
	(void)state;

	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGTERM);
}

static void test_signal_remembered(void **state)
{
	(void)state;

	assert_int_equal(interrupted(), 0);
	assert_int_equal(interrupt_cleanup(), 0);	/* not interrupted: nothing runs */
	assert_int_equal(interrupt_on_signal(handler_fn), 0);
	assert_int_equal(interrupt_on_signal(handler_fn), 0);	/* once, not twice */
	assert_int_equal(interrupt_on_cleanup(cleanup_a), 0);
	assert_int_equal(interrupt_on_cleanup(cleanup_b), 0);
	assert_int_equal(interrupt_catch(), 0);
	assert_int_equal(interrupt_catch(), 0);
	assert_int_equal(cleanups, 0);

	assert_int_equal(raise(SIGTERM), 0);	/* the process goes on */
	assert_int_equal(interrupted(), SIGTERM);
	assert_int_equal(in_handler, 1);
	assert_int_equal(in_handler_sig, SIGTERM);
	/* Cleanups run only when asked, outside the handler, in order. */
	assert_int_equal(cleanups, 0);
	assert_int_equal(interrupt_cleanup(), SIGTERM);
	assert_int_equal(cleanups, 1);
	assert_int_equal(cleanup_sig, SIGTERM);
	assert_int_equal(norder, 2);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);

	assert_int_equal(raise(SIGINT), 0);
	assert_int_equal(interrupted(), SIGINT);
	assert_int_equal(in_handler, 2);
}

static void sleeper(void)
{
	pid_t self = getpid();

	assert_int_equal(interrupt_catch(), 0);
	/*
	 * The handler stops the child run_command() waits for: sleep ends
	 * early. SIGINT again and again until this process is gone, so that a
	 * signal that came before `sleep` started (a slow, busy host) does not
	 * leave the test waiting 30 s.
	 */
	if (fork() == 0) {
		for (int i = 0; i < 300 && !kill(self, SIGINT); i++)
			usleep(100 * 1000);
		_exit(0);
	}
	int rc = run_command(&(struct child){ .argv = (const char *const[]){ "sleep", "30", NULL } });
	_exit(rc == 128 + SIGTERM && interrupted() == SIGINT && run_command_stopped_by() == SIGINT ?
	      0 : 10);
}

static void test_stops_child(void **state)
{
	int status = in_child(sleeper);
	(void)state;

	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

#define FN(n) static void fn##n(int sig) { (void)sig; }
FN(0) FN(1) FN(2) FN(3) FN(4) FN(5) FN(6) FN(7) FN(8)

static void test_table_full(void **state)
{
	static interrupt_fn *const fns[] = { fn0, fn1, fn2, fn3, fn4, fn5, fn6, fn7, fn8 };
	int status;
	pid_t pid = fork();
	(void)state;

	assert_int_equal(ARRAY_SIZE(fns), INTERRUPT_MAX_FNS + 1);
	if (pid == 0) {
		for (int i = 0; i < INTERRUPT_MAX_FNS; i++)
			if (interrupt_on_cleanup(fns[i]))
				_exit(1);
		/* full: refused, but one already there is still fine */
		_exit(interrupt_on_cleanup(fns[INTERRUPT_MAX_FNS]) == -1 &&
		      interrupt_on_cleanup(fns[0]) == 0 && interrupt_on_signal(fns[8]) == 0 ? 0 : 2);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_until_caught),
		cmocka_unit_test(test_stops_child),
		cmocka_unit_test(test_table_full),
		cmocka_unit_test(test_signal_remembered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
