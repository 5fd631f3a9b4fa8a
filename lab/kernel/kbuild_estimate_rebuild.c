// SPDX-License-Identifier: GPL-2.0
/*
 * An incremental build's step count, from the dependency lists Kbuild
 * left in the build folder: see kbuild_estimate.h.
 */
#include "kbuild_estimate.h"
#include "fsutil.h"
#include "strbuf.h"
#include "strmap.h"
#include "util.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A .cmd file lists an object's headers: a few hundred KiB at most. */
#define CMD_FILE_MAX		(4u << 20)
/* Folders a build folder may have; a symlink loop or a planted tree stops here. */
#define REBUILD_DIRS_MAX	20000
#define REBUILD_DEPTH_MAX	32

struct rebuild_walk {
	const char *tree;
	size_t tree_len;
	struct strmap changed;	/* tree-relative paths whose objects recompile */
	struct strmap ar_dirs;	/* folders whose built-in.a is archived again */
	long objs, dirs_seen;
};

/*
 * The tree-relative path a line of a .cmd file names, or NULL: a dependency
 * line ("  /TREE/include/linux/mm_types.h \") or the object's source
 * ("source_mm/vmscan.o := /TREE/mm/vmscan.c"). Cuts @line in place.
 */
static char *line_path(const struct rebuild_walk *w, char *line)
{
	char *p = line, *end;

	if (!strncmp(p, "source_", 7)) {
		p = strstr(p, ":= ");
		if (!p)
			return NULL;
		p += 3;
	}
	p += strspn(p, " \t");
	end = p + strcspn(p, " \t\\");
	*end = '\0';
	if (strncmp(p, w->tree, w->tree_len) || p[w->tree_len] != '/')
		return NULL;
	return p + w->tree_len + 1;
}

/* Does the .cmd file at @path name a changed file? */
static int cmd_depends(const struct rebuild_walk *w, const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int hit = 0;

	if (read_regular_file(path, &sb, CMD_FILE_MAX)) {
		sb_release(&sb);
		return 0;
	}
	for (char *line = sb.buf, *nl; line && *line && !hit; line = nl) {
		char *rel;

		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		rel = line_path(w, line);
		hit = rel && strmap_get(&w->changed, rel, NULL);
	}
	sb_release(&sb);
	return hit;
}

/* @dir ("" for the top) and every folder above it archive their built-in.a again. */
static void mark_ar(struct rebuild_walk *w, const char *dir)
{
	char *d = xstrdup(dir);

	for (;;) {
		char *slash;

		strmap_put(&w->ar_dirs, d, 1);
		if (!*d)
			break;
		slash = strrchr(d, '/');
		if (slash)
			*slash = '\0';
		else
			*d = '\0';
	}
	free(d);
}

/* An object's .cmd file: ".NAME.o.cmd", not a link's (".vmlinux.cmd", ".built-in.a.cmd"). */
static int is_object_cmd(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' && n > 7 && !strcmp(name + n - 6, ".o.cmd");
}

static void walk_build(struct rebuild_walk *w, const char *root, const char *rel, int depth)
{
	char *dir = *rel ? xasprintf("%s/%s", root, rel) : xstrdup(root);
	DIR *d = depth <= REBUILD_DEPTH_MAX && ++w->dirs_seen <= REBUILD_DIRS_MAX ? opendir(dir) : NULL;
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *sub;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, ".git"))
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		/* lstat: a symbolic link is never followed, to a folder or a file */
		if (lstat(sub, &st)) {
			free(sub);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			char *subrel = *rel ? xasprintf("%s/%s", rel, e->d_name) : xstrdup(e->d_name);

			walk_build(w, root, subrel, depth + 1);
			free(subrel);
		} else if (S_ISREG(st.st_mode) && is_object_cmd(e->d_name) && cmd_depends(w, sub)) {
			w->objs++;
			mark_ar(w, rel);
		}
		free(sub);
	}
	if (d)
		closedir(d);
	free(dir);
}

long kbuild_estimate_rebuild(const char *build_dir, const char *tree, const char *const *changed,
			     size_t nchanged)
{
	struct rebuild_walk w = { .tree = tree, .tree_len = strlen(tree) };
	long steps = 0;

	for (size_t i = 0; i < nchanged; i++)
		strmap_put(&w.changed, changed[i], 1);
	if (w.changed.n)
		walk_build(&w, build_dir, "", 0);
	/* nothing recompiles: make only checks, and no estimate is better than a wrong one */
	if (w.objs)
		steps = w.objs + (long)w.ar_dirs.n + KBUILD_RELINK_STEPS;
	strmap_clear(&w.changed);
	strmap_clear(&w.ar_dirs);
	return steps;
}
