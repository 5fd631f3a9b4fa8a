/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One element of session.json's "hosts" (struct sdoc_host_entry, a row of
 * the session's document, session_doc.h): a host the session runs on, as
 * lab.conf's [host] section had it when the session started, with the
 * accelerator it resolved to. The document's table types the members
 * (session_doc.c's host_entry_fields[]); this is the one way from a row
 * to lab.conf's own struct host_cfg, with the checks the table cannot make.
 */
#ifndef LAB_SESSION_HOST_REC_H
#define LAB_SESSION_HOST_REC_H

#include "config.h"
#include "session_doc.h"
#include "strbuf.h"
#include "util.h"

/*
 * @e into @hc (released with session_host_release(), whatever the
 * result; its strings copies). -1 with the member that is wrong in @err
 * ("slots: expected 1 to 1024, got 0"; "name: expected a non-empty
 * string"); 0 when it is a host. pool and pool_dir absent are the defaults
 * (a session of before pools); cpus NULL is every CPU.
 */
LAB_MUST_CHECK
int session_host_from_row(const struct sdoc_host_entry *e, struct host_cfg *hc,
			  struct strbuf *err);
/* @h as a row (its strings @h's); @accel NULL: not resolved yet. */
struct sdoc_host_entry session_host_row(const struct host_cfg *h, const char *accel,
					const char *accel_reason);
void session_host_release(struct host_cfg *hc);

#endif
