// SPDX-License-Identifier: GPL-2.0
/*
 * The mail-ready text report: at most 80 columns, plain ASCII layout (the
 * only non-ASCII bytes are valid UTF-8 from names), in the shape linux-mm
 * threads use: metric, base, patched, diff, plus the interval, p and a
 * one-character verdict marker so that a reply can quote single lines.
 */
#include "report.h"
#include "escape.h"
#include "report_layout.h"
#include "report_priv.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_W	24
#define NUM_W	9

static void pad_to(struct strbuf *sb, size_t line_start, size_t col)
{
	/* Columns are counted in code points: names may hold UTF-8. */
	size_t w = text_safe_width(sb->buf + line_start);

	while (w++ < col)
		sb_addc(sb, ' ');
}

static void add_right(struct strbuf *sb, const char *s, int width)
{
	sb_addf(sb, " %*s", width, s);
}

static void num_cell(char *buf, size_t size, double v)
{
	fmt_num(buf, size, v);
	if (strlen(buf) > NUM_W)
		snprintf(buf, size, "%.3e", v);
}

/*
 * Word-wrap @text (made safe first) to 78 columns; the first line starts
 * after @prefix, continuation lines are indented to the same column.
 */
static void wrap(struct strbuf *sb, const char *prefix, const char *text)
{
	struct strbuf safe = STRBUF_INIT;
	size_t indent = strlen(prefix), col = indent;
	const char *s;

	sb_adds(sb, prefix);
	sb_add_text_safe(&safe, text);
	for (s = safe.buf; s && *s;) {
		size_t bytes = strcspn(s, " ");
		char *word = xstrndup(s, bytes);
		size_t w = text_safe_width(word);

		if (col > indent && col + 1 + w > 78) {
			sb_addf(sb, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			sb_addc(sb, ' ');
			col++;
		}
		col += sb_add_text_fit(sb, word, 78 - col);
		free(word);
		s += bytes;
		while (*s == ' ')
			s++;
	}
	sb_addc(sb, '\n');
	sb_release(&safe);
}

/* A "key     value" line, wrapped under the value. */
static void kv(struct strbuf *sb, const char *key, const char *val)
{
	char prefix[16];

	snprintf(prefix, sizeof(prefix), "%-9.9s", key);
	wrap(sb, prefix, val);
}

/* "baseline: Linux 6.12.57 from linux-source-6.12.tar.xz" (and the ref of a git source). */
static void kernel_desc(const json_t *k, struct strbuf *line)
{
	const char *src = jget_str(k, "source", ""), *slash = strrchr(src, '/');
	const char *ver = jget_str(k, "version", NULL), *ref = jget_str(k, "ref", NULL);

	sb_addf(line, "%s:", jget_str(k, "name", "?"));
	if (ver)
		sb_addf(line, " Linux %s", ver);
	if (*src)
		sb_addf(line, "%s%s", ver ? " from " : " ", slash && slash[1] ? slash + 1 : src);
	if (ref)
		sb_addf(line, " at %s", ref);
	if (!ver && !*src)
		sb_adds(line, " (not described)");
}

/* The sequential design and where each workload stopped. */
static void sequential_lines(const json_t *r, struct strbuf *sb)
{
	const json_t *plan = jpath(r, "design.sequential"), *w;
	const char *name;
	struct strbuf line = STRBUF_INIT;

	if (!json_is_object(plan))
		return;
	sb_addf(&line, "until decided: looks at %lld, %lld, ... up to %lld runs per kernel; "
		"alpha %g spent over the looks (%s)",
		(long long)jget_num(plan, "min_runs"),
		(long long)(jget_num(plan, "min_runs") + jget_num(plan, "step")),
		(long long)jget_num(plan, "max_runs"), jget_num(plan, "alpha"),
		jget_str(plan, "method", "sequential"));
	if (jget_num(plan, "budget_s") > 0)
		sb_addf(&line, "; budget %.0f s of runs", jget_num(plan, "budget_s"));
	kv(sb, "", line.buf);
	json_object_foreach(json_object_get(jpath(r, "sequential"), "workloads"), name, w) {
		const char *why = jget_str(w, "why", NULL);
		double n = jget_num(w, "runs_per_kernel");

		sb_reset(&line);
		sb_addf(&line, "%s: ", name);
		if (!why)
			sb_adds(&line, "still running (no look decided it)");
		else if (!strcmp(why, "decided"))
			sb_addf(&line, "every primary decided at look %lld (%.0f runs per kernel)",
				(long long)jget_num(w, "look"), n);
		else if (!strcmp(why, "max-runs"))
			sb_addf(&line, "stopped at the run cap (%.0f runs per kernel), undecided", n);
		else if (!strcmp(why, "below-first-look"))
			sb_addf(&line, "its own cap of %.0f runs per kernel is below the first look", n);
		else
			sb_addf(&line, "stopped by the budget, undecided");
		kv(sb, "", line.buf);
	}
	if (report_budget_stopped(r)) {
		sb_reset(&line);
		report_budget_resume_line(r, &line);
		kv(sb, "", line.buf);
	}
	sb_release(&line);
}

static void header(const json_t *r, struct strbuf *sb)
{
	const json_t *host = json_object_get(r, "host"), *guest = json_object_get(r, "guest");
	const json_t *design = json_object_get(r, "design"), *st = json_object_get(r, "statistics");
	const char *base = jget_str(design, "baseline", "?"), *patched = jget_str(design, "patched", "?");
	struct strbuf line = STRBUF_INIT;
	json_t *k, *p;
	size_t i, j;

	sb_adds(sb, "mglrulab report: ");
	sb_add_text_fit(sb, base, 30);
	if (json_is_string(jpath(r, "design.patched"))) {
		sb_adds(sb, " vs ");
		sb_add_text_fit(sb, patched, 30);
	} else {
		sb_adds(sb, " (one kernel, no comparison)");
	}
	sb_addc(sb, '\n');
	sb_addf(&line, "%s (%s), %s %s", jget_str(jpath(r, "session"), "id", "-"),
		jget_str(jpath(r, "session"), "mode", "-"), jget_str(jpath(r, "generator"), "name", "?"),
		jget_str(jpath(r, "generator"), "version", "?"));
	sb_addc(sb, '\n');
	kv(sb, "session", line.buf);
	json_array_foreach(json_object_get(r, "kernels"), i, k) {
		json_t *series = json_object_get(k, "series");

		sb_reset(&line);
		kernel_desc(k, &line);
		if (json_array_size(series))
			sb_addf(&line, " + %zu patch%s", json_array_size(series),
				json_array_size(series) == 1 ? "" : "es");
		kv(sb, i ? "" : "kernels", line.buf);
		json_array_foreach(series, j, p) {
			sb_reset(&line);
			sb_addf(&line, "%.12s %s", jget_str(p, "hash", "-"), jget_str(p, "subject", ""));
			wrap(sb, "           ", line.buf);
		}
	}
	sb_reset(&line);
	sb_addf(&line, "%s, %s CPUs; Linux %s; QEMU %s; libvirt %s; accel %s",
		jget_str(host, "cpu", "?"), json_is_integer(json_object_get(host, "cpus")) ?
		"" : "?", jget_str(host, "kernel", "?"), jget_str(host, "qemu_version", "?"),
		jget_str(host, "libvirt_version", "?"), jget_str(host, "accel", "?"));
	if (json_is_integer(json_object_get(host, "cpus"))) {
		sb_reset(&line);
		sb_addf(&line, "%s, %lld CPUs; Linux %s; QEMU %s; libvirt %s; accel %s",
			jget_str(host, "cpu", "?"), (long long)json_integer_value(json_object_get(host, "cpus")),
			jget_str(host, "kernel", "?"), jget_str(host, "qemu_version", "?"),
			jget_str(host, "libvirt_version", "?"), jget_str(host, "accel", "?"));
	}
	kv(sb, "host", line.buf);
	if (guest) {
		sb_reset(&line);
		sb_addf(&line, "%s: %lld vCPUs, %g MiB, %zu NUMA node(s)", jget_str(guest, "name", "?"),
			(long long)json_integer_value(json_object_get(guest, "vcpus")),
			isfinite(jget_num(guest, "memory_mib")) ? jget_num(guest, "memory_mib") : 0,
			json_array_size(json_object_get(guest, "nodes")));
		if (json_is_integer(json_object_get(guest, "icount_shift")))
			sb_addf(&line, "; guest time counts instructions (icount, 2^%lld ns each)",
				(long long)json_integer_value(json_object_get(guest, "icount_shift")));
		kv(sb, "guest", line.buf);
	}
	sb_reset(&line);
	char *except = report_runs_exceptions(r);
	sb_addf(&line, "%s%lld runs per kernel%s%s%s, %lld warm-up, order %s, seed %lld",
		json_is_object(json_object_get(design, "sequential")) ? "up to " : "",
		(long long)json_integer_value(json_object_get(design, "runs_per_kernel")),
		except ? " (" : "", except ? except : "", except ? ")" : "",
		(long long)json_integer_value(json_object_get(design, "warmups")),
		jget_str(design, "order", "-"),
		(long long)json_integer_value(json_object_get(design, "seed")));
	free(except);
	kv(sb, "design", line.buf);
	sequential_lines(r, sb);
	{
		const json_t *t = jpath(r, "summary.timings");
		double b = jget_num(json_object_get(t, "boot_s"), "median");
		double w = jget_num(json_object_get(t, "workload_s"), "median");
		double h = jget_num(json_object_get(t, "host_overhead_s"), "median");
		double total = 0;

		static const char *const phases[] = { "boot_s", "workload_s", "host_overhead_s" };

		for (size_t x = 0; x < ARRAY_SIZE(phases); x++)
			if (isfinite(jget_num(json_object_get(t, phases[x]), "total")))
				total += jget_num(json_object_get(t, phases[x]), "total");
		if (isfinite(b) || isfinite(w) || isfinite(h)) {
			sb_reset(&line);
			sb_addf(&line, "per run (median): boot %.2f s, workload %.2f s, host overhead "
				"%.2f s; all runs %.0f s", b, w, h, total);
			kv(sb, "time", line.buf);
		}
	}
	sb_reset(&line);
	sb_addf(&line, "median, %.0f%% CI of the ratio (bootstrap, %lld resamples, seed %lld),",
		100 * jget_num(st, "confidence"),
		(long long)json_integer_value(json_object_get(st, "resamples")),
		(long long)json_integer_value(json_object_get(st, "seed")));
	kv(sb, "stats", line.buf);
	sb_reset(&line);
	sb_addf(&line, "Mann-Whitney p, BH q within each family (primary, secondary, counters), "
		"alpha %g, noise band +-%g%% (%s)", jget_num(st, "alpha"),
		100 * jget_num(st, "threshold"), jget_str(st, "threshold_source", "[stats] threshold"));
	kv(sb, "", line.buf);
	sb_release(&line);
}

static void warnings(const json_t *r, struct strbuf *sb)
{
	json_t *w;
	size_t i;

	json_array_foreach(json_object_get(r, "warnings"), i, w) {
		if (!i)
			sb_addc(sb, '\n');
		wrap(sb, "WARNING: ", jget_str(w, "message", ""));
	}
}

/* "Verdicts: 2 improvement, ..." for the counts in @v (summary.verdicts or the like). */
static void counts_line(struct strbuf *sb, const char *label, const json_t *v, json_int_t n,
			const char *noun)
{
	sb_addf(sb, "\n%-9s %lld improvement, %lld regression, %lld within noise,\n"
		"          %lld no change, %lld inconclusive, %lld invalid (%lld %s)", label,
		(long long)json_integer_value(json_object_get(v, "improvement")),
		(long long)json_integer_value(json_object_get(v, "regression")),
		(long long)json_integer_value(json_object_get(v, "within-noise")),
		(long long)json_integer_value(json_object_get(v, "no-change")),
		(long long)json_integer_value(json_object_get(v, "inconclusive")),
		(long long)json_integer_value(json_object_get(v, "invalid")), (long long)n, noun);
}

static void verdict_counts(const json_t *r, struct strbuf *sb)
{
	json_int_t prim = json_integer_value(jpath(r, "summary.primaries"));

	if (prim)
		counts_line(sb, "Primary:", jpath(r, "summary.primary_verdicts"), prim, "primaries");
	counts_line(sb, "Verdicts:", jpath(r, "summary.verdicts"),
		    json_integer_value(jpath(r, "summary.metrics")), "metrics");
	sb_addc(sb, '\n');
}

/* @s right-aligned in @width columns after one space, cut if longer. */
static void right_text(struct strbuf *sb, const char *s, size_t width)
{
	struct strbuf t = STRBUF_INIT;
	size_t w;

	sb_add_text_fit(&t, s, width);
	w = text_safe_width(t.buf);
	sb_addc(sb, ' ');
	while (w++ < width)
		sb_addc(sb, ' ');
	sb_add(sb, t.buf, t.len);
	sb_release(&t);
}

/* @ci: the interval column's heading ("95% CI of diff"). */
static void table_head(struct strbuf *sb, const char *base, const char *patched, int q,
		       const char *ci)
{
	sb_addf(sb, "  %-*s", NAME_W, "");
	right_text(sb, base, NUM_W);
	right_text(sb, patched, NUM_W);
	sb_addf(sb, " %7s %16s %5s\n", "diff", ci, q ? "q" : "p");
}

/* One metric or counter row; long names get their own line. */
static void row(struct strbuf *sb, const json_t *res, const char *name, const char *marker)
{
	const json_t *c = verdict_comparison(res);
	char b[32], p[32], d[32], ci[48], pv[16];
	size_t start = sb->len;

	num_cell(b, sizeof(b), jget_num(json_object_get(res, "baseline"), "median"));
	num_cell(p, sizeof(p), jget_num(json_object_get(res, "patched"), "median"));
	fmt_pct(d, sizeof(d), jget_num(c, "delta_pct"));
	fmt_ratio_ci(ci, sizeof(ci), jget_num(json_object_get(c, "ci"), "lo"),
		     jget_num(json_object_get(c, "ci"), "hi"));
	fmt_p(pv, sizeof(pv), jget_num(res, "p_used"));
	sb_adds(sb, "  ");
	if (text_safe_width(name) > NAME_W) {
		sb_add_text_fit(sb, name, 76);
		sb_adds(sb, "\n  ");
		start = sb->len - 2;
	} else {
		sb_add_text_safe(sb, name);
	}
	pad_to(sb, start, 2 + NAME_W);
	add_right(sb, b, NUM_W);
	add_right(sb, p, NUM_W);
	add_right(sb, d, 7);
	add_right(sb, ci, 16);
	add_right(sb, pv, 5);
	sb_addf(sb, " %s", marker);
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	sb_addc(sb, '\n');
}

/*
 * The report's workloads by name (the first of a name wins, as the scan
 * per title did), built once: a scan per title was quadratic in them.
 */
static json_t *workload_index(const json_t *r)
{
	json_t *ix = json_object(), *w;
	size_t i;

	json_array_foreach(json_object_get(r, "workloads"), i, w) {
		const char *name = jget_str(w, "name", "");

		if (!json_object_get(ix, name))
			json_object_set(ix, name, w);
	}
	return ix;
}

static void workload_title(const json_t *ix, const char *wname, struct strbuf *sb)
{
	json_t *w = json_object_get(ix, wname), *v;
	const char *key;
	struct strbuf t = STRBUF_INIT;

	sb_add(&t, "", 0);
	if (w) {
		sb_addf(&t, " (%s", jget_str(w, "type", "?"));
		json_object_foreach(json_object_get(w, "params"), key, v) {
			if (json_is_string(v))
				sb_addf(&t, " %s=%s", key, json_string_value(v));
			else if (json_is_integer(v))
				sb_addf(&t, " %s=%lld", key, (long long)json_integer_value(v));
		}
		sb_addc(&t, ')');
	}
	sb_addc(sb, '\n');
	sb_add_text_fit(sb, wname, 40);
	sb_add_text_fit(sb, sb_str(&t), 80 - (text_safe_width(wname) > 40 ? 40 : text_safe_width(wname)));
	sb_addc(sb, '\n');
	sb_release(&t);
}

/*
 * The report's geomean entries by workload name (each name's entries in
 * report order), built once: a scan of them per workload was quadratic,
 * seconds for 10,000 workloads.
 */
static json_t *geomean_index(const json_t *r)
{
	json_t *ix = json_object(), *g, *list;
	size_t i;

	json_array_foreach(json_object_get(r, "geomean"), i, g) {
		const char *wn = jget_str(g, "workload", "");

		if (!(list = json_object_get(ix, wn))) {
			list = json_array();
			json_object_set_new_nocheck(ix, wn, list);
		}
		json_array_append(list, g);
	}
	return ix;
}

static void geomean_line(const json_t *geo_ix, const char *wname, struct strbuf *sb)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(geo_ix, wname), i, g) {
		char d[32], ci[48];

		if (json_integer_value(json_object_get(g, "metrics")) < 2)
			continue;
		fmt_pct(d, sizeof(d), 100 * (jget_num(g, "ratio") - 1));
		fmt_ratio_ci(ci, sizeof(ci), jget_num(g, "lo"), jget_num(g, "hi"));
		sb_addf(sb, "  geometric mean, + = patched better: %s %s\n", d, ci);
	}
}

