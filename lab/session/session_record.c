// SPDX-License-Identifier: GPL-2.0
/*
 * One guest run into one run record. Everything here comes from the guest
 * and is untrusted: only numbers that are finite become metrics, names are
 * bounded, and a run counts only when the guest showed the declared
 * topology, the runner finished, and the workload exited 0.
 */
#include "session.h"
#include "run_record.h"
#include "xjson.h"
#include "counters.h"
#include "domain_run.h"
#include "escape.h"
#include "guest_conf.h"
#include "guest_result.h"
#include "util.h"
#include "workload_contract.h"

#include <math.h>
#include <string.h>

#define NAME_MAX_LEN 128

/*
 * What one run may put into its record (and so into report.json), however
 * many lines the guest sends: a workload reports tens of metrics (one per
 * CPU count at most), a few series, and an error or two.
 */
#define RECORD_MAX_METRICS	4096
#define RECORD_MAX_SERIES	256
#define RECORD_MAX_ERRORS	100	/* the last one counts those left out */

struct run_errors {
	json_t *list;
	size_t dropped;
	int metrics_full, series_full;
};

static void run_error(struct run_errors *e, json_t *msg)
{
	if (json_array_size(e->list) < RECORD_MAX_ERRORS - 1)
		json_array_append_new(e->list, msg);
	else {
		json_decref(msg);
		e->dropped++;
	}
}

static int good_name(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > NAME_MAX_LEN)
		return 0;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

/*
 * Past @max names, a new one is refused (once said); known ones may be set
 * again. @obj is the record's metrics or series as collect() builds them:
 * a map of the guest's names, built and read in that one function.
 */
static int room_for(json_t *obj, const char *name, size_t max, int *full, struct run_errors *e,
		    const char *what, const char *limit)
{
	if (run_record_map_room(obj, name, max))
		return 1;
	if (!(*full)++)
		run_error(e, json_sprintf("more than %zu %s (%s): the rest are ignored", max, what,
					  limit));
	return 0;
}

static void collect(const struct guest_result *res, json_t *metrics, json_t *series,
		    struct run_errors *errors, struct counters *ctr)
{
	for (size_t i = 0; i < res->nrecs; i++) {
		const struct guest_record *rec = &res->recs[i];
		const char *name = rec->name;

		if (rec->type == GUEST_RECORD_METRIC && good_name(name)) {
			if (!isfinite(rec->value))
				run_error(errors, json_sprintf("metric %s: value is not a finite number",
							       name));
			else if (room_for(metrics, name, RECORD_MAX_METRICS, &errors->metrics_full,
					  errors, "metrics", "RECORD_MAX_METRICS"))
				/* as the guest wrote it: an integer stays one */
				json_object_set_new(metrics, name, rec->value_is_int ?
						    json_integer(rec->ivalue) :
						    json_real(rec->value));
		} else if (rec->type == GUEST_RECORD_SERIES && good_name(name)) {
			if (rec->values &&
			    room_for(series, name, RECORD_MAX_SERIES, &errors->series_full, errors,
				     "series", "RECORD_MAX_SERIES"))
				json_object_set(series, name, (json_t *)rec->values);
		} else if (rec->type == GUEST_RECORD_ERROR) {
			run_error(errors, json_string_lossy(rec->reason ? rec->reason :
							    "workload error"));
		}
		if (ctr && (rec->type == GUEST_RECORD_SNAPSHOT || rec->type == GUEST_RECORD_INFO))
			counters_add_line(ctr, rec->json);
	}
	if (errors->dropped)
		json_array_append_new(errors->list, json_sprintf("%zu more errors not listed "
								 "(RECORD_MAX_ERRORS = %d)",
								 errors->dropped, RECORD_MAX_ERRORS));
}

json_t *session_record(const json_t *planned, const struct guest_run *run,
		       const struct guest_topology *declared, const char *started)
{
	json_t *rec = json_deep_copy(planned);
	json_t *metrics = json_object(), *series = json_object();
	struct run_errors errs = { json_array(), 0, 0, 0 };
	json_t *errors = errs.list;
	struct counters *ctr = counters_new();
	char *failure = NULL;
	double workload_s = -1;

	collect(&run->result, metrics, series, &errs, ctr);
	const struct guest_exit *ex = &run->result.exit;
	if (ex->seen && !isnan(ex->elapsed_s))
		workload_s = ex->elapsed_s;

	if (run->status != GUEST_RUN_OK) {
		failure = xasprintf("%s: %s", guest_run_status_name(run->status),
				    run->failure ? run->failure : "no reason given");
	} else if ((failure = guest_result_topology_problem(&run->result, declared))) {
		/* set */
	} else if (!ex->seen || ex->status != WL_EXIT_OK) {
		struct strbuf sb = STRBUF_INIT;
		long long st = ex->seen ? ex->status : -1;
		sb_addf(&sb, "the workload %s (exit status %lld)",
			st == WL_EXIT_PRECOND ? "found a precondition unmet" : "failed", (long long)st);
		size_t i;
		json_t *e;
		json_array_foreach(errors, i, e)
			sb_addf(&sb, "; %s", json_string_value(e));
		json_array_foreach(run->result.stderr_lines, i, e)
			if (i + 5 >= json_array_size(run->result.stderr_lines))
				sb_addf(&sb, "\n  %s", json_string_value(e));
		failure = sb_detach(&sb);
	} else if (!json_object_size(metrics)) {
		failure = xstrdup("the workload reported no metric");
	}
	struct run_record r = {
		.ok = !failure, .failure = failure, .started = started,
		.exit_status = ex->seen && ex->status >= 0 && ex->status <= 255 ? (int)ex->status : -1,
		.timings = {
			.boot_s = run->boot_s >= 0 ? run->boot_s : 0.0,
			.workload_s = workload_s >= 0 ? workload_s : 0.0,
			.host_overhead_s = run->host_s, .wall_s = run->wall_s,
			/* boot_s is the guest's clock (its uptime); this the host's, which a reader means */
			.boot_wall_s = run->boot_wall_s >= 0 ? run->boot_wall_s : NAN,
		},
	};
	run_record_encode(&r, RW_RECORD, rec);
	json_object_set_new(rec, "metrics", failure ? json_object() : json_incref(metrics));
	json_object_set_new(rec, "series", series);
	json_t *detail = counters_delta_json(ctr);
	json_object_set_new(rec, "counters", counters_flat_json(detail));
	json_object_set_new(rec, "counters_detail", detail);
	if (json_array_size(errors))
		json_object_set_new(rec, "errors", errors);
	else
		json_decref(errors);
	if (run->result.bad.n) {
		json_t *bad = json_array();
		for (size_t i = 0; i < run->result.bad.n && i < 20; i++)
			json_array_append_new(bad, json_string_lossy(run->result.bad.v[i]));
		json_object_set_new(rec, "rejected_lines", bad);
	}
	if (run->result.topology)
		json_object_set(rec, "guest_topology", run->result.topology);
	json_decref(metrics);
	counters_free(ctr);
	free(failure);
	return rec;
}
