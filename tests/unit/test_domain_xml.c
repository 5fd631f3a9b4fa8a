// SPDX-License-Identifier: GPL-2.0
/* Domain XML from a topology: NUMA cells, distances, tuning, and escaping of every path. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "domain_plan.h"
#include "domain_xml.h"
#include "guest_conf.h"
#include "guest_protocol.h"
#include "util.h"

static struct domain_spec base_spec(const struct guest_topology *t)
{
	return (struct domain_spec){
		.name = "mglrulab-1-0", .topo = t, .accel = ACCEL_TCG,
		.kernel = "/k/bzImage", .cmdline = "console=ttyS0 init=/sbin/mglrulab-runner",
		.disk = "/runs/a/disk.qcow2", .job = "/runs/a/job.json",
		.console_log = "/runs/a/console.log", .channel_log = "/runs/a/results.jsonl",
	};
}

static void contains(const char *xml, const char *needle)
{
	if (!strstr(xml, needle))
		fail_msg("XML lacks '%s':\n%s", needle, xml);
}

static void test_tiny(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct domain_spec s;
	char *xml;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny.conf", &t, &err), 0);
	s = base_spec(&t);
	xml = domain_xml(&s);
	contains(xml, "<domain type='qemu'>");
	contains(xml, "<memory unit='MiB'>1024</memory>");
	contains(xml, "<vcpu placement='static'>2</vcpu>");
	contains(xml, "<cell id='0' cpus='0' memory='512' unit='MiB'>");
	contains(xml, "<cell id='1' cpus='1' memory='512' unit='MiB'>");
	contains(xml, "<sibling id='1' value='20'/>");
	contains(xml, "<features>\n    <acpi/>\n    <apic/>\n  </features>");
	contains(xml, "<entry name='" GUEST_FWCFG_JOB_NAME "' file='/runs/a/job.json'/>");
	contains(xml, "<target type='virtio' name='" GUEST_CHANNEL_NAME "'/>");
	contains(xml, "<on_poweroff>destroy</on_poweroff>");
	contains(xml, "<on_reboot>destroy</on_reboot>");
	contains(xml, "<on_crash>destroy</on_crash>");
	contains(xml, "<kernel>/k/bzImage</kernel>");
	contains(xml, "<source path='/runs/a/console.log'/>");
	/* tiny pins each vCPU to its own host CPU (guests/tiny.conf says why). */
	contains(xml, "<vcpupin vcpu='0' cpuset='0'/>");
	contains(xml, "<vcpupin vcpu='1' cpuset='1'/>");
	contains(xml, "<emulatorpin cpuset='0-1'/>");
	assert_null(strstr(xml, "<numatune>"));
	free(xml);

	s.accel = ACCEL_KVM;
	xml = domain_xml(&s);
	contains(xml, "<domain type='kvm'>");
	contains(xml, "host-passthrough");
	free(xml);
	guest_topology_release(&t);
	sb_release(&err);
}

/*
 * tiny-icount: under TCG the guest's clock counts instructions (-icount,
 * through the QEMU namespace); under KVM, which cannot, nothing is added.
 */
static void test_icount(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct domain_spec s;
	char *xml;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny-icount.conf", &t, &err), 0);
	assert_int_equal(t.icount_shift, 2);
	s = base_spec(&t);
	xml = domain_xml(&s);
	contains(xml, "<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>");
	contains(xml, "  <qemu:commandline>\n    <qemu:arg value='-icount'/>\n"
		      "    <qemu:arg value='shift=2,sleep=off'/>\n  </qemu:commandline>\n</domain>\n");
	assert_null(strstr(xml, "<vcpupin"));
	contains(xml, "<emulatorpin cpuset='0-1'/>");
	free(xml);
	s.accel = ACCEL_KVM;
	xml = domain_xml(&s);
	contains(xml, "<domain type='kvm'>");
	assert_null(strstr(xml, "icount"));
	assert_null(strstr(xml, "qemu:"));
	free(xml);
	guest_topology_release(&t);
	/* tiny: no icount, no namespace. */
	assert_int_equal(guest_topology_load("guests/tiny.conf", &t, &err), 0);
	assert_int_equal(t.icount_shift, -1);
	s = base_spec(&t);
	xml = domain_xml(&s);
	assert_null(strstr(xml, "qemu:"));
	free(xml);
	guest_topology_release(&t);
	sb_release(&err);
}

/*
 * The attribution plugin: -plugin with an absolute .so and out= the run's
 * folder, commas doubled (QEMU's option syntax) and quotes escaped (XML);
 * under KVM, which cannot load it, and on a remote host, nothing.
 */
