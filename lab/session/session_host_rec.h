/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One element of session.json's "hosts": a host the session runs on, as
 * lab.conf's [host] section had it when the session started, with the
 * accelerator it resolved to. session_host_rec.c has its one encoder and
 * its one decoder (into lab.conf's own struct host_cfg):
 *
 *   {"name", "uri", "slots", "cpus"?, "pool", "pool_dir", "accel"?, "accel_reason"?}
 */
#ifndef LAB_SESSION_HOST_REC_H
#define LAB_SESSION_HOST_REC_H

#include <jansson.h>

#include "config.h"
#include "strbuf.h"
#include "util.h"

/* @h as session.json has it; @accel NULL: not resolved yet. */
json_t *session_host_encode(const struct host_cfg *h, const char *accel, const char *accel_reason);
/*
 * @j into @hc (released with session_host_release(), whatever the
 * result). -1 with the member that is wrong in @err ("slots: expected 1
 * to 1024, got 0"); 0 when it decodes. pool and pool_dir absent are the
 * defaults (a session of before pools).
 */
LAB_MUST_CHECK
int session_host_decode(const json_t *j, struct host_cfg *hc, struct strbuf *err);
void session_host_release(struct host_cfg *hc);

#endif
