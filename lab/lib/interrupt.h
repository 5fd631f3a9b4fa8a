/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thread-safe: every function from any thread (registration is locked);
 * interrupt_cleanup() may run in several threads at once, so its callbacks
 * must be thread-safe as well as idempotent.
 *
 * SIGINT and SIGTERM: the one place the lab catches them.
 *
 * A signal does not end the process: it is remembered (interrupted()),
 * every child run_command() waits for, in every thread, is stopped (a
 * kernel build's make: a kill aimed at mglrulab alone, from a CI timeout
 * or `kill PID`, would otherwise leave make compiling for minutes), and
 * the callbacks
 * registered with interrupt_on_signal() run. The code that is waiting
 * notices, calls interrupt_cleanup() to undo what cannot be undone inside
 * a signal handler (destroying libvirt domains), and returns up: the
 * session then writes its partial report and the resume command.
 */
#ifndef LAB_INTERRUPT_H
#define LAB_INTERRUPT_H

#include "util.h"

typedef void interrupt_fn(int sig);

/*
 * Catch SIGINT/SIGTERM from now on (again: nothing). 0, or -1 with errno.
 * Before it, the signals keep their default action (the process ends).
 */
LAB_MUST_CHECK
int interrupt_catch(void);

/* The signal (SIGINT/SIGTERM) that interrupted the lab, or 0. */
int interrupted(void);

/*
 * Run @fn(sig) inside the signal handler: it must be async-signal-safe
 * (write() to a pipe, kill()). Registering the same @fn twice registers it
 * once. 0, or -1 when the table (INTERRUPT_MAX_FNS) is full.
 */
#define INTERRUPT_MAX_FNS 8
LAB_MUST_CHECK
int interrupt_on_signal(interrupt_fn *fn);

/*
 * Run @fn(sig) from interrupt_cleanup(), in the ordinary flow of the
 * program: what a signal handler must not do. Same rules as above.
 */
LAB_MUST_CHECK
int interrupt_on_cleanup(interrupt_fn *fn);

/*
 * When interrupted: run every cleanup callback, in the order registered,
 * and return the signal; else return 0 and do nothing. Callbacks may run
 * more than once (each caller that notices the signal calls this), so
 * they must be idempotent.
 */
int interrupt_cleanup(void);

#endif
