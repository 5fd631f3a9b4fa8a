// SPDX-License-Identifier: GPL-2.0
/*
 * run_command(): children from an argv vector, their output, exit status,
 * death by signal, and programs that cannot be run. The lab spawns git,
 * make, tar, qemu-img and the compiler this way, with user strings in argv.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "interrupt.h"
#include "run_command.h"
#include "subreaper.h"
#include "util.h"

/* No shell between us and the program: metacharacters arrive as they are. */
static void test_argv_reaches_program_verbatim(void **state)
{
	const char *argv[] = { "printf", "[%s]", "a b", "$HOME;`id`|*", "", NULL };
	struct strbuf out = STRBUF_INIT;
	(void)state;

	assert_int_equal(run_capture(argv, NULL, &out), 0);
	assert_string_equal(sb_str(&out), "[a b][$HOME;`id`|*][]");
	sb_release(&out);
}

static void test_exit_status(void **state)
{
	const char *ok[] = { "true", NULL }, *no[] = { "false", NULL };
	const char *three[] = { "sh", "-c", "exit 3", NULL };
	const char *max[] = { "sh", "-c", "exit 255", NULL };
	struct child c = { 0 };
	(void)state;

	c.argv = ok;
	assert_int_equal(run_command(&c), 0);
	c.argv = no;
	assert_int_equal(run_command(&c), 1);
	c.argv = three;
	assert_int_equal(run_command(&c), 3);
	c.argv = max;
	assert_int_equal(run_command(&c), 255);
}

static void test_killed_by_signal(void **state)
{
	const char *term[] = { "sh", "-c", "kill -TERM $$", NULL };
	const char *kill9[] = { "sh", "-c", "kill -KILL $$", NULL };
	struct child c = { .argv = term };
	(void)state;

	assert_int_equal(run_command(&c), 128 + SIGTERM);
	c.argv = kill9;
	assert_int_equal(run_command(&c), 128 + SIGKILL);
}

/* The child says why on its stderr and exits 127, as a shell would. */
static void test_program_that_does_not_exist(void **state)
{
	const char *argv[] = { "mglrulab-no-such-program", "x", NULL };
	const char *path[] = { "/nonexistent/mglrulab-prog", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .merge_stderr = 1 };
	(void)state;

	assert_int_equal(run_command(&c), 127);
	assert_non_null(strstr(sb_str(&out), "cannot run mglrulab-no-such-program"));
	sb_reset(&out);
	c.argv = path;
	assert_int_equal(run_command(&c), 127);
	assert_non_null(strstr(sb_str(&out), "/nonexistent/mglrulab-prog"));
	sb_release(&out);
}

/* stdout is captured; stderr only when merged, else it goes nowhere (null_stdout). */
static void test_capture_and_stderr(void **state)
{
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2; printf 'x\\n\\n\\n'", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .merge_stderr = 1 };
	(void)state;

	assert_int_equal(run_capture(argv, NULL, &out), 0);
	assert_string_equal(sb_str(&out), "out\nx");	/* trailing newlines trimmed */
	sb_reset(&out);
	assert_int_equal(run_command(&c), 0);
	assert_non_null(strstr(sb_str(&out), "err\n"));
	assert_non_null(strstr(sb_str(&out), "out\n"));
	sb_release(&out);
}

static void test_stdin_is_empty(void **state)
{
	const char *argv[] = { "cat", NULL };
	struct strbuf out = STRBUF_INIT;
	(void)state;

	/* would wait for the terminal forever if stdin were inherited */
	assert_int_equal(run_capture(argv, NULL, &out), 0);
	assert_int_equal(out.len, 0);
	sb_release(&out);
}

/* stdin_path: the file is the child's stdin (watch run --sendmail's reply); a missing one: 127. */
static void test_stdin_from_file(void **state)
{
	const char *argv[] = { "cat", NULL };
	char path[] = "/tmp/mglrulab-test-stdin-XXXXXX";
	int fd = mkstemp(path);
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = argv, .out = &out, .stdin_path = path };
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "Subject: hi\n\nbody\n", 19), 19);
	close(fd);
	assert_int_equal(run_command(&c), 0);
	assert_string_equal(sb_str(&out), "Subject: hi\n\nbody\n");
	unlink(path);
	sb_reset(&out);
	assert_int_equal(run_command(&c), 127);
	assert_int_equal(out.len, 0);
	sb_release(&out);
}

