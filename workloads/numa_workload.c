// SPDX-License-Identifier: GPL-2.0
/*
 * numa_workload: MGLRU page-table walks on nodes that hold none of the
 * walked memory.
 *
 * Why: lru_gen_use_mm() marks an mm for every node at each context
 * switch, so aging on node B walks the page tables of processes whose
 * memory is all on node A and finds nothing (linux-mm, "mm/mglru:
 * suppress empty page table walks during aging": 32 x 256 MB workers
 * pinned to node 0, walks and PTEs scanned per walk on node 1).
 *
 * Method: W worker processes (separate mms, like the original workers)
 * in a fresh cgroup v2 memory cgroup, each with its CPUs bound to node N
 * (sched_setaffinity) and its memory bound to N (set_mempolicy MPOL_BIND),
 * map M MiB of anonymous memory, write every page, then keep writing one
 * byte per page in a loop for `duration` seconds. Meanwhile this process
 * ages the memcg's lruvec on every other node with memory, every
 * `age_interval_ms`, by writing "+ memcg_id node seq can_swap force_scan"
 * to /sys/kernel/debug/lru_gen (when 6.12 refuses because MAX_NR_GENS
 * generations exist, the empty old generations are retired first, see
 * age_one()). After each pass it reads lru_gen_full and
 * takes the mm-walk stats of the generation the pass closed (LRU_GEN_STATS
 * "tyfa" columns: leaf entries scanned, young leaves, non-leaf entries
 * found/added in the Bloom filters; patched kernels may add columns,
 * reported as mm_stat<i>). Metrics per aged node: aging passes, leaf
 * totals, leaf entries per pass; worker RSS before and after (it must not
 * drop: aging must not cause premature reclaim).
 *
 * 6.12 itself has no "walks" counter: a patched kernel's extra column or
 * a tracepoint counted with --tracepoints gives that.
 */
#include "args.h"
#include "cgroup.h"
#include "fileio.h"
#include "jsonl.h"
#include "lrugen.h"
#include "snap.h"
#include "topo.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct worker_state {
	_Atomic int ready;	/* 1 touched all, -errno failed */
	_Atomic uint64_t passes;
	char pad[112];
};

/* In the order of --on_erange's choices (common/workload_params.c). */
enum on_erange { ERANGE_EVICT, ERANGE_FORCE, ERANGE_SKIP };

struct node_acc {
	int nid;
	long passes, erange, evicted, forced, failed, stats_missing;
	int ncols;
	uint64_t mm[LRU_GEN_MAX_MM_STATS];
};

static struct wl_cgroup cg;
static pid_t *workers;
static long nworkers;
static struct worker_state *ws;
static _Atomic int *stop_flag;

static void stop_workers(void)
{
	if (stop_flag)
		atomic_store(stop_flag, 1);
	for (long i = 0; workers && i < nworkers; i++) {
		if (workers[i] <= 0)
			continue;
		kill(workers[i], SIGKILL);
		waitpid(workers[i], NULL, 0);
		workers[i] = 0;
	}
	wl_cgroup_remove(&cg);
}

static void worker(long idx, int node, const int *cpus, int ncpus, size_t len)
{
	struct worker_state *me = &ws[idx];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *mem;
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if ((err = wl_cgroup_enter(&cg, 0)) || (err = wl_pin_cpus(cpus, ncpus)) ||
	    (err = wl_bind_node(node))) {
		atomic_store(&me->ready, err);
		_exit(1);
	}
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		atomic_store(&me->ready, -errno);
		_exit(1);
	}
	for (size_t off = 0; off < len; off += page)
		mem[off] = 1;
	atomic_store(&me->ready, 1);
	while (!atomic_load_explicit(stop_flag, memory_order_relaxed)) {
		for (size_t off = 0; off < len; off += page)
			mem[off]++;
		atomic_fetch_add_explicit(&me->passes, 1, memory_order_relaxed);
	}
	_exit(0);
}

static long long total_rss_kib(void)
{
	long long sum = 0;

	for (long i = 0; i < nworkers; i++) {
		long long r = wl_rss_kib(workers[i]);

		if (r < 0)
			return -1;
		sum += r;
	}
	return sum;
}

/*
 * Without force_scan, 6.12 refuses to age (-ERANGE) once MAX_NR_GENS
 * generations exist, and only eviction moves min_seq. The aged nodes hold
 * none of the workers' pages, so evicting down to max_seq - MIN_NR_GENS
 * reclaims nothing and just retires the empty generations; then the
 * aging is retried. ("force" retries with force_scan instead, which also
 * bypasses the Bloom filters, so it changes what a walk scans.)
 */
