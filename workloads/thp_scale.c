// SPDX-License-Identifier: GPL-2.0
/*
 * thp_scale: transparent huge page faults on fragmented memory, after
 * mmtests' thpscale (the measurement of the linux-mm thread "mm/pageblock:
 * mitigation cmpxchg false sharing in pageblock flags": Duration User,
 * System and Elapsed of the run, and fault latency).
 *
 * Why: THP faults that find no free huge page run direct compaction, which
 * isolates, migrates and marks pageblocks (set_pfnblock_flags_mask()'s
 * cmpxchg loop among them) from every faulting CPU at once. A change to
 * the allocator, compaction or the pageblock bitmap shows up as system
 * time, fault latency and the share of faults that got a huge page.
 *
 * Method (thpscale's, our own code): the run's memory is charged to a
 * fresh memory cgroup whose memory.max is the mapsize plus 64 MiB of
 * headroom, so that a mis-sized run reclaims or is OOM-killed inside its
 * group rather than taking the guest's runner with it. The mapsize
 * (`mib`; mmtests' default, 80 % of MemTotal, when 0) is what forces
 * compaction: its size relative to the guest's memory, not the cgroup.
 * Each of T threads owns mapsize/T:
 *  1. fragment (fragment=1): map all of it and write every page with
 *     transparent_hugepage/enabled at "never", so that it is filled with
 *     small pages whatever the THP setting under test (not MADV_NOHUGEPAGE:
 *     tinyconfig kernels have no madvise(), CONFIG_ADVISE_SYSCALLS),
 *     then munmap the first half of every huge-page-aligned block: each
 *     block keeps half its small pages, so no free huge page is left in
 *     the memory they came from, and what is free outside them (about 20 %
 *     of the guest at the default size) is less than step 3 faults in
 *     (thpscale also maps a quarter of its share from a file to refill
 *     holes with page cache; anonymous memory needs no disk and is the
 *     same obstacle to compaction: movable small pages);
 *  2. map the other half unfaulted, huge-page aligned (MADV_HUGEPAGE with
 *     thp=madvise), wait for every thread at a barrier;
 *  3. fault it one huge-page-sized region at a time: write the first
 *     byte, ask mincore() whether the region's LAST small page is resident
 *     (only a huge-page fault maps it: an anonymous small-page fault maps
 *     one page and there is no fault-around for anonymous memory), then
 *     write the whole region. The fault latency is the time of all three,
 *     as thpscale's (a fallback pays for its 511 small faults too).
 * mincore() was chosen over /proc/self/smaps: it answers per fault, costs
 * one system call and needs no CONFIG_PROC_PAGE_MONITOR (tinyconfig lab
 * kernels lack it); when smaps_rollup exists its AnonHugePages is
 * reported beside the mincore count as a cross-check (info "thp_check").
 *
 * Metrics: elapsed_s, user_s, sys_s of the whole run (fragmenting and
 * faulting, as `time thpscale` measures), fault_elapsed_s of the fault
 * phase, fault latency median/p90/p99/max/mean (us, over every fault of
 * every thread; p90 and p99 by nearest rank), huge_pct, and the deltas of
 * the /proc/vmstat counters that explain them over the fault phase:
 * thp_fault_alloc, thp_fault_fallback, compact_stall, compact_success,
 * compact_fail, compact_migrate_scanned, compact_free_scanned (one that
 * this kernel lacks is listed in info "vmstat_absent", not reported as 0).
 * A kernel without CONFIG_VM_EVENT_COUNTERS (tinyconfig) has no event
 * counters in /proc/vmstat at all; the two THP fault counters are then
 * read from the per-size sysfs statistics that count the same PMD-sized
 * faults without it (transparent_hugepage/hugepages-2048kB/stats/
 * anon_fault_alloc, anon_fault_fallback; info "thp_counters_from").
 * The latencies are series fault_us (at most FAULT_SERIES_MAX of them).
 * transparent_hugepage/enabled and defrag are set for the run and restored
 * afterwards. Preconditions: thp (no /sys/kernel/mm/transparent_hugepage),
 * memory (MemAvailable below the mapsize plus 32 MiB), cgroup_v2, madvise
 * (thp=madvise on a kernel whose madvise(MADV_HUGEPAGE) fails), in this order.
 */
#include "args.h"
#include "attr_mark.h"
#include "cgroup.h"
#include "fileio.h"
#include "jsonl.h"
#include "median.h"
#include "snap.h"
#include "sort_cmp.h"
#include "topo.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define FAULT_SERIES_MAX 50000
#define VMSTAT_MAX	(1 << 20)

