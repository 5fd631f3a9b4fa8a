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
 */
#include "kbuild.h"
#include "xjson.h"
#include "escape.h"
#include "fsutil.h"
#include "interrupt.h"
#include "kbuild_mtime.h"
#include "kbuild_estimate.h"
#include "kcache.h"
#include "lockfile.h"
#include "ksource.h"
#include "mbox.h"
#include "run_command.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct build_ctx {
	const struct lab_config *cfg;
	const struct sandbox_policy *sp;	/* &cfg->sandbox: how the tree's code runs */
	const struct kernel_cfg *k;
	struct ksource src;
	struct strvec series_text;	/* contents of each series file */
	struct strvec fragment_text;
	char *config_base;		/* base name, or the base file's contents */
	char *compiler;
	char ikey[SHA256_HEX_LEN + 1];
	char key[SHA256_HEX_LEN + 1];
	char *build_dir;
	char *log;
	struct strvec subjects;		/* applied patches, for meta.json */
	char *prev_head;		/* where the shared tree was before this build */
	int series_cut;			/* a prefix kernel short of the series' end: */
	long prefix;			/* apply only this many patches */
	enum kbuild_failure failure;	/* what failed, for the result */
	struct strbuf why;		/* what may be said of it in public (kbuild.h) */
	char *head_commit;
	double t_unpack, t_apply, t_config, t_compile;
	/* progress */
	long steps, est_steps;		/* est_steps: settle_and_estimate()'s; 0: unknown */
	char *est_file;			/* where this build's count is kept for the next */
	const char *phase;
	double last_tick;
	int tty;
};

