/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch's queue: one SQLite database (WATCH_DB_FILE in the state
 * folder) with every mail read, every series assembled from them, its
 * state and its history of states. Write-ahead log, synchronous=FULL, and
 * every step one transaction, so a kill -9 anywhere leaves the state of
 * the last step that committed: a mail read is either filed with its
 * archive position or not read at all, a series moves to its next state
 * or stays. docs/watch.md has the schema and the states.
 */
#ifndef LAB_WATCH_DB_H
#define LAB_WATCH_DB_H

#include "strbuf.h"
#include "util.h"

#include <sqlite3.h>

#define WATCH_DB_FILE		"watch.sqlite"
#define WATCH_DB_VERSION	4

struct watch_db {
	sqlite3 *db;
	char *path;
};

/*
 * Open (create, migrate) the database @path. Returns 0, or -1 with a
 * message naming the file in @err (not a database, a newer schema).
 */
LAB_MUST_CHECK
int watch_db_open(const char *path, struct watch_db *w, struct strbuf *err);
void watch_db_close(struct watch_db *w);

/* Run @sql (no result rows); -1 with "FILE: SQLITE-MESSAGE" in @err. */
LAB_MUST_CHECK
int watch_db_exec(struct watch_db *w, const char *sql, struct strbuf *err);
/* Prepare @sql; NULL with the message in @err. */
sqlite3_stmt *watch_db_prepare(struct watch_db *w, const char *sql, struct strbuf *err);
/* "FILE: what sqlite said" into @err; returns -1. */
int watch_db_error(struct watch_db *w, struct strbuf *err);

/* A text column, "" for NULL (never NULL itself). */
const char *watch_col_text(sqlite3_stmt *st, int col);

#endif
