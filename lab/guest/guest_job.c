// SPDX-License-Identifier: GPL-2.0
#include "guest_job.h"
#include "guest_protocol.h"
#include "util.h"

#include <jansson.h>
#include <stdlib.h>

char *guest_job_json(const char *run_id, const char *workload, const char *const *args,
		     int timeout_s)
{
	json_t *job = json_object(), *a = json_array();
	char *s;

	json_object_set_new(job, GUEST_JOB_V, json_integer(GUEST_PROTOCOL_VERSION));
	json_object_set_new(job, GUEST_JOB_RUN_ID, json_string(run_id ? run_id : ""));
	json_object_set_new(job, GUEST_JOB_WORKLOAD, json_string(workload ? workload : ""));
	for (const char *const *p = args; p && *p; p++)
		json_array_append_new(a, json_string(*p));
	json_object_set_new(job, GUEST_JOB_ARGS, a);
	json_object_set_new(job, GUEST_JOB_TIMEOUT, json_integer(timeout_s));
	s = json_dumps(job, JSON_COMPACT);
	json_decref(job);
	if (!s)
		die("cannot encode the job as JSON (argument not UTF-8?)");
	return s;
}
