// SPDX-License-Identifier: GPL-2.0
/* A list archive (maildir, public-inbox v2) read into the watch's database. */
#include "watch_archive.h"
#include "watch_msg.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "run_command.h"

/* Mails per transaction: a kill -9 costs at most one batch read again. */
#define WATCH_BATCH	200

static void join_lines(struct strbuf *sb, const struct strvec *v)
{
	for (size_t i = 0; i < v->n; i++)
		sb_addf(sb, "%s%s", i ? "\n" : "", v->v[i]);
}

static int reject(struct watch_db *w, const char *source, const char *origin,
		  const char *reason, time_t now, struct watch_scan_stats *stats, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "INSERT INTO rejected(source, key, reason, at) "
					    "VALUES(?, ?, ?, ?)", err);
	int r;

	if (!st)
		return -2;
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, origin, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)now);
	r = sqlite3_step(st) == SQLITE_DONE ? -1 : watch_db_error(w, err) - 1;
	sqlite3_finalize(st);
	stats->rejected += r == -1;
	return r;
}

/*
 * Whether the mail filed as @message_id says what @buf says (the text
 * after the headers: a second delivery differs in Received: and such).
 * 1 the same, 0 another mail, -2 a database error.
 */
static int same_as_filed(struct watch_db *w, const char *message_id, const char *buf,
			 size_t len, struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT raw FROM messages WHERE message_id = ?",
					    err);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int r;

	if (!st)
		return -2;
	sqlite3_bind_text(st, 1, message_id, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		watch_msg_body(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), &a);
		watch_msg_body(buf, len, &b);
		r = a.len == b.len && !memcmp(sb_str(&a), sb_str(&b), a.len);
	} else if (r == SQLITE_DONE) {
		r = 1;	/* (not filed after all: nothing to tell apart) */
	} else {
		r = watch_db_error(w, err) - 1;
	}
	sqlite3_finalize(st);
	sb_release(&a);
	sb_release(&b);
	return r;
}

int watch_file_mail(struct watch_db *w, const char *source, const char *origin,
		    const char *buf, size_t len, long max_n, time_t now,
		    struct watch_scan_stats *stats, struct strbuf *err)
{
	struct watch_msg m;
	struct strbuf why = STRBUF_INIT, refs = STRBUF_INIT, paths = STRBUF_INIT,
		      trailers = STRBUF_INIT;
	sqlite3_stmt *st;
	int r;

	if (watch_msg_parse(buf, len, max_n, &m, &why)) {
		r = reject(w, source, origin, why.buf, now, stats, err);
		sb_release(&why);
		return r;
	}
	join_lines(&refs, &m.references);
	join_lines(&paths, &m.paths);
	join_lines(&trailers, &m.trailers);
	st = watch_db_prepare(w, "INSERT OR IGNORE INTO messages(message_id, in_reply_to, refs,"
			      " subject, from_addr, is_patch, is_reply, version, k, n, rfc, title,"
			      " paths, base_commit, trailers, origin, raw, seen_at, change_id)"
			      " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", err);
	if (!st) {
		r = -2;
		goto out;
	}
	sqlite3_bind_text(st, 1, m.message_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m.in_reply_to, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, sb_str(&refs), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, m.subject ? m.subject : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, m.from ? m.from : "", -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, m.tag.is_patch);
	sqlite3_bind_int(st, 7, m.tag.is_reply);
	sqlite3_bind_int(st, 8, m.tag.version);
	sqlite3_bind_int(st, 9, m.tag.k);
	sqlite3_bind_int(st, 10, m.tag.n);
	sqlite3_bind_int(st, 11, m.tag.rfc);
	sqlite3_bind_text(st, 12, m.tag.title, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 13, sb_str(&paths), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 14, m.base_commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 15, sb_str(&trailers), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 16, origin, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 17, buf, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 18, (sqlite3_int64)now);
	sqlite3_bind_text(st, 19, m.change_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		r = watch_db_error(w, err) - 1;
	} else {
		r = sqlite3_changes(w->db) > 0;
	}
	sqlite3_finalize(st);
	if (r == 1) {
		stats->read++;
	} else if (r == 0) {
		/*
		 * Anyone can send a mail with a Message-ID seen before: the
		 * first one stays filed, and the other is refused in the open
		 * rather than dropped as if it were the first again.
		 */
		r = same_as_filed(w, m.message_id, buf, len, err);
		if (r == 1) {
			stats->duplicates++;
			r = 0;
		} else if (r == 0) {
			sb_addf(&why, "Message-ID <%s> was filed before for another mail (a "
				"different text after the headers): refused", m.message_id);
			r = reject(w, source, origin, why.buf, now, stats, err);
		}
	}
out:
	watch_msg_release(&m);
	sb_release(&why);
	sb_release(&refs);
	sb_release(&paths);
	sb_release(&trailers);
	return r;
}

