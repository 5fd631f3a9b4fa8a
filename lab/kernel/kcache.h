/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The content-addressed kernel cache.
 *
 *   <cache>/entries/<key>/   bzImage, config, System.map, build.log, meta.json
 *   <cache>/index/<ikey>     input key -> entry key, so a cache hit needs no
 *                            configure step (which takes seconds)
 *   <cache>/srcid/<h>        archive path+size+mtime -> archive sha256 memo
 *   <cache>/trees/<id>/      lab-managed git work trees, one per source
 *   <cache>/build/<tree>-<kernel>/  out-of-tree build folders
 *
 * The entry key hashes what determines the image: the source identity, the
 * series files' contents in order (and, for a prefix kernel "NAME@K" that
 * stops short of the series' end, K), the merged .config (its CONFIG_
 * lines) and the compiler version. The input key hashes what determines those
 * before configuring: the same, with the config base and the fragments'
 * contents in place of the merged .config.
 */
#ifndef LAB_KCACHE_H
#define LAB_KCACHE_H

#include "sha256.h"
#include "strbuf.h"
#include "util.h"

#define KCACHE_VERSION "mglrulab-kcache/1"

struct kcache_inputs {
	const char *source_id;		/* "tar:<sha256>", "git:<tree>", "dir:<hash>" */
	const char *const *series;	/* contents of the series files, in order */
	size_t nr_series;
	int series_cut;			/* 1: only the series' first series_prefix patches */
	long series_prefix;
	const char *config_text;	/* merged .config (entry key) */
	const char *config_base;	/* base name or file contents (input key) */
	const char *const *fragments;	/* fragment contents (input key) */
	size_t nr_fragments;
	const char *compiler;		/* first line of `gcc --version` */
};

/* Entry key: source, series, CONFIG_ lines of the merged config, compiler. */
void kcache_key(const struct kcache_inputs *in, char key[SHA256_HEX_LEN + 1]);
/* Input key: source, series, config base, fragments, compiler. */
void kcache_input_key(const struct kcache_inputs *in, char key[SHA256_HEX_LEN + 1]);

/* Entry folder of @key (caller frees); whether it is complete. */
char *kcache_entry_dir(const char *cache_dir, const char *key);
int kcache_entry_exists(const char *cache_dir, const char *key);
/*
 * Who uses an entry holds it: a shared flock on its meta.json, taken when
 * the entry is found (kbuild_kernel()) and kept while the kernel may
 * still be booted: a session to its end, a bisection its prefixes to its
 * end. `kernel gc` removes an entry only under an exclusive flock it tries
 * without waiting, so what is held stays; the kernel lets go of the lock
 * when the holder ends, however it ends.
 *
 * kcache_entry_hold(): the descriptor to keep open (close() lets go), or
 * -1 when @entry_dir is no complete entry (never stored, or gc removed it
 * before the hold was taken: the caller builds it again).
 */
LAB_MUST_CHECK
int kcache_entry_hold(const char *entry_dir);
/*
 * gc: remove @entry_dir unless it is held. 0: removed (with @dry_run: it
 * would be); 1: held, kept; -1 with errno: cannot remove. The entry leaves
 * entries/ in one rename (to <key>.gc.<pid>, then removed): no one finds
 * it half removed.
 */
LAB_MUST_CHECK
int kcache_entry_remove(const char *entry_dir, int dry_run);
/*
 * gc, under build.lock (no build is storing an entry): remove what killed
 * builds and gc runs left in entries/ (<key>.tmp.<pid>, <key>.gc.<pid>).
 * Returns how many were removed.
 */
int kcache_sweep(const char *cache_dir);
/* Index: remember / look up input key -> entry key. */
LAB_MUST_CHECK
int kcache_index_put(const char *cache_dir, const char *ikey, const char *key);
LAB_MUST_CHECK
int kcache_index_get(const char *cache_dir, const char *ikey, char key[SHA256_HEX_LEN + 1]);

/* A series file an entry was built with, as its meta.json records it. */
struct kcache_series_file {
	char *file;			/* the path lab.conf named */
	char *sha256;			/* of its contents */
};

/*
 * What an entry's meta.json (written by lab/kernel/kbuild_meta.c) tells the
 * kernel's users: a session describes its kernels with it and shares the
 * source tree with workloads that build it.
 */
struct kcache_meta {
	struct strvec subjects;		/* of the applied patches, in order */
	struct kcache_series_file *series;	/* the series files, in order */
	size_t nr_series;
	char *config_sha256;		/* of the merged .config, or NULL */
	char *source_id;		/* what the source is, for anyone: "tar:SHA256" of
					   the archive, "git:COMMIT", "dir:SHA256"; or NULL */
	char *tree;			/* the source work tree built from, as recorded, or NULL */
	char *name;			/* the kernel's name in lab.conf, or NULL */
	char *built_at;			/* when, ISO 8601, or NULL */
	double image_size;		/* bytes of bzImage, 0 when not recorded */
};

/*
 * Read <@entry_dir>/meta.json into @m (kcache_meta.c). 0, or -1 with the reason (naming
 * the file) in @err; either way @m holds what could be read (fields
 * missing or of the wrong type stay empty) and must be released.
 */
LAB_MUST_CHECK
int kcache_entry_meta(const char *entry_dir, struct kcache_meta *m, struct strbuf *err);
void kcache_meta_release(struct kcache_meta *m);

#endif
