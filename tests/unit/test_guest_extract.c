// SPDX-License-Identifier: GPL-2.0
/*
 * Extraction as data: a host folder stands in for the guest's /results and
 * holds what a hostile workload leaves there (setuid files, device nodes,
 * links to /etc/shadow, FIFOs, names with newlines and escapes, huge and
 * deep trees). Only regular files and folders arrive, with fixed modes and
 * our owner; every other entry is refused with its reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fsutil.h"
#include "guest_extract.h"
#include "guest_protocol.h"
#include "util.h"

/* ---- a host folder as the source ---- */

static int host_lstat(void *ctx, const char *path, struct extract_ent *e, struct strbuf *err)
{
	struct stat st;

	(void)ctx;
	if (lstat(path, &st)) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	e->mode = st.st_mode;
	e->size = st.st_size;
	return 0;
}

static int host_list(void *ctx, const char *path, struct extract_ent **ents, size_t *n,
		     struct strbuf *err)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t alloc = 0;

	(void)ctx;
	*ents = NULL;
	*n = 0;
	if (!d) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ALLOC_GROW(*ents, *n + 1, alloc);
		(*ents)[*n].name = xstrdup(de->d_name);
		(*ents)[*n].mode = fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ? 0 : st.st_mode;
		(*ents)[*n].size = st.st_size;
		(*n)++;
	}
	closedir(d);
	return 0;
}

static int host_copy(void *ctx, const char *path, int fd, int64_t size, struct strbuf *err)
{
	int in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char buf[65536];

	(void)ctx;
	if (in < 0) {
		sb_addf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (size > 0) {
		ssize_t r = read(in, buf, size < (int64_t)sizeof(buf) ? (size_t)size : sizeof(buf));

		if (r <= 0 || write(fd, buf, (size_t)r) != r) {
			sb_addf(err, "%s: short copy", path);
			close(in);
			return -1;
		}
		size -= r;
	}
	close(in);
	return 0;
}

static const struct extract_source host_source = {
	.lstat = host_lstat, .list = host_list, .copy = host_copy,
};

/* ---- fixtures ---- */

struct fx {
	char dir[64];
	char *src, *dest;
	struct extract_limits lim;
	struct extract_report rep;
	struct strbuf err;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	strcpy(f->dir, "/tmp/test-guest-extract.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->src = path_join(f->dir, "results");
	f->dest = path_join(f->dir, "out");
	assert_int_equal(mkdir(f->src, 0755), 0);
	extract_default_limits(&f->lim);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	extract_report_release(&f->rep);
	sb_release(&f->err);
	rm_rf(f->dir);
	free(f->src);
	free(f->dest);
	free(f);
	return 0;
}

static void put(struct fx *f, const char *rel, const char *text, mode_t mode)
{
	char *p = path_join(f->src, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
	free(p);
}

static void put_size(struct fx *f, const char *rel, off_t size)
{
	char *p = path_join(f->src, rel);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	close(fd);
	free(p);
}

static void put_dir(struct fx *f, const char *rel, mode_t mode)
{
	char *p = path_join(f->src, rel);

	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, mode), 0);
	free(p);
}

/* The refusal of guest path @path (relative to the source root), or NULL. */
static const char *refusal(struct fx *f, const char *path)
{
	char *want = xasprintf("%s/%s", f->src, path);
	size_t i;
	json_t *r;

	json_array_foreach(f->rep.refusals, i, r)
		if (!strcmp(json_string_value(json_object_get(r, "path")), want)) {
			free(want);
			return json_string_value(json_object_get(r, "reason"));
		}
	free(want);
	return NULL;
}

static void expect_refused(struct fx *f, const char *path, const char *why)
{
	const char *r = refusal(f, path);

	if (!r || !strstr(r, why)) {
		char *all = json_dumps(f->rep.refusals, JSON_INDENT(1));
		fail_msg("%s: expected a refusal containing '%s', refusals: %s", path, why, all);
	}
}

/* What is at @rel under the destination: lstat, never following. */
static int out_stat(struct fx *f, const char *rel, struct stat *st)
{
	char *p = path_join(f->dest, rel);
	int r = lstat(p, st);

	free(p);
	return r;
}

static void expect_absent(struct fx *f, const char *rel)
{
	struct stat st;

	if (!out_stat(f, rel, &st))
		fail_msg("%s was extracted (mode %o)", rel, st.st_mode);
}

static void expect_file(struct fx *f, const char *rel, const char *text)
{
	struct stat st;
	struct strbuf sb = STRBUF_INIT;
	char *p = path_join(f->dest, rel);

	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_nlink, 1);
	assert_int_equal(read_file(p, &sb, 0), 0);
	assert_string_equal(sb_str(&sb), text);
	sb_release(&sb);
	free(p);
}

static int extract(struct fx *f)
{
	extract_report_release(&f->rep);
	sb_reset(&f->err);
	rm_rf(f->dest);
	return extract_tree(&host_source, f->src, f->dest, &f->lim, &f->rep, &f->err);
}

