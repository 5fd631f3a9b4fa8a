// SPDX-License-Identifier: GPL-2.0
/*
 * One kernel from lab.conf to a cache entry:
 *   identify source -> input key -> (hit? done)
 *   -> work tree -> git am the series -> configure + verify -> entry key
 *   -> (hit? done) -> make bzImage out of tree -> store entry.
 *
 * All kernels of one source share a work tree; each kernel name has its own
 * build folder, seeded from the baseline's. Switching the tree between
 * kernels rewrites only the files the series touch, and kbuild_mtime.c
 * settles their stamps for the folder being built, so make recompiles only
 * what depends on them: a patch to one .c file rebuilds in seconds once its
 * baseline has been built.
 *
 * This file runs one build and keeps its work tree and build folder; the
 * series is applied in kbuild_series.c, configure and make run in
 * kbuild_make.c, and the cache entry is written in kbuild_meta.c.
 */
#include "kbuild_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild_mtime.h"
#include "kcache.h"
#include "lockfile.h"
#include "ksource.h"
#include "run_command.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void kbuild_info(struct build_ctx *b, const char *fmt, ...)
{
	va_list ap;

	if (lab_quiet)
		return;
	printf("[%s] ", b->k->name);
	va_start(ap, fmt);
	term_vprintf(stdout, fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/*
 * The SIGINT/SIGTERM that stopped this build: a child stopped by it, or
 * caught between two steps (interrupt.h); 0 when none came.
 */
int kbuild_stopped(void)
{
	return run_command_stopped_by() ?: interrupted();
}

/* Say the build was stopped (nothing of it is in the cache): LAB_ELAB. */
int kbuild_stopped_error(struct build_ctx *b)
{
	struct strbuf where = STRBUF_INIT;
	int r;

	if (b->build_dir)
		sb_addf(&where, "; the build folder %s keeps what was compiled, for the next build",
			b->build_dir);
	if (b->log)
		sb_addf(&where, " (log: %s)", b->log);
	r = lab_error("interrupted: [kernel %s] build stopped by signal %d, nothing cached%s",
		      b->k->name, kbuild_stopped(), sb_str(&where));
	sb_release(&where);
	return r;
}

/* Read every file of @paths into @texts (what the cache keys hash). */
static int read_all(const struct kernel_cfg *k, const char *key, const struct strvec *paths,
		    size_t max, struct strvec *texts, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int r = 0;

	for (size_t i = 0; i < paths->n && !r; i++) {
		sb_reset(&sb);
		if (read_file(paths->v[i], &sb, max)) {
			sb_addf(err, "[kernel %s] %s: cannot read %s: %s", k->name, key, paths->v[i],
				strerror(errno));
			r = -1;
		} else {
			strvec_push(texts, sb_str(&sb));
		}
	}
	sb_release(&sb);
	return r;
}

static int read_inputs(struct build_ctx *b, struct strbuf *err)
{
	const struct kernel_cfg *k = b->k;
	struct strbuf sb = STRBUF_INIT;
	const char *cc = getenv("CC");
	const char *argv[] = { cc && *cc ? cc : "gcc", "--version", NULL };

	if (read_all(k, "series", &k->series, 64 << 20, &b->series_text, err) ||
	    read_all(k, "fragments", &k->fragments, 16 << 20, &b->fragment_text, err))
		goto fail;
	if (k->config[0] == '/') {
		sb_reset(&sb);
		if (read_file(k->config, &sb, 16 << 20)) {
			sb_addf(err, "[kernel %s] config: cannot read %s: %s", k->name, k->config,
				strerror(errno));
			goto fail;
		}
		b->config_base = sb_detach(&sb);
	} else {
		b->config_base = xstrdup(k->config);
	}
	sb_reset(&sb);
	if (run_capture(argv, NULL, &sb) || !sb.len) {
		sb_addf(err, "cannot run '%s --version': is a C compiler installed?", argv[0]);
		goto fail;
	}
	b->compiler = xstrndup(sb.buf, strcspn(sb.buf, "\n"));
	sb_release(&sb);
	return 0;
fail:
	sb_release(&sb);
	return -1;
}

static void fill_inputs(struct build_ctx *b, struct kcache_inputs *in, const char *config_text)
{
	in->source_id = b->src.id;
	in->series = (const char *const *)b->series_text.v;
	in->nr_series = b->series_text.n;
	in->series_cut = b->series_cut;
	in->series_prefix = b->prefix;
	/* NAME@0 is NAME's inputs without a series: the baseline's key when they match. */
	if (b->series_cut && !b->prefix) {
		in->nr_series = 0;
		in->series_cut = 0;
	}
	in->config_base = b->config_base;
	in->fragments = (const char *const *)b->fragment_text.v;
	in->nr_fragments = b->fragment_text.n;
	in->compiler = b->compiler;
	in->config_text = config_text;
}

/* Serialise builds: two kernel builds on two cores only slow each other down. */
int kbuild_lock(const char *cache_dir, int *fd_out)
{
	char *path = xasprintf("%s/build.lock", cache_dir);
	char *who = xasprintf("pid %ld\n", (long)getpid());
	struct strbuf held_by = STRBUF_INIT;
	int r = LAB_OK;

	/* with wait, never LOCKFILE_HELD */
	if (lockfile_take(path, 1, who, &held_by, fd_out) != LOCKFILE_TAKEN) {
		if (errno == EINTR && interrupted())
			r = lab_error("interrupted: stopped by signal %d while waiting for %s",
				      interrupted(), path);
		else
			r = lab_error("cannot lock %s: %s", path, strerror(errno));
	}
	sb_release(&held_by);
	free(who);
	free(path);
	return r;
}

/*
 * Start a new kernel's build folder as a copy of a sibling's, preferring
 * the one last built at the unmodified source (most series are small
 * changes to it): make then redoes only what differs.
 */
static void seed_build_dir(struct build_ctx *b)
{
	char *parent = path_dirname(b->build_dir);
	const char *tree_name = path_basename(b->src.tree);
	size_t tl = strlen(tree_name);
	DIR *d = opendir(parent);
	struct dirent *de;
	char *best = NULL, *base = NULL;
	const char *rev[] = { "rev-parse", "mglrulab-base", NULL };
	struct strbuf sb = STRBUF_INIT;
	time_t best_t = 0;
	int best_is_base = 0;

	if (!ksource_git(b->sp, b->src.tree, rev, &sb)) {
		sb_trim_trailing_newlines(&sb);
		base = sb_detach(&sb);
	}
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, tree_name, tl) || de->d_name[tl] != '-')
			continue;
		char *cand = xasprintf("%s/%s", parent, de->d_name);
		char *img = xasprintf("%s/arch/x86/boot/bzImage", cand);
		char *state = kbuild_state_read(cand);
		char *mark = xasprintf("%s/" SEEDED_MARK, cand);
		int is_base = state && base && !strcmp(state, base);
		struct stat st;
		if (strcmp(cand, b->build_dir) && !stat(img, &st) && state && access(mark, F_OK) &&
		    (is_base > best_is_base || (is_base == best_is_base && st.st_mtime >= best_t))) {
			free(best);
			best = xstrdup(cand);
			best_t = st.st_mtime;
			best_is_base = is_base;
		}
		free(state);
		free(mark);
		free(img);
		free(cand);
	}
	if (d)
		closedir(d);
	if (best) {
		const char *argv[] = { "cp", "-a", best, b->build_dir, NULL };
		struct child c = { .argv = argv, .null_stdout = 1 };
		char *mark = xasprintf("%s/" SEEDED_MARK, b->build_dir);
		kbuild_info(b, "seed     build folder from %s", path_basename(best));
		if (run_command(&c) || write_file_atomic(mark, best, strlen(best)))
			rm_rf(b->build_dir);
		free(mark);
	}
	sb_release(&sb);
	free(base);
	free(best);
	free(parent);
}

