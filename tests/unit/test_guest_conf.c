// SPDX-License-Identifier: GPL-2.0
/* guests/NAME.conf: bundled files load, every kind of mistake names file:line. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_conf.h"
#include "strbuf.h"

static char tmp_path[] = "/tmp/test_guest_conf_XXXXXX";

static int load_text(const char *text, struct guest_topology *t, struct strbuf *err)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/g.conf", tmp_path);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return guest_topology_load(path, t, err);
}

static void expect_error(const char *text, const char *needle)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	int r = load_text(text, &t, &err);

	if (r <= 0 || !strstr(sb_str(&err), needle))
		fail_msg("expected an error containing '%s', got r=%d:\n%s", needle, r, sb_str(&err));
	guest_topology_release(&t);
	sb_release(&err);
}

static void test_bundled(void **state)
{
	const char *names[] = { "tiny", "numa2", "numa3" };
	const int vcpus[] = { 2, 4, 6 }, nodes[] = { 2, 2, 3 };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		struct guest_topology t;
		struct strbuf err = STRBUF_INIT;
		char *p = guest_conf_path("guests", names[i]);

		if (guest_topology_load(p, &t, &err))
			fail_msg("%s: %s", p, sb_str(&err));
		assert_int_equal(t.vcpus, vcpus[i]);
		assert_int_equal(t.nr_nodes, nodes[i]);
		assert_true(t.has_distances);
		assert_string_equal(t.name, names[i]);
		assert_true(t.memory_mib <= 16 * 1024);	/* fits a 24 GiB host */
		guest_topology_release(&t);
		sb_release(&err);
		free(p);
	}
}

static void test_memory_only_node_and_placement(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;

	(void)state;
	int r = load_text("[guest]\nvcpus = 2\nmemory = 3G\naccel = tcg\n"
			  "[node 0]\ncpus = 0-1\nmemory = 2G\ndistances = 10,30\nhost_nodes = 0\n"
			  "[node 1]\ncpus =\nmemory = 1G\ndistances = 30,10\n"
			  "[placement]\nvcpupin = 0:2 1:3-4\nemulatorpin = 0-1\nhugepages = 2M\nnosharepages = yes\n",
			  &t, &err);
	if (r)
		fail_msg("%s", sb_str(&err));
	assert_int_equal(t.accel, ACCEL_TCG);
	assert_int_equal(cpuset_count(&t.nodes[1].cpus), 0);
	assert_int_equal(t.nodes[1].memory_mib, 1024);
	assert_string_equal(t.vcpupin[1], "3-4");
	assert_int_equal(t.hugepage_kib, 2048);
	assert_int_equal(t.nosharepages, 1);
	assert_string_equal(t.nodes[0].host_nodes, "0");
	guest_topology_release(&t);
	sb_release(&err);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("[guest]\nvcpus = two\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:2: [guest] vcpus: expected an integer from 1 to 256, not 'two'");
	expect_error("[guest]\nvcpus = 2\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "vCPU 1 is in no node");
	expect_error("[guest]\nvcpus = 2\nmemory = 2G\n[node 0]\ncpus = 0-1\nmemory = 1G\n",
		     "g.conf:3: [guest] memory: 2048 MiB but the nodes add up to 1024 MiB");
	expect_error("[guest]\nvcpus = 2\n[node 0]\ncpus = 0-1\nmemory = 1G\n[node 1]\ncpus = 1\nmemory = 1G\n",
		     "g.conf:7: [node 1] cpus: vCPU 1 is already in another node");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0-1\nmemory = 1G\n",
		     "g.conf:4: [node 0] cpus: vCPU 1 does not exist");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = 1G\n[node 2]\ncpus =\nmemory = 1G\n",
		     "[node 1] is missing");
	expect_error("[guest]\nvcpus = 2\n[node 0]\ncpus = 0\nmemory = 1G\ndistances = 10,20\n"
		     "[node 1]\ncpus = 1\nmemory = 1G\n",
		     "g.conf:8: [node 1] distances: missing");
	expect_error("[guest]\nvcpus = 2\n[node 0]\ncpus = 0\nmemory = 1G\ndistances = 10\n"
		     "[node 1]\ncpus = 1\nmemory = 1G\ndistances = 20,10\n",
		     "g.conf:6: [node 0] distances: 1 given, expected 2");
	expect_error("[guest]\nvcpus = 2\n[node 0]\ncpus = 0\nmemory = 1G\ndistances = 12,20\n"
		     "[node 1]\ncpus = 1\nmemory = 1G\ndistances = 20,10\n",
		     "g.conf:6: [node 0] distances: distance to itself is 12, expected 10");
	expect_error("[guest]\nvcpus = 1\naccel = fast\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:3: [guest] accel: expected one of auto|kvm|tcg, not 'fast'");
	expect_error("[guest]\nvcpus = 1\ncolour = red\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:3: [guest] unknown key 'colour' (expected one of: vcpus, memory, machine, "
		     "accel, boot_timeout, run_timeout, icount)");
	expect_error("[guest]\nvcpus = 1\nicount = 11\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:3: [guest] icount: expected off, or QEMU's icount shift from 0 to 10");
	expect_error("[guest]\nvcpus = 1\nicount = on\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:3: [guest] icount: expected off, or QEMU's icount shift");
	/* One emulator thread runs every vCPU: there is no vCPU thread to pin. */
	expect_error("[guest]\nvcpus = 1\nicount = 2\n[node 0]\ncpus = 0\nmemory = 1G\n"
		     "[placement]\nvcpupin = 0:1\n",
		     "g.conf:8: [placement] vcpupin: with [guest] icount every vCPU runs in the "
		     "emulator's one thread");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = lots\n",
		     "g.conf:5: [node 0] memory: expected a size like 512M or 4G, not 'lots'");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0-x\nmemory = 1G\n",
		     "g.conf:4: [node 0] cpus: expected a vCPU list");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = 1G\n[placement]\nvcpupin = 0=1\n",
		     "g.conf:7: [placement] vcpupin: expected space-separated VCPU:HOSTCPUS pairs");
	expect_error("[guest]\nvcpus = 2\n[node 0]\ncpus =\nmemory = 1G\n[node 1]\ncpus =\nmemory = 1G\n",
		     "no node has CPUs");
	expect_error("[guest]\nvcpus = 1\n[nodes]\ncpus = 0\n", "unknown section [nodes]");
	expect_error("[guest]\nvcpus = 1\nboot_timeout = 100\nrun_timeout = 10\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:3: [guest] boot_timeout: 100 s is longer than run_timeout (10 s)");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = 1025M\n[placement]\nhugepages = 2M\n",
		     "g.conf:5: [node 0] memory: 1025 MiB is not a multiple of the 2048 KiB hugepages");
	/* As in lab.conf, a key is set once per section ([node 01] is [node 1]). */
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = 1G\n[node 00]\nmemory = 2G\n",
		     "g.conf:7: [node 0] memory: already set at line 5");
	expect_error("[guest]\nvcpus = 1\nvcpus = 2\n[node 0]\ncpus = 0\nmemory = 1G\n",
		     "g.conf:3: [guest] vcpus: already set at line 2");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = 1G\n[placement]\nnumatune_mode = loose\n",
		     "g.conf:7: [placement] numatune_mode: expected one of "
		     "strict|preferred|interleave|restrictive, not 'loose'");
	expect_error("[guest]\nvcpus = 1\n[node 0]\ncpus = 0\nmemory = 1G\n[placement]\nvcpupin = 3:1\n",
		     "g.conf:7: [placement] vcpupin: names vCPU 3 but vcpus = 1");
	expect_error("[guest]\nthis is not ini\n", "g.conf:2: expected");
}

