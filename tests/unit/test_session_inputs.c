// SPDX-License-Identifier: GPL-2.0
/*
 * A session keeps its inputs for a reader elsewhere (issue 50): lab.conf
 * as inputs/lab.conf and each series file as inputs/<12 digits of its
 * sha256>.mbox, the names the mail's recipe links under [report]
 * base_url (report_mail_lkp.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "session_priv.h"
#include "sha256.h"

/*
 * The published copy leaves out this machine's folders, hosts, mail
 * addresses and watch (a [host] URI names a user and a machine; [report]
 * names people).
 */
#define LAB_CONF "# a lab\n[lab]\nstate_dir = /home/alice/.lab\n\n[kernel base]\nsource = x\n" \
	" [host remote]\nuri = qemu+ssh://alice@box.example.org/system\n[report]\n" \
	"to = Alice <alice@example.org>\n[run]\nkernels = base\n[watch]\narchive = /srv/x\n"
#define PUBLIC_CONF "# a lab\n# [lab] left out of the published copy\n[kernel base]\n" \
	"source = x\n# [host remote] left out of the published copy\n" \
	"# [report] left out of the published copy\n[run]\nkernels = base\n" \
	"# [watch] left out of the published copy\n"

static void test_inputs_copied(void **state)
{
	char tmp[] = "/tmp/mglrulab-inputs-XXXXXX", hex[SHA256_HEX_LEN + 1];
	struct session s;
	struct session_kernels sk;
	struct kernel_cfg k;
	struct strbuf sb = STRBUF_INIT;
	char *conf, *mbox, *copy;
	(void)state;

	assert_non_null(mkdtemp(tmp));
	conf = xasprintf("%s/lab.conf", tmp);
	mbox = xasprintf("%s/v1.mbox", tmp);
	assert_int_equal(write_file_atomic(conf, LAB_CONF, strlen(LAB_CONF)), 0);
	assert_int_equal(write_file_atomic(mbox, "From x\n", 7), 0);
	memset(&s, 0, sizeof(s));
	memset(&sk, 0, sizeof(sk));
	memset(&k, 0, sizeof(k));
	s.dir = xasprintf("%s/session", tmp);
	s.cfg.path = conf;
	assert_int_equal(mkdir_p(s.dir, 0755), 0);
	strvec_push(&k.series, mbox);
	sk.cfg[0] = &k;
	sk.n = 1;

	session_copy_inputs(&s, &sk);
	copy = xasprintf("%s/inputs/lab.conf", s.dir);
	assert_int_equal(read_file(copy, &sb, 1 << 20), 0);
	assert_string_equal(sb.buf, PUBLIC_CONF);
	free(copy);
	assert_int_equal(sha256_file_hex(mbox, hex), 0);
	copy = xasprintf("%s/inputs/%.12s.mbox", s.dir, hex);
	sb_reset(&sb);
	assert_int_equal(read_file(copy, &sb, 1 << 20), 0);
	assert_string_equal(sb.buf, "From x\n");
	free(copy);

	rm_rf(tmp);
	strvec_clear(&k.series);
	sb_release(&sb);
	free(s.dir);
	free(conf);
	free(mbox);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inputs_copied),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
