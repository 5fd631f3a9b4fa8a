// SPDX-License-Identifier: GPL-2.0
/* Replies handed to the site's MTA: watch_send.h. */
#include "watch_send.h"
#include "fsutil.h"
#include "run_command.h"
#include "watch_series.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * When --sendmail was first given (cursors row "sendmail:since", made
 * now when absent): replies of series that ended before are not sent,
 * else turning it on would mail the whole queue's past at once.
 */
static int send_since(struct watch_db *w, time_t now, long long *since, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "INSERT OR IGNORE INTO cursors(source, position)"
					    " VALUES('sendmail:since', ?)", err);
	char *when = xasprintf("%lld", (long long)now);
	int r;

	if (!st) {
		free(when);
		return -1;
	}
	sqlite3_bind_text(st, 1, when, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	free(when);
	if (r || !(st = watch_db_prepare(w, "SELECT position FROM cursors"
					 " WHERE source = 'sendmail:since'", err)))
		return -1;
	r = sqlite3_step(st) == SQLITE_ROW ? 0 : watch_db_error(w, err);
	if (!r)
		*since = strtoll(watch_col_text(st, 0), NULL, 10);
	sqlite3_finalize(st);
	return r;
}

/* The series to send, oldest first. */
static int unsent(struct watch_db *w, long long since, struct strvec *ids, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT s.id FROM series s"
		" WHERE s.state IN ('decided', 'failed')"
		" AND NOT EXISTS (SELECT 1 FROM events e WHERE e.series_id = s.id AND"
		"  e.state = 'mailed')"
		" AND EXISTS (SELECT 1 FROM events e WHERE e.series_id = s.id AND"
		"  e.state = s.state AND e.at >= ?) ORDER BY s.id", err);
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, since);
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		strvec_pushf(ids, "%lld", (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? 0 : watch_db_error(w, err);
}

/* @cmd's words: "sendmail -t -oi" -> {"sendmail", "-t", "-oi"}. */
static void split_command(const char *cmd, struct strvec *argv)
{
	for (const char *p = cmd; *p;) {
		size_t blank = strspn(p, " \t"), len;

		p += blank;
		len = strcspn(p, " \t");
		if (len) {
			char *word = xstrndup(p, len);

			strvec_push(argv, word);
			free(word);
		}
		p += len;
	}
}

int watch_send_replies(struct watch_db *w, const char *dir, const char *cmd, time_t now,
		       long *sent, struct strbuf *err)
{
	struct strvec ids = STRVEC_INIT, argv = STRVEC_INIT;
	long long since;
	int r;

	*sent = 0;
	split_command(cmd, &argv);
	if (!argv.n) {
		sb_addf(err, "--sendmail: no command in \"%s\"", cmd);
		return -1;
	}
	r = send_since(w, now, &since, err) || unsent(w, since, &ids, err) ? -1 : 0;
	for (size_t i = 0; !r && i < ids.n; i++) {
		char *path = xasprintf("%s/series/%s/reply.eml", dir, ids.v[i]);
		struct strbuf out = STRBUF_INIT;
		struct child c = { .argv = (const char *const *)argv.v, .stdin_path = path,
				   .out = &out, .merge_stderr = 1 };
		int st;

		if (!is_regular_file(path)) {
			free(path);
			continue;	/* (a series failed before its reply: none to send) */
		}
		st = run_command(&c);
		if (st) {
			sb_addf(err, "series %s: %s %s: %s", ids.v[i], argv.v[0],
				st < 0 ? "could not be started" : "failed", out.len ? sb_str(&out) :
				st < 0 ? strerror(errno) : "(no output)");
			r = -1;
		} else if (watch_series_event(w, strtol(ids.v[i], NULL, 10), "mailed", cmd, now,
					      err)) {
			r = -1;
		} else {
			(*sent)++;
		}
		sb_release(&out);
		free(path);
	}
	strvec_clear(&ids);
	strvec_clear(&argv);
	return r;
}
