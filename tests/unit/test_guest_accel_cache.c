// SPDX-License-Identifier: GPL-2.0
/*
 * kvm-probe.json's codec (lab/guest/guest_accel_cache.c): what the probe
 * wrote reads back, and a file edited by hand or cut short is refused
 * naming the member, so the host is probed again rather than trusted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "guest_accel_cache.h"

static void test_round_trip(void **state)
{
	struct kvm_probe_cache c = { .host_key = "ab12", .kvm_works = 0,
				     .reason = "KVM: entry failed", .probed_at = "2026-12-01T00:00:00Z" };
	struct kvm_probe_cache d;
	struct strbuf err = STRBUF_INIT;
	json_t *j = kvm_probe_cache_encode(&c);
	char *text = json_dumps(j, JSON_COMPACT);

	(void)state;
	assert_string_equal(text, "{\"host_key\":\"ab12\",\"kvm_works\":false,"
			    "\"reason\":\"KVM: entry failed\",\"probed_at\":\"2026-12-01T00:00:00Z\"}");
	assert_int_equal(kvm_probe_cache_decode(j, &d, &err), 0);
	assert_string_equal(d.host_key, "ab12");
	assert_false(d.kvm_works);
	assert_string_equal(d.reason, "KVM: entry failed");
	assert_string_equal(d.probed_at, "2026-12-01T00:00:00Z");
	kvm_probe_cache_release(&d);
	free(text);
	json_decref(j);
	/* reason and probed_at may be missing: none */
	j = json_pack("{s:s,s:b}", "host_key", "k", "kvm_works", 1);
	assert_int_equal(kvm_probe_cache_decode(j, &d, &err), 0);
	assert_true(d.kvm_works);
	assert_string_equal(d.reason, "");
	assert_null(d.probed_at);
	kvm_probe_cache_release(&d);
	json_decref(j);
	sb_release(&err);
}

static void bad(json_t *j, const char *want)
{
	struct kvm_probe_cache d;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(kvm_probe_cache_decode(j, &d, &err), -1);
	assert_string_equal(sb_str(&err), want);
	assert_null(d.host_key);
	assert_null(d.reason);
	json_decref(j);
	sb_release(&err);
}

static void test_bad_members(void **state)
{
	(void)state;
	bad(json_pack("[]"), "expected an object, got an array");
	bad(json_pack("{s:b}", "kvm_works", 1), "host_key: expected a string, got nothing");
	bad(json_pack("{s:i,s:b}", "host_key", 3, "kvm_works", 1),
	    "host_key: expected a string, got an integer");
	bad(json_pack("{s:s}", "host_key", "k"), "kvm_works: expected a boolean, got nothing");
	bad(json_pack("{s:s,s:s}", "host_key", "k", "kvm_works", "yes"),
	    "kvm_works: expected a boolean, got a string");
	bad(json_pack("{s:s,s:b,s:[]}", "host_key", "k", "kvm_works", 1, "reason"),
	    "reason: expected a string, got an array");
	bad(json_pack("{s:s,s:b,s:i}", "host_key", "k", "kvm_works", 1, "probed_at", 5),
	    "probed_at: expected a string, got an integer");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
