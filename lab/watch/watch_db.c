// SPDX-License-Identifier: GPL-2.0
/* The watch's SQLite queue: open, schema, errors. See watch_db.h. */
#include "watch_db.h"

#include <stdlib.h>
#include <string.h>

/*
 * messages.series_id: NULL until assembly has looked at the mail, then
 * the series it belongs to, or 0 for a mail that is no series' patch (a
 * reply, a duplicate of a patch already filed, a patch whose thread does
 * not match its tag).
 */
static const char schema[] =
	"CREATE TABLE IF NOT EXISTS cursors(source TEXT PRIMARY KEY, position TEXT NOT NULL);"
	"CREATE TABLE IF NOT EXISTS seen(source TEXT NOT NULL, key TEXT NOT NULL,"
	" PRIMARY KEY(source, key));"
	"CREATE TABLE IF NOT EXISTS rejected(id INTEGER PRIMARY KEY, source TEXT NOT NULL,"
	" key TEXT NOT NULL, reason TEXT NOT NULL, at INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS series(id INTEGER PRIMARY KEY, root TEXT NOT NULL UNIQUE,"
	" version INTEGER NOT NULL, n INTEGER NOT NULL, rfc INTEGER NOT NULL DEFAULT 0,"
	" title TEXT NOT NULL, title_key TEXT NOT NULL, author TEXT NOT NULL,"
	" base_commit TEXT, state TEXT NOT NULL, reason TEXT, note TEXT, verdict TEXT,"
	" first_seen INTEGER NOT NULL, updated INTEGER NOT NULL);"
	"CREATE TABLE IF NOT EXISTS messages(id INTEGER PRIMARY KEY,"
	" message_id TEXT NOT NULL UNIQUE, in_reply_to TEXT, refs TEXT NOT NULL,"
	" subject TEXT NOT NULL, from_addr TEXT NOT NULL, is_patch INTEGER NOT NULL,"
	" is_reply INTEGER NOT NULL, version INTEGER NOT NULL, k INTEGER NOT NULL,"
	" n INTEGER NOT NULL, rfc INTEGER NOT NULL, title TEXT NOT NULL, paths TEXT NOT NULL,"
	" base_commit TEXT, trailers TEXT NOT NULL, origin TEXT NOT NULL, raw BLOB NOT NULL,"
	" seen_at INTEGER NOT NULL, series_id INTEGER);"
	"CREATE INDEX IF NOT EXISTS messages_unfiled ON messages(series_id);"
	"CREATE INDEX IF NOT EXISTS series_state ON series(state);"
	"CREATE INDEX IF NOT EXISTS series_title ON series(title_key);"
	"CREATE TABLE IF NOT EXISTS events(id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL,"
	" at INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT);";

/*
 * What each version adds to the one before, run in order after the schema
 * above (version 1's) on a new database and from its own version on an
 * old one: migrations[i] makes version i + 2.
 *
 * 2: series.ambiguous, 1 when two different mails claimed one of its
 *    patches (watch_series.c, file_patch()): such a series supersedes
 *    nothing.
 * 3: messages.root, the series root a patch found when it was filed, so
 *    that the next patch of a deep thread takes its parent's instead of
 *    walking the chain again (NULL for mails filed before: they are
 *    walked); indexes for a series' patch k and for the versions of a
 *    title by an author, so that assembly costs the same per mail however
 *    long the thread.
 * 4: messages.change_id, the "change-id:" line b4 writes into a cover
 *    letter (or patch 1): the versions of a series share it whatever
 *    their titles and threads; an index for the versions of an author,
 *    which a newer version found by threading or change-id is;
 *    series.reroll_of, the series a partial reroll takes the patches it
 *    does not replace from (watch_reroll.h); an index of the replies to
 *    a mail, for the review trailers a series received (watch_trailers.h).
 */
