// SPDX-License-Identifier: GPL-2.0
/* Series assembled from the filed mails, and their states: watch_series.h. */
#include "watch_series.h"
#include "watch_msg.h"
#include "watch_reroll.h"
#include "watch_untagged.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* A deep-threaded series is a chain of n replies (root_of() stops after n + 1 steps): a backstop. */
#define WATCH_THREAD_DEPTH	10000

char *watch_title_key(const char *title)
{
	struct strbuf sb = STRBUF_INIT;
	int space = 0;

	for (const char *p = title; *p; p++) {
		if (isspace((unsigned char)*p)) {
			space = sb.len > 0;
			continue;
		}
		if (space)
			sb_addc(&sb, ' ');
		space = 0;
		sb_addc(&sb, (char)tolower((unsigned char)*p));
	}
	return sb_detach(&sb);
}

/* "Name <a@b>" -> "a@b", lower-cased: one author however the name is spelt. */
char *watch_author_key(const char *from)
{
	const char *b = strrchr(from, '<'), *e = b ? strchr(b, '>') : NULL;
	char *k = b && e ? xstrndup(b + 1, (size_t)(e - b - 1)) : xstrdup(from);

	for (char *p = k; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return k;
}

struct patch_mail {
	long id;
	char *message_id, *in_reply_to, *from, *title, *base_commit;
	char *root;		/* the root it found when filed; NULL: not filed yet */
	int is_patch, version, k, n, rfc;
};

static void patch_mail_release(struct patch_mail *m)
{
	free(m->message_id);
	free(m->in_reply_to);
	free(m->from);
	free(m->title);
	free(m->base_commit);
	free(m->root);
	memset(m, 0, sizeof(*m));
}

#define MAIL_COLUMNS "id, message_id, in_reply_to, from_addr, title, base_commit, is_patch," \
		     " version, k, n, rfc, root"

static void mail_from_row(sqlite3_stmt *st, struct patch_mail *m)
{
	m->id = (long)sqlite3_column_int64(st, 0);
	m->message_id = xstrdup(watch_col_text(st, 1));
	m->in_reply_to = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL :
			 xstrdup(watch_col_text(st, 2));
	m->from = xstrdup(watch_col_text(st, 3));
	m->title = xstrdup(watch_col_text(st, 4));
	m->base_commit = sqlite3_column_type(st, 5) == SQLITE_NULL ? NULL :
			 xstrdup(watch_col_text(st, 5));
	m->is_patch = sqlite3_column_int(st, 6);
	m->version = sqlite3_column_int(st, 7);
	m->k = sqlite3_column_int(st, 8);
	m->n = sqlite3_column_int(st, 9);
	m->rfc = sqlite3_column_int(st, 10);
	m->root = sqlite3_column_type(st, 11) == SQLITE_NULL ? NULL :
		  xstrdup(watch_col_text(st, 11));
}

/* The filed mail @message_id; 1 found, 0 not filed, -1 error. */
static int mail_by_id(struct watch_db *w, const char *message_id, struct patch_mail *m,
		      struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT " MAIL_COLUMNS " FROM messages"
					    " WHERE message_id = ?", err);
	int r;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		mail_from_row(st, m);
	r = r == SQLITE_ROW ? 1 : r == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/*
 * Whether @p, a filed mail, may be a patch or the cover letter of @m's
 * series: its version and size, and sent by the same address (git
 * send-email sends a series' mails from one; a patch's author may differ
 * in its body's own From: line, which this is not).
 */
static int same_series_shape(const struct patch_mail *p, const struct patch_mail *m)
{
	char *a, *b;
	int same;

	if (!p->is_patch || p->version != m->version || p->n != m->n)
		return 0;
	a = watch_author_key(p->from ? p->from : "");
	b = watch_author_key(m->from ? m->from : "");
	same = !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/*
 * The root of @m's series: a cover letter is its own; a patch k/n walks up
 * In-Reply-To through patches of its version and size with a smaller k
 * (deep threading: 3/3 under 2/3; shallow: under 1/n or 0/n) to the cover
 * letter 0/n or, without one, patch 1/n, which never walks further: a
 * series without a cover posted in reply to another series' patch is its
 * own. As k falls at each step the walk ends within n steps. A lone patch
 * ([PATCH] or 1/1) is its own root unless it answers its 0/1 cover
 * letter. A parent not yet filed is taken as the root (its cover letter,
 * most likely, still on its way), but not for a lone patch: it often
 * answers a discussion the archive never had.
 */
static int root_of(struct watch_db *w, const struct patch_mail *m, char **root,
		   struct strbuf *err)
{
	struct patch_mail cur = { 0 }, parent;
	int r = 0;

	*root = NULL;
	if (m->k == 0 || !m->in_reply_to) {
		*root = xstrdup(m->message_id);
		return 0;
	}
	cur.message_id = xstrdup(m->message_id);
	cur.in_reply_to = xstrdup(m->in_reply_to);
	cur.k = m->k;
	for (int depth = 0; depth <= m->n && depth < WATCH_THREAD_DEPTH; depth++) {
		memset(&parent, 0, sizeof(parent));
		if (cur.k == 0 || !cur.in_reply_to) {
			*root = xstrdup(cur.message_id);
			break;
		}
		r = mail_by_id(w, cur.in_reply_to, &parent, err);
		if (r < 0)
			break;
		if (!r) {
			*root = xstrdup(m->n == 1 ? cur.message_id : cur.in_reply_to);
			r = 0;
			break;
		}
		r = 0;
		if (same_series_shape(&parent, m) && parent.k == 0) {
			*root = xstrdup(cur.in_reply_to);	/* its cover letter */
			patch_mail_release(&parent);
			break;
		}
		if (!same_series_shape(&parent, m) || parent.k >= cur.k || cur.k == 1) {
			/* patch 1/n is a no-cover series' root; a k/n under no patch of
			 * its own answers a thread shallowly, the parent the root */
			*root = xstrdup(cur.k == 1 || same_series_shape(&parent, m) ?
					cur.message_id : cur.in_reply_to);
			patch_mail_release(&parent);
			break;
		}
		if (parent.root) {
			/*
			 * The walk would go on from the parent, a patch of the same
			 * shape: to where the parent's own walk went when it was
			 * filed (absorb() keeps that up to date). Without this a
			 * deep thread of n patches costs n^2 / 2 steps.
			 */
			*root = parent.root;
			parent.root = NULL;
			patch_mail_release(&parent);
			break;
		}
		patch_mail_release(&cur);
		cur = parent;
	}
	if (!r && !*root)	/* (cannot happen: k falls at each step) */
		*root = xstrdup(cur.message_id);
	patch_mail_release(&cur);
	return r;
}

static int add_event(struct watch_db *w, long series, const char *state, const char *reason,
		     time_t now, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "INSERT INTO events(series_id, at, state, reason)"
					    " VALUES(?, ?, ?, ?)", err);
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, series);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)now);
	sqlite3_bind_text(st, 3, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, reason, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/* Find or create the series of @root for @m; its id, or 0 when @m cannot join it. */
static long series_for(struct watch_db *w, const char *root, const struct patch_mail *m,
		       time_t now, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT id, version, n FROM series WHERE root = ?",
					    err);
	long id = -1;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, root, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = sqlite3_column_int(st, 1) == m->version && sqlite3_column_int(st, 2) == m->n ?
		     (long)sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (id >= 0)
		return id;
	char *key = watch_title_key(m->title), *author = watch_author_key(m->from);
	st = watch_db_prepare(w, "INSERT INTO series(root, version, n, rfc, title, title_key,"
			      " author, base_commit, state, first_seen, updated)"
			      " VALUES(?,?,?,?,?,?,?,?,'incomplete',?,?)", err);
	if (st) {
		sqlite3_bind_text(st, 1, root, -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 2, m->version);
		sqlite3_bind_int(st, 3, m->n);
		sqlite3_bind_int(st, 4, m->rfc);
		sqlite3_bind_text(st, 5, m->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, author, -1, SQLITE_STATIC);
		/* the base is the cover's or patch 1's (take_base()), not patch k's */
		sqlite3_bind_text(st, 8, m->k <= 1 ? m->base_commit : NULL, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (sqlite3_int64)now);
		sqlite3_bind_int64(st, 10, (sqlite3_int64)now);
		if (sqlite3_step(st) == SQLITE_DONE)
			id = (long)sqlite3_last_insert_rowid(w->db);
		else
			watch_db_error(w, err);
		sqlite3_finalize(st);
	}
	free(key);
	free(author);
	if (id > 0 && add_event(w, id, "incomplete", "first mail filed", now, err))
		id = -1;
	return id;
}

