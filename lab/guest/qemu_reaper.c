// SPDX-License-Identifier: GPL-2.0
/* Reaping the embedded driver's QEMU processes (qemu_reaper.h). */
#include "qemu_reaper.h"
#include "fsutil.h"
#include "libvirt_conn.h"
#include "parse_num.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static int enabled;

int qemu_reaper_enable(void)
{
	if (enabled)
		return 0;
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		return -1;
	enabled = 1;
	return 0;
}

/* The embedded driver's root, from "qemu:///embed?root=DIR" (caller frees), or NULL. */
static char *embed_root(virConnectPtr conn)
{
	char *uri = virConnectGetURI(conn), *root = NULL;
	const char *p = uri ? strstr(uri, "?root=") : NULL;

	if (p && !strncmp(uri, "qemu:///embed", 13))
		root = xstrdup(p + 6);
	free(uri);
	return root;
}

static void *reap(void *arg)
{
	pid_t pid = (pid_t)(long)arg;

	/* ECHILD: not ours after all (no subreaper); libvirt waits for init then */
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return NULL;
}

void qemu_reaper_watch(virConnectPtr conn, const char *name)
{
	char *root, *path;
	struct strbuf sb = STRBUF_INIT;
	long pid;
	pthread_t th;
	pthread_attr_t attr;
	sigset_t all, old;

	if (!enabled || !lab_virt_is_embedded(conn) || !(root = embed_root(conn)))
		return;
	path = xasprintf("%s/run/qemu/%s.pid", root, name);
	if (!read_file(path, &sb, 64))
		while (sb.len && (sb.buf[sb.len - 1] == '\n' || sb.buf[sb.len - 1] == ' '))
			sb.buf[--sb.len] = 0;
	if (!sb.len || parse_long(sb_str(&sb), 2, 1L << 30, &pid)) {
		debug("cannot read QEMU's pid from %s: init reaps it", path);
		goto out;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	/* signals belong to the threads that wait for guests */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&th, &attr, reap, (void *)pid))
		debug("cannot start a thread to reap QEMU %ld: init reaps it", pid);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
out:
	sb_release(&sb);
	free(path);
	free(root);
}