/* -2 is a database error (stop); -1 a refused mail (go on). */
static int db_failed(int r)
{
	return r < -1;
}

static int is_seen(struct watch_db *w, sqlite3_stmt *seen, const char *key)
{
	int r;

	sqlite3_reset(seen);
	sqlite3_bind_text(seen, 1, key, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(seen) == SQLITE_ROW;
	(void)w;
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file name of @dir/cur and @dir/new, as "cur/NAME", sorted by name. */
static int maildir_list(const char *dir, struct strvec *out, struct strbuf *err)
{
	static const char *const subs[] = { "new", "cur" };

	for (size_t i = 0; i < ARRAY_SIZE(subs); i++) {
		char *d = xasprintf("%s/%s", dir, subs[i]);
		DIR *dh = opendir(d);
		struct dirent *de;

		if (!dh) {
			sb_addf(err, "%s: %s", d, strerror(errno));
			free(d);
			return -1;
		}
		while ((de = readdir(dh)))
			if (de->d_name[0] != '.')
				strvec_pushf(out, "%s/%s", subs[i], de->d_name);
		closedir(dh);
		free(d);
	}
	/* by the name after "cur/" or "new/": delivery order for most MDAs */
	qsort(out->v, out->n, sizeof(*out->v), cmp_str);
	return 0;
}

static int begin(struct watch_db *w, struct strbuf *err)
{
	return watch_db_exec(w, "BEGIN IMMEDIATE", err);
}

static int commit(struct watch_db *w, struct strbuf *err)
{
	return watch_db_exec(w, "COMMIT", err);
}

static int rollback(struct watch_db *w)
{
	struct strbuf ignored = STRBUF_INIT;
	int r = watch_db_exec(w, "ROLLBACK", &ignored);

	sb_release(&ignored);
	return r;
}

/*
 * Maildir file @name could not be read (@errnum). Too big, no file or a
 * symbolic link (O_NOFOLLOW: ELOOP; a link could name any file of the
 * host, and a mail is a file of its own) are the mail's own and final:
 * refused, reject()'s result. Anything else (gone: a reader moved it from
 * new/ to cur/ since the listing; EIO, EACCES) is left unseen for the
 * next scan, 1: marking it seen would lose the mail for good.
 */
static int unreadable(struct watch_db *w, const char *name, int errnum, time_t now,
		      struct watch_scan_stats *stats, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int fr;

	if (errnum != EFBIG && errnum != EINVAL && errnum != ELOOP) {
		stats->deferred++;
		return 1;
	}
	if (errnum == ELOOP)
		sb_adds(&why, "a symbolic link, not a mail: never followed");
	else
		sb_addf(&why, "cannot read it: %s", strerror(errnum));
	fr = reject(w, "maildir", name, why.buf, now, stats, err);
	sb_release(&why);
	return fr;
}

static int maildir_scan(struct watch_db *w, const char *dir, long max_n, time_t now,
			struct watch_scan_stats *stats, struct strbuf *err)
{
	struct strvec files = STRVEC_INIT;
	sqlite3_stmt *seen = NULL, *mark = NULL;
	int r = -1, in_tx = 0, batch = 0;

	if (maildir_list(dir, &files, err))
		goto out;
	seen = watch_db_prepare(w, "SELECT 1 FROM seen WHERE source = 'maildir' AND key = ?", err);
	mark = watch_db_prepare(w, "INSERT OR IGNORE INTO seen(source, key) VALUES('maildir', ?)",
				err);
	if (!seen || !mark)
		goto out;
	for (size_t i = 0; i < files.n; i++) {
		/* the name up to ':' (the flags after it change when a reader marks it) */
		char *key = xstrndup(files.v[i] + 4, strcspn(files.v[i] + 4, ":"));
		char *path = xasprintf("%s/%s", dir, files.v[i]);
		struct strbuf buf = STRBUF_INIT;
		int fr = 0;

		if (!is_seen(w, seen, key)) {
			if (!in_tx && begin(w, err))
				fr = -2;
			else
				in_tx = 1;
			if (db_failed(fr)) {
				/* the database refused the transaction */
			} else if (read_regular_file(path, &buf, WATCH_MSG_MAX_BYTES)) {
				fr = unreadable(w, files.v[i], errno, now, stats, err);
				if (fr == 1)
					goto next;
			} else {
				fr = watch_file_mail(w, "maildir", files.v[i], buf.buf, buf.len, max_n, now,
						     stats, err);
			}
			if (!db_failed(fr)) {
				sqlite3_reset(mark);
				sqlite3_bind_text(mark, 1, key, -1, SQLITE_TRANSIENT);
				if (sqlite3_step(mark) != SQLITE_DONE)
					fr = watch_db_error(w, err) - 1;
			}
			if (!db_failed(fr) && ++batch == WATCH_BATCH) {
				fr = commit(w, err) ? -2 : 0;
				in_tx = fr ? in_tx : 0;
				batch = 0;
			}
		}
next:
		sb_release(&buf);
		free(path);
		free(key);
		if (db_failed(fr))
			goto out;
	}
	r = in_tx && commit(w, err) ? -1 : 0;
	in_tx = in_tx && r;
out:
	if (in_tx)
		rollback(w);
	sqlite3_finalize(seen);
	sqlite3_finalize(mark);
	strvec_clear(&files);
	return r;
}

/*
 * The environment of every git run on an epoch. An epoch is a folder the
 * list's mirror wrote, and git reads its config (and whatever that config
 * includes) as the repository's own: an epoch whose config names a
 * promisor remote at "ext::SCRIPT" with protocol.ext.allow = always makes
 * `git cat-file blob COMMIT:m` of a missing object run SCRIPT as the lab
 * (a lazy fetch; tests/unit/test_watch_archive.c). So: no system or
 * global config (the operator's aliases, pagers and helpers are not
 * wanted either), no transport at all (GIT_ALLOW_PROTOCOL overrides a
 * repository's protocol.<name>.allow, which protocol.allow = never alone
 * does not), no lazy fetch (git 2.44 and later), no replace objects (a
 * refs/replace/ entry would swap the mail a commit holds), and the keys
 * that name programs git might start pinned to values that start none.
 * Command-line config (GIT_CONFIG_COUNT) wins over the repository's.
 */
static const char *const epoch_git_env[] = {
	"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
	"XDG_CONFIG_HOME=/nonexistent", "GIT_NO_REPLACE_OBJECTS=1", "GIT_NO_LAZY_FETCH=1",
	"GIT_ALLOW_PROTOCOL=none", "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat",
	"LC_ALL=C",
	"GIT_CONFIG_COUNT=9",
	"GIT_CONFIG_KEY_0=protocol.allow", "GIT_CONFIG_VALUE_0=never",
	"GIT_CONFIG_KEY_1=protocol.ext.allow", "GIT_CONFIG_VALUE_1=never",
	"GIT_CONFIG_KEY_2=protocol.file.allow", "GIT_CONFIG_VALUE_2=never",
	"GIT_CONFIG_KEY_3=core.fsmonitor", "GIT_CONFIG_VALUE_3=false",
	"GIT_CONFIG_KEY_4=core.hooksPath", "GIT_CONFIG_VALUE_4=/dev/null",
	"GIT_CONFIG_KEY_5=core.pager", "GIT_CONFIG_VALUE_5=cat",
	"GIT_CONFIG_KEY_6=gc.auto", "GIT_CONFIG_VALUE_6=0",
	"GIT_CONFIG_KEY_7=maintenance.auto", "GIT_CONFIG_VALUE_7=false",
	"GIT_CONFIG_KEY_8=core.alternateRefsCommand", "GIT_CONFIG_VALUE_8=",
	NULL,
};

/* git @args on @git_dir under epoch_git_env, stdin from @in (NULL: none), stdout into @out. */
static int git_out_in(const char *git_dir, const char *const *args, const char *in,
		      struct strbuf *out, struct strbuf *err)
{
	struct strvec argv = STRVEC_INIT;
	struct child c = { .env = epoch_git_env, .stdin_path = in, .out = out, .null_stdout = 1 };
	int r;

	strvec_push(&argv, "git");
	strvec_pushf(&argv, "--git-dir=%s", git_dir);
	for (size_t i = 0; args[i]; i++)
		strvec_push(&argv, args[i]);
	c.argv = (const char *const *)argv.v;
	r = run_command(&c);
	sb_trim_trailing_newlines(out);
	if (r)
		sb_addf(err, "%s: git %s failed (status %d)", git_dir, args[0], r);
	strvec_clear(&argv);
	return r ? -1 : 0;
}

static int git_out(const char *git_dir, const char *const *args, struct strbuf *out,
		   struct strbuf *err)
{
	return git_out_in(git_dir, args, NULL, out, err);
}

/*
 * An epoch (its folder, objects/ and config) must be the lab's user's:
 * git runs another user's repository config as the lab's user, and with
 * --git-dir given it does not check ownership itself (safe.directory is
 * for repositories it discovers). Someone else's mirror is refused, named.
 */
static int epoch_owned(const char *git_dir, struct strbuf *err)
{
	static const char *const parts[] = { "", "/objects", "/config" };
	struct stat st;

	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		char *p = xasprintf("%s%s", git_dir, parts[i]);
		int r = stat(p, &st);

		if (!r && st.st_uid != geteuid()) {
			sb_addf(err, "%s: owned by uid %u, not by the lab's uid %u: refused (git would "
				"run another user's repository config as the lab's user; clone the "
				"epoch as this user, or run the watch as its owner)", p,
				(unsigned)st.st_uid, (unsigned)geteuid());
			free(p);
			return -1;
		}
		if (r && errno != ENOENT) {
			sb_addf(err, "%s: %s", p, strerror(errno));
			free(p);
			return -1;
		}
		free(p);
	}
	return 0;
}

static char *cursor_of(struct watch_db *w, const char *source)
{
	struct strbuf ignored = STRBUF_INIT;
	sqlite3_stmt *st = watch_db_prepare(w, "SELECT position FROM cursors WHERE source = ?",
					    &ignored);
	char *pos = NULL;

	sb_release(&ignored);
	if (!st)
		return NULL;
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		pos = xstrdup(watch_col_text(st, 0));
	sqlite3_finalize(st);
	return pos;
}

static int set_cursor(struct watch_db *w, const char *source, const char *pos,
		      struct strbuf *err)
{
	sqlite3_stmt *st = watch_db_prepare(w, "INSERT OR REPLACE INTO cursors(source, position)"
					    " VALUES(?, ?)", err);
	int r;

	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, source, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, pos, -1, SQLITE_STATIC);
	r = sqlite3_step(st) == SQLITE_DONE ? 0 : watch_db_error(w, err);
	sqlite3_finalize(st);
	return r;
}