static void test_attr_plugin(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct guest_run run;
	struct guest_remote rem = { .host = "box", .kernel = "/pool/k" };
	char *xml, *cwd = getcwd(NULL, 0), *want;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny.conf", &t, &err), 0);
	memset(&run, 0, sizeof(run));
	run.topo = &t;
	run.accel = ACCEL_TCG;
	run.kernel = "/k/bzImage";
	run.run_dir = "/runs/a,b'c";
	run.attr_plugin = "build/plugin/x.so";
	xml = guest_run_domain_xml(&run, "mglrulab-1-0", NULL);
	/* no icount in tiny: the namespace for the plugin alone */
	contains(xml, "<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>");
	want = xasprintf("  <qemu:commandline>\n    <qemu:arg value='-plugin'/>\n"
			 "    <qemu:arg value='%s/build/plugin/x.so,out=/runs/a,,b&#39;c/attr'/>\n"
			 "  </qemu:commandline>\n", cwd);
	contains(xml, want);
	free(want);
	free(xml);
	run.accel = ACCEL_KVM;
	xml = guest_run_domain_xml(&run, "mglrulab-1-0", NULL);
	assert_null(strstr(xml, "-plugin"));
	assert_null(strstr(xml, "qemu:"));
	free(xml);
	run.accel = ACCEL_TCG;
	run.remote = &rem;
	xml = guest_run_domain_xml(&run, "mglrulab-1-0", NULL);
	assert_null(strstr(xml, "-plugin"));
	free(xml);
	guest_topology_release(&t);
	sb_release(&err);
	free(cwd);
}

static void test_placement_and_memory_only_node(void **state)
{
	struct guest_topology t;
	struct domain_spec s;
	char *xml;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.vcpus = 2;
	t.nr_nodes = 2;
	t.memory_mib = 3072;
	t.machine = (char *)"q35";
	cpuset_set(&t.nodes[0].cpus, 0);
	cpuset_set(&t.nodes[0].cpus, 1);
	t.nodes[0].memory_mib = 2048;
	t.nodes[1].memory_mib = 1024;
	t.nodes[0].host_nodes = (char *)"0";
	t.nodes[1].host_nodes = (char *)"1";
	t.vcpupin[1] = (char *)"3-4";
	t.emulatorpin = (char *)"0";
	t.hugepage_kib = 2048;
	t.nosharepages = 1;
	s = base_spec(&t);
	xml = domain_xml(&s);
	contains(xml, "machine='q35'");
	contains(xml, "<cell id='1' memory='1024' unit='MiB'/>");	/* memory-only: no cpus */
	contains(xml, "<vcpupin vcpu='1' cpuset='3-4'/>");
	contains(xml, "<emulatorpin cpuset='0'/>");
	contains(xml, "<memnode cellid='1' mode='strict' nodeset='1'/>");
	contains(xml, "<hugepages><page size='2048' unit='KiB'/></hugepages>");
	contains(xml, "<nosharepages/>");
	assert_null(strstr(xml, "<distances>"));
	assert_null(strstr(xml, "<filesystem"));
	free(xml);

	struct domain_share sh[] = { { "/usr", "hostusr" }, { "/src/linux's", "src" } };
	s.shares = sh;
	s.nr_shares = 2;
	xml = domain_xml(&s);
	contains(xml, "<source dir='/usr'/>\n      <target dir='hostusr'/>\n      <readonly/>");
	contains(xml, "<source dir='/src/linux&#39;s'/>");
	free(xml);
}

static void test_escaping(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct domain_spec s;
	char *xml;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny.conf", &t, &err), 0);
	s = base_spec(&t);
	s.kernel = "/a'b/<k>&\"";
	s.cmdline = "x='<y>' & z";
	s.console_log = "/l'/c.log";
	xml = domain_xml(&s);
	contains(xml, "<kernel>/a&#39;b/&lt;k&gt;&amp;&quot;</kernel>");
	contains(xml, "<cmdline>x=&#39;&lt;y&gt;&#39; &amp; z</cmdline>");
	contains(xml, "<source path='/l&#39;/c.log'/>");
	assert_null(strstr(xml, "<k>"));
	free(xml);
	/* XML 1.0 forbids most control characters, and libvirt wants UTF-8 */
	s.cmdline = "a\x01" "b\xff";
	xml = domain_xml(&s);
	contains(xml, "<cmdline>a\xEF\xBF\xBD" "b\xEF\xBF\xBD</cmdline>");
	free(xml);
	guest_topology_release(&t);
	sb_release(&err);
}

