/* SPDX-License-Identifier: GPL-2.0 */
/* Whole-file reads and single writes of /proc, /sys and debugfs files. */
#ifndef WL_FILEIO_H
#define WL_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/*
 * Read a whole file (procfs and sysfs files report size 0, so read until
 * EOF) of at most @max bytes. Returns a NUL-terminated malloc'd buffer and
 * its length in *len, or NULL with errno set. *truncated is set when the
 * file was longer than @max.
 */
char *wl_read_file(const char *path, size_t max, size_t *len, int *truncated);
/* Write @s to @path in one write(). Returns 0 or -errno. */
int wl_write_file(const char *path, const char *s);
/*
 * mkdir -p of <@root><@dir>, creating only what lies below @root ("" for a
 * whole path). Returns 0 or -errno.
 */
int wl_mkdir_under(const char *root, const char *dir, unsigned int mode);
/* First line of a file parsed as an unsigned integer (decimal or 0x hex). */
int wl_read_u64(const char *path, uint64_t *out);
/*
 * Value of @key in /proc/vmstat-style text ("name value" lines), or 0;
 * *@found (may be NULL) says whether the line was there at all, so that a
 * counter this kernel lacks is not mistaken for one that stayed 0.
 */
unsigned long long wl_vmstat_get(const char *text, const char *key, int *found);
/* CLOCK_MONOTONIC in seconds: every interval the workloads time. */
double wl_now(void);
void wl_sleep(double seconds);

#endif
