// SPDX-License-Identifier: GPL-2.0
/* mglrulab kernel build | list | gc */
#include "cmd.h"
#include "xjson.h"
#include "config.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild.h"
#include "kcache.h"
#include "subreaper.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct kernel_opts {
	const char *config;
	int json;
	int dry_run;
	struct strvec names;
};

static const struct lab_option kernel_options[] = {
	CMD_OPT_CONFIG(struct kernel_opts, config),
	LAB_OPT_BOOL("json", 0, struct kernel_opts, json, "machine-readable output"),
	LAB_OPT_BOOL("dry-run", 0, struct kernel_opts, dry_run, "(gc) only say what would be removed"),
	LAB_OPT_END
};

static const char *const kernel_synopsis[] = {
	"mglrulab kernel build [-c FILE] [--json] [NAME | NAME@K ...]",
	"mglrulab kernel list  [-c FILE] [--json]",
	"mglrulab kernel gc    [-c FILE] [--dry-run]",
	NULL
};

const struct lab_usage kernel_usage = {
	.synopsis = kernel_synopsis,
	.description =
		"build  Build the named [kernel NAME] sections (default: all of them): prepare\n"
		"       the source (directory, .tar.* archive, or git repository plus ref) in a\n"
		"       lab-managed git tree, apply the series with git am, merge the config\n"
		"       base and fragments, verify every requested option, build bzImage out of\n"
		"       tree. Unchanged inputs are a cache hit. NAME@K is NAME after the first\n"
		"       K patches of its series, built in NAME's build folder (incrementally).\n"
		"       SIGINT/SIGTERM stop make and all it started; nothing is cached and the\n"
		"       exit status is 2.\n"
		"list   Show the cache entries.\n"
		"gc     Remove cache entries no kernel of the configuration resolves to, but\n"
		"       none that a running session, bisection or build holds. It waits for\n"
		"       a running build to end (build.lock).\n",
	.options = kernel_options,
};

static int kernel_build(struct lab_config *cfg, struct kernel_opts *o)
{
	json_t *out;
	int r = LAB_OK;

	/* From here on a signal stops make and all it started before build.lock is let go. */
	if (interrupt_catch())
		return lab_error("cannot set up signal handling: %s", strerror(errno));
	/*
	 * A stopped build's orphans (a compiler whose shell make's SIGTERM
	 * killed) come back here and are reaped at once: init took 1.3-2.0 s.
	 * Without it init reaps them: slower, as correct.
	 */
	if (subreaper_enable())
		debug("cannot become a subreaper: %s", strerror(errno));
	out = json_array();
	if (!o->names.n)
		for (size_t i = 0; i < cfg->nr_kernels; i++)
			strvec_push(&o->names, cfg->kernels[i].name);
	/* Resolved first: a prefix kernel (NAME@K) joins cfg->kernels, which may move. */
	for (size_t i = 0; i < o->names.n; i++) {
		struct strbuf err = STRBUF_INIT;
		if (!config_kernel_resolve(cfg, o->names.v[i], &err)) {
			r = user_error("kernel build: %s", sb_str(&err));
			sb_release(&err);
			json_decref(out);
			return r;
		}
		sb_release(&err);
	}
	/* With --json, stdout carries the JSON alone; progress goes to stderr. */
	int saved = -1;
	if (o->json) {
		fflush(stdout);
		saved = dup(1);
		dup2(2, 1);
	}
	for (size_t i = 0; i < o->names.n && !r; i++) {
		struct kbuild_result res;
		if (interrupted()) {
			r = lab_error("interrupted: stopped by signal %d before [kernel %s], nothing of it"
				      " cached", interrupted(), o->names.v[i]);
			break;
		}
		r = kbuild_kernel(cfg, config_kernel(cfg, o->names.v[i]), &res);
		if (!r)
			json_array_append_new(out, xjson_pack("{s:s, s:s, s:o, s:b, s:f, s:I}",
				"name", o->names.v[i], "key", res.key,
				"bzImage", json_string_lossy(res.bzimage),
				"cache_hit", res.cache_hit, "seconds", res.seconds,
				"image_size", (json_int_t)res.image_size));
		kbuild_result_release(&res);
	}
	if (saved >= 0) {
		fflush(stdout);
		dup2(saved, 1);
		close(saved);
	}
	if (!r && o->json) {
		char *text = json_dumps(out, JSON_INDENT(2));
		puts(text);
		free(text);
	}
	json_decref(out);
	return r;
}