static const char *marker_of(const json_t *res)
{
	return json_is_string(json_object_get(res, "verdict")) ?
	       verdict_marker(jget_str(res, "verdict", "invalid")) : " ";
}

/*
 * The answer first: every primary metric of the session in one table,
 * "workload: metric", before the per-workload detail.
 */
/*
 * A session on several hosts: under a primary, one line per host and the
 * warning when they disagree (its diff and interval above are pooled).
 */
static void host_lines(struct strbuf *sb, const json_t *res)
{
	const json_t *h, *w;
	size_t i;

	json_array_foreach(json_object_get(res, "hosts"), i, h) {
		struct strbuf line = STRBUF_INIT;

		sb_adds(&line, "host ");
		host_line(h, &line);
		wrap(sb, "      ", line.buf);
		sb_release(&line);
	}
	json_array_foreach(json_object_get(res, "warnings"), i, w)
		if (!strcmp(jget_str(w, "kind", ""), "host-heterogeneity"))
			wrap(sb, "    ! ", jget_str(w, "message", ""));
}

static void primary_table(const json_t *r, struct strbuf *sb)
{
	const json_t *results = json_object_get(r, "results"), *res;
	size_t i, n = 0;

	json_array_foreach(results, i, res)
		n += json_is_true(json_object_get(res, "primary"));
	if (!n)
		return;
	sb_addf(sb, "\nPrimary metrics (declared before the first run, %zu):\n", n);
	/* A sequential session's primaries: the repeated interval of their look. */
	table_head(sb, jget_str(jpath(r, "design"), "baseline", "base"),
		   jget_str(jpath(r, "design"), "patched", "patched"), 1,
		   json_is_object(jpath(r, "design.sequential")) ? "RCI of diff" : "95% CI of diff");
	json_array_foreach(results, i, res) {
		struct strbuf name = STRBUF_INIT;

		if (!json_is_true(json_object_get(res, "primary")))
			continue;
		sb_addf(&name, "%s: %s", jget_str(res, "workload", ""), jget_str(res, "metric", ""));
		row(sb, res, name.buf, marker_of(res));
		host_lines(sb, res);
		sb_release(&name);
	}
}

