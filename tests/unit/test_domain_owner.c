// SPDX-License-Identifier: GPL-2.0
/*
 * The owner tag of lab domains: written into the domain XML, found again
 * in what libvirt gives back (its own serialisation), and the rule that
 * decides which domains named like the lab's are orphans of ours.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "domain_owner.h"
#include "domain_xml.h"
#include "guest_conf.h"
#include "util.h"

static struct domain_owner sample(void)
{
	struct domain_owner o = { .machine = "3d1219c7c4c5404aaa1f6d2a48adfda4",
				  .boot = "576c66b5-386e-4926-a618-1b33a106a869",
				  .pidns = "4026531836", .pid = 4242, .start = 1109694 };
	return o;
}

static void test_round_trip(void **state)
{
	struct domain_owner o = sample(), back;
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	o.state = xstrdup("/srv/a&b 'q' \"x\" <y>");
	sb_adds(&sb, "<domain type='qemu'>\n  <name>mglrulab-4242-0</name>\n");
	domain_owner_xml(&o, "  ", &sb);
	sb_adds(&sb, "</domain>\n");
	assert_int_equal(domain_owner_find(sb_str(&sb), &back), 0);
	assert_string_equal(back.machine, o.machine);
	assert_string_equal(back.boot, o.boot);
	assert_string_equal(back.pidns, o.pidns);
	assert_int_equal(back.pid, 4242);
	assert_true(back.start == 1109694);
	assert_string_equal(back.state, o.state);
	domain_owner_release(&back);
	domain_owner_release(&o);
	sb_release(&sb);
}

/* What the embedded driver's status file holds: libvirt's own formatting of the tag. */
static void test_libvirt_form(void **state)
{
	struct domain_owner o;
	const char *status =
		"<domstatus state='paused' reason='starting up' pid='0'>\n"
		"  <monitor path='/x/monitor.sock' type='unix'/>\n"
		"  <!-- <mglrulab:owner xmlns:mglrulab=\"urn:x-mglrulab:owner:1\" machine=\"ff\" -->\n"
		"  <domain type='qemu'>\n    <name>mglrulab-7-0</name>\n    <metadata>\n"
		"      <mglrulab:owner xmlns:mglrulab=\"urn:x-mglrulab:owner:1\" "
		"machine=\"3d1219c7c4c5404aaa1f6d2a48adfda4\" boot=\"576c66b5-386e-4926-a618-1b33a106a869\" "
		"pidns=\"4026531836\" pid=\"7\" start=\"99\" state=\"/tmp/a&amp;b &quot;q&quot;&#10;\"/>\n"
		"    </metadata>\n  </domain>\n</domstatus>\n";

	(void)state;
	assert_int_equal(domain_owner_find(status, &o), 0);
	assert_int_equal(o.pid, 7);
	assert_true(o.start == 99);
	assert_string_equal(o.state, "/tmp/a&b \"q\"\n");
	domain_owner_release(&o);
	/* the default-namespace form, as virDomainGetMetadata() could give it */
	assert_int_equal(domain_owner_find("<owner xmlns='urn:x-mglrulab:owner:1' machine='ab' "
					   "boot='cd' pidns='1' pid='2' start='3'/>", &o), 0);
	assert_null(o.state);
	domain_owner_release(&o);
}

/* Anything but our tag, whole and readable, is no tag. */
static void test_not_a_tag(void **state)
{
	static const char *const bad[] = {
		"<domain><name>mglrulab-1-0</name></domain>",
		/* another namespace under our prefix and name */
		"<domain><metadata><mglrulab:owner xmlns:mglrulab='urn:other' machine='ab' boot='cd' "
		"pidns='1' pid='2' start='3'/></metadata></domain>",
		/* only in a comment */
		"<domain><!-- <mglrulab:owner xmlns:mglrulab='urn:x-mglrulab:owner:1' machine='ab' "
		"boot='cd' pidns='1' pid='2' start='3'/> --></domain>",
		/* a field missing, or not a number */
		"<o:owner xmlns:o='urn:x-mglrulab:owner:1' machine='ab' boot='cd' pidns='1' start='3'/>",
		"<o:owner xmlns:o='urn:x-mglrulab:owner:1' machine='ab' boot='cd' pidns='1' pid='-2' start='3'/>",
		"<o:owner xmlns:o='urn:x-mglrulab:owner:1' machine='a b' boot='cd' pidns='1' pid='2' start='3'/>",
		"<o:owner xmlns:o='urn:x-mglrulab:owner:1' machine='ab' boot='cd' pidns='1' pid='0' start='3'/>",
		/* an entity the parser does not know, in the state folder */
		"<o:owner xmlns:o='urn:x-mglrulab:owner:1' machine='ab' boot='cd' pidns='1' pid='2' "
		"start='3' state='/a&nbsp;b'/>",
		/* not well-formed */
		"<domain><metadata><o:owner xmlns:o='urn:x-mglrulab:owner:1' machine='ab",
		"",
	};
	struct domain_owner o;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (!domain_owner_find(bad[i], &o))
			fail_msg("found a tag in: %s", bad[i]);
}

/* The fake process table of the judge tests: pid 100 runs since tick 5. */
static int fake_start(long pid, unsigned long long *start)
{
	if (pid != 100)
		return -1;
	*start = 5;
	return 0;
}

