// SPDX-License-Identifier: GPL-2.0
/* Partial rerolls: watch_reroll.h. */
#include "watch_reroll.h"
#include "watch_series.h"

#include <stdlib.h>
#include <string.h>

int watch_reroll_root(struct watch_db *w, const char *msgid, const char *in_reply_to,
		      int version, int k, int n, const char *from, long *older, char **root,
		      struct strbuf *err)
{
	sqlite3_stmt *st;
	char *a = NULL, *b = NULL;
	int r;

	*older = 0;
	*root = NULL;
	if (k < 1 || !in_reply_to)
		return 0;
	/*
	 * The series rerolled is the parent's, or the newest reroll of it
	 * (down the chain, 8 deep) older than this patch: v4's 1/3 answering
	 * v2's 1/3, which a v3 of patch 2 took over, rerolls v3 (b4 rebuilds
	 * v3 first).
	 */
	st = watch_db_prepare(w, "WITH RECURSIVE p(series_id, from_addr) AS (SELECT series_id,"
			      " from_addr FROM messages WHERE message_id = ?1 AND is_patch AND k = ?3"
			      " AND n = ?4 AND version < ?2 AND series_id > 0),"
			      " fam(id, version, d) AS (SELECT s.id, s.version, 0 FROM p"
			      "  JOIN series s ON s.id = p.series_id"
			      "  UNION ALL SELECT t.id, t.version, fam.d + 1 FROM fam"
			      "  JOIN series t ON t.reroll_of = fam.id WHERE fam.d < 8),"
			      " o(id) AS (SELECT id FROM fam WHERE version < ?2"
			      "  ORDER BY version DESC, id LIMIT 1)"
			      " SELECT o.id, p.from_addr, (SELECT root FROM series t"
			      " WHERE t.reroll_of = o.id AND t.version = ?2 ORDER BY t.id LIMIT 1)"
			      " FROM p, o", err);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, in_reply_to, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, version);
	sqlite3_bind_int(st, 3, k);
	sqlite3_bind_int(st, 4, n);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		/* the same address, as for a series' own patches (anyone can answer a patch) */
		a = watch_author_key(watch_col_text(st, 1));
		b = watch_author_key(from ? from : "");
		if (!strcmp(a, b)) {
			*older = (long)sqlite3_column_int64(st, 0);
			*root = xstrdup(sqlite3_column_type(st, 2) == SQLITE_NULL ? msgid :
					watch_col_text(st, 2));
		}
	}
	r = r == SQLITE_ROW || r == SQLITE_DONE ? *root != NULL : watch_db_error(w, err);
	sqlite3_finalize(st);
	free(a);
	free(b);
	return r;
}

int watch_reroll_mark(struct watch_db *w, long s, long older, time_t now, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "UPDATE series SET reroll_of = ?1,"
					    " title = (SELECT title FROM series WHERE id = ?1),"
					    " title_key = (SELECT title_key FROM series WHERE id = ?1)"
					    " WHERE id = ?2 AND reroll_of IS NULL", err);
	struct strbuf why = STRBUF_INIT;
	int r, changed;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, older);
	sqlite3_bind_int64(st, 2, s);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	changed = !r && sqlite3_changes(w->db) > 0;
	sqlite3_finalize(st);
	if (r || !changed)
		return r;
	st = watch_db_prepare(w, "SELECT version, root FROM series WHERE id = ?", err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, older);
	if (sqlite3_step(st) == SQLITE_ROW)
		sb_addf(&why, "a partial reroll of v%d (series %ld, <%s>): the patches it does not "
			"replace, and its cover letter when it has none, are v%d's",
			sqlite3_column_int(st, 0), older, watch_col_text(st, 1),
			sqlite3_column_int(st, 0));
	sqlite3_finalize(st);
	r = watch_series_event(w, s, "reroll", why.len ? why.buf : "a partial reroll", now, err);
	sb_release(&why);
	return r;
}