/*
 * The workloads' own tables (report_layout.h), the way their threads
 * showed them: median of each kernel, the change and the verdict marker
 * per cell; at most two cells (group x column) side by side in 80
 * columns, the others in further blocks below.
 */
#define LT_CELL_W	30	/* " %9s %9s %7s %c" */
#define LT_PER_LINE	2

static void layout_block(struct strbuf *sb, const json_t *r, const struct layout_table *t,
			 size_t first, size_t count)
{
	size_t label_w = t->layout->kind == LAYOUT_SWEEP ? 6 : NAME_W, cell, row, start;
	int heads = 0;

	for (cell = first; cell < first + count; cell++)
		heads |= *t->groups.v[cell / t->ncols] || t->ncols > 1;
	if (heads) {
		start = sb->len;
		sb_addf(sb, "  %*s", (int)label_w, "");
		for (cell = first; cell < first + count; cell++) {
			struct strbuf h = STRBUF_INIT;
			const char *g = t->groups.v[cell / t->ncols];
			/* One column per group: the group says it all. */
			const char *c = t->ncols > 1 ? layout_col_label(t, cell % t->ncols) : "";

			sb_addf(&h, "%s%s%s", g, *g && *c ? " " : "", c);
			pad_to(sb, start, 2 + label_w + (cell - first) * LT_CELL_W + 5);
			sb_add_text_fit(sb, h.buf, LT_CELL_W - 6);
			sb_release(&h);
		}
		sb_addc(sb, '\n');
	}
	start = sb->len;
	sb_adds(sb, "  ");
	sb_add_text_fit(sb, t->layout->kind == LAYOUT_SWEEP ? t->layout->row_head : "", label_w);
	pad_to(sb, start, 2 + label_w);
	for (cell = first; cell < first + count; cell++) {
		right_text(sb, jget_str(jpath(r, "design"), "baseline", "base"), NUM_W);
		right_text(sb, jget_str(jpath(r, "design"), "patched", "patched"), NUM_W);
		sb_addf(sb, " %7s  ", "diff");
	}
	while (sb->len && sb->buf[sb->len - 1] == ' ')
		sb->buf[--sb->len] = '\0';
	sb_addc(sb, '\n');
	for (row = 0; row < t->rows.n; row++) {
		start = sb->len;
		sb_adds(sb, "  ");
		/* Numbers (CPU counts, nodes) right-aligned, names left-aligned. */
		if (t->layout->kind == LAYOUT_SWEEP)
			sb_addf(sb, "%*s", (int)label_w, t->rows.v[row]);
		else
			sb_add_text_fit(sb, t->rows.v[row], label_w);
		pad_to(sb, start, 2 + label_w);
		for (cell = first; cell < first + count; cell++) {
			const struct layout_cell *c = layout_cell(t, row, cell / t->ncols,
								   cell % t->ncols);
			char b[32], p[32], d[32];

			num_cell(b, sizeof(b), c->base);
			num_cell(p, sizeof(p), c->patched);
			fmt_pct(d, sizeof(d), c->delta_pct);
			sb_addf(sb, " %*s %*s %7s %s", NUM_W, b, NUM_W, p, d,
				c->verdict ? verdict_marker(c->verdict) : " ");
		}
		while (sb->len && sb->buf[sb->len - 1] == ' ')
			sb->buf[--sb->len] = '\0';
		sb_addc(sb, '\n');
	}
}

