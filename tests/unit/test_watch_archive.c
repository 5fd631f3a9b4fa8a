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
#include "strbuf.h"
#include "util.h"
#include "watch_archive.h"
#include "watch_db.h"

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
	return watch_archive_scan(&f->db, f->archive, NOW, &f->stats, err);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_maildir_symlink_refused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
