// SPDX-License-Identifier: GPL-2.0
/*
 * A first build's step count, from the tree's Kbuild files and the config:
 * see kbuild_estimate.h for what counts and how close it comes.
 */
#include "kbuild_estimate.h"
#include "fsutil.h"
#include "strbuf.h"
#include "strmap.h"
#include "util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A Kbuild file is small: more than this is not one, and is not read. */
#define KBUILD_FILE_MAX		(1u << 20)
/* Folders a tree may have; a symlink loop or a crafted tree stops here. */
#define KBUILD_DIRS_MAX		20000
#define KBUILD_DEPTH_MAX	32

struct walk {
	const char *tree, *srcarch;
	struct strmap enabled;	/* CONFIG_X of the config that are =y */
	struct strmap seen;	/* folders already counted */
	long dirs, objs;
};

/* One assignment of a Kbuild file: "obj-$(CONFIG_MMU) += vmscan.o util/". */
struct assign {
	char *var;		/* "obj", or a composite object's name */
	char *rhs;
};

static int lhs_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_-.$()", c);
}

/* Whether CONFIG_X, the name in "$(CONFIG_X)" of @len bytes at @s, is =y. */
static int enabled(const struct walk *w, const char *s, size_t len)
{
	char *name = xstrndup(s, len);
	int on = strmap_get(&w->enabled, name, NULL);

	free(name);
	return on;
}

/*
 * Parse @line as VAR-SUFFIX [+:]= RHS, SUFFIX "y", "objs" or "$(CONFIG_X)"
 * with CONFIG_X enabled. 1 and @out filled, or 0 (not one, or disabled).
 */
static int parse_assign(const struct walk *w, const char *line, struct assign *out)
{
	const char *p = line + strspn(line, " \t"), *end = p, *op, *dash = NULL;

	while (lhs_char(*end))
		end++;
	op = end + strspn(end, " \t");
	if (!(op[0] == '=' || (strchr("+:", op[0]) && op[0] && op[1] == '=')))
		return 0;
	/* The suffix follows the last '-' outside "$(...)". */
	for (const char *q = p; q < end && *q != '$'; q++)
		if (*q == '-')
			dash = q;
	if (!dash || dash == p)
		return 0;
	if (end - dash == 2 && dash[1] == 'y') {
		/* built in */
	} else if (end - dash == 5 && !strncmp(dash + 1, "objs", 4)) {
		/* a composite's parts */
	} else if (end - dash > 4 && !strncmp(dash + 1, "$(", 2) && end[-1] == ')') {
		if (!enabled(w, dash + 3, (size_t)(end - 1 - (dash + 3))))
			return 0;
	} else {
		return 0;
	}
	out->var = xstrndup(p, (size_t)(dash - p));
	out->rhs = xstrdup(op + (op[0] == '=' ? 1 : 2));
	return 1;
}

/* "$(SRCARCH)" and "$(BITS)" in @tok, the only variables folders are named with. */
static char *expand(const struct walk *w, const char *tok)
{
	struct strbuf sb = STRBUF_INIT;

	while (*tok) {
		if (!strncmp(tok, "$(SRCARCH)", 10)) {
			sb_adds(&sb, w->srcarch);
			tok += 10;
		} else if (!strncmp(tok, "$(BITS)", 7)) {
			sb_adds(&sb, "64");
			tok += 7;
		} else {
			sb_addc(&sb, *tok++);
		}
	}
	return sb_detach(&sb);
}

static void walk_dir(struct walk *w, const char *dir, int depth);

/* The objects composite @name is made of, plus its own link; 1 for a plain object. */
static long object_steps(const struct assign *as, size_t n, const char *name)
{
	long parts = 0;
	int composite = 0;

	for (size_t i = 0; i < n; i++) {
		const char *p;

		if (strcmp(as[i].var, name))
			continue;
		composite = 1;
		for (p = as[i].rhs; *p; ) {
			size_t len;

			p += strspn(p, " \t");
			len = strcspn(p, " \t");
			if (len > 2 && !strncmp(p + len - 2, ".o", 2) && !memchr(p, '$', len) &&
			    (len != strlen(name) + 2 || strncmp(p, name, strlen(name))))
				parts++;
			p += len;
		}
	}
	return composite ? parts + 1 : 1;
}

