// SPDX-License-Identifier: GPL-2.0
/* Cover letters found by threading: watch_untagged.h. */
#include "watch_untagged.h"
#include "watch_msg.h"
#include "watch_series.h"

#include <stdlib.h>
#include <string.h>

/*
 * A diffstat's summary line, " 3 files changed, 10 insertions(+)", in
 * @body: b4 takes a mail without a diff for a cover letter only with one
 * (git format-patch --cover-letter writes it), so that a question posted
 * as "[PATCH] ..." and answered with a patch is not made a cover.
 */
static int has_diffstat(const char *body, size_t len)
{
	for (const char *s = body, *end = body + len; s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		size_t l = (size_t)(le - s);

		if ((memmem(s, l, " file changed", 13) || memmem(s, l, " files changed", 14)) &&
		    (memmem(s, l, "insertion", 9) || memmem(s, l, "deletion", 8)))
			return 1;
		s = le + 1;
	}
	return 0;
}

long watch_untagged_covers(struct watch_db *w, struct strbuf *err)
{
	/*
	 * Its patches filed in this assembly, or before it: then they took
	 * the cover's Message-ID as their series' root (a parent not filed
	 * yet), and the cover, read now, is that series' (its author and
	 * size).
	 */
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT DISTINCT c.id, c.from_addr, p.from_addr,"
					    " p.n, c.raw FROM messages p JOIN messages c"
					    " ON c.message_id = p.in_reply_to"
					    " WHERE p.series_id IS NULL AND p.is_patch AND p.k >= 1"
					    " AND NOT c.is_patch AND NOT c.is_reply AND c.k = 1"
					    " AND c.n = 1 AND c.version = p.version"
					    " UNION SELECT c.id, c.from_addr, s.author, s.n, c.raw"
					    " FROM messages c JOIN series s ON s.root = c.message_id"
					    " WHERE c.series_id IS NULL AND NOT c.is_patch"
					    " AND NOT c.is_reply AND c.k = 1 AND c.n = 1"
					    " AND c.version = s.version", err);
	struct strvec found = STRVEC_INIT;	/* pairs: the mail's id, its n */
	long made = 0;
	int step;

	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		char *a = watch_author_key(watch_col_text(st, 1));
		char *b = watch_author_key(watch_col_text(st, 2));
		struct strbuf body = STRBUF_INIT;

		if (!strcmp(a, b)) {
			watch_msg_body(sqlite3_column_blob(st, 4),
				       (size_t)sqlite3_column_bytes(st, 4), &body);
			if (has_diffstat(sb_str(&body), body.len)) {
				strvec_pushf(&found, "%lld", (long long)sqlite3_column_int64(st, 0));
				strvec_pushf(&found, "%d", sqlite3_column_int(st, 3));
			}
		}
		sb_release(&body);
		free(a);
		free(b);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		strvec_clear(&found);
		return watch_db_error(w, err);
	}
	for (size_t i = 0; i + 1 < found.n; i += 2) {
		/* (two patches of different n answering it: the first one's) */
		st = watch_db_prepare(w, "UPDATE messages SET is_patch = 1, k = 0, n = ?,"
				      " series_id = NULL WHERE id = ? AND NOT is_patch", err);
		if (!st) {
			made = -1;
			break;
		}
		sqlite3_bind_int(st, 1, (int)strtol(found.v[i + 1], NULL, 10));
		sqlite3_bind_int64(st, 2, strtoll(found.v[i], NULL, 10));
		if (sqlite3_step(st) != SQLITE_DONE)
			made = watch_db_error(w, err);
		else
			made += sqlite3_changes(w->db);
		sqlite3_finalize(st);
		if (made < 0)
			break;
	}
	strvec_clear(&found);
	return made;
}
