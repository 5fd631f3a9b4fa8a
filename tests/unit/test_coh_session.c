// SPDX-License-Identifier: GPL-2.0
/*
 * run --coherence without a guest: synthetic coherence files of two runs
 * per kernel into the report's "coherence" window (coh_compare_json():
 * each run's transfers per unit, their mean and spread, the change, the
 * latency model's cost, functions and lines matched across boots), and
 * the text and HTML sections made of it, with hostile names escaped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attr.h"
#include "fsutil.h"
#include "report_coh.h"
#include "util.h"
#include "xjson.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);

	assert_int_equal(mkdir_p(path, 0755), 0);
	free(path);
	path = xasprintf("%s/%s/coh.1", dir, name);
	assert_int_equal(write_file_atomic(path, text, strlen(text)), 0);
	free(path);
}

static const char MAP[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T lru_gen_use_mm_caller\n"
	"ffffffff81002000 t __schedule\n"
	"ffffffff81600000 D __start_rodata\n"
	"ffffffff81700000 D __end_rodata\n"
	"ffffffff81800000 D _sdata\n"
	"ffffffff81800100 D jiffies\n"
	"ffffffff81900000 D __init_begin\n"
	"ffffffff81a00000 R __init_end\n"
	"ffffffff81b00000 B _end\n";

#define HEAD "mglrulab-coh 1\nline_bytes 64\nunits 100\nvcpus 2\nvcpu 0 5000\nvcpu 1 4000\n" \
	"accesses 900\nbuffered 800\nforced 0\nstalled 0\nuntracked 0\ndropped 0\nlines 2\n"

static int setup(void **state)
{
	char *map;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-coh-session.XXXXXX");
	assert_non_null(mkdtemp(dir));
	map = xasprintf("%s/System.map", dir);
	assert_int_equal(write_file_atomic(map, MAP, strlen(MAP)), 0);
	free(map);
	/* baseline: jiffies and a slab line (another address each boot), both by __schedule */
	put("b1", HEAD "transfers 90\n"
	    "t 1800100 ffffffff81800100 ffffffff81002010 0 40\n"
	    "t 3f42c340 ffff88803f42c340 ffffffff81002020 0 50\nend\n");
	put("b2", HEAD "transfers 70\n"
	    "t 1800100 ffffffff81800100 ffffffff81002010 0 30\n"
	    "t 2a000080 ffff88802a000080 ffffffff81002020 0 40\nend\n");
	/* patched: the slab line no longer moves */
	put("p1", HEAD "transfers 2\n"
	    "t 1800100 ffffffff81800100 ffffffff81002010 0 2\nend\n");
	put("p2", HEAD "transfers 2\n"
	    "t 1800100 ffffffff81800100 ffffffff81002010 0 2\nend\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	return 0;
}

static json_t *window(int two, struct strbuf *err)
{
	char *b[2] = { xasprintf("%s/b1", dir), xasprintf("%s/b2", dir) };
	char *p[2] = { xasprintf("%s/p1", dir), xasprintf("%s/p2", dir) };
	char *map = xasprintf("%s/System.map", dir);
	struct attr_side base = { (const char *const *)b, 2, map };
	struct attr_side patched = { (const char *const *)p, 2, map };
	struct coh_model m = { 50, 130 };
	json_t *w = coh_compare_json(&base, two ? &patched : NULL, 1, 8, &m, err);

	for (int i = 0; i < 2; i++) {
		free(b[i]);
		free(p[i]);
	}
	free(map);
	return w;
}

static double at(const json_t *o, const char *path)
{
	char buf[128], *save = NULL, *k;
	const json_t *v = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		v = isdigit((unsigned char)*k) ? json_array_get(v, (size_t)atoi(k)) :
						 json_object_get(v, k);
	assert_true(json_is_number(v));
	return json_number_value(v);
}

#define assert_near(a, b) assert_true(fabs((a) - (b)) < 1e-9)