/* A remote host: console and results port read as streams, no local file named. */
static void test_remote(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct domain_spec s;
	char *xml;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny.conf", &t, &err), 0);
	s = base_spec(&t);
	s.job = "/pool/mglrulab-run-1-0.job";
	s.streams = 1;
	xml = domain_xml(&s);
	contains(xml, "<entry name='" GUEST_FWCFG_JOB_NAME "' file='/pool/mglrulab-run-1-0.job'/>");
	contains(xml, "<serial type='pty'>\n      <target port='0'/>\n    </serial>");
	contains(xml, "<channel type='unix'>\n      <source mode='bind'/>\n"
		 "      <target type='virtio' name='" GUEST_CHANNEL_NAME "'/>");
	assert_null(strstr(xml, "job.json"));
	assert_null(strstr(xml, "console.log"));
	assert_null(strstr(xml, "results.jsonl"));
	assert_null(strstr(xml, "type='file'>\n      <source path"));
	assert_null(strstr(xml, "<log "));
	free(xml);
	/* QEMU's log of the console, a volume on the host, escaped */
	s.console_host_log = "/pool/mglrulab-run-1-0.console'&";
	xml = domain_xml(&s);
	contains(xml, "<serial type='pty'>\n      <log file='/pool/mglrulab-run-1-0.console&#39;&amp;' "
		 "append='off'/>\n      <target port='0'/>\n    </serial>");
	free(xml);
	guest_topology_release(&t);
	sb_release(&err);
}

/*
 * A run's domain as guest_run() starts it (domain_plan.h): the command
 * line's parts by accel and disk, the run's files under its folder, made
 * absolute, and a remote run's volumes as given.
 */
static void test_run_plan(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct guest_run run;
	struct guest_remote rem = { .host = "box", .kernel = "/pool/k", .disk = "/pool/d.qcow2",
				    .job = "/pool/j", .console_log = "/pool/c.console" };
	char *cmd, *xml, *cwd = getcwd(NULL, 0), *want;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny-icount.conf", &t, &err), 0);
	memset(&run, 0, sizeof(run));
	run.topo = &t;
	run.accel = ACCEL_KVM;
	run.kernel = "/k/bzImage";
	cmd = guest_run_cmdline(&run);
	assert_string_equal(cmd, GUEST_BASE_CMDLINE);
	free(cmd);
	run.accel = ACCEL_TCG;
	run.base_image = "/img.qcow2";
	run.extra_cmdline = "init=/other";
	cmd = guest_run_cmdline(&run);
	assert_string_equal(cmd, GUEST_BASE_CMDLINE " " GUEST_TCG_CMDLINE " root=/dev/vda rootfstype=ext4 rw "
			    "init=" GUEST_RUNNER_PATH " init=/other");
	free(cmd);

	run.run_dir = "runs/a";
	run.job_json = "{}";
	xml = guest_run_domain_xml(&run, "mglrulab-1-0", NULL);
	contains(xml, "<name>mglrulab-1-0</name>");
	contains(xml, "<qemu:arg value='-icount'/>");
	contains(xml, "<cmdline>" GUEST_BASE_CMDLINE " " GUEST_TCG_CMDLINE);
	want = xasprintf("<source file='%s/runs/a/disk.qcow2'/>", cwd);
	contains(xml, want);
	free(want);
	want = xasprintf("file='%s/runs/a/job.json'/>", cwd);
	contains(xml, want);
	free(want);
	want = xasprintf("<source path='%s/runs/a/console.log'/>", cwd);
	contains(xml, want);
	free(want);
	want = xasprintf("<source path='%s/runs/a/results.jsonl'/>", cwd);
	contains(xml, want);
	free(want);
	assert_null(strstr(xml, "/img.qcow2"));
	free(xml);

	/* under KVM: no icount, no tsc=reliable; no image: no disk, no root= */
	run.accel = ACCEL_KVM;
	run.base_image = NULL;
	run.extra_cmdline = NULL;
	xml = guest_run_domain_xml(&run, "mglrulab-1-1", NULL);
	contains(xml, "<domain type='kvm'>");
	contains(xml, "<cmdline>" GUEST_BASE_CMDLINE "</cmdline>");
	assert_null(strstr(xml, "icount"));
	assert_null(strstr(xml, "<disk"));
	free(xml);

	run.remote = &rem;
	xml = guest_run_domain_xml(&run, "mglrulab-1-2", NULL);
	contains(xml, "<kernel>/pool/k</kernel>");
	contains(xml, "<source file='/pool/d.qcow2'/>");
	contains(xml, "file='/pool/j'/>");
	contains(xml, "root=/dev/vda");
	contains(xml, "<serial type='pty'>\n      <log file='/pool/c.console' append='off'/>");
	assert_null(strstr(xml, "/k/bzImage"));
	free(xml);
	free(cwd);
	guest_topology_release(&t);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tiny),
		cmocka_unit_test(test_icount),
		cmocka_unit_test(test_attr_plugin),
		cmocka_unit_test(test_placement_and_memory_only_node),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_remote),
		cmocka_unit_test(test_run_plan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