static int exec_bound(struct watch_db *w, const char *sql, long a, long b, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, sql, err);
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

struct series_row {
	long id;
	char *root, *title_key, *author, *state;
	int version, n;
	double first_seen;
};

static void series_row_release(struct series_row *s)
{
	free(s->root);
	free(s->title_key);
	free(s->author);
	free(s->state);
}

static int set_state(struct watch_db *w, const struct series_row *s, const char *state,
		     const char *reason, time_t now, struct watch_assembly *out, struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (!strcmp(s->state, state))
		return 0;
	st = watch_db_prepare(w, "UPDATE series SET state = ?, reason = ?, updated = ?"
			      " WHERE id = ?", err);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (sqlite3_int64)now);
	sqlite3_bind_int64(st, 4, s->id);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	out->changed += !r;
	return r ? r : add_event(w, s->id, state, reason, now, err);
}

/*
 * The Message-ID of series @s's patch k into @id (NULL when it has none),
 * and whether that mail says what mail @mail says: the same text after
 * the headers (line ends aside), an identical resend. -1 error.
 */
static int patch_k(struct watch_db *w, long s, int k, long mail, char **id, int *same,
		   struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT a.message_id, a.raw, b.raw FROM messages a,"
					    " messages b WHERE a.series_id = ? AND a.k = ? AND"
					    " b.id = ? LIMIT 1", err);
	int r;

	*id = NULL;
	*same = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s);
	sqlite3_bind_int(st, 2, k);
	sqlite3_bind_int64(st, 3, mail);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		*id = xstrdup(watch_col_text(st, 0));
		watch_msg_body(sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1), &a);
		watch_msg_body(sqlite3_column_blob(st, 2), (size_t)sqlite3_column_bytes(st, 2), &b);
		*same = a.len == b.len && !memcmp(sb_str(&a), sb_str(&b), a.len);
		sb_release(&a);
		sb_release(&b);
	}
	r = r == SQLITE_ROW || r == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/*
 * Two different mails claim patch k of series @s (@first filed, @m now):
 * which one is the author's cannot be told from the list (anyone can
 * send the second, with the first's From:), so the series is not
 * measured: skipped with the reason while incomplete or queued, an event
 * after that (its measurement stands). It supersedes nothing either
 * (superseded()).
 */
