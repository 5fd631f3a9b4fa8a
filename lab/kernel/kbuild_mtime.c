// SPDX-License-Identifier: GPL-2.0
/*
 * Modification times in the shared work tree, so that make in each build
 * folder redoes exactly what changed for *that* folder.
 *
 * All kernels of a source share one git work tree (Kbuild records absolute
 * source paths in every .cmd file, so a second tree at another path would
 * rebuild everything). Switching the tree from one kernel's state to
 * another's rewrites the files that differ, stamping them "now". For the
 * folder about to be built, last built at commit S_B, and the tree now at
 * commit S:
 *   - a file whose content differs between S_B and S must be newer than
 *     the folder's objects: stamp it now;
 *   - a file the switch rewrote but whose content is what the folder last
 *     compiled can go back to an ancient stamp, so it triggers nothing.
 * Besides the files the commits S_B, S and the previous state differ in,
 * any file stamped after the folder's last build counts as rewritten: a
 * series that failed half-way (git am, then a reset to the base) leaves
 * its files with new stamps and no commit that says so.
 * Files no series ever touched keep the archive's stamps. Each build
 * applies this for its own folder, so the rule never has to hold for all
 * folders at once; without a known S_B we leave "now" and make rebuilds
 * more than needed, never less.
 */
#include "kbuild_mtime.h"
#include "fsutil.h"
#include "ksource.h"
#include "util.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

/* Older than any object file: 2000-01-01. */
#define ANCIENT 946684800

static void diff_names(const struct sandbox_policy *sp, const char *tree, const char *a,
		       const char *b, struct strvec *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *argv[] = { "diff", "--name-only", "--no-renames", a, b, NULL };

	if (!ksource_git(sp, tree, argv, &sb))
		strvec_split(out, sb_str(&sb), "\n");
	sb_release(&sb);
}

static int contains(const struct strvec *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

static int commit_exists(const struct sandbox_policy *sp, const char *tree, const char *rev)
{
	struct strbuf sb = STRBUF_INIT;
	char *spec = xasprintf("%s^{commit}", rev);
	const char *argv[] = { "cat-file", "-e", spec, NULL };
	int ok = !ksource_git(sp, tree, argv, &sb);

	free(spec);
	sb_release(&sb);
	return ok;
}

/* nftw has no context argument. */
static struct {
	struct strvec *out;
	size_t prefix;
	time_t since;
} newer_walk;

static int newer_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)ftw;
	if (flag == FTW_D && !strcmp(path + newer_walk.prefix, ".git"))
		return FTW_SKIP_SUBTREE;
	if (flag == FTW_F && st->st_mtime >= newer_walk.since && path[newer_walk.prefix])
		strvec_push(newer_walk.out, path + newer_walk.prefix);
	return FTW_CONTINUE;
}

/* Files of @tree (paths relative to it) stamped at or after @since. */
static void files_newer(const char *tree, time_t since, struct strvec *out)
{
	newer_walk.out = out;
	newer_walk.prefix = strlen(tree) + 1;
	newer_walk.since = since;
	nftw(tree, newer_one, 64, FTW_PHYS | FTW_ACTIONRETVAL);
}

/*
 * Stamp @rel below @tree, never through a symbolic link on the way: the
 * series wrote the tree (it may have added a link "a" -> "/etc"), and the
 * lab may be root. 0, or -1 with errno.
 */
static int stamp_beneath(const char *tree, const char *rel, const struct timespec ts[2])
{
	const char *slash = strrchr(rel, '/');
	char *dir = slash ? xstrndup(rel, (size_t)(slash - rel)) : xstrdup(".");
	int fd = open_beneath(tree, dir, O_PATH | O_DIRECTORY), r = -1;

	if (fd >= 0) {
		r = utimensat(fd, slash ? slash + 1 : rel, ts, AT_SYMLINK_NOFOLLOW);
		close(fd);
	}
	free(dir);
	return r;
}

int kbuild_settle_mtimes(const struct sandbox_policy *sp, const char *tree,
			 const char *prev_head, const char *head,
			 const char *built_at, time_t built_time, struct strvec *renewed)
{
	struct strvec touched = STRVEC_INIT, differ = STRVEC_INIT;
	int n = 0;

	if (!built_at || !commit_exists(sp, tree, built_at))
		return -1;
	if (built_time > 0)
		files_newer(tree, built_time, &touched);
	diff_names(sp, tree, "mglrulab-base", head, &touched);
	diff_names(sp, tree, "mglrulab-base", built_at, &touched);
	if (prev_head && commit_exists(sp, tree, prev_head))
		diff_names(sp, tree, "mglrulab-base", prev_head, &touched);
	diff_names(sp, tree, built_at, head, &differ);
	/* The lists overlap (a series' files are in several diffs): each file once. */
	strvec_sort(&touched);
	for (size_t i = 0; i < touched.n; i++) {
		if (i && !strcmp(touched.v[i], touched.v[i - 1]))
			continue;
		struct timespec ts[2];
		if (contains(&differ, touched.v[i])) {
			ts[0].tv_nsec = ts[1].tv_nsec = UTIME_NOW;
			if (renewed)
				strvec_push(renewed, touched.v[i]);
		} else {
			ts[0].tv_sec = ts[1].tv_sec = ANCIENT;
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
		}
		if (!stamp_beneath(tree, touched.v[i], ts))
			n++;
	}
	strvec_clear(&touched);
	strvec_clear(&differ);
	return n;
}

char *kbuild_state_read(const char *build_dir)
{
	struct strbuf sb = STRBUF_INIT;
	char *res = NULL;

	/* the sandbox writes the folder: never read through a link it left */
	if (!read_file_beneath(build_dir, ".mglrulab-state", &sb, 256)) {
		sb_trim_trailing_newlines(&sb);
		if (sb.len)
			res = sb_detach(&sb);
	}
	sb_release(&sb);
	return res;
}

int kbuild_state_write(const char *build_dir, const char *commit)
{
	char *path = xasprintf("%s/.mglrulab-state", build_dir);
	char *line = xasprintf("%s\n", commit);
	int r = write_file_atomic(path, line, strlen(line));

	free(path);
	free(line);
	return r;
}
