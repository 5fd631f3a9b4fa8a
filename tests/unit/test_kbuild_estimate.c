// SPDX-License-Identifier: GPL-2.0
/*
 * kbuild_estimate: a first build's step count read from a tree's Kbuild
 * files. A small tree written here: what a config enables is counted once,
 * what it does not is not, composites count their parts and their link,
 * nothing outside the tree is read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsutil.h"
#include "kbuild_estimate.h"
#include "util.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel), *dir = path_dirname(path);

	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(dir);
	free(path);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test-kbuild-estimate.XXXXXX");
	assert_non_null(mkdtemp(root));
	put("Kbuild", "obj-y += a/ b/\nobj-$(CONFIG_OFF) += off/\nobj-$(CONFIG_ON)\t+= on/\n"
		      "obj-y += arch/$(SRCARCH)/\n");
	/* Continuation lines, a composite (one part off), a comment, a way out of the tree. */
	put("a/Makefile", "obj-y += x.o y.o \\\n  z.o\nobj-$(CONFIG_ON) += comp.o\n"
			  "comp-y := p1.o p2.o\ncomp-$(CONFIG_OFF) += p3.o\n"
			  "# obj-y += commented.o\nobj-y += ../escape/\n");
	put("escape/Makefile", "obj-y += never.o\n");
	/* A Kbuild wins over the Makefile; an object named through a variable is not counted. */
	put("b/Kbuild", "obj-y += b.o $(VAR).o\nobj-y += sub/ sub/ out/\n");
	put("b/Makefile", "obj-y += not-read.o\n");
	put("b/sub/Makefile", "obj-y := s.o\n");
	put("on/Makefile", "lib-y += l.o\n");
	put("off/Makefile", "obj-y += o1.o o2.o\n");
	put("arch/x86/Makefile", "obj-y += arch.o\n");
	/* A folder that is a symlink (here out of the tree, to escape/) is not followed. */
	char *link = xasprintf("%s/b/out", root), *target = xasprintf("%s/escape", root);

	assert_int_equal(symlink(target, link), 0);
	free(link);
	free(target);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(root);
}

static void test_tree(void **state)
{
	const char *config = "CONFIG_ON=y\nCONFIG_OFF=m\n# CONFIG_X is not set\n";

	(void)state;
	/*
	 * Folders: . a b b/sub on arch/x86 (6). Objects: x y z, comp's two
	 * parts and its link, b, s, l, arch (10).
	 */
	assert_int_equal(kbuild_estimate_steps(root, config, "x86"), 6 + 10 + KBUILD_FIXED_STEPS);
	/* ON off and OFF on: on/ and comp.o go, off/ and its two objects come. */
	assert_int_equal(kbuild_estimate_steps(root, "CONFIG_OFF=y\n", "x86"),
			 6 + 8 + KBUILD_FIXED_STEPS);
}

static void test_no_tree(void **state)
{
	(void)state;
	assert_int_equal(kbuild_estimate_steps("/nonexistent-tree", "CONFIG_ON=y\n", "x86"), 0);
}

/*
 * A build folder as Kbuild leaves it (out of tree, TREE the source): each
 * object's .NAME.o.cmd names its source and, after fixdep, every header
 * (or included .c) it read.
 */
#define TREE "/srv/tree"
static const char cmd_vmscan[] =
	"savedcmd_mm/vmscan.o := gcc -Wp,-MMD,mm/.vmscan.o.d -nostdinc -I" TREE "/include\n"
	"\n"
	"source_mm/vmscan.o := " TREE "/mm/vmscan.c\n"
	"\n"
	"deps_mm/vmscan.o := \\\n"
	"  " TREE "/include/linux/compiler-version.h \\\n"
	"    $(wildcard include/config/CC_VERSION_TEXT) \\\n"
	"  " TREE "/include/linux/mm_types.h \\\n"
	"  include/generated/autoconf.h \\\n"
	"\n"
	"mm/vmscan.o: $(deps_mm/vmscan.o)\n";
static const char cmd_policy[] =
	"source_kernel/sched/build_policy.o := " TREE "/kernel/sched/build_policy.c\n"
	"deps_kernel/sched/build_policy.o := \\\n"
	"  " TREE "/kernel/sched/syscalls.c \\\n"
	"  " TREE "/include/linux/sched.h \\\n";
static const char cmd_other_tree[] =
	"source_mm/util.o := /srv/tree2/mm/util.c\n"
	"deps_mm/util.o := \\\n"
	"  /srv/tree2/include/linux/mm_types.h \\\n"
	"  " TREE "/include/linux/sched.h \\\n";

static long rebuild(const char *build, const char *const *changed, size_t n)
{
	return kbuild_estimate_rebuild(build, TREE, changed, n);
}

static void test_rebuild(void **state)
{
	char *build = xasprintf("%s/build", root);
	const char *types[] = { "include/linux/mm_types.h" };
	const char *sched[] = { "kernel/sched/syscalls.c" };
	const char *both[] = { "include/linux/mm_types.h", "include/linux/sched.h" };
	const char *src[] = { "mm/vmscan.c" };
	const char *none[] = { "Documentation/index.rst" };

	(void)state;
	put("build/mm/.vmscan.o.cmd", cmd_vmscan);
	put("build/kernel/sched/.build_policy.o.cmd", cmd_policy);
	put("build/mm/.util.o.cmd", cmd_other_tree);
	/* a link's and an archive's .cmd are not objects; the relink counts them */
	put("build/.vmlinux.cmd", "deps_vmlinux := " TREE "/include/linux/mm_types.h\n");
	put("build/mm/.built-in.a.cmd", "  " TREE "/include/linux/mm_types.h \\\n");
	/* vmscan.o, then mm/built-in.a and built-in.a archived again */
	assert_int_equal(rebuild(build, types, 1), 1 + 2 + KBUILD_RELINK_STEPS);
	assert_int_equal(rebuild(build, src, 1), 1 + 2 + KBUILD_RELINK_STEPS);
	/* an included .c: kernel/sched, kernel and the top archive: the measured 31 */
	assert_int_equal(rebuild(build, sched, 1), 31);
	/* util.o reads sched.h of this tree (its mm_types.h is another tree's) */
	assert_int_equal(rebuild(build, both, 2), 3 + 4 + KBUILD_RELINK_STEPS);
	/* nothing depends on it, or nothing changed: no estimate */
	assert_int_equal(rebuild(build, none, 1), 0);
	assert_int_equal(rebuild(build, NULL, 0), 0);
	assert_int_equal(rebuild("/nonexistent-build", types, 1), 0);
	/* a FIFO posing as a .cmd file is not read (it would block), a symlink not followed */
	char *fifo = xasprintf("%s/build/mm/.fifo.o.cmd", root);
	char *link = xasprintf("%s/build/linked", root), *target = xasprintf("%s/build/mm", root);

	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(rebuild(build, types, 1), 1 + 2 + KBUILD_RELINK_STEPS);
	free(fifo);
	free(link);
	free(target);
	free(build);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_no_tree),
		cmocka_unit_test(test_rebuild),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