static int make_ambiguous(struct watch_db *w, long s, int k, const char *first,
			  const char *second, time_t now, struct watch_assembly *out,
			  struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT state, n FROM series WHERE id = ?", err);
	struct series_row row = { .id = s };
	char *why;
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		row.state = xstrdup(watch_col_text(st, 0));
		row.n = sqlite3_column_int(st, 1);
	}
	r = r == SQLITE_ROW ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	if (r)
		return -1;
	why = xasprintf("ambiguous: two different mails claim patch %d/%d: <%s> and <%s>",
			k, row.n, first, second);
	r = exec_bound(w, "UPDATE series SET ambiguous = 1 WHERE id = ?1 AND ?2 = ?1", s, s, err);
	if (!r && (!strcmp(row.state, "incomplete") || !strcmp(row.state, "queued")))
		r = set_state(w, &row, "skipped", why, now, out, err);
	else if (!r)
		r = add_event(w, s, "ambiguous", why, now, err);
	free(why);
	free(row.state);
	return r;
}

/* The series' title, author and base from its cover letter (or patch 1 without one). */
static int take_head(struct watch_db *w, long s, const struct patch_mail *m,
		     struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "UPDATE series SET title = ?, title_key = ?,"
					    " author = ?, base_commit = COALESCE(?, base_commit)"
					    " WHERE id = ?", err);
	char *key = watch_title_key(m->title), *author = watch_author_key(m->from);
	int r = -1;

	if (st) {
		sqlite3_bind_text(st, 1, m->title, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, author, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, m->base_commit, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, s);
		r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
		sqlite3_finalize(st);
	}
	free(key);
	free(author);
	return r;
}

/*
 * Patch 1's base-commit (git format-patch --base puts it there when there
 * is no cover letter) when the series has none: the cover letter's, filed
 * before it in the same scan or after it later (take_head()), wins. Only
 * the head's own mail went through take_head(), so a patch 1 filed after
 * its cover letter lost its base.
 */
static int take_base(struct watch_db *w, long s, const struct patch_mail *m,
		     struct strbuf *err)
{
	sqlite3_stmt *st;
	int r;

	if (m->k != 1 || !m->base_commit)
		return 0;
	st = watch_db_prepare(w, "UPDATE series SET base_commit = COALESCE(base_commit, ?)"
			      " WHERE id = ?", err);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, m->base_commit, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, s);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/*
 * After absorb(): a patch k both series had (one of them replying to a
 * mail not filed yet, as a patch may to make the lab take it later). The
 * later mail becomes a stray, as if the two had been one series from the
 * start, and when it says something else the series is ambiguous.
 */
