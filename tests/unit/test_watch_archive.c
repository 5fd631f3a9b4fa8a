// SPDX-License-Identifier: GPL-2.0
/*
 * `mglrulab watch`'s archive reader (watch_archive.c) facing a hostile
 * archive: a maildir whose files are symbolic links (refused for good, not
 * followed), and public-inbox epochs that try to make git run a command
 * or read too much. Each test works in its own folder under /tmp, removed
 * afterwards.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fsutil.h"
#include "ksource.h"
#include "run_command.h"
#include "strbuf.h"
#include "util.h"
#include "watch_archive.h"
#include "watch_db.h"
#include "watch_msg.h"

#define NOW	((time_t)1700000000)

struct fx {
	char dir[64];
	char *archive;
	struct watch_db db;
	struct watch_scan_stats stats;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct strbuf err = STRBUF_INIT;
	char *path;

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/mglrulab-test-watcharch-XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	f->archive = xasprintf("%s/archive", f->dir);
	path = xasprintf("%s/%s", f->dir, WATCH_DB_FILE);
	if (watch_db_open(path, &f->db, &err)) {
		fprintf(stderr, "watch_db_open: %s\n", sb_str(&err));
		rm_rf(f->dir);
		free(f->archive);
		free(f);
		f = NULL;
	}
	free(path);
	sb_release(&err);
	*state = f;
	return f ? 0 : -1;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	watch_db_close(&f->db);
	rm_rf(f->dir);
	free(f->archive);
	free(f);
	return 0;
}

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static const char mail[] =
	"From: Ann <ann@example.org>\nMessage-ID: <one@x>\nSubject: [PATCH] mm: one\n\n"
	"body\n---\ndiff --git a/mm/x.c b/mm/x.c\n--- a/mm/x.c\n+++ b/mm/x.c\n"
	"@@ -1 +1 @@\n-a\n+b\n";

/* Scan the archive; watch_archive_scan()'s result, its message into @err. */
static int scan(struct fx *f, struct strbuf *err)
{
	memset(&f->stats, 0, sizeof(f->stats));
	return watch_archive_scan(&f->db, f->archive, 0, NOW, &f->stats, err);
}

/* The reason `rejected` holds for @key; NULL when none. */
static char *rejected_reason(struct fx *f, const char *key)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;

	assert_int_equal(sqlite3_prepare_v2(f->db.db, "SELECT reason FROM rejected WHERE key = ?",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		out = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

/*
 * A maildir file that is a symbolic link (to a mail, as it happens: it
 * could name any file of the host) is refused for good with its reason,
 * never read and never left for the next scan to try again.
 */
static void test_maildir_symlink_refused(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *sub, *target, *link, *why;

	assert_int_equal(mkdir(f->archive, 0700), 0);
	for (int i = 0; i < 3; i++) {
		sub = xasprintf("%s/%s", f->archive, (const char *[]){ "cur", "new", "tmp" }[i]);
		assert_int_equal(mkdir(sub, 0700), 0);
		free(sub);
	}
	target = xasprintf("%s/outside.eml", f->dir);
	write_text(target, mail);
	link = xasprintf("%s/new/1700000000.1.host", f->archive);
	assert_int_equal(symlink(target, link), 0);

	assert_int_equal(scan(f, &err), 0);
	assert_int_equal(f->stats.read, 0);
	assert_int_equal(f->stats.deferred, 0);
	assert_int_equal(f->stats.rejected, 1);
	why = rejected_reason(f, "new/1700000000.1.host");
	assert_non_null(why);
	assert_non_null(strstr(why, "symbolic link"));
	free(why);

	/* for good: the next scan does not look at it again */
	assert_int_equal(scan(f, &err), 0);
	assert_int_equal(f->stats.rejected, 0);
	assert_int_equal(f->stats.deferred, 0);
	sb_release(&err);
	free(target);
	free(link);
}

/* ------------------------------------------------------------------ */
/* public-inbox epochs                                                */
/* ------------------------------------------------------------------ */

/*
 * git on @gd (NULL: none) with the NULL-terminated arguments after @in,
 * stdin the text @in (NULL: none); its stdout, trimmed, to free. Must
 * succeed.
 */
static char *git(const char *gd, const char *in, ...)
{
	struct strvec argv = STRVEC_INIT;
	struct strbuf out = STRBUF_INIT;
	char tmp[] = "/tmp/mglrulab-test-watcharch-in-XXXXXX";
	struct child c = { .env = lab_git_env, .out = &out, .null_stdout = 1 };
	const char *a;
	va_list ap;
	int r;

	strvec_push(&argv, "git");
	if (gd)
		strvec_pushf(&argv, "--git-dir=%s", gd);
	va_start(ap, in);
	while ((a = va_arg(ap, const char *)))
		strvec_push(&argv, a);
	va_end(ap);
	if (in) {
		int fd = mkstemp(tmp);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, in, strlen(in)), (ssize_t)strlen(in));
		close(fd);
		c.stdin_path = tmp;
	}
	c.argv = (const char *const *)argv.v;
	r = run_command(&c);
	if (in)
		unlink(tmp);
	if (r)
		fail_msg("git %s: status %d", argv.v[gd ? 2 : 1], r);
	strvec_clear(&argv);
	sb_trim_trailing_newlines(&out);
	return sb_detach(&out);
}