static void test_dir_and_env(void **state)
{
	const char *pwd[] = { "pwd", NULL };
	const char *env[] = { "sh", "-c", "printf %s \"$MGLRULAB_T\"", NULL };
	const char *extra[] = { "MGLRULAB_T=v a;l", NULL };
	struct strbuf out = STRBUF_INIT;
	struct child c = { .argv = env, .env = extra, .out = &out };
	(void)state;

	assert_int_equal(run_capture(pwd, "/usr", &out), 0);
	assert_string_equal(sb_str(&out), "/usr");
	sb_reset(&out);
	assert_int_equal(run_capture(pwd, "/nonexistent-mglrulab", &out), 127);
	sb_reset(&out);
	assert_int_equal(run_command(&c), 0);
	assert_string_equal(sb_str(&out), "v a;l");
	assert_null(getenv("MGLRULAB_T"));	/* set in the child only */
	sb_release(&out);
}

static void collect(const char *line, void *data)
{
	strvec_push(data, line);
}

static void test_lines(void **state)
{
	const char *argv[] = { "sh", "-c", "printf 'e\\n' >&2; printf 'one\\ntwo\\n\\nlast'", NULL };
	struct strvec lines = STRVEC_INIT;
	struct child c = { .argv = argv, .on_line = collect, .data = &lines };
	(void)state;

	assert_int_equal(run_command(&c), 0);
	assert_int_equal(lines.n, 5);
	assert_string_equal(lines.v[0], "e");		/* stderr is part of the stream */
	assert_string_equal(lines.v[1], "one");
	assert_string_equal(lines.v[2], "two");
	assert_string_equal(lines.v[3], "");
	assert_string_equal(lines.v[4], "last");	/* no newline: still a line, at the end */
	strvec_clear(&lines);
}

