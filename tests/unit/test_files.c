// SPDX-License-Identifier: GPL-2.0
/* Files the lab writes and reads back: atomic writes, run records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fsutil.h"
#include "session.h"
#include "util.h"

static char *scratch(void)
{
	char tmpl[] = "/tmp/mglrulab-test-files.XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return xstrdup(tmpl);
}

static char *slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	assert_int_equal(read_file(path, &sb, 0), 0);
	return sb_detach(&sb);
}

/*
 * A symlink planted at the name the temporary file used to have
 * (<path>.tmp.<pid>) must not be followed: its target stays as it was.
 */
static void test_atomic_write_ignores_planted_symlink(void **state)
{
	char *dir = scratch();
	char *victim = xasprintf("%s/victim", dir), *out = xasprintf("%s/out.html", dir);
	char *planted = xasprintf("%s.tmp.%ld", out, (long)getpid());
	char *text;
	struct stat st;

	(void)state;
	assert_int_equal(write_file_atomic(victim, "precious\n", 9), 0);
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(write_file_atomic(out, "report\n", 7), 0);
	text = slurp(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	text = slurp(out);
	assert_string_equal(text, "report\n");
	free(text);
	/* The usual permissions, not mkstemp's 0600 (umask 022 in this test). */
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	/* The planted link is left alone and no temporary file is left behind. */
	assert_int_equal(lstat(planted, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(rm_rf(dir), 0);
	free(planted);
	free(out);
	free(victim);
	free(dir);
}

/* SIGALRM only interrupts: a write_user_file() that blocks fails with EINTR instead of hanging. */
static void on_alarm(int sig)
{
	(void)sig;
}

static void arm_alarm(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART */
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	alarm(5);
}

/*
 * "-" is standard output for every output option: `report --html -`
 * once created a file named "-" in the current folder instead.
 */
static void test_user_output_dash_is_stdout(void **state)
{
	char *dir = scratch(), *cwd = getcwd(NULL, 0), *cap = xasprintf("%s/captured", dir);
	char *dash = xasprintf("%s/-", dir), *text;
	int saved, fd;
	(void)state;

	assert_true(user_output_is_stdout("-"));
	assert_true(user_output_is_stdout(NULL));
	assert_false(user_output_is_stdout("-x"));
	assert_false(user_output_is_stdout("./-"));
	assert_string_equal(user_output_name("-"), "standard output");
	assert_string_equal(user_output_name("a.html"), "a.html");
	assert_int_equal(chdir(dir), 0);
	fd = open(cap, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	fflush(stdout);
	saved = dup(1);
	dup2(fd, 1);
	close(fd);
	assert_int_equal(write_user_output("-", "<html>\n", 7), 0);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(access(dash, F_OK), -1);
	text = slurp(cap);
	assert_string_equal(text, "<html>\n");
	free(text);
	/* any other name is still write_user_file()'s */
	assert_int_equal(write_user_output(dash, "x", 1), 0);
	text = slurp(dash);
	assert_string_equal(text, "x");
	free(text);
	assert_int_equal(rm_rf(dir), 0);
	free(cwd);
	free(cap);
	free(dash);
	free(dir);
}

/*
 * Outputs the user names (-o, --html, --junit): a regular file, new or
 * old, is written atomically; a folder is refused, not replaced; /dev/null
 * takes the output in place (it must not be renamed over).
 */
static void test_user_file_regular_and_null(void **state)
{
	char *dir = scratch(), *reg = xasprintf("%s/out.txt", dir), *text;
	(void)state;

	assert_int_equal(write_user_file(reg, "a\n", 2), 0);
	assert_int_equal(write_user_file(reg, "b\n", 2), 0);
	text = slurp(reg);
	assert_string_equal(text, "b\n");
	free(text);
	errno = 0;
	assert_int_equal(write_user_file(dir, "x", 1), -1);
	assert_int_equal(errno, EISDIR);
	assert_int_equal(write_user_file("/dev/null", "x", 1), 0);
	assert_int_equal(rm_rf(dir), 0);
	free(reg);
	free(dir);
}

/*
 * A FIFO or a device at the output is refused, promptly: before, a FIFO
 * with a reader got the report and one without hung the command, and a
 * device was written over (/dev/zero stands in for /dev/loop0).
 */
static void test_user_file_refuses_special_files(void **state)
{
	char *dir = scratch(), *fifo = xasprintf("%s/fifo", dir), got[16];
	struct stat st;
	int rd;
	(void)state;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* No reader: refused, not waited on. */
	arm_alarm();
	errno = 0;
	assert_int_equal(write_user_file(fifo, "report\n", 7), -1);
	alarm(0);
	assert_int_equal(errno, EINVAL);
	/* With a reader: still refused, and nothing reaches it. */
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	errno = 0;
	assert_int_equal(write_user_file(fifo, "report\n", 7), -1);
	assert_int_equal(errno, EINVAL);
	assert_true(read(rd, got, sizeof(got)) <= 0);
	close(rd);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	/* A device other than /dev/null. */
	errno = 0;
	assert_int_equal(write_user_file("/dev/zero", "x", 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(user_file_strerror(EINVAL), "not a regular file"));
	assert_int_equal(rm_rf(dir), 0);
	free(fifo);
	free(dir);
}

/*
 * A file read that others may have planted (history's cache and state):
 * a FIFO is refused at once instead of hanging the reader, a link to
 * /dev/zero is not followed, a file over the limit is refused by its size.
 */
static void test_read_regular_file_refuses_planted(void **state)
{
	char *dir = scratch(), *fifo = xasprintf("%s/fifo", dir);
	char *link = xasprintf("%s/zero", dir), *big = xasprintf("%s/big", dir);
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	arm_alarm();
	errno = 0;
	assert_int_equal(read_regular_file(fifo, &sb, 1024), -1);
	alarm(0);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(symlink("/dev/zero", link), 0);
	errno = 0;
	assert_int_equal(read_regular_file(link, &sb, 1024), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(read_regular_file("/dev/zero", &sb, 1024), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(write_file_atomic(big, "0123456789", 10), 0);
	assert_int_equal(read_regular_file(big, &sb, 9), -1);
	assert_int_equal(errno, EFBIG);
	assert_int_equal(sb.len, 0);
	assert_int_equal(read_regular_file(big, &sb, 10), 0);
	assert_string_equal(sb_str(&sb), "0123456789");
	sb_release(&sb);
	assert_int_equal(rm_rf(dir), 0);
	free(fifo);
	free(link);
	free(big);
	free(dir);
}

/*
 * A symbolic link at the output is refused whatever it points to (a
 * FIFO, /dev/null, a regular file, nothing), and left as it was: before,
 * `ln -s /dev/loop0 out.html` got the page written onto the device.
 */
static void test_user_file_refuses_symlinks(void **state)
{
	char *dir = scratch(), *fifo = xasprintf("%s/fifo", dir);
	char *victim = xasprintf("%s/victim", dir), *link = xasprintf("%s/out.html", dir);
	char *missing = xasprintf("%s/missing", dir), *text, got[16];
	const char *targets[] = { fifo, "/dev/null", victim, missing };
	struct stat st;
	int rd;
	(void)state;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	rd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(write_file_atomic(victim, "precious\n", 9), 0);
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		assert_int_equal(symlink(targets[i], link), 0);
		arm_alarm();
		errno = 0;
		assert_int_equal(write_user_file(link, "report\n", 7), -1);
		alarm(0);
		assert_int_equal(errno, ELOOP);
		assert_int_equal(lstat(link, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
		assert_int_equal(unlink(link), 0);
	}
	assert_true(read(rd, got, sizeof(got)) <= 0);
	close(rd);
	text = slurp(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	assert_false(path_exists(missing));
	assert_non_null(strstr(user_file_strerror(ELOOP), "symbolic link"));
	assert_int_equal(rm_rf(dir), 0);
	free(missing);
	free(link);
	free(victim);
	free(fifo);
	free(dir);
}

static void test_copy_file_refuses_symlink(void **state)
{
	char *dir = scratch();
	char *victim = xasprintf("%s/victim", dir), *src = xasprintf("%s/src", dir);
	char *dst = xasprintf("%s/dst", dir), *text;

	(void)state;
	assert_int_equal(write_file_atomic(victim, "precious\n", 9), 0);
	assert_int_equal(write_file_atomic(src, "new\n", 4), 0);
	assert_int_equal(symlink(victim, dst), 0);
	assert_int_equal(copy_file(src, dst, 0644), -1);
	assert_int_equal(errno, ELOOP);
	text = slurp(victim);
	assert_string_equal(text, "precious\n");
	free(text);
	assert_int_equal(rm_rf(dir), 0);
	free(dst);
	free(src);
	free(victim);
	free(dir);
}

static void test_mkdir_new_is_exclusive(void **state)
{
	char *dir = scratch();
	char *sub = xasprintf("%s/a/b.tmp", dir), *link = xasprintf("%s/l.tmp", dir);

	(void)state;
	assert_int_equal(mkdir_new(sub, 0755), 0);
	assert_true(is_dir(sub));
	assert_int_equal(mkdir_new(sub, 0755), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(symlink(sub, link), 0);
	assert_int_equal(mkdir_new(link, 0755), -1);
	assert_int_equal(rm_rf(dir), 0);
	free(link);
	free(sub);
	free(dir);
}

/* Records past run 9,999 have five-digit names; all must be read back. */
static void test_load_runs_past_9999(void **state)
{
	static const int seqs[] = { 1, 9999, 10000, 123456 };
	char *dir = scratch(), *runs = xasprintf("%s/runs", dir), *tmp;
	struct strbuf err = STRBUF_INIT;
	json_t *got;

	(void)state;
	assert_int_equal(mkdir_p(runs, 0755), 0);
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++) {
		char *path = session_run_path(dir, seqs[i]);
		json_t *rec = json_pack("{s:i}", "seq", seqs[i]);

		assert_int_equal(session_write_json(path, rec), 0);
		json_decref(rec);
		free(path);
	}
	/* Not records: a leftover temporary file and a stray name. */
	tmp = xasprintf("%s/10001.json.tmp.Ab12Cd", runs);
	assert_int_equal(write_file_atomic(tmp, "{\"seq\": 10001}", 14), 0);
	free(tmp);
	tmp = xasprintf("%s/notes.json", runs);
	assert_int_equal(write_file_atomic(tmp, "{\"seq\": 7}", 10), 0);
	free(tmp);

	got = session_load_runs(dir, &err);
	assert_string_equal(sb_str(&err), "");
	assert_int_equal(json_array_size(got), ARRAY_SIZE(seqs));
	for (size_t i = 0; i < ARRAY_SIZE(seqs); i++)
		assert_int_equal(json_integer_value(json_object_get(json_array_get(got, i), "seq")),
				 seqs[i]);
	json_decref(got);
	sb_release(&err);
	assert_int_equal(rm_rf(dir), 0);
	free(runs);
	free(dir);
}

/* Write record @seq (its "seq" field @field) under the file name @name. */
static void put_record(const char *runs, const char *name, int field)
{
	char *path = xasprintf("%s/%s", runs, name);
	json_t *rec = json_pack("{s:i}", "seq", field);

	assert_int_equal(session_write_json(path, rec), 0);
	json_decref(rec);
	free(path);
}

/*
 * One run, one record: a second file for a seq ("09999.json" beside
 * "9999.json") and a record whose seq is not its name's are refused, with
 * an error naming the files; the right records still load.
 */
static void test_load_runs_refuses_duplicates(void **state)
{
	char *dir = scratch(), *runs = xasprintf("%s/runs", dir);
	char *canon = xasprintf("%s/9999.json", runs), *dup = xasprintf("%s/09999.json", runs);
	char *moved = xasprintf("%s/0005.json", runs), *lone = xasprintf("%s/000012.json", runs);
	struct strbuf err = STRBUF_INIT;
	json_t *got;

	(void)state;
	assert_int_equal(mkdir_p(runs, 0755), 0);
	put_record(runs, "0001.json", 1);
	put_record(runs, "9999.json", 9999);
	put_record(runs, "09999.json", 9999);
	put_record(runs, "0005.json", 7);	/* renamed by hand */
	put_record(runs, "000012.json", 12);	/* no 0012.json beside it */
	/* a seq that is not an integer (run_record_seq()): no seq, not seq 3 */
	char *text_seq = xasprintf("%s/0003.json", runs);
	json_t *rec3 = json_pack("{s:s}", "seq", "3");
	assert_int_equal(session_write_json(text_seq, rec3), 0);
	json_decref(rec3);

	got = session_load_runs(dir, &err);
	fputs(sb_str(&err), stderr);
	assert_int_equal(json_array_size(got), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(got, 0), "seq")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(got, 1), "seq")), 9999);
	/* the duplicate's line names both files */
	const char *line = strstr(sb_str(&err), dup);
	assert_non_null(line);
	assert_non_null(strstr(line, canon));
	assert_true(strstr(line, canon) < strchr(line, '\n'));
	assert_non_null(strstr(sb_str(&err), moved));
	assert_non_null(strstr(sb_str(&err), "its seq is 7, not 5"));
	assert_non_null(strstr(sb_str(&err), lone));
	line = strstr(sb_str(&err), text_seq);
	assert_non_null(line);
	assert_true(!strncmp(line + strlen(text_seq), ": not a run record (no seq)", 27));
	free(text_seq);
	json_decref(got);
	sb_release(&err);
	assert_int_equal(rm_rf(dir), 0);
	free(lone);
	free(moved);
	free(dup);
	free(canon);
	free(runs);
	free(dir);
}

static char *listing(const char *dir);

/*
 * A target whose name is NAME_MAX long (ASCII, and two-byte UTF-8
 * characters after one ASCII one, so the temporary name's cut falls inside
 * a character) is written: the temporary file's name must fit too.
 * Nothing but the target is left in the folder.
 */
static void test_atomic_write_name_max(void **state)
{
	char *dir = scratch(), *text, *names;
	char longest[NAME_MAX + 1], wide[NAME_MAX + 1];
	size_t n = 0;

	(void)state;
	memset(longest, 'a', NAME_MAX);
	wide[n++] = 'x';	/* so the cut falls inside a character */
	longest[NAME_MAX] = '\0';
	while (n + 2 <= NAME_MAX) {
		wide[n++] = '\xc3';	/* U+00E9 */
		wide[n++] = '\xa9';
	}
	wide[n] = '\0';
	const char *const targets[] = { longest, wide };
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		char *path = xasprintf("%s/%s", dir, targets[i]);

		assert_int_equal(write_file_atomic(path, "long\n", 5), 0);
		assert_int_equal(write_file_atomic(path, "longer\n", 7), 0);
		text = slurp(path);
		assert_string_equal(text, "longer\n");
		free(text);
		names = listing(dir);
		assert_string_equal(names, targets[i]);
		free(names);
		assert_int_equal(unlink(path), 0);
		free(path);
	}
	assert_int_equal(rm_rf(dir), 0);
	free(dir);
}

/* The names in @dir, sorted, space-separated ("" when empty). */
static char *listing(const char *dir)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct dirent *de;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strvec_push(&names, de->d_name);
	closedir(d);
	strvec_sort(&names);
	for (size_t i = 0; i < names.n; i++)
		sb_addf(&sb, "%s%s", i ? " " : "", names.v[i]);
	strvec_clear(&names);
	return sb_detach(&sb);
}

static char *link_target(const char *path)
{
	char buf[256];
	ssize_t n = readlink(path, buf, sizeof(buf) - 1);

	assert_true(n > 0);
	return xstrndup(buf, (size_t)n);
}

/*
 * A run that loses the session-lock race leaves nothing behind: before,
 * it created an empty <stamp>-aa folder and pointed reports/latest at it,
 * and the next `run --resume` failed with "not a session folder".
 */
static void test_session_dir_lock_first(void **state)
{
	char *dir = scratch(), *reports = xasprintf("%s/reports", dir);
	char *lab_state = xasprintf("%s/state", dir), *old = xasprintf("%s/old", reports);
	char *latest = xasprintf("%s/latest", reports), *d = NULL, *id = NULL, *text, *sub;
	int held = -1, fd = -1;
	(void)state;

	assert_int_equal(mkdir_p(old, 0755), 0);
	assert_int_equal(symlink("old", latest), 0);
	/* Another session holds the lock. */
	assert_int_equal(session_lock(lab_state, "/elsewhere/other-ab", &held), LAB_OK);
	assert_true(held >= 0);
	assert_int_equal(session_dir_create(reports, lab_state, "aa", &d, &id, &fd), LAB_EUSER);
	text = listing(reports);
	assert_string_equal(text, "latest old");
	free(text);
	text = link_target(latest);
	assert_string_equal(text, "old");
	free(text);
	assert_true(fd < 0);
	assert_null(d);
	assert_null(id);
	close(held);

	/* Free again: the folder, runs/, logs/, and reports/latest at it. */
	assert_int_equal(session_dir_create(reports, lab_state, "aa", &d, &id, &fd), LAB_OK);
	assert_true(fd >= 0);
	assert_true(str_ends_with(id, "-aa"));
	assert_string_equal(d + strlen(reports) + 1, id);
	sub = xasprintf("%s/runs", d);
	assert_true(is_dir(sub));
	free(sub);
	sub = xasprintf("%s/logs", d);
	assert_true(is_dir(sub));
	free(sub);
	text = link_target(latest);
	assert_string_equal(text, id);
	free(text);

	/* A second run now loses to this one: still nothing new, latest unmoved. */
	{
		char *d2 = NULL, *id2 = NULL, *before = listing(reports);
		int fd2 = -1;

		assert_int_equal(session_dir_create(reports, lab_state, "ab", &d2, &id2, &fd2),
				 LAB_EUSER);
		assert_true(fd2 < 0);
		text = listing(reports);
		assert_string_equal(text, before);
		free(text);
		free(before);
		text = link_target(latest);
		assert_string_equal(text, id);
		free(text);
	}
	close(fd);
	assert_int_equal(rm_rf(dir), 0);
	free(d);
	free(id);
	free(latest);
	free(old);
	free(lab_state);
	free(reports);
	free(dir);
}

static void touch(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);

	assert_true(fd >= 0);
	close(fd);
	free(path);
}

/*
 * A session killed while write_file_atomic() ran leaves FILE.tmp.XXXXXX
 * (bench/kill-campaign found report.html.tmp.* after a kill during the
 * report): the sweep on resume removes exactly those, in the session
 * folder, runs/ and logs/run-N/, and nothing else: records, a folder or
 * a symbolic link with such a name, names with another suffix.
 */
static void test_session_dir_sweep(void **state)
{
	char *dir = scratch(), *runs = xasprintf("%s/runs", dir), *run = xasprintf("%s/logs/run-0001", dir);
	char *names;
	(void)state;

	assert_int_equal(mkdir_p(runs, 0755), 0);
	assert_int_equal(mkdir_p(run, 0755), 0);
	touch(dir, "report.html.tmp.D79fX4");
	touch(dir, "report.json");
	touch(dir, "session.json.tmp.A");	/* not six characters */
	touch(runs, "0003.json.tmp.Ab12Cd");
	touch(runs, "0003.json");
	touch(runs, "0004.json.tmp.AB-DEF");	/* not mkostemp()'s */
	touch(run, "job.json.tmp.aaaaaa");
	touch(run, "console.log");
	char *sub = xasprintf("%s/keep.tmp.ZZZZZZ", runs), *lnk = xasprintf("%s/link.tmp.QWERTY", runs);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(symlink("0003.json", lnk), 0);

	assert_int_equal(session_dir_sweep(dir), 3);
	names = listing(dir);
	assert_string_equal(names, "logs report.json runs session.json.tmp.A");
	free(names);
	names = listing(runs);
	assert_string_equal(names, "0003.json 0004.json.tmp.AB-DEF keep.tmp.ZZZZZZ link.tmp.QWERTY");
	free(names);
	names = listing(run);
	assert_string_equal(names, "console.log");
	free(names);
	assert_int_equal(session_dir_sweep(dir), 0);
	assert_int_equal(remove_atomic_leftovers("/nonexistent/mglrulab"), -1);
	/*
	 * A planted logs/x -> elsewhere (anyone who can write the reports
	 * folder could plant it) is not swept: elsewhere's file stays.
	 */
	char *other = scratch(), *planted = xasprintf("%s/logs/x", dir);
	touch(other, "theirs.json.tmp.Zz9Zz9");
	assert_int_equal(symlink(other, planted), 0);
	assert_int_equal(session_dir_sweep(dir), 0);
	names = listing(other);
	assert_string_equal(names, "theirs.json.tmp.Zz9Zz9");
	free(names);
	assert_int_equal(remove_atomic_leftovers(planted), -1);
	assert_true(errno == ELOOP || errno == ENOTDIR);
	assert_int_equal(rm_rf(other), 0);
	free(other);
	free(planted);
	assert_int_equal(rm_rf(dir), 0);
	free(sub);
	free(lnk);
	free(run);
	free(runs);
	free(dir);
}

/*
 * A SIGTERM (or Ctrl-C) while a user's file is being written leaves neither
 * the file nor its temporary: the output streams while it renders, for
 * seconds on a large report, and a FILE.tmp.XXXXXX was left in the user's
 * folder. A handler already installed (a session's) is left alone.
 */
static void test_user_file_signal_leaves_nothing(void **state)
{
	char *dir = scratch(), *out = path_join(dir, "out.html");
	struct dirent *e;
	int status, left = 0;
	pid_t pid;
	DIR *d;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct user_file uf;

		if (user_file_begin(out, &uf) || write(uf.fd, "<html>", 6) != 6)
			_exit(3);
		raise(SIGTERM);
		_exit(4);	/* not reached when the signal ends the process */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
	d = opendir(dir);
	assert_non_null(d);
	while ((e = readdir(d)))
		left += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(left, 0);
	assert_int_equal(rmdir(dir), 0);
	free(out);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write_ignores_planted_symlink),
		cmocka_unit_test(test_user_file_regular_and_null),
		cmocka_unit_test(test_user_file_refuses_special_files),
		cmocka_unit_test(test_user_file_refuses_symlinks),
		cmocka_unit_test(test_user_file_signal_leaves_nothing),
		cmocka_unit_test(test_read_regular_file_refuses_planted),
		cmocka_unit_test(test_copy_file_refuses_symlink),
		cmocka_unit_test(test_mkdir_new_is_exclusive),
		cmocka_unit_test(test_load_runs_past_9999),
		cmocka_unit_test(test_load_runs_refuses_duplicates),
		cmocka_unit_test(test_atomic_write_name_max),
		cmocka_unit_test(test_session_dir_lock_first),
		cmocka_unit_test(test_session_dir_sweep),
		cmocka_unit_test(test_user_output_dash_is_stdout),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