/*
 * layout->per_run: each run's value under its kernel, as thpscale's table
 * showed them ("rc2 a b c"), when every kernel has at most LT_RUNS_MAX
 * runs (80 columns); the column heads are the runs' numbers.
 */
#define LT_RUNS_MAX	3
#define LT_RUN_W	8
#define LT_RUN_LABEL_W	22

static void run_cell(struct strbuf *sb, double v)
{
	char b[32];

	fmt_num(b, sizeof(b), v);
	if (strlen(b) > LT_RUN_W)
		snprintf(b, sizeof(b), "%.2e", v);
	sb_addf(sb, " %*s", LT_RUN_W, b);
}

static void layout_runs(struct strbuf *sb, const json_t *r, const struct layout_table *t)
{
	long long seqs[2][LT_RUNS_MAX];
	size_t n[2], row, start;

	if (!t->layout->per_run || t->groups.n != 1 || t->ncols != 1)
		return;
	for (int k = 0; k < 2; k++)
		if (layout_run_columns(t, k, seqs[k], LT_RUNS_MAX, &n[k]))
			return;
	if (!n[0] && !n[1])
		return;
	sb_addc(sb, '\n');
	start = sb->len;
	sb_addf(sb, "  %-*s", LT_RUN_LABEL_W, "each run:");
	for (int k = 0; k < 2; k++) {
		if (!n[k])
			continue;
		pad_to(sb, start, 2 + LT_RUN_LABEL_W + (k ? n[0] : 0) * (LT_RUN_W + 1) + 1);
		sb_add_text_fit(sb, jget_str(jpath(r, "design"), k ? "patched" : "baseline",
					     k ? "patched" : "base"), n[k] * (LT_RUN_W + 1) - 1);
	}
	sb_addc(sb, '\n');
	sb_addf(sb, "  %*s", LT_RUN_LABEL_W, "");
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < n[k]; i++) {
			char h[24];

			snprintf(h, sizeof(h), "#%lld", seqs[k][i]);
			sb_addf(sb, " %*s", LT_RUN_W, h);
		}
	sb_addc(sb, '\n');
	for (row = 0; row < t->rows.n; row++) {
		const struct layout_cell *c = layout_cell(t, row, 0, 0);

		start = sb->len;
		sb_adds(sb, "  ");
		sb_add_text_fit(sb, t->rows.v[row], LT_RUN_LABEL_W);
		pad_to(sb, start, 2 + LT_RUN_LABEL_W);
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < n[k]; i++)
				run_cell(sb, layout_run_value(c, k, seqs[k][i]));
		sb_addc(sb, '\n');
	}
}