static int merged_twice(struct watch_db *w, long s, time_t now, struct watch_assembly *out,
			struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT a.k, a.message_id, b.message_id, a.raw,"
					    " b.raw, b.id FROM messages a JOIN messages b"
					    " ON b.series_id = a.series_id AND b.k = a.k AND b.id > a.id"
					    " WHERE a.series_id = ? AND a.k > 0", err);
	struct strvec ids = STRVEC_INIT;
	int r = 0, step;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;

		watch_msg_body(sqlite3_column_blob(st, 3), (size_t)sqlite3_column_bytes(st, 3), &a);
		watch_msg_body(sqlite3_column_blob(st, 4), (size_t)sqlite3_column_bytes(st, 4), &b);
		/* k, the two Message-IDs, the later mail's id, whether they differ */
		strvec_pushf(&ids, "%d", sqlite3_column_int(st, 0));
		strvec_push(&ids, watch_col_text(st, 1));
		strvec_push(&ids, watch_col_text(st, 2));
		strvec_pushf(&ids, "%lld", (long long)sqlite3_column_int64(st, 5));
		strvec_push(&ids, a.len != b.len || memcmp(sb_str(&a), sb_str(&b), a.len) ? "1" : "");
		sb_release(&a);
		sb_release(&b);
	}
	if (step != SQLITE_DONE)
		r = watch_db_error(w, err);
	sqlite3_finalize(st);
	for (size_t i = 0; !r && i + 5 <= ids.n; i += 5) {
		r = exec_bound(w, "UPDATE messages SET series_id = 0 WHERE id = ?1 AND ?2 = ?1",
			       strtol(ids.v[i + 3], NULL, 10), strtol(ids.v[i + 3], NULL, 10), err);
		if (!r && *ids.v[i + 4])
			r = make_ambiguous(w, s, (int)strtol(ids.v[i], NULL, 10), ids.v[i + 1],
					   ids.v[i + 2], now, out, err);
	}
	strvec_clear(&ids);
	return r;
}

/*
 * A patch filed before its parent took the parent's id as its root (deep
 * threading, out of order): when that parent finds the real root @s, the
 * series it left behind, still incomplete, joins @s.
 */
static int absorb(struct watch_db *w, long s, const char *msgid, time_t now,
		  struct watch_assembly *out, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT id FROM series WHERE root = ? AND id != ?"
					    " AND state = 'incomplete'", err);
	long old = 0;
	int r;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, msgid, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, s);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		old = (long)sqlite3_column_int64(st, 0);
	r = r == SQLITE_ROW || r == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	if (r || !old)
		return r;
	return exec_bound(w, "UPDATE messages SET series_id = ?1, root = (SELECT root FROM series"
			  " WHERE id = ?1) WHERE series_id = ?2", s, old, err) ||
	       exec_bound(w, "DELETE FROM events WHERE series_id = ?1 AND ?2 = ?1", old, old, err) ||
	       exec_bound(w, "DELETE FROM series WHERE id = ?1 AND ?2 = ?1", old, old, err) ||
	       merged_twice(w, s, now, out, err) ? -1 : 0;
}

/* Mail @id is series @s's (0: none's), found under @root. */
static int file_as(struct watch_db *w, long id, long s, const char *root, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "UPDATE messages SET series_id = ?, root = ?"
					    " WHERE id = ?", err);
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s);
	sqlite3_bind_text(st, 2, root, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, id);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/*
 * File one patch mail into its series (or as a stray: series_id 0). A
 * second mail for a patch k the series has is a stray too: an identical
 * resend says nothing new, a different one makes the series ambiguous.
 */
static int file_patch(struct watch_db *w, const struct patch_mail *m, time_t now,
		      struct watch_assembly *out, struct strbuf *err)
{
	char *root, *first = NULL;
	long s, older = 0;
	int same = 0, reroll;

	reroll = watch_reroll_root(w, m->message_id, m->in_reply_to, m->version, m->k, m->n,
				   m->from, &older, &root, err);
	if (reroll < 0 || (!reroll && root_of(w, m, &root, err)))
		return -1;
	s = series_for(w, root, m, now, err);
	if (s > 0 && patch_k(w, s, m->k, m->id, &first, &same, err))
		s = -1;
	if (s > 0 && first && !same &&
	    make_ambiguous(w, s, m->k, first, m->message_id, now, out, err))
		s = -1;
	if (s < 0) {
		free(first);
		free(root);
		return -1;
	}
	if (first)
		s = 0;
	free(first);
	if (file_as(w, m->id, s, root, err) ||
	    (s && strcmp(root, m->message_id) && absorb(w, s, m->message_id, now, out, err)) ||
	    (s && (m->k == 0 || !strcmp(root, m->message_id)) && take_head(w, s, m, err)) ||
	    (s && take_base(w, s, m, err)) ||
	    (s && older && watch_reroll_mark(w, s, older, now, err))) {
		free(root);
		return -1;
	}
	if (s)
		out->filed++;
	else
		out->strays++;
	free(root);
	return 0;
}

