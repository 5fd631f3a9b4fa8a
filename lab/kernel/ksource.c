// SPDX-License-Identifier: GPL-2.0
#include "ksource.h"
#include "fsutil.h"
#include "run_command.h"
#include "sandbox.h"
#include "sha256.h"
#include "util.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * No git of the lab starts background maintenance. After `git am` on a tree
 * committed from a tarball (~90,000 loose objects) git would otherwise run
 * `gc --auto`, which daemonizes and repacks on both cores for minutes while
 * the kernel compiles; the daemon is then re-parented to the lab, a child
 * subreaper once a guest has run (subreaper.h). GIT_CONFIG_COUNT entries
 * outrank every configuration file, the user's ~/.gitconfig included.
 */
const char *const lab_git_env[] = {
	"GIT_AUTHOR_NAME=mglrulab", "GIT_AUTHOR_EMAIL=mglrulab@localhost",
	"GIT_COMMITTER_NAME=mglrulab", "GIT_COMMITTER_EMAIL=mglrulab@localhost",
	"GIT_AUTHOR_DATE=1970-01-01T00:00:00Z", "GIT_COMMITTER_DATE=1970-01-01T00:00:00Z",
	"GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
	"GIT_CONFIG_COUNT=5",
	"GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0",
	"GIT_CONFIG_KEY_1=maintenance.auto", "GIT_CONFIG_VALUE_1=false",
	"GIT_CONFIG_KEY_2=gc.autoDetach", "GIT_CONFIG_VALUE_2=false",
	/* A series' tree runs no hook and no monitor of its own, even in the sandbox. */
	"GIT_CONFIG_KEY_3=core.hooksPath", "GIT_CONFIG_VALUE_3=/dev/null",
	"GIT_CONFIG_KEY_4=core.fsmonitor", "GIT_CONFIG_VALUE_4=false",
	NULL,
};

static int is_archive(const char *path)
{
	return str_ends_with(path, ".tar") || strstr(path, ".tar.") || str_ends_with(path, ".tgz") ||
	       str_ends_with(path, ".txz");
}

/*
 * Hashing a 150 MB archive takes about a second; remember the hash keyed
 * by everything that changes when the file does.
 */
static int archive_id(const char *cache_dir, const char *path, char **id, struct strbuf *err)
{
	struct stat st;
	char memo_key[SHA256_HEX_LEN + 1], hex[SHA256_HEX_LEN + 1];

	if (stat(path, &st)) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		return LAB_EUSER;
	}
	char *stamp = xasprintf("%s\n%lld\n%lld.%09ld\n%llu", path, (long long)st.st_size,
				(long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				(unsigned long long)st.st_ino);
	sha256_hex_of(stamp, strlen(stamp), memo_key);
	free(stamp);
	char *memo_dir = xasprintf("%s/srcid", cache_dir);
	char *memo = xasprintf("%s/%s", memo_dir, memo_key);
	struct strbuf sb = STRBUF_INIT;
	if (!read_file(memo, &sb, 256) && (sb_trim_trailing_newlines(&sb), sb.len == SHA256_HEX_LEN)) {
		*id = xasprintf("tar:%s", sb.buf);
	} else if (sha256_file_hex(path, hex)) {
		sb_addf(err, "%s: cannot read: %s", path, strerror(errno));
	} else {
		*id = xasprintf("tar:%s", hex);
		char *line = xasprintf("%s\n", hex);
		if (mkdir_p(memo_dir, 0755) || write_file_atomic(memo, line, strlen(line)))
			debug("cannot write %s", memo);
		free(line);
	}
	sb_release(&sb);
	free(memo);
	free(memo_dir);
	return *id ? LAB_OK : LAB_EUSER;
}

static struct sha256 dir_hash;
static size_t dir_prefix;

static int dir_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && !strcmp(path_basename(path), ".git"))
		return FTW_SKIP_SUBTREE;
	if (flag != FTW_F && flag != FTW_SL)
		return FTW_CONTINUE;
	char *rec = xasprintf("%s %lld %lld.%09ld %o", path + dir_prefix, (long long)st->st_size,
			      (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec, st->st_mode);
	sha256_field_str(&dir_hash, "file", rec);
	free(rec);
	return FTW_CONTINUE;
}