static void layout_section(const json_t *r, struct strbuf *sb)
{
	struct layout_table *t;
	size_t n = layout_tables(r, &t);

	if (n)
		sb_adds(sb, "\nAs the threads showed them (medians of the runs):\n");
	for (size_t i = 0; i < n; i++) {
		size_t cells = t[i].groups.n * t[i].ncols;

		sb_addc(sb, '\n');
		wrap(sb, "", t[i].title.buf);
		for (size_t first = 0; first < cells; first += LT_PER_LINE)
			layout_block(sb, r, &t[i], first,
				     cells - first < LT_PER_LINE ? cells - first : LT_PER_LINE);
		layout_runs(sb, r, &t[i]);
	}
	layout_tables_free(t, n);
}

static void metric_tables(const json_t *r, struct strbuf *sb)
{
	const char *base = jget_str(jpath(r, "design"), "baseline", "base");
	const char *patched = jget_str(jpath(r, "design"), "patched", "patched");
	const json_t *results = json_object_get(r, "results");
	const char *cur = NULL;
	int use_q = 0;
	json_t *res, *geo_ix = geomean_index(r), *wl_ix = workload_index(r);
	size_t i;

	json_array_foreach(results, i, res)
		use_q |= json_is_true(json_object_get(res, "used_q"));
	json_array_foreach(results, i, res) {
		const char *wn = jget_str(res, "workload", "");

		/* Shown in the primary table already. */
		if (json_is_true(json_object_get(res, "primary")))
			continue;

		if (!cur || strcmp(cur, wn)) {
			if (cur)
				geomean_line(geo_ix, cur, sb);
			workload_title(wl_ix, wn, sb);
			table_head(sb, base, patched, use_q, "95% CI of diff");
			cur = wn;
		}
		row(sb, res, jget_str(res, "metric", ""), marker_of(res));
	}
	if (cur)
		geomean_line(geo_ix, cur, sb);
	json_decref(geo_ix);
	json_decref(wl_ix);
}

