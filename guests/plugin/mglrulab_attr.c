// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab-attr: a QEMU TCG plugin that counts the guest's instructions
 * per translated block, in windows the guest marks itself.
 *
 * Each translated block gets a record (its address, its instruction count)
 * and an inline counter of its executions; the instructions a block ran
 * are executions x instructions. A guest program marks a window with two
 * multi-byte NOPs of a displacement the kernel never uses (the workloads'
 * workloads/lib/attr_mark.h): at the opening mark the plugin takes every
 * counter's value, at the closing one it writes OUT.N (N: the window's
 * number, from 1): "units U", the unit marks the workload executed in
 * the window (one per operation: a yield, a generation), then, for every
 * block that ran in between, "ADDRESS INSNS EXECS" (hexadecimal, then
 * decimal), then "end" as its last line, so a file cut short is told
 * apart from a complete one. The host resolves the addresses to kernel
 * functions (System.map) and sums them per unit (lab/attr/).
 *
 * Exact under icount, where one thread runs every vCPU: the inline adds
 * never race and the instruction stream is the guest's. With one thread
 * per vCPU (host clock) two vCPUs may lose an add between them; the lab
 * uses the plugin under icount only. A block left early by an exception
 * counts whole (a fault in the middle of a block): the table says so.
 *
 * Built against Debian's qemu-plugin.h (QEMU 7.2, plugin API version 1),
 * which scripts/qemu-plugin-header extracts from Debian's source package.
 * Arguments: out=PREFIX (required).
 */
#include <qemu-plugin.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/* nopl MARK(%rax,%rax,1): 0f 1f 84 00, then the displacement */
#define MARK_OPCODE	"\x0f\x1f\x84\x00"
#define MARK_BASE	0x4d474c00u	/* "\0LGM": mglrulab */
#define MARK_OPEN	(MARK_BASE + 1)
#define MARK_CLOSE	(MARK_BASE + 2)
#define MARK_UNIT	(MARK_BASE + 3)

struct block {
	uint64_t vaddr;
	uint64_t execs;		/* the inline counter */
	uint64_t at_open;	/* execs at the window's opening mark */
	uint32_t insns;
};

/* Blocks live in chunks that never move: the inline adds hold their addresses. */
#define CHUNK 4096
struct chunk {
	struct block b[CHUNK];
	size_t n;
	struct chunk *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *chunks;
static char *out_prefix;
static int window;		/* windows closed so far */
static int open_now;
static uint64_t units, units_at_open;	/* unit marks executed (inline) */

static struct block *block_new(uint64_t vaddr, uint32_t insns)
{
	struct block *b;

	pthread_mutex_lock(&lock);
	if (!chunks || chunks->n == CHUNK) {
		struct chunk *c = calloc(1, sizeof(*c));

		if (!c) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		c->next = chunks;
		chunks = c;
	}
	b = &chunks->b[chunks->n++];
	b->vaddr = vaddr;
	b->insns = insns;
	pthread_mutex_unlock(&lock);
	return b;
}

static void window_open(void)
{
	for (struct chunk *c = chunks; c; c = c->next)
		for (size_t i = 0; i < c->n; i++)
			c->b[i].at_open = c->b[i].execs;
	units_at_open = units;
	open_now = 1;
}

static void window_close(void)
{
	char path[4096];
	FILE *f;

	if (!open_now)
		return;	/* a closing mark without an opening one: nothing to measure */
	open_now = 0;
	window++;
	snprintf(path, sizeof(path), "%s.%d", out_prefix, window);
	f = fopen(path, "w");
	if (!f) {
		char msg[4200];

		snprintf(msg, sizeof(msg), "mglrulab-attr: %s: %s\n", path, strerror(errno));
		qemu_plugin_outs(msg);
		return;
	}
	fprintf(f, "units %" PRIu64 "\n", units - units_at_open);
	for (struct chunk *c = chunks; c; c = c->next)
		for (size_t i = 0; i < c->n; i++) {
			const struct block *b = &c->b[i];
			uint64_t n = b->execs - b->at_open;

			if (n)
				fprintf(f, "%" PRIx64 " %" PRIu32 " %" PRIu64 "\n", b->vaddr, b->insns, n);
		}
	fputs("end\n", f);
	fclose(f);
}

static void on_mark(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	pthread_mutex_lock(&lock);
	if ((uintptr_t)udata == MARK_OPEN)
		window_open();
	else
		window_close();
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

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct block *b = block_new(qemu_plugin_tb_vaddr(tb), (uint32_t)n);

	(void)id;
	if (!b)
		return;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t m = mark_of(insn);

		if (m == MARK_UNIT)
			qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64,
								   &units, 1);
		else if (m)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)m);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			free(out_prefix);
			out_prefix = strdup(argv[i] + 4);
		} else {
			fprintf(stderr, "mglrulab-attr: unknown argument '%s' (expected out=PREFIX)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_prefix) {
		fprintf(stderr, "mglrulab-attr: no out=PREFIX\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	return 0;
}
