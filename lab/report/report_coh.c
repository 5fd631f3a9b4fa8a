// SPDX-License-Identifier: GPL-2.0
/*
 * The report's "coherence" member as text and HTML (report_coh.h,
 * docs/coherence.md): per workload and window, the modelled cache-line
 * transfers per unit of each kernel, the change, their modelled cost and
 * the functions and lines that moved. Shown as their own quantity, never
 * as a change in the workload's rate: the verdicts above do not use them.
 */
#include "report_coh.h"
#include "escape.h"
#include "report_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* @v with 4 decimals, or "-" when absent. */
static const char *fmt(char *buf, size_t len, double v, int sign)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, sign ? "%+.4f" : "%.4f", v);
	return buf;
}

static void text_runs(const json_t *side, struct strbuf *sb)
{
	const json_t *runs = json_object_get(side, "runs"), *r;
	size_t i;
	char b[32];

	sb_addf(sb, "%s (runs", fmt(b, sizeof(b), num(side, "per_unit"), 0));
	json_array_foreach(runs, i, r)
		sb_addf(sb, "%s %s", i ? "," : "", fmt(b, sizeof(b),
			json_is_number(r) ? json_number_value(r) : NAN, 0));
	sb_addf(sb, "; spread %s)", fmt(b, sizeof(b), num(side, "spread"), 0));
}

static void text_cost(const json_t *c, struct strbuf *sb)
{
	sb_addf(sb, "%.1f-%.1f ns", num(c, "node_ns"), num(c, "remote_ns"));
}

/* The first @max of @rows (the model's order: the largest change first). */
static void text_rows(const json_t *rows, const char *what, int two, size_t max,
		      struct strbuf *sb)
{
	const json_t *r;
	size_t i;
	char b0[32], b1[32], b2[32];

	if (!json_array_size(rows))
		return;
	if (two)
		sb_addf(sb, "    %10s %10s %10s  %s\n", "baseline", "patched", "change", what);
	else
		sb_addf(sb, "    %10s  %s\n", "per unit", what);
	json_array_foreach(rows, i, r) {
		const char *name = str(r, "function") ? str(r, "function") : str(r, "line");

		if (i == max)
			break;
		const char *by = str(r, "by");

		if (two)
			sb_addf(sb, "    %10s %10s %10s  ", fmt(b0, sizeof(b0), num(r, "baseline"), 0),
				fmt(b1, sizeof(b1), num(r, "patched"), 0),
				fmt(b2, sizeof(b2), num(r, "change"), 1));
		else
			sb_addf(sb, "    %10s  ", fmt(b0, sizeof(b0), num(r, "baseline"), 0));
		/*
		 * Names come from report.json: fitted, so that a row stays near the
		 * text's 78 columns and far under a mail's 998-byte line limit.
		 */
		sb_add_text_fit(sb, name ? name : "?", 40);
		if (by && name && strncmp(name, "[", 1)) {
			sb_adds(sb, " (by ");
			sb_add_text_fit(sb, by, 24);
			sb_adds(sb, ")");
		}
		sb_addc(sb, '\n');
	}
}

/* At most this many functions in the mail's brief of a window. */
#define BRIEF_FUNCTIONS 3

/* @brief: the mail's, transfers per unit and the functions that moved most; else the report's. */
static void text_window(const json_t *w, const char *workload, int brief, struct strbuf *sb)
{
	const json_t *base = json_object_get(w, "baseline"), *patched = json_object_get(w, "patched");
	char b[32];

	sb_adds(sb, "  ");
	sb_add_text_safe(sb, workload);
	sb_addf(sb, ", window %.0f: transfers per unit\n    baseline ", num(w, "window"));
	text_runs(base, sb);
	if (json_is_object(patched)) {
		sb_adds(sb, "\n    patched  ");
		text_runs(patched, sb);
		sb_addf(sb, "\n    change   %s (%s the runs' spread)", fmt(b, sizeof(b),
			num(w, "change"), 1), json_is_true(json_object_get(w, "beyond_spread")) ?
			"beyond" : "within");
	}
	/* (its own line, in 78 columns; none when the report has no costs) */
	if (!brief && json_is_object(json_object_get(base, "cost_ns_per_unit"))) {
		sb_adds(sb, "\n    modelled cost per unit, within a node - across nodes:\n      ");
		text_cost(json_object_get(base, "cost_ns_per_unit"), sb);
		if (json_is_object(patched)) {
			sb_adds(sb, " -> ");
			text_cost(json_object_get(patched, "cost_ns_per_unit"), sb);
		}
	}
	sb_addc(sb, '\n');
	text_rows(json_object_get(w, "functions"), "function", json_is_object(patched),
		  brief ? BRIEF_FUNCTIONS : SIZE_MAX, sb);
	if (!brief)
		text_rows(json_object_get(w, "lines"), "line (by: the function that moved it most)",
			  json_is_object(patched), SIZE_MAX, sb);
}

