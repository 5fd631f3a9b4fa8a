// SPDX-License-Identifier: GPL-2.0
/* Reaping every orphan the lab inherits (subreaper.h). */
#include "subreaper.h"
#include "run_command.h"
#include "util.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* More zombies than this at once wait for a later pass. */
#define REAPER_MAX_ZOMBIES 64
#define REAPER_POLL_MS 25

struct zombie {
	pid_t pid;
	double since;	/* when this pass first saw it a zombie */
	int qemu;
};

/*
 * The zombie children of this process, from /proc/PID/stat (pid, "(comm)",
 * state, ppid): the kernel here has no /proc/PID/task/TID/children. Up to
 * @max pids into @pids, their qemu-ness into @qemu; the count.
 */
static int zombie_children(pid_t self, pid_t *pids, int *qemu, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		char path[64], buf[512], *close_paren, state;
		long pid, ppid;
		FILE *f;
		size_t len;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atol(de->d_name);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		len = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[len] = 0;
		/* comm may hold spaces and parentheses: the last ')' ends it */
		close_paren = strrchr(buf, ')');
		if (!close_paren || sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2)
			continue;
		if (state != 'Z' || ppid != self)
			continue;
		char *open_paren = strchr(buf, '(');
		pids[n] = (pid_t)pid;
		qemu[n] = open_paren && !strncmp(open_paren + 1, "qemu-system-", 12);
		n++;
	}
	closedir(d);
	return n;
}

/* Keep @seen to the zombies of this pass, adding the new ones; the count. */
static int track(struct zombie *seen, int nseen, const pid_t *pids, const int *qemu, int n,
		 double now)
{
	struct zombie next[REAPER_MAX_ZOMBIES];
	int m = 0;

	for (int i = 0; i < n; i++) {
		next[m] = (struct zombie){ .pid = pids[i], .since = now, .qemu = qemu[i] };
		for (int j = 0; j < nseen; j++)
			if (seen[j].pid == pids[i])
				next[m].since = seen[j].since;
		m++;
	}
	memcpy(seen, next, sizeof(next[0]) * (size_t)m);
	return m;
}

static void *reaper_main(void *arg)
{
	struct zombie seen[REAPER_MAX_ZOMBIES];
	pid_t self = getpid();
	int nseen = 0;

	(void)arg;
	for (;;) {
		pid_t pids[REAPER_MAX_ZOMBIES];
		int qemu[REAPER_MAX_ZOMBIES], n;
		siginfo_t si;
		double now;

		/* the cheap question first: is there any zombie child at all? */
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid) {
			nseen = 0;
			usleep(REAPER_POLL_MS * 1000);
			continue;
		}
		now = now_monotonic();
		n = zombie_children(self, pids, qemu, REAPER_MAX_ZOMBIES);
		nseen = track(seen, nseen, pids, qemu, n, now);
		for (int i = 0; i < nseen; i++) {
			double grace = (seen[i].qemu ? REAPER_GRACE_QEMU_MS : REAPER_GRACE_OTHER_MS) /
				       1000.0;

			if (now - seen[i].since < grace || run_command_owns(seen[i].pid))
				continue;
			if (waitpid(seen[i].pid, NULL, WNOHANG) > 0)
				debug("subreaper: reaped pid %ld, a zombie nobody waited for",
				      (long)seen[i].pid);
		}
		usleep(REAPER_POLL_MS * 1000);
	}
	return NULL;
}

int subreaper_enable(void)
{
	static pthread_mutex_t once = PTHREAD_MUTEX_INITIALIZER;
	static int enabled;
	pthread_t th;
	sigset_t all, old;
	int r = 0, e;

	pthread_mutex_lock(&once);
	if (enabled)
		goto out;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		r = -1;
		goto out;
	}
	/* signals belong to the threads that wait for guests */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&th, NULL, reaper_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		/* orphans would stay zombies with nobody to reap them: undo */
		prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
		errno = e;
		r = -1;
		goto out;
	}
	pthread_detach(th);
	enabled = 1;
out:
	pthread_mutex_unlock(&once);
	return r;
}