/* The commits of @git_dir after the cursor, oldest first (all when it is gone). */
static int epoch_commits(struct watch_db *w, const char *git_dir, const char *source,
			 struct strvec *out, struct strbuf *err)
{
	struct strbuf list = STRBUF_INIT;
	char *cur = cursor_of(w, source), *range = cur ? xasprintf("%s..HEAD", cur) : NULL;
	const char *args[] = { "rev-list", "--reverse", "--first-parent",
			       range ? range : "HEAD", NULL };
	struct strbuf ignored = STRBUF_INIT;
	int r = git_out(git_dir, args, &list, range ? &ignored : err);

	if (r && range) {
		/* a rewritten epoch: read it all again; Message-IDs keep it one */
		args[3] = "HEAD";
		sb_reset(&list);
		r = git_out(git_dir, args, &list, err);
	}
	for (char *s = list.buf, *nl; !r && s && *s; s = nl ? nl + 1 : NULL) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (*s)
			strvec_push(out, s);
	}
	sb_release(&ignored);
	sb_release(&list);
	free(range);
	free(cur);
	return r;
}

/*
 * After `git cat-file blob COMMIT:m` failed: 0 when COMMIT has no "m" (a
 * deletion, as public-inbox records spam removed), -1 with @err when the
 * mail is there but could not be read (a broken pack, a full disk, no
 * git): then the scan stops before its cursor passes the mail.
 */
