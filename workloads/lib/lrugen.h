/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MGLRU from user space: precondition checks, reading lru_gen(_full)
 * through the shared parser (common/lru_gen_parse.c) and explicit aging
 * by writing "+ memcg_id node_id max_gen_nr [can_swap [force_scan]]" to
 * /sys/kernel/debug/lru_gen.
 */
#ifndef WL_LRUGEN_H
#define WL_LRUGEN_H

#include "lru_gen_parse.h"

#define WL_LRU_GEN "/sys/kernel/debug/lru_gen"
#define WL_LRU_GEN_FULL "/sys/kernel/debug/lru_gen_full"

/* Exit 2 with the reason unless MGLRU is built, enabled and debugfs is there. */
void wl_lru_gen_require(void);
/* Read and parse lru_gen (@full = 0) or lru_gen_full. 0 or -errno. */
int wl_lru_gen_read(struct lru_gen_snapshot *s, int full);
/* Memcg id of cgroup @rel ("/name"), or -1. */
long wl_lru_gen_memcg_id(const char *rel);
/* max_seq of (memcg @id, node @nid), or 0 if not shown. */
uint64_t wl_lru_gen_max_seq(unsigned int id, int nid);
/* Age one generation: 0 or -errno (-ERANGE: too many generations, not forced). */
int wl_lru_gen_age(unsigned int id, int nid, uint64_t seq, int can_swap, int force_scan);
/*
 * Evict: "- memcg_id node_id seq swappiness nr_to_reclaim". On a lruvec
 * with no pages this only lets min_seq catch up with the empty
 * generations, which is what explicit aging without force_scan needs once
 * MAX_NR_GENS generations exist (6.12 returns -ERANGE then).
 */
int wl_lru_gen_evict(unsigned int id, int nid, uint64_t seq, int swappiness, unsigned long nr);

#endif
