// SPDX-License-Identifier: GPL-2.0
#include "guest_job.h"
#include "guest_protocol.h"
#include "utf8.h"
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
