// SPDX-License-Identifier: GPL-2.0
/* Review trailers from the replies to a series: watch_trailers.h. */
#include "watch_trailers.h"
#include "watch_series.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether trailer @line ("Reviewed-by: Name <a@b>") names the address of @from. */
static int signed_by_sender(const char *line, const char *from)
{
	const char *colon = strchr(line, ':');
	char *a, *b;
	int same;

	if (!colon || !strchr(colon, '<'))
		return 0;
	a = watch_author_key(colon + 1);
	b = watch_author_key(from);
	same = *a && !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/* Add k to the comma-separated list @ks (a strvec entry) unless it is there. */
static void add_k(struct strvec *out, size_t i, int k)
{
	char *ks = out->v[i], *n;
	char key[16];

	snprintf(key, sizeof(key), "%d", k);
	for (char *p = ks; *p;) {
		size_t len = strcspn(p, ",");

		if (len == strlen(key) && !strncmp(p, key, len))
			return;
		p += len + (p[len] == ',');
	}
	n = xasprintf("%s,%s", ks, key);
	free(ks);
	out->v[i] = n;
}

int watch_series_trailers(struct watch_db *w, long id, struct strvec *out, struct strbuf *err)
{
	/*
	 * Down the thread from the series' mails: replies (not patches) to
	 * them, and replies to those, each keeping the k it hangs under.
	 */
	sqlite3_stmt *st = watch_db_prepare(w, "WITH RECURSIVE down(mid, k, depth) AS ("
					    " SELECT message_id, k, 0 FROM messages WHERE "
					    WATCH_SERIES_MAILS("?1")
					    " UNION SELECT r.message_id, down.k, down.depth + 1"
					    " FROM down JOIN messages r ON r.in_reply_to = down.mid"
					    " WHERE down.depth < ?2 AND NOT r.is_patch)"
					    " SELECT down.k, m.from_addr, m.trailers FROM down"
					    " JOIN messages m ON m.message_id = down.mid"
					    " WHERE down.depth > 0 AND m.trailers != ''"
					    " ORDER BY down.k, m.id LIMIT 1000", err);
	int step;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, WATCH_TRAILER_DEPTH);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 0);
		const char *from = watch_col_text(st, 1);
		char *lines = xstrdup(watch_col_text(st, 2));

		for (char *l = strtok(lines, "\n"); l; l = strtok(NULL, "\n")) {
			size_t i;

			if (!signed_by_sender(l, from))
				continue;
			for (i = 0; i + 1 < out->n && strcmp(out->v[i], l); i += 2)
				;
			if (i + 1 < out->n) {
				add_k(out, i + 1, k);
			} else if (out->n / 2 < WATCH_TRAILERS_MAX) {
				strvec_push(out, l);
				strvec_pushf(out, "%d", k);
			}
		}
		free(lines);
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : watch_db_error(w, err);
}

void watch_trailer_scope(struct strbuf *sb, const char *ks)
{
	int n = 0;

	if (!strcmp(ks, "0") || !strncmp(ks, "0,", 2)) {
		sb_adds(sb, "the cover letter (the whole series)");
		return;
	}
	for (const char *p = ks; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ','))
		n++;
	sb_addf(sb, "patch%s ", n > 1 ? "es" : "");
	for (const char *p = ks; *p;) {
		size_t len = strcspn(p, ",");

		sb_add(sb, p, len);
		p += len;
		if (*p == ',') {
			sb_adds(sb, ", ");
			p++;
		}
	}
}