/* Entries in the cache, each with its meta.json (NULL when unreadable). */
static json_t *load_entries(const char *cache_dir)
{
	char *dir = xasprintf("%s/entries", cache_dir);
	json_t *list = json_array();
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (strlen(de->d_name) != SHA256_HEX_LEN)
			continue;
		char *meta = xasprintf("%s/%s/meta.json", dir, de->d_name);
		json_t *m = json_load_file(meta, 0, NULL);
		/* Anyone may have made that folder: its name is any 64 bytes. */
		if (!json_is_object(m)) {
			json_decref(m);
			m = xjson_pack("{s:o, s:s}", "key", json_string_lossy(de->d_name),
				      "error", "meta.json unreadable");
		}
		json_object_set_new(m, "path", json_string_lossy(meta));
		/*
		 * The entry is its folder: gc removes entries/<key>, so the key
		 * must be the folder's name, never what a (possibly tampered)
		 * meta.json says — "../../.." would reach outside the cache.
		 */
		json_object_set_new(m, "key", json_string_lossy(de->d_name));
		json_array_append_new(list, m);
		free(meta);
	}
	if (d)
		closedir(d);
	free(dir);
	return list;
}

/* A cache entry: its folder's name (the key) and what its meta.json says. */
struct kentry {
	char *key;
	struct kcache_meta meta;	/* empty when unreadable */
};

/* The entries under @cache_dir/entries, in the order the folder lists them. */
static struct kentry *read_entries(const char *cache_dir, size_t *n)
{
	char *dir = xasprintf("%s/entries", cache_dir);
	struct kentry *v = NULL;
	size_t alloc = 0;
	DIR *d = opendir(dir);
	struct dirent *de;

	*n = 0;
	while (d && (de = readdir(d))) {
		struct strbuf err = STRBUF_INIT;
		char *edir;

		if (strlen(de->d_name) != SHA256_HEX_LEN)
			continue;
		ALLOC_GROW(v, *n + 1, alloc);
		/* The key is the folder's name, as load_entries() says why. */
		v[*n].key = xstrdup(de->d_name);
		edir = xasprintf("%s/%s", dir, de->d_name);
		/* An unreadable meta.json leaves the fields empty: listed as "?". */
		if (kcache_entry_meta(edir, &v[*n].meta, &err))
			sb_reset(&err);
		sb_release(&err);
		free(edir);
		(*n)++;
	}
	if (d)
		closedir(d);
	free(dir);
	return v;
}

static void kentries_free(struct kentry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].key);
		kcache_meta_release(&v[i].meta);
	}
	free(v);
}

