// SPDX-License-Identifier: GPL-2.0
/*
 * session.json's hosts (lab/session/session_host_rec.c): what a session
 * wrote reads back as the [host] it came from, and a member of the wrong
 * type is refused naming it (a "cpus" that is not a string no longer
 * reads as every CPU); the open hosts as session.json's rows
 * (session_hosts_rows()) are what session_host_encode() wrote of them.
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

static void test_round_trip(void **state)
{
	struct host_cfg h = { .name = "big", .uri = "qemu+ssh://big/system", .slots = 4,
			      .cpus = "0-3,8", .pool = "p", .pool_dir = "/srv/p" };
	struct host_cfg d;
	struct strbuf err = STRBUF_INIT;
	json_t *j = session_host_encode(&h, "kvm", NULL);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(j, "accel")), "kvm");
	assert_int_equal(session_host_decode(j, &d, &err), 0);
	assert_string_equal(d.name, "big");
	assert_string_equal(d.uri, "qemu+ssh://big/system");
	assert_int_equal(d.slots, 4);
	assert_string_equal(d.cpus, "0-3,8");
	assert_int_equal(d.nr_cpus, 5);
	assert_int_equal(d.cpu_ids[4], 8);
	assert_string_equal(d.pool, "p");
	assert_string_equal(d.pool_dir, "/srv/p");
	session_host_release(&d);
	json_decref(j);
	/* a session of before pools and cpus: the defaults, every CPU */
	j = json_pack("{s:s,s:s,s:i}", "name", "local", "uri", "qemu:///embed", "slots", 1);
	assert_int_equal(session_host_decode(j, &d, &err), 0);
	assert_string_equal(d.pool, CONFIG_DEFAULT_POOL);
	assert_string_equal(d.pool_dir, CONFIG_DEFAULT_POOL_DIR);
	assert_null(d.cpus);
	assert_int_equal(d.nr_cpus, 0);
	session_host_release(&d);
	json_decref(j);
	/*
	 * A host whose cpus lab.conf leaves unset (every session's implicit
	 * "local" one) is encoded with "cpus": null and must decode: every
	 * session failed at its start when null was refused.
	 */
	struct host_cfg every = { .name = "local", .uri = "qemu:///embed", .slots = 1,
				  .pool = "p", .pool_dir = "/srv/p" };
	j = session_host_encode(&every, "tcg", NULL);
	assert_true(json_is_null(json_object_get(j, "cpus")));
	assert_int_equal(session_host_decode(j, &d, &err), 0);
	assert_null(d.cpus);
	assert_int_equal(d.nr_cpus, 0);
	session_host_release(&d);
	json_decref(j);
	sb_release(&err);
}

static void bad(json_t *j, const char *want)
{
	struct host_cfg d;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(session_host_decode(j, &d, &err), -1);
	if (strcmp(sb_str(&err), want))
		fail_msg("got \"%s\", want \"%s\"", sb_str(&err), want);
	session_host_release(&d);
	json_decref(j);
	sb_release(&err);
}

static void test_bad_members(void **state)
{
	(void)state;
	bad(json_pack("[]"), "expected an object, got an array");
	bad(json_pack("{s:s,s:i}", "uri", "u", "slots", 1), "name: expected a non-empty string, "
	    "got nothing");
	bad(json_pack("{s:s,s:s,s:i}", "name", "", "uri", "u", "slots", 1),
	    "name: expected a non-empty string, got an empty one");
	bad(json_pack("{s:s,s:i,s:i}", "name", "h", "uri", 5, "slots", 1),
	    "uri: expected a string, got an integer");
	bad(json_pack("{s:s,s:s,s:i}", "name", "h", "uri", "u", "slots", 0),
	    "slots: expected 1 to 1024, got an integer");
	bad(json_pack("{s:s,s:s,s:s}", "name", "h", "uri", "u", "slots", "2"),
	    "slots: expected 1 to 1024, got a string");
	bad(json_pack("{s:s,s:s,s:i,s:b}", "name", "h", "uri", "u", "slots", 1, "pool", 1),
	    "pool: expected a string, got a boolean");
	bad(json_pack("{s:s,s:s,s:i,s:i}", "name", "h", "uri", "u", "slots", 1, "cpus", 3),
	    "cpus: expected a string, got an integer");
	bad(json_pack("{s:s,s:s,s:i,s:s}", "name", "h", "uri", "u", "slots", 1, "cpus", "x-y"),
	    "host h: cpus 'x-y' is not a CPU list");
}

/*
 * A new session's hosts[] are filled as rows of its document: encoded, the
 * bytes session_host_encode() made of each host when they were JSON.
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
	json_t *want = json_array(), *got;
	char *a, *b;

	(void)state;
	for (size_t i = 0; i < 2; i++)
		json_array_append_new(want, session_host_encode(&hv[i].cfg,
								guest_accel_name(hv[i].accel),
								hv[i].accel_reason));
	session_doc_init(&d);
	d.hosts = session_hosts_rows(&s);
	got = session_doc_member_encode(&d, "hosts");
	a = json_dumps(want, JSON_PRESERVE_ORDER);
	b = json_dumps(got, JSON_PRESERVE_ORDER);
	assert_string_equal(b, a);
	free(a);
	free(b);
	json_decref(got);
	json_decref(want);
	session_doc_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_members),
		cmocka_unit_test(test_rows_as_encoded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
