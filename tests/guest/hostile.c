// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a workload that turns on the host through everything a guest
 * hands back (tests/integration/36-guest-hostile.sh). Test-only: the
 * Makefile builds it into build/tests/guest/, never into build/guest/, so
 * it is in no image but the one the test makes (guest run --bin-dir).
 *
 *   --files=1        leave in GUEST_RESULTS_DIR what a tar copy-out would
 *                    recreate on the host as root: setuid/setgid programs,
 *                    world-writable device nodes, links to /etc/shadow and
 *                    /etc, a FIFO, a name with a newline, a world-writable
 *                    sticky folder; and one honest file
 *   --records=N      print N counter snapshot records as fast as it can
 *   --console=BYTES  write BYTES to /dev/console: to the host, a printk storm
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "guest_protocol.h"

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write_all(fd, text, strlen(text)) || fchmod(fd, mode)) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd);
}

static int files(void)
{
	int bad = 0;

	umask(0);	/* world-writable means world-writable */
	bad |= put(GUEST_RESULTS_DIR "/ok.json", "{\"honest\":true}\n", 0644);
	bad |= put(GUEST_RESULTS_DIR "/suid", "#!/bin/sh\nid\n", 04755);
	bad |= put(GUEST_RESULTS_DIR "/sgid", "#!/bin/sh\nid\n", 02755);
	bad |= put(GUEST_RESULTS_DIR "/evil\nname", "x\n", 0644);
	bad |= mknod(GUEST_RESULTS_DIR "/sda", S_IFBLK | 0666, makedev(8, 0));
	bad |= mknod(GUEST_RESULTS_DIR "/mem", S_IFCHR | 0666, makedev(1, 1));
	bad |= mkfifo(GUEST_RESULTS_DIR "/fifo", 0666);
	bad |= symlink("/etc/shadow", GUEST_RESULTS_DIR "/shadow");
	bad |= symlink("/etc", GUEST_RESULTS_DIR "/etc");
	bad |= mkdir(GUEST_RESULTS_DIR "/tmp", 01777);
	bad |= put(GUEST_RESULTS_DIR "/tmp/inner.txt", "inner\n", 0666);
	sync();
	printf("{\"type\":\"info\",\"name\":\"hostile_files\",\"ok\":%s}\n", bad ? "false" : "true");
	fflush(stdout);
	return bad ? -1 : 0;
}

static int records(long n)
{
	static const char line[] =
		"{\"type\":\"snapshot\",\"phase\":\"after\",\"source\":\"/proc/vmstat\","
		"\"text\":\"nr_free_pages 1\\npgfault 2\\n\"}\n";
	char buf[64 * 1024];
	size_t per = sizeof(buf) / (sizeof(line) - 1), len = 0;

	for (size_t i = 0; i < per; i++, len += sizeof(line) - 1)
		memcpy(buf + len, line, sizeof(line) - 1);
	while (n > 0) {
		size_t k = (size_t)n < per ? (size_t)n : per;

		if (write_all(1, buf, k * (sizeof(line) - 1)))
			return -1;	/* the runner stopped reading: what it is there for */
		n -= (long)k;
	}
	return 0;
}

static int console(long bytes)
{
	char buf[64 * 1024];
	int fd = open("/dev/console", O_WRONLY | O_NOCTTY);

	if (fd < 0) {
		fprintf(stderr, "/dev/console: %s\n", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = i % 64 == 63 ? '\n' : "printk storm "[i % 13];
	while (bytes > 0) {
		size_t k = (size_t)bytes < sizeof(buf) ? (size_t)bytes : sizeof(buf);

		if (write_all(fd, buf, k))
			break;
		bytes -= (long)k;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--files=1"))
			bad |= files();
		else if (!strncmp(argv[i], "--records=", 10))
			bad |= records(atol(argv[i] + 10));
		else if (!strncmp(argv[i], "--console=", 10))
			bad |= console(atol(argv[i] + 10));
		else {
			fprintf(stderr, "hostile: unknown option %s\n", argv[i]);
			return 1;
		}
	}
	return bad ? 1 : 0;
}
