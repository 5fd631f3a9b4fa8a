/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPUs and NUMA nodes: which CPUs this process may use, which nodes exist
 * and what they hold, and binding tasks and memory to them. Raw syscalls
 * only (set_mempolicy, mbind, sched_setaffinity): the guest image has no
 * libnuma, and the workloads must not depend on one.
 */
#ifndef WL_TOPO_H
#define WL_TOPO_H

#include <stddef.h>
#include <stdint.h>

#define WL_MAX_CPUS 4096
#define WL_MAX_NODES 1024

/* The CPUs this process may run on, ascending. Returns the count. */
int wl_allowed_cpus(int *ids, int max);
/* Online nodes (N_ONLINE), ascending; 1 node (0) when sysfs has no node dir. */
int wl_online_nodes(int *ids, int max);
/* CPUs of @node; count or -1. */
int wl_node_cpus(int node, int *ids, int max);
/* MemFree of @node in KiB, or -1. */
long long wl_node_free_kib(int node);
/* MemTotal from /proc/meminfo in KiB, or -1. */
long long wl_mem_total_kib(void);
/* MemAvailable from /proc/meminfo in KiB, or -1. */
long long wl_mem_available_kib(void);

/* Pin the calling task (thread) to @cpu / to a set. 0 or -errno. */
int wl_pin_cpu(int cpu);
int wl_pin_cpus(const int *ids, int n);
/* MPOL_BIND the calling task's future allocations to @node. 0 or -errno. */
int wl_bind_node(int node);
/*
 * Move this process's pages (those it alone maps, its binary's page cache
 * included) to @node: migrate_pages(2). The pages left where they were,
 * or -errno.
 */
long wl_migrate_self(int node);
/* mbind(MPOL_BIND) a mapping to @node. 0 or -errno. */
int wl_mbind_node(void *addr, size_t len, int node);
/* Resident set of @pid in KiB (from /proc/PID/statm), or -1. */
long long wl_rss_kib(int pid);

#endif
