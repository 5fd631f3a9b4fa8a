// SPDX-License-Identifier: GPL-2.0
/*
 * session.json's hosts (lab/session/session_host_rec.c): a row the session
 * wrote reads back as the [host] it came from, read straight from the
 * document's rows (no JSON between: a resumed session's hosts were encoded
 * back to JSON and decoded again), what the table cannot check is refused
 * naming the member, and the open hosts as rows (session_hosts_rows())
 * encode as session.json has always had them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "session_host_rec.h"
#include "session_priv.h"

/* @j, a session.json's hosts[], read through the document's table into rows. */
static void rows_of(const char *json, struct session_doc *d)
{
	struct strbuf err = STRBUF_INIT;
	json_t *j = json_loads(json, 0, NULL);

	assert_non_null(j);
	session_doc_init(d);
	if (session_doc_member_decode(j, "hosts", d, &err))
		fail_msg("%s", sb_str(&err));
	/* the rows point into @j: the document keeps it */
	session_doc_keep_json(d, j);
	sb_release(&err);
}

static void test_round_trip(void **state)
{
	struct host_cfg h = { .name = "big", .uri = "qemu+ssh://big/system", .slots = 4,
			      .cpus = "0-3,8", .pool = "p", .pool_dir = "/srv/p" };
	struct sdoc_host_entry row = session_host_row(&h, "kvm", NULL);
	struct host_cfg d;
	struct strbuf err = STRBUF_INIT;
	struct session_doc doc;

	(void)state;
	assert_string_equal(row.accel, "kvm");
	assert_int_equal(session_host_from_row(&row, &d, &err), 0);
	assert_string_equal(d.name, "big");
	assert_string_equal(d.uri, "qemu+ssh://big/system");
	assert_int_equal(d.slots, 4);
	assert_string_equal(d.cpus, "0-3,8");
	assert_int_equal(d.nr_cpus, 5);
	assert_int_equal(d.cpu_ids[4], 8);
	assert_string_equal(d.pool, "p");
	assert_string_equal(d.pool_dir, "/srv/p");
	session_host_release(&d);
	/*
	 * A session of before pools and cpus, and the implicit "local" host
	 * written with "cpus": null (every session failed at its start when
	 * null was refused): the defaults, every CPU.
	 */
	rows_of("{\"hosts\": [{\"name\": \"local\", \"uri\": \"qemu:///embed\", \"slots\": 1},"
		" {\"name\": \"local\", \"uri\": \"qemu:///embed\", \"slots\": 1,"
		" \"cpus\": null, \"pool\": \"p\", \"pool_dir\": \"/srv/p\"}]}", &doc);
	assert_int_equal(doc.hosts.n, 2);
	assert_int_equal(session_host_from_row(sdoc_host_at(&doc, 0), &d, &err), 0);
	assert_string_equal(d.pool, CONFIG_DEFAULT_POOL);
	assert_string_equal(d.pool_dir, CONFIG_DEFAULT_POOL_DIR);
	assert_null(d.cpus);
	assert_int_equal(d.nr_cpus, 0);
	session_host_release(&d);
	assert_int_equal(session_host_from_row(sdoc_host_at(&doc, 1), &d, &err), 0);
	assert_string_equal(d.pool, "p");
	assert_null(d.cpus);
	assert_int_equal(d.nr_cpus, 0);
	session_host_release(&d);
	session_doc_release(&doc);
	sb_release(&err);
}

static void bad(struct sdoc_host_entry e, const char *want)
{
	struct host_cfg d;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(session_host_from_row(&e, &d, &err), -1);
	if (strcmp(sb_str(&err), want))
		fail_msg("got \"%s\", want \"%s\"", sb_str(&err), want);
	session_host_release(&d);
	sb_release(&err);
}

/* What the table cannot say (its types are test_session_doc_table's), named by member. */
static void test_bad_members(void **state)
{
	(void)state;
	bad((struct sdoc_host_entry){ .uri = "u", .slots = 1 },
	    "name: expected a non-empty string, got nothing");
	bad((struct sdoc_host_entry){ .name = "", .uri = "u", .slots = 1 },
	    "name: expected a non-empty string, got an empty one");
	bad((struct sdoc_host_entry){ .name = "h", .slots = 1 },
	    "uri: expected a string, got nothing");
	bad((struct sdoc_host_entry){ .name = "h", .uri = "u", .slots = 0 },
	    "slots: expected 1 to 1024, got 0");
	bad((struct sdoc_host_entry){ .name = "h", .uri = "u", .slots = 1025 },
	    "slots: expected 1 to 1024, got 1025");
	bad((struct sdoc_host_entry){ .name = "h", .uri = "u", .slots = SDOC_NONE },
	    "slots: expected 1 to 1024, got nothing");
	bad((struct sdoc_host_entry){ .name = "h", .uri = "u", .slots = 1, .cpus = "x-y" },
	    "host h: cpus 'x-y' is not a CPU list");
}

/* A type the table refuses never reaches a row: a resume stops at session.json's path. */
static void test_table_refuses(void **state)
{
	struct session_doc d;
	struct strbuf err = STRBUF_INIT;
	json_t *j = json_loads("{\"hosts\": [{\"name\": \"h\", \"uri\": \"u\", \"slots\": 1,"
			       " \"cpus\": 3}]}", 0, NULL);

	(void)state;
	session_doc_init(&d);
	assert_int_equal(session_doc_member_decode(j, "hosts", &d, &err), -1);
	assert_non_null(strstr(sb_str(&err), "hosts[0].cpus"));
	session_doc_release(&d);
	json_decref(j);
	sb_release(&err);
}

/*
 * A new session's hosts[] are filled as rows of its document: encoded,
 * the bytes session.json has always had of each host (session_host_encode()'s
 * order: name, uri, slots, cpus, pool, pool_dir, accel, accel_reason).
 */
static void test_rows_as_encoded(void **state)
{
	struct session_host hv[2] = {
		{ .cfg = { .name = "local", .uri = "qemu:///embed", .slots = 2, .pool = "p",
			   .pool_dir = "/srv/p" }, .accel = ACCEL_TCG,
		  .accel_reason = "no \"kvm\" here" },
		{ .cfg = { .name = "big", .uri = "qemu+ssh://big/system", .slots = 4,
			   .cpus = "0-3,8", .pool = "q", .pool_dir = "/srv/q" }, .accel = ACCEL_KVM },
	};
	struct session s = { .hosts = { .v = hv, .n = 2 } };
	struct session_doc d;
	json_t *got;
	char *b;

	(void)state;
	session_doc_init(&d);
	d.hosts = session_hosts_rows(&s);
	got = session_doc_member_encode(&d, "hosts");
	b = json_dumps(got, JSON_PRESERVE_ORDER | JSON_COMPACT);
	assert_string_equal(b, "[{\"name\":\"local\",\"uri\":\"qemu:///embed\",\"slots\":2,"
			    "\"cpus\":null,\"pool\":\"p\",\"pool_dir\":\"/srv/p\",\"accel\":\"tcg\","
			    "\"accel_reason\":\"no \\\"kvm\\\" here\"},{\"name\":\"big\","
			    "\"uri\":\"qemu+ssh://big/system\",\"slots\":4,\"cpus\":\"0-3,8\","
			    "\"pool\":\"q\",\"pool_dir\":\"/srv/q\",\"accel\":\"kvm\","
			    "\"accel_reason\":null}]");
	free(b);
	json_decref(got);
	session_doc_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_members),
		cmocka_unit_test(test_table_refuses),
		cmocka_unit_test(test_rows_as_encoded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