static void kbuild_info(struct build_ctx *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void kbuild_info(struct build_ctx *b, const char *fmt, ...)
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
static int build_stopped(void)
{
	return run_command_stopped_by() ?: interrupted();
}

/* Say the build was stopped (nothing of it is in the cache): LAB_ELAB. */
static int stopped_error(struct build_ctx *b)
{
	struct strbuf where = STRBUF_INIT;
	int r;

	if (b->build_dir)
		sb_addf(&where, "; the build folder %s keeps what was compiled, for the next build",
			b->build_dir);
	if (b->log)
		sb_addf(&where, " (log: %s)", b->log);
	r = lab_error("interrupted: [kernel %s] build stopped by signal %d, nothing cached%s",
		      b->k->name, build_stopped(), sb_str(&where));
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

/* The hunk header ("@@ -1138,7 +1138,8 @@ ...") of @file starting at @line. */
static char *find_hunk(const char *patch, const char *file, long line)
{
	char *marker = xasprintf("+++ b/%s\n", file);
	const char *s = strstr(patch, marker);
	char *want = xasprintf("@@ -%ld,", line);
	char *res = NULL;

	free(marker);
	for (; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL) {
		if (!strncmp(s, "diff --git ", 11))
			break;
		if (str_starts_with(s, want)) {
			res = xstrndup(s, strcspn(s, "\n"));
			break;
		}
	}
	free(want);
	return res;
}

/*
 * Turn git's "error: patch failed: FILE:LINE" lines into hunk descriptions;
 * without them, git's own error lines when @git_words (not in public: they
 * may name the lab's paths).
 */
static void describe_failure(const struct patch *p, const char *git_out, struct strbuf *msg,
			     int git_words)
{
	const char *key = "patch failed: ";
	int found = 0;

	for (const char *s = strstr(git_out, key); s; s = strstr(s + 1, key)) {
		const char *f = s + strlen(key);
		size_t len = strcspn(f, "\n");
		const char *colon = memrchr(f, ':', len);
		if (!colon)
			continue;
		char *file = xstrndup(f, (size_t)(colon - f));
		long line = strtol(colon + 1, NULL, 10);
		char *hunk = find_hunk(p->text, file, line);
		sb_addf(msg, "\n  hunk: %s at line %ld%s%s", file, line, hunk ? ": " : "",
			hunk ? hunk : "");
		free(hunk);
		free(file);
		found = 1;
	}
	if (!found && git_words) {
		/* Corrupt patch or the like: git's own words are the best we have. */
		for (const char *s = git_out; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
			if (str_starts_with(s, "error:") || str_starts_with(s, "fatal:"))
				sb_addf(msg, "\n  git: %.*s", (int)strcspn(s, "\n"), s);
	}
}

/*
 * Back to the unmodified source: 0, or -1 with the git command that failed
 * and its output in @err (a tree left half-patched must not be built).
 */
static LAB_MUST_CHECK int reset_tree(const struct sandbox_policy *sp, const char *tree,
				      struct strbuf *err)
{
	const char *abort_am[] = { "am", "--abort", NULL };
	const char *reset[] = { "reset", "-q", "--hard", NULL };
	const char *co[] = { "checkout", "-q", "-f", "--detach", "mglrulab-base", NULL };
	/* -x: ignored files too, so nothing a series left behind reaches the next build */
	const char *clean[] = { "clean", "-q", "-f", "-d", "-x", NULL };
	const char *const *steps[] = { abort_am, reset, co, clean };
	char *rebase_apply = xasprintf("%s/.git/rebase-apply", tree);
	int r = 0;

	/* git am --abort only when an am was left half done */
	for (size_t i = path_exists(rebase_apply) ? 0 : 1; i < ARRAY_SIZE(steps) && !r; i++) {
		struct strbuf out = STRBUF_INIT;

		r = ksource_git(sp, tree, steps[i], &out);
		if (r)
			sb_addf(err, "git %s %s: %s", steps[i][0], steps[i][1], sb_str(&out));
		sb_release(&out);
	}
	free(rebase_apply);
	return r ? -1 : 0;
}

/*
 * A mail goes to git am alone, in its own file, mboxrd-quoted: git's
 * mailsplit would otherwise cut it at any body line that looks like a From_
 * line to it ("From the numbers below, 12:30 09:00 2001"), and git am would
 * refuse a legitimate patch ("Patch is empty"). See mbox_quote_rd().
 */
int kbuild_apply_patch(const struct sandbox_policy *sp, const char *tree, const struct patch *p,
		       const char *tmpfile, struct strbuf *out)
{
	struct strbuf mail = STRBUF_INIT;
	int r, e;

	if (p->has_headers)
		mbox_quote_rd(&mail, p->text);
	else
		sb_adds(&mail, p->text);
	r = write_file_atomic(tmpfile, sb_str(&mail), mail.len);
	e = errno;
	sb_release(&mail);
	if (r) {
		sb_addf(out, "error: cannot write %s: %s\n", tmpfile, strerror(e));
		return -1;
	}
	if (p->has_headers) {
		/* on standard input: the file is the lab's, outside the sandbox's view */
		const char *am[] = { "am", "-q", "--no-3way", "--keep-cr",
				     "--patch-format=mboxrd", NULL };
		return ksource_git_in(sp, tree, am, tmpfile, out) ? -1 : 0;
	}
	/* A bare diff: apply it and name the commit after its file. */
	const char *apply[] = { "apply", "--index", NULL };
	if (ksource_git_in(sp, tree, apply, tmpfile, out))
		return -1;
	char *msg = xasprintf("%s (bare diff)", path_basename(p->file));
	const char *commit[] = { "commit", "-q", "--no-verify", "-m", msg, NULL };
	r = ksource_git(sp, tree, commit, out);
	free(msg);
	return r ? -1 : 0;
}

/* The work tree's HEAD into *@commit (new string), or the error, said. */
static int tree_head(const struct build_ctx *b, char **commit)
{
	const char *head[] = { "rev-parse", "HEAD", NULL };
	struct strbuf out = STRBUF_INIT;
	int r = LAB_OK;

	if (ksource_git(b->sp, b->src.tree, head, &out)) {
		r = lab_error("[kernel %s] git rev-parse HEAD in %s: %s", b->k->name, b->src.tree,
			      sb_str(&out));
	} else {
		sb_trim_trailing_newlines(&out);
		*commit = sb_detach(&out);
	}
	sb_release(&out);
	return r;
}

/*
 * Patch @p (number @nth) did not apply, git's output in @out: put the tree
 * back and say so, or that it could not be put back. The status.
 */
static int patch_failed(struct build_ctx *b, const struct patch *p, int nth, const char *label,
			const char *out)
{
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT;
	int r;

	if (build_stopped()) {
		/* git was killed by the stop: the patch is not to blame */
		/* the stop may kill this git too; the next build resets the tree first */
		LAB_IGNORE(reset_tree(b->sp, b->src.tree, &err));
		sb_release(&err);
		return stopped_error(b);
	}
	describe_failure(p, out, &msg, 1);
	b->failure = KBUILD_FAIL_APPLY;
	/* in public: the subject and the hunks, not the file's path on the lab's machine */
	sb_addf(&b->why, "patch %d of the series does not apply: \"", nth);
	sb_add_text_safe(&b->why, p->subject ? p->subject : "(no subject)");
	sb_adds(&b->why, "\"");
	describe_failure(p, out, &b->why, 0);
	if (reset_tree(b->sp, b->src.tree, &err))
		r = user_error("[kernel %s] patch %d of the series does not apply: %s%s\n"
			       "  and the work tree %s cannot be reset: %s",
			       b->k->name, nth, label, sb_str(&msg), b->src.tree, sb_str(&err));
	else
		r = user_error("[kernel %s] patch %d of the series does not apply: %s%s\n"
			       "  the work tree %s is back at the unmodified source",
			       b->k->name, nth, label, sb_str(&msg), b->src.tree);
	sb_release(&msg);
	sb_release(&err);
	return r;
}

static int apply_series(struct build_ctx *b)
{
	const struct kernel_cfg *k = b->k;
	struct patch_list pl = { 0 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	char *tmpfile = xasprintf("%s.patch", b->src.tree);
	double t0 = now_monotonic();
	int r, applied = 0;

	r = tree_head(b, &b->prev_head);
	if (r)
		goto out;
	if (reset_tree(b->sp, b->src.tree, &err)) {
		r = lab_error("[kernel %s] cannot reset the work tree %s: %s", k->name, b->src.tree,
			      sb_str(&err));
		goto out;
	}
	for (size_t i = 0; i < k->series.n; i++) {
		if (mbox_split(k->series.v[i], &pl, &err)) {
			r = user_error("[kernel %s] series: %s", k->name, sb_str(&err));
			goto out;
		}
	}
	for (size_t i = 0; i < pl.n && !r; i++) {
		const struct patch *p = &pl.v[i];
		char *label = patch_label(p);
		if (p->is_cover) {
			debug("skipping %s: %s", label, p->has_diff ? "cover letter" : "no diff");
			free(label);
			continue;
		}
		if (b->series_cut && applied == b->prefix) {
			free(label);
			break;
		}
		sb_reset(&out);
		if (!kbuild_apply_patch(b->sp, b->src.tree, p, tmpfile, &out)) {
			applied++;
			strvec_push(&b->subjects, p->subject ? p->subject : path_basename(p->file));
		} else {
			r = patch_failed(b, p, applied + 1, label, sb_str(&out));
		}
		free(label);
	}
	if (!r)
		r = tree_head(b, &b->head_commit);
	if (!r && applied)
		kbuild_info(b, "apply    %d patch%s with git am", applied, applied == 1 ? "" : "es");
out:
	unlink(tmpfile);
	free(tmpfile);
	patch_list_release(&pl);
	sb_release(&err);
	sb_release(&out);
	b->t_apply = now_monotonic() - t0;
	return r;
}

/*
 * @c (argv, env, output) in the sandbox: the source tree and what it
 * borrows read-only (an out-of-tree build writes nothing there), the build
 * folder, and @extra_rw (ccache's folder) writable. A wall limit that
 * stopped it is a failure of its own (KBUILD_FAIL_TIMEOUT).
 */
static int run_sandboxed(struct build_ctx *b, struct child *c, const char *extra_rw)
{
	struct strbuf err = STRBUF_INIT;
	const struct sandbox_bind extra = { .path = extra_rw, .writable = 1 };
	int timed_out, r;

	r = ksource_build_run(b->sp, b->src.tree, b->build_dir, extra_rw ? &extra : NULL, c,
			      &timed_out, &err);
	if (r < 0 && !build_stopped())
		lab_error("[kernel %s] %s", b->k->name, sb_str(&err));
	if (timed_out) {
		char wall[32];

		format_duration(wall, sizeof(wall), sandbox_wall_s(b->sp));
		b->failure = KBUILD_FAIL_TIMEOUT;
		sb_reset(&b->why);
		sb_addf(&b->why, "the build did not finish within %s (the lab's [lab] "
			"build_timeout) and was stopped", wall);
	}
	sb_release(&err);
	return r;
}

static int make_in(struct build_ctx *b, const char *const *targets, struct child *proto,
		   const char *extra_rw)
{
	struct strvec argv = STRVEC_INIT;
	struct child c = proto ? *proto : (struct child){ 0 };
	int r;

	strvec_pushv(&argv, (const char *const[]){ "make", "-C", b->src.tree, NULL });
	strvec_pushf(&argv, "O=%s", b->build_dir);
	strvec_pushv(&argv, targets);
	c.argv = (const char *const *)argv.v;
	if (!c.log_path)
		c.log_path = b->log;
	r = run_sandboxed(b, &c, extra_rw);
	strvec_clear(&argv);
	return r;
}

/*
 * A step of @kind failed: say so with the log's end (for whoever runs the
 * lab: it is their terminal), and keep what may be said in public, the
 * first error the log names inside the tree (kbuild_public_error()).
 */
static int fail_with_log(struct build_ctx *b, int status, enum kbuild_failure kind,
			 const char *what)
{
	struct strbuf tail = STRBUF_INIT;

	if (build_stopped())
		return stopped_error(b);
	if (b->failure != KBUILD_FAIL_TIMEOUT) {
		b->failure = kind;
		sb_reset(&b->why);
		kbuild_public_error(b->log, b->src.tree, b->build_dir, what, &b->why);
	}
	tail_lines(b->log, 20, &tail);
	error_status(status, "[kernel %s] %s; the log is %s, its last lines:\n%s", b->k->name,
		     what, b->log, sb_str(&tail));
	sb_release(&tail);
	return status;
}

/*
 * The lab's config fragments, as read for the cache key, copied into the
 * build folder: the sandbox sees that folder, not the lab's files. 0, or
 * -1 said.
 */
static int fragment_copies(struct build_ctx *b, struct strvec *copies)
{
	char *dir = xasprintf("%s/.mglrulab-fragments", b->build_dir);
	int r = 0;

	rm_rf(dir);
	if (mkdir_p(dir, 0755) || sandbox_give(b->sp, dir))
		r = -1;
	for (size_t i = 0; !r && i < b->fragment_text.n; i++) {
		char *path = xasprintf("%s/%zu-%s", dir, i, path_basename(b->k->fragments.v[i]));

		strvec_push(copies, path);
		r = write_file_atomic(path, b->fragment_text.v[i], strlen(b->fragment_text.v[i]));
		free(path);
	}
	if (r)
		lab_error("[kernel %s] cannot copy the config fragments into %s: %s", b->k->name, dir,
			  strerror(errno));
	free(dir);
	return r;
}

static int configure(struct build_ctx *b, struct strbuf *config_text)
{
	const struct kernel_cfg *k = b->k;
	char *dotconfig = xasprintf("%s/.config", b->build_dir);
	double t0 = now_monotonic();
	int r = LAB_OK;

	if (k->config[0] == '/') {
		/* a new file of the build user's, never written through what is there */
		unlink(dotconfig);
		if (copy_file(k->config, dotconfig, 0644) || sandbox_give(b->sp, dotconfig)) {
			r = lab_error("cannot copy %s to %s: %s", k->config, dotconfig, strerror(errno));
			goto out;
		}
	} else if (make_in(b, (const char *const[]){ k->config, NULL }, NULL, NULL)) {
		r = fail_with_log(b, LAB_ELAB, KBUILD_FAIL_CONFIG, "make tinyconfig/defconfig failed");
		goto out;
	}
	if (k->fragments.n) {
		struct strvec argv = STRVEC_INIT, copies = STRVEC_INIT;
		char *script = xasprintf("%s/scripts/kconfig/merge_config.sh", b->src.tree);
		int mr = fragment_copies(b, &copies);

		strvec_pushv(&argv, (const char *const[]){ script, "-m", "-O", b->build_dir, dotconfig,
							  NULL });
		strvec_pushv(&argv, (const char *const *)copies.v);
		/* in the build folder: the script makes its temporary files where it runs */
		struct child c = { .argv = (const char *const *)argv.v, .dir = b->build_dir,
				   .log_path = b->log };
		if (!mr)
			mr = run_sandboxed(b, &c, NULL);
		strvec_clear(&argv);
		strvec_clear(&copies);
		free(script);
		if (mr) {
			r = fail_with_log(b, LAB_ELAB, KBUILD_FAIL_CONFIG, "merge_config.sh failed");
			goto out;
		}
	}
	if (make_in(b, (const char *const[]){ "olddefconfig", NULL }, NULL, NULL)) {
		r = fail_with_log(b, LAB_ELAB, KBUILD_FAIL_CONFIG, "make olddefconfig failed");
		goto out;
	}
	if (read_file_beneath(b->build_dir, ".config", config_text, 16 << 20)) {
		r = lab_error("cannot read %s: %s", dotconfig, strerror(errno));
		goto out;
	}
	struct strbuf dropped = STRBUF_INIT;
	int bad = kconfig_verify((const char *const *)b->fragment_text.v, b->fragment_text.n,
				 sb_str(config_text), &dropped);
	if (bad) {
		b->failure = KBUILD_FAIL_CONFIG;
		sb_addf(&b->why, "Kconfig dropped %d option%s the lab's config fragments request "
			"(unmet dependencies?):\n%s", bad, bad == 1 ? "" : "s", sb_str(&dropped));
		r = user_error("[kernel %s] Kconfig dropped %d option%s the fragments request "
			       "(unmet dependencies?):\n%s  merged config: %s", k->name, bad,
			       bad == 1 ? "" : "s", sb_str(&dropped), dotconfig);
	}
	sb_release(&dropped);
out:
	b->t_config = now_monotonic() - t0;
	free(dotconfig);
	return r;
}

static void on_make_line(const char *line, void *data)
{
	struct build_ctx *b = data;

	/* Kbuild's quiet lines: "  CC      mm/vmscan.o", "  LD      vmlinux". */
	if (line[0] != ' ' || line[1] != ' ' || line[2] < 'A' || line[2] > 'Z')
		return;
	b->steps++;
	if (strstr(line, " vmlinux") && str_starts_with(line + 2, "LD"))
		b->phase = "link";
	else if (strstr(line, "bzImage"))
		b->phase = "image";
	double now = now_monotonic();
	if (lab_quiet || now - b->last_tick < (b->tty ? 0.25 : 30))
		return;
	b->last_tick = now;
	char msg[160];
	kbuild_progress_format(msg, sizeof(msg), b->steps, b->est_steps, now - b->t_compile);
	if (b->tty)
		printf("\r[%s] %-8s %s ", b->k->name, b->phase, msg);
	else
		printf("[%s] %-8s %s\n", b->k->name, b->phase, msg);
	fflush(stdout);
}

void kbuild_progress_format(char *buf, size_t len, long steps, long est, double elapsed)
{
	char el[32], eta[32];

	format_duration(el, sizeof(el), elapsed);
	if (est <= 0) {
		snprintf(buf, len, "%ld steps, %s", steps, el);
	} else if (steps < est) {
		/* Before the first step the rate is unknown: say so. */
		if (steps)
			format_duration(eta, sizeof(eta), elapsed / (double)steps * (double)(est - steps));
		snprintf(buf, len, "%ld/~%ld steps, %s, ETA %s", steps, est, el, steps ? eta : "?");
	} else {
		snprintf(buf, len, "%ld/~%ld steps, %s, past the estimate", steps, est, el);
	}
}

/*
 * The step count of the last build of a config, from scratch or on top of
 * an earlier build ("full", "incremental"): <cache>/steps/<config>-<kind>,
 * "STEPS SECONDS". Only an estimate: a lost or garbled file costs the ETA.
 */
static char *steps_file(const char *cache_dir, const char *config_text, int incremental)
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex_of(config_text, strlen(config_text), hex);
	return xasprintf("%s/steps/%.16s-%s", cache_dir, hex, incremental ? "incremental" : "full");
}

static long steps_get(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	long n = 0;

	if (!read_file(path, &sb, 256) && sscanf(sb_str(&sb), "%ld", &n) != 1)
		n = 0;
	sb_release(&sb);
	return n > 0 ? n : 0;
}

static void steps_put(const char *path, long steps, double seconds)
{
	char *dir = path_dirname(path);
	char *text = xasprintf("%ld %.1f\n", steps, seconds);

	if (mkdir_p(dir, 0755) || write_file_atomic(path, text, strlen(text)))
		debug("cannot record the step count in %s: %s", path, strerror(errno));
	free(text);
	free(dir);
}

static long cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? n : 1;
}

static int compile(struct build_ctx *b)
{
	long jobs = b->cfg->jobs ? b->cfg->jobs : cpu_count();
	struct strvec targets = STRVEC_INIT, env = STRVEC_INIT;
	int r;

	strvec_pushf(&targets, "-j%ld", jobs);
	/* Fixed build stamps: the same inputs give the same image. */
	strvec_push(&env, "KBUILD_BUILD_TIMESTAMP=Thu Jan  1 00:00:00 UTC 1970");
	strvec_push(&env, "KBUILD_BUILD_USER=mglrulab");
	strvec_push(&env, "KBUILD_BUILD_HOST=mglrulab");
	strvec_push(&env, "KBUILD_BUILD_VERSION=1");
	/*
	 * Off by default: on a cold cache it made kernel objects about 23%
	 * slower here (it preprocesses each file twice), and the work tree's
	 * per-folder timestamps already make rebuilds incremental.
	 */
	int use_ccache = !strcmp(b->cfg->ccache, "yes") && program_in_path("ccache");
	char *ccache_dir = NULL;
	if (!strcmp(b->cfg->ccache, "yes") && !use_ccache)
		warning("[lab] ccache = yes but ccache is not installed: building without it");
	if (use_ccache) {
		const char *env_dir = getenv("CCACHE_DIR");

		ccache_dir = env_dir && *env_dir ? xstrdup(env_dir) :
			     xasprintf("%s/ccache", b->cfg->cache_dir);
		/* the sandbox writes it: the build user's, and in its reach */
		if (mkdir_p(ccache_dir, 0755) || sandbox_adopt(b->sp, ccache_dir, &b->why) < 0) {
			warning("[kernel %s] ccache's folder %s: %s; building without it", b->k->name,
				ccache_dir, b->why.len ? sb_str(&b->why) : strerror(errno));
			sb_reset(&b->why);
			free(ccache_dir);
			ccache_dir = NULL;
			use_ccache = 0;
		} else {
			strvec_push(&targets, "CC=ccache gcc");
			strvec_pushf(&env, "CCACHE_DIR=%s", ccache_dir);
		}
	}
	strvec_push(&targets, "bzImage");
	b->tty = isatty(1);
	b->phase = "compile";
	b->steps = 0;
	b->t_compile = now_monotonic();
	b->last_tick = b->t_compile;
	kbuild_info(b, "compile  make -j%ld bzImage%s", jobs, use_ccache ? " (ccache)" : "");
	struct child c = { .env = (const char *const *)env.v, .log_path = b->log,
			   .on_line = on_make_line, .data = b, .merge_stderr = 1 };
	r = make_in(b, (const char *const *)targets.v, &c, ccache_dir);
	free(ccache_dir);
	if (b->tty && !lab_quiet)
		printf("\r\033[K");
	b->t_compile = now_monotonic() - b->t_compile;
	strvec_clear(&targets);
	strvec_clear(&env);
	if (r) {
		return fail_with_log(b, LAB_ELAB, KBUILD_FAIL_COMPILE, "the kernel build failed");
	}
	if (b->est_file)
		steps_put(b->est_file, b->steps, b->t_compile);
	return LAB_OK;
}

/*
 * A folder seeded from a sibling carries this file until its own build
 * completes. Such a folder is no seed for others: its state file is the
 * sibling's, but its .config or objects may be anything (a config check
 * that failed, an interrupted build), and copies keep the sibling's
 * timestamps, so nothing else tells them apart.
 */
#define SEEDED_MARK ".mglrulab-seeded"

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

/* Patch subjects may be Latin-1 (mail is old): kept, with U+FFFD for bad bytes. */
static json_t *strvec_to_json(const struct strvec *sv)
{
	json_t *a = json_array();

	for (size_t i = 0; i < sv->n; i++)
		json_array_append_new(a, json_string_lossy(sv->v[i]));
	return a;
}

static json_t *files_json(const struct strvec *paths, const struct strvec *texts)
{
	json_t *a = json_array();
	char hex[SHA256_HEX_LEN + 1];

	for (size_t i = 0; i < paths->n; i++) {
		sha256_hex_of(texts->v[i], strlen(texts->v[i]), hex);
		json_array_append_new(a, xjson_pack("{s:o, s:s}", "file", json_string_lossy(paths->v[i]),
						   "sha256", hex));
	}
	return a;
}

static json_t *opt_string_lossy(const char *s)
{
	return s ? json_string_lossy(s) : json_null();
}

static const char *kind_name(enum source_kind k)
{
	return k == SOURCE_ARCHIVE ? "archive" : k == SOURCE_GIT ? "git" : "directory";
}

json_t *kbuild_meta_json(const struct kbuild_meta *m, json_error_t *jerr)
{
	const struct ksource *src = m->src;

	/*
	 * Every string that comes from outside (paths, the ref, the compiler's
	 * banner, patch subjects) goes in lossily: jansson refuses invalid
	 * UTF-8, and a NULL here would throw away a whole kernel build.
	 */
	return json_pack_ex(jerr, 0,
		"{s:s, s:s, s:s, s:o, s:{s:s, s:o, s:o, s:o, s:o}, s:o, s:o, s:o, s:o, s:s, s:o,"
		" s:o, s:{s:f, s:f, s:f, s:f}, s:{s:I}, s:s, s:s, s:o, s:o}",
		"schema", KCACHE_VERSION, "key", m->key, "input_key", m->input_key,
		"name", json_string_lossy(m->name),
		"source", "kind", kind_name(src->kind), "path", json_string_lossy(src->path),
		"id", json_string_lossy(src->id), "ref", opt_string_lossy(src->ref),
		"commit", opt_string_lossy(src->commit),
		"series", files_json(m->series, m->series_text),
		"subjects", strvec_to_json(m->subjects),
		"config_base", json_string_lossy(m->config_base),
		"fragments", files_json(m->fragments, m->fragment_text),
		"config_sha256", m->config_sha256, "compiler", json_string_lossy(m->compiler),
		"head_commit", opt_string_lossy(m->head_commit),
		"seconds", "unpack", m->t_unpack, "apply", m->t_apply, "configure", m->t_config,
		"compile", m->t_compile,
		"sizes", "bzImage", (json_int_t)m->image_size, "bzImage_sha256", m->image_sha256,
		"built_at", m->built_at, "tree", json_string_lossy(src->tree),
		"build_dir", json_string_lossy(m->build_dir));
}

static int store_entry(struct build_ctx *b, const char *config_text)
{
	const char *cache = b->cfg->cache_dir;
	char *entry = kcache_entry_dir(cache, b->key);
	char *tmp = xasprintf("%s.tmp.%ld", entry, (long)getpid());
	char stamp[32], cfg_hex[SHA256_HEX_LEN + 1];
	int r = LAB_OK;
	static const struct { const char *from, *to; } files[] = {
		{ "arch/x86/boot/bzImage", "bzImage" }, { ".config", "config" },
		{ "System.map", "System.map" },
	};

	rm_rf(tmp);
	if (mkdir_new(tmp, 0755)) {
		r = lab_error("cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *from = xasprintf("%s/%s", b->build_dir, files[i].from);
		char *to = xasprintf("%s/%s", tmp, files[i].to);
		/* the sandbox wrote the folder: a link there could name any host file */
		int cr = copy_file_beneath(b->build_dir, files[i].from, to, 0644);
		if (cr)
			r = lab_error("cannot copy %s to the cache: %s", from, strerror(errno));
		free(from);
		free(to);
		if (r)
			goto out;
	}
	char *log_copy = xasprintf("%s/build.log", tmp);
	/* the log only explains the entry: without it the entry still holds */
	if (copy_file(b->log, log_copy, 0644))
		warning("cannot copy %s to the cache: %s", b->log, strerror(errno));
	free(log_copy);

	char *img = xasprintf("%s/bzImage", tmp);
	long long size = file_size(img);
	char img_hex[SHA256_HEX_LEN + 1];
	int hr = sha256_file_hex(img, img_hex);
	if (hr)
		r = lab_error("cannot hash %s: %s", img, strerror(errno));
	free(img);
	if (hr)
		goto out;
	iso8601_now(stamp);
	sha256_hex_of(config_text, strlen(config_text), cfg_hex);
	struct kbuild_meta m = {
		.key = b->key, .input_key = b->ikey, .name = b->k->name, .src = &b->src,
		.series = &b->k->series, .series_text = &b->series_text, .subjects = &b->subjects,
		.fragments = &b->k->fragments, .fragment_text = &b->fragment_text,
		.config_base = b->k->config, .config_sha256 = cfg_hex, .compiler = b->compiler,
		.head_commit = b->head_commit, .t_unpack = b->t_unpack, .t_apply = b->t_apply,
		.t_config = b->t_config, .t_compile = b->t_compile, .image_size = size,
		.image_sha256 = img_hex, .built_at = stamp, .build_dir = b->build_dir,
	};
	json_error_t jerr;
	json_t *meta = kbuild_meta_json(&m, &jerr);
	char *text = meta ? json_dumps(meta, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
	char *meta_path = xasprintf("%s/meta.json", tmp);
	if (!text)
		r = lab_error("cannot encode %s: %s", meta_path, meta ? "out of memory" : jerr.text);
	else if (write_file_atomic(meta_path, text, strlen(text)))
		r = lab_error("cannot write %s: %s", meta_path, strerror(errno));
	free(meta_path);
	free(text);
	json_decref(meta);
	if (r)
		goto out;
	rm_rf(entry);	/* an incomplete entry left by a crash */
	if (rename(tmp, entry))
		r = lab_error("cannot move %s to %s: %s", tmp, entry, strerror(errno));
out:
	if (r)
		rm_rf(tmp);
	free(tmp);
	free(entry);
	return r;
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

/* The patches of the series, cover letters not counted; -1 with @err on a bad file. */
static long count_patches(const struct kernel_cfg *k, struct strbuf *err)
{
	struct patch_list pl = { 0 };
	long n = 0;

	for (size_t i = 0; i < k->series.n; i++)
		if (mbox_split(k->series.v[i], &pl, err)) {
			patch_list_release(&pl);
			return -1;
		}
	for (size_t i = 0; i < pl.n; i++)
		n += !pl.v[i].is_cover;
	patch_list_release(&pl);
	return n;
}

long kbuild_series_length(const struct kernel_cfg *k, struct strbuf *err)
{
	return count_patches(k, err);
}

/*
 * A prefix kernel NAME@K: K patches of N. K = N is NAME itself (the same
 * inputs, the same cache entry); K > N is an error.
 */
static int series_prefix(struct build_ctx *b, struct strbuf *err)
{
	const struct kernel_cfg *k = b->k;
	struct strbuf why = STRBUF_INIT;
	long n = count_patches(k, &why);

	if (n < 0) {
		sb_addf(err, "series: %s", sb_str(&why));
	} else if (k->prefix > n) {
		sb_addf(err, "the series of [kernel %s] has %ld patch%s, not %ld", k->prefix_of, n,
			n == 1 ? "" : "es", k->prefix);
		n = -1;
	} else {
		b->series_cut = k->prefix < n;
		b->prefix = k->prefix;
	}
	sb_release(&why);
	return n < 0 ? -1 : 0;
}

static int identify(struct build_ctx *b)
{
	struct strbuf err = STRBUF_INIT;
	struct kcache_inputs in = { 0 };
	int r = ksource_identify(b->cfg->cache_dir, b->k->source, b->k->ref, &b->src, &err);

	if (!r && read_inputs(b, &err))
		r = LAB_EUSER;
	if (!r && b->k->prefix_of && series_prefix(b, &err))
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

/*
 * Before make: the files git changed since the folder's last build get
 * stamps make sees as new, and the step count for the progress: an
 * incremental build's from what depends on those files
 * (kbuild_estimate_rebuild(): the last build of this config took 31 steps
 * or 1,500, depending on the series); else the step count of the last
 * build like this one (full or incremental, for @config_text); a first
 * full build of the config gets kbuild_estimate_steps()'s.
 */
static void settle_and_estimate(struct build_ctx *b, const char *config_text)
{
	char *built_at = kbuild_state_read(b->build_dir);
	char *state_file = xasprintf("%s/.mglrulab-state", b->build_dir);
	struct stat state_st;
	/* The state file is written when a build completes (copies keep its stamp). */
	time_t built_time = stat(state_file, &state_st) ? 0 : state_st.st_mtime;
	struct strvec renewed = STRVEC_INIT;
	int stamped;

	free(state_file);
	stamped = kbuild_settle_mtimes(b->sp, b->src.tree, b->prev_head, b->head_commit, built_at,
				       built_time, &renewed);
	debug("settled the stamps of %d files for %s", stamped, b->build_dir);
	b->est_file = steps_file(b->cfg->cache_dir, config_text, built_at != NULL);
	if (stamped >= 0 && renewed.n) {
		char *seeded = xasprintf("%s/" SEEDED_MARK, b->build_dir);

		b->est_steps = kbuild_estimate_rebuild(b->build_dir, b->src.tree,
						       (const char *const *)renewed.v, renewed.n);
		if (b->est_steps && !access(seeded, F_OK))
			b->est_steps += KBUILD_SEEDED_STEPS;
		debug("%zu files changed since %s's last build: ~%ld steps from its dependency lists",
		      renewed.n, b->build_dir, b->est_steps);
		free(seeded);
	}
	strvec_clear(&renewed);
	if (!b->est_steps)
		b->est_steps = steps_get(b->est_file);
	/* A first build of this config: the total from the tree, so a newcomer sees an ETA too. */
	if (!b->est_steps && !built_at) {
		b->est_steps = kbuild_estimate_steps(b->src.tree, config_text, "x86");
		debug("no earlier build of this config: ~%ld steps, estimated from %s's Kbuild files",
		      b->est_steps, b->src.tree);
	}
	free(built_at);
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
	if (r && build_stopped())
		r = stopped_error(b);
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
	if (build_stopped()) {
		r = stopped_error(&b);
		goto out;
	}
	r = apply_series(&b);
	if (r)
		goto out;
	r = configure(&b, &config_text);
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
	settle_and_estimate(&b, sb_str(&config_text));
	r = compile(&b);
	if (r)
		goto out;
	mark_built(&b);
	/* Stopped after make ended: the folder is built, the cache is not told. */
	if (build_stopped()) {
		r = stopped_error(&b);
		goto out;
	}
	r = store_entry(&b, sb_str(&config_text));
	if (r)
		goto out;
	if (kcache_index_put(cfg->cache_dir, b.ikey, b.key))
		warning("cannot record the input key in %s/index", cfg->cache_dir);
	/* Under build.lock: gc cannot remove it before it is held. */
	if (!take_entry(&b, res, 0, t0))
		r = lab_error("[kernel %s] %s/entries/%s is not complete right after it was stored",
			      k->name, cfg->cache_dir, b.key);
out:
	if (r && b.failure && !build_stopped()) {
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
