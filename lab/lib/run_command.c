// SPDX-License-Identifier: GPL-2.0
#include "run_command.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/resource.h>
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
 *
 * A slot has two pids. @owned lasts from the fork until the child is
 * reaped: the subreaper must not reap it. @live lasts until the child has
 * exited, and is cleared before it is reaped, once no handler is inside
 * stop_all() (@stopping): a handler that read the pid just before it went
 * would otherwise kill() it after the reap, when the pid may be another
 * process's.
 */
struct run_slot {
	volatile pid_t owned, live;
	/* Whether the child leads a process group of its own (new_group): signal the group. */
	volatile sig_atomic_t group;
};
static struct run_slot slots[RUN_COMMAND_MAX_CHILDREN];
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t child_stopped_by, stop_pending;
/* One more for every signal passed on: a fork it raced with sees it changed. */
static volatile sig_atomic_t stop_gen;
/* Handlers now reading slots[].live (several threads may each run one). */
static volatile sig_atomic_t stopping;

/* SIGTERM to @pid, or to its whole group: make then stops its own jobs too (on SIGINT it waits). */
static void stop_pid(pid_t pid, int group)
{
	kill(group ? -pid : pid, SIGTERM);
}

void run_command_stop_child(int sig)
{
	__atomic_store_n(&stop_pending, sig, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&stop_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_add_fetch(&stopping, 1, __ATOMIC_SEQ_CST);
	for (int i = 0; i < RUN_COMMAND_MAX_CHILDREN; i++) {
		pid_t pid = __atomic_load_n(&slots[i].live, __ATOMIC_SEQ_CST);

		if (pid > 0) {
			child_stopped_by = sig;
			stop_pid(pid, __atomic_load_n(&slots[i].group, __ATOMIC_SEQ_CST));
		}
	}
	__atomic_sub_fetch(&stopping, 1, __ATOMIC_SEQ_CST);
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
		owned = __atomic_load_n(&slots[i].owned, __ATOMIC_SEQ_CST) == pid;
	pthread_mutex_unlock(&fork_lock);
	return owned;
}

/* A free slot (under fork_lock), or -1. */
static int free_slot(void)
{
	for (int i = 0; i < RUN_COMMAND_MAX_CHILDREN; i++)
		if (!__atomic_load_n(&slots[i].owned, __ATOMIC_SEQ_CST))
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
	struct run_slot *s = &slots[slot];

	__atomic_store_n(&s->group, group, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->owned, pid, __ATOMIC_SEQ_CST);
	__atomic_store_n(&s->live, pid, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&stop_gen, __ATOMIC_SEQ_CST) != gen) {
		child_stopped_by = __atomic_load_n(&stop_pending, __ATOMIC_SEQ_CST);
		stop_pid(pid, group);
	}
}

/*
 * The child of @slot has exited and is not reaped yet: no handler may
 * signal it from now on. A handler that saw it live is still running
 * (in another thread): its kill() reaches the zombie, harmlessly, before
 * the pid is let go.
 */
static void retire_child(int slot)
{
	__atomic_store_n(&slots[slot].live, 0, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&stopping, __ATOMIC_SEQ_CST))
		sched_yield();
}