static int mail_absent(const char *git_dir, const char *commit, const char *obj,
		       struct strbuf *err)
{
	const char *has_mail[] = { "cat-file", "-e", obj, NULL };
	const char *has_commit[] = { "cat-file", "-e", commit, NULL };
	struct strbuf out = STRBUF_INIT, ignored = STRBUF_INIT;
	int r = 0;

	if (!git_out(git_dir, has_mail, &out, &ignored) ||
	    git_out(git_dir, has_commit, &out, &ignored)) {
		sb_addf(err, "%s: cannot read the mail of commit %s", git_dir, commit);
		r = -1;
	}
	sb_release(&out);
	sb_release(&ignored);
	return r;
}

#define MAIL_ABSENT	(-1)	/* mail_sizes(): the commit has no "m" */
#define MAIL_NOT_BLOB	(-2)	/* its "m" is a tree or worse */

/*
 * The size of each commit's mail (COMMIT:m) into @sizes, or MAIL_ABSENT,
 * MAIL_NOT_BLOB, from one `git cat-file --batch-check`: a mail larger
 * than WATCH_MSG_MAX_BYTES is refused before a byte of it is read (`git
 * cat-file blob` hands over the whole blob, whatever its size, and the
 * capture would hold it all). The object names go in through a file of
 * our own (run_command() takes stdin from a file).
 */
