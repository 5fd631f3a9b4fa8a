/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribution: where the guest spent its instructions, per kernel
 * function and per unit of the workload (docs/attribution.md).
 *
 * The attribution plugin (guests/plugin/mglrulab_attr.c) writes one file
 * per measured window, RUN_DIR/attr.N: the window's unit count, then each
 * translated block that ran, with its instructions and executions. Here
 * those files are read (attr_window_load()), the blocks resolved to
 * functions with the kernel's System.map (attr_symbols_load()), and summed
 * into a table per unit (attr_table_build()); two tables, the baseline's
 * and the patched kernel's, give the functions whose cost moved
 * (attr_diff_build()).
 */
#ifndef LAB_ATTR_H
#define LAB_ATTR_H

#include "strbuf.h"

#include <jansson.h>

#include <stddef.h>
#include <stdint.h>

/* Guest addresses below this are user space (x86-64's lower half). */
#define ATTR_KERNEL_BASE	0xffff800000000000ull
#define ATTR_ROW_USER		"[user space]"
#define ATTR_ROW_UNKNOWN	"[kernel, no symbol]"

/* A window file's size limit: a guest kernel has some 10^5 blocks. */
#define ATTR_WINDOW_MAX_BYTES	(256ll << 20)
/* A System.map's: a distribution kernel's is some 10 MiB. */
#define ATTR_MAP_MAX_BYTES	(128ll << 20)

struct attr_sym {
	uint64_t addr;
	char *name;
};

/* A kernel's text symbols, by address. */
struct attr_symbols {
	struct attr_sym *v;
	size_t n;
};

/*
 * Read @path (a System.map: "ADDRESS TYPE NAME" lines, nm's output) into
 * @s: its text symbols (types T, t, W, w), sorted. -1 with FILE:LINE and
 * what was expected in @err.
 */
int attr_symbols_load(const char *path, struct attr_symbols *s, struct strbuf *err);
/*
 * The same for the symbols of @types ("DdBbRr": data, bss, read-only),
 * which the coherence tables name lines by (coh_table_build()).
 */
int attr_symbols_load_types(const char *path, const char *types, struct attr_symbols *s,
			    struct strbuf *err);
/* The function @addr lies in (the last symbol at or below it), or NULL. */
const char *attr_symbols_find(const struct attr_symbols *s, uint64_t addr);
void attr_symbols_release(struct attr_symbols *s);

struct attr_block {
	uint64_t addr;		/* the block's first instruction */
	uint32_t insns;		/* its instructions */
	uint64_t execs;		/* its executions in the window */
};

/* One window of a run: the plugin's attr.N. */
struct attr_window {
	uint64_t units;
	struct attr_block *v;
	size_t n;
};

/*
 * Read the plugin's window file @path into @w. The file is QEMU's output,
 * read as untrusted: every line checked, a missing "end" (QEMU stopped
 * while writing) refused, FILE:LINE and what was expected in @err.
 */
int attr_window_load(const char *path, struct attr_window *w, struct strbuf *err);
void attr_window_release(struct attr_window *w);

struct attr_row {
	char *name;		/* a function, ATTR_ROW_USER or ATTR_ROW_UNKNOWN */
	uint64_t insns;		/* instructions in the window */
};

/* A window's instructions per function, largest first. */
struct attr_table {
	struct attr_row *v;
	size_t n;
	uint64_t total, units;
};

/* Sum @w's blocks per function of @s into @t. */
void attr_table_build(const struct attr_window *w, const struct attr_symbols *s,
		      struct attr_table *t);
void attr_table_release(struct attr_table *t);
/* Instructions per unit (per window when it counted no unit). */
double attr_per_unit(const struct attr_table *t, uint64_t insns);

struct attr_diff_row {
	const char *name;	/* owned by the tables */
	double base, patched;	/* instructions per unit */
};

/* Two tables side by side: every function of either, by |change| descending. */
struct attr_diff {
	struct attr_diff_row *v;
	size_t n;
	double base_total, patched_total;	/* per unit */
};

void attr_diff_build(const struct attr_table *base, const struct attr_table *patched,
		     struct attr_diff *d);
void attr_diff_release(struct attr_diff *d);

/*
 * The tables' row order, for qsort comparators: larger |patched - base|
 * first, then by name, so equal changes list the same way every time.
 */
int attr_delta_order(double base_a, double patched_a, const char *name_a,
		     double base_b, double patched_b, const char *name_b);

/* The runs of one kernel for attr_compare_json(): their folders and its System.map. */
struct attr_side {
	const char *const *dirs;
	size_t n;
	const char *map;
};

#define ATTR_MAX_RUNS	16

/*
 * A row is named as moved when |delta| exceeds this many times the noise
 * and its own spread (attr_compare.c: a function that ran in bursts is
 * left out of the noise and held to its own spread).
 * bench/attr-noise-sim: past 1 x the noise, the noisiest function's own
 * delta names something in 6-12 % of tables of two boots of one kernel;
 * 1.5 x guards against that. It does not guard against a mode shared by
 * every boot being the same within each kernel and opposite between them
 * (12 % of A/A tables at two runs per kernel, with the measured modes):
 * session_attribute.c confirms a first look that names a function with
 * five runs per kernel, which brings that to 0.1 %.
 */
