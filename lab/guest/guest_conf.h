/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest topologies (guests/NAME.conf): vCPUs, memory, NUMA nodes with their
 * CPUs, memory and distances, optional host placement, machine, accel and
 * timeouts. The same struct also holds the topology a guest *reports*, so
 * declared and actual can be compared and printed the same way.
 */
#ifndef LAB_GUEST_CONF_H
#define LAB_GUEST_CONF_H

#include "util.h"

#include <stdint.h>

#include "strbuf.h"

#define GUEST_MAX_VCPUS 256
#define GUEST_MAX_NODES 16

/* A set of guest vCPUs (0 .. GUEST_MAX_VCPUS-1). */
struct cpuset {
	uint64_t bits[GUEST_MAX_VCPUS / 64];
};

void cpuset_set(struct cpuset *s, int cpu);
int cpuset_has(const struct cpuset *s, int cpu);
int cpuset_count(const struct cpuset *s);
int cpuset_equal(const struct cpuset *a, const struct cpuset *b);
/*
 * Parse "0-3,6" (the grammar of common/cpulist.h; blanks: empty set);
 * -1 when malformed or a CPU >= @limit.
 */
LAB_MUST_CHECK
int cpuset_parse(const char *str, int limit, struct cpuset *out);
/* Append "0-3,6" (nothing for an empty set). */
void cpuset_format(const struct cpuset *s, struct strbuf *out);

enum guest_accel { ACCEL_AUTO, ACCEL_KVM, ACCEL_TCG };
const char *guest_accel_name(enum guest_accel a);

struct guest_node {
	struct cpuset cpus;		/* empty: a memory-only node */
	uint64_t memory_mib;
	int distances[GUEST_MAX_NODES];	/* to every node; all 0 when not declared */
	char *host_nodes;		/* placement: numatune memnode nodeset, or NULL */
	int line;			/* its first key's line, for messages */
};

struct guest_topology {
	char *name;			/* "tiny" */
	char *path;			/* the file it came from (NULL when reported) */
	int vcpus;
	uint64_t memory_mib;
	int nr_nodes;
	struct guest_node nodes[GUEST_MAX_NODES];
	int has_distances;

	char *machine;			/* "pc", "q35", ... */
	enum guest_accel accel;
	int boot_timeout_s;		/* from start until the runner says hello */
	int run_timeout_s;		/* from start until power-off, the whole run */
	/*
	 * Under TCG, QEMU's -icount shift: guest time advances 2^shift ns per
	 * instruction executed instead of with the host's clock, so timings
	 * count the instructions the kernel runs and the host's noise drops
	 * out (docs/guests.md, "icount"). -1: off. Ignored under KVM.
	 */
	int icount_shift;

	/* Host placement, all optional. */
	char *vcpupin[GUEST_MAX_VCPUS];	/* host cpuset per vCPU, or NULL */
	char *emulatorpin;		/* host cpuset for QEMU's own threads */
	char *numatune_mode;		/* strict|preferred|interleave|restrictive */
	char *numatune_nodes;		/* host nodeset for the whole guest */
	uint64_t hugepage_kib;		/* 0: normal pages */
	int nosharepages;
};

/*
 * Parse and check @path. Every error found is appended to @err as
 * "FILE:LINE: message\n"; returns 0 or the number of errors (-1 when the
 * file cannot be read). On success @t is filled; release it with
 * guest_topology_release() in either case.
 */
LAB_MUST_CHECK
int guest_topology_load(const char *path, struct guest_topology *t, struct strbuf *err);
/* Resolve a guest NAME to guests/NAME.conf under @guests_dir (a path with '/' or ".conf" is used as is). */
char *guest_conf_path(const char *guests_dir, const char *name_or_path);
void guest_topology_release(struct guest_topology *t);
/*
 * Host CPUs one guest of @t keeps busy, what a host slot must have to
 * itself: one per vCPU, but under icount one, since QEMU then runs every
 * vCPU in one emulator thread.
 */
int guest_slot_cpus(const struct guest_topology *t);

/* One line per node: "node 0: cpus 0 memory 512 MiB distances 10,20". */
void guest_topology_format(const struct guest_topology *t, struct strbuf *out);

/*
 * Does the topology a guest reported match the declared one? Node count,
 * CPUs per node and distances must be equal; memory per node may be lower
 * than declared by what the firmware and kernel keep for themselves.
 * Returns 1 on a match, 0 otherwise with the differences in @why.
 */
int guest_topology_matches(const struct guest_topology *declared,
			   const struct guest_topology *reported, struct strbuf *why);

/* Parse sizes: "512M", "8G", "1024" (MiB), "2M"... into MiB / KiB. */
LAB_MUST_CHECK
int parse_size_mib(const char *s, uint64_t *mib);

#endif
