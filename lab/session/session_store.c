// SPDX-License-Identifier: GPL-2.0
/* The session folder: creation, the lock, run records on disk. */
#include "session.h"
#include "fsutil.h"
#include "lockfile.h"
#include "run_record.h"
#include "stamped_dir.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int session_dir_create(const char *reports_dir, const char *state_dir, const char *mode,
		       char **dir, char **id, int *lock_fd)
{
	int r;

	*id = NULL;
	*dir = stamped_dir_free(reports_dir, mode);
	if (!*dir)
		return lab_error("cannot find a free session folder name in %s", reports_dir);
	*id = xstrdup(path_basename(*dir));
	/*
	 * The lock before anything on disk: a run that loses the race to
	 * another session must leave neither an empty folder nor
	 * reports/latest pointing at one (the next `run --resume` would
	 * find "not a session folder" there).
	 */
	r = session_lock(state_dir, *dir, lock_fd);
	if (r) {
		free(*id);
		free(*dir);
		*id = *dir = NULL;
		return r;
	}
	/* Ours alone (not mkdir_p): a folder that appeared meanwhile is someone else's. */
	if (mkdir_new(*dir, 0755))
		return lab_error("cannot create %s: %s", *dir, strerror(errno));
	char *runs = xasprintf("%s/runs", *dir), *logs = xasprintf("%s/logs", *dir);
	r = mkdir(runs, 0755) || mkdir(logs, 0755);
	free(runs);
	free(logs);
	if (r) {
		r = lab_error("cannot create %s: %s", *dir, strerror(errno));
		if (rm_rf(*dir))
			warning("cannot remove %s: %s", *dir, strerror(errno));
		return r;
	}
	/* reports/latest -> <id>, replaced atomically. */
	stamped_dir_link(reports_dir, "latest", *id);
	return LAB_OK;
}

int session_dir_find(const char *reports_dir, const char *id, char **dir)
{
	char *cand;

	if (!id)
		cand = xasprintf("%s/latest", reports_dir);
	else if (strchr(id, '/'))
		cand = xstrdup(id);
	else
		cand = xasprintf("%s/%s", reports_dir, id);
	char *json = xasprintf("%s/session.json", cand);
	int ok = is_regular_file(json);
	free(json);
	if (!ok) {
		int r = user_error("--resume: %s is not a session folder (no session.json)%s", cand,
				   id ? "" : "; name one: mglrulab run --resume SESSION");
		free(cand);
		return r;
	}
	char *real = realpath(cand, NULL);
	free(cand);
	*dir = real ? real : NULL;
	return real ? LAB_OK : lab_error("cannot resolve the session folder: %s", strerror(errno));
}

int session_lock(const char *state_dir, const char *session_dir, int *fd_out)
{
	char *path = xasprintf("%s/session.lock", state_dir);
	char *who = xasprintf("pid %ld, session %s\n", (long)getpid(), session_dir);
	struct strbuf held_by = STRBUF_INIT;
	int r = LAB_OK;

	if (mkdir_p(state_dir, 0755)) {
		r = lab_error("cannot create %s: %s", state_dir, strerror(errno));
		goto out;
	}
	/* The descriptor stays open (and locked) until the session ends. */
	switch (lockfile_take(path, 0, who, &held_by, fd_out)) {
	case LOCKFILE_TAKEN:
		break;
	case LOCKFILE_HELD:
		r = user_error("another session holds %s (%s); wait for it or stop it first",
			       path, sb_str(&held_by));
		break;
	case LOCKFILE_FAILED:
		r = lab_error("cannot lock %s: %s", path, strerror(errno));
		break;
	}
out:
	sb_release(&held_by);
	free(who);
	free(path);
	return r;
}

static int sweep_one(const char *dir)
{
	int n = remove_atomic_leftovers(dir);

	return n > 0 ? n : 0;
}

int session_dir_sweep(const char *dir)
{
	char *runs = xasprintf("%s/runs", dir), *logs = xasprintf("%s/logs", dir);
	int n = sweep_one(dir) + sweep_one(runs);
	DIR *d = opendir_nofollow(logs);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = xasprintf("%s/%s", logs, de->d_name);

		n += sweep_one(sub);	/* a link or a file there: refused by the open */
		free(sub);
	}
	if (d)
		closedir(d);
	free(logs);
	free(runs);
	return n;
}