enum { THP_ALWAYS, THP_MADVISE, THP_NEVER };

static const char *const vm_keys[] = {
	"thp_fault_alloc", "thp_fault_fallback", "compact_stall", "compact_success",
	"compact_fail", "compact_migrate_scanned", "compact_free_scanned",
};

struct worker {
	pthread_t tid;
	size_t hpage, page, thread_size;
	int fragment, madv;
	char *first, *second;	/* mappings, kept until the end */
	size_t first_len, second_len;
	double *lat_us;		/* per fault */
	unsigned char *huge;
	size_t nr;
	int err;		/* errno of a failed mmap, 0 */
	const char *what;
};

static pthread_barrier_t ready, go;
static struct wl_cgroup cg;
static int cg_made;
static char old_enabled[32], old_defrag[32];
static struct wl_args args;

/* The selected value of a sysfs "a [b] c" file into @out, "" when unreadable. */
static void thp_selected(const char *file, char *out, size_t size)
{
	char path[128], *s, *l, *r;

	out[0] = '\0';
	snprintf(path, sizeof(path), THP_DIR "/%s", file);
	s = wl_read_file(path, 4096, NULL, NULL);
	if (!s)
		return;
	l = strchr(s, '[');
	r = l ? strchr(l, ']') : NULL;
	if (r && (size_t)(r - l - 1) < size)
		snprintf(out, size, "%.*s", (int)(r - l - 1), l + 1);
	free(s);
}

static int thp_set(const char *file, const char *value)
{
	char path[128];

	snprintf(path, sizeof(path), THP_DIR "/%s", file);
	return wl_write_file(path, value);
}

static void cleanup(void)
{
	if (old_enabled[0])
		thp_set("enabled", old_enabled);
	if (old_defrag[0])
		thp_set("defrag", old_defrag);
	if (cg_made) {
		wl_cgroup_leave(&cg, 0);
		wl_cgroup_remove(&cg);
	}
}

/* Step 1: half of the thread's share in small pages, every other half block freed. */
static int fragment(struct worker *w)
{
	char *end, *p;

	w->first_len = w->thread_size;
	w->first = mmap(NULL, w->first_len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->first == MAP_FAILED) {
		w->first = NULL;
		w->what = "mmap of the fragmenting half";
		return -errno;
	}
	for (size_t off = 0; off < w->first_len; off += w->page)
		w->first[off] = 1;
	end = w->first + w->first_len;
	p = (char *)(((uintptr_t)w->first + w->hpage - 1) & ~(uintptr_t)(w->hpage - 1));
	for (; p + w->hpage / 2 <= end; p += w->hpage)
		munmap(p, w->hpage / 2);
	return 0;
}