static void coh_text(const json_t *report, int brief, struct strbuf *sb)
{
	const json_t *c = json_object_get(report, "coherence"), *w;
	const json_t *lat;
	size_t i;

	if (!json_is_object(c))
		return;
	lat = json_object_get(c, "latency");
	sb_addf(sb, "\nCache-line transfers (model; %.0f runs per kernel; docs/coherence.md):\n",
		num(c, "runs_per_kernel"));
	struct strbuf note = STRBUF_INIT;

	sb_add_text_safe(&note, str(c, "model_note") ? str(c, "model_note") : "a model");
	sb_addc(&note, '.');
	report_text_wrap(sb, "  ", 2, sb_str(&note));
	sb_release(&note);
	if (!brief)
		sb_addf(sb, "  Latency model: %.0f ns per transfer within a node, %.0f across "
			"nodes.\n", num(lat, "node_ns"), num(lat, "remote_ns"));
	if (str(c, "unavailable")) {
		struct strbuf t = STRBUF_INIT;

		sb_addf(&t, "not done: %s", str(c, "unavailable"));
		report_text_wrap(sb, "  ", 4, sb_str(&t));
		sb_release(&t);
		return;
	}
	json_array_foreach(json_object_get(c, "workloads"), i, w) {
		const char *name = str(w, "workload") ? str(w, "workload") : "?";
		const char *why = str(w, "skipped") ? str(w, "skipped") : str(w, "error");
		const json_t *win;
		size_t j;

		/*
		 * Why a workload has no figures: in the report, wrapped to its 78
		 * columns; the mail names only what the model measured.
		 */
		if (why) {
			struct strbuf t = STRBUF_INIT;

			if (brief)
				continue;
			sb_addf(&t, "%s: %s", name, why);
			report_text_wrap(sb, "  ", 4, sb_str(&t));
			sb_release(&t);
			continue;
		}
		json_array_foreach(json_object_get(w, "windows"), j, win)
			text_window(win, name, brief, sb);
	}
}

void report_coh_text(const json_t *report, struct strbuf *sb)
{
	coh_text(report, 0, sb);
}

void report_coh_brief(const json_t *report, struct strbuf *sb)
{
	coh_text(report, 1, sb);
}

static void html_num(struct strbuf *sb, double v, int sign)
{
	char b[32];

	sb_adds(sb, "<td class=\"num\">");
	sb_adds(sb, fmt(b, sizeof(b), v, sign));
	sb_adds(sb, "</td>");
}

static void html_rows(const json_t *rows, const char *what, int two, struct strbuf *sb)
{
	const json_t *r;
	size_t i;

	if (!json_array_size(rows))
		return;
	sb_addf(sb, "<table><tr>%s<th>", two ? "<th>baseline</th><th>patched</th><th>change</th>" :
		"<th>per unit</th>");
	sb_add_xml(sb, what);
	sb_adds(sb, "</th><th>by</th></tr>\n");
	json_array_foreach(rows, i, r) {
		const char *name = str(r, "function") ? str(r, "function") : str(r, "line");

		sb_adds(sb, "<tr>");
		html_num(sb, num(r, "baseline"), 0);
		if (two) {
			html_num(sb, num(r, "patched"), 0);
			html_num(sb, num(r, "change"), 1);
		}
		sb_adds(sb, "<td><code>");
		sb_add_xml(sb, name ? name : "?");
		sb_adds(sb, "</code></td><td>");
		sb_add_xml(sb, str(r, "by") ? str(r, "by") : "");
		sb_adds(sb, "</td></tr>\n");
	}
	sb_adds(sb, "</table>\n");
}

static void html_side(const json_t *side, const char *label, struct strbuf *sb)
{
	const json_t *cost = json_object_get(side, "cost_ns_per_unit");

	sb_addf(sb, "<tr><td>%s</td>", label);
	html_num(sb, num(side, "per_unit"), 0);
	html_num(sb, num(side, "spread"), 0);
	sb_addf(sb, "<td class=\"num\">%.1f-%.1f</td></tr>\n", num(cost, "node_ns"),
		num(cost, "remote_ns"));
}

void report_coh_html(const json_t *report, struct strbuf *sb)
{
	const json_t *c = json_object_get(report, "coherence"), *w;
	size_t i;

	if (!json_is_object(c))
		return;
	sb_adds(sb, "<section id=\"coherence\"><h2>Cache-line transfers (model)</h2>\n<p>");
	sb_add_xml(sb, str(c, "model_note") ? str(c, "model_note") : "a model");
	sb_addf(sb, ". Latency model: %.0f ns per transfer within a node, %.0f across nodes "
		"(docs/coherence.md).</p>\n", num(json_object_get(c, "latency"), "node_ns"),
		num(json_object_get(c, "latency"), "remote_ns"));
	if (str(c, "unavailable")) {
		sb_adds(sb, "<p class=\"note\">Not done: ");
		sb_add_xml(sb, str(c, "unavailable"));
		sb_adds(sb, "</p></section>\n");
		return;
	}
	json_array_foreach(json_object_get(c, "workloads"), i, w) {
		const char *why = str(w, "skipped") ? str(w, "skipped") : str(w, "error");
		const json_t *win;
		size_t j;

		sb_adds(sb, "<h3>");
		sb_add_xml(sb, str(w, "workload") ? str(w, "workload") : "?");
		sb_adds(sb, "</h3>\n");
		if (why) {
			sb_adds(sb, "<p>");
			sb_add_xml(sb, why);
			sb_adds(sb, "</p>\n");
			continue;
		}
		json_array_foreach(json_object_get(w, "windows"), j, win) {
			const json_t *patched = json_object_get(win, "patched");

			sb_addf(sb, "<p>Window %.0f: transfers per unit", num(win, "window"));
			if (json_is_object(patched))
				sb_addf(sb, ", change %+.4f (%s the runs' spread)", num(win, "change"),
					json_is_true(json_object_get(win, "beyond_spread")) ?
					"beyond" : "within");
			sb_adds(sb, ".</p>\n<table><tr><th>kernel</th><th>per unit</th><th>spread</th>"
				"<th>modelled ns per unit</th></tr>\n");
			html_side(json_object_get(win, "baseline"), "baseline", sb);
			if (json_is_object(patched))
				html_side(patched, "patched", sb);
			sb_adds(sb, "</table>\n");
			html_rows(json_object_get(win, "functions"), "function",
				  json_is_object(patched), sb);
			html_rows(json_object_get(win, "lines"), "line", json_is_object(patched), sb);
		}
	}
	sb_adds(sb, "</section>\n");
}
