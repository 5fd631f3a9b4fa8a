// SPDX-License-Identifier: GPL-2.0
/*
 * lab/attr's coherence side: the coherence plugin's window files read as
 * untrusted input (a file without "end", bad numbers, overlong lines,
 * header keys out of order, pairs that do not add up: each refused with
 * FILE:LINE), and the pairs summed per function and per line, lines named
 * by the image's data symbols through either alias.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "fsutil.h"
#include "util.h"

static char dir[64];

static char *put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-coh.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static const char MAP[] =
	"0000000000000000 D __per_cpu_start\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T lru_gen_use_mm_caller\n"
	"ffffffff81002000 t __schedule\n"
	"ffffffff81600000 D __start_rodata\n"
	"ffffffff81700000 D __end_rodata\n"
	"ffffffff81800000 D _sdata\n"
	"ffffffff81800100 D jiffies\n"
	"ffffffff81900000 D __init_begin\n"
	"ffffffff81a00000 R __init_end\n"
	"ffffffff81a00000 B rq_lock_thing\n"
	"ffffffff81b00000 B _end\n";

#define HEAD "mglrulab-coh 1\nline_bytes 64\nunits 100\nvcpus 2\nvcpu 0 5000\nvcpu 1 4000\n" \
	"accesses 900\nbuffered 800\nforced 0\nstalled 7\nuntracked 0\ndropped 1\nlines 50\n"

/* 3 + 2 + 4 + 1 + 1, and 1 dropped: 12 transfers */
static const char GOOD[] = HEAD "transfers 12\n"
	/* jiffies by its image address, written from __schedule */
	"t 1800100 ffffffff81800100 ffffffff81002010 1 2\n"
	/* the same line through the direct map: one row with the first */
	"t 1800100 ffff888001800100 ffffffff81001008 0 2\n"
	/* a slab line: named by its address, moved most by the caller */
	"t 3f42c340 ffff88803f42c340 ffffffff81001010 0 4\n"
	/* a user line, and a line in freed init memory (not named by a symbol) */
	"t 5f4f14c0 4df4c0 401898 1 0\n"
	"t 1900040 ffff888001900040 ffffffff81002020 0 1\n"
	"end\n";

static void test_table(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols text, data;
	struct coh_window w;
	struct coh_table t;
	char *map = put("System.map", MAP), *f = put("coh.1", GOOD);
	(void)state;

	assert_int_equal(attr_symbols_load(map, &text, &err), 0);
	assert_int_equal(attr_symbols_load_types(map, "DdBbRr", &data, &err), 0);
	assert_int_equal(coh_window_load(f, &w, &err), 0);
	assert_int_equal(w.units, 100);
	assert_int_equal(w.vcpus, 2);
	assert_int_equal(w.insns[1], 4000);
	assert_int_equal(w.n, 5);
	coh_table_build(&w, &text, &data, &t);
	assert_int_equal(t.total, 12);
	assert_int_equal(t.dropped, 1);
	assert_int_equal(t.nfuncs, 3);
	assert_string_equal(t.funcs[0].name, "lru_gen_use_mm_caller");	/* 2 + 4 */
	assert_int_equal(t.funcs[0].writes, 6);
	assert_string_equal(t.funcs[1].name, "__schedule");		/* 3 + 1 */
	assert_string_equal(t.funcs[2].name, ATTR_ROW_USER);
	assert_int_equal(t.nlines, 4);
	assert_string_equal(t.lines[0].name, "jiffies");		/* 5 */
	assert_int_equal(t.lines[0].reads + t.lines[0].writes, 5);
	assert_string_equal(t.lines[0].by, "__schedule");		/* 3 against 2 */
	assert_string_equal(t.lines[1].name, "[line 0x3f42c340]");
	assert_string_equal(t.lines[1].by, "lru_gen_use_mm_caller");
	assert_string_equal(t.lines[2].name, "[line 0x1900040]");	/* freed init memory */
	assert_string_equal(t.lines[3].name, "[user line 0x5f4f14c0]");
	coh_table_release(&t);
	coh_window_release(&w);
	attr_symbols_release(&text);
	attr_symbols_release(&data);
	free(map);
	free(f);
	sb_release(&err);
}

