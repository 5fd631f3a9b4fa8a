// SPDX-License-Identifier: GPL-2.0
/*
 * mglrulab attribute RUN_DIR [--vs RUN_DIR]: where a guest run spent its
 * instructions, per kernel function and per unit of its workload, from
 * the attribution plugin's windows (lab/attr/attr.h, docs/attribution.md);
 * with --vs, which functions' cost moved from one run to the other.
 */
#include "cmd.h"
#include "attr.h"
#include "escape.h"
#include "fsutil.h"
#include "util.h"
#include "xjson.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct attribute_opts {
	const char *map, *vs, *vs_map;
	long window, top;
	int json;
};

static const struct lab_option attribute_options[] = {
	LAB_OPT_STRING("map", 0, struct attribute_opts, map, "FILE",
		       "the System.map of RUN_DIR's kernel (the kernel cache keeps\n"
		       "it beside the bzImage)"),
	LAB_OPT_STRING("vs", 0, struct attribute_opts, vs, "RUN_DIR",
		       "the patched kernel's run: RUN_DIR is then the baseline"),
	LAB_OPT_STRING("vs-map", 0, struct attribute_opts, vs_map, "FILE",
		       "the System.map of --vs's kernel (default: --map)"),
	LAB_OPT_LONG("window", 0, struct attribute_opts, window, 1, 1000000, "N",
		     "the measured phase to show, from 1 (default 1)"),
	LAB_OPT_LONG("top", 0, struct attribute_opts, top, 1, 1000000, "N",
		     "rows to show (default 20)"),
	LAB_OPT_BOOL("json", 0, struct attribute_opts, json, "the whole table as JSON"),
	LAB_OPT_END
};

static const char *const attribute_synopsis[] = {
	"mglrulab attribute RUN_DIR --map SYSTEM_MAP [--window N] [--top N] [--json]",
	"mglrulab attribute BASE_RUN_DIR --vs PATCHED_RUN_DIR --map SYSTEM_MAP",
	"                   [--vs-map SYSTEM_MAP] [--window N] [--top N] [--json]",
	NULL
};

const struct lab_usage attribute_usage = {
	.synopsis = attribute_synopsis,
	.description =
		"The instructions a guest run spent in each kernel function, per unit of its\n"
		"workload (a yield, a generation), in one measured phase. The run must have\n"
		"been made with the attribution plugin ('mglrulab guest run ... --attr-plugin\n"
		"build/plugin/mglrulab-attr.so' on a TCG guest; exact under icount), which\n"
		"left RUN_DIR/attr.N, one file per measured phase. With --vs, both runs'\n"
		"tables side by side, by the size of the change: base and patched\n"
		"instructions per unit, the delta and its share of the whole change.\n"
		"docs/attribution.md says what the table can and cannot see.\n",
	.options = attribute_options,
	.footer = "exit status: 0 ok, 1 a missing or malformed window file or System.map\n"
		  "(FILE:LINE and what was expected), 2 cannot write the output.\n",
};

/* RUN_DIR's window @n under @map: the table. */
static int load_table(const char *run_dir, const char *map, long n, struct attr_table *t)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols syms;
	struct attr_window w;
	char *path, name[32];
	int r = LAB_OK;

	snprintf(name, sizeof(name), "attr.%ld", n);
	path = path_join(run_dir, name);
	if (!is_regular_file(path)) {
		r = user_error("%s: no window %ld (was the run made with --attr-plugin, and did its "
			       "workload measure %ld phase%s?)", path, n, n, n == 1 ? "" : "s");
	} else if (attr_symbols_load(map, &syms, &err)) {
		r = user_error("%s", sb_str(&err));
	} else {
		if (attr_window_load(path, &w, &err)) {
			r = user_error("%s", sb_str(&err));
		} else {
			attr_table_build(&w, &syms, t);
			attr_window_release(&w);
		}
		attr_symbols_release(&syms);
	}
	free(path);
	sb_release(&err);
	return r;
}

static json_t *table_json(const struct attr_table *t, long window, long top)
{
	json_t *rows = json_array();

	for (size_t i = 0; i < t->n && (long)i < top; i++)
		json_array_append_new(rows, xjson_pack("{s:s, s:I, s:f, s:f}",
			"function", t->v[i].name, "instructions", (json_int_t)t->v[i].insns,
			"per_unit", attr_per_unit(t, t->v[i].insns),
			"share", t->total ? (double)t->v[i].insns / (double)t->total : 0.0));
	return xjson_pack("{s:I, s:I, s:I, s:f, s:o}", "window", (json_int_t)window,
			  "units", (json_int_t)t->units, "instructions", (json_int_t)t->total,
			  "per_unit", attr_per_unit(t, t->total), "functions", rows);
}

/* @j on standard output, then freed; NULL (an encoding that failed) is an error. */
static int print_json(json_t *j)
{
	int r = j && !json_dumpf(j, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER) ? LAB_OK :
		lab_error("cannot encode the table as JSON");

	if (!r)
		putchar('\n');
	json_decref(j);
	return r;
}