static int kernel_list(struct lab_config *cfg, struct kernel_opts *o)
{
	struct kentry *list;
	size_t n;

	if (o->json) {
		json_t *all = load_entries(cfg->cache_dir);
		char *text = json_dumps(all, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(text);
		free(text);
		json_decref(all);
		return LAB_OK;
	}
	list = read_entries(cfg->cache_dir, &n);
	printf("%-12s  %-12s  %-20s  %8s  %s\n", "KEY", "NAME", "BUILT", "IMAGE", "SERIES");
	/* Subjects come from patches, the rest from meta.json files: filtered. */
	for (size_t i = 0; i < n; i++) {
		const struct kcache_meta *m = &list[i].meta;
		const char *first = m->subjects.n ? m->subjects.v[0] : NULL;

		term_printf(stdout, "%-12.12s  %-12s  %-20s  %7.1fM  %s%s\n", list[i].key,
			    m->name ?: "?", m->built_at ?: "?", m->image_size / 1048576.0,
			    first ? first : "(none)", m->subjects.n > 1 ? " ..." : "");
	}
	term_printf(stdout, "%zu entr%s in %s/entries\n", n, n == 1 ? "y" : "ies", cfg->cache_dir);
	kentries_free(list, n);
	return LAB_OK;
}

/*
 * gc never runs beside a build (it takes build.lock): an entry is held by
 * its build from the moment it is stored (kbuild.c), under that lock. It
 * removes no entry that is held (kcache.h): the kernels of running
 * sessions, the prefixes of running bisections. What a stopped session or
 * bisection used is not held: --resume builds it again if it is gone.
 */
static int kernel_gc(struct lab_config *cfg, struct kernel_opts *o)
{
	struct kentry *list;
	struct strvec keep = STRVEC_INIT;
	size_t i, n, removed = 0, kept = 0, in_use = 0;
	char key[SHA256_HEX_LEN + 1];
	int lock_fd = -1, r = LAB_OK;

	/* --dry-run removes nothing: it need not wait for a build. */
	if (!o->dry_run) {
		r = kbuild_lock(cfg->cache_dir, &lock_fd);
		if (r)
			return r;
	}
	list = read_entries(cfg->cache_dir, &n);
	/* Referenced: what a kernel of this configuration resolves to today. */
	for (size_t k = 0; k < cfg->nr_kernels; k++)
		if (!kbuild_lookup(cfg, &cfg->kernels[k], key))
			strvec_push(&keep, key);
	for (i = 0; i < n; i++) {
		const char *ek = list[i].key;
		const char *name = list[i].meta.name ?: "?";
		int referenced = 0;
		for (size_t k = 0; ek && k < keep.n; k++)
			referenced |= !strcmp(keep.v[k], ek);
		if (!ek || referenced) {
			kept++;
			continue;
		}
		char *dir = kcache_entry_dir(cfg->cache_dir, ek);
		int gone = kcache_entry_remove(dir, o->dry_run);
		if (gone == 1) {
			term_printf(stdout, "keeping %s (%s): in use by a running session, bisection"
				    " or build\n", dir, name);
			kept++;
			in_use++;
		} else if (gone < 0) {
			warning("cannot remove %s: %s", dir, strerror(errno));
			kept++;
		} else {
			term_printf(stdout, "%s %s (%s)\n", o->dry_run ? "would remove" : "removed",
				    dir, name);
			removed++;
		}
		free(dir);
	}
	if (!o->dry_run) {
		int swept = kcache_sweep(cfg->cache_dir);
		if (swept)
			printf("removed %d folder%s that killed builds or gc runs left in %s/entries\n",
			       swept, swept == 1 ? "" : "s", cfg->cache_dir);
	}
	printf("%zu entr%s %sremoved, %zu kept (%zu in use)\n", removed, removed == 1 ? "y" : "ies",
	       o->dry_run ? "would be " : "", kept, in_use);
	if (lock_fd >= 0)
		close(lock_fd);
	strvec_clear(&keep);
	kentries_free(list, n);
	return r;
}

int cmd_kernel(int argc, char **argv)
{
	struct kernel_opts o = { 0 };
	struct lab_config cfg;
	const char *sub = argc > 1 ? argv[1] : NULL;
	char what[32];
	int nargs, r;

	static const char *const subs[] = { "build", "list", "gc", NULL };
	enum { BUILD, LIST, GC } which = cmd_select(subs, sub);

	if ((int)which < 0) {
		/* -h, or no subcommand: the usage (an error without a subcommand) */
		r = lab_options_parse(&kernel_usage, "kernel", argc, argv, &o, &nargs);
		if (r)
			return cmd_status(r);
		if (!sub) {
			lab_usage_print(&kernel_usage);
			return LAB_EUSER;
		}
		return cmd_select_error("kernel", subs, sub);
	}
	snprintf(what, sizeof(what), "kernel %s", sub);
	argc--, argv++;		/* past the command: argv[0] is the subcommand */
	r = lab_options_parse(&kernel_usage, what, argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	for (int i = 0; i < nargs; i++)
		strvec_push(&o.names, argv[i]);
	r = config_load_or_report(cmd_config_path(o.config), &cfg);
	if (!r) {
		r = which == BUILD ? kernel_build(&cfg, &o) :
		    which == LIST ? kernel_list(&cfg, &o) : kernel_gc(&cfg, &o);
	}
	config_release(&cfg);
	strvec_clear(&o.names);
	return r;
}
