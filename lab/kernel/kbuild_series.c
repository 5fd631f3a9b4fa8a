// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel's series applied to the shared work tree, one patch at a time
 * with git am (kbuild_apply_patch()), and what is said of a patch that
 * does not apply; the series' length and a prefix kernel's cut of it.
 */
#include "kbuild_priv.h"
#include "escape.h"
#include "fsutil.h"
#include "mbox.h"
#include "run_command.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	char *index_lock = xasprintf("%s/.git/index.lock", tree);
	int r = 0;

	/*
	 * A build killed inside a git command (kill -9 of a watch, a power
	 * cut) leaves git's index.lock, and every git command here then
	 * fails until someone removes it by hand: test 91's watch, killed as
	 * its bisection started, could not resume ("may have crashed in
	 * this repository earlier: remove the file manually", CI of
	 * 2026-12-07). The caller holds the cache's build.lock, under which
	 * no other git runs in this tree, so the file is a dead one's.
	 */
	if (unlink(index_lock) == 0)
		warning("%s: removed git's index.lock, left by a build that was killed", tree);
	free(index_lock);
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

	if (kbuild_stopped()) {
		/* git was killed by the stop: the patch is not to blame */
		/* the stop may kill this git too; the next build resets the tree first */
		LAB_IGNORE(reset_tree(b->sp, b->src.tree, &err));
		sb_release(&err);
		return kbuild_stopped_error(b);
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

int kbuild_apply_series(struct build_ctx *b)
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
int kbuild_series_prefix(struct build_ctx *b, struct strbuf *err)
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