static void print_table(const char *run_dir, const struct attr_table *t, long window, long top)
{
	uint64_t user = 0;

	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, ATTR_ROW_USER))
			user = t->v[i].insns;
	term_printf(stdout, "%s, window %ld: %llu units, %.1f instructions per %s (kernel %.1f, "
		    "user space %.1f)\n", run_dir, window, (unsigned long long)t->units,
		    attr_per_unit(t, t->total), t->units ? "unit" : "window (no unit marks)",
		    attr_per_unit(t, t->total - user), attr_per_unit(t, user));
	printf("%16s %7s  %s\n", "instr/unit", "share", "function");
	for (size_t i = 0; i < t->n && (long)i < top; i++)
		term_printf(stdout, "%16.1f %6.1f%%  %s\n", attr_per_unit(t, t->v[i].insns),
			    t->total ? 100.0 * (double)t->v[i].insns / (double)t->total : 0.0,
			    t->v[i].name);
	if ((size_t)top < t->n)
		printf("(%zu more functions: --top)\n", t->n - (size_t)top);
}

static json_t *diff_json(const struct attr_diff *d, const struct attr_table *b,
			 const struct attr_table *p, long window, long top)
{
	json_t *rows = json_array();
	double change = d->patched_total - d->base_total;

	for (size_t i = 0; i < d->n && (long)i < top; i++) {
		double delta = d->v[i].patched - d->v[i].base;

		json_array_append_new(rows, xjson_pack("{s:s, s:f, s:f, s:f, s:o}",
			"function", d->v[i].name, "base", d->v[i].base, "patched", d->v[i].patched,
			"delta", delta, "share_of_change",
			change != 0 ? json_real(delta / change) : json_null()));
	}
	return xjson_pack("{s:I, s:I, s:I, s:f, s:f, s:o}", "window", (json_int_t)window,
			  "base_units", (json_int_t)b->units, "patched_units", (json_int_t)p->units,
			  "base_per_unit", d->base_total, "patched_per_unit", d->patched_total,
			  "functions", rows);
}

static void print_diff(const char *base_dir, const char *patched_dir, const struct attr_diff *d,
		       long window, long top)
{
	double change = d->patched_total - d->base_total;

	term_printf(stdout, "base %s, patched %s, window %ld:\n", base_dir, patched_dir, window);
	printf("instructions per unit %.1f -> %.1f (%+.1f, %+.2f%%)\n", d->base_total,
	       d->patched_total, change, d->base_total > 0 ? 100.0 * change / d->base_total : 0.0);
	printf("%14s %14s %12s %10s  %s\n", "base/unit", "patched/unit", "delta", "of change",
	       "function");
	for (size_t i = 0; i < d->n && (long)i < top; i++) {
		double delta = d->v[i].patched - d->v[i].base;
		char share[32] = "n/a";

		if (fabs(change) > 0)
			snprintf(share, sizeof(share), "%.1f%%", 100.0 * delta / change);
		term_printf(stdout, "%14.1f %14.1f %+12.1f %10s  %s\n", d->v[i].base, d->v[i].patched,
			    delta, share, d->v[i].name);
	}
	if ((size_t)top < d->n)
		printf("(%zu more functions: --top)\n", d->n - (size_t)top);
}

int cmd_attribute(int argc, char **argv)
{
	struct attribute_opts o = { .window = 1, .top = 20 };
	struct attr_table base = { 0 }, patched = { 0 };
	int nargs, r;

	r = lab_options_parse(&attribute_usage, "attribute", argc, argv, &o, &nargs);
	if (r)
		return cmd_status(r);
	if (nargs != 1)
		return cmd_status(user_error("attribute: expected one RUN_DIR, got %d arguments", nargs));
	if (!o.map)
		return cmd_status(user_error("attribute: --map SYSTEM_MAP is required (the kernel "
					     "cache keeps it beside the bzImage)"));
	if ((r = load_table(argv[0], o.map, o.window, &base)))
		goto out;
	if (o.vs && (r = load_table(o.vs, o.vs_map ? o.vs_map : o.map, o.window, &patched)))
		goto out;
	if (o.vs) {
		struct attr_diff d;

		attr_diff_build(&base, &patched, &d);
		if (o.json)
			r = print_json(diff_json(&d, &base, &patched, o.window, o.top));
		else
			print_diff(argv[0], o.vs, &d, o.window, o.top);
		attr_diff_release(&d);
	} else if (o.json) {
		r = print_json(table_json(&base, o.window, o.top));
	} else {
		print_table(argv[0], &base, o.window, o.top);
	}
	if (!r && fflush(stdout))
		r = lab_error("cannot write the output: %s", strerror(errno));
out:
	attr_table_release(&base);
	attr_table_release(&patched);
	return cmd_status(r);
}