/*
 * A plain directory has no content hash to hand; its file list with sizes
 * and modification times identifies it well enough to notice any edit.
 */
static int directory_id(const char *path, char **id, struct strbuf *err)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_init(&dir_hash);
	dir_prefix = strlen(path);
	if (nftw(path, dir_entry, 64, FTW_PHYS | FTW_ACTIONRETVAL)) {
		sb_addf(err, "%s: cannot walk the tree: %s", path, strerror(errno));
		sha256_release(&dir_hash);
		return LAB_EUSER;
	}
	sha256_final_hex(&dir_hash, hex);
	*id = xasprintf("dir:%s", hex);
	return LAB_OK;
}

static LAB_MUST_CHECK int git_rev(const char *repo, const char *rev, struct strbuf *out)
{
	const char *argv[] = { "git", "-C", repo, "rev-parse", "--verify", "-q", rev, NULL };
	struct child c = { .argv = argv, .env = lab_git_env, .out = out, .null_stdout = 1 };
	int r;

	sb_reset(out);
	r = run_command(&c);
	sb_trim_trailing_newlines(out);
	return r;
}

char *ksource_git_commit(const char *path, const char *rev)
{
	struct strbuf sb = STRBUF_INIT;
	char *gitdir = path_join(path, ".git"), *want = xasprintf("%s^{commit}", rev), *c = NULL;

	if (*rev != '-' && is_dir(path) && (path_exists(gitdir) || str_ends_with(path, ".git")) &&
	    !git_rev(path, want, &sb) && sb.len)
		c = sb_detach(&sb);
	sb_release(&sb);
	free(gitdir);
	free(want);
	return c;
}

static int git_identify(const char *path, const char *ref, struct ksource *src,
			struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	const char *want = ref ? ref : "HEAD";
	char *commit_rev = xasprintf("%s^{commit}", want);
	char *tree_rev = xasprintf("%s^{tree}", want);
	int r = LAB_OK;

	src->kind = SOURCE_GIT;
	src->ref = xstrdup(want);
	if (git_rev(path, commit_rev, &sb) || !sb.len) {
		sb_addf(err, "%s: '%s' is not a commit in this git repository", path, want);
		r = LAB_EUSER;
	} else {
		src->commit = xstrdup(sb.buf);
		if (git_rev(path, tree_rev, &sb) || !sb.len) {
			sb_addf(err, "%s: cannot resolve the tree of '%s'", path, want);
			r = LAB_ELAB;
		} else {
			src->id = xasprintf("git:%s", sb.buf);
		}
	}
	free(commit_rev);
	free(tree_rev);
	sb_release(&sb);
	return r;
}

int ksource_identify(const char *cache_dir, const char *path, const char *ref,
		     struct ksource *src, struct strbuf *err)
{
	int r;

	memset(src, 0, sizeof(*src));
	src->path = xstrdup(path);
	if (is_regular_file(path) && is_archive(path)) {
		src->kind = SOURCE_ARCHIVE;
		r = archive_id(cache_dir, path, &src->id, err);
	} else if (is_dir(path)) {
		char *gitdir = path_join(path, ".git");
		int has_git = path_exists(gitdir) || str_ends_with(path, ".git");
		free(gitdir);
		if (has_git || ref) {
			r = git_identify(path, ref, src, err);
		} else {
			src->kind = SOURCE_DIR;
			r = directory_id(path, &src->id, err);
		}
	} else {
		sb_addf(err, "%s: expected a kernel source directory, a .tar.* archive or a git "
			"repository", path);
		r = LAB_EUSER;
	}
	if (!r && ref && src->kind != SOURCE_GIT) {
		sb_addf(err, "%s: 'ref = %s' needs a git repository as source", path, ref);
		r = LAB_EUSER;
	}
	if (!r) {
		const char *colon = strchr(src->id, ':');
		src->tree = xasprintf("%s/trees/%.*s-%.16s", cache_dir, (int)(colon - src->id),
				      src->id, colon + 1);
	}
	return r;
}

