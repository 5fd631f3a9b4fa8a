// SPDX-License-Identifier: GPL-2.0
#include "topo.h"
#include "cpulist.h"
#include "fileio.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MPOL_BIND_MODE 2	/* MPOL_BIND from <linux/mempolicy.h> */

int wl_allowed_cpus(int *ids, int max)
{
	cpu_set_t set;
	int n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return 0;
	for (int c = 0; c < CPU_SETSIZE && n < max; c++)
		if (CPU_ISSET(c, &set))
			ids[n++] = c;
	return n;
}

int wl_online_nodes(int *ids, int max)
{
	char *s = wl_read_file("/sys/devices/system/node/online", 4096, NULL, NULL);
	int n;

	if (!s) {
		ids[0] = 0;
		return 1;
	}
	n = cpulist_ids(s, WL_MAX_NODES, ids, max);
	free(s);
	return n > 0 ? n : 0;
}

int wl_node_cpus(int node, int *ids, int max)
{
	char path[96], *s;
	int n;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	s = wl_read_file(path, 65536, NULL, NULL);
	if (!s)
		return -1;
	n = cpulist_ids(s, WL_MAX_CPUS, ids, max);
	free(s);
	return n;
}

static long long meminfo_kib(const char *path, const char *key)
{
	char *s = wl_read_file(path, 65536, NULL, NULL), *p;
	long long v = -1;

	if (!s)
		return -1;
	/* Node meminfo lines are "Node 0 MemFree:  123 kB". */
	p = strstr(s, key);
	if (p)
		v = strtoll(p + strlen(key), NULL, 10);
	free(s);
	return v;
}

long long wl_node_free_kib(int node)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	return meminfo_kib(path, "MemFree:");
}

long long wl_mem_total_kib(void)
{
	return meminfo_kib("/proc/meminfo", "MemTotal:");
}

long long wl_mem_available_kib(void)
{
	return meminfo_kib("/proc/meminfo", "MemAvailable:");
}

int wl_pin_cpu(int cpu)
{
	return wl_pin_cpus(&cpu, 1);
}

int wl_pin_cpus(const int *ids, int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int i = 0; i < n; i++)
		if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
			CPU_SET(ids[i], &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

int wl_bind_node(int node)
{
	unsigned long mask[WL_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

	if (node < 0 || node >= WL_MAX_NODES)
		return -EINVAL;
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	if (syscall(SYS_set_mempolicy, MPOL_BIND_MODE, mask, (unsigned long)WL_MAX_NODES + 1) < 0)
		return -errno;
	return 0;
}

int wl_mbind_node(void *addr, size_t len, int node)
{
	unsigned long mask[WL_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };

	if (node < 0 || node >= WL_MAX_NODES)
		return -EINVAL;
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	if (syscall(SYS_mbind, addr, len, MPOL_BIND_MODE, mask,
		    (unsigned long)WL_MAX_NODES + 1, 0UL) < 0)
		return -errno;
	return 0;
}

long wl_migrate_self(int node)
{
	enum { WORDS = WL_MAX_NODES / (8 * sizeof(unsigned long)) };
	unsigned long from[WORDS], to[WORDS] = { 0 };
	long left;
	static int online[WL_MAX_NODES];
	int n = wl_online_nodes(online, WL_MAX_NODES);

	if (node < 0 || node >= WL_MAX_NODES)
		return -EINVAL;
	/* Only nodes that exist: a bit past the kernel's MAX_NUMNODES is EINVAL. */
	memset(from, 0, sizeof(from));
	for (int i = 0; i < n; i++)
		from[online[i] / (8 * sizeof(long))] |= 1UL << (online[i] % (8 * sizeof(long)));
	to[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	left = syscall(SYS_migrate_pages, 0, (unsigned long)WL_MAX_NODES + 1, from, to);
	return left < 0 ? -errno : left;
}

long long wl_rss_kib(int pid)
{
	char path[64], *s;
	long long size, rss;

	snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	s = wl_read_file(path, 4096, NULL, NULL);
	if (!s)
		return -1;
	if (sscanf(s, "%lld %lld", &size, &rss) != 2)
		rss = -1;
	free(s);
	return rss < 0 ? -1 : rss * (sysconf(_SC_PAGESIZE) / 1024);
}