static void finish_result(struct build_ctx *b, struct kbuild_result *res, int hit, double t0)
{
	memcpy(res->key, b->key, sizeof(res->key));
	res->entry_dir = kcache_entry_dir(b->cfg->cache_dir, b->key);
	res->bzimage = xasprintf("%s/bzImage", res->entry_dir);
	res->cache_hit = hit;
	res->seconds = now_monotonic() - t0;
	res->image_size = file_size(res->bzimage);
	if (!lab_quiet)
		term_printf(stdout, "[%s] %s in %.2f s: %s (%.1f MiB), key %.12s\n", b->k->name,
			    hit ? "cache hit" : "built", res->seconds, res->bzimage,
			    res->image_size / 1048576.0, b->key);
}

/*
 * The entry b->key as this build's result, held (kcache.h) from now on: 1,
 * or 0 when it is not (or no longer: gc may remove it between a look and
 * the hold) in the cache.
 */
static int take_entry(struct build_ctx *b, struct kbuild_result *res, int hit, double t0)
{
	char *dir = kcache_entry_dir(b->cfg->cache_dir, b->key);
	int fd = kcache_entry_hold(dir);

	free(dir);
	if (fd < 0)
		return 0;
	finish_result(b, res, hit, t0);
	res->hold_fd = fd;
	return 1;
}