/* A new epoch archive/git/0.git; its path, to free. */
static char *new_epoch(struct fx *f)
{
	char *gd = xasprintf("%s/git/0.git", f->archive);

	assert_int_equal(mkdir_p(gd, 0755), 0);
	free(git(NULL, NULL, "init", "-q", "--bare", gd, NULL));
	return gd;
}

/*
 * Commit on HEAD of @gd (its one branch) a tree of one entry "m", @entry
 * ("100644 blob HEX", "040000 tree HEX"), which may be @missing.
 */
static void commit_entry(const char *gd, const char *entry, int missing)
{
	char *line = xasprintf("%s\tm\n", entry);
	char *tree = git(gd, line, "mktree", missing ? "--missing" : NULL, NULL);
	char *head = git(gd, NULL, "for-each-ref", "--format=%(objectname)", "refs/heads/", NULL);
	char *c = *head ? git(gd, NULL, "commit-tree", "-p", head, "-m", "mail", tree, NULL) :
		  git(gd, NULL, "commit-tree", "-m", "mail", tree, NULL);

	free(git(gd, NULL, "update-ref", "HEAD", c, NULL));
	free(line);
	free(tree);
	free(head);
	free(c);
}

/* Commit the mail @text as "m" on HEAD of @gd. */
static void commit_mail(const char *gd, const char *text)
{
	char *blob = git(gd, text, "hash-object", "-w", "--stdin", NULL);
	char *entry = xasprintf("100644 blob %s", blob);

	commit_entry(gd, entry, 0);
	free(entry);
	free(blob);
}

/*
 * An epoch whose config names commands: a promisor remote at
 * "ext::SCRIPT" with protocol.ext.allow = always (git fetches a missing
 * object from it: this ran SCRIPT as the lab), an fsmonitor, a pager,
 * hooks and a filter, all the same script, which leaves a file when it
 * runs. The scan reads the mail that is there, passes over the commit
 * whose tree is missing, and the script never runs.
 */