static int file_patches(struct watch_db *w, time_t now, struct watch_assembly *out,
			struct strbuf *err)
{
	sqlite3_stmt *st;
	struct patch_mail *v = NULL;
	size_t n = 0, alloc = 0;
	int r = 0, step;

	/* what is not a patch is no series', unless patches answer it as their cover */
	if (watch_untagged_covers(w, err) < 0 ||
	    watch_db_exec(w, "UPDATE messages SET series_id = 0 WHERE series_id IS NULL"
			  " AND is_patch = 0", err))
		return -1;
	/*
	 * Older versions first, so that a partial reroll finds the rerolls
	 * before it (v4 of a patch v3 took over from v2 rerolls v3: v3's
	 * series must be there); in a version, covers first (k = 0), so that
	 * patches find their series by its root.
	 */
	st = watch_db_prepare(w, "SELECT " MAIL_COLUMNS " FROM messages WHERE series_id IS NULL"
			      " ORDER BY version, k, id", err);
	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ALLOC_GROW(v, n + 1, alloc);
		memset(&v[n], 0, sizeof(v[n]));
		mail_from_row(st, &v[n++]);
	}
	if (step != SQLITE_DONE)
		r = watch_db_error(w, err);
	sqlite3_finalize(st);
	for (size_t i = 0; !r && i < n; i++)
		r = file_patch(w, &v[i], now, out, err);
	for (size_t i = 0; i < n; i++)
		patch_mail_release(&v[i]);
	free(v);
	return r;
}

int watch_series_set_state(struct watch_db *w, long id, const char *state, const char *reason,
			   time_t now, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT state FROM series WHERE id = ?", err);
	struct series_row s = { .id = id };
	struct watch_assembly ignored = { 0 };
	int r;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		s.state = xstrdup(watch_col_text(st, 0));
	else
		sb_addf(err, "%s: no series %ld", w->path, id);
	sqlite3_finalize(st);
	r = s.state ? set_state(w, &s, state, reason, now, &ignored, err) : -1;
	free(s.state);
	return r;
}

int watch_series_event(struct watch_db *w, long id, const char *state, const char *reason,
		       time_t now, struct strbuf *err)
{
	return add_event(w, id, state, reason, now, err);
}

int watch_series_has_event(struct watch_db *w, long id, const char *state)
{
	struct strbuf err = STRBUF_INIT;
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT 1 FROM events WHERE series_id = ? AND"
					    " state = ? LIMIT 1", &err);
	int found = 0;

	if (st) {
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	sb_release(&err);
	return found;
}

long watch_series_lab_failure(struct watch_db *w, long id, const char *reason, time_t now,
			      struct strbuf *err)
{
	sqlite3_stmt *st;
	long n = -1;

	if (add_event(w, id, "lab-failure", reason, now, err))
		return -1;
	st = watch_db_prepare(w, "SELECT COUNT(*) FROM events WHERE series_id = ? AND"
			      " state = 'lab-failure'", err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (long)sqlite3_column_int64(st, 0);
	else
		watch_db_error(w, err);
	sqlite3_finalize(st);
	return n;
}

int watch_series_mbox(struct watch_db *w, long id, struct strbuf *mbox, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT raw FROM messages WHERE "
					    WATCH_SERIES_MAILS("?1") " ORDER BY k", err);
	int step;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW)
		watch_msg_for_am(mbox, sqlite3_column_blob(st, 0),
				 (size_t)sqlite3_column_bytes(st, 0));
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : watch_db_error(w, err);
}

int watch_series_mails(struct watch_db *w, long id, struct strvec *out, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT k, message_id FROM messages WHERE "
					    WATCH_SERIES_MAILS("?1") " ORDER BY k", err);
	int step;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		strvec_pushf(out, "%d", sqlite3_column_int(st, 0));
		strvec_push(out, watch_col_text(st, 1));
	}
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : watch_db_error(w, err);
}

/*
 * Round-robin between senders: of the queued series, those of the address
 * whose last series was taken longest ago (its last event "building";
 * never comes first) go first, each sender's oldest first. One sender's
 * 100 series then delay another's one by one place, not by 100: a list
 * where anyone may post must not let one address own the lab's time. A
 * series left building, running or bisecting is the lab's unfinished
 * work and goes before any queued.
 */