/* After the reap: the slot is free, and the subreaper may reap what has this pid. */
static void leave_slot(int slot)
{
	__atomic_store_n(&slots[slot].live, 0, __ATOMIC_SEQ_CST);
	__atomic_store_n(&slots[slot].owned, 0, __ATOMIC_SEQ_CST);
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

/* One run_command() call: what it opened and started. */
struct run {
	struct child *c;
	int want_pipe;		/* output goes through a pipe to this process */
	int pipefd[2], logfd;
	int slot;
	pid_t pid;
	char **envp;		/* environ plus c->env, or NULL for environ */
};

/* Close what open_outputs() opened (both pipe ends, or the read end left). */
static void close_outputs(struct run *r)
{
	if (r->logfd >= 0)
		close(r->logfd);
	if (r->pipefd[0] >= 0)
		close(r->pipefd[0]);
	if (r->pipefd[1] >= 0)
		close(r->pipefd[1]);
	r->logfd = r->pipefd[0] = r->pipefd[1] = -1;
}

/* The log file and the output pipe, close-on-exec. 0, or -1 with errno. */
static int open_outputs(struct run *r)
{
	int e;

	if (r->c->log_path) {
		r->logfd = open(r->c->log_path,
				O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
		if (r->logfd < 0)
			return -1;
	}
	if (r->want_pipe && pipe2(r->pipefd, O_CLOEXEC)) {
		e = errno;
		close_outputs(r);
		errno = e;
		return -1;
	}
	return 0;
}

/* Whether environment entry @entry sets the variable that @var ("NAME=value") sets. */
static int same_name(const char *entry, const char *var)
{
	size_t n = strcspn(var, "=");

	return !strncmp(entry, var, n) && entry[n] == '=';
}

/*
 * The child's environment: this process's with @extra added, a later
 * entry replacing an earlier one of the same name (as putenv() would).
 * Built before the fork: the child of a threaded process may only make
 * async-signal-safe calls, and putenv() takes a lock another thread may
 * have held at the fork. NULL when there is nothing to add.
 */
static char **child_env(const char *const *extra, int only)
{
	struct strvec env = STRVEC_INIT;

	if (only) {
		strvec_pushv(&env, extra ? extra : (const char *const[]){ NULL });
		/* an empty environment is still one: a NULL would mean environ */
		return env.v ? env.v : xcalloc(1, sizeof(char *));
	}
	if (!extra || !*extra)
		return NULL;
	for (char **e = environ; *e; e++) {
		int replaced = 0;

		for (const char *const *x = extra; *x && !replaced; x++)
			replaced = same_name(*e, *x);
		if (!replaced)
			strvec_push(&env, *e);
	}
	for (const char *const *x = extra; *x; x++) {
		int later = 0;

		for (const char *const *y = x + 1; *y && !later; y++)
			later = same_name(*y, *x);
		if (!later)
			strvec_push(&env, *x);
	}
	return env.v;
}

static void free_env(char **envp)
{
	for (char **e = envp; e && *e; e++)
		free(*e);
	free(envp);
}

/*
 * "cannot WHAT NAME: reason" on the child's stderr, with one write():
 * fprintf() and strerror() may take locks that another thread of the
 * parent held at the fork.
 */
static void child_say(const char *what, const char *name, int err)
{
	const char *parts[] = { "cannot ", what, " ", name, ": ", strerrordesc_np(err), "\n" };
	char msg[1024];
	size_t len = 0;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		const char *p = parts[i] ? parts[i] : "?";
		size_t n = strlen(p);

		if (n > sizeof(msg) - 1 - len)
			n = sizeof(msg) - 1 - len;
		memcpy(msg + len, p, n);
		len += n;
	}
	if (write(2, msg, len) < 0)
		_exit(127);
}

/* In the child: stdin from /dev/null or c->stdin_path, stdout and stderr where @r routes them. */
static void child_redirect(const struct run *r)
{
	const struct child *c = r->c;
	int devnull = open("/dev/null", O_RDWR);
	int in = c->stdin_path ? open(c->stdin_path, O_RDONLY) : devnull;

	if (in < 0)
		_exit(127);	/* (the parent checked it is readable) */
	dup2(in, 0);
	if (r->want_pipe) {
		dup2(r->pipefd[1], 1);
		if (c->merge_stderr || c->log_path || c->on_line)
			dup2(r->pipefd[1], 2);
		else if (c->null_stdout)
			dup2(devnull, 2);
	} else if (r->logfd >= 0) {
		dup2(r->logfd, 1);
		dup2(r->logfd, 2);
	} else if (c->null_stdout) {
		dup2(devnull, 1);
		dup2(devnull, 2);
	}
}

/* One limit, soft and hard alike; 0 leaves it as inherited. 0, or -1 with errno. */
static int child_limit(int resource, unsigned long long value)
{
	struct rlimit rl = { .rlim_cur = value, .rlim_max = value };

	return value ? setrlimit(resource, &rl) : 0;
}

/*
 * In the child: the limits, then the identity, in the one order that
 * works (groups and gid need the privilege the uid change gives up).
 * Any failure ends the child: a command must never run with more than
 * it was given.
 */
static void child_drop(const struct child_creds *cr)
{
	if (child_limit(RLIMIT_AS, cr->as_bytes) || child_limit(RLIMIT_CPU, cr->cpu_s) ||
	    child_limit(RLIMIT_NPROC, cr->nproc) || child_limit(RLIMIT_FSIZE, cr->fsize_bytes) ||
	    setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 })) {
		child_say("set the limits of", "the sandbox", errno);
		_exit(127);
	}
	if (cr->uid != (uid_t)-1 &&
	    /* the raw calls: glibc's would signal the parent's other threads, gone here */
	    (syscall(SYS_setgroups, 0, NULL) || syscall(SYS_setresgid, cr->gid, cr->gid, cr->gid) ||
	     syscall(SYS_setresuid, cr->uid, cr->uid, cr->uid))) {
		child_say("change to the uid of", "the sandbox", errno);
		_exit(127);
	}
	if (cr->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		child_say("set no_new_privs for", "the sandbox", errno);
		_exit(127);
	}
}

/*
 * The child, between fork() and exec: async-signal-safe calls only (the
 * parent has other threads). It must die with the default dispositions,
 * and the signals are unblocked only once those are back.
 */