static void test_compare(void **state)
{
	struct strbuf err = STRBUF_INIT;
	json_t *w = window(1, &err);

	(void)state;
	assert_non_null(w);
	assert_near(at(w, "baseline.per_unit"), 0.8);
	assert_near(at(w, "baseline.runs.0"), 0.9);
	assert_near(at(w, "baseline.runs.1"), 0.7);
	assert_near(at(w, "baseline.spread"), 0.2);
	assert_near(at(w, "patched.per_unit"), 0.02);
	assert_near(at(w, "patched.spread"), 0);
	assert_near(at(w, "change"), -0.78);
	assert_true(json_is_true(json_object_get(w, "beyond_spread")));
	assert_near(at(w, "baseline.cost_ns_per_unit.node_ns"), 40);
	assert_near(at(w, "baseline.cost_ns_per_unit.remote_ns"), 104);
	assert_near(at(w, "change_cost_ns_per_unit.node_ns"), -39);
	/* one function moved it all */
	assert_int_equal(json_array_size(json_object_get(w, "functions")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
		json_object_get(w, "functions"), 0), "function")), "__schedule");
	/* the two boots' slab lines are one row, by the code that moves them; first: the larger change */
	const json_t *l0 = json_array_get(json_object_get(w, "lines"), 0);
	const json_t *l1 = json_array_get(json_object_get(w, "lines"), 1);
	assert_string_equal(json_string_value(json_object_get(l0, "line")),
			    "[lines moved most by __schedule]");
	assert_near(at(l0, "baseline"), 0.45);
	assert_near(at(l0, "patched"), 0);
	assert_string_equal(json_string_value(json_object_get(l1, "line")), "jiffies");
	assert_near(at(l1, "change"), -0.33);
	json_decref(w);

	/* one kernel: no patched side, no change */
	w = window(0, &err);
	assert_non_null(w);
	assert_null(json_object_get(w, "patched"));
	assert_null(json_object_get(w, "change"));
	json_decref(w);
	sb_release(&err);
}

static void test_missing_window(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char *b[1] = { xasprintf("%s/none", dir) };
	char *map = xasprintf("%s/System.map", dir);
	struct attr_side base = { (const char *const *)b, 1, map };
	struct coh_model m = { 50, 130 };

	(void)state;
	assert_null(coh_compare_json(&base, NULL, 1, 8, &m, &err));
	assert_non_null(strstr(sb_str(&err), "coh.1"));
	free(b[0]);
	free(map);
	sb_release(&err);
}

static void test_sections(void **state)
{
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, html = STRBUF_INIT;
	json_t *w = window(1, &err);
	json_t *report = xjson_pack("{s:{s:s, s:s, s:i, s:{s:f, s:f}, s:[{s:s, s:[o]}, {s:s, s:s}]}}",
		"coherence", "method", "plugin", "model_note", "a model <i>", "runs_per_kernel", 2,
		"latency", "node_ns", 50.0, "remote_ns", 130.0, "workloads",
		"workload", "ys\x1b[31m<b>", "windows", w, "workload", "aging", "skipped",
		"no primary changed");

	(void)state;
	report_coh_text(report, &text);
	assert_non_null(strstr(sb_str(&text), "Cache-line transfers (model; 2 runs per kernel"));
	assert_non_null(strstr(sb_str(&text), "50 ns per transfer within a node, 130 across"));
	assert_non_null(strstr(sb_str(&text), "change   -0.7800 (beyond the runs' spread)"));
	assert_non_null(strstr(sb_str(&text), "(runs 0.9000, 0.7000; spread 0.2000)"));
	assert_non_null(strstr(sb_str(&text), "40.0-104.0 ns -> 1.0-2.6 ns"));
	assert_non_null(strstr(sb_str(&text), "[lines moved most by __schedule]"));
	assert_non_null(strstr(sb_str(&text), "jiffies (by __schedule)"));
	assert_non_null(strstr(sb_str(&text), "aging: no primary changed"));
	assert_null(strchr(sb_str(&text), '\x1b'));
	report_coh_html(report, &html);
	assert_non_null(strstr(sb_str(&html), "<h2>Cache-line transfers (model)</h2>"));
	assert_non_null(strstr(sb_str(&html), "&lt;b&gt;"));
	assert_non_null(strstr(sb_str(&html), "a model &lt;i&gt;"));
	assert_null(strstr(sb_str(&html), "<b>"));
	/* a report without the member: nothing */
	json_t *empty = json_object();
	struct strbuf none = STRBUF_INIT;
	report_coh_text(empty, &none);
	report_coh_html(empty, &none);
	assert_int_equal(none.len, 0);
	/* members of the wrong type read as absent, not as a crash */
	json_t *bad = xjson_pack("{s:{s:i, s:[i, s, {s:i}]}}", "coherence", "latency", 3,
				 "workloads", 1, "x", "windows", 2);
	report_coh_text(bad, &none);
	report_coh_html(bad, &none);
	json_decref(bad);
	json_decref(empty);
	json_decref(report);
	sb_release(&none);
	sb_release(&text);
	sb_release(&html);
	sb_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_missing_window),
		cmocka_unit_test(test_sections),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
