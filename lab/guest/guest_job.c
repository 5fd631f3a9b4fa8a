// SPDX-License-Identifier: GPL-2.0
#include "guest_job.h"
#include "guest_protocol.h"
#include "strbuf.h"
#include "utf8.h"
#include "workload_params.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* jansson refuses such a string, and its setters would then drop it silently. */
static int is_utf8(const char *s)
{
	size_t len = strlen(s);

	return utf8_valid_len(s, len) == len;
}

char *guest_job_json(const char *run_id, const char *workload, const char *const *args,
		     int timeout_s)
{
	json_t *job, *a;
	char *s = NULL;
	int bad = 0;

	run_id = run_id ? run_id : "";
	workload = workload ? workload : "";
	bad = !is_utf8(run_id) || !is_utf8(workload);
	for (const char *const *p = args; p && *p && !bad; p++)
		bad = !is_utf8(*p);
	if (bad) {
		errno = EILSEQ;
		return NULL;
	}
	job = json_object();
	a = json_array();
	bad = json_object_set_new(job, GUEST_JOB_V, json_integer(GUEST_PROTOCOL_VERSION)) ||
	      json_object_set_new(job, GUEST_JOB_RUN_ID, json_string(run_id)) ||
	      json_object_set_new(job, GUEST_JOB_WORKLOAD, json_string(workload));
	for (const char *const *p = args; p && *p && !bad; p++)
		bad = json_array_append_new(a, json_string(*p));
	bad = bad || json_object_set(job, GUEST_JOB_ARGS, a) ||
	      json_object_set_new(job, GUEST_JOB_TIMEOUT, json_integer(timeout_s));
	if (!bad)
		s = json_dumps(job, JSON_COMPACT);
	json_decref(a);
	json_decref(job);
	if (!s)
		errno = ENOMEM;
	return s;
}

/* Past this the list is cut (x86's command line holds 2,048 bytes in all). */
#define JOB_CMDLINE_MAX 1024

char *guest_job_cmdline(const char *const *args)
{
	static const char tp_key[] = "--tracepoints=";
	const char *list = NULL;
	struct strbuf sb = STRBUF_INIT;
	int counters = 1;

	for (const char *const *p = args; p && *p; p++) {
		if (!strncmp(*p, tp_key, strlen(tp_key)))
			list = *p + strlen(tp_key);
		else if (!strcmp(*p, "--counters=0"))
			counters = 0;	/* the workload installs no trigger */
	}
	if (!counters)
		return NULL;
	for (const char *s = list; s && *s;) {
		size_t len;

		s += strspn(s, ", \t");
		len = strcspn(s, ", \t");
		/* checked when the session was made; a stray one is simply not sent */
		if (len && param_tracepoint(s, len) >= 0 &&
		    sb.len + len + 14 <= JOB_CMDLINE_MAX)
			sb_addf(&sb, "%s%.*s", sb.len ? "," : "trace_event=", (int)len, s);
		s += len;
	}
	return sb.len ? sb_detach(&sb) : NULL;
}
