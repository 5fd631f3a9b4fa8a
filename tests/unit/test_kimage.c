// SPDX-License-Identifier: GPL-2.0
/* kimage_release(): the release a bzImage's setup header points at. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "kimage.h"
#include "util.h"

/* A minimal image: the setup header fields kimage reads, a version string at 0x200 + @off. */
static char *fake_image(const char *magic, unsigned proto, unsigned off, const char *ver)
{
	static char path[] = "/tmp/mglrulab-test-kimage-XXXXXX";
	unsigned char img[8192];
	int fd;

	memset(img, 0, sizeof(img));
	memcpy(img + 0x202, magic, 4);
	img[0x206] = proto & 0xff;
	img[0x207] = proto >> 8;
	img[0x20e] = off & 0xff;
	img[0x20f] = off >> 8;
	if (ver)
		memcpy(img + 0x200 + off, ver, strlen(ver));
	strcpy(path, "/tmp/mglrulab-test-kimage-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, sizeof(img)), (ssize_t)sizeof(img));
	close(fd);
	return path;
}

static void expect(const char *path, const char *want)
{
	char *got = kimage_release(path);

	if (want) {
		assert_non_null(got);
		assert_string_equal(got, want);
	} else if (got) {
		fail_msg("expected no release, got '%s'", got);
	}
	free(got);
	unlink(path);
}

static void test_release(void **state)
{
	(void)state;
	expect(fake_image("HdrS", 0x020f, 0x0e00, "6.12.57 (root@lab) #1 SMP PREEMPT"), "6.12.57");
	expect(fake_image("HdrS", 0x020f, 0x0100, "6.12.0-rc1+ #3"), "6.12.0-rc1+");
	/* Not a bzImage, too old a boot protocol, no pointer, past the end, no terminator. */
	expect(fake_image("XXXX", 0x020f, 0x0e00, "6.12.57 x"), NULL);
	expect(fake_image("HdrS", 0x01ff, 0x0e00, "6.12.57 x"), NULL);
	expect(fake_image("HdrS", 0x020f, 0, NULL), NULL);
	expect(fake_image("HdrS", 0x020f, 0xfff0, NULL), NULL);
	expect(fake_image("HdrS", 0x020f, 0x0e00, "6.12.57"), NULL);
	/* Control characters never come back to the report. */
	expect(fake_image("HdrS", 0x020f, 0x0e00, "6.12\x1b[2J (x)"), NULL);
	assert_null(kimage_release("/nonexistent/bzImage"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