static int age_one(unsigned int id, struct node_acc *a, uint64_t seq, int can_swap,
		   int force_scan, enum on_erange how)
{
	int err = wl_lru_gen_age(id, a->nid, seq, can_swap, force_scan);

	if (err != -ERANGE || how == ERANGE_SKIP)
		return err;
	a->erange++;
	if (how == ERANGE_FORCE) {
		a->forced++;
		return wl_lru_gen_age(id, a->nid, seq, can_swap, 1);
	}
	if (seq < 2 || wl_lru_gen_evict(id, a->nid, seq - 2, can_swap, 1))
		return err;
	a->evicted++;
	return wl_lru_gen_age(id, a->nid, seq, can_swap, force_scan);
}

/* One aging pass over all other nodes, then account their walk stats. */
static void aging_pass(unsigned int id, struct node_acc *acc, int nacc, int can_swap,
		       int force_scan, enum on_erange how)
{
	struct lru_gen_snapshot s;
	const struct lru_gen_memcg *m;
	uint64_t *seq = calloc((size_t)nacc, sizeof(*seq));

	if (!seq || wl_lru_gen_read(&s, 0))
		wl_fail("cannot read %s", WL_LRU_GEN);
	m = lru_gen_find_id(&s, id);
	for (int i = 0; i < nacc; i++)
		seq[i] = lru_gen_max_seq(lru_gen_find_node(m, acc[i].nid));
	lru_gen_release(&s);

	for (int i = 0; i < nacc; i++) {
		int err = seq[i] ? age_one(id, &acc[i], seq[i], can_swap, force_scan, how) : -ENOENT;

		if (!err)
			acc[i].passes++;
		else
			acc[i].failed++;
		if (err)
			seq[i] = 0;
	}

	if (wl_lru_gen_read(&s, 1))
		wl_fail("cannot read %s", WL_LRU_GEN_FULL);
	m = lru_gen_find_id(&s, id);
	for (int i = 0; i < nacc; i++) {
		/* The pass aged seq -> seq+1: its walks are accounted to seq. */
		const struct lru_gen_gen *g;

		if (!seq[i])
			continue;
		g = lru_gen_find_seq(lru_gen_find_node(m, acc[i].nid), seq[i]);
		if (!g || !lru_gen_mm_valid(g)) {
			acc[i].stats_missing++;
			continue;
		}
		if (g->nmm > acc[i].ncols)
			acc[i].ncols = g->nmm;
		for (int k = 0; k < g->nmm; k++)
			acc[i].mm[k] += g->mm[k];
	}
	lru_gen_release(&s);
	free(seq);
}

static void report_node(const struct node_acc *a)
{
	char name[64];
	struct jl j;

	snprintf(name, sizeof(name), "aging_passes_node%d", a->nid);
	jl_metric(name, (double)a->passes, "passes");
	for (int k = 0; k < a->ncols; k++) {
		const char *stat = k < 4 ? lru_gen_mm_stat_names[k] : NULL;

		if (stat)
			snprintf(name, sizeof(name), "%s_node%d", stat, a->nid);
		else
			snprintf(name, sizeof(name), "mm_stat%d_node%d", k, a->nid);
		jl_metric(name, (double)a->mm[k], "entries");
	}
	if (a->ncols && a->passes) {
		snprintf(name, sizeof(name), "leaf_per_pass_node%d", a->nid);
		jl_metric(name, (double)a->mm[0] / (double)a->passes, "PTEs/pass");
	}
	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "aging_node");
	jl_int(&j, "node", a->nid);
	jl_int(&j, "passes", a->passes);
	jl_int(&j, "erange", a->erange);
	jl_int(&j, "evicted_empty", a->evicted);
	jl_int(&j, "forced", a->forced);
	jl_int(&j, "failed", a->failed);
	jl_int(&j, "stats_missing", a->stats_missing);
	jl_bool(&j, "mm_walk_stats", a->ncols > 0);
	jl_end(&j);
}

static struct wl_args args;