/* Each token of a top-level assignment: a folder to descend into, or an object. */
static void count_tokens(struct walk *w, const char *dir, const char *rhs,
			 const struct assign *as, size_t n, int depth)
{
	for (const char *p = rhs; *p; ) {
		size_t len;

		p += strspn(p, " \t");
		len = strcspn(p, " \t");
		if (!len)
			break;
		char *raw = xstrndup(p, len), *tok = expand(w, raw);
		size_t tl = strlen(tok);

		p += len;
		if (strchr(tok, '$') || tok[0] == '/') {
			/* named through a variable, or outside the tree: not counted */
		} else if (tok[tl - 1] == '/') {
			char *sub;

			tok[tl - 1] = '\0';
			sub = strcmp(dir, ".") ? path_join(dir, tok) : xstrdup(tok);
			walk_dir(w, sub, depth + 1);
			free(sub);
		} else if (tl > 2 && !strcmp(tok + tl - 2, ".o")) {
			tok[tl - 2] = '\0';
			w->objs += object_steps(as, n, tok);
		}
		free(raw);
		free(tok);
	}
}

/* The folder's Kbuild, else its Makefile, with continuation lines joined. */
static int read_kbuild(const struct walk *w, const char *dir, struct strbuf *out)
{
	static const char *const names[] = { "Kbuild", "Makefile" };

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *path = xasprintf("%s/%s/%s", w->tree, dir, names[i]);
		/* Only a regular file: a FIFO planted in a tree must not stall the build. */
		int r = read_regular_file(path, out, KBUILD_FILE_MAX);

		free(path);
		if (!r) {
			for (char *p = out->buf; (p = strstr(p, "\\\n")); )
				p[0] = p[1] = ' ';
			return 0;
		}
		sb_reset(out);
	}
	return -1;
}

/* A folder that is a symlink may lead out of the tree: not followed. */
static int is_symlink_dir(const struct walk *w, const char *dir)
{
	char *path = xasprintf("%s/%s", w->tree, dir);
	struct stat st;
	int link = !lstat(path, &st) && S_ISLNK(st.st_mode);

	free(path);
	return link;
}

static int is_top_var(const char *var)
{
	static const char *const top[] = { "obj", "lib", "core", "drivers", "libs" };

	for (size_t i = 0; i < ARRAY_SIZE(top); i++)
		if (!strcmp(var, top[i]))
			return 1;
	return 0;
}

static void walk_dir(struct walk *w, const char *dir, int depth)
{
	struct strbuf text = STRBUF_INIT;
	struct assign *as = NULL;
	size_t n = 0;

	/* ".." would leave the tree; a folder counts once. */
	if (depth > KBUILD_DEPTH_MAX || w->seen.n >= KBUILD_DIRS_MAX || strstr(dir, "..") ||
	    strmap_get(&w->seen, dir, NULL))
		return;
	strmap_put(&w->seen, dir, 1);
	if (is_symlink_dir(w, dir) || read_kbuild(w, dir, &text))
		return;
	w->dirs++;
	for (char *line = text.buf, *next; line && *line; line = next) {
		struct assign a;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line[strcspn(line, "#")] = '\0';
		if (parse_assign(w, line, &a)) {
			as = xrealloc(as, (n + 1) * sizeof(*as));
			as[n++] = a;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (is_top_var(as[i].var))
			count_tokens(w, dir, as[i].rhs, as, n, depth);
	for (size_t i = 0; i < n; i++) {
		free(as[i].var);
		free(as[i].rhs);
	}
	free(as);
	sb_release(&text);
}

static void enabled_options(struct walk *w, const char *config_text)
{
	for (const char *p = config_text; p && *p; ) {
		size_t len = strcspn(p, "\n");
		const char *eq = memchr(p, '=', len);

		if (eq && !strncmp(p, "CONFIG_", 7) && eq + 2 == p + len && eq[1] == 'y') {
			char *name = xstrndup(p, (size_t)(eq - p));

			strmap_put(&w->enabled, name, 1);
			free(name);
		}
		p += len + (p[len] == '\n');
	}
}

long kbuild_estimate_steps(const char *tree, const char *config_text, const char *srcarch)
{
	struct walk w = { .tree = tree, .srcarch = srcarch };
	/* The top Kbuild names the rest; the arch's library and image folders are the arch Makefile's. */
	const char *const extra[] = { "lib", "arch/%s/lib", "arch/%s/boot", "arch/%s/boot/compressed" };
	long steps = 0;

	enabled_options(&w, config_text);
	walk_dir(&w, ".", 0);
	for (size_t i = 0; w.dirs && i < ARRAY_SIZE(extra); i++) {
		char *dir = xasprintf(extra[i], srcarch);

		walk_dir(&w, dir, 1);
		free(dir);
	}
	if (w.dirs)
		steps = w.objs + w.dirs + KBUILD_FIXED_STEPS;
	strmap_clear(&w.enabled);
	strmap_clear(&w.seen);
	return steps;
}