#define ATTR_NOISE_MULTIPLE	1.5

/*
 * Window @window of several runs of each kernel (attr_compare.c): every
 * function's instructions per unit averaged over its kernel's runs, with
 * the delta and its share of the whole change, largest |delta| first,
 * the first @top of them in "functions"; the spread (max - min between
 * runs of one kernel, the larger of the two) per function, and the
 * table's noise, the largest spread of a kernel function that ran
 * steadily, and the threshold a row must pass to be named,
 * ATTR_NOISE_MULTIPLE x noise (null with one run per kernel); each row
 * says whether it ran in bursts and whether it is named. A new reference, or NULL with
 * FILE:LINE and what was expected in @err. reports/SCHEMA.md, "attribution", has the members.
 */
json_t *attr_compare_json(const struct attr_side *base, const struct attr_side *patched,
			  long window, long top, struct strbuf *err);
/*
 * Window @window of several runs of one kernel (mglrulab profile): every
 * function's instructions per unit averaged over the runs, largest first,
 * with its share of the whole and its spread between runs; the noise is
 * the largest spread of a kernel function that ran steadily (null with
 * one run). A new
 * reference, or NULL with FILE:LINE and what was expected in @err.
 */
json_t *attr_profile_json(const struct attr_side *side, long window, long top,
			  struct strbuf *err);

/*
 * Coherence (docs/coherence.md): the coherence plugin
 * (guests/plugin/mglrulab_coh.c) writes RUN_DIR/coh.N per measured window,
 * the modelled cache-line transfers between vCPUs per (line, instruction).
 */

/* A coherence file's size limit: the plugin writes at most 57,344 pairs. */
#define COH_WINDOW_MAX_BYTES	(32ll << 20)
#define COH_MAX_VCPUS		64

struct coh_pair {
	uint64_t line;		/* physical address of the 64-byte line */
	uint64_t line_vaddr;	/* a virtual address it was reached by */
	uint64_t insn;		/* the instruction whose access moved it */
	uint64_t reads, writes;	/* transfers it caused by reading, by writing */
};

/* One window of a run: the plugin's coh.N, every count as written. */
struct coh_window {
	uint64_t line_bytes, units, vcpus;
	uint64_t insns[COH_MAX_VCPUS];	/* per vCPU, in the window */
	uint64_t accesses, buffered, forced, stalled, untracked, dropped, lines, transfers;
	struct coh_pair *v;
	size_t n;
};

/*
 * Read the coherence plugin's window file @path into @w, as untrusted
 * input: the header's keys in their order, every number checked, lines
 * over 1 KiB, a missing "end" and counts that do not add up (the pairs
 * and the dropped ones against "transfers") refused, with FILE:LINE and
 * what was expected in @err.
 */
int coh_window_load(const char *path, struct coh_window *w, struct strbuf *err);
void coh_window_release(struct coh_window *w);

struct coh_row {
	char *name;		/* a function, or a line's name */
	char *by;		/* lines: the function that moved it most; NULL for functions */
	uint64_t line;		/* lines: the physical address */
	uint64_t reads, writes;	/* transfers */
};

/* A window's transfers per function and per line, most first. */
struct coh_table {
	struct coh_row *funcs, *lines;
	size_t nfuncs, nlines;
	uint64_t total, units, dropped;
};

/*
 * Sum @w's pairs per function of @text (instructions, as attr_table_build())
 * and per line, naming a line by the symbol of @data it lies in when it
 * was reached through the kernel image's mapping (static data: "jiffies",
 * "sym+0x40"), else by its physical address ("[line 0x1234c0]", or
 * "[user line 0x1234c0]" when reached from user space), with the function
 * that moved it most in "by".
 */
void coh_table_build(const struct coh_window *w, const struct attr_symbols *text,
		     const struct attr_symbols *data, struct coh_table *t);
void coh_table_release(struct coh_table *t);

/*
 * The latency model (docs/coherence.md): nanoseconds per transfer when
 * the two CPUs share a node, and when they do not.
 */
struct coh_model {
	double ns_node, ns_remote;
};

/*
 * Window @window of the coherence runs of one kernel (@base) or two:
 * transfers per unit for each kernel (each run's, their mean and spread),
 * the change, its modelled cost per unit under @m, and the @top functions
 * and lines by the size of their change (by their transfers with one
 * kernel). Lines named by a data symbol are matched by name; the others
 * (slab and page lines, whose addresses change between boots) by the
 * function that moved them most: "[lines moved most by F]". A new object,
 * or NULL with FILE:LINE and what was expected in @err. reports/SCHEMA.md,
 * "coherence", has the members.
 */
json_t *coh_compare_json(const struct attr_side *base, const struct attr_side *patched,
			 long window, long top, const struct coh_model *m, struct strbuf *err);

#endif