long watch_series_next(struct watch_db *w, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "WITH taken(author, last) AS"
					    " (SELECT t.author, MAX(e.id) FROM events e"
					    "  JOIN series t ON t.id = e.series_id"
					    "  WHERE e.state = 'building' GROUP BY t.author)"
					    " SELECT s.id FROM series s LEFT JOIN taken"
					    " ON taken.author = s.author"
					    " WHERE s.state IN ('building', 'running', 'bisecting', 'queued')"
					    " ORDER BY s.state = 'queued', CASE s.state WHEN 'queued'"
					    " THEN taken.last END NULLS FIRST, s.id LIMIT 1", err);
	long id;
	int r;

	if (!st)
		return -1;
	r = sqlite3_step(st);
	id = r == SQLITE_ROW ? (long)sqlite3_column_int64(st, 0) : r == SQLITE_DONE ? 0 :
	     watch_db_error(w, err);
	sqlite3_finalize(st);
	return id;
}

/* Series @id's change-id (its cover letter's, else patch 1's), or NULL; -1 on error. */
static int change_id_of(struct watch_db *w, long id, char **cid, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT change_id FROM messages WHERE series_id = ?"
					    " AND k <= 1 AND change_id IS NOT NULL ORDER BY k LIMIT 1",
					    err);
	int r;

	*cid = NULL;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*cid = xstrdup(watch_col_text(st, 0));
	r = r == SQLITE_ROW || r == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/* A series that makes @s not measured: which, and how it was found. */
struct successor {
	long long id;
	int version;
	char *root;
};

/* The first row of @st (bound) into @out: 1, 0 when none, -1 with @err. */
static int successor_row(struct watch_db *w, sqlite3_stmt *st, struct successor *out,
			 struct strbuf *err)
{
	int r = sqlite3_step(st);

	if (r == SQLITE_ROW) {
		out->id = (long long)sqlite3_column_int64(st, 0);
		out->version = sqlite3_column_int(st, 1);
		out->root = xstrdup(watch_col_text(st, 2));
	}
	r = r == SQLITE_ROW ? 1 : r == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/* "complete and not ambiguous" of series t, for a newer version to count */
#define NEWER_COUNTS \
	" NOT ambiguous AND (SELECT COUNT(DISTINCT k) FROM messages WHERE " \
	WATCH_SERIES_MAILS("t.id") " AND k BETWEEN 1 AND t.n) = t.n"

/* A newer version or an earlier resend with @s's title and author (indexed by both). */
static int by_title(struct watch_db *w, const struct series_row *s, struct successor *out,
		    struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT id, version, root FROM series t"
					    " WHERE title_key = ?1 AND author = ?2 AND id != ?3 AND"
					    " ((version > ?4 AND" NEWER_COUNTS ")"
					    "  OR (version = ?4 AND id < ?3 AND"
					    "  state NOT IN ('skipped', 'incomplete')))"
					    " ORDER BY version DESC LIMIT 1", err);

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, s->title_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, s->author, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, s->id);
	sqlite3_bind_int(st, 4, s->version);
	return successor_row(w, st, out, err);
}

/*
 * A newer version by @s's author, whatever its title, whose root replies
 * into @s's thread or that carries @s's change-id @cid (NULL: none).
 * Only the author's newer versions are looked at (indexed by author and
 * version): one address posting many v1 series costs nothing here.
 */
static int by_thread(struct watch_db *w, const struct series_row *s, const char *cid,
		     struct successor *out, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT id, version, root FROM series t"
					    " WHERE author = ?2 AND version > ?4 AND" NEWER_COUNTS
					    " AND (EXISTS (SELECT 1 FROM messages r JOIN messages p"
					    "  ON p.series_id = ?3 AND (p.message_id = r.in_reply_to OR"
					    "   instr(char(10) || r.refs || char(10),"
					    "         char(10) || p.message_id || char(10)) > 0)"
					    "  WHERE r.message_id = t.root) OR"
					    "  (?5 IS NOT NULL AND ?5 = (SELECT change_id FROM messages"
					    "   WHERE series_id = t.id AND k <= 1 AND change_id IS NOT NULL"
					    "   ORDER BY k LIMIT 1)))"
					    " ORDER BY version DESC LIMIT 1", err);

	if (!st)
		return -1;
	sqlite3_bind_text(st, 2, s->author, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, s->id);
	sqlite3_bind_int(st, 4, s->version);
	sqlite3_bind_text(st, 5, cid, -1, SQLITE_STATIC);
	return successor_row(w, st, out, err);
}

