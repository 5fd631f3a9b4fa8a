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
	int json, coherence;
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
	LAB_OPT_BOOL("coherence", 0, struct attribute_opts, coherence,
		     "the modelled cache-line transfers between vCPUs instead\n"
		     "(RUN_DIR/coh.N of the coherence plugin, docs/coherence.md)"),
	LAB_OPT_END
};

static const char *const attribute_synopsis[] = {
	"mglrulab attribute RUN_DIR --map SYSTEM_MAP [--window N] [--top N] [--json]",
	"mglrulab attribute BASE_RUN_DIR --vs PATCHED_RUN_DIR --map SYSTEM_MAP",
	"                   [--vs-map SYSTEM_MAP] [--window N] [--top N] [--json]",
	"mglrulab attribute RUN_DIR --coherence --map SYSTEM_MAP [--window N] [--top N] [--json]",
	"mglrulab attribute BASE_RUN_DIR --coherence --vs PATCHED_RUN_DIR --map SYSTEM_MAP",
	"                   [--vs-map SYSTEM_MAP] [--window N] [--top N]",
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
		"docs/attribution.md says what the table can and cannot see.\n"
		"With --coherence, a run made with build/plugin/mglrulab-coh.so instead: its\n"
		"modelled cache-line transfers between vCPUs per unit, by the function whose\n"
		"access moved the line and by line (docs/coherence.md); with --vs, both runs'\n"
		"transfers per unit and per function side by side, by the size of the change.\n",
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

/* RUN_DIR's coherence window @n: the table, lines named from @map's data symbols. */
static int load_coh(const char *run_dir, const char *map, long n, struct coh_table *t,
		    struct coh_window *w)
{
	struct strbuf err = STRBUF_INIT;
	struct attr_symbols text = { 0 }, data = { 0 };
	char *path, name[32];
	int r = LAB_OK;

	snprintf(name, sizeof(name), "coh.%ld", n);
	path = path_join(run_dir, name);
	if (!is_regular_file(path))
		r = user_error("%s: no coherence window %ld (was the run made with --attr-plugin "
			       "build/plugin/mglrulab-coh.so, and did its workload measure %ld "
			       "phase%s?)", path, n, n, n == 1 ? "" : "s");
	else if (attr_symbols_load(map, &text, &err) ||
		 attr_symbols_load_types(map, "DdBbRr", &data, &err) ||
		 coh_window_load(path, w, &err))
		r = user_error("%s", sb_str(&err));
	else
		coh_table_build(w, &text, &data, t);
	attr_symbols_release(&text);
	attr_symbols_release(&data);
	free(path);
	sb_release(&err);
	return r;
}

static double coh_per_unit(const struct coh_table *t, uint64_t n)
{
	return t->units ? (double)n / (double)t->units : (double)n;
}

static json_t *coh_rows_json(const struct coh_table *t, const struct coh_row *v, size_t n,
			     long top, int lines)
{
	json_t *rows = json_array();

	for (size_t i = 0; i < n && (long)i < top; i++) {
		json_t *row = xjson_pack("{s:s, s:I, s:I, s:f}", lines ? "line" : "function",
					 v[i].name, "reads", (json_int_t)v[i].reads, "writes",
					 (json_int_t)v[i].writes, "per_unit",
					 coh_per_unit(t, v[i].reads + v[i].writes));

		if (lines) {
			char addr[32];

			snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)v[i].line);
			json_object_set_new(row, "phys", json_string(addr));
			json_object_set_new(row, "by", v[i].by ? json_string(v[i].by) : json_null());
		}
		json_array_append_new(rows, row);
	}
	return rows;
}

static json_t *coh_json(const struct coh_table *t, const struct coh_window *w, long window,
			long top)
{
	return xjson_pack("{s:I, s:I, s:I, s:f, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
			  "window", (json_int_t)window, "units", (json_int_t)t->units,
			  "transfers", (json_int_t)t->total, "per_unit", coh_per_unit(t, t->total),
			  "accesses", (json_int_t)w->accesses, "forced", (json_int_t)w->forced,
			  "stalled", (json_int_t)w->stalled,
			  "untracked", (json_int_t)w->untracked, "dropped", (json_int_t)w->dropped,
			  "functions", coh_rows_json(t, t->funcs, t->nfuncs, top, 0),
			  "lines", coh_rows_json(t, t->lines, t->nlines, top, 1));
}