static void build_ctx_release(struct build_ctx *b)
{
	ksource_release(&b->src);
	strvec_clear(&b->series_text);
	strvec_clear(&b->fragment_text);
	strvec_clear(&b->subjects);
	free(b->config_base);
	free(b->compiler);
	free(b->build_dir);
	free(b->log);
	free(b->head_commit);
	free(b->prev_head);
	free(b->est_file);
	sb_release(&b->why);
}

static int identify(struct build_ctx *b)
{
	struct strbuf err = STRBUF_INIT;
	struct kcache_inputs in = { 0 };
	int r = ksource_identify(b->cfg->cache_dir, b->k->source, b->k->ref, &b->src, &err);

	if (!r && read_inputs(b, &err))
		r = LAB_EUSER;
	if (!r && b->k->prefix_of && kbuild_series_prefix(b, &err))
		r = LAB_EUSER;
	if (r) {
		error_status(r, "[kernel %s] %s", b->k->name, sb_str(&err));
	} else {
		fill_inputs(b, &in, NULL);
		kcache_input_key(&in, b->ikey);
	}
	sb_release(&err);
	return r;
}

int kbuild_lookup(const struct lab_config *cfg, const struct kernel_cfg *k,
		  char key[SHA256_HEX_LEN + 1])
{
	struct build_ctx b = { .cfg = cfg, .k = k };
	int r = -1;

	if (mkdir_p(cfg->cache_dir, 0755) == 0 && identify(&b) == LAB_OK &&
	    !kcache_index_get(cfg->cache_dir, b.ikey, key) && kcache_entry_exists(cfg->cache_dir, key))
		r = 0;
	build_ctx_release(&b);
	return r;
}

/*
 * The build folder (a prefix kernel builds in its series' folder: one
 * patch at a time, incrementally), seeded when new, and its fresh log.
 * LAB_OK or an error code, said.
 */
static int open_build_dir(struct build_ctx *b)
{
	const struct kernel_cfg *k = b->k;
	struct strbuf err = STRBUF_INIT;
	int r = LAB_OK;

	b->build_dir = xasprintf("%s/build/%s-%s", b->cfg->cache_dir, path_basename(b->src.tree),
				 k->build_name ? k->build_name : k->prefix_of ? k->prefix_of : k->name);
	/* A prefix kernel builds in its series' folder: one patch at a time, incrementally. */
	if (!is_dir(b->build_dir)) {
		char *parent = path_dirname(b->build_dir);
		/* without it, the mkdir_p() below says why */
		int mr = mkdir_p(parent, 0755);

		free(parent);
		if (!mr)
			seed_build_dir(b);
	}
	if (mkdir_p(b->build_dir, 0755))
		return lab_error("cannot create %s: %s", b->build_dir, strerror(errno));
	if (sandbox_adopt(b->sp, b->build_dir, &err) < 0) {
		r = lab_error("[kernel %s] %s", b->k->name, sb_str(&err));
		sb_release(&err);
		return r;
	}
	/*
	 * The log stays outside the sandbox's reach: in the build folder a
	 * series could swap it for a link to any file, and the lab reads it.
	 */
	char *logs = xasprintf("%s/logs", b->cfg->cache_dir);
	if (mkdir_p(logs, 0755))
		r = lab_error("cannot create %s: %s", logs, strerror(errno));
	b->log = xasprintf("%s/%s.log", logs, path_basename(b->build_dir));
	free(logs);
	unlink(b->log);
	return r;
}

/* After a good make: the folder's build state, and a seed for others from now on. */
static void mark_built(struct build_ctx *b)
{
	char *mark;

	if (kbuild_state_write(b->build_dir, b->head_commit))
		warning("cannot record the build state of %s", b->build_dir);
	/* Built: from now on a seed for others (see seed_build_dir()). */
	mark = xasprintf("%s/" SEEDED_MARK, b->build_dir);
	unlink(mark);
	free(mark);
}


