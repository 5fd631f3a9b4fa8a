// SPDX-License-Identifier: GPL-2.0
/* vmstat parsing, event/gauge classification and never-negative deltas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "counters.h"
#include "counters_vmstat.h"
#include "test_counters_fixture.h"

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(vmstat_classify("pgfault"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("pswpin"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("numa_hit"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("thp_fault_alloc"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("workingset_refault_file"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("compact_stall"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("allocstall_normal"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("kswapd_inodesteal"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("slabs_scanned"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("nr_free_pages"), VMSTAT_GAUGE);
	assert_int_equal(vmstat_classify("nr_dirty_threshold"), VMSTAT_GAUGE);
	assert_int_equal(vmstat_classify("workingset_nodes"), VMSTAT_GAUGE);
	/* nr_* names that count events. */
	assert_int_equal(vmstat_classify("nr_dirtied"), VMSTAT_EVENT);
	assert_int_equal(vmstat_classify("nr_tlb_remote_flush"), VMSTAT_EVENT);
}

static void test_parse_real(void **state)
{
	size_t lb, la;
	char *b = fixture("vmstat.before", &lb), *a = fixture("vmstat.after", &la);
	struct vmstat vb, va;
	uint64_t d;

	(void)state;
	assert_int_equal(vmstat_parse(b, lb, &vb), 0);
	assert_int_equal(vmstat_parse(a, la, &va), 0);
	assert_true(vb.n > 100);
	assert_int_equal(vb.bad_lines, 0);
	assert_false(vb.truncated);
	assert_non_null(vmstat_get(&vb, "pgfault"));
	assert_int_equal(vmstat_delta(&vb, &va, "pgfault", &d), VMSTAT_DELTA_OK);
	assert_true(d > 0);
	assert_int_equal(vmstat_delta(&vb, &va, "no_such", &d), VMSTAT_DELTA_MISSING_BEFORE);
	vmstat_release(&vb);
	vmstat_release(&va);
	free(b);
	free(a);
}

static void test_backwards_flagged(void **state)
{
	const char *b = "pgfault 100\npgmajfault 5\nnr_free_pages 10\nonly_before 1\n";
	const char *a = "pgfault 90\npgmajfault 7\nnr_free_pages 4\nonly_after 3\n";
	json_t *o = counters_vmstat_json(b, strlen(b), a, strlen(a));
	json_t *events = json_object_get(o, "events"), *flags = json_object_get(o, "flags");
	json_t *g = json_object_get(json_object_get(o, "gauges"), "nr_free_pages");

	(void)state;
	/* Went backwards: no delta at all (not a wrapped 2^64 - 10). */
	assert_null(json_object_get(events, "pgfault"));
	assert_int_equal(json_integer_value(json_object_get(events, "pgmajfault")), 2);
	assert_int_equal(json_integer_value(json_object_get(g, "before")), 10);
	assert_int_equal(json_integer_value(json_object_get(g, "after")), 4);
	assert_int_equal(json_array_size(flags), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(flags, 0), "state")),
			    "backwards");
	assert_string_equal(json_string_value(json_object_get(json_array_get(flags, 1), "state")),
			    "missing_after");
	assert_string_equal(json_string_value(json_object_get(json_array_get(flags, 2), "state")),
			    "missing_before");
	json_decref(o);
}

static void test_garbage_and_truncated(void **state)
{
	size_t len;
	char *g = fixture("garbage.bin", &len);
	struct vmstat v;
	const char *cut = "pgfault 100\npgmajfault 5";

	(void)state;
	assert_int_equal(vmstat_parse(g, len, &v), 0);
	assert_true(v.bad_lines > 0);
	/* "pgfault 12\0..." has a NUL: never a valid line. */
	assert_null(vmstat_get(&v, "number"));	/* 2^64 overflows int64 */
	assert_non_null(vmstat_get(&v, "nr_free_pages"));
	assert_int_equal(*vmstat_get(&v, "nr_free_pages"), -3);
	vmstat_release(&v);
	free(g);

	assert_int_equal(vmstat_parse(cut, strlen(cut), &v), 0);
	assert_true(v.truncated);
	assert_int_equal(v.n, 1);	/* the cut last line is not trusted */
	vmstat_release(&v);

	/* Every prefix of a real file parses without error. */
	g = fixture("vmstat.before", &len);
	for (size_t n = 0; n <= len; n += 7) {
		assert_int_equal(vmstat_parse(g, n, &v), 0);
		vmstat_release(&v);
	}
	free(g);
}

static void test_node_vmstat(void **state)
{
	size_t len;
	char *t = fixture("node0_vmstat.txt", &len);
	json_t *o = counters_vmstat_json(t, len, t, len);

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(json_object_get(o, "events"), "numa_hit")), 0);
	assert_int_equal(json_array_size(json_object_get(o, "flags")), 0);
	json_decref(o);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_parse_real),
		cmocka_unit_test(test_backwards_flagged),
		cmocka_unit_test(test_garbage_and_truncated),
		cmocka_unit_test(test_node_vmstat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