static const char *change_marker(const char *id)
{
	if (!strcmp(id, "increase"))
		return "^";
	if (!strcmp(id, "decrease"))
		return "v";
	if (!strcmp(id, "invalid") || !strcmp(id, "constant"))
		return " ";
	return verdict_marker(id);
}

static void counters(const json_t *r, struct strbuf *sb)
{
	const json_t *cs = json_object_get(r, "counter_results");
	size_t i, shown = 0, n = json_array_size(cs);
	json_t *c;

	if (!n)
		return;
	sb_addf(sb, "\nCounters that moved most (top %zu of %zu; ^ up, v down, by |ratio|):\n",
		n < 12 ? n : 12, n);
	table_head(sb, jget_str(jpath(r, "design"), "baseline", "base"),
		   jget_str(jpath(r, "design"), "patched", "patched"), 1, "95% CI of diff");
	json_array_foreach(cs, i, c) {
		struct strbuf name = STRBUF_INIT;

		if (shown == 12)
			break;
		sb_addf(&name, "%s:%s", jget_str(c, "workload", ""), jget_str(c, "counter", ""));
		row(sb, c, name.buf, change_marker(jget_str(c, "change", "invalid")));
		sb_release(&name);
		shown++;
	}
}

static void notes(const json_t *r, struct strbuf *sb)
{
	json_t *res, *run;
	size_t i;
	int first = 1;

	json_array_foreach(json_object_get(r, "results"), i, res) {
		const char *v = jget_str(res, "verdict", "");
		struct strbuf line = STRBUF_INIT;

		if (strcmp(v, "inconclusive") && strcmp(v, "invalid") && strcmp(v, "regression"))
			continue;
		if (first)
			sb_adds(sb, "\nNotes:\n");
		first = 0;
		sb_addf(&line, "%s %s:%s: %s", verdict_marker(v), jget_str(res, "workload", ""),
			jget_str(res, "metric", ""), jget_str(res, "reason", ""));
		wrap(sb, "  ", line.buf);
		sb_release(&line);
	}
	first = 1;
	json_array_foreach(json_object_get(r, "host_states"), i, res) {
		struct strbuf line = STRBUF_INIT;

		if (first)
			sb_adds(sb, "\nHost states (docs/reports.md):\n");
		first = 0;
		hoststate_sentence(res, &line);
		wrap(sb, "  ", line.buf);
		sb_release(&line);
	}
	first = 1;
	json_array_foreach(json_object_get(r, "runs"), i, run) {
		struct strbuf line = STRBUF_INIT;

		if (!strcmp(jget_str(run, "status", "ok"), "ok"))
			continue;
		if (first)
			sb_adds(sb, "\nFailed runs:\n");
		first = 0;
		sb_addf(&line, "#%lld %s %s: %s", (long long)json_integer_value(json_object_get(run, "seq")),
			jget_str(run, "kernel", ""), jget_str(run, "workload", ""),
			jget_str(run, "failure", "no reason recorded"));
		wrap(sb, "  ", line.buf);
		sb_release(&line);
	}
}