static const char *const migrations[] = {
	"ALTER TABLE series ADD COLUMN ambiguous INTEGER NOT NULL DEFAULT 0;",
	"ALTER TABLE messages ADD COLUMN root TEXT;"
	" CREATE INDEX IF NOT EXISTS messages_series_k ON messages(series_id, k);"
	" DROP INDEX IF EXISTS messages_unfiled;"
	" CREATE INDEX IF NOT EXISTS series_title_author ON series(title_key, author, version);"
	" DROP INDEX IF EXISTS series_title;",
	"ALTER TABLE messages ADD COLUMN change_id TEXT;"
	" CREATE INDEX IF NOT EXISTS series_author ON series(author, version);"
	" ALTER TABLE series ADD COLUMN reroll_of INTEGER;"
	" CREATE INDEX IF NOT EXISTS series_reroll ON series(reroll_of);"
	" CREATE INDEX IF NOT EXISTS messages_reply ON messages(in_reply_to);",
};
_Static_assert(ARRAY_SIZE(migrations) == WATCH_DB_VERSION - 1, "one migration per version");

int watch_db_error(struct watch_db *w, struct strbuf *err)
{
	sb_addf(err, "%s: %s", w->path, w->db ? sqlite3_errmsg(w->db) : "cannot open");
	return -1;
}

int watch_db_exec(struct watch_db *w, const char *sql, struct strbuf *err)
{
	char *msg = NULL;

	if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	sb_addf(err, "%s: %s", w->path, msg ? msg : sqlite3_errmsg(w->db));
	sqlite3_free(msg);
	return -1;
}

sqlite3_stmt *watch_db_prepare(struct watch_db *w, const char *sql, struct strbuf *err)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(w->db, sql, -1, &st, NULL) != SQLITE_OK) {
		watch_db_error(w, err);
		sqlite3_finalize(st);
		return NULL;
	}
	return st;
}

const char *watch_col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t ? (const char *)t : "";
}

static int user_version(struct watch_db *w, int *v, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "PRAGMA user_version", err);

	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return watch_db_error(w, err);
	}
	*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return 0;
}

int watch_db_open(const char *path, struct watch_db *w, struct strbuf *err)
{
	int v;

	memset(w, 0, sizeof(*w));
	w->path = xstrdup(path);
	if (sqlite3_open_v2(path, &w->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
			    NULL) != SQLITE_OK) {
		watch_db_error(w, err);
		watch_db_close(w);
		return -1;
	}
	/* Another watch (or `watch status`) may hold the lock for a moment. */
	sqlite3_busy_timeout(w->db, 10000);
	if (watch_db_exec(w, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;", err) ||
	    user_version(w, &v, err))
		goto fail;
	if (v > WATCH_DB_VERSION) {
		sb_addf(err, "%s: schema version %d, newer than this mglrulab's %d", path, v,
			WATCH_DB_VERSION);
		goto fail;
	}
	if (v < WATCH_DB_VERSION) {
		/*
		 * A new database: its watch has not begun (watch_series.c,
		 * mark_history()). One made before that existed has no row,
		 * and its queue is left as it is.
		 */
		struct strbuf sql = STRBUF_INIT;
		int r;

		sb_addf(&sql, "BEGIN IMMEDIATE; %s %s", v == 0 ? schema : "", v == 0 ?
			"INSERT OR IGNORE INTO cursors(source, position)"
			" VALUES('watch:began', 'pending');" : "");
		for (int i = v < 2 ? 0 : v - 1; i < WATCH_DB_VERSION - 1; i++)
			sb_adds(&sql, migrations[i]);
		sb_addf(&sql, " PRAGMA user_version=%d; COMMIT;", WATCH_DB_VERSION);
		r = watch_db_exec(w, sql.buf, err);
		sb_release(&sql);
		if (r) {
			struct strbuf ignored = STRBUF_INIT;

			(void)!watch_db_exec(w, "ROLLBACK", &ignored);
			sb_release(&ignored);
			goto fail;
		}
	}
	return 0;
fail:
	watch_db_close(w);
	return -1;
}

void watch_db_close(struct watch_db *w)
{
	if (w->db)
		sqlite3_close(w->db);
	free(w->path);
	memset(w, 0, sizeof(*w));
}
