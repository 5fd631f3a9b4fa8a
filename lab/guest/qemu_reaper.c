// SPDX-License-Identifier: GPL-2.0
/* Reaping the embedded driver's QEMU processes (qemu_reaper.h). */
#include "qemu_reaper.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Is zombie @pid a QEMU (its comm, which a zombie keeps)? */
static int is_qemu(pid_t pid)
{
	char path[64], comm[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/comm", (long)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = 0;
	fclose(f);
	return !strncmp(comm, "qemu-system-", 12);
}

/*
 * Look at (WNOWAIT) the first zombie child; reap it once it has stayed a
 * zombie for the grace period and is a QEMU. Only a zombie that is not a
 * QEMU can hide the ones behind it, and only until its owner reaps it.
 */
static void *reaper_main(void *arg)
{
	pid_t seen = 0;
	double since = 0;

	(void)arg;
	for (;;) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || !si.si_pid) {
			seen = 0;
			usleep(REAPER_GRACE_MS * 1000 / 2);
			continue;
		}
		if (si.si_pid != seen) {
			seen = si.si_pid;
			since = now_monotonic();
		} else if (now_monotonic() - since >= REAPER_GRACE_MS / 1000.0 && is_qemu(seen)) {
			waitpid(seen, NULL, WNOHANG);
			seen = 0;
			continue;
		}
		usleep(REAPER_GRACE_MS * 1000 / 4);
	}
	return NULL;
}

int qemu_reaper_enable(void)
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
