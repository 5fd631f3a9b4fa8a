// SPDX-License-Identifier: GPL-2.0
#include "kimage.h"
#include "util.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Documentation/arch/x86/boot.rst: the real-mode setup header. */
#define HDR_MAGIC_OFF		0x202	/* "HdrS" */
#define HDR_VERSION_OFF		0x206	/* boot protocol version, >= 0x0200 for kernel_version */
#define HDR_KVER_OFF		0x20e	/* kernel_version: string offset - 0x200 */
#define KVER_MAX		256

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

char *kimage_release(const char *path)
{
	unsigned char hdr[HDR_KVER_OFF + 2];
	char ver[KVER_MAX + 1];
	unsigned off;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + HDR_MAGIC_OFF, "HdrS", 4) ||
	    le16(hdr + HDR_VERSION_OFF) < 0x0200 || !(off = le16(hdr + HDR_KVER_OFF))) {
		close(fd);
		return NULL;
	}
	n = pread(fd, ver, KVER_MAX, (off_t)off + 0x200);
	close(fd);
	if (n <= 0)
		return NULL;
	ver[n] = '\0';
	/*
	 * The release is the first word, followed by the build's "(user@host)
	 * #N ..." words; anything else is not a version string we know.
	 */
	size_t len = strcspn(ver, " ");
	if (!len || len > 64 || ver[len] != ' ')
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (!((ver[i] >= '0' && ver[i] <= '9') || (ver[i] >= 'a' && ver[i] <= 'z') ||
		      (ver[i] >= 'A' && ver[i] <= 'Z') || strchr(".-+_~", ver[i])))
			return NULL;
	return xstrndup(ver, len);
}