static void print_coh(const char *run_dir, const struct coh_table *t, const struct coh_window *w,
		      long window, long top)
{
	term_printf(stdout, "%s, window %ld: %llu units, %llu transfers, %.4f per %s\n", run_dir,
		    window, (unsigned long long)t->units, (unsigned long long)t->total,
		    coh_per_unit(t, t->total), t->units ? "unit" : "window (no unit marks)");
	if (w->stalled)
		printf("lockstep: %llu instructions of stall put on vCPUs that round-robin ran less "
		       "(docs/coherence.md)\n", (unsigned long long)w->stalled);
	if (w->forced || w->untracked || w->dropped)
		printf("bounds reached: %llu accesses applied before their time, %llu on untracked "
		       "lines, %llu transfers not attributed\n", (unsigned long long)w->forced,
		       (unsigned long long)w->untracked, (unsigned long long)w->dropped);
	printf("%12s %10s %10s  %s\n", "per unit", "reads", "writes", "function");
	for (size_t i = 0; i < t->nfuncs && (long)i < top; i++)
		term_printf(stdout, "%12.4f %10llu %10llu  %s\n",
			    coh_per_unit(t, t->funcs[i].reads + t->funcs[i].writes),
			    (unsigned long long)t->funcs[i].reads,
			    (unsigned long long)t->funcs[i].writes, t->funcs[i].name);
	printf("%12s %10s %10s  %-32s %s\n", "per unit", "reads", "writes", "line", "moved most by");
	for (size_t i = 0; i < t->nlines && (long)i < top; i++)
		term_printf(stdout, "%12.4f %10llu %10llu  %-32s %s\n",
			    coh_per_unit(t, t->lines[i].reads + t->lines[i].writes),
			    (unsigned long long)t->lines[i].reads,
			    (unsigned long long)t->lines[i].writes, t->lines[i].name,
			    t->lines[i].by ? t->lines[i].by : "");
}

/* The rows of @t's functions as an attribution table, for attr_diff_build(): transfers for instructions. */
static void coh_as_attr(const struct coh_table *t, struct attr_table *a)
{
	a->n = t->nfuncs;
	a->v = xcalloc(t->nfuncs ? t->nfuncs : 1, sizeof(*a->v));
	for (size_t i = 0; i < t->nfuncs; i++) {
		a->v[i].name = t->funcs[i].name;
		a->v[i].insns = t->funcs[i].reads + t->funcs[i].writes;
	}
	a->total = t->total;
	a->units = t->units;
}

/* Two runs' functions side by side, by the size of the change in transfers per unit. */
static int coh_vs(const char *base_dir, const struct coh_table *b, const struct attribute_opts *o)
{
	struct coh_window w = { 0 };
	struct coh_table p = { 0 };
	struct attr_table ab = { 0 }, ap = { 0 };
	struct attr_diff d;
	int r = load_coh(o->vs, o->vs_map ? o->vs_map : o->map, o->window, &p, &w);

	if (r)
		goto out;
	coh_as_attr(b, &ab);
	coh_as_attr(&p, &ap);
	attr_diff_build(&ab, &ap, &d);
	term_printf(stdout, "base %s, patched %s, window %ld:\n", base_dir, o->vs, o->window);
	printf("transfers per unit %.4f -> %.4f (%+.4f)\n", d.base_total, d.patched_total,
	       d.patched_total - d.base_total);
	printf("%12s %12s %12s  %s\n", "base/unit", "patched/unit", "delta", "function");
	for (size_t i = 0; i < d.n && (long)i < o->top; i++)
		term_printf(stdout, "%12.4f %12.4f %+12.4f  %s\n", d.v[i].base, d.v[i].patched,
			    d.v[i].patched - d.v[i].base, d.v[i].name);
	attr_diff_release(&d);
	/* the names belong to the coherence tables */
	free(ab.v);
	free(ap.v);
out:
	coh_table_release(&p);
	coh_window_release(&w);
	return r;
}

static int cmd_coherence(const char *run_dir, const struct attribute_opts *o)
{
	struct coh_window w = { 0 };
	struct coh_table t = { 0 };
	int r;

	if (o->vs && o->json)
		return user_error("attribute --coherence --vs: no --json yet (run --json on each run)");
	r = load_coh(run_dir, o->map, o->window, &t, &w);
	if (!r && o->vs) {
		r = coh_vs(run_dir, &t, o);
	} else if (!r) {
		if (o->json)
			r = print_json(coh_json(&t, &w, o->window, o->top));
		else
			print_coh(run_dir, &t, &w, o->window, o->top);
	}
	if (!r && fflush(stdout))
		r = lab_error("cannot write the output: %s", strerror(errno));
	coh_table_release(&t);
	coh_window_release(&w);
	return r;
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
	if (o.coherence)
		return cmd_status(cmd_coherence(argv[0], &o));
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