static void test_epoch_config_runs_nothing(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *gd = new_epoch(f);
	char *script = xasprintf("%s/evil.sh", f->dir);
	char *marker = xasprintf("%s/PWNED", f->dir);
	char *text = xasprintf("#!/bin/sh\ntouch %s\n", marker);
	char *ext = xasprintf("ext::%s %%S", script);
	char *hooks = xasprintf("%s/hooks", f->dir);
	static const char *const hook_names[] = { "reference-transaction", "post-checkout",
						  "pre-auto-gc", "post-index-change" };

	write_text(script, text);
	assert_int_equal(chmod(script, 0755), 0);
	assert_int_equal(mkdir(hooks, 0755), 0);
	for (size_t i = 0; i < ARRAY_SIZE(hook_names); i++) {
		char *h = xasprintf("%s/%s", hooks, hook_names[i]);

		assert_int_equal(symlink(script, h), 0);
		free(h);
	}
	commit_mail(gd, mail);
	commit_entry(gd, "100644 blob 1111111111111111111111111111111111111111", 1);
	{
		const char *const kv[][2] = {
			{ "core.repositoryformatversion", "1" },
			{ "extensions.partialClone", "origin" },
			{ "remote.origin.promisor", "true" },
			{ "remote.origin.url", ext },
			{ "remote.origin.uploadpack", script },
			{ "protocol.ext.allow", "always" },
			{ "protocol.file.allow", "always" },
			{ "protocol.allow", "always" },
			{ "core.fsmonitor", script },
			{ "core.pager", script },
			{ "pager.cat-file", script },
			{ "core.hooksPath", hooks },
			{ "core.alternateRefsCommand", script },
			{ "filter.evil.smudge", script },
			{ "filter.evil.process", script },
			{ "gc.auto", "1" },
		};

		for (size_t i = 0; i < ARRAY_SIZE(kv); i++)
			free(git(gd, NULL, "config", kv[i][0], kv[i][1], NULL));
	}

	/* (a commit whose "m" cannot be found though the commit is there is a deletion) */
	if (scan(f, &err))
		fail_msg("scan: %s", sb_str(&err));
	assert_int_equal(f->stats.read, 1);
	if (access(marker, F_OK) == 0)
		fail_msg("the epoch's config ran %s", script);
	sb_release(&err);
	free(gd);
	free(script);
	free(marker);
	free(text);
	free(ext);
	free(hooks);
}

/*
 * A mail larger than WATCH_MSG_MAX_BYTES and an "m" that is a tree: both
 * refused with their reason, before they are read (the size comes from
 * `cat-file --batch-check`), and the scan goes on past them. A tree
 * used to stop the scan at that commit for good ("cannot read the mail").
 */
static void test_epoch_mail_too_big_or_not_blob(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT, big = STRBUF_INIT;
	char *gd = new_epoch(f), *tree, *entry, *why, *c1, *c2, *k1, *k2;

	sb_adds(&big, mail);
	while (big.len <= WATCH_MSG_MAX_BYTES)
		sb_adds(&big, "+ a line of a very large patch, to make the mail too big\n");
	commit_mail(gd, big.buf);
	c1 = git(gd, NULL, "rev-parse", "HEAD", NULL);
	tree = git(gd, "", "mktree", NULL);
	entry = xasprintf("040000 tree %s", tree);
	commit_entry(gd, entry, 0);
	c2 = git(gd, NULL, "rev-parse", "HEAD", NULL);
	commit_mail(gd, mail);

	assert_int_equal(scan(f, &err), 0);
	assert_int_equal(f->stats.read, 1);
	assert_int_equal(f->stats.rejected, 2);
	k1 = xasprintf("%s:m", c1);
	k2 = xasprintf("%s:m", c2);
	why = rejected_reason(f, k1);
	assert_non_null(why);
	assert_non_null(strstr(why, "more than"));
	free(why);
	why = rejected_reason(f, k2);
	assert_non_null(why);
	assert_non_null(strstr(why, "not a file"));
	free(why);
	sb_release(&err);
	sb_release(&big);
	free(gd);
	free(tree);
	free(entry);
	free(c1);
	free(c2);
	free(k1);
	free(k2);
}

/*
 * An epoch owned by another user is refused, named, with the reason:
 * git does not check the owner of a --git-dir it is given, and would
 * run that user's repository config as the lab's user. (Needs root, to
 * give the folder away.)
 */
static void test_epoch_other_owner(void **state)
{
	struct fx *f = *state;
	struct strbuf err = STRBUF_INIT;
	char *gd;

	if (geteuid() != 0)
		skip();
	gd = new_epoch(f);
	commit_mail(gd, mail);
	assert_int_equal(chown(gd, 65534, 65534), 0);
	assert_int_equal(scan(f, &err), -1);
	if (!strstr(sb_str(&err), gd) || !strstr(sb_str(&err), "owned by uid 65534"))
		fail_msg("the error '%s' does not name %s and its owner", sb_str(&err), gd);
	assert_int_equal(f->stats.read, 0);
	assert_int_equal(chown(gd, 0, 0), 0);
	sb_release(&err);
	free(gd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_maildir_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epoch_config_runs_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_epoch_mail_too_big_or_not_blob, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_epoch_other_owner, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
