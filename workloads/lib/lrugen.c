// SPDX-License-Identifier: GPL-2.0
#include "lrugen.h"
#include "fileio.h"
#include "jsonl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#define DEBUGFS_MAGIC 0x64626720

void wl_lru_gen_require(void)
{
	struct statfs sf;
	uint64_t caps;
	int err = wl_read_u64("/sys/kernel/mm/lru_gen/enabled", &caps);

	if (err)
		wl_precond("lru_gen", "/sys/kernel/mm/lru_gen/enabled: %s (kernel without CONFIG_LRU_GEN?)",
			   strerror(-err));
	if (!(caps & 1))
		wl_precond("lru_gen", "MGLRU is disabled (lru_gen/enabled = 0x%04llx)",
			   (unsigned long long)caps);
	if (statfs("/sys/kernel/debug", &sf) || sf.f_type != DEBUGFS_MAGIC)
		wl_precond("debugfs", "debugfs is not mounted at /sys/kernel/debug");
	if (access(WL_LRU_GEN, W_OK))
		wl_precond("debugfs", "%s is not writable: %s", WL_LRU_GEN, strerror(errno));
}

int wl_lru_gen_read(struct lru_gen_snapshot *s, int full)
{
	size_t len;
	char *text = wl_read_file(full ? WL_LRU_GEN_FULL : WL_LRU_GEN, 64 << 20, &len, NULL);
	int ret;

	if (!text)
		return -errno;
	ret = lru_gen_parse(text, len, s) ? -ENOMEM : 0;
	free(text);
	return ret;
}

long wl_lru_gen_memcg_id(const char *rel)
{
	struct lru_gen_snapshot s;
	const struct lru_gen_memcg *m;
	long id = -1;

	if (wl_lru_gen_read(&s, 0))
		return -1;
	m = lru_gen_find_path(&s, rel);
	if (m)
		id = m->id;
	lru_gen_release(&s);
	return id;
}

uint64_t wl_lru_gen_max_seq(unsigned int id, int nid)
{
	struct lru_gen_snapshot s;
	uint64_t seq;

	if (wl_lru_gen_read(&s, 0))
		return 0;
	seq = lru_gen_max_seq(lru_gen_find_node(lru_gen_find_id(&s, id), nid));
	lru_gen_release(&s);
	return seq;
}

int wl_lru_gen_age(unsigned int id, int nid, uint64_t seq, int can_swap, int force_scan)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "+ %u %d %llu %d %d\n", id, nid, (unsigned long long)seq,
		 can_swap, force_scan);
	return wl_write_file(WL_LRU_GEN, cmd);
}

int wl_lru_gen_evict(unsigned int id, int nid, uint64_t seq, int swappiness, unsigned long nr)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "- %u %d %llu %d %lu\n", id, nid, (unsigned long long)seq,
		 swappiness, nr);
	return wl_write_file(WL_LRU_GEN, cmd);
}
