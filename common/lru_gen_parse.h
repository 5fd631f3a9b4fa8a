/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for /sys/kernel/debug/lru_gen and lru_gen_full (Linux 6.12
 * mm/vmscan.c, lru_gen_seq_show()):
 *
 *   memcg %5hu %s                    id and cgroup path
 *    node %5d
 *    %10lu %10u %10lu%c %10lu%c      seq, age ms, anon and file pages
 *                                    ('x': older than min_seq of that type)
 *   full only, per tier:
 *               %10d ( %10lu%c x3 ) x2   tier, then per type 3 counters
 *                                    flagged "RTx" (max_seq) or "rep"
 *   full only, with mm walks:
 *                         ( %10lu%c )xN  mm-walk stats, "TYFA"/"tyfa"/"xxxx":
 *                                    leaf total, leaf young, non-leaf
 *                                    found, non-leaf added (patched
 *                                    kernels may add columns)
 *
 * Pure C with no lab dependencies: the guest programs link it too (to
 * find their memcg id and max_seq). Input is untrusted: lines that fit
 * none of the shapes are counted in bad_lines and skipped.
 */
#ifndef LAB_COUNTERS_LRU_GEN_H
#define LAB_COUNTERS_LRU_GEN_H

#include "must_check.h"

#include <stddef.h>
#include <stdint.h>

#define LRU_GEN_MAX_TIERS 8
#define LRU_GEN_MAX_MM_STATS 8

/* The 6.12 mm-walk stats, in column order. */
enum { LRU_GEN_MM_LEAF_TOTAL, LRU_GEN_MM_LEAF_YOUNG, LRU_GEN_MM_NONLEAF_FOUND,
       LRU_GEN_MM_NONLEAF_ADDED };
extern const char *const lru_gen_mm_stat_names[4];

struct lru_gen_tier {
	uint64_t n[2][3];	/* [anon|file][refaulted, total/evicted, protected] */
	char flag[2][3];
};

struct lru_gen_gen {
	uint64_t seq;
	uint64_t age_ms;
	uint64_t pages[2];	/* anon, file */
	int old[2];		/* 'x' mark: below min_seq of that type */
	int ntiers;
	struct lru_gen_tier tier[LRU_GEN_MAX_TIERS];
	int nmm;		/* columns of the mm-walk stats line, 0 if none */
	uint64_t mm[LRU_GEN_MAX_MM_STATS];
	char mm_flag[LRU_GEN_MAX_MM_STATS];	/* 'T'/'t' (valid) or 'x' (none) */
};

struct lru_gen_node {
	int nid;
	struct lru_gen_gen *gens;
	size_t ngens, alloc;
};

struct lru_gen_memcg {
	unsigned int id;
	char *path;
	struct lru_gen_node *nodes;
	size_t nnodes, alloc;
};

struct lru_gen_snapshot {
	struct lru_gen_memcg *memcgs;
	size_t nmemcgs, alloc;
	size_t bad_lines;	/* lines that matched no shape */
	int truncated;		/* the text ended inside a line */
};

/* Parse @len bytes of @text. Returns 0, or -1 when out of memory. */
LAB_MUST_CHECK
int lru_gen_parse(const char *text, size_t len, struct lru_gen_snapshot *out);
void lru_gen_release(struct lru_gen_snapshot *s);

const struct lru_gen_memcg *lru_gen_find_path(const struct lru_gen_snapshot *s, const char *path);
const struct lru_gen_memcg *lru_gen_find_id(const struct lru_gen_snapshot *s, unsigned int id);
const struct lru_gen_node *lru_gen_find_node(const struct lru_gen_memcg *m, int nid);
const struct lru_gen_gen *lru_gen_find_seq(const struct lru_gen_node *n, uint64_t seq);
/* Highest seq printed for the node (max_seq); 0 when no generations. */
uint64_t lru_gen_max_seq(const struct lru_gen_node *n);
/* Lowest seq printed (min_seq of anon in lru_gen, oldest shown in lru_gen_full). */
uint64_t lru_gen_min_seq(const struct lru_gen_node *n);
/* A generation's mm-walk stats are valid ("tyfa"/"TYFA", not "xxxx"). */
int lru_gen_mm_valid(const struct lru_gen_gen *g);

#endif