static _Noreturn void exec_child(const struct run *r, const sigset_t *old_mask)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	/* Before exec, as the parent does too: the group exists whichever runs first. */
	if (r->c->new_group)
		setpgid(0, 0);
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
	sigaction(SIGPIPE, &dfl, NULL);
	pthread_sigmask(SIG_SETMASK, old_mask, NULL);
	child_redirect(r);
	if (r->c->dir && chdir(r->c->dir)) {
		child_say("chdir to", r->c->dir, errno);
		_exit(127);
	}
	if (r->c->in_child && r->c->in_child(r->c->in_child_data)) {
		child_say("prepare", r->c->argv[0], errno);
		_exit(127);
	}
	if (r->c->creds)
		child_drop(r->c->creds);
	execvpe(r->c->argv[0], (char *const *)r->c->argv, r->envp ? r->envp : environ);
	child_say("run", r->c->argv[0], errno);
	_exit(127);
}

/*
 * Fork the child and enter it in slots[] (under fork_lock), or refuse:
 * an unless_stopped command after a stop (EINTR), a full table (EAGAIN).
 * 0, or -1 with errno.
 *
 * In this thread SIGINT/SIGTERM stay blocked from the fork until the
 * child is in slots[] (parent) or the dispositions are reset (child): the
 * lab's handler would otherwise run in the child, which then execs as if
 * nothing had happened. A signal another thread handles meanwhile is
 * caught up with by enter_child().
 */
static int start_child(struct run *r)
{
	sigset_t stop_sigs, old_mask;
	sig_atomic_t gen;
	int e = 0;

	sigemptyset(&stop_sigs);
	sigaddset(&stop_sigs, SIGINT);
	sigaddset(&stop_sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_sigs, &old_mask);
	pthread_mutex_lock(&fork_lock);
	r->slot = free_slot();
	r->pid = -1;
	if (r->c->unless_stopped && stop_pending) {
		child_stopped_by = stop_pending;
		e = EINTR;
	} else if (r->slot < 0) {
		e = EAGAIN;
	} else {
		gen = __atomic_load_n(&stop_gen, __ATOMIC_SEQ_CST);
		r->pid = fork();
		if (r->pid == 0)
			exec_child(r, &old_mask);
		if (r->pid < 0)
			e = errno;
		else if (r->c->new_group)
			setpgid(r->pid, r->pid);
		if (r->pid > 0)
			enter_child(r->slot, r->pid, gen, r->c->new_group);
	}
	pthread_mutex_unlock(&fork_lock);
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	errno = e;
	return r->pid > 0 ? 0 : -1;
}

/* Append @n bytes of output to the log, the capture and the pending lines. */
static void route_output(struct run *r, const char *buf, size_t n, struct strbuf *pending)
{
	/* A failed log write (full disk) shows up in the build's own failure. */
	if (r->logfd >= 0 && write(r->logfd, buf, n) < 0)
		debug("cannot append to %s", r->c->log_path);
	if (r->c->out)
		sb_add(r->c->out, buf, n);
	if (r->c->on_line) {
		sb_add(pending, buf, n);
		emit_lines(r->c, pending, 0);
	}
}

/* Read the child's output until every writer of the pipe has closed it. */
static void read_output(struct run *r)
{
	struct strbuf pending = STRBUF_INIT;
	char buf[8192];
	ssize_t n;

	close(r->pipefd[1]);
	r->pipefd[1] = -1;
	for (;;) {
		n = read(r->pipefd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		route_output(r, buf, (size_t)n, &pending);
	}
	emit_lines(r->c, &pending, 1);
	sb_release(&pending);
}

/*
 * Wait for the child to end and reap it: first wait without reaping
 * (WNOWAIT), so its pid stays its own while retire_child() makes sure no
 * stop signal can still be on its way to it. The exit status as
 * run_command() returns it, or -1 with errno.
 */
static int reap_child(struct run *r)
{
	siginfo_t si;
	int status, e;

	while (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR)
			goto fail;
	}
	retire_child(r->slot);
	while (waitpid(r->pid, &status, 0) < 0) {
		if (errno != EINTR)
			goto fail;
	}
	leave_slot(r->slot);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
fail:
	e = errno;
	leave_slot(r->slot);
	errno = e;
	return -1;
}

int run_command(struct child *c)
{
	struct run r = { .c = c, .want_pipe = c->out || c->on_line,
			 .pipefd = { -1, -1 }, .logfd = -1, .slot = -1 };
	int ret, e;

	if (open_outputs(&r))
		return -1;
	r.envp = child_env(c->env, c->env_only);
	fflush(NULL);
	ret = start_child(&r);
	e = errno;
	free_env(r.envp);
	if (ret) {
		close_outputs(&r);
		errno = e;
		return -1;
	}
	if (r.want_pipe)
		read_output(&r);
	close_outputs(&r);
	ret = reap_child(&r);
	e = errno;
	if (c->new_group && ret >= 0)
		drain_group(r.pid);
	errno = e;
	return ret;
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