static int run_git(const char *tree, const char *const *args, const char *log, struct strbuf *out)
{
	struct strvec argv = STRVEC_INIT;
	struct child c = { .dir = tree, .env = lab_git_env, .log_path = out ? NULL : log,
			   .out = out, .merge_stderr = 1, .null_stdout = 1 };
	int r;

	strvec_push(&argv, "git");
	strvec_pushv(&argv, args);
	c.argv = (const char *const *)argv.v;
	r = run_command(&c);
	strvec_clear(&argv);
	return r;
}

/*
 * The file beside a git source's work tree that names the object folders
 * its clone borrows (git clone --shared), written by the lab when it made
 * the tree: the sandbox must see them, read-only, and the tree's own
 * .git/objects/info/alternates is in the sandbox's reach, so not the word
 * to go by.
 */
static char *objects_file(const char *tree)
{
	return xasprintf("%s.objects", tree);
}

/* Record the clone's borrowed object folders (at the clone, before anything ran in it). */
static void record_objects(const char *tmp, const char *tree)
{
	char *alt = xasprintf("%s/.git/objects/info/alternates", tmp), *file = objects_file(tree);
	struct strbuf sb = STRBUF_INIT;

	if (!read_regular_file(alt, &sb, 1 << 16) && write_file_atomic(file, sb.buf, sb.len))
		debug("cannot write %s: %s", file, strerror(errno));
	sb_release(&sb);
	free(file);
	free(alt);
}

void ksource_binds(const char *tree, int tree_writable, struct ksource_binds *kb)
{
	char *file = objects_file(tree);
	struct strbuf sb = STRBUF_INIT;

	memset(kb, 0, sizeof(*kb));
	/* a tree cloned before the lab recorded this: what its clone said, once */
	if (!path_exists(file))
		record_objects(tree, tree);
	if (!read_regular_file(file, &sb, 1 << 16))
		strvec_split(&kb->paths, sb_str(&sb), "\n");
	kb->v = xcalloc(kb->paths.n + 1, sizeof(*kb->v));
	kb->v[kb->n++] = (struct sandbox_bind){ .path = tree, .writable = tree_writable };
	for (size_t i = 0; i < kb->paths.n; i++)
		if (kb->paths.v[i][0] == '/' && is_dir(kb->paths.v[i]))
			kb->v[kb->n++] = (struct sandbox_bind){ .path = kb->paths.v[i], .writable = 0 };
	sb_release(&sb);
	free(file);
}

void ksource_binds_release(struct ksource_binds *kb)
{
	strvec_clear(&kb->paths);
	free(kb->v);
	memset(kb, 0, sizeof(*kb));
}

int ksource_build_run(const struct sandbox_policy *sp, const char *tree, const char *out_dir,
		      const struct sandbox_bind *extra, struct child *c, int *timed_out,
		      struct strbuf *err)
{
	struct ksource_binds kb;
	struct sandbox_bind *binds;
	struct sandbox_cmd sc = { .policy = sp };
	int r;

	ksource_binds(tree, 0, &kb);
	binds = xcalloc(kb.n + 2, sizeof(*binds));
	memcpy(binds, kb.v, kb.n * sizeof(*binds));
	sc.nr_binds = kb.n;
	binds[sc.nr_binds++] = (struct sandbox_bind){ .path = out_dir, .writable = 1 };
	if (extra)
		binds[sc.nr_binds++] = *extra;
	sc.binds = binds;
	/* A signal between two steps, with no make to stop, still stops the build. */
	c->unless_stopped = 1;
	/* Stopped with its sub-makes and compilers, all gone before build.lock is. */
	c->new_group = 1;
	r = sandbox_run(&sc, c, err);
	*timed_out = sc.timed_out;
	free(binds);
	ksource_binds_release(&kb);
	return r;
}

int ksource_git_in(const struct sandbox_policy *sp, const char *tree, const char *const *args,
		   const char *stdin_path, struct strbuf *out)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf err = STRBUF_INIT;
	struct ksource_binds kb;
	struct child c = { .dir = tree, .env = lab_git_env, .out = out, .merge_stderr = 1,
			   .null_stdout = 1, .stdin_path = stdin_path };
	struct sandbox_cmd sc = { .policy = sp };
	int r;

	ksource_binds(tree, 1, &kb);
	sc.binds = kb.v;
	sc.nr_binds = kb.n;
	strvec_push(&argv, "git");
	strvec_pushv(&argv, args);
	c.argv = (const char *const *)argv.v;
	r = sandbox_run(&sc, &c, &err);
	if (r < 0 && out)
		sb_addf(out, "error: %s\n", sb_str(&err));
	strvec_clear(&argv);
	sb_release(&err);
	ksource_binds_release(&kb);
	return r;
}