static void legend(const json_t *r, struct strbuf *sb)
{
	double t = 100 * jget_num(jpath(r, "statistics"), "threshold");

	sb_addf(sb, "\ndiff = median(patched) / median(base) - 1; CI = bootstrap interval of\n"
		"that ratio; p = Mann-Whitney U (q = Benjamini-Hochberg adjusted).\n");
	if (json_is_object(jpath(r, "design.sequential")))
		sb_adds(sb, "RCI = the repeated interval of a primary at its last look's level\n"
			"(1 - alpha_k), q its look-adjusted p after BH (docs/reports.md).\n");
	if (report_several_hosts(r))
		sb_adds(sb, "Several hosts: diff and CI pooled over the hosts (inverse-variance on\n"
			"the log ratio), p = van Elteren's stratified rank test (docs/reports.md).\n");
	sb_addf(sb, "+ improvement  - regression  = significant, within +-%g%%  ~ no change\n"
		"? inconclusive (more runs needed; also a real change not yet settled\n"
		"  against the band)  ! invalid\n", t);
}

void report_render_text(const json_t *report, struct strbuf *out)
{
	header(report, out);
	warnings(report, out);
	verdict_counts(report, out);
	primary_table(report, out);
	layout_section(report, out);
	metric_tables(report, out);
	counters(report, out);
	notes(report, out);
	legend(report, out);
}
