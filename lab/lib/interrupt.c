// SPDX-License-Identifier: GPL-2.0
#include "interrupt.h"
#include "run_command.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t interrupted_by;
static int caught;
/* Serialises registration (guest runs set up from several threads); the handler never takes it. */
static pthread_mutex_t setup_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The handler reads the tables while the main thread may be adding to
 * them: an entry is written before the count that makes it visible.
 */
struct fn_table {
	interrupt_fn *volatile fn[INTERRUPT_MAX_FNS];
	volatile sig_atomic_t n;
};
static struct fn_table on_signal_fns, cleanup_fns;

static int table_add(struct fn_table *t, interrupt_fn *fn)
{
	int r = 0;

	pthread_mutex_lock(&setup_lock);
	for (sig_atomic_t i = 0; i < t->n; i++)
		if (t->fn[i] == fn)
			goto out;
	if (t->n >= INTERRUPT_MAX_FNS) {
		r = -1;
		goto out;
	}
	t->fn[t->n] = fn;
	__atomic_store_n(&t->n, t->n + 1, __ATOMIC_SEQ_CST);
out:
	pthread_mutex_unlock(&setup_lock);
	return r;
}

static void on_signal(int sig)
{
	int saved = errno;

	interrupted_by = sig;
	/* A kernel build or other child running now stops as well. */
	run_command_stop_child(sig);
	for (sig_atomic_t i = 0; i < on_signal_fns.n; i++)
		on_signal_fns.fn[i](sig);
	errno = saved;
}

int interrupt_catch(void)
{
	struct sigaction sa;
	int r = 0;

	pthread_mutex_lock(&setup_lock);
	if (!caught) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
			r = -1;
		else
			caught = 1;
	}
	pthread_mutex_unlock(&setup_lock);
	return r;
}

int interrupted(void)
{
	return interrupted_by;
}

int interrupt_on_signal(interrupt_fn *fn)
{
	return table_add(&on_signal_fns, fn);
}

int interrupt_on_cleanup(interrupt_fn *fn)
{
	return table_add(&cleanup_fns, fn);
}

int interrupt_cleanup(void)
{
	int sig = interrupted_by;

	if (!sig)
		return 0;
	for (sig_atomic_t i = 0; i < cleanup_fns.n; i++)
		cleanup_fns.fn[i](sig);
	return sig;
}
