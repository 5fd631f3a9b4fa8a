// SPDX-License-Identifier: GPL-2.0
/* [host NAME] and [run] hosts in lab.conf: defaults, values, every error path. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "fsutil.h"
#include "test_config_fixture.h"
#include "host.h"
#include "host_volume.h"
#include "libvirt_conn.h"

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/mglrulab-test-hosts-XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	char *p = xasprintf("%s/guests", tmpdir);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/guests/tiny.conf", tmpdir);
	assert_int_equal(write_file_atomic(p, "", 0), 0);
	free(p);
	return 0;
}

/* Today's lab.conf: one implicit host at [lab] uri. */
static void test_implicit_host(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load("[run]\nruns = 3\n", &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(status, LAB_OK);
	assert_int_equal(cfg.run.hosts.n, 1);
	const struct host_cfg *h = config_host(&cfg, cfg.run.hosts.v[0]);
	assert_non_null(h);
	assert_string_equal(h->name, "local");
	assert_string_equal(h->uri, CONFIG_EMBED_URI);
	assert_int_equal(h->slots, 1);
	assert_null(h->cpus);
	assert_string_equal(h->pool, "mglrulab");
	assert_int_equal(h->line, 0);
	free(err);
	config_release(&cfg);

	/* [lab] uri stays valid: it is the implicit host's */
	err = load("[lab]\nuri = qemu:///system\n", &cfg, &status);
	assert_string_equal(err, "");
	assert_string_equal(config_host(&cfg, "local")->uri, "qemu:///system");
	free(err);
	config_release(&cfg);
}

/*
 * Unset slots (config_resolve_slots()): under icount, on this machine, one
 * per CPU this process may use, which become the host's cpus; without
 * icount one; slots = N and other machines keep theirs.
 */
static void test_resolve_slots(void **state)
{
	struct lab_config cfg;
	cpu_set_t set;
	int status;
	(void)state;
	char *err = load("[host here]\n[host there]\nuri = qemu+ssh://root@box/system\n"
			 "[host fixed]\nuri = qemu:///system\nslots = 1\n", &cfg, &status);
	struct host_cfg *here = (struct host_cfg *)config_host(&cfg, "here");

	assert_string_equal(err, "");
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	config_resolve_slots(&cfg, 0);
	assert_int_equal(here->slots, 1);
	assert_null(here->cpus);
	config_resolve_slots(&cfg, 1);
	assert_int_equal(here->slots, CPU_COUNT(&set));
	assert_int_equal(here->nr_cpus, CPU_COUNT(&set));
	assert_non_null(here->cpus);
	assert_true(CPU_ISSET(here->cpu_ids[0], &set));
	assert_int_equal(config_host(&cfg, "there")->slots, 1);
	assert_int_equal(config_host(&cfg, "fixed")->slots, 1);
	free(err);
	config_release(&cfg);

	/* cpus given: one slot per listed CPU */
	err = load("[host here]\ncpus = 0\n", &cfg, &status);
	assert_string_equal(err, "");
	config_resolve_slots(&cfg, 1);
	assert_int_equal(config_host(&cfg, "here")->slots, 1);
	assert_string_equal(config_host(&cfg, "here")->cpus, "0");
	free(err);
	config_release(&cfg);
}

static void test_hosts(void **state)
{
	struct lab_config cfg;
	int status;
	(void)state;
	char *err = load("[host big]\nuri = qemu+ssh://root@big/system\nslots = 2\n"
			 "cpus = 0-3,6,8-9\npool = lab-pool\npool_dir = /srv/lab\n"
			 "[host here]\n[host spare]\nuri = qemu:///system\n"
			 "[run]\nhosts = here big\n", &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(status, LAB_OK);
	assert_int_equal(cfg.run.hosts.n, 2);
	assert_string_equal(cfg.run.hosts.v[0], "here");
	const struct host_cfg *h = config_host(&cfg, "big");
	assert_string_equal(h->uri, "qemu+ssh://root@big/system");
	assert_int_equal(h->slots, 2);
	assert_int_equal(h->nr_cpus, 7);
	assert_int_equal(h->cpu_ids[4], 6);
	assert_int_equal(h->cpu_ids[6], 9);
	assert_int_equal(h->cpus_line, 4);
	assert_string_equal(h->pool, "lab-pool");
	assert_string_equal(h->pool_dir, "/srv/lab");
	h = config_host(&cfg, "here");
	assert_string_equal(h->uri, CONFIG_EMBED_URI);	/* the default */
	assert_string_equal(h->pool_dir, "/var/lib/libvirt/mglrulab");
	assert_null(config_host(&cfg, "local"));	/* no implicit host beside sections */

	/* slots x vCPUs against cpus: 2 x 3 = 6 fit in 7, 2 x 4 = 8 do not */
	struct strbuf e = STRBUF_INIT;
	assert_int_equal(config_check_host_cpus(&cfg, 3, 0, &e), LAB_OK);
	assert_string_equal(sb_str(&e), "");
	assert_int_equal(config_check_host_cpus(&cfg, 4, 0, &e), LAB_EUSER);
	char *want = xasprintf("%s/lab.conf:4: [host big] cpus: 2 slots x 4 CPUs need 8 "
			       "CPUs, '0-3,6,8-9' has 7 (one host CPU per guest vCPU", tmpdir);
	if (!strstr(sb_str(&e), want))
		fail_msg("expected\n  %s\ngot\n  %s", want, sb_str(&e));
	free(want);
	sb_release(&e);
	free(err);
	config_release(&cfg);

	/* without [run] hosts: every section, in file order */
	err = load("[host a]\nuri = qemu:///system\n[host b]\n", &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(cfg.run.hosts.n, 2);
	assert_string_equal(cfg.run.hosts.v[1], "b");
	free(err);
	config_release(&cfg);
}

static void test_host_errors(void **state)
{
	(void)state;
	expect_error("[host a]\nslot = 2\n", "2: [host a] unknown key 'slot' (did you mean 'slots'?)");
	expect_error("[host a]\nslots = 0\n",
		     "2: [host a] slots: expected an integer from 1 to 1024, not '0'");
	expect_error("[host a]\nslots = many\n",
		     "2: [host a] slots: expected an integer from 1 to 1024, not 'many'");
	expect_error("[host a]\n\ncpus = 3-1\n",
		     "3: [host a] cpus: expected a CPU list such as 0-3,6 (ids below 4096), not '3-1'");
	expect_error("[host a]\ncpus = 0-9999\n",
		     "2: [host a] cpus: expected a CPU list such as 0-3,6 (ids below 4096), not '0-9999'");
	expect_error("[host a]\ncpus = 0-3,2\n", "2: [host a] cpus: CPU 2 is listed twice in '0-3,2'");
	expect_error("[host a]\ncpus =\n",
		     "2: [host a] cpus: expected a CPU list such as 0-3,6 (ids below 4096), not ''");
	expect_error("[host a]\n[run]\nhosts = a b\n", "3: [run] hosts: no [host b] section");
	/* the line of the name, and the nearest host when it is a typo */
	expect_error("[host box1]\n[host box2]\n[run]\nhosts = box1\nhosts = bx2\n",
		     "5: [run] hosts: no [host bx2] section (did you mean 'box2'?)");
	expect_error("[host a]\n[run]\nhosts = a a\n", "3: [run] hosts: 'a' is listed twice");
	/* at the uri lines; a host without one (the default) at its header */
	expect_error("[host a]\nuri = qemu:///system\n[host b]\nuri = qemu:///system\n",
		     "4: [host b] uri: qemu:///system is also [host a]'s (line 2); one machine is "
		     "one host: give it slots = N instead");
	expect_error("[host a]\n[host b]\n",
		     "2: [host b] uri: qemu:///embed is also [host a]'s (line 1); one machine is "
		     "one host: give it slots = N instead");
	/* one daemon however the URI is spelled (lab_uri.h) */
	expect_error("[host a]\nuri = qemu+ssh://root@Box/system?keyfile=/k\n[host b]\n"
		     "uri = qemu+ssh://box:22/system/\n",
		     "4: [host b] uri: qemu+ssh://box:22/system/ reaches the same libvirt as [host a]'s "
		     "qemu+ssh://root@Box/system?keyfile=/k (line 2); one machine is one host: give "
		     "it slots = N instead");
	expect_error("[host a]\nuri = qemu:///system\n[host b]\nuri = qemu+unix:///system\n",
		     "4: [host b] uri: qemu+unix:///system reaches the same libvirt as [host a]'s "
		     "qemu:///system (line 2); one machine is one host: give it slots = N instead");
	expect_error("[host a]\nuri =\n", "2: [host a] uri: empty (a libvirt URI such as "
		     "qemu+ssh://root@box/system, or qemu:///embed)");
	expect_error("[host a]\npool = my pool\n", "2: [host a] pool: expected a pool name of "
		     "letters, digits, '-', '_' or '.', not 'my pool'");
	expect_error("[host a]\npool_dir = lab/pool\n",
		     "2: [host a] pool_dir: expected an absolute folder on that host, not 'lab/pool'");
	expect_error("[host]\n", "1: [host] needs a name of letters, digits, '-', '_' or '.' "
		     "(e.g. [host baseline])");
	expect_error("[host a b]\n", "1: [host a b] needs a name of letters, digits, '-', '_' or "
		     "'.' (e.g. [host baseline])");
}

/* config check's host CPUs with the [run] guest's real topology (tiny: 2 vCPUs; tiny-icount). */
static void test_check_config(void **state)
{
	struct lab_config cfg;
	struct strbuf e = STRBUF_INIT;
	int status;
	(void)state;
	char *cwd = getcwd(NULL, 0);
	char *text = xasprintf("[guest t]\nfile = %s/guests/tiny.conf\n[host a]\nuri = qemu:///system\n"
			       "slots = 2\ncpus = 0-2\n[run]\nguest = t\n", cwd);
	char *err = load(text, &cfg, &status);

	assert_string_equal(err, "");
	assert_int_equal(hosts_check_config(&cfg, &e), LAB_EUSER);
	assert_non_null(strstr(sb_str(&e), "lab.conf:6: [host a] cpus: 2 slots x 2 CPUs need 4 "
				 "CPUs, '0-2' has 3"));
	config_release(&cfg);
	free(err);
	free(text);
	sb_reset(&e);
	text = xasprintf("[guest t]\nfile = %s/guests/tiny.conf\n[host a]\nuri = qemu:///system\n"
			 "slots = 2\ncpus = 0-3\n[run]\nguest = t\n", cwd);
	err = load(text, &cfg, &status);
	assert_int_equal(hosts_check_config(&cfg, &e), LAB_OK);
	assert_string_equal(sb_str(&e), "");
	config_release(&cfg);
	free(err);
	free(text);
	/* Under icount one emulator thread runs both vCPUs: a slot is one CPU. */
	text = xasprintf("[guest t]\nfile = %s/guests/tiny-icount.conf\n[host a]\n"
			 "uri = qemu:///system\nslots = 2\ncpus = 0-1\n[run]\nguest = t\n", cwd);
	err = load(text, &cfg, &status);
	assert_int_equal(hosts_check_config(&cfg, &e), LAB_OK);
	config_release(&cfg);
	free(err);
	free(text);
	text = xasprintf("[guest t]\nfile = %s/guests/tiny-icount.conf\n[host a]\n"
			 "uri = qemu:///system\nslots = 3\ncpus = 0-1\n[run]\nguest = t\n", cwd);
	err = load(text, &cfg, &status);
	assert_int_equal(hosts_check_config(&cfg, &e), LAB_EUSER);
	assert_non_null(strstr(sb_str(&e), "[host a] cpus: 3 slots x 1 CPU need 3 CPUs, '0-1' has 2 "
				 "(one host CPU for the icount guest's emulator thread"));
	config_release(&cfg);
	free(err);
	free(text);
	free(cwd);
	sb_release(&e);
}

/* The volume names the hosts' pools hold. */
static void test_names(void **state)
{
	(void)state;
	char *n = host_volume_name(HOST_VOL_KERNEL, "ab12");
	char *m = host_volume_marker(n);

	assert_string_equal(n, "mglrulab-kernel-ab12");
	assert_string_equal(m, "mglrulab-kernel-ab12.complete");
	free(n);
	free(m);
	n = host_volume_name(HOST_VOL_IMAGE, "ff");
	assert_string_equal(n, "mglrulab-image-ff");
	free(n);
}

/*
 * Many hosts, found through the index: each with its own values, a key
 * set twice in the last one caught with the first line, and a URI shared
 * three ways named against the first host that has it.
 */
static void test_many_hosts(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct lab_config cfg;
	char name[16];
	int status;
	(void)state;

	for (int i = 0; i < 1000; i++)
		sb_addf(&text, "[host h%04d]\nuri = qemu+ssh://root@h%04d/system\nslots = %d\n",
			i, i, i % 7 + 1);
	char *err = load(sb_str(&text), &cfg, &status);
	assert_string_equal(err, "");
	assert_int_equal(cfg.run.hosts.n, 1000);
	for (int i = 0; i < 1000; i += 111) {
		snprintf(name, sizeof(name), "h%04d", i);
		const struct host_cfg *h = config_host(&cfg, name);
		assert_non_null(h);
		assert_string_equal(h->name, name);
		assert_int_equal(h->slots, i % 7 + 1);
		assert_int_equal(h->line, 3 * i + 1);
	}
	assert_null(config_host(&cfg, "h1000"));
	free(err);
	config_release(&cfg);

	sb_adds(&text, "slots = 2\n");	/* [host h0999] again */
	err = load(sb_str(&text), &cfg, &status);
	assert_int_equal(status, LAB_EUSER);
	assert_non_null(strstr(err, ":3001: [host h0999] slots: already set at line 3000\n"));
	free(err);
	config_release(&cfg);
	sb_release(&text);

	expect_error("[host a]\n[host b]\n[host c]\n",
		     "3: [host c] uri: qemu:///embed is also [host a]'s (line 1); one machine is "
		     "one host: give it slots = N instead");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_implicit_host),
		cmocka_unit_test(test_resolve_slots),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_host_errors),
		cmocka_unit_test(test_check_config),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_many_hosts),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