/*
 * A later version of @s by its author, complete (patches 1..n filed: one
 * mail "[PATCH v3 1/9]" with a series' title and address, which anyone
 * can send, must not take a complete v2 off the queue) and not ambiguous
 * (make_ambiguous(): which mails are its patches is unknown), or an earlier
 * series of the same version (@s is a resend; an earlier one still
 * incomplete or skipped does not count, else a RESEND of a series whose
 * patches went missing is never measured): the reason @s is not
 * measured, into @why.
 *
 * A later version is @s's when it has @s's title, or, as b4 links them,
 * whatever its title: when its root (cover letter, else patch 1) replies
 * into @s's thread (In-Reply-To or References name a mail of @s: git
 * send-email --in-reply-to, the common v2 with a cover letter after a v1
 * without one), or when it carries @s's change-id: (b4 prep writes one
 * into every version).
 */
static int superseded(struct watch_db *w, const struct series_row *s, struct strbuf *why,
		      struct strbuf *err)
{
	struct successor title = { 0 }, thread = { 0 };
	char *cid = NULL;
	int r, rt = 0;

	r = by_title(w, s, &title, err);
	if (r >= 0 && (!r || title.version <= s->version)) {
		rt = change_id_of(w, s->id, &cid, err) ? -1 : by_thread(w, s, cid, &thread, err);
		if (rt > 0 && (!r || thread.version > title.version))
			r = 2;
		else if (rt < 0)
			r = -1;
	}
	if (r == 2)
		sb_addf(why, "superseded by v%d (series %lld, <%s>) under a new title, found by "
			"its thread or change-id", thread.version, thread.id, thread.root);
	else if (r == 1 && title.version > s->version)
		sb_addf(why, "superseded by v%d (series %lld, <%s>)", title.version, title.id,
			title.root);
	else if (r == 1)
		sb_addf(why, "a resend of series %lld (<%s>), the same v%d", title.id, title.root,
			title.version);
	free(title.root);
	free(thread.root);
	free(cid);
	return r < 0 ? -1 : r > 0;
}

/* The patches 1..n @s lacks ("2, 4") into @missing, and which paths it touches. */
static int patches_of(struct watch_db *w, const struct series_row *s, struct strbuf *missing,
		      struct strvec *paths, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT k, paths FROM messages WHERE "
					    WATCH_SERIES_MAILS("?1") " AND k > 0 ORDER BY k", err);
	int expect = 1, step, shown = 0;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, s->id);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int k = sqlite3_column_int(st, 0);
		char *p = xstrdup(watch_col_text(st, 1));

		for (; expect < k; expect++)
			if (shown++ < 20)
				sb_addf(missing, "%s%d", missing->len ? ", " : "", expect);
		expect = k + 1;
		for (char *tok = strtok(p, "\n"); tok; tok = strtok(NULL, "\n"))
			strvec_push(paths, tok);
		free(p);
	}
	for (; expect <= s->n; expect++)
		if (shown++ < 20)
			sb_addf(missing, "%s%d", missing->len ? ", " : "", expect);
	if (shown > 20)
		sb_addf(missing, " and %d more", shown - 20);
	sqlite3_finalize(st);
	return step == SQLITE_DONE ? 0 : watch_db_error(w, err);
}

static void paths_reason(struct strbuf *why, const struct watch_rules *rules,
			 const struct strvec *paths)
{
	sb_adds(why, "touches no path of [watch] paths (");
	for (size_t i = 0; i < rules->npaths; i++)
		sb_addf(why, "%s%s", i ? " " : "", rules->paths[i]);
	sb_adds(why, "): ");
	for (size_t i = 0; i < paths->n && i < 5; i++)
		sb_addf(why, "%s%s", i ? ", " : "", paths->v[i]);
	if (paths->n > 5)
		sb_addf(why, " and %zu more", paths->n - 5);
	if (!paths->n)
		sb_adds(why, "no diff");
}

static int judge(struct watch_db *w, const struct watch_rules *rules, const struct series_row *s,
		 time_t now, struct watch_assembly *out, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, missing = STRBUF_INIT;
	struct strvec paths = STRVEC_INIT;
	const char *state = NULL;
	int r;

	if (s->n > rules->max_patches) {
		sb_addf(&why, "%d patches, more than [watch] max_patches = %ld", s->n,
			rules->max_patches);
		state = "skipped";
	} else if ((r = superseded(w, s, &why, err)) != 0) {
		if (r < 0)
			goto out;
		state = "skipped";
	} else if ((r = patches_of(w, s, &missing, &paths, err)) < 0) {
		goto out;
	} else if (missing.len) {
		if ((double)now - s->first_seen > rules->grace_s) {
			sb_addf(&why, "incomplete after the grace of %.0f s: patch%s %s of %d "
				"missing", rules->grace_s, strchr(missing.buf, ',') ||
				strstr(missing.buf, "more") ? "es" : "", missing.buf, s->n);
			state = "skipped";
		}
	} else if (!rules->npaths) {
		state = "queued";
	} else {
		state = "skipped";
		for (size_t i = 0; i < paths.n; i++)
			if (watch_path_matches(paths.v[i], rules->paths, rules->npaths))
				state = "queued";
		if (!strcmp(state, "skipped"))
			paths_reason(&why, rules, &paths);
	}
	r = state ? set_state(w, s, state, why.len ? why.buf : NULL, now, out, err) : 0;
out:
	sb_release(&why);
	sb_release(&missing);
	strvec_clear(&paths);
	return r;
}