static void test_log_file(void **state)
{
	char dir[] = "/tmp/mglrulab-rc-XXXXXX";
	const char *argv[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	struct strbuf text = STRBUF_INIT;
	struct child c = { .argv = argv };
	char *log, *link;
	(void)state;

	assert_non_null(mkdtemp(dir));
	log = xasprintf("%s/build.log", dir);
	link = xasprintf("%s/link.log", dir);
	c.log_path = log;
	assert_int_equal(run_command(&c), 0);
	assert_int_equal(run_command(&c), 0);	/* appends */
	assert_int_equal(read_file(log, &text, 0), 0);
	assert_string_equal(sb_str(&text), "out\nerr\nout\nerr\n");
	/* never through a planted symlink */
	assert_int_equal(symlink(log, link), 0);
	c.log_path = link;
	errno = 0;
	assert_int_equal(run_command(&c), -1);
	assert_int_equal(errno, ELOOP);
	rm_rf(dir);
	sb_release(&text);
	free(log);
	free(link);
}

/* What a SIGINT handler does: the child gets SIGTERM, the signal is remembered. */
static void stop_on_first_line(const char *line, void *data)
{
	(void)data;
	if (!strcmp(line, "ready"))
		run_command_stop_child(SIGINT);
}

static void test_stop_child(void **state)
{
	const char *argv[] = { "sh", "-c", "echo ready; exec sleep 30", NULL };
	struct child c = { .argv = argv, .on_line = stop_on_first_line };
	double t0 = now_monotonic();
	(void)state;

	assert_int_equal(run_command_stopped_by(), 0);
	run_command_stop_child(SIGINT);		/* no child: nothing to stop */
	assert_int_equal(run_command_stopped_by(), 0);
	assert_int_equal(run_command(&c), 128 + SIGTERM);
	assert_int_equal(run_command_stopped_by(), SIGINT);
	assert_true(now_monotonic() - t0 < 20);
}

/*
 * A signal that lands while no child runs (between two steps of a kernel
 * build) keeps the next unless_stopped command from starting; commands
 * without the flag still run (the session's cleanup needs them).
 * Runs after test_stop_child, whose signal is the one pending.
 */
static void test_unless_stopped(void **state)
{
	char dir[] = "/tmp/mglrulab-test-rc-XXXXXX", *mark;
	const char *touch[] = { "touch", NULL, NULL };
	struct child c = { .argv = touch, .unless_stopped = 1 };
	(void)state;

	assert_non_null(mkdtemp(dir));
	mark = xasprintf("%s/started", dir);
	touch[1] = mark;
	run_command_stop_child(SIGTERM);	/* no child running */
	errno = 0;
	assert_int_equal(run_command(&c), -1);
	assert_int_equal(errno, EINTR);
	assert_int_equal(access(mark, F_OK), -1);
	assert_int_equal(run_command_stopped_by(), SIGTERM);
	c.unless_stopped = 0;
	assert_int_equal(run_command(&c), 0);
	assert_int_equal(access(mark, F_OK), 0);
	unlink(mark);
	rmdir(dir);
	free(mark);
}

/*
 * A new_group child (make) is stopped with everything it started: here a
 * shell whose two background sleeps stand for the compilers a killed
 * shell leaves running. run_command() returns only once they are gone.
 * In a child process of its own: the stop is process-wide.
 */
static int stop_group_case(const char *dir)
{
	char *script = xasprintf("sleep 30 & echo $! > %s/a; sh -c 'sleep 30' & echo $! > %s/b;"
				 " echo ready; wait", dir, dir);
	const char *argv[] = { "sh", "-c", script, NULL };
	struct child c = { .argv = argv, .on_line = stop_on_first_line, .new_group = 1 };
	double t0 = now_monotonic();
	int r = run_command(&c), bad = 0;

	if (r != 128 + SIGTERM)
		bad |= 1;
	for (const char *f = "ab"; *f; f++) {
		char *path = xasprintf("%s/%c", dir, *f);
		struct strbuf sb = STRBUF_INIT;
		long pid = read_file(path, &sb, 64) ? 0 : strtol(sb_str(&sb), NULL, 10);
		/* Gone: not even a zombie (kill() finds zombies too). */
		if (pid <= 0 || !kill((pid_t)pid, 0))
			bad |= 2;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
		sb_release(&sb);
		free(path);
	}
	if (now_monotonic() - t0 > 20)
		bad |= 4;
	free(script);
	return bad;
}

static void test_stop_group(void **state)
{
	char dir[] = "/tmp/mglrulab-test-rc-XXXXXX";
	int status;
	pid_t pid;
	(void)state;

	assert_non_null(mkdtemp(dir));
	pid = fork();
	if (pid == 0)
		_exit(stop_group_case(dir));
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(rm_rf(dir), 0);
}

/*
 * Several threads at once, as the session's slot workers run them (guest
 * overlays, uploads): each call gets its own child's status and output,
 * never another thread's.
 */
#define NTHREADS 8
#define ROUNDS 12

struct worker {
	int id;
	int bad_status, bad_output, bad_lines;	/* rounds that went wrong */
};

static void count_line(const char *line, void *data)
{
	int *n = data;

	*n += !strcmp(line, "l");
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char script[64], want[32];
	const char *argv[] = { "sh", "-c", script, NULL };
	const char *tf[] = { w->id % 2 ? "/bin/false" : "/bin/true", NULL };
	struct strbuf out = STRBUF_INIT;

	for (int i = 0; i < ROUNDS; i++) {
		int code = (w->id * ROUNDS + i) % 256, lines = 0;
		struct child c = { .argv = argv, .out = &out };
		struct child l = { .argv = argv, .on_line = count_line, .data = &lines };
		struct child t = { .argv = tf };

		snprintf(script, sizeof(script), "echo w%d-%d; exit %d", w->id, i, code);
		snprintf(want, sizeof(want), "w%d-%d\n", w->id, i);
		sb_reset(&out);
		w->bad_status += run_command(&c) != code;
		w->bad_output += strcmp(sb_str(&out), want) != 0;
		snprintf(script, sizeof(script), "for i in 1 2 3 %d; do echo l; done", w->id);
		w->bad_lines += run_command(&l) != 0 || lines != 4;
		w->bad_status += run_command(&t) != w->id % 2;
	}
	sb_release(&out);
	return NULL;
}

/* No child of this process is left, not even a zombie. */
static int no_child_left(void)
{
	return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

static void test_threads(void **state)
{
	struct worker w[NTHREADS];
	pthread_t th[NTHREADS];
	(void)state;

	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(w[i].bad_status, 0);
		assert_int_equal(w[i].bad_output, 0);
		assert_int_equal(w[i].bad_lines, 0);
	}
	assert_true(no_child_left());
}

/*
 * SIGTERM at the process while every thread waits for a long child: the
 * handler (interrupt.c) stops them all, each call returns 128+SIGTERM at
 * once, and none of the children is left. Half of them lead a group of
 * their own (make), with a background sleep in it that must go too.
 */
struct waiter {
	int id;
	pid_t pid, bg;			/* from the child's first lines */
	int ret;
	volatile int *ready;
};

static void note_pids(const char *line, void *data)
{
	struct waiter *w = data;
	long v = strtol(line + 1, NULL, 10);

	if (line[0] == 'p')
		w->pid = (pid_t)v;
	else if (line[0] == 'b')
		w->bg = (pid_t)v;
	else if (!strcmp(line, "ready"))
		__atomic_add_fetch(w->ready, 1, __ATOMIC_SEQ_CST);
}

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	const char *plain[] = { "sh", "-c", "echo p$$; echo ready; exec sleep 30", NULL };
	const char *group[] = { "sh", "-c", "sleep 30 & echo b$!; echo p$$; echo ready; wait", NULL };
	struct child c = { .argv = w->id % 2 ? group : plain, .new_group = w->id % 2,
			   .on_line = note_pids, .data = w };

	w->ret = run_command(&c);
	return NULL;
}