static void fault_all(struct worker *w, char *base)
{
	for (size_t i = 0; i < w->nr; i++) {
		char *r = base + i * w->hpage;
		unsigned char vec = 0;
		double t0 = wl_now();

		r[0] = 2;
		if (mincore(r + w->hpage - w->page, w->page, &vec))
			vec = 0;
		memset(r, 2, w->hpage);
		w->lat_us[i] = (wl_now() - t0) * 1e6;
		w->huge[i] = vec & 1;
		wl_mark_unit();	/* one huge-page-sized fault and fill: the plugins' unit */
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char *aligned = NULL;

	if (w->fragment && (w->err = fragment(w)))
		goto wait;
	w->second_len = w->nr * w->hpage + w->hpage;
	w->second = mmap(NULL, w->second_len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->second == MAP_FAILED) {
		w->second = NULL;
		w->err = -errno;
		w->what = "mmap of the faulted half";
		goto wait;
	}
	aligned = (char *)(((uintptr_t)w->second + w->hpage - 1) & ~(uintptr_t)(w->hpage - 1));
	if (w->madv && madvise(aligned, w->nr * w->hpage, MADV_HUGEPAGE)) {
		w->err = -errno;
		w->what = "madvise(MADV_HUGEPAGE)";
	}
wait:
	pthread_barrier_wait(&ready);
	pthread_barrier_wait(&go);
	if (!w->err)
		fault_all(w, aligned);
	return NULL;
}

/* Nearest-rank percentile of sorted @x. */
static double pct_sorted(const double *x, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n + 0.999999999);

	return x[(k ? k : 1) - 1];
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* AnonHugePages of smaps_rollup in KiB, or -1 (no CONFIG_PROC_PAGE_MONITOR). */
static long long anon_huge_kib(void)
{
	char *s = wl_read_file("/proc/self/smaps_rollup", 65536, NULL, NULL), *p;
	long long v = -1;

	if (s && (p = strstr(s, "AnonHugePages:")))
		v = strtoll(p + strlen("AnonHugePages:"), NULL, 10);
	free(s);
	return v;
}

/* thp=madvise needs madvise(); tinyconfig kernels leave it out. */
static void check_madvise(size_t page)
{
	void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		wl_fail("mmap: %s", strerror(errno));
	if (madvise(p, page, MADV_HUGEPAGE))
		wl_precond("madvise", "thp=madvise, but madvise(MADV_HUGEPAGE) fails: %s%s",
			   strerror(errno), errno == ENOSYS ? " (no CONFIG_ADVISE_SYSCALLS)" : "");
	munmap(p, page);
}

static void check_preconditions(long *mib)
{
	char why[512];
	long long avail = wl_mem_available_kib(), total = wl_mem_total_kib();

	if (access(THP_DIR "/enabled", F_OK))
		wl_precond("thp", "%s/enabled does not exist: no CONFIG_TRANSPARENT_HUGEPAGE", THP_DIR);
	if (!*mib && total > 0)
		*mib = (long)(total * 8 / 10 / 1024);
	if (avail >= 0 && avail / 1024 < *mib + 32)
		wl_precond("memory", "mapsize %ld MiB needs %ld MiB, %lld MiB available",
			   *mib, *mib + 32, avail / 1024);
	if (wl_cgroup_check(why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
}

static void report_vmstat(const char *vm0, const char *vm1)
{
	struct jl j;
	int absent = 0;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "vmstat_absent");
	for (size_t i = 0; i < sizeof(vm_keys) / sizeof(vm_keys[0]); i++) {
		int f0, f1;
		unsigned long long a = wl_vmstat_get(vm0, vm_keys[i], &f0);
		unsigned long long b = wl_vmstat_get(vm1, vm_keys[i], &f1);

		if (f0 && f1 && b >= a) {
			jl_metric(vm_keys[i], (double)(b - a), vm_keys[i][0] == 't' ? "faults" :
				  strstr(vm_keys[i], "scanned") ? "pages" : "events");
		} else {
			jl_str(&j, vm_keys[i], f0 && f1 ? "went backwards" : "not in /proc/vmstat");
			absent++;
		}
	}
	if (absent)
		jl_end(&j);
	else
		jl_abort(&j);
}

/*
 * /proc/vmstat, with "thp_fault_alloc N" and "thp_fault_fallback N" lines
 * added from the PMD size's sysfs statistics when it has none. *@from
 * says where they came from.
 */
static char *read_counters(size_t hpage, const char **from)
{
	static const char *const mthp[][2] = {
		{ "thp_fault_alloc", "anon_fault_alloc" },
		{ "thp_fault_fallback", "anon_fault_fallback" },
	};
	size_t len;
	char *s = wl_read_file("/proc/vmstat", VMSTAT_MAX, &len, NULL);
	int found;

	if (!s)
		wl_fail("cannot read /proc/vmstat: %s", strerror(errno));
	wl_vmstat_get(s, "thp_fault_alloc", &found);
	*from = "/proc/vmstat";
	if (found)
		return s;
	*from = "none";
	for (size_t i = 0; i < 2; i++) {
		char path[160], line[96], *t;
		uint64_t v;

		snprintf(path, sizeof(path), THP_DIR "/hugepages-%zukB/stats/%s", hpage >> 10,
			 mthp[i][1]);
		if (wl_read_u64(path, &v))
			continue;
		*from = THP_DIR "/hugepages-*kB/stats";
		snprintf(line, sizeof(line), "%s%s %llu\n", len && s[len - 1] != '\n' ? "\n" : "",
			 mthp[i][0], (unsigned long long)v);
		t = realloc(s, len + strlen(line) + 1);
		if (!t)
			wl_fail("out of memory");
		s = t;
		memcpy(s + len, line, strlen(line) + 1);
		len += strlen(line);
	}
	return s;
}

static const char *const thp_names[] = { "always", "madvise", "never" };

/* The run's options and sizes. */
struct thp_run {
	long threads, mib;
	int thp, frag;
	size_t page, hpage;
	size_t nr;		/* huge-page faults per thread */
};

/*
 * The THP settings under test, the old ones restored at exit; small pages
 * first for the fragmenting fill, the setting under test after it.
 */
static void set_thp(const struct thp_run *r)
{
	int err;

	thp_selected("enabled", old_enabled, sizeof(old_enabled));
	thp_selected("defrag", old_defrag, sizeof(old_defrag));
	atexit(cleanup);
	if ((err = thp_set("enabled", r->frag ? "never" : thp_names[r->thp])))
		wl_fail("cannot set %s/enabled: %s", THP_DIR, strerror(-err));
	if ((err = thp_set("defrag", wl_arg(&args, "defrag"))))
		wl_fail("cannot set %s/defrag to %s: %s", THP_DIR, wl_arg(&args, "defrag"),
			strerror(-err));
}

/* A memory cgroup of our own, capped a little above the mapping. */
static void enter_cgroup(const struct thp_run *r)
{
	char why[512], name[64];
	int err;

	snprintf(name, sizeof(name), "mglrulab-thp-%d", (int)getpid());
	if (wl_cgroup_create(&cg, name, why, sizeof(why)))
		wl_precond("cgroup_v2", "%s", why);
	cg_made = 1;
	snprintf(why, sizeof(why), "%ld", (r->mib + 64) << 20);
	if ((err = wl_cgroup_set(&cg, "memory.max", why)))
		wl_fail("cannot set memory.max of %s: %s", cg.path, strerror(-err));
	if ((err = wl_cgroup_enter(&cg, 0)))
		wl_fail("cannot enter %s: %s", cg.path, strerror(-err));
}

/* The "thp_setup" info record. */
static void info_setup(const struct thp_run *r)
{
	struct jl j;

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "thp_setup");
	jl_int(&j, "mapsize_mib", r->mib);
	jl_int(&j, "hpage_kib", (long long)(r->hpage >> 10));
	jl_int(&j, "faults_per_thread", (long long)r->nr);
	jl_str(&j, "enabled", thp_names[r->thp]);
	jl_str(&j, "defrag", wl_arg(&args, "defrag"));
	jl_str(&j, "enabled_before", old_enabled);
	jl_str(&j, "defrag_before", old_defrag);
	jl_str(&j, "memcg", cg.rel);
	jl_end(&j);
}

/* Start the worker threads @w: each waits at the barriers before faulting. */
static void start_workers(const struct thp_run *r, struct worker *w)
{
	int err;

	for (long i = 0; i < r->threads; i++) {
		w[i] = (struct worker){ .hpage = r->hpage, .page = r->page, .fragment = r->frag,
					.thread_size = ((size_t)r->mib << 20) / (size_t)r->threads,
					.madv = r->thp == THP_MADVISE, .nr = r->nr };
		w[i].lat_us = calloc(r->nr, sizeof(double));
		w[i].huge = calloc(r->nr, 1);
		if (!w[i].lat_us || !w[i].huge)
			wl_fail("out of memory");
		if ((err = pthread_create(&w[i].tid, NULL, worker_main, &w[i])))
			wl_fail("pthread_create: %s", strerror(err));
	}
}

/* Every thread's fault latencies in one array (*@total of them), and the huge ones counted. */
static double *gather_faults(const struct thp_run *r, const struct worker *w, size_t *total,
			     size_t *huge)
{
	double *lat;

	for (long i = 0; i < r->threads; i++)
		if (w[i].err)
			wl_fail("thread %ld: %s: %s", i, w[i].what, strerror(-w[i].err));
	lat = calloc((size_t)r->threads * r->nr, sizeof(double));
	if (!lat)
		wl_fail("out of memory");
	for (long i = 0; i < r->threads; i++)
		for (size_t k = 0; k < r->nr; k++) {
			lat[(*total)++] = w[i].lat_us[k];
			*huge += w[i].huge[k];
		}
	return lat;
}

/* The "thp_check" info record. */
static void info_check(size_t total, size_t huge)
{
	struct jl j;
	long long ah = anon_huge_kib();

	jl_begin(&j, WL_REC_INFO);
	jl_str(&j, "name", "thp_check");
	jl_int(&j, "faults", (long long)total);
	jl_int(&j, "huge_faults_mincore", (long long)huge);
	if (ah >= 0)
		jl_int(&j, "anon_huge_kib_smaps", ah);
	jl_end(&j);
}

/* The fault latencies' mean, median, percentiles and maximum; sorts @lat. */
static void report_latency(double *lat, size_t total)
{
	double sum = 0;

	for (size_t k = 0; k < total; k++)
		sum += lat[k];
	jl_metric("fault_mean_us", sum / (double)total, "us");
	/* The median is lib/median.c's (the lab's definition); the rest by rank. */
	jl_metric("fault_p50_us", wl_median(lat, total), "us");
	qsort(lat, total, sizeof(*lat), cmp_double);
	jl_metric("fault_p90_us", pct_sorted(lat, total, 0.90), "us");
	jl_metric("fault_p99_us", pct_sorted(lat, total, 0.99), "us");
	jl_metric("fault_max_us", lat[total - 1], "us");
}

static void free_workers(struct worker *w, long threads)
{
	for (long i = 0; i < threads; i++) {
		if (w[i].first)
			munmap(w[i].first, w[i].first_len);
		if (w[i].second)
			munmap(w[i].second, w[i].second_len);
		free(w[i].lat_us);
		free(w[i].huge);
	}
	free(w);
}

int main(int argc, char **argv)
{
	struct thp_run r = { .page = (size_t)sysconf(_SC_PAGESIZE), .hpage = 2 << 20 };
	size_t total = 0, huge = 0;
	uint64_t hp;
	struct worker *w;
	struct wl_snap snap;
	struct rusage ru0, ru1;
	double t0, tf0, tf1, t1, *lat;
	char *vm0, *vm1;
	const char *from;
	int err;

	wl_args_parse(&args, "thp_scale", thp_scale_params, thp_scale_summary, argc, argv);
	r.threads = wl_arg_long(&args, "threads");
	r.mib = wl_arg_long(&args, "mib");
	r.thp = wl_arg_choice(&args, "thp");
	r.frag = (int)wl_arg_long(&args, "fragment");
	wl_snap_init(&snap, &args);
	wl_args_info(&args);

	check_preconditions(&r.mib);
	if (r.thp == THP_MADVISE)
		check_madvise(r.page);
	if (!wl_read_u64(THP_DIR "/hpage_pmd_size", &hp) && hp >= 2 * r.page)
		r.hpage = (size_t)hp;
	/* thpscale: each thread faults (mapsize / T) / 2 in huge-page units. */
	r.nr = ((size_t)r.mib << 20) / (size_t)r.threads / r.hpage / 2;
	if (!r.nr)
		wl_fail("mapsize %ld MiB gives %ld threads no %zu KiB region to fault (at least"
			" %ld MiB)", r.mib, r.threads, r.hpage >> 10,
			(long)(2 * r.hpage * r.threads >> 20));

	set_thp(&r);
	enter_cgroup(&r);
	info_setup(&r);

	w = calloc((size_t)r.threads, sizeof(*w));
	if (!w)
		wl_fail("out of memory");
	pthread_barrier_init(&ready, NULL, (unsigned)r.threads + 1);
	pthread_barrier_init(&go, NULL, (unsigned)r.threads + 1);
	getrusage(RUSAGE_SELF, &ru0);
	t0 = wl_now();
	start_workers(&r, w);
	pthread_barrier_wait(&ready);
	if (r.frag && (err = thp_set("enabled", thp_names[r.thp])))
		wl_fail("cannot set %s/enabled to %s: %s", THP_DIR, thp_names[r.thp], strerror(-err));
	vm0 = read_counters(r.hpage, &from);
	wl_snap_before(&snap, "");
	tf0 = wl_now();
	pthread_barrier_wait(&go);
	for (long i = 0; i < r.threads; i++)
		pthread_join(w[i].tid, NULL);
	tf1 = wl_now();
	wl_snap_after(&snap);
	vm1 = read_counters(r.hpage, &from);
	t1 = wl_now();
	getrusage(RUSAGE_SELF, &ru1);

	lat = gather_faults(&r, w, &total, &huge);
	info_check(total, huge);
	jl_series("fault_us", "us", lat, total < FAULT_SERIES_MAX ? total : FAULT_SERIES_MAX);
	jl_metric("elapsed_s", t1 - t0, "s");
	jl_metric("user_s", tv_s(ru1.ru_utime) - tv_s(ru0.ru_utime), "s");
	jl_metric("sys_s", tv_s(ru1.ru_stime) - tv_s(ru0.ru_stime), "s");
	jl_metric("fault_elapsed_s", tf1 - tf0, "s");
	report_latency(lat, total);
	jl_metric("huge_pct", 100.0 * (double)huge / (double)total, "%");
	jl_info_str("thp_counters_from", from);
	report_vmstat(vm0, vm1);
	free_workers(w, r.threads);
	free(lat);
	free(vm0);
	free(vm1);
	return WL_EXIT_OK;
}
