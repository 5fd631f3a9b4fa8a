// SPDX-License-Identifier: GPL-2.0
/*
 * The workload contract (common/workload_contract.h) as the host reads it:
 * lab/guest/guest_result.c checks each record type, lab/session/session_record.c
 * tells an unmet precondition (WL_EXIT_PRECOND) from a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "domain_run.h"
#include "guest_conf.h"
#include "guest_result.h"
#include "session.h"
#include "strbuf.h"
#include "workload_contract.h"

struct channel {
	struct strbuf sb;
	long seq;
};

static void line(struct channel *ch, const char *type, const char *body)
{
	sb_addf(&ch->sb, "{\"v\":1,\"seq\":%ld,\"type\":\"%s\"%s%s}\n", ch->seq++, type,
		*body ? "," : "", body);
}

static void start(struct channel *ch)
{
	memset(ch, 0, sizeof(*ch));
	line(ch, "hello", "\"uptime_s\":1.5");
	line(ch, "topology", "\"vcpus_online\":1,\"nodes\":[{\"id\":0,\"cpus\":\"0\","
	     "\"memory_kib\":524288,\"distances\":[10]}]");
}

/* One record a workload printed, as the runner wraps it. */
static void workload_line(struct channel *ch, const char *record)
{
	struct strbuf b = STRBUF_INIT;

	sb_addf(&b, "\"record\":%s", record);
	line(ch, "workload", b.buf);
	sb_release(&b);
}

/* Finish the channel with the workload's exit @status and make a run record. */
static json_t *record_of(struct channel *ch, int status)
{
	struct strbuf err = STRBUF_INIT, b = STRBUF_INIT;
	struct guest_run run;
	struct guest_topology declared;
	json_t *planned, *rec;

	sb_addf(&b, "\"status\":%d,\"elapsed_s\":2", status);
	line(ch, "exit", b.buf);
	sb_reset(&b);
	sb_addf(&b, "\"records\":%ld", ch->seq);
	line(ch, "done", b.buf);

	memset(&run, 0, sizeof(run));
	guest_result_init(&run.result);
	guest_result_feed(&run.result, ch->sb.buf, ch->sb.len);
	guest_result_finish(&run.result);
	assert_int_equal(guest_result_topology(&run.result, &declared, &err), 0);
	run.status = GUEST_RUN_OK;
	planned = json_pack("{s:i}", "seq", 1);
	rec = session_record(planned, &run, &declared, "2026-11-30T00:00:00Z");
	json_decref(planned);
	guest_topology_release(&declared);
	guest_result_release(&run.result);
	sb_release(&ch->sb);
	sb_release(&err);
	sb_release(&b);
	return rec;
}

static const char *failure_of(json_t *rec)
{
	return json_string_value(json_object_get(rec, "failure"));
}

static void test_exit_ok(void **state)
{
	struct channel ch;
	json_t *rec;
	(void)state;

	start(&ch);
	workload_line(&ch, "{\"type\":\"" WL_REC_METRIC "\",\"name\":\"m\",\"value\":1}");
	rec = record_of(&ch, WL_EXIT_OK);
	assert_string_equal(json_string_value(json_object_get(rec, "status")), "ok");
	assert_null(failure_of(rec));
	json_decref(rec);
}

/* An unmet precondition is named as such, with the workload's reason. */
static void test_exit_precond(void **state)
{
	struct channel ch;
	json_t *rec;
	(void)state;

	start(&ch);
	workload_line(&ch, "{\"type\":\"" WL_REC_ERROR "\",\"reason\":\"no lru_gen\","
		      "\"precondition\":\"lru_gen\"}");
	rec = record_of(&ch, WL_EXIT_PRECOND);
	assert_string_equal(json_string_value(json_object_get(rec, "status")), "failed");
	assert_string_equal(failure_of(rec),
			    "the workload found a precondition unmet (exit status 2); no lru_gen");
	json_decref(rec);
}

static void test_exit_fail(void **state)
{
	struct channel ch;
	json_t *rec;
	(void)state;

	start(&ch);
	workload_line(&ch, "{\"type\":\"" WL_REC_METRIC "\",\"name\":\"m\",\"value\":1}");
	rec = record_of(&ch, WL_EXIT_FAIL);
	assert_string_equal(failure_of(rec), "the workload failed (exit status 1)");
	assert_int_equal(json_object_size(json_object_get(rec, "metrics")), 0);
	json_decref(rec);
}

/* The record types the host checks: each malformed one is rejected with its reason. */
static void test_record_checks(void **state)
{
	static const struct {
		const char *record, *reason;
	} cases[] = {
		{ "{\"type\":\"" WL_REC_METRIC "\",\"value\":1}", "metric without a \"name\" string" },
		{ "{\"type\":\"" WL_REC_METRIC "\",\"name\":\"m\",\"value\":\"1\"}",
		  "metric without a numeric \"value\"" },
		{ "{\"type\":\"" WL_REC_SERIES "\",\"values\":[1]}", "series without a \"name\" string" },
		{ "{\"type\":\"" WL_REC_SNAPSHOT "\",\"phase\":\"before\"}",
		  "snapshot without a \"text\" string" },
		{ "{\"name\":\"m\"}", "workload record without a \"type\" string" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct channel ch;
		struct guest_result r;

		start(&ch);
		workload_line(&ch, cases[i].record);
		/* info and error records pass through unchecked */
		workload_line(&ch, "{\"type\":\"" WL_REC_INFO "\",\"x\":1}");
		guest_result_init(&r);
		guest_result_feed(&r, ch.sb.buf, ch.sb.len);
		guest_result_finish(&r);
		assert_int_equal(r.bad.n, 1);
		assert_string_equal(strchr(r.bad.v[0], ':') + 2, cases[i].reason);
		assert_int_equal(json_array_size(r.records), 1);
		guest_result_release(&r);
		sb_release(&ch.sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_ok),
		cmocka_unit_test(test_exit_precond),
		cmocka_unit_test(test_exit_fail),
		cmocka_unit_test(test_record_checks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
