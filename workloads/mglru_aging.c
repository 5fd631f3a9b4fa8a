// SPDX-License-Identifier: GPL-2.0
/*
 * mglru_aging: the cost of MGLRU aging, one generation at a time.
 *
 * Why: patches to inc_min_seq()/inc_max_seq() (linux-mm, "mm/mglru: batch
 * update lrugen->protected in inc_min_seq()") change the time one aging
 * step takes; the thread measured it by aging a 512 MB memcg 100 times.
 *
 * Method (as in that thread): create a fresh cgroup v2 memory cgroup and
 * move this process into it; mmap `mib` MiB of anonymous memory (bound to
 * `node` with mbind) and write every page so it is resident and charged
 * to the memcg; find the memcg id and the current max generation g of
 * (memcg, node) in /sys/kernel/debug/lru_gen; age `warmup` generations
 * untimed (the first ones run cold); then for g .. g+G-1 write
 * "+ memcg_id node_id seq can_swap force_scan" to lru_gen, timing each
 * write with CLOCK_MONOTONIC. Metrics: total_ms, avg_ms_per_gen and
 * median_ms_per_gen (the median of the same per-generation times: one
 * generation slowed by host interference, or a first one that pays for
 * cold caches, does not move it); the per-generation times are a series.
 * Afterwards max_seq must be exactly g+G (reported as info
 * "generations_aged" and checked: a mismatch is a failure, since the
 * timings would then not be what they claim).
 *
 * The process stays on one CPU, the aged node's first (the aging runs in
 * the writer's context, and its cost depends on the CPU: aging_cpu()).
 * The host's speed beside each generation (ref_ms > 0): before each write
 * it runs ref_ms of the reference loop (workloads/lib/refloop.h) there.
 * The reference rates go out as the series ref_cells beside gen_ms, and
 * the host derives median_ms_per_gen_hostadj from them (docs/reports.md,
 * "Host states").
 */
#include "attr_mark.h"
#include "args.h"
#include "cgroup.h"
#include "fileio.h"
#include "jsonl.h"
#include "lrugen.h"
#include "median.h"
#include "refloop.h"
#include "snap.h"
#include "topo.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static struct wl_cgroup cg;

static void cleanup(void)
{
	wl_cgroup_leave(&cg, 0);
	wl_cgroup_remove(&cg);
}

static struct wl_args args;

/*
 * The CPU the whole run stays on: the aged node's first allowed CPU, or
 * the first allowed CPU when that node has none (a memory-only node).
 * Always the same one, because where the aging runs moves its cost: in
 * tiny-icount, aging node 0 from CPU 0 took 0.276-0.281 ms a generation
 * and from CPU 1 0.247-0.252 ms, and an unpinned run landed on either.
 */
static int aging_cpu(int node)
{
	static int allowed[WL_MAX_CPUS], local[WL_MAX_CPUS];
	int na = wl_allowed_cpus(allowed, WL_MAX_CPUS);
	int nl = wl_node_cpus(node, local, WL_MAX_CPUS);

	for (int i = 0; i < nl; i++)
		for (int k = 0; k < na; k++)
			if (local[i] == allowed[k])
				return local[i];
	return na > 0 ? allowed[0] : -1;
}

/* A failed aging write (@what: "" or "warm-up "): the run fails, naming the generation. */
static void aging_failed(struct wl_snap *snap, const char *what, uint64_t seq, int err)
{
	if (snap)
		wl_snap_cleanup(snap);
	wl_fail("aging %sgeneration %llu: %s%s", what, (unsigned long long)seq, strerror(-err),
		err == -ERANGE ? " (use --force_scan=1)" : "");
}

/*
 * How much of this process's anonymous memory is mapped by huge pages
 * (AnonHugePages of /proc/self/smaps_rollup, KiB), or -1 when unknown.
 * Aging walks page tables, where a region mapped by one PMD is one entry,
 * not 512: recorded so that a boot that got fewer huge pages shows it (in
 * tiny-icount every boot got them all).
 */
static long long anon_huge_kib(void)
{
	char *text = wl_read_file("/proc/self/smaps_rollup", 1 << 16, NULL, NULL);
	unsigned long long kib;
	int found;

	if (!text)
		return -1;
	kib = wl_vmstat_get(text, "AnonHugePages:", &found);
	free(text);
	return found ? (long long)kib : -1;
}