static void expect_error(const char *text, const char *needle)
{
	struct strbuf err = STRBUF_INIT;
	struct coh_window w;
	char *f = put("bad", text);

	assert_int_equal(coh_window_load(f, &w, &err), -1);
	if (!strstr(sb_str(&err), needle))
		fail_msg("expected '%s' in '%s'", needle, sb_str(&err));
	assert_null(w.v);
	free(f);
	sb_release(&err);
}

static void test_malformed(void **state)
{
	char *longline;
	(void)state;

	expect_error(HEAD "transfers 0\n", "no \"end\" line");		/* cut short */
	expect_error(HEAD "transfers 11\nt 1800100 ffffffff81800100 ffffffff81002010 1 2\n",
		     "no \"end\"");
	expect_error("", "no \"end\"");
	expect_error("mglrulab-coh 2\n", "bad:1: expected \"mglrulab-coh 1\"");
	expect_error("units 1\nend\n", "bad:1:");
	/* the header's keys in order, each a decimal count */
	expect_error("mglrulab-coh 1\nunits 100\n", "bad:2: expected \"line_bytes N\"");
	expect_error("mglrulab-coh 1\nline_bytes 128\nunits 1\nvcpus 2\n", "64-byte lines");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits 1\nvcpus 0\n", "1 to 64 vCPUs");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits 1\nvcpus 65\n", "1 to 64 vCPUs");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits -1\n", "bad:3: expected \"units N\"");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits 1x\n", "bad:3:");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits 99999999999999999999\n", "bad:3:");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits 1\nvcpus 2\nvcpu 1 5\n",
		     "bad:5: expected \"vcpu 0 INSTRUCTIONS\"");
	expect_error("mglrulab-coh 1\nline_bytes 64\nunits 1\nvcpus 1\nvcpu 0 5\nend\n",
		     "bad:6: expected \"accesses N\"");
	expect_error(HEAD "transfers 3\nend\nend\n", "a line after \"end\"");
	/* pairs: hexadecimal addresses, line-aligned lines, counts not both 0 */
	expect_error(HEAD "transfers 3\nt 1800100 ffffffff81800100 zz 1 2\nend\n", "bad:15:");
	expect_error(HEAD "transfers 3\nt 1800104 ffffffff81800100 ffffffff81002010 1 2\nend\n",
		     "bad:15:");
	expect_error(HEAD "transfers 1\nt 1800100 ffffffff81800100 ffffffff81002010 0 0\nend\n",
		     "bad:15:");
	expect_error(HEAD "transfers 3\nt 1800100 ffffffff81800100 ffffffff81002010 1 2 3\nend\n",
		     "bad:15:");
	expect_error(HEAD "transfers 3\nt 1800100 ffffffff81800100 ffffffff81002010 -1 2\nend\n",
		     "bad:15:");
	expect_error(HEAD "transfers 2\nt 1800100 ffffffff81800100 ffffffff81002010 "
		     "18446744073709551615 2\nend\n", "bad:15:");	/* the sum would wrap */
	/* the pairs and the dropped ones must add up to the header's transfers */
	expect_error(HEAD "transfers 5\nt 1800100 ffffffff81800100 ffffffff81002010 1 2\nend\n",
		     "do not add up");
	/* an overlong line, and a NUL byte hidden in one */
	longline = xasprintf(HEAD "transfers 4\nt 1800100 ffffffff81800100 ffffffff81002010 1 2%*s\n"
			     "end\n", 2000, "");
	expect_error(longline, "over 1024 bytes");
	free(longline);
	{
		static const char nul[] = HEAD "transfers 4\nt 1800100 ffffffff81800100 "
			"ffffffff81002010 1 2\0junk\nend\n";
		struct strbuf err = STRBUF_INIT;
		struct coh_window w;
		char *path = xasprintf("%s/nul", dir);

		assert_int_equal(write_file_atomic(path, nul, sizeof(nul) - 1), 0);
		assert_int_equal(coh_window_load(path, &w, &err), -1);
		assert_non_null(strstr(sb_str(&err), "NUL byte"));
		free(path);
		sb_release(&err);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
