/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a guest run's files share, and nothing outside lab/guest/ includes:
 * domain_run.c (the run itself), domain_events.c (libvirt's lifecycle
 * events, the runs' watches, signals, the domains to destroy),
 * domain_streams.c (a remote run's console and channel streams) and
 * domain_output.c (the caps on what a guest writes, the run folder's space).
 */
#ifndef LAB_DOMAIN_RUN_PRIV_H
#define LAB_DOMAIN_RUN_PRIV_H

#include "domain_run.h"
#include "strbuf.h"

#include <pthread.h>
#include <libvirt/libvirt.h>

/* A run waiting for its domain (domain_events.c says how). */
struct watch {
	struct watch *next;
	const char *name;		/* the run's domain */
	int stopped;
	int event, detail;
	int pipe[2];			/* [1]: written by the event thread; [0]: polled by the run */
};

/* Guards every struct watch on the list and the domains tracked (domain_events.c). */
extern pthread_mutex_t domain_watch_lock;

enum events_status {
	EVENTS_WATCHED,
	EVENTS_LIBVIRT_ERROR,	/* libvirt's error is set */
	EVENTS_TABLE_FULL,	/* more connections than conn_events holds */
};

/* domain_events.c */
void domain_wake_fd(int fd);
LAB_MUST_CHECK int domain_events_setup(void);
LAB_MUST_CHECK int domain_watch_add(struct watch *w, const char *name);
void domain_watch_remove(struct watch *w);
void domain_track(virDomainPtr dom);
void domain_untrack(virDomainPtr dom);
const char *domain_event_name(int event, int detail);
LAB_MUST_CHECK enum events_status domain_events_get(virConnectPtr conn);
void domain_events_put(virConnectPtr conn);
int domain_watch_stopped(struct watch *w);
void domain_watch_sleep(struct watch *w, int ms);

/* domain_streams.c */
struct reader;
struct reader *domain_reader_open(virDomainPtr dom, const char *channel, const char *path,
				  long long max, int wake, struct strbuf *err);
void domain_reader_close(struct reader *r, struct strbuf *why);
void domain_readers_drain(struct watch *w, struct reader *const *rs, int n);

/* domain_output.c */
int domain_check_output(virDomainPtr dom, struct guest_run *run, const char *console,
			const char *channel);
void domain_cut_to_cap(const char *path, long long max, const char *limit);
int domain_check_space(virDomainPtr dom, struct guest_run *run);
void domain_note_space(struct guest_run *run, int err);

/* domain_run.c: the run's first failure, with the console's last lines when @console is set. */
void domain_set_failure(struct guest_run *run, enum guest_run_status st, const char *console,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