static int mail_sizes(const char *git_dir, const struct strvec *commits, long long *sizes,
		      struct strbuf *err)
{
	const char *args[] = { "cat-file", "--batch-check=%(objecttype) %(objectsize)", NULL };
	const char *tmpdir = getenv("TMPDIR");
	char *tmp = xasprintf("%s/mglrulab-watch-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	struct strbuf out = STRBUF_INIT;
	int fd = mkostemp(tmp, O_CLOEXEC), r = -1;
	FILE *fp = fd < 0 ? NULL : fdopen(fd, "w");
	size_t i = 0;

	if (!fp) {
		sb_addf(err, "%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	for (size_t k = 0; k < commits->n; k++)
		fprintf(fp, "%s:m\n", commits->v[k]);
	if (fclose(fp)) {
		sb_addf(err, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	if (git_out_in(git_dir, args, tmp, &out, err))
		goto out;
	for (char *line = out.buf, *nl; line && *line && i < commits->n; line = nl ? nl + 1 : NULL) {
		char *end;
		long long v;

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(line, "blob ", 5) && (v = strtoll(line + 5, &end, 10)) >= 0 && !*end)
			sizes[i++] = v;
		else if (strlen(line) > 8 && !strcmp(line + strlen(line) - 8, " missing"))
			sizes[i++] = MAIL_ABSENT;
		else
			sizes[i++] = MAIL_NOT_BLOB;
	}
	r = i == commits->n ? 0 : -1;
	if (r)
		sb_addf(err, "%s: git cat-file --batch-check answered %zu of %zu objects", git_dir,
			i, commits->n);
out:
	if (fd >= 0)
		unlink(tmp);
	sb_release(&out);
	free(tmp);
	return r;
}

/* File @commit's mail @obj of @size bytes (mail_sizes()), or say why not. */
static int epoch_mail(struct watch_db *w, const char *git_dir, const char *source,
		      const char *commit, const char *obj, long long size, long max_n,
		      time_t now, struct watch_scan_stats *stats, struct strbuf *err)
{
	const char *args[] = { "cat-file", "blob", obj, NULL };
	struct strbuf mail = STRBUF_INIT, why = STRBUF_INIT;
	int fr;

	/* a commit without "m" deletes a mail (spam): nothing to read */
	if (size == MAIL_ABSENT) {
		fr = mail_absent(git_dir, commit, obj, err) ? -2 : 0;
	} else if (size == MAIL_NOT_BLOB || size > WATCH_MSG_MAX_BYTES) {
		if (size == MAIL_NOT_BLOB)
			sb_adds(&why, "\"m\" is not a file (a blob) of the commit");
		else
			sb_addf(&why, "%lld bytes, more than the %u a mail may have", size,
				WATCH_MSG_MAX_BYTES);
		fr = reject(w, source, obj, why.buf, now, stats, err);
	} else if (git_out(git_dir, args, &mail, &why)) {
		fr = mail_absent(git_dir, commit, obj, err) ? -2 : 0;
	} else {
		fr = watch_file_mail(w, source, obj, mail.buf, mail.len, max_n, now, stats, err);
	}
	sb_release(&mail);
	sb_release(&why);
	return fr;
}

static int epoch_scan(struct watch_db *w, const char *git_dir, int epoch, long max_n, time_t now,
		      struct watch_scan_stats *stats, struct strbuf *err)
{
	char *source = xasprintf("public-inbox:%d", epoch);
	struct strvec commits = STRVEC_INIT;
	long long *sizes = NULL;
	int r = epoch_owned(git_dir, err), in_tx = 0;

	if (!r)
		r = epoch_commits(w, git_dir, source, &commits, err);
	if (!r && commits.n) {
		sizes = xcalloc(commits.n, sizeof(*sizes));
		r = mail_sizes(git_dir, &commits, sizes, err);
	}
	for (size_t i = 0; !r && i < commits.n; i++) {
		char *obj = xasprintf("%s:m", commits.v[i]);
		int fr;

		if (!in_tx && !(r = begin(w, err)))
			in_tx = 1;
		if (r)
			fr = 0;
		else
			fr = epoch_mail(w, git_dir, source, commits.v[i], obj, sizes[i], max_n, now,
					stats, err);
		if (!r && db_failed(fr))
			r = -1;
		if (!r && (r = set_cursor(w, source, commits.v[i], err)) == 0 &&
		    ((i + 1) % WATCH_BATCH == 0 || i + 1 == commits.n)) {
			r = commit(w, err);
			in_tx = r ? in_tx : 0;
		}
		free(obj);
	}
	if (in_tx)
		rollback(w);
	strvec_clear(&commits);
	free(sizes);
	free(source);
	return r;
}

int watch_archive_scan(struct watch_db *w, const char *archive, long max_n, time_t now,
		       struct watch_scan_stats *stats, struct strbuf *err)
{
	char *cur = xasprintf("%s/cur", archive), *epoch0 = xasprintf("%s/git/0.git", archive);
	int r;

	if (is_dir(cur)) {
		r = maildir_scan(w, archive, max_n, now, stats, err);
	} else if (is_dir(epoch0)) {
		r = 0;
		for (int e = 0; !r; e++) {
			char *gd = xasprintf("%s/git/%d.git", archive, e);

			if (!is_dir(gd)) {
				free(gd);
				break;
			}
			r = epoch_scan(w, gd, e, max_n, now, stats, err);
			free(gd);
		}
	} else {
		sb_addf(err, "%s: neither a maildir (cur/, new/) nor a public-inbox v2 folder "
			"(git/0.git)", archive);
		r = -1;
	}
	free(cur);
	free(epoch0);
	return r;
}