int session_write_json(const char *path, const json_t *obj)
{
	char *text = json_dumps(obj, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	int r;

	if (!text)
		return -1;
	size_t len = strlen(text);
	text = xrealloc(text, len + 2);
	text[len] = '\n';
	text[len + 1] = '\0';
	r = write_file_atomic(path, text, len + 1);
	free(text);
	return r;
}

char *session_run_path(const char *dir, int seq)
{
	return xasprintf("%s/runs/%04d.json", dir, seq);
}

int session_write_run(const char *dir, int seq, const json_t *rec)
{
	char *path = session_run_path(dir, seq);
	int r = session_write_json(path, rec);

	if (r)
		lab_error("cannot write %s: %s; the run does not count, and `run --resume` "
			  "runs it again", path, strerror(errno));
	free(path);
	return r ? -1 : 0;
}

struct loaded_run {
	json_t *rec;
	int seq;
};

static int by_seq(const void *a, const void *b)
{
	int x = ((const struct loaded_run *)a)->seq, y = ((const struct loaded_run *)b)->seq;

	return (x > y) - (x < y);
}

/*
 * A finished record's name: the digits of session_run_path() ("%04d", so
 * four or more) and ".json". Temporary files never match.
 */
static int is_record_name(const char *name)
{
	size_t digits = strspn(name, "0123456789");

	return digits >= 4 && !strcmp(name + digits, ".json");
}

/*
 * The seq a record name stands for, when it is the very name
 * session_run_path() gives that seq; else -1 ("09999.json" is not
 * "9999.json": a second file for one run, which must not load twice).
 */
static int seq_of_name(const char *name)
{
	long seq;
	char *digits = xstrndup(name, strspn(name, "0123456789"));
	int r = -1;

	if (!parse_long(digits, 0, INT_MAX, &seq)) {
		char *canonical = xasprintf("%04ld.json", seq);

		if (!strcmp(canonical, name))
			r = (int)seq;
		free(canonical);
	}
	free(digits);
	return r;
}

/* One record file: its seq from the name, checked against the content. 0 or -1 (said). */
static int load_run(const char *dir, const char *runs_dir, const char *name,
		    struct loaded_run *out, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", runs_dir, name);
	int seq = seq_of_name(name), r = -1;
	json_error_t jerr;
	json_t *rec = NULL;
	long long rec_seq;

	if (seq < 0) {
		size_t digits = strspn(name, "0123456789");
		char *num = xstrndup(name, digits);
		long n = 0;
		char *canonical = NULL;

		if (!parse_long(num, 0, INT_MAX, &n))
			canonical = session_run_path(dir, (int)n);
		if (canonical && path_exists(canonical))
			sb_addf(err, "%s: a second record of run %ld beside %s; move %s away\n",
				path, n, canonical, path);
		else
			sb_addf(err, "%s: not a run record name (a record is its run's number, "
				"four digits or more with no extra leading zero, and .json); move "
				"it away\n", path);
		free(canonical);
		free(num);
		goto out;
	}
	rec = json_load_file(path, 0, &jerr);
	if (!rec || run_record_seq(rec, &rec_seq)) {
		sb_addf(err, "%s: not a run record (%s); move it away to rerun that run\n",
			path, rec ? "no seq" : jerr.text);
		goto out;
	}
	if (rec_seq != seq) {
		sb_addf(err, "%s: its seq is %lld, not %d as its name says; move it away to "
			"rerun that run\n", path, rec_seq, seq);
		goto out;
	}
	out->rec = rec;
	out->seq = seq;
	rec = NULL;
	r = 0;
out:
	json_decref(rec);
	free(path);
	return r;
}

json_t *session_load_runs(const char *dir, struct strbuf *err)
{
	char *runs_dir = xasprintf("%s/runs", dir);
	DIR *d = opendir(runs_dir);
	struct dirent *de;
	struct loaded_run *v = NULL;
	json_t *out = json_array();
	size_t n = 0, alloc = 0;

	if (!d && errno != ENOENT)
		sb_addf(err, "%s: cannot read: %s\n", runs_dir, strerror(errno));
	while (d && (de = readdir(d))) {
		if (!is_record_name(de->d_name))
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		if (!load_run(dir, runs_dir, de->d_name, &v[n], err))
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), by_seq);
	/* Names are unique and each seq has one name: no seq can be here twice. */
	for (size_t i = 0; i < n; i++) {
		if (i && v[i].seq == v[i - 1].seq)
			die("bug: run %d loaded twice from %s", v[i].seq, runs_dir);
		json_array_append_new(out, v[i].rec);
	}
	free(v);
	free(runs_dir);
	return out;
}