/* ---- tests ---- */

static void test_hostile_entries(void **state)
{
	struct fx *f = *state;
	struct stat st;
	int have_dev;
	char *p;

	put(f, "metrics.json", "{\"a\":1}\n", 0600);
	put(f, "suid", "#!/bin/sh\n", 04755);
	put(f, "sgid", "x", 02755);
	put(f, "bad\nname", "x", 0644);
	put(f, "esc\x1b[31m", "x", 0644);
	put(f, "c1\xc2\x9b", "x", 0644);
	put(f, "latin1-\xe9", "x", 0644);
	put_dir(f, "sub", 07777);	/* world-writable, sticky, setgid: comes back 0755 */
	put(f, "sub/inner.txt", "inner", 0666);
	p = path_join(f->src, "shadow");
	assert_int_equal(symlink("/etc/shadow", p), 0);
	free(p);
	p = path_join(f->src, "sub/up");
	assert_int_equal(symlink("..", p), 0);
	free(p);
	p = path_join(f->src, "fifo");
	assert_int_equal(mkfifo(p, 0666), 0);
	free(p);
	p = path_join(f->src, "sda");
	have_dev = !mknod(p, S_IFBLK | 0666, makedev(8, 0));	/* needs CAP_MKNOD: root */
	free(p);
	p = path_join(f->src, "null");
	have_dev &= !mknod(p, S_IFCHR | 0666, makedev(1, 3));
	free(p);

	assert_int_equal(extract(f), 0);
	/* data arrives, as data */
	expect_file(f, "metrics.json", "{\"a\":1}\n");
	expect_file(f, "sub/inner.txt", "inner");
	assert_int_equal(out_stat(f, "sub", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(out_stat(f, ".", &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	/* nothing else does, and each refusal says why */
	expect_refused(f, "suid", "setuid/setgid file (mode 4755)");
	expect_refused(f, "sgid", "setuid/setgid file (mode 2755)");
	expect_refused(f, "shadow", "symbolic link");
	expect_refused(f, "sub/up", "symbolic link");
	expect_refused(f, "fifo", "FIFO");
	expect_refused(f, "bad?name", "control character");
	expect_refused(f, "esc?[31m", "control character");
	expect_refused(f, "c1?", "control character");
	expect_refused(f, "latin1-?", "not UTF-8");
	expect_absent(f, "suid");
	expect_absent(f, "sgid");
	expect_absent(f, "shadow");
	expect_absent(f, "sub/up");
	expect_absent(f, "fifo");
	expect_absent(f, "bad\nname");
	expect_absent(f, "esc\x1b[31m");
	if (have_dev) {
		expect_refused(f, "sda", "block device node");
		expect_refused(f, "null", "character device node");
		expect_absent(f, "sda");
		expect_absent(f, "null");
	} else {
		print_message("  (not root: no device nodes to refuse)\n");
	}
	assert_int_equal(f->rep.files, 2);
	assert_int_equal(f->rep.dirs, 1);
	assert_int_equal(f->rep.bytes, 8 + 5);
	assert_int_equal(f->rep.refused, 9 + 2 * have_dev);
	assert_int_equal(json_array_size(f->rep.refusals), f->rep.refused);
}

static void test_sizes(void **state)
{
	struct fx *f = *state;
	json_t *j;

	f->lim.file_max = 1 << 20;
	f->lim.total_max = 3 << 19;	/* 1.5 MiB */
	put_size(f, "a-big", (1 << 20) + 1);		/* sparse: nothing is really written */
	put_size(f, "b-fits", 1 << 20);
	put_size(f, "c-over-total", (1 << 19) + 1);
	put_size(f, "d-fits-total", (1 << 19) - 10);
	put_size(f, "e-empty", 0);
	assert_int_equal(extract(f), 0);
	expect_refused(f, "a-big", "1048577 bytes, over GUEST_EXTRACT_FILE_MAX (1048576 bytes)");
	expect_refused(f, "c-over-total", "past GUEST_EXTRACT_TOTAL_MAX (1572864 bytes)");
	expect_absent(f, "a-big");
	expect_absent(f, "c-over-total");
	assert_int_equal(f->rep.files, 3);
	assert_int_equal(f->rep.bytes, (1 << 20) + (1 << 19) - 10);
	expect_file(f, "e-empty", "");

	/* the record names every limit with its value */
	j = extract_report_json(&f->rep, f->src, &f->lim);
	assert_int_equal(json_integer_value(json_object_get(j, "refused_total")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "limits"),
							    "GUEST_EXTRACT_FILE_MAX")), 1 << 20);
	json_decref(j);
}

static void test_names_and_depth(void **state)
{
	struct fx *f = *state;
	char name[300], rel[512] = "";

	f->lim.depth_max = 3;
	memset(name, 'n', sizeof(name));
	name[GUEST_EXTRACT_NAME_MAX] = '\0';
	put(f, name, "ok", 0644);			/* exactly the limit */
	name[GUEST_EXTRACT_NAME_MAX] = 'n';
	name[GUEST_EXTRACT_NAME_MAX + 1] = '\0';
	put(f, name, "long", 0644);
	for (int d = 1; d <= 4; d++) {
		strcat(rel, d > 1 ? "/d" : "d");
		put_dir(f, rel, 0755);
	}
	assert_int_equal(extract(f), 0);
	name[GUEST_EXTRACT_NAME_MAX] = '\0';
	expect_file(f, name, "ok");
	name[GUEST_EXTRACT_NAME_MAX] = 'n';
	expect_refused(f, name, "name too long");
	expect_refused(f, "d/d/d/d", "deeper than GUEST_EXTRACT_DEPTH_MAX (3)");
	expect_absent(f, "d/d/d/d");
	assert_int_equal(f->rep.dirs, 3);

	/* the name checks alone */
	assert_null(extract_name_refusal("r\xc3\xa9sultat-\xe2\x82\xac.json", 128));
	assert_non_null(extract_name_refusal("", 128));
	assert_non_null(extract_name_refusal(".", 128));
	assert_non_null(extract_name_refusal("..", 128));
	assert_non_null(extract_name_refusal("a/b", 128));
	assert_non_null(extract_name_refusal("tab\t", 128));
	assert_non_null(extract_name_refusal("del\x7f", 128));
	assert_non_null(extract_name_refusal("\xc0\xaf", 128));	/* overlong '/' */
	assert_non_null(extract_name_refusal("\xed\xa0\x80", 128));	/* surrogate */
}

static void test_entries_and_folder_size(void **state)
{
	struct fx *f = *state;
	char rel[64];

	f->lim.entries_max = 10;
	for (int i = 0; i < 30; i++) {
		snprintf(rel, sizeof(rel), "f%02d", i);
		put(f, rel, "x", 0644);
	}
	assert_int_equal(extract(f), 0);
	assert_int_equal(f->rep.files, 10);
	expect_absent(f, "f10");
	{
		const char *r = NULL;
		size_t i;
		json_t *e;

		json_array_foreach(f->rep.refusals, i, e)
			if (strstr(json_string_value(json_object_get(e, "reason")), "GUEST_EXTRACT_ENTRIES_MAX (10)"))
				r = json_string_value(json_object_get(e, "path"));
		assert_string_equal(r, f->src);
	}
	assert_int_equal(f->rep.refused, 1);	/* stopped: the rest is not looked at one by one */

	/* a folder whose own size says it holds too many names is not listed */
	put_dir(f, "huge", 0755);
	for (int i = 0; i < 400; i++) {
		snprintf(rel, sizeof(rel), "huge/%040d", i);
		put(f, rel, "", 0644);
	}
	{
		struct stat root, huge;
		char *p = path_join(f->src, "huge");
		char want[128];

		assert_int_equal(lstat(f->src, &root), 0);
		assert_int_equal(lstat(p, &huge), 0);
		free(p);
		assert_true(huge.st_size > root.st_size);
		f->lim.entries_max = GUEST_EXTRACT_ENTRIES_MAX;
		f->lim.dir_size_max = root.st_size;
		assert_int_equal(extract(f), 0);
		snprintf(want, sizeof(want), "folder of %lld bytes, over GUEST_EXTRACT_DIR_SIZE_MAX (%lld bytes): not listed",
			 (long long)huge.st_size, (long long)root.st_size);
		expect_refused(f, "huge", want);
		expect_absent(f, "huge");
		assert_int_equal(f->rep.files, 30);
	}

	/* the results folder itself, too */
	f->lim.dir_size_max = 1;
	assert_int_equal(extract(f), 0);
	assert_int_equal(f->rep.files + f->rep.dirs, 0);
	assert_int_equal(f->rep.refused, 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(f->rep.refusals, 0), "path")),
			    f->src);
}

static void test_root_and_dest(void **state)
{
	struct fx *f = *state;
	char *link = path_join(f->dir, "link");
	struct stat st;

	/* the results folder itself replaced by a link: nothing at all */
	assert_int_equal(symlink("/etc", link), 0);
	assert_int_equal(extract_tree(&host_source, link, f->dest, &f->lim, &f->rep, &f->err), -1);
	assert_non_null(strstr(sb_str(&f->err), "is a symbolic link, not a folder"));
	assert_int_not_equal(lstat(f->dest, &st), 0);
	extract_report_release(&f->rep);
	free(link);

	/* an existing destination is never written into */
	sb_reset(&f->err);
	assert_int_equal(mkdir(f->dest, 0755), 0);
	assert_int_equal(extract_tree(&host_source, f->src, f->dest, &f->lim, &f->rep, &f->err), -1);
	assert_non_null(strstr(sb_str(&f->err), "File exists"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_hostile_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_names_and_depth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_entries_and_folder_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_and_dest, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
