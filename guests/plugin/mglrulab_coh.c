// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab-coh: a QEMU TCG plugin that models cache-line transfers between
 * vCPUs, in the windows the guest marks itself (the attribution plugin's
 * marks, workloads/lib/attr_mark.h). docs/coherence.md is the reference;
 * this comment says how the code keeps to it.
 *
 * The model. Per 64-byte line of guest PHYSICAL memory (so the kernel's
 * and user space's aliases of one page meet), the set of vCPUs that hold
 * it and the vCPU that wrote it last. A vCPU that reads a line another
 * vCPU wrote since its own last access (it does not hold it, and the last
 * writer is another vCPU), or writes a line another vCPU holds, causes a
 * transfer, counted against the instruction that made the access and the
 * line. A locked read-modify-write (QEMU reports a load then a store of
 * the same instruction) is one write, as x86's read-for-ownership is.
 * Every line starts unheld when a window opens; no capacity, no
 * prefetch, no store buffer.
 *
 * The order. Under icount one thread runs the vCPUs round-robin, each for
 * a slice of many thousands of instructions, so execution order would see
 * one transfer per slice where hardware sees one per access. The model
 * instead runs the vCPUs in lockstep: an access's time is its own vCPU's
 * instructions since the window opened (the block's first instruction's
 * time plus the instruction's index in it), and the rules are applied in
 * that time order across vCPUs (ties: lower vCPU first). An access can be
 * applied once every running vCPU's clock has passed its time, since no
 * earlier access can still come; until then it waits in its vCPU's ring.
 *
 * What waits. Every access, in its vCPU's ring, until the merge reaches
 * it; with one vCPU running (the others halted) that is at most one block.
 * Only lines touched by more than one vCPU can move, but which those are
 * cannot be known in execution order: round-robin runs one vCPU's whole
 * slice before the other touches the line at all. Applying the first
 * vCPU's accesses at once until a second one came (tried first) lost 99 %
 * of the calibration's shared-counter transfers (docs/coherence.md).
 *
 * Idle vCPUs. A halted vCPU runs nothing, and under round-robin icount
 * QEMU 7.2 calls no idle callback per vCPU, so the plugin watches the
 * guest's hlt and mwait: a vCPU that executes one leaves the set whose
 * clocks hold the merge back, and its next block brings it back with its
 * clock moved up to the time already applied (it cannot have acted
 * earlier than what the others have been seen to do). A vCPU halted when
 * the window opens joins it the same way when it wakes; one that is not
 * halted starts at time 0 beside the opener. The idle callback, where
 * QEMU calls it, does the same as hlt.
 *
 * Unequal slices. A running vCPU that round-robin runs less than another
 * falls behind in lockstep; when the ring of the one ahead fills, the
 * ones behind are moved up as if they had stalled (make_room()).
 *
 * Memory, bounded (docs/coherence.md): LINE_CAP lines (those past it are
 * counted as untracked), PAIR_CAP (line, instruction) pairs with
 * transfers (past it: dropped), RING_CAP waiting accesses per vCPU (a full
 * ring stalls the vCPUs behind, above; with none running behind, its
 * oldest accesses are applied before their time: "forced"), MAX_VCPUS
 * vCPUs, plus one record per translated instruction
 * that accesses memory, as the attribution plugin has per block. Each
 * window's file says how many accesses were untracked, dropped or forced
 * and how much stall was added, so a reader knows whether the bounds were
 * reached. About 34 MiB plus 96 MiB per vCPU in all.
 *
 * Output: at the closing mark, DIR/coh.N next to the attribution plugin's
 * attr.N (DIR: the folder of out=PREFIX; N: the window, from 1), the
 * format in docs/coherence.md, "end" as its last line.
 *
 * Arguments: out=PREFIX (required; the folder of PREFIX gets the files).
 */
#include <qemu-plugin.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* The marks: guests/plugin/mglrulab_attr.c, workloads/lib/attr_mark.h. */
#define MARK_OPCODE	"\x0f\x1f\x84\x00"
#define MARK_BASE	0x4d474c00u
#define MARK_OPEN	(MARK_BASE + 1)
#define MARK_CLOSE	(MARK_BASE + 2)
#define MARK_UNIT	(MARK_BASE + 3)

#define LINE_SHIFT	6
#define MAX_VCPUS	64
#define LINE_CAP	(1u << 20)	/* 32 MiB of line records */
#define LINE_FILL	(LINE_CAP / 8 * 7)
#define PAIR_CAP	(1u << 16)	/* 2 MiB */
#define PAIR_FILL	(PAIR_CAP / 8 * 7)
#define RING_CAP	(1u << 22)	/* 96 MiB per vCPU: the lag allowed between vCPUs */

struct line {
	uint64_t key;		/* line number + 1; 0: empty */
	uint64_t vaddr;		/* a virtual address it was reached by, for the host's names */
	uint64_t holders;	/* vCPUs holding it (bit per vCPU) */
	int32_t last_writer;	/* -1: none in the window */
	uint32_t pad;
};

struct pair {
	uint64_t insn;		/* the access's instruction; 0: empty */
	uint32_t slot;		/* its line's slot */
	uint32_t pad;
	uint64_t reads, writes;	/* transfers */
};

struct ev {
	uint64_t time;
	uint64_t insn;
	uint32_t slot;
	uint32_t write;
};

struct vcpu {
	uint64_t clock;		/* lockstep time: the end of its last block */
	uint64_t tb_base;	/* time of the current block's first instruction */
	uint64_t insns;		/* instructions executed in the window */
	int running;		/* holds the merge back */
	int halted;		/* executed hlt/mwait, no block since: in or out of a window */
	struct ev *ring;
	uint64_t head, tail;	/* ring[head % RING_CAP] .. tail */
};

/* What a memory callback needs of its instruction: address and index in the block. */
struct insn_rec {
	uint64_t vaddr;
	uint32_t idx;
};

#define REC_CHUNK 4096
struct rec_chunk {
	struct insn_rec r[REC_CHUNK];
	size_t n;
	struct rec_chunk *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_chunk *recs;
static char *out_dir;
static int window, open_now;
static uint64_t units, units_at_open;	/* unit marks executed (inline) */

static struct line *lines;
static struct pair *pairs;
static uint32_t nlines, npairs;
static struct vcpu cpus[MAX_VCPUS];
static int ncpus;		/* highest vCPU index seen + 1 */
static uint64_t done;		/* every access before this time is applied */
static uint64_t n_access, n_buffered, n_forced, n_stalled, n_untracked, n_dropped, n_transfers;

static struct insn_rec *rec_new(uint64_t vaddr, uint32_t idx)
{
	struct insn_rec *r;

	pthread_mutex_lock(&lock);
	if (!recs || recs->n == REC_CHUNK) {
		struct rec_chunk *c = calloc(1, sizeof(*c));

		if (!c) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		c->next = recs;
		recs = c;
	}
	r = &recs->r[recs->n++];
	r->vaddr = vaddr;
	r->idx = idx;
	pthread_mutex_unlock(&lock);
	return r;
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* The slot of line @lno, added if new; -1 when the table is full. */
static int64_t line_slot(uint64_t lno, uint64_t vaddr)
{
	uint64_t key = lno + 1;

	for (uint32_t i = (uint32_t)mix(key) & (LINE_CAP - 1);; i = (i + 1) & (LINE_CAP - 1)) {
		struct line *l = &lines[i];

		if (l->key == key)
			return i;
		if (!l->key) {
			if (nlines >= LINE_FILL)
				return -1;
			nlines++;
			l->key = key;
			l->vaddr = vaddr & ~((1ull << LINE_SHIFT) - 1);
			l->last_writer = -1;
			return i;
		}
	}
}

static void pair_add(uint32_t slot, uint64_t insn, int write)
{
	uint64_t h = mix(insn ^ ((uint64_t)slot << 40));

	for (uint32_t i = (uint32_t)h & (PAIR_CAP - 1);; i = (i + 1) & (PAIR_CAP - 1)) {
		struct pair *p = &pairs[i];

		if (!p->insn) {
			if (npairs >= PAIR_FILL) {
				n_dropped++;
				return;
			}
			npairs++;
			p->insn = insn;
			p->slot = slot;
		} else if (p->insn != insn || p->slot != slot) {
			continue;
		}
		if (write)
			p->writes++;
		else
			p->reads++;
		return;
	}
}

/* The coherence rules, for one access in lockstep order. */
static void apply(int v, uint32_t slot, uint64_t insn, int write)
{
	struct line *l = &lines[slot];
	uint64_t me = 1ull << v;
	int moved;

	if (write) {
		moved = (l->holders & ~me) != 0;
		l->holders = me;
		l->last_writer = v;
	} else {
		moved = !(l->holders & me) && l->last_writer >= 0 && l->last_writer != v;
		l->holders |= me;
	}
	if (moved) {
		n_transfers++;
		pair_add(slot, insn, write);
	}
}

/* Apply the waiting accesses before @limit in time order; all of them with @force. */
static void drain(uint64_t limit, int force)
{
	for (;;) {
		int best = -1;
		uint64_t bt = 0;

		for (int v = 0; v < ncpus; v++) {
			struct vcpu *c = &cpus[v];

			if (c->head == c->tail)
				continue;
			if (best < 0 || c->ring[c->head % RING_CAP].time < bt) {
				best = v;
				bt = c->ring[c->head % RING_CAP].time;
			}
		}
		if (best < 0 || (!force && bt >= limit))
			return;
		const struct ev *e = &cpus[best].ring[cpus[best].head++ % RING_CAP];

		apply(best, e->slot, e->insn, e->write);
		if (bt > done)
			done = bt;
	}
}

/* The time every running vCPU has passed: no access before it can still come. */
static uint64_t frontier(void)
{
	uint64_t f = UINT64_MAX, hi = done;

	for (int v = 0; v < ncpus; v++) {
		if (cpus[v].running && cpus[v].clock < f)
			f = cpus[v].clock;
		if (cpus[v].clock > hi)
			hi = cpus[v].clock;
	}
	return f == UINT64_MAX ? hi + 1 : f;	/* none running: everything seen */
}

static void advance(void)
{
	uint64_t f = frontier();

	drain(f, 0);
	if (f > done)
		done = f;
}

/*
 * A ring with no room: its vCPU ran so far ahead of another running one
 * that its accesses cannot wait any longer. Round-robin does not give
 * busy vCPUs equal instructions: in a window of yield_pingpong (shared
 * mm, 2 CPUs) one vCPU ran 103 M instructions while the other ran 150 M
 * (a slice that an interrupt for the other vCPU cuts short loses the rest
 * of its budget), so in pure lockstep the slower clock falls behind for
 * the whole window; forcing the accesses out of order applied 65 M of
 * 139 M of them unordered. On hardware a CPU that ran fewer instructions
 * in the same time stalled or idled for the difference: the vCPUs
 * holding the merge back are moved up to the time of the ring's eighth
 * oldest access, as if they had stalled there, which frees an eighth of
 * the ring. So the lag between vCPUs is bounded by the ring (some 4 M
 * accesses, 7 M instructions of yield_pingpong), not by a guess at the
 * slice length: a bound of 2 M instructions also cut into the
 * calibration's long slices (shared counter 0.70-0.99 transfers per add
 * instead of 0.99). Only with no running vCPU behind are accesses
 * applied before their time ("forced").
 */
static void make_room(struct vcpu *c)
{
	if (c->tail - c->head >= RING_CAP) {
		uint64_t t = c->ring[(c->head + RING_CAP / 8) % RING_CAP].time;

		for (int v = 0; v < ncpus; v++)
			if (&cpus[v] != c && cpus[v].running && cpus[v].clock < t) {
				n_stalled += t - cpus[v].clock;
				cpus[v].clock = t;
			}
		advance();
	}
	while (c->tail - c->head >= RING_CAP) {
		int best = -1;
		uint64_t bt = 0;

		for (int v = 0; v < ncpus; v++) {
			struct vcpu *o = &cpus[v];

			if (o->head != o->tail && (best < 0 || o->ring[o->head % RING_CAP].time < bt)) {
				best = v;
				bt = o->ring[o->head % RING_CAP].time;
			}
		}
		const struct ev *e = &cpus[best].ring[cpus[best].head++ % RING_CAP];

		apply(best, e->slot, e->insn, e->write);
		n_forced++;
		if (bt > done)
			done = bt;
	}
}

static int vcpu_get(unsigned int vcpu)
{
	if (vcpu >= MAX_VCPUS)
		return -1;
	if ((int)vcpu >= ncpus)
		ncpus = (int)vcpu + 1;
	return (int)vcpu;
}

static void window_open(void)
{
	memset(lines, 0, (size_t)LINE_CAP * sizeof(*lines));
	memset(pairs, 0, (size_t)PAIR_CAP * sizeof(*pairs));
	nlines = npairs = 0;
	for (int v = 0; v < MAX_VCPUS; v++) {
		struct vcpu *c = &cpus[v];

		/*
		 * A vCPU that is not halted runs beside the opener from time 0
		 * (round-robin merely has not run it yet); a halted one joins
		 * when it wakes, like any vCPU back from idle.
		 */
		c->clock = c->tb_base = c->insns = 0;
		c->running = v < ncpus && !c->halted;
		c->head = c->tail = 0;
	}
	done = 0;
	n_access = n_buffered = n_forced = n_stalled = n_untracked = n_dropped = n_transfers = 0;
	units_at_open = units;
	open_now = 1;
}

static int pair_order(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	uint64_t tx = x->reads + x->writes, ty = y->reads + y->writes;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->insn != y->insn)
		return x->insn < y->insn ? -1 : 1;
	return x->slot < y->slot ? -1 : x->slot > y->slot;
}

static void window_write(void)
{
	char path[4096];
	FILE *f;

	window++;
	snprintf(path, sizeof(path), "%s/coh.%d", out_dir, window);
	f = fopen(path, "w");
	if (!f) {
		char msg[4200];

		snprintf(msg, sizeof(msg), "mglrulab-coh: %s: %s\n", path, strerror(errno));
		qemu_plugin_outs(msg);
		return;
	}
	/* Compact the pairs to the front and sort them, so two runs' files compare line by line. */
	uint32_t n = 0;

	for (uint32_t i = 0; i < PAIR_CAP; i++)
		if (pairs[i].insn)
			pairs[n++] = pairs[i];
	qsort(pairs, n, sizeof(*pairs), pair_order);
	fprintf(f, "mglrulab-coh 1\nline_bytes %d\nunits %" PRIu64 "\nvcpus %d\n", 1 << LINE_SHIFT,
		units - units_at_open, ncpus);
	for (int v = 0; v < ncpus; v++)
		fprintf(f, "vcpu %d %" PRIu64 "\n", v, cpus[v].insns);
	fprintf(f, "accesses %" PRIu64 "\nbuffered %" PRIu64 "\nforced %" PRIu64 "\nstalled %" PRIu64
		"\nuntracked %" PRIu64 "\ndropped %" PRIu64 "\nlines %" PRIu32 "\ntransfers %" PRIu64 "\n",
		n_access, n_buffered, n_forced, n_stalled, n_untracked, n_dropped, nlines, n_transfers);
	for (uint32_t i = 0; i < n; i++) {
		const struct pair *p = &pairs[i];
		const struct line *l = &lines[p->slot];

		fprintf(f, "t %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
			(l->key - 1) << LINE_SHIFT, l->vaddr, p->insn, p->reads, p->writes);
	}
	fputs("end\n", f);
	fclose(f);
}

static void window_close(int v, uint64_t now)
{
	if (!open_now)
		return;	/* a closing mark without an opening one: nothing to measure */
	/* What the closing vCPU did up to the mark, and every other vCPU's accesses before it. */
	drain(now + 1, 0);
	(void)v;
	open_now = 0;
	window_write();
}

static void on_mark(unsigned int vcpu, void *udata)
{
	const struct insn_rec *r = udata;
	int v;

	pthread_mutex_lock(&lock);
	v = vcpu_get(vcpu);
	if (r->idx & 0x80000000u) {	/* the opening mark */
		window_open();
		if (v >= 0) {
			/*
			 * The rest of its block runs at times from 0; its next
			 * block starts past any block's length (TCG: 512).
			 */
			cpus[v].running = 1;
			cpus[v].tb_base = 0;
			cpus[v].clock = 512;
		}
	} else if (v >= 0) {
		window_close(v, cpus[v].tb_base + (r->idx & 0x7fffffffu));
	}
	pthread_mutex_unlock(&lock);
}

static void on_tb(unsigned int vcpu, void *udata)
{
	struct vcpu *c;
	int v;

	if (!open_now) {
		if (vcpu < MAX_VCPUS) {	/* one emulator thread under icount: no race */
			cpus[vcpu].halted = 0;
			if ((int)vcpu >= ncpus)
				ncpus = (int)vcpu + 1;
		}
		return;
	}
	pthread_mutex_lock(&lock);
	v = vcpu_get(vcpu);
	if (v < 0 || !open_now) {
		pthread_mutex_unlock(&lock);
		return;
	}
	c = &cpus[v];
	c->halted = 0;
	if (!c->running) {
		/* Back from idle, or its first block in the window: not before what was applied. */
		c->running = 1;
		if (c->clock < done)
			c->clock = done;
	}
	/* Its clock is its current block's start: every other vCPU's access before it is final. */
	advance();
	c->tb_base = c->clock;
	c->clock += (uintptr_t)udata;
	c->insns += (uintptr_t)udata;
	pthread_mutex_unlock(&lock);
}

static void vcpu_halts(unsigned int vcpu)
{
	int v;

	pthread_mutex_lock(&lock);
	v = vcpu_get(vcpu);
	if (v >= 0)
		cpus[v].halted = 1;
	if (open_now && v >= 0 && cpus[v].running) {
		cpus[v].running = 0;
		advance();
	}
	pthread_mutex_unlock(&lock);
}

static void on_halt(unsigned int vcpu, void *udata)
{
	(void)udata;
	vcpu_halts(vcpu);
}

static void on_idle(qemu_plugin_id_t id, unsigned int vcpu)
{
	(void)id;
	vcpu_halts(vcpu);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata)
{
	const struct insn_rec *r = udata;
	struct qemu_plugin_hwaddr *hw;
	struct vcpu *c;
	uint64_t t;
	int64_t slot;
	int v, write;

	if (!open_now)
		return;
	hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return;	/* device registers are not cached lines */
	write = qemu_plugin_mem_is_store(info);
	pthread_mutex_lock(&lock);
	v = vcpu_get(vcpu);
	if (v < 0 || !open_now)
		goto out;
	c = &cpus[v];
	n_access++;
	slot = line_slot(qemu_plugin_hwaddr_phys_addr(hw) >> LINE_SHIFT, vaddr);
	if (slot < 0) {
		n_untracked++;
		goto out;
	}
	t = c->tb_base + r->idx;
	if (write && c->tail != c->head) {
		struct ev *last = &c->ring[(c->tail - 1) % RING_CAP];

		/* A locked read-modify-write: QEMU reports the load, then the store. */
		if (last->time == t && last->slot == (uint32_t)slot && !last->write &&
		    last->insn == r->vaddr) {
			last->write = 1;
			goto out;
		}
	}
	if (!c->ring && !(c->ring = malloc((size_t)RING_CAP * sizeof(*c->ring)))) {
		apply(v, (uint32_t)slot, r->vaddr, write);
		n_forced++;
		goto out;
	}
	make_room(c);
	c->ring[c->tail++ % RING_CAP] = (struct ev){ t, r->vaddr, (uint32_t)slot, (uint32_t)write };
	n_buffered++;
out:
	pthread_mutex_unlock(&lock);
}

/* Is @insn one of the marks? Its displacement, else 0. */
static uint32_t mark_of(const struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);
	uint32_t disp;

	if (qemu_plugin_insn_size(insn) != 8 || memcmp(d, MARK_OPCODE, 4))
		return 0;
	memcpy(&disp, d + 4, 4);	/* x86: little-endian, as the host */
	return disp == MARK_OPEN || disp == MARK_CLOSE || disp == MARK_UNIT ? disp : 0;
}

/* hlt (f4) or mwait (0f 01 c9): the vCPU stops until an interrupt. */
static int halts(const struct qemu_plugin_insn *insn)
{
	const unsigned char *d = qemu_plugin_insn_data(insn);
	size_t n = qemu_plugin_insn_size(insn);

	return (n == 1 && d[0] == 0xf4) || (n == 3 && !memcmp(d, "\x0f\x01\xc9", 3));
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, on_tb, QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)n);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t m = mark_of(insn);
		struct insn_rec *r;

		if (m == MARK_UNIT) {
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &units, 1);
			continue;
		}
		if (halts(insn)) {
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_halt, QEMU_PLUGIN_CB_NO_REGS, NULL);
			continue;
		}
		r = rec_new(qemu_plugin_insn_vaddr(insn),
			    (uint32_t)i | (m == MARK_OPEN ? 0x80000000u : 0));
		if (!r)
			continue;
		if (m)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, r);
		else
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW, r);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			char *slash;

			free(out_dir);
			out_dir = strdup(argv[i] + 4);
			if (!out_dir)
				return -1;
			/* the attribution plugin's PREFIX (DIR/attr): the files go to DIR */
			slash = strrchr(out_dir, '/');
			if (slash)
				slash[slash == out_dir] = 0;
			else if (!slash)
				strcpy(out_dir, ".");
		} else {
			fprintf(stderr, "mglrulab-coh: unknown argument '%s' (expected out=PREFIX)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_dir) {
		fprintf(stderr, "mglrulab-coh: no out=PREFIX\n");
		return -1;
	}
	lines = calloc(LINE_CAP, sizeof(*lines));
	pairs = calloc(PAIR_CAP, sizeof(*pairs));
	if (!lines || !pairs) {
		fprintf(stderr, "mglrulab-coh: cannot allocate the line and pair tables\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_vcpu_idle_cb(id, on_idle);
	return 0;
}
