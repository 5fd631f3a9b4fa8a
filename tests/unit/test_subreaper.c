// SPDX-License-Identifier: GPL-2.0
/*
 * The subreaper (subreaper.h) with real processes: orphans of any name
 * are reaped, a non-QEMU zombie that is first in the child list does not
 * hide a QEMU behind it (the first cold `make demo` crawled on exactly
 * that: a daemonized `git gc` zombie), and a child run_command() waits for
 * is never taken from it, however long it stays a zombie. Everything here
 * looks only at this test's own pids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_command.h"
#include "subreaper.h"
#include "util.h"

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * A daemon as git's gc or libvirt make one: fork, setsid, fork, the middle
 * process exits. The grandchild, named @comm, exits after @ms and is then
 * this process's orphan (we are its subreaper). Returns its pid.
 */
static pid_t orphan(const char *comm, int ms)
{
	int fds[2];
	pid_t mid, pid = 0;

	assert_int_equal(pipe(fds), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (!mid) {
		pid_t g;

		setsid();
		g = fork();
		if (!g) {
			prctl(PR_SET_NAME, comm, 0, 0, 0);
			close(fds[0]);
			close(fds[1]);
			sleep_ms(ms);
			_exit(0);
		}
		if (write(fds[1], &g, sizeof(g)) != (ssize_t)sizeof(g))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &pid, sizeof(pid)), (ssize_t)sizeof(pid));
	close(fds[0]);
	assert_int_equal(waitpid(mid, NULL, 0), mid);
	return pid;
}

/* 'Z' when @pid is a zombie, 0 when gone, another state letter otherwise. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (p && sscanf(p + 1, " %c", &st) != 1)
		st = '?';
	return st;
}

static int setup(void **state)
{
	(void)state;
	return subreaper_enable() ? -1 : 0;
}

/*
 * A "git" zombie first, a QEMU zombie behind it: the QEMU is reaped after
 * its short grace while the other still has its long one, then the other.
 */
static void test_zombie_first_does_not_hide_qemu(void **state)
{
	pid_t git, qemu;
	(void)state;

	git = orphan("git", 50);
	qemu = orphan("qemu-system-x86", 150);
	sleep_ms(150 + REAPER_GRACE_QEMU_MS + 350);
	assert_int_equal(state_of(qemu), 0);
	assert_int_equal(state_of(git), 'Z');
	sleep_ms(REAPER_GRACE_OTHER_MS + 300);
	assert_int_equal(state_of(git), 0);
}

/* Many orphans of any name at once: none is left a zombie. */
static void test_every_orphan_reaped(void **state)
{
	pid_t pids[12];
	(void)state;

	for (int i = 0; i < 12; i++)
		pids[i] = orphan(i % 3 ? "make" : "qemu-system-x86", 20 * i);
	sleep_ms(20 * 12 + REAPER_GRACE_OTHER_MS + 400);
	for (int i = 0; i < 12; i++)
		assert_int_equal(state_of(pids[i]), 0);
}

/*
 * run_command()'s child exits at once but a grandchild holds its output
 * pipe for longer than the long grace, so the child stays a zombie that
 * long before run_command() waits for it: it must get its status, 3.
 */
static void test_run_command_child_never_stolen(void **state)
{
	char script[128];
	const char *argv[] = { "sh", "-c", script, NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out };
	(void)state;

	snprintf(script, sizeof(script), "(sleep %.1f; echo late) & exit 3",
		 REAPER_GRACE_OTHER_MS / 1000.0 + 0.5);
	assert_int_equal(run_command(&c), 3);
	assert_string_equal(sb_str(&out), "late\n");
	sb_release(&out);
}

struct worker {
	int runs, wrong;
};

static void *spawn_loop(void *arg)
{
	struct worker *w = arg;
	const char *argv[] = { "sh", "-c", "exit 5", NULL };

	for (int i = 0; i < 40; i++) {
		struct child c = { .argv = argv, .null_stdout = 1 };

		w->wrong += run_command(&c) != 5;
		w->runs++;
	}
	return NULL;
}

/* Two threads spawn at once while orphans die around them: every status right. */
static void test_threads_and_orphans(void **state)
{
	struct worker w[2] = { { 0, 0 }, { 0, 0 } };
	pthread_t th[2];
	pid_t o[4];
	(void)state;

	for (int i = 0; i < 4; i++)
		o[i] = orphan(i % 2 ? "git" : "qemu-system-x86", 10 * i);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&th[i], NULL, spawn_loop, &w[i]), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(w[i].runs, 40);
		assert_int_equal(w[i].wrong, 0);
	}
	sleep_ms(REAPER_GRACE_OTHER_MS + 400);
	for (int i = 0; i < 4; i++)
		assert_int_equal(state_of(o[i]), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zombie_first_does_not_hide_qemu),
		cmocka_unit_test(test_every_orphan_reaped),
		cmocka_unit_test(test_run_command_child_never_stolen),
		cmocka_unit_test(test_threads_and_orphans),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
