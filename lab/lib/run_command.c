// SPDX-License-Identifier: GPL-2.0
#include "run_command.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void emit_lines(struct child *c, struct strbuf *pending, int final)
{
	char *start = pending->buf, *nl;
	size_t consumed = 0;

	if (!c->on_line || !pending->len)
		goto out;
	while ((nl = memchr(start, '\n', pending->len - consumed))) {
		*nl = '\0';
		c->on_line(start, c->data);
		consumed += (size_t)(nl - start) + 1;
		start = nl + 1;
	}
	if (final && consumed < pending->len) {
		c->on_line(start, c->data);
		consumed = pending->len;
	}
out:
	if (consumed) {
		memmove(pending->buf, pending->buf + consumed, pending->len - consumed);
		pending->len -= consumed;
		pending->buf[pending->len] = '\0';
	}
	if (final)
		sb_reset(pending);
}

/*
 * The child being waited for, so that SIGINT/SIGTERM to the lab can stop
 * it too: a kill aimed at mglrulab alone (a CI timeout, kill PID) would
 * otherwise leave make compiling for minutes.
 */
static volatile pid_t running_child;
static volatile sig_atomic_t child_stopped_by, stop_pending;

void run_command_stop_child(int sig)
{
	pid_t pid = running_child;

	stop_pending = sig;
	if (pid > 0) {
		child_stopped_by = sig;
		/* SIGTERM: make then stops its own jobs too (on SIGINT it waits for them). */
		kill(pid, SIGTERM);
	}
}

int run_command_stopped_by(void)
{
	return child_stopped_by;
}

int run_command(struct child *c)
{
	int pipefd[2] = { -1, -1 }, logfd = -1, status;
	int want_pipe = c->out || c->on_line;
	pid_t pid;

	if (c->log_path) {
		logfd = open(c->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW,
			     0644);
		if (logfd < 0)
			return -1;
	}
	if (want_pipe && pipe2(pipefd, O_CLOEXEC)) {
		if (logfd >= 0)
			close(logfd);
		return -1;
	}
	fflush(NULL);
	/*
	 * SIGINT/SIGTERM stay blocked from the fork until running_child is set
	 * (parent) or the dispositions are reset (child): a signal in between
	 * would otherwise find no child to stop, or run the lab's handler in
	 * the child, which then execs as if nothing had happened.
	 */
	sigset_t stop_sigs, old_mask;

	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop_sigs, &old_mask);
	if (c->unless_stopped && stop_pending) {
		child_stopped_by = stop_pending;
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		if (logfd >= 0)
			close(logfd);
		if (want_pipe)
			close(pipefd[0]), close(pipefd[1]);
		errno = EINTR;
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		if (logfd >= 0)
			close(logfd);
		if (want_pipe)
			close(pipefd[0]), close(pipefd[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		/* The child must die with default signal dispositions. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		dup2(devnull, 0);
		if (want_pipe) {
			dup2(pipefd[1], 1);
			if (c->merge_stderr || c->log_path || c->on_line)
				dup2(pipefd[1], 2);
			else if (c->null_stdout)
				dup2(devnull, 2);
		} else if (logfd >= 0) {
			dup2(logfd, 1);
			dup2(logfd, 2);
		} else if (c->null_stdout) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		if (c->dir && chdir(c->dir)) {
			fprintf(stderr, "cannot chdir to %s: %s\n", c->dir, strerror(errno));
			_exit(127);
		}
		for (const char *const *e = c->env; e && *e; e++)
			putenv((char *)*e);
		execvp(c->argv[0], (char *const *)c->argv);
		fprintf(stderr, "cannot run %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	running_child = pid;
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	if (want_pipe) {
		struct strbuf pending = STRBUF_INIT;
		char buf[8192];
		ssize_t n;

		close(pipefd[1]);
		for (;;) {
			n = read(pipefd[0], buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			/* A failed log write (full disk) shows up in the build's own failure. */
			if (logfd >= 0 && write(logfd, buf, (size_t)n) < 0)
				debug("cannot append to %s", c->log_path);
			if (c->out)
				sb_add(c->out, buf, (size_t)n);
			if (c->on_line) {
				sb_add(&pending, buf, (size_t)n);
				emit_lines(c, &pending, 0);
			}
		}
		emit_lines(c, &pending, 1);
		sb_release(&pending);
		close(pipefd[0]);
	}
	if (logfd >= 0)
		close(logfd);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			running_child = 0;
			return -1;
		}
	}
	running_child = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int run_capture(const char *const *argv, const char *dir, struct strbuf *out)
{
	struct child c = { .argv = argv, .dir = dir, .out = out, .null_stdout = 1 };
	int r = run_command(&c);

	sb_trim_trailing_newlines(out);
	return r;
}

int program_in_path(const char *prog)
{
	const char *path = getenv("PATH");

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	struct strvec dirs = STRVEC_INIT;
	int found = 0;
	strvec_split(&dirs, path, ":");
	for (size_t i = 0; i < dirs.n && !found; i++) {
		char *p = xasprintf("%s/%s", dirs.v[i], prog);
		struct stat st;
		found = !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
		free(p);
	}
	strvec_clear(&dirs);
	return found;
}