/* The source tree, unpacked or checked out: LAB_OK, or the status, said. */
static int prepare_tree(struct build_ctx *b)
{
	struct strbuf err = STRBUF_INIT;
	int r = ksource_prepare_tree(&b->src, &err, &b->t_unpack);

	/* From here on only the sandbox's user changes the tree (a cache of before: once). */
	int adopted = r ? 0 : sandbox_adopt(b->sp, b->src.tree, &err);
	if (adopted < 0) {
		r = LAB_ELAB;
	} else if (adopted) {
		/*
		 * The owner is in git's index too: left stale, the next reset
		 * --hard would rewrite every file, and make would rebuild
		 * everything. A refresh re-reads what changed (the owner), once.
		 */
		const char *refresh[] = { "update-index", "-q", "--refresh", NULL };
		struct strbuf out = STRBUF_INIT;

		if (ksource_git(b->sp, b->src.tree, refresh, &out) < 0)
			debug("git update-index --refresh in %s: %s", b->src.tree, sb_str(&out));
		sb_release(&out);
	}
	if (r && kbuild_stopped())
		r = kbuild_stopped_error(b);
	else if (r)
		error_status(r, "[kernel %s] %s", b->k->name, sb_str(&err));
	sb_release(&err);
	return r;
}
int kbuild_kernel(const struct lab_config *cfg, const struct kernel_cfg *k,
		  struct kbuild_result *res)
{
	struct build_ctx b = { .cfg = cfg, .sp = &cfg->sandbox, .k = k, .why = STRBUF_INIT };
	struct strbuf config_text = STRBUF_INIT;
	double t0 = now_monotonic();
	int lock_fd = -1, r;

	memset(res, 0, sizeof(*res));
	res->hold_fd = -1;
	if (mkdir_p(cfg->cache_dir, 0755)) {
		r = lab_error("cannot create the cache %s: %s", cfg->cache_dir, strerror(errno));
		goto out;
	}
	r = identify(&b);
	if (r)
		goto out;
	if (!kcache_index_get(cfg->cache_dir, b.ikey, b.key) && take_entry(&b, res, 1, t0))
		goto out;
	r = kbuild_lock(cfg->cache_dir, &lock_fd);
	if (r)
		goto out;
	/* Someone may have built it while we waited for the lock. */
	if (!kcache_index_get(cfg->cache_dir, b.ikey, b.key) && take_entry(&b, res, 1, t0))
		goto out;
	r = prepare_tree(&b);
	if (!r)
		r = open_build_dir(&b);
	if (r)
		goto out;
	/* A signal now (the seed's cp stopped) stops the build before git changes the tree. */
	if (kbuild_stopped()) {
		r = kbuild_stopped_error(&b);
		goto out;
	}
	r = kbuild_apply_series(&b);
	if (r)
		goto out;
	r = kbuild_configure(&b, &config_text);
	if (r)
		goto out;
	struct kcache_inputs in = { 0 };
	fill_inputs(&b, &in, sb_str(&config_text));
	kcache_key(&in, b.key);
	if (take_entry(&b, res, 1, t0)) {
		if (kcache_index_put(cfg->cache_dir, b.ikey, b.key))
			warning("cannot record the input key in %s/index", cfg->cache_dir);
		goto out;
	}
	kbuild_settle_and_estimate(&b, sb_str(&config_text));
	r = kbuild_compile(&b);
	if (r)
		goto out;
	mark_built(&b);
	/* Stopped after make ended: the folder is built, the cache is not told. */
	if (kbuild_stopped()) {
		r = kbuild_stopped_error(&b);
		goto out;
	}
	r = kbuild_store_entry(&b, sb_str(&config_text));
	if (r)
		goto out;
	if (kcache_index_put(cfg->cache_dir, b.ikey, b.key))
		warning("cannot record the input key in %s/index", cfg->cache_dir);
	/* Under build.lock: gc cannot remove it before it is held. */
	if (!take_entry(&b, res, 0, t0))
		r = lab_error("[kernel %s] %s/entries/%s is not complete right after it was stored",
			      k->name, cfg->cache_dir, b.key);
out:
	if (r && b.failure && !kbuild_stopped()) {
		res->failure = b.failure;
		res->public_reason = sb_detach(&b.why);
		/* the inputs do not make a kernel: a bisection skips such a prefix */
		res->build_failed = b.failure != KBUILD_FAIL_APPLY;
	}
	if (lock_fd >= 0)
		close(lock_fd);
	sb_release(&config_text);
	build_ctx_release(&b);
	return r;
}

void kbuild_result_release(struct kbuild_result *res)
{
	/* Zeroed results (never filled) have no entry_dir, and hold nothing. */
	if (res->entry_dir && res->hold_fd >= 0)
		close(res->hold_fd);
	free(res->entry_dir);
	free(res->bzimage);
	free(res->public_reason);
	memset(res, 0, sizeof(*res));
	res->hold_fd = -1;
}