/* The run's options, and what setting it up found. */
struct aging {
	long mib, gens, warm, node, can_swap, force_scan;
	double ref_secs;
	long id;		/* the memcg's id in lru_gen */
	int cpu;		/* where the whole run stays */
};

/* The guest can run this: lru_gen, cgroup v2, the memory, and the node. */
static void check_preconditions(const struct aging *a)
{
	char why[512], path[96];
	long long avail;

	wl_lru_gen_require();
	if (wl_cgroup_check(why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	avail = wl_mem_available_kib();
	if (avail >= 0 && avail / 1024 < a->mib + 32)
		wl_precond("memory", "%ld MiB requested, %lld MiB available", a->mib, avail / 1024);
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld", a->node);
	if (a->node && access(path, F_OK))
		wl_precond("nodes", "node %ld does not exist", a->node);
}

/* Pin to the aging CPU and move into a memory cgroup of our own. */
static void pin_and_enter(struct aging *a)
{
	char why[512], name[64];
	int err;

	a->cpu = aging_cpu((int)a->node);
	if (a->cpu < 0)
		wl_fail("no CPU this process may run on (node %ld's or any other)", a->node);
	if ((err = wl_pin_cpu(a->cpu)))
		wl_fail("cannot pin to CPU %d (for node %ld): %s", a->cpu, a->node, strerror(-err));

	snprintf(name, sizeof(name), "mglrulab-aging-%d", (int)getpid());
	if (wl_cgroup_create(&cg, name, why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	atexit(cleanup);
	if ((err = wl_cgroup_enter(&cg, 0)))
		wl_fail("cannot enter %s: %s", cg.path, strerror(-err));
}

/* @len bytes of anonymous memory on the aged node, every page touched. */
static char *fill_memory(const struct aging *a, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *mem;
	int err;

	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		wl_fail("mmap %ld MiB: %s", a->mib, strerror(errno));
	if ((err = wl_mbind_node(mem, len, (int)a->node)) && err != -ENOSYS)
		wl_fail("mbind to node %ld: %s", a->node, strerror(-err));
	for (size_t off = 0; off < len; off += page)
		mem[off] = (char)off | 1;
	return mem;
}

/* The reference loop, its first pass run and thrown away. */
static void start_reference(struct wl_ref *loop, double ref_secs)
{
	if (wl_ref_init(loop, wl_arg_long(&args, "ref_mib")))
		wl_precond("ref_mib", "cannot allocate %ld MiB for the reference loop",
			   wl_arg_long(&args, "ref_mib"));
	/* Thrown away: the first reference runs 10-15 times slower (yield_pingpong.c). */
	wl_ref_rate(loop, ref_secs);
}

/* The "aging_setup" info record. */
static void info_setup(const struct aging *a, uint64_t seq0, long long thp_kib, long left)
{
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "aging_setup");
	jl_str(&j, "memcg", cg.rel);
	jl_int(&j, "memcg_id", a->id);
	jl_int(&j, "node", a->node);
	jl_u64(&j, "start_gen", seq0);
	jl_int(&j, "warmup", a->warm);
	jl_u64(&j, "end_gen", seq0 + (uint64_t)(a->warm + a->gens));
	jl_int(&j, "mib", a->mib);
	if (thp_kib >= 0)
		jl_int(&j, "anon_huge_kib", thp_kib);
	jl_int(&j, "cpu", a->cpu);
	/* pages migrate_pages(2) could not move, or -errno */
	jl_int(&j, "pages_not_moved", left);
	jl_end(&j);
}

/* Untimed: the first generations pay for cold caches and first walks. */
static void warm_up(const struct aging *a, uint64_t seq0)
{
	for (long g = 0; g < a->warm; g++) {
		int err = wl_lru_gen_age((unsigned int)a->id, (int)a->node, seq0 + (uint64_t)g,
					 (int)a->can_swap, (int)a->force_scan);

		if (err)
			aging_failed(NULL, "warm-up ", seq0 + (uint64_t)g, err);
	}
}

/*
 * Age generations @seq0 on, one at a time, each timed into @ms (ms), with
 * the reference rate before it into @refs when there is a reference loop.
 * Returns their total time.
 */
static double timed_aging(const struct aging *a, uint64_t seq0, struct wl_ref *loop,
			  struct wl_snap *snap, double *ms, double *refs)
{
	double total = 0;

	for (long g = 0; g < a->gens; g++) {
		double t0;
		int err;

		if (a->ref_secs > 0)
			refs[g] = wl_ref_rate(loop, a->ref_secs);
		t0 = wl_now();

		err = wl_lru_gen_age((unsigned int)a->id, (int)a->node, seq0 + (uint64_t)g,
				     (int)a->can_swap, (int)a->force_scan);
		ms[g] = (wl_now() - t0) * 1e3;
		wl_mark_unit();	/* one generation: the attribution's unit */
		if (err)
			aging_failed(snap, "", seq0 + (uint64_t)g, err);
		total += ms[g];
	}
	return total;
}

/* The "generations_aged" info record. */
static void info_aged(uint64_t seq0, uint64_t seq1, long gens)
{
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "generations_aged");
	jl_u64(&j, "start_gen", seq0);
	jl_u64(&j, "max_seq_after", seq1);
	jl_int(&j, "aged", (long long)(seq1 - seq0));
	jl_int(&j, "requested", gens);
	jl_end(&j);
}

int main(int argc, char **argv)
{
	struct aging a;
	struct wl_snap snap;
	long long thp_kib;
	long left;
	uint64_t seq0, seq1;
	double *ms, *refs, total;
	struct wl_ref loop;
	size_t len;
	char *mem;

	wl_args_parse(&args, "mglru_aging", mglru_aging_params, mglru_aging_summary,
		      argc, argv);
	a = (struct aging){
		.mib = wl_arg_long(&args, "mib"),
		.gens = wl_arg_long(&args, "generations"),
		.warm = wl_arg_long(&args, "warmup"),
		.node = wl_arg_long(&args, "node"),
		.can_swap = wl_arg_long(&args, "can_swap"),
		.force_scan = wl_arg_long(&args, "force_scan"),
		.ref_secs = (double)wl_arg_long(&args, "ref_ms") / 1000.0,
	};
	wl_snap_init(&snap, &args);
	wl_args_info(&args);

	check_preconditions(&a);
	pin_and_enter(&a);
	len = (size_t)a.mib << 20;
	mem = fill_memory(&a, len);

	a.id = wl_lru_gen_memcg_id(cg.rel);
	if (a.id < 0)
		wl_fail("memcg %s not found in %s", cg.rel, WL_LRU_GEN);
	seq0 = wl_lru_gen_max_seq((unsigned int)a.id, (int)a.node);
	if (!seq0)
		wl_fail("no generations for memcg %ld node %ld in %s", a.id, a.node, WL_LRU_GEN);
	ms = calloc((size_t)a.gens, sizeof(*ms));
	refs = calloc((size_t)a.gens, sizeof(*refs));
	if (!ms || !refs)
		wl_fail("out of memory");
	if (a.ref_secs > 0)
		start_reference(&loop, a.ref_secs);
	/*
	 * Every page of this mm on the aged node, the binary's page cache
	 * too. The aging walks the whole mm, and a file page on the aged node
	 * costs it more than one elsewhere; where the binary's pages were
	 * read in at boot differed between boots (node 0 or 1), and the
	 * boots whose pages sat on node 0 aged 8 % slower.
	 */
	left = wl_migrate_self((int)a.node);
	/* After the reference buffer: the whole mm the aging walks. */
	thp_kib = anon_huge_kib();
	info_setup(&a, seq0, thp_kib, left);
	warm_up(&a, seq0);
	seq0 += (uint64_t)a.warm;
	wl_snap_before(&snap, "");
	total = timed_aging(&a, seq0, &loop, &snap, ms, refs);
	wl_snap_after(&snap);

	seq1 = wl_lru_gen_max_seq((unsigned int)a.id, (int)a.node);
	info_aged(seq0, seq1, a.gens);
	jl_series("gen_ms", "ms", ms, (size_t)a.gens);
	if (a.ref_secs > 0) {
		jl_series("ref_cells", "accesses/s", refs, (size_t)a.gens);
		wl_ref_free(&loop);
	}
	jl_metric("total_ms", total, "ms");
	jl_metric("avg_ms_per_gen", total / (double)a.gens, "ms");
	jl_metric("median_ms_per_gen", wl_median(ms, (size_t)a.gens), "ms");
	free(ms);
	free(refs);
	munmap(mem, len);
	if (seq1 != seq0 + (uint64_t)a.gens)
		wl_fail("aged %lld generations instead of %ld (something else aged this memcg)",
			(long long)(seq1 - seq0), a.gens);
	return WL_EXIT_OK;
}