/* The guest can run this: lru_gen, cgroup v2, node @node with CPUs and the memory asked for. */
static int check_preconditions(long node, long mib, int *cpus)
{
	char why[512];
	long long freekib;
	int ncpus;

	wl_lru_gen_require();
	if (wl_cgroup_check(why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	ncpus = wl_node_cpus((int)node, cpus, WL_MAX_CPUS);
	if (ncpus <= 0)
		wl_precond("nodes", "node %ld does not exist or has no CPUs", node);
	freekib = wl_node_free_kib((int)node);
	if (freekib >= 0 && freekib / 1024 < nworkers * mib + 64)
		wl_precond("memory", "%ld x %ld MiB requested, node %ld has %lld MiB free",
			   nworkers, mib, node, freekib / 1024);
	return ncpus;
}

/*
 * The workers, each a process in our memory cgroup touching @mib MiB on
 * @node's CPUs; returns once each has set up its memory.
 */
static void start_workers(long node, long mib, const int *cpus, int ncpus)
{
	char why[512], name[64];
	size_t shsize;

	snprintf(name, sizeof(name), "mglrulab-numa-%d", (int)getpid());
	if (wl_cgroup_create(&cg, name, why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	shsize = sizeof(*ws) * (size_t)nworkers + 64;
	ws = mmap(NULL, shsize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	workers = calloc((size_t)nworkers, sizeof(*workers));
	if (ws == MAP_FAILED || !workers)
		wl_fail("out of memory");
	stop_flag = (_Atomic int *)((char *)ws + sizeof(*ws) * (size_t)nworkers);
	atexit(stop_workers);

	for (long i = 0; i < nworkers; i++) {
		fflush(stdout);
		workers[i] = fork();
		if (workers[i] < 0)
			wl_fail("fork: %s", strerror(errno));
		if (workers[i] == 0)
			worker(i, (int)node, cpus, ncpus, (size_t)mib << 20);
	}
	for (long i = 0; i < nworkers; i++) {
		/* Touching memory under TCG is slow: allow 1 s per 10 MiB. */
		double limit = wl_now() + 60 + (double)(mib * nworkers) / 10;

		while (atomic_load(&ws[i].ready) == 0 && wl_now() < limit)
			wl_sleep(0.005);
		if (atomic_load(&ws[i].ready) != 1)
			wl_fail("worker %ld did not set up its memory: %s", i,
				atomic_load(&ws[i].ready) < 0 ? strerror(-atomic_load(&ws[i].ready))
							       : "timeout");
	}
}

/* The nodes other than @node where memcg @id has memory: what is aged. */
static struct node_acc *other_nodes(long id, long node, int *nacc)
{
	struct lru_gen_snapshot s;
	const struct lru_gen_memcg *m;
	struct node_acc *acc;

	if (id < 0 || wl_lru_gen_read(&s, 0))
		wl_fail("memcg %s not found in %s", cg.rel, WL_LRU_GEN);
	m = lru_gen_find_id(&s, (unsigned int)id);
	acc = calloc(m ? m->nnodes + 1 : 1, sizeof(*acc));
	if (!acc)
		wl_fail("out of memory");
	for (size_t i = 0; m && i < m->nnodes; i++)
		if (m->nodes[i].nid != node)
			acc[(*nacc)++].nid = m->nodes[i].nid;
	lru_gen_release(&s);
	if (!*nacc)
		wl_precond("nodes", "no node with memory besides node %ld: nothing to age", node);
	return acc;
}

/* The workers' touch passes and the RSS before and after. */
static void report_totals(long long rss0, long long rss1)
{
	uint64_t passes = 0;

	for (long i = 0; i < nworkers; i++)
		passes += atomic_load(&ws[i].passes);
	jl_metric("worker_touch_passes", (double)passes, "passes");
	jl_metric("rss_before_mib", (double)rss0 / 1024, "MiB");
	jl_metric("rss_after_mib", (double)rss1 / 1024, "MiB");
	if (rss0 > 0)
		jl_metric("rss_change_pct", 100.0 * (double)(rss1 - rss0) / (double)rss0, "%");
}

int main(int argc, char **argv)
{
	static int cpus[WL_MAX_CPUS];
	struct node_acc *acc;
	struct wl_snap snap;
	long mib, node, duration, interval, can_swap, force_scan, id;
	long long rss0, rss1;
	int ncpus, nacc = 0;
	enum on_erange how;
	double deadline, next;

	wl_args_parse(&args, "numa_workload", numa_workload_params, numa_workload_summary,
		      argc, argv);
	nworkers = wl_arg_long(&args, "workers");
	mib = wl_arg_long(&args, "mib");
	node = wl_arg_long(&args, "node");
	duration = wl_arg_long(&args, "duration");
	interval = wl_arg_long(&args, "age_interval_ms");
	can_swap = wl_arg_long(&args, "can_swap");
	force_scan = wl_arg_long(&args, "force_scan");
	how = (enum on_erange)wl_arg_choice(&args, "on_erange");
	wl_snap_init(&snap, &args);
	wl_args_info(&args);

	ncpus = check_preconditions(node, mib, cpus);
	start_workers(node, mib, cpus, ncpus);
	id = wl_lru_gen_memcg_id(cg.rel);
	acc = other_nodes(id, node, &nacc);

	rss0 = total_rss_kib();
	wl_snap_before(&snap, "");
	deadline = wl_now() + (double)duration;
	next = wl_now();
	while (wl_now() < deadline) {
		aging_pass((unsigned int)id, acc, nacc, (int)can_swap, (int)force_scan, how);
		next += (double)interval / 1e3;
		wl_sleep(next - wl_now());
	}
	wl_snap_after(&snap);
	rss1 = total_rss_kib();

	for (int i = 0; i < nacc; i++)
		report_node(&acc[i]);
	report_totals(rss0, rss1);
	free(acc);
	return WL_EXIT_OK;
}
