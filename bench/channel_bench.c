// SPDX-License-Identifier: GPL-2.0
/*
 * What the host does with a result channel once a guest has stopped:
 * parse the file (guest_result_parse_file), turn it into a run record
 * (session_record: metrics, series, counters and their deltas) and encode
 * that as session_write_json() would. Built and run by bench/input-bench.
 *
 *   channel_bench CHANNEL_FILE
 */
#include "domain_run.h"
#include "guest_conf.h"
#include "guest_result.h"
#include "session.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct guest_run run;
	struct guest_topology topo;
	json_t *planned, *rec;
	double t0, t1, t2, t3;
	char *text;

	if (argc != 2) {
		fprintf(stderr, "usage: channel_bench CHANNEL_FILE\n");
		return 2;
	}
	memset(&run, 0, sizeof(run));
	memset(&topo, 0, sizeof(topo));
	guest_result_init(&run.result);
	t0 = now();
	if (guest_result_parse_file(argv[1], &run.result)) {
		perror(argv[1]);
		return 1;
	}
	t1 = now();
	run.status = GUEST_RUN_OK;
	planned = json_pack("{s:i, s:s, s:s}", "seq", 1, "kernel", "base", "workload", "w");
	rec = session_record(planned, &run, &topo, "2026-11-30T00:00:00Z");
	t2 = now();
	text = json_dumps(rec, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	t3 = now();
	printf("channel: %ld records accepted, %zu rejected; parse %.2f s, record %.2f s, encode %.2f s;"
	       " run record %zu bytes, %zu counter problems\n",
	       run.result.valid, run.result.bad.n, t1 - t0, t2 - t1, t3 - t2, text ? strlen(text) : 0,
	       json_array_size(json_object_get(json_object_get(rec, "counters_detail"), "problems")));
	free(text);
	json_decref(rec);
	json_decref(planned);
	guest_result_release(&run.result);
	return 0;
}