static enum domain_owner_verdict judge(const struct domain_owner *tag,
				       const struct domain_owner *self, int locked)
{
	struct strbuf why = STRBUF_INIT;
	enum domain_owner_verdict v = domain_owner_judge(tag, self, locked, fake_start, &why);

	assert_true(why.len > 0);	/* every verdict says why */
	sb_release(&why);
	return v;
}

static void test_judge(void **state)
{
	struct domain_owner self = sample(), tag = sample();

	(void)state;
	self.pid = 1;
	self.start = 1;
	self.state = xstrdup("/lab/.lab");
	tag.state = xstrdup("/elsewhere/.lab");
	assert_int_equal(judge(NULL, &self, 1), OWNER_UNTAGGED);

	tag.pid = 100;			/* alive, same start: its mglrulab runs */
	tag.start = 5;
	assert_int_equal(judge(&tag, &self, 0), OWNER_LIVE);
	tag.start = 6;			/* pid reused by another process */
	assert_int_equal(judge(&tag, &self, 0), OWNER_GONE);
	tag.pid = 101;			/* no such process */
	assert_int_equal(judge(&tag, &self, 0), OWNER_GONE);

	/* a dead pid elsewhere proves nothing */
	strcpy(tag.machine, "00000000000000000000000000000000");
	assert_int_equal(judge(&tag, &self, 1), OWNER_ELSEWHERE);
	tag = (struct domain_owner){ .pid = 101, .start = 6, .state = tag.state };
	strcpy(tag.machine, self.machine);
	strcpy(tag.boot, "11111111-2222-3333-4444-555555555555");
	strcpy(tag.pidns, self.pidns);
	assert_int_equal(judge(&tag, &self, 1), OWNER_ELSEWHERE);
	strcpy(tag.boot, self.boot);
	strcpy(tag.pidns, "4026532000");
	assert_int_equal(judge(&tag, &self, 0), OWNER_ELSEWHERE);

	/* ...unless it is our locked state folder: nobody else uses it */
	free(tag.state);
	tag.state = xstrdup(self.state);
	assert_int_equal(judge(&tag, &self, 1), OWNER_GONE);
	assert_int_equal(judge(&tag, &self, 0), OWNER_ELSEWHERE);

	/* this process's own domain, in its own folder: never */
	tag.pid = self.pid;
	tag.start = self.start;
	strcpy(tag.pidns, self.pidns);
	assert_int_equal(judge(&tag, &self, 1), OWNER_LIVE);

	/* without its own machine-id, boot id or /proc this process judges nothing ours */
	tag.pid = 101;
	self.machine[0] = '\0';
	assert_int_equal(judge(&tag, &self, 0), OWNER_ELSEWHERE);
	strcpy(self.machine, tag.machine);
	self.start = 0;
	assert_int_equal(judge(&tag, &self, 0), OWNER_ELSEWHERE);
	domain_owner_release(&tag);
	domain_owner_release(&self);
}

/* This process as an owner, and a real dead child as gone. */
static void test_self(void **state)
{
	struct domain_owner self;
	unsigned long long start;
	pid_t child;

	(void)state;
	domain_owner_self(&self, "rel/state");
	assert_int_equal(self.pid, (long)getpid());
	assert_true(self.start > 0);
	assert_true(*self.boot);
	assert_true(*self.pidns);
	assert_true(access("/etc/machine-id", R_OK) || *self.machine);
	assert_true(self.state[0] == '/' && str_ends_with(self.state, "/rel/state"));
	assert_int_equal(domain_owner_proc_start(self.pid, &start), 0);
	assert_true(start == self.start);
	child = fork();
	if (!child)
		_exit(0);
	/* a zombie is gone too: once it has exited, before it is reaped */
	for (int i = 0; i < 5000 && domain_owner_proc_start(child, &start) == 0; i++)
		usleep(1000);
	assert_int_equal(domain_owner_proc_start(child, &start), -1);
	waitpid(child, NULL, 0);
	assert_int_equal(domain_owner_proc_start(child, &start), -1);
	domain_owner_release(&self);
}

/* The domain XML carries the tag right after its name. */
static void test_in_domain_xml(void **state)
{
	struct guest_topology t;
	struct strbuf err = STRBUF_INIT;
	struct domain_owner o = sample(), back;
	struct domain_spec s = { .name = "mglrulab-4242-0", .accel = ACCEL_TCG,
				 .kernel = "/k/bzImage", .cmdline = "console=ttyS0",
				 .console_log = "/r/console.log", .owner = &o };
	char *xml;

	(void)state;
	assert_int_equal(guest_topology_load("guests/tiny.conf", &t, &err), 0);
	s.topo = &t;
	o.state = xstrdup("/lab/state");
	xml = domain_xml(&s);
	assert_non_null(strstr(xml, "<name>mglrulab-4242-0</name>\n  <metadata>\n    <mglrulab:owner "
				    "xmlns:mglrulab='urn:x-mglrulab:owner:1' machine='"));
	assert_int_equal(domain_owner_find(xml, &back), 0);
	assert_string_equal(back.state, "/lab/state");
	domain_owner_release(&back);
	free(xml);
	s.owner = NULL;
	xml = domain_xml(&s);
	assert_null(strstr(xml, "<metadata>"));
	free(xml);
	domain_owner_release(&o);
	guest_topology_release(&t);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_libvirt_form),
		cmocka_unit_test(test_not_a_tag),
		cmocka_unit_test(test_judge),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_in_domain_xml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