/* Every incomplete or queued series to the state the rules give it. */
static int judge_all(struct watch_db *w, const struct watch_rules *rules, time_t now,
		     struct watch_assembly *out, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT id, root, title_key, author, state, version,"
					    " n, first_seen FROM series WHERE state IN"
					    " ('incomplete', 'queued') ORDER BY id", err);
	struct series_row *v = NULL;
	size_t n = 0, alloc = 0;
	int r = 0, step;

	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		ALLOC_GROW(v, n + 1, alloc);
		v[n] = (struct series_row){
			.id = (long)sqlite3_column_int64(st, 0),
			.root = xstrdup(watch_col_text(st, 1)),
			.title_key = xstrdup(watch_col_text(st, 2)),
			.author = xstrdup(watch_col_text(st, 3)),
			.state = xstrdup(watch_col_text(st, 4)),
			.version = sqlite3_column_int(st, 5),
			.n = sqlite3_column_int(st, 6),
			.first_seen = (double)sqlite3_column_int64(st, 7),
		};
		n++;
	}
	if (step != SQLITE_DONE)
		r = watch_db_error(w, err);
	sqlite3_finalize(st);
	for (size_t i = 0; !r && i < n; i++)
		r = judge(w, rules, &v[i], now, out, err);
	for (size_t i = 0; i < n; i++)
		series_row_release(&v[i]);
	free(v);
	return r;
}

/*
 * The first assembly of a watch marks when it began (cursors row
 * "watch:began", "pending" in a new database, then the time); unless
 * @rules measure history, every series it found incomplete or queued is
 * skipped as posted before then. A database from before the row existed
 * has none: its watch began long ago.
 */
static int mark_history(struct watch_db *w, const struct watch_rules *rules, time_t now,
			struct watch_assembly *out, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT 1 FROM cursors WHERE source = 'watch:began'"
					    " AND position = 'pending'", err);
	struct strvec ids = STRVEC_INIT;
	char *reason, *when;
	int r, began;

	if (!st)
		return -1;
	r = sqlite3_step(st);
	began = r != SQLITE_ROW;
	sqlite3_finalize(st);
	if (r != SQLITE_ROW && r != SQLITE_DONE)
		return watch_db_error(w, err);
	if (began)
		return 0;
	st = watch_db_prepare(w, "UPDATE cursors SET position = ? WHERE source = 'watch:began'",
			      err);
	if (!st)
		return -1;
	when = xasprintf("%lld", (long long)now);
	sqlite3_bind_text(st, 1, when, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	free(when);
	if (r || rules->history_measure)
		return r;
	st = watch_db_prepare(w, "SELECT id FROM series WHERE state IN ('incomplete', 'queued')"
			      " ORDER BY id", err);
	if (!st)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		strvec_pushf(&ids, "%lld", (long long)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	if (r != SQLITE_DONE) {
		strvec_clear(&ids);
		return watch_db_error(w, err);
	}
	reason = xstrdup("on the list before the watch began: its first scan takes the archive "
			 "as history ([watch] history = measure measures it)");
	r = 0;
	for (size_t i = 0; !r && i < ids.n; i++) {
		r = watch_series_set_state(w, strtol(ids.v[i], NULL, 10), "skipped", reason, now,
					   err);
		out->history += !r;
		out->changed += !r;
	}
	free(reason);
	strvec_clear(&ids);
	return r;
}

int watch_assemble(struct watch_db *w, const struct watch_rules *rules, time_t now,
		   struct watch_assembly *out, struct strbuf *err)
{
	struct strbuf ignored = STRBUF_INIT;

	memset(out, 0, sizeof(*out));
	if (watch_db_exec(w, "BEGIN IMMEDIATE", err))
		return -1;
	if (file_patches(w, now, out, err) || judge_all(w, rules, now, out, err) ||
	    mark_history(w, rules, now, out, err) || watch_db_exec(w, "COMMIT", err)) {
		/* (a failed COMMIT may have ended the transaction already) */
		(void)!watch_db_exec(w, "ROLLBACK", &ignored);
		sb_release(&ignored);
		return -1;
	}
	return 0;
}