/* Whether @pid is gone: kill() finds zombies too. Only pids our children reported. */
static int gone(pid_t pid)
{
	return pid > 0 && kill(pid, 0) && errno == ESRCH;
}

static int interrupt_case(void)
{
	struct waiter w[NTHREADS];
	pthread_t th[NTHREADS];
	volatile int ready = 0;
	const char *touch[] = { "true", NULL };
	struct child later = { .argv = touch, .unless_stopped = 1 };
	double t0 = now_monotonic();
	int bad = 0;

	if (interrupt_catch() || subreaper_enable())
		return 1;
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct waiter){ .id = i, .ready = &ready };
		if (pthread_create(&th[i], NULL, waiter_main, &w[i]))
			return 1;
	}
	while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < NTHREADS && now_monotonic() - t0 < 10)
		usleep(1000);
	kill(getpid(), SIGTERM);
	for (int i = 0; i < NTHREADS; i++) {
		pthread_join(th[i], NULL);
		if (w[i].ret != 128 + SIGTERM)
			bad |= 2;
		if (!gone(w[i].pid) || (w[i].id % 2 && !gone(w[i].bg)))
			bad |= 4;
	}
	if (interrupted() != SIGTERM || run_command_stopped_by() != SIGTERM)
		bad |= 8;
	errno = 0;
	if (run_command(&later) != -1 || errno != EINTR)
		bad |= 16;
	if (now_monotonic() - t0 > 20)
		bad |= 32;
	if (!no_child_left())
		bad |= 64;
	return bad;
}

static void test_interrupt_threads(void **state)
{
	int status;
	pid_t pid;
	(void)state;

	/* in a process of its own: the signal and the stop are process-wide */
	pid = fork();
	if (pid == 0)
		_exit(interrupt_case());
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_program_in_path(void **state)
{
	(void)state;
	assert_true(program_in_path("sh"));
	assert_true(program_in_path("/bin/sh"));
	assert_false(program_in_path("mglrulab-no-such-program"));
	assert_false(program_in_path("/etc/passwd"));	/* exists, not executable */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_reaches_program_verbatim),
		cmocka_unit_test(test_exit_status),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_program_that_does_not_exist),
		cmocka_unit_test(test_capture_and_stderr),
		cmocka_unit_test(test_stdin_from_file),
		cmocka_unit_test(test_stdin_is_empty),
		cmocka_unit_test(test_dir_and_env),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_log_file),
		cmocka_unit_test(test_stop_group),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_interrupt_threads),
		cmocka_unit_test(test_stop_child),
		cmocka_unit_test(test_unless_stopped),
		cmocka_unit_test(test_program_in_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