int ksource_git(const struct sandbox_policy *sp, const char *tree, const char *const *args,
		struct strbuf *out)
{
	return ksource_git_in(sp, tree, args, NULL, out);
}

/* Fill @tmp with the source's files. */
static int populate(const struct ksource *src, const char *tmp, const char *log, struct strbuf *err)
{
	int r;

	if (src->kind == SOURCE_ARCHIVE) {
		const char *argv[] = { "tar", "-xf", src->path, "-C", tmp, "--strip-components=1",
				       "--no-same-owner", NULL };
		struct child c = { .argv = argv, .log_path = log };
		r = run_command(&c);
	} else if (src->kind == SOURCE_DIR) {
		char *from = xasprintf("%s/.", src->path);
		const char *argv[] = { "cp", "-a", "--reflink=auto", from, tmp, NULL };
		struct child c = { .argv = argv, .log_path = log };
		r = run_command(&c);
		free(from);
	} else {
		/* Objects are shared with the user's repository, never copied or changed. */
		const char *argv[] = { "git", "clone", "-q", "--shared", "--no-checkout",
				       src->path, tmp, NULL };
		struct child c = { .argv = argv, .env = lab_git_env, .log_path = log };
		rmdir(tmp);
		r = run_command(&c);
		if (!r) {
			const char *co[] = { "checkout", "-q", "-f", "--detach", src->commit, NULL };
			record_objects(tmp, src->tree);
			r = run_git(tmp, co, log, NULL);
		}
	}
	if (r)
		sb_addf(err, "%s: cannot unpack into %s (exit %d), see %s", src->path, tmp, r, log);
	return r ? LAB_ELAB : LAB_OK;
}

int ksource_prepare_tree(struct ksource *src, struct strbuf *err, double *seconds)
{
	char *marker = xasprintf("%s/.git/mglrulab-ready", src->tree);
	char *tmp = xasprintf("%s.tmp", src->tree);
	char *log = xasprintf("%s.log", src->tree);
	double t0 = now_monotonic();
	int r = LAB_OK;

	*seconds = 0;
	if (is_regular_file(marker))
		goto out;
	info("  unpack   %s -> %s", src->path, src->tree);
	rm_rf(tmp);
	rm_rf(src->tree);
	unlink(log);
	if (mkdir_new(tmp, 0755)) {
		sb_addf(err, "cannot create %s: %s", tmp, strerror(errno));
		r = LAB_ELAB;
		goto out;
	}
	r = populate(src, tmp, log, err);
	if (r)
		goto out;
	if (src->kind != SOURCE_GIT) {
		const char *init[] = { "init", "-q", NULL };
		const char *add[] = { "add", "-A", "-f", ".", NULL };
		const char *commit[] = { "commit", "-q", "--no-verify", "-m",
					 "mglrulab: unmodified source", NULL };
		if (run_git(tmp, init, log, NULL) || run_git(tmp, add, log, NULL) ||
		    run_git(tmp, commit, log, NULL)) {
			sb_addf(err, "%s: cannot commit the unpacked source, see %s", tmp, log);
			r = LAB_ELAB;
			goto out;
		}
	}
	const char *tag[] = { "tag", "-f", "mglrulab-base", "HEAD", NULL };
	if (run_git(tmp, tag, log, NULL) || rename(tmp, src->tree)) {
		sb_addf(err, "%s: cannot finish the work tree, see %s", src->tree, log);
		r = LAB_ELAB;
		goto out;
	}
	if (write_file_atomic(marker, "ok\n", 3))
		debug("cannot write %s", marker);
	*seconds = now_monotonic() - t0;
out:
	if (r)
		rm_rf(tmp);
	free(marker);
	free(tmp);
	free(log);
	return r;
}

void ksource_release(struct ksource *src)
{
	free(src->path);
	free(src->ref);
	free(src->id);
	free(src->commit);
	free(src->tree);
	memset(src, 0, sizeof(*src));
}
