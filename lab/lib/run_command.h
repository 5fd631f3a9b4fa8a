/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: every function from any thread at once;
 * run_command_stop_child() from a signal handler too.
 *
 * Child processes, always spawned from an argv vector: no shell ever sees a
 * user- or guest-supplied string.
 */
#ifndef LAB_RUN_COMMAND_H
#define LAB_RUN_COMMAND_H

#include "util.h"
#include "strbuf.h"

#include <sys/types.h>

/*
 * Who the child runs as, set between fork and exec (sandbox.h builds it):
 * limits first, then, when @uid is not -1, no supplementary groups, the
 * gid and the uid (real, effective and saved: no way back), and with
 * @no_new_privs no setuid binary or file capability can give any back.
 */
struct child_creds {
	uid_t uid;			/* (uid_t)-1: keep the caller's */
	gid_t gid;
	int no_new_privs;
	/* resource limits, soft = hard; 0: leave as inherited */
	unsigned long long as_bytes, cpu_s, nproc, fsize_bytes;
};

struct child {
	const char *const *argv;	/* argv[0] is looked up in PATH */
	const char *dir;		/* working directory, or NULL */
	const char *const *env;		/* extra "NAME=value" entries, or NULL */
	int env_only;			/* @env is the whole environment, nothing inherited */
	const char *log_path;		/* append stdout and stderr here, or NULL */
	const char *stdin_path;		/* stdin from this file (NULL: /dev/null) */
	struct strbuf *out;		/* capture stdout here, or NULL */
	int merge_stderr;		/* capture stderr into @out as well */
	int null_stdout;		/* discard output not otherwise routed */
	/* Called for each complete output line (stdout, and stderr when merged or logged). */
	void (*on_line)(const char *line, void *data);
	void *data;
	/*
	 * Do not start once a SIGINT/SIGTERM has reached run_command_stop_child()
	 * (return -1, errno EINTR): a signal that lands between two steps of a
	 * kernel build, with no child to stop, must still stop the build.
	 */
	int unless_stopped;
	/*
	 * Run in a process group of its own (make: its sub-makes, shells and
	 * compilers are all in it). Stopping it signals the whole group, and
	 * run_command() returns only once no process of the group is left:
	 * a compiler whose shell was killed would otherwise go on writing
	 * into the build folder after the lab let go of build.lock. The group
	 * is not the terminal's foreground group: only for children that
	 * never read the terminal (stdin is /dev/null anyway).
	 */
	int new_group;
	/* Drop to these credentials and limits before exec, or NULL. */
	const struct child_creds *creds;
	/*
	 * Called in the child after the fork, before @creds are applied and
	 * before exec (with the lab's privileges still): system calls on
	 * memory prepared beforehand only, as after any fork of a threaded
	 * process. Nonzero (errno set) ends the child, status 127.
	 */
	int (*in_child)(const void *data);
	const void *in_child_data;
};

/*
 * After a new_group child ends, how long its group's last processes get to
 * go after SIGTERM, and then after SIGKILL, before run_command() gives up
 * on them (with a warning).
 */
#define RUN_COMMAND_GROUP_GRACE_MS 5000

/*
 * Run @c to completion. Returns the exit status (0-255), 128+signal when
 * the child was killed, or -1 when it could not be started (errno set;
 * EAGAIN when RUN_COMMAND_MAX_CHILDREN are running already). Safe to call
 * from several threads at once.
 */
#define RUN_COMMAND_MAX_CHILDREN 64
LAB_MUST_CHECK
int run_command(struct child *c);

/*
 * For a SIGINT/SIGTERM handler (async-signal-safe, any thread): send
 * SIGTERM to every child run_command() is waiting for (to its whole group
 * for a new_group child), in every thread,
 * and remember @sig (for the unless_stopped commands that come later, and
 * for a child being started in another thread at this moment).
 */
void run_command_stop_child(int sig);

/*
 * Whether @pid is a child that a run_command() call is waiting for (or is
 * about to): for the subreaper, which must never reap it. Children are
 * forked and entered under one lock, which this takes too, so a child of
 * run_command() is never seen unentered. Not async-signal-safe.
 */
int run_command_owns(pid_t pid);
/*
 * The signal run_command_stop_child() passed on to a child, or that kept
 * an unless_stopped command from starting; 0 when neither happened.
 */
int run_command_stopped_by(void);

/* Convenience: run argv, capture stdout (trailing newlines trimmed). */
LAB_MUST_CHECK
int run_capture(const char *const *argv, const char *dir, struct strbuf *out);

/* Whether @prog is an executable in PATH (or an executable path). */
int program_in_path(const char *prog);

#endif