static void test_cpuset(void **state)
{
	struct cpuset s;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	assert_int_equal(cpuset_parse("0-3, 6,8-9", 16, &s), 0);
	assert_int_equal(cpuset_count(&s), 7);
	cpuset_format(&s, &sb);
	assert_string_equal(sb_str(&sb), "0-3,6,8-9");
	assert_int_equal(cpuset_parse("3-1", 16, &s), -1);
	assert_int_equal(cpuset_parse("16", 16, &s), -1);
	assert_int_equal(cpuset_parse("1,", 16, &s), -1);
	assert_int_equal(cpuset_parse("99999999999999999999", 16, &s), -1);
	sb_release(&sb);
}

static void test_matches(void **state)
{
	struct guest_topology d, r;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny.conf", &d, &err), 0);
	memset(&r, 0, sizeof(r));
	r.vcpus = 2;
	r.nr_nodes = 2;
	r.has_distances = 1;
	cpuset_set(&r.nodes[0].cpus, 0);
	cpuset_set(&r.nodes[1].cpus, 1);
	r.nodes[0].memory_mib = 450;
	r.nodes[1].memory_mib = 500;
	r.nodes[0].distances[0] = r.nodes[1].distances[1] = 10;
	r.nodes[0].distances[1] = r.nodes[1].distances[0] = 20;
	assert_int_equal(guest_topology_matches(&d, &r, &why), 1);

	/* numa=off: one node holding everything */
	r.nr_nodes = 1;
	cpuset_set(&r.nodes[0].cpus, 1);
	r.nodes[0].memory_mib = 980;
	assert_int_equal(guest_topology_matches(&d, &r, &why), 0);
	assert_non_null(strstr(sb_str(&why), "declared 2 NUMA nodes, the guest shows 1"));

	sb_reset(&why);
	r.nr_nodes = 2;
	r.nodes[0].memory_mib = 100;
	r.nodes[1].distances[0] = 30;
	assert_int_equal(guest_topology_matches(&d, &r, &why), 0);
	assert_non_null(strstr(sb_str(&why), "node 0: declared cpus '0', the guest shows '0-1'"));
	assert_non_null(strstr(sb_str(&why), "node 0: declared 512 MiB, the guest shows 100 MiB"));
	assert_non_null(strstr(sb_str(&why), "declared distance 20 to node 0, the guest shows 30"));
	guest_topology_release(&d);
	sb_release(&err);
	sb_release(&why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bundled),
		cmocka_unit_test(test_memory_only_node_and_placement),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_cpuset),
		cmocka_unit_test(test_matches),
	};
	int r;

	if (!mkdtemp(tmp_path))
		return 1;
	r = cmocka_run_group_tests(tests, NULL, NULL);
	char path[64];
	snprintf(path, sizeof(path), "%s/g.conf", tmp_path);
	unlink(path);
	rmdir(tmp_path);
	return r;
}
