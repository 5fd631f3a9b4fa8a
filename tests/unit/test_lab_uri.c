// SPDX-License-Identifier: GPL-2.0
/* libvirt URIs compared by what they reach (lab/lib/lab_uri.h). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "lab_uri.h"
#include "util.h"

static void same(const char *a, const char *b)
{
	if (!lab_uri_same(a, b) || !lab_uri_same(b, a))
		fail_msg("'%s' and '%s' should be one host", a, b);
}

static void differ(const char *a, const char *b)
{
	if (lab_uri_same(a, b) || lab_uri_same(b, a))
		fail_msg("'%s' and '%s' should be two hosts", a, b);
}

static void test_same(void **state)
{
	(void)state;
	same("qemu:///system", "qemu:///system");
	same("qemu:///system", "QEMU:///system/");
	same("qemu:///system", "qemu+unix:///system");
	same("qemu:///system", "qemu:////system//");
	same("qemu+ssh://root@Box.example/system", "qemu+ssh://box.example./system");
	same("qemu+ssh://box/system", "qemu+ssh://box:22/system");
	same("qemu+tcp://box/system", "qemu+tcp://box:16509/system");
	same("qemu://box/system", "qemu+tls://box:16514/system");
	/* parameters in any order, escaped or not; how-to-connect ones do not count */
	same("qemu+ssh://box/system?socket=/run/a&name=qemu:///system",
	     "qemu+ssh://box/system?name=qemu%3A%2F%2F%2Fsystem&socket=%2Frun%2Fa");
	same("qemu+ssh://box/system?keyfile=/k1&no_verify=1", "qemu+ssh://box/system?keyfile=/k2");
	same("qemu+unix:///system?socket=/tmp/d/libvirt-sock",
	     "qemu:///system?socket=/tmp/d/libvirt-sock");
	same("qemu:///embed?root=/lab/.lab/libvirt", "qemu:///embed?root=%2Flab%2F.lab%2Flibvirt");
	same("qemu+ssh://[fe80::1]:22/system", "qemu+ssh://[FE80::1]/system");
	same("not a uri", "not a uri");
}

static void test_differ(void **state)
{
	(void)state;
	differ("qemu:///system", "qemu:///session");
	differ("qemu:///system", "qemu+ssh://box/system");
	differ("qemu+ssh://box/system", "qemu+ssh://box:2222/system");
	differ("qemu+ssh://box/system", "qemu+tcp://box/system");
	differ("qemu+ssh://box/system", "qemu+ssh://box2/system");
	differ("qemu:///system?socket=/a", "qemu:///system?socket=/b");
	differ("qemu:///system?socket=/a", "qemu:///system");
	differ("qemu:///embed?root=/a", "qemu:///embed?root=/b");
	differ("qemu:///embed", "qemu:///embed?root=/a");
	/* a per-user daemon is the user's */
	differ("qemu+ssh://alice@box/session", "qemu+ssh://bob@box/session");
	same("qemu+ssh://alice@box/system", "qemu+ssh://bob@box/system");
	/* an unknown parameter counts */
	differ("qemu:///system?frob=1", "qemu:///system");
	differ("xen:///system", "qemu:///system");
	differ("not a uri", "qemu:///system");
	differ("not a uri", "Not a uri");
	assert_false(lab_uri_same(NULL, NULL));
	assert_false(lab_uri_same("qemu:///system", NULL));
}

static void test_identity(void **state)
{
	char *id;

	(void)state;
	id = lab_uri_identity("QEMU+SSH://root@Box:22//system/?socket=%2Fs&keyfile=/k&a=1#frag");
	assert_string_equal(id, "qemu+ssh://box/system?a=1&socket=/s");
	free(id);
	assert_null(lab_uri_identity("box"));
	assert_null(lab_uri_identity("://x"));
	assert_null(lab_uri_identity(NULL));
}

static void test_embedded(void **state)
{
	(void)state;
	assert_true(lab_uri_is_embedded("qemu:///embed"));
	assert_true(lab_uri_is_embedded("qemu:///embed?root=/x/libvirt"));
	assert_true(lab_uri_is_embedded("QEMU:///embed/"));
	/* the old test was strstr(uri, "/embed") */
	assert_false(lab_uri_is_embedded("qemu+ssh://embed.example/system"));
	assert_false(lab_uri_is_embedded("qemu+ssh://box/embed"));
	assert_false(lab_uri_is_embedded("qemu:///system?root=/embed"));
	assert_false(lab_uri_is_embedded("qemu:///system"));
	assert_false(lab_uri_is_embedded("embed"));
	assert_false(lab_uri_is_embedded(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same),
		cmocka_unit_test(test_differ),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_embedded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
