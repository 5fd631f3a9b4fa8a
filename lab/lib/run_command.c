// SPDX-License-Identifier: GPL-2.0
#include "run_command.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
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
 * The children run_command() is waiting for, in every thread. Two readers:
 * the SIGINT/SIGTERM handler stops them (a kill aimed at mglrulab alone,
 * a CI timeout or `kill PID`, would otherwise leave make compiling for
 * minutes), and the subreaper leaves them alone (run_command_owns()). A
 * child is forked and entered here under fork_lock, so no child of
 * run_command() is ever outside the table while the lock is free.
 */
static volatile pid_t children[RUN_COMMAND_MAX_CHILDREN];
/* Whether children[i] leads a process group of its own (new_group): signal the group. */
static volatile sig_atomic_t child_group[RUN_COMMAND_MAX_CHILDREN];
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t child_stopped_by, stop_pending;
/* One more for every signal passed on: a fork it raced with sees it changed. */
static volatile sig_atomic_t stop_gen;

void run_command_stop_child(int sig)
{
	__atomic_store_n(&stop_pending, sig, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&stop_gen, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < RUN_COMMAND_MAX_CHILDREN; i++) {
		pid_t pid = __atomic_load_n(&children[i], __ATOMIC_SEQ_CST);

		if (pid > 0) {
			child_stopped_by = sig;
			/* SIGTERM: make then stops its own jobs too (on SIGINT it waits for them). */
			kill(__atomic_load_n(&child_group[i], __ATOMIC_SEQ_CST) ? -pid : pid, SIGTERM);
		}
	}
}

int run_command_stopped_by(void)
{
	return child_stopped_by;
}

int run_command_owns(pid_t pid)
{
	int owned = 0;

	pthread_mutex_lock(&fork_lock);
	for (int i = 0; i < RUN_COMMAND_MAX_CHILDREN && !owned; i++)
		owned = __atomic_load_n(&children[i], __ATOMIC_SEQ_CST) == pid;
	pthread_mutex_unlock(&fork_lock);
	return owned;
}

/* A free slot of children[] (under fork_lock), or -1. */
static int free_slot(void)
{
	for (int i = 0; i < RUN_COMMAND_MAX_CHILDREN; i++)
		if (!children[i])
			return i;
	return -1;
}

/*
 * Enter @pid (under fork_lock). A signal handled by another thread between
 * the fork (@gen: stop_gen before it) and the entry could not see the
 * child; it moved stop_gen on, so the child is stopped here instead. A
 * command started after a signal runs (the session's cleanup needs them;
 * unless_stopped ones never start).
 */
static void enter_child(int slot, pid_t pid, sig_atomic_t gen, int group)
{
	__atomic_store_n(&child_group[slot], group, __ATOMIC_SEQ_CST);
	__atomic_store_n(&children[slot], pid, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&stop_gen, __ATOMIC_SEQ_CST) != gen) {
		child_stopped_by = __atomic_load_n(&stop_pending, __ATOMIC_SEQ_CST);
		kill(group ? -pid : pid, SIGTERM);
	}
}

/* Whether process group @pgid has no process left (zombies count until reaped). */
static int group_gone(pid_t pgid)
{
	return kill(-pgid, 0) && errno == ESRCH;
}

/*
 * The processes a new_group child left in its group when it ended: after
 * a stop, a compiler whose shell make's SIGTERM killed (it was re-parented
 * and still writes its object file). SIGTERM, then SIGKILL, each with its
 * grace; wait until none is left. Those re-parented to this process (a
 * subreaper) are reaped here; init reaps the others (a second or two).
 * Nothing is left after a build that ended by itself: one kill() says so.
 */
static void drain_group(pid_t pgid)
{
	static const int sigs[] = { SIGTERM, SIGKILL };

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		if (kill(-pgid, sigs[i]) && errno == ESRCH)
			return;
		double until = now_monotonic() + RUN_COMMAND_GROUP_GRACE_MS / 1000.0;
		while (now_monotonic() < until) {
			while (waitpid(-pgid, NULL, WNOHANG) > 0)
				;
			if (group_gone(pgid))
				return;
			usleep(20 * 1000);
		}
	}
	warning("processes of group %ld still run %d s after SIGKILL", (long)pgid,
		RUN_COMMAND_GROUP_GRACE_MS / 1000);
}

int run_command(struct child *c)
{
	int pipefd[2] = { -1, -1 }, logfd = -1, status;
	int want_pipe = c->out || c->on_line, slot;
	sig_atomic_t gen = 0;
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
	 * In this thread SIGINT/SIGTERM stay blocked from the fork until the
	 * child is in children[] (parent) or the dispositions are reset
	 * (child): the lab's handler would otherwise run in the child, which
	 * then execs as if nothing had happened. A signal another thread
	 * handles meanwhile is caught up with by enter_child().
	 */
	sigset_t stop_sigs, old_mask;

	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old_mask);
	pthread_mutex_lock(&fork_lock);
	slot = free_slot();
	if (c->unless_stopped && stop_pending) {
		child_stopped_by = stop_pending;
		pid = -1;
		errno = EINTR;
	} else if (slot < 0) {
		pid = -1;
		errno = EAGAIN;
	} else {
		gen = __atomic_load_n(&stop_gen, __ATOMIC_SEQ_CST);
		pid = fork();
	}
	if (pid < 0) {
		int e = errno;

		pthread_mutex_unlock(&fork_lock);
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
		if (logfd >= 0)
			close(logfd);
		if (want_pipe)
			close(pipefd[0]), close(pipefd[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDWR);
		/* Before exec, as the parent does too: the group exists whichever runs first. */
		if (c->new_group)
			setpgid(0, 0);
		/* The child must die with default signal dispositions. */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
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
	if (c->new_group)
		setpgid(pid, pid);
	enter_child(slot, pid, gen, c->new_group);
	pthread_mutex_unlock(&fork_lock);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
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
			__atomic_store_n(&children[slot], 0, __ATOMIC_SEQ_CST);
			return -1;
		}
	}
	__atomic_store_n(&children[slot], 0, __ATOMIC_SEQ_CST);
	if (c->new_group)
		drain_group(pid);
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
