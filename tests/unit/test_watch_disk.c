// SPDX-License-Identifier: GPL-2.0
/*
 * The watch's disk budget (lab/watch/watch_disk.h): which items go, least
 * recently used first, pinned ones never, ties by size then path, only as
 * many as the budget asks; and the walk that measures and removes them
 * (lab/lib/disk_usage.h), which never follows a link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disk_usage.h"
#include "fsutil.h"
#include "watch_disk.h"

#define MiB (1ULL << 20)

static struct watch_disk_item item(const char *path, unsigned long long mib, time_t used,
				   const char *pinned)
{
	struct watch_disk_item it = { .path = (char *)path, .bytes = mib * MiB, .used = used,
				      .pinned = pinned };

	return it;
}

static unsigned long long sum(const struct watch_disk_item *v, size_t n)
{
	unsigned long long t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].bytes;
	return t;
}

/* Oldest first, and only as many as bring the total within the budget. */
static void test_plan_lru(void **state)
{
	struct watch_disk_item v[] = {
		item("c", 4, 300, NULL), item("a", 3, 100, NULL), item("d", 1, 400, NULL),
		item("b", 2, 200, NULL),
	};
	size_t order[4], k;

	(void)state;
	/* 10 MiB, budget 6: a (3) and b (2) leave 5 */
	k = watch_disk_plan(v, 4, sum(v, 4), 6 * MiB, order);
	assert_int_equal(k, 2);
	assert_string_equal(v[order[0]].path, "a");
	assert_string_equal(v[order[1]].path, "b");
	assert_string_equal(v[order[2]].path, "c");
	assert_string_equal(v[order[3]].path, "d");
	/* exactly at the budget is within it */
	assert_int_equal(watch_disk_plan(v, 4, sum(v, 4), 7 * MiB, order), 1);
	assert_int_equal(watch_disk_plan(v, 4, sum(v, 4), 10 * MiB, order), 0);
	/* a budget nothing can meet: all of them */
	assert_int_equal(watch_disk_plan(v, 4, sum(v, 4), 0, order), 4);
}

/* Pinned items are never in the order, however old and large; they count in the total. */
static void test_plan_pinned(void **state)
{
	struct watch_disk_item v[] = {
		item("baseline-build", 50, 1, "the baseline's"), item("old", 2, 10, NULL),
		item("running", 30, 5, "its series is being measured"), item("new", 1, 20, NULL),
	};
	size_t order[4], k;

	(void)state;
	/* 83 MiB, budget 82: the oldest that may go, not the baseline's */
	k = watch_disk_plan(v, 4, sum(v, 4), 82 * MiB, order);
	assert_int_equal(k, 1);
	assert_string_equal(v[order[0]].path, "old");
	/* budget 40: only what pinned items leave; both go and it is still over */
	k = watch_disk_plan(v, 4, sum(v, 4), 40 * MiB, order);
	assert_int_equal(k, 2);
	assert_string_equal(v[order[0]].path, "old");
	assert_string_equal(v[order[1]].path, "new");
}

/* Equal ages: the larger first (fewer removals), then by path, whatever the input order. */
static void test_plan_ties(void **state)
{
	struct watch_disk_item v[] = {
		item("z-small", 1, 50, NULL), item("y-big", 5, 50, NULL), item("b-same", 2, 50, NULL),
		item("a-same", 2, 50, NULL), item("newer", 9, 60, NULL),
	};
	size_t order[5], k;

	(void)state;
	k = watch_disk_plan(v, 5, sum(v, 5), 11 * MiB, order);
	assert_string_equal(v[order[0]].path, "y-big");
	assert_string_equal(v[order[1]].path, "a-same");
	assert_string_equal(v[order[2]].path, "b-same");
	assert_string_equal(v[order[3]].path, "z-small");
	assert_string_equal(v[order[4]].path, "newer");
	/* 19 MiB: y-big (5) and a-same (2) bring it to 12, b-same to 10 */
	assert_int_equal(k, 3);
}

static void test_plan_empty(void **state)
{
	size_t order[1];

	(void)state;
	assert_int_equal(watch_disk_plan(NULL, 0, 0, MiB, order), 0);
	assert_int_equal(watch_disk_plan(NULL, 0, 5 * MiB, MiB, order), 0);
}

static void write_mib(const char *path, size_t mib)
{
	FILE *f = fopen(path, "w");
	static char block[1 << 16];

	assert_non_null(f);
	for (size_t i = 0; i < mib * 16; i++)
		assert_int_equal(fwrite(block, 1, sizeof(block), f), sizeof(block));
	assert_int_equal(fclose(f), 0);
}

/* Links are counted and removed as links: what they point to stays, uncounted. */
static void test_usage_and_remove_links(void **state)
{
	char tmpl[] = "/tmp/test_watch_disk.XXXXXX";
	char *root = mkdtemp(tmpl), *p;
	struct disk_usage du = { 0 };

	(void)state;
	assert_non_null(root);
	p = xasprintf("%s/outside", root);
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = xasprintf("%s/outside/big", root);
	write_mib(p, 4);
	free(p);
	p = xasprintf("%s/item/a/b", root);
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/item/a/b/f", root);
	write_mib(p, 1);
	free(p);
	p = xasprintf("%s/item/a/link", root);
	assert_int_equal(symlink("../../outside", p), 0);
	free(p);
	p = xasprintf("%s/item/file-link", root);
	assert_int_equal(symlink("../outside/big", p), 0);
	free(p);

	p = xasprintf("%s/item", root);
	assert_int_equal(disk_usage(p, &du), 0);
	assert_true(du.bytes >= MiB && du.bytes < 2 * MiB);	/* not the 4 MiB behind the links */
	assert_int_equal(du.files, 6);
	assert_int_equal(disk_remove(p), 0);
	assert_false(path_exists(p));
	free(p);
	p = xasprintf("%s/outside/big", root);
	assert_true(is_regular_file(p));
	free(p);

	/* a link given as the item: removed itself, never what it names */
	p = xasprintf("%s/link", root);
	assert_int_equal(symlink("outside", p), 0);
	memset(&du, 0, sizeof(du));
	assert_int_equal(disk_usage(p, &du), 0);
	assert_int_equal(du.files, 1);
	assert_true(du.bytes < MiB);
	assert_int_equal(disk_remove(p), 0);
	assert_false(path_exists(p));
	free(p);
	p = xasprintf("%s/outside/big", root);
	assert_true(is_regular_file(p));
	free(p);

	/* what is not there: no usage (ENOENT), and nothing to remove */
	p = xasprintf("%s/nothing", root);
	assert_int_equal(disk_usage(p, &du), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(disk_remove(p), 0);
	free(p);
	assert_int_equal(rm_rf(root), 0);
}

static void test_format(void **state)
{
	char buf[32];

	(void)state;
	watch_disk_format(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0 B");
	watch_disk_format(buf, sizeof(buf), 3 * MiB / 2);
	assert_string_equal(buf, "1.5 MiB");
	watch_disk_format(buf, sizeof(buf), 40ULL << 30);
	assert_string_equal(buf, "40 GiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plan_lru),
		cmocka_unit_test(test_plan_pinned),
		cmocka_unit_test(test_plan_ties),
		cmocka_unit_test(test_plan_empty),
		cmocka_unit_test(test_usage_and_remove_links),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
