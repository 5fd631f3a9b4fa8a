// SPDX-License-Identifier: GPL-2.0
/*
 * The report's "attribution" member (run --attribute, reports/SCHEMA.md):
 * decoded into the view, then shown in the text and HTML reports as one
 * table per workload and measured phase: the kernel functions whose
 * instructions per unit moved, with the noise they are to be read
 * against, and what instructions cannot show.
 *
 * Function names come from a System.map and workload names from lab.conf:
 * both are escaped on the way out like everything else.
 */
#include "report_priv.h"
#include "report_view.h"
#include "view_decode.h"
#include "escape.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A phase's number: a count from 1, never a double cast blind. */
static long read_phase(struct vd *d, const json_t *j, const char *where)
{
	double win = vd_num(d, j, where, "window");

	if (!(win >= 1 && win <= 1e6 && win == floor(win)))
		vd_fail(d, where, "window", "a phase number from 1", json_object_get(j, "window"));
	return isfinite(win) && win >= 1 && win <= 1e6 ? (long)win : 0;
}

static void read_profile(struct vd *d, const json_t *j, const char *where,
			 struct view_attr_profile *p)
{
	const json_t *e;
	size_t i;
	char at[256];

	p->window = read_phase(d, j, where);
	p->per_unit = vd_num(d, j, where, "per_unit");
	p->kernel_per_unit = vd_num(d, j, where, "kernel_per_unit");
	p->noise = vd_num(d, j, where, "noise");
	p->more = vd_num(d, j, where, "more");
	p->rows = vd_elems(d, j, where, "functions", sizeof(*p->rows), &p->nrows);
	json_array_foreach(p->nrows ? json_object_get(j, "functions") : NULL, i, e) {
		struct view_attr_cost *r = &p->rows[i];

		snprintf(at, sizeof(at), "%s.functions[%zu]", where, i);
		r->function = vd_str(d, e, at, "function");
		r->per_unit = vd_num(d, e, at, "per_unit");
		r->share = vd_num(d, e, at, "share");
		r->spread = vd_num(d, e, at, "spread");
		if (!r->function)
			r->function = "?";
	}
}

static void read_window(struct vd *d, const json_t *j, const char *where,
			struct view_attr_window *w)
{
	const json_t *e;
	size_t i;
	char at[256];

	w->window = read_phase(d, j, where);
	w->base_per_unit = vd_num(d, j, where, "base_per_unit");
	w->patched_per_unit = vd_num(d, j, where, "patched_per_unit");
	w->base_kernel = vd_num(d, j, where, "base_kernel_per_unit");
	w->patched_kernel = vd_num(d, j, where, "patched_kernel_per_unit");
	w->noise = vd_num(d, j, where, "noise");
	w->threshold = vd_num(d, j, where, "threshold");
	if (!isfinite(w->threshold))
		w->threshold = w->noise;
	w->beyond_noise = vd_num(d, j, where, "beyond_noise");
	w->noise_function = vd_str(d, j, where, "noise_function");
	w->bursts = vd_num(d, j, where, "bursts");
	w->more = vd_num(d, j, where, "more");
	const json_t *acc = json_object_get(j, "accounts");
	w->measured_pct = w->predicted_pct = w->predicted_kernel_pct = NAN;
	if (acc && !json_is_null(acc)) {
		snprintf(at, sizeof(at), "%s.accounts", where);
		if (!json_is_object(acc)) {
			vd_fail(d, where, "accounts", "an object or null", acc);
		} else {
			w->accounts_metric = vd_str(d, acc, at, "metric");
			w->measured_pct = vd_num(d, acc, at, "measured_pct");
			w->predicted_pct = vd_num(d, acc, at, "predicted_pct");
			w->predicted_kernel_pct = vd_num(d, acc, at, "predicted_kernel_pct");
		}
	}
	w->rows = vd_elems(d, j, where, "functions", sizeof(*w->rows), &w->nrows);
	json_array_foreach(w->nrows ? json_object_get(j, "functions") : NULL, i, e) {
		struct view_attr_row *r = &w->rows[i];

		snprintf(at, sizeof(at), "%s.functions[%zu]", where, i);
		r->function = vd_str(d, e, at, "function");
		r->base = vd_num(d, e, at, "base");
		r->patched = vd_num(d, e, at, "patched");
		r->delta = vd_num(d, e, at, "delta");
		r->share = vd_num(d, e, at, "share_of_change");
		r->spread = vd_num(d, e, at, "spread");
		if (!r->function)
			r->function = "?";
		/* reports before 2026-12-05 have no "named": the threshold alone */
		if (vd_get(e, "named"))
			r->named = vd_bool(d, e, at, "named");
		else
			r->named = isfinite(w->threshold) && fabs(r->delta) > w->threshold &&
				   strcmp(r->function, "[user space]");
	}
}

static void read_workload(struct vd *d, const json_t *j, const char *where,
			  struct view_attr_workload *w)
{
	const json_t *e, *sec = vd_obj(d, j, where, "seconds");
	size_t i;
	char at[192];

	w->workload = vd_str(d, j, where, "workload");
	if (!w->workload)
		w->workload = "?";
	w->skipped = vd_str(d, j, where, "skipped");
	w->error = vd_str(d, j, where, "error");
	w->seconds[0] = vd_num(d, sec, where, "baseline");
	w->seconds[1] = vd_num(d, sec, where, "patched");
	w->runs = vd_num(d, j, where, "runs_per_kernel");
	w->primaries = vd_elems(d, j, where, "primaries", sizeof(*w->primaries), &w->nprimaries);
	json_array_foreach(w->nprimaries ? json_object_get(j, "primaries") : NULL, i, e) {
		snprintf(at, sizeof(at), "%s.primaries[%zu]", where, i);
		w->primaries[i].metric = vd_str(d, e, at, "metric");
		w->primaries[i].verdict = vd_str(d, e, at, "verdict");
		w->primaries[i].delta_pct = vd_num(d, e, at, "delta_pct");
	}
	w->windows = vd_elems(d, j, where, "windows", sizeof(*w->windows), &w->nwindows);
	json_array_foreach(w->nwindows ? json_object_get(j, "windows") : NULL, i, e) {
		snprintf(at, sizeof(at), "%s.windows[%zu]", where, i);
		read_window(d, e, at, &w->windows[i]);
	}
	w->profiles = vd_elems(d, j, where, "profiles", sizeof(*w->profiles), &w->nprofiles);
	json_array_foreach(w->nprofiles ? json_object_get(j, "profiles") : NULL, i, e) {
		snprintf(at, sizeof(at), "%s.profiles[%zu]", where, i);
		read_profile(d, e, at, &w->profiles[i]);
	}
}

json_t *report_attr_json(const json_t *report)
{
	return json_object_get(report, "attribution");
}

int report_attr_decode(const json_t *report, struct view_attribution *out, struct strbuf *err)
{
	const json_t *a = json_object_get(report, "attribution"), *e;
	struct vd d = { .err = err };
	size_t i;
	char at[64];

	memset(out, 0, sizeof(*out));
	if (!a || json_is_null(a))
		return 0;
	if (!json_is_object(a)) {
		sb_addf(err, "attribution: expected an object or null, got %s", xjson_type_name(a));
		return -1;
	}
	out->present = 1;
	out->method = vd_str(&d, a, "attribution", "method");
	out->which = vd_str(&d, a, "attribution", "which");
	out->unavailable = vd_str(&d, a, "attribution", "unavailable");
	out->cannot_see = vd_str(&d, a, "attribution", "cannot_see");
	out->runs_per_kernel = vd_num(&d, a, "attribution", "runs_per_kernel");
	out->confirm_runs = vd_num(&d, a, "attribution", "confirm_runs_per_kernel");
	out->nkernels = json_array_size(vd_arr(&d, a, "attribution", "kernels"));
	out->workloads = vd_elems(&d, a, "attribution", "workloads", sizeof(*out->workloads),
				  &out->nworkloads);
	json_array_foreach(out->nworkloads ? json_object_get(a, "workloads") : NULL, i, e) {
		snprintf(at, sizeof(at), "attribution.workloads[%zu]", i);
		read_workload(&d, e, at, &out->workloads[i]);
	}
	return d.failed ? -1 : 0;
}

int report_attr_window_decode(const json_t *table, const char *where,
			      struct view_attr_window *out, struct strbuf *err)
{
	struct vd d = { .err = err };

	memset(out, 0, sizeof(*out));
	if (!json_is_object(table)) {
		sb_addf(err, "%s: expected an object, got %s", where,
			table ? xjson_type_name(table) : "nothing");
		return -1;
	}
	read_window(&d, table, where, out);
	return d.failed ? -1 : 0;
}

void report_attr_window_release(struct view_attr_window *w)
{
	free(w->rows);
	memset(w, 0, sizeof(*w));
}

void report_attr_release(struct view_attribution *a)
{
	for (size_t i = 0; i < a->nworkloads; i++) {
		for (size_t k = 0; k < a->workloads[i].nwindows; k++)
			report_attr_window_release(&a->workloads[i].windows[k]);
		free(a->workloads[i].windows);
		for (size_t k = 0; k < a->workloads[i].nprofiles; k++)
			free(a->workloads[i].profiles[k].rows);
		free(a->workloads[i].profiles);
		free(a->workloads[i].primaries);
	}
	free(a->workloads);
	memset(a, 0, sizeof(*a));
}

/* "+3.87%" of @to against @from, or "-". */
static void pct_of(char *buf, size_t size, double from, double to)
{
	fmt_pct(buf, size, from > 0 && isfinite(to) ? 100.0 * (to - from) / from : NAN);
}

/* "1,234.5"-style is locale work: one decimal is what a reader compares. */
static void num1(char *buf, size_t size, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%.1f", v);
	else
		snprintf(buf, size, "-");
}

static void signed1(char *buf, size_t size, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%+.1f", v);
	else
		snprintf(buf, size, "-");
}

static void share_of(char *buf, size_t size, double share)
{
	if (isfinite(share))
		snprintf(buf, size, "%.0f%%", 100.0 * share);
	else
		snprintf(buf, size, "-");
}

/* The metric's name: escaped for HTML, made safe for text by the wrap that prints it. */
static void add_name(struct strbuf *sb, const char *name, int html)
{
	if (html)
		sb_add_xml(sb, name);
	else
		sb_adds(sb, name);
}

/* What the table says of phase @w, in a few sentences (text and HTML share them). */
static void window_summary(const struct view_attr_window *w, struct strbuf *sb, int html)
{
	char b[32], p[32], d[32], pct[32], kb[32], kp[32], n[32], th[32];

	num1(b, sizeof(b), w->base_per_unit);
	num1(p, sizeof(p), w->patched_per_unit);
	signed1(d, sizeof(d), w->patched_per_unit - w->base_per_unit);
	pct_of(pct, sizeof(pct), w->base_per_unit, w->patched_per_unit);
	num1(kb, sizeof(kb), w->base_kernel);
	num1(kp, sizeof(kp), w->patched_kernel);
	num1(n, sizeof(n), w->noise);
	num1(th, sizeof(th), w->threshold);
	sb_addf(sb, "phase %ld: %s -> %s instructions per unit (%s, %s); kernel %s -> %s. ",
		w->window, b, p, d, pct, kb, kp);
	if (!isfinite(w->noise))
		sb_adds(sb, "One run per kernel: no noise measured.");
	else if (w->beyond_noise > 0)
		sb_addf(sb, "%.0f kernel function%s moved by more than %s per unit", w->beyond_noise,
			w->beyond_noise == 1 ? "" : "s", th);
	else
		sb_addf(sb, "No kernel function moved by more than %s per unit", th);
	if (isfinite(w->noise) && w->threshold > w->noise)
		sb_addf(sb, " (%.1f times the noise, %s: the largest spread between runs of one "
			"kernel", w->threshold / w->noise, n);
	else if (isfinite(w->noise))
		sb_adds(sb, " (the noise: the largest spread between runs of one kernel");
	if (isfinite(w->noise) && w->noise_function) {
		sb_adds(sb, ", ");
		add_name(sb, w->noise_function, html);
		sb_adds(sb, "'s");
	}
	if (isfinite(w->noise))
		sb_adds(sb, ")");
	if (isfinite(w->noise))
		sb_adds(sb, w->beyond_noise > 0 ? "." : ": nothing here is a result.");
	if (isfinite(w->noise) && w->bursts > 0)
		sb_addf(sb, " %.0f function%s that ran in bursts (a spread at least %s mean) "
			"%s held to %s own spread instead.", w->bursts,
			w->bursts == 1 ? "" : "s", w->bursts == 1 ? "its" : "their",
			w->bursts == 1 ? "is" : "are", w->bursts == 1 ? "its" : "their");
	if (!w->accounts_metric)
		return;
	char pr[32], me[32];

	fmt_pct(pr, sizeof(pr), w->predicted_pct);
	fmt_pct(me, sizeof(me), w->measured_pct);
	if (isfinite(w->predicted_pct)) {
		char kpr[32];

		fmt_pct(kpr, sizeof(kpr), w->predicted_kernel_pct);
		sb_adds(sb, " Under icount time is instructions: this table predicts ");
		add_name(sb, w->accounts_metric, html);
		if (isfinite(w->predicted_kernel_pct))
			sb_addf(sb, " %s (from the kernel's instructions alone %s), measured %s.",
				pr, kpr, me);
		else
			sb_addf(sb, " %s, measured %s.", pr, me);
	} else {
		sb_adds(sb, " ");
		add_name(sb, w->accounts_metric, html);
		sb_addf(sb, " (measured %s) is neither a time nor a rate: the table does not "
			"predict it.", me);
	}
}

static void primaries_line(const struct view_attr_workload *w, struct strbuf *sb, int html)
{
	sb_adds(sb, "primaries:");
	for (size_t i = 0; i < w->nprimaries; i++) {
		char pct[32];

		fmt_pct(pct, sizeof(pct), w->primaries[i].delta_pct);
		sb_adds(sb, i ? "; " : " ");
		add_name(sb, w->primaries[i].metric ? w->primaries[i].metric : "?", html);
		sb_adds(sb, " ");
		add_name(sb, w->primaries[i].verdict ? w->primaries[i].verdict : "-", html);
		sb_addf(sb, " %s", pct);
	}
	if (!w->nprimaries)
		sb_adds(sb, " none declared");
}

/* At most this many functions named per phase in a brief. */
#define BRIEF_NAMED	3

/* Phase @win of workload @w in one sentence: the functions past the threshold, or none. */
static void brief_window(const struct view_attr_workload *w, const struct view_attr_window *win,
			 struct strbuf *sb, int html)
{
	char pct[32], th[32];
	size_t named = 0;

	add_name(sb, w->workload, html);
	sb_addf(sb, ", phase %ld: ", win->window);
	for (size_t r = 0; r < win->nrows && named < BRIEF_NAMED; r++) {
		const struct view_attr_row *row = &win->rows[r];
		char d[32], sh[32];

		if (!row->named)
			continue;
		signed1(d, sizeof(d), row->delta);
		share_of(sh, sizeof(sh), row->share);
		sb_adds(sb, named++ ? "; " : "");
		add_name(sb, row->function, html);
		sb_addf(sb, " %s instructions per unit (%s of the change)", d, sh);
	}
	num1(th, sizeof(th), win->threshold);
	pct_of(pct, sizeof(pct), win->base_per_unit, win->patched_per_unit);
	if (!named && isfinite(win->threshold))
		sb_addf(sb, "no kernel function moved by more than %s per unit", th);
	else if (!named)
		sb_adds(sb, "one run per kernel: nothing can be named against a noise");
	sb_addf(sb, "; all instructions per unit %s", pct);
	if (named && isfinite(win->threshold) && win->noise > 0)
		sb_addf(sb, "; named past %s per unit (%.1f times the noise)", th,
			win->threshold / win->noise);
	sb_adds(sb, ".");
}

void report_attr_brief(const struct view_attribution *a, struct strbuf *sb, int html)
{
	struct strbuf line = STRBUF_INIT;

	if (html)
		sb_adds(sb, "<ul class=\"attribution\">\n");
	for (size_t i = 0; i <= a->nworkloads; i++) {
		const struct view_attr_workload *w = i < a->nworkloads ? &a->workloads[i] : NULL;
		size_t nwin = w && !w->skipped && !w->error && w->nwindows ? w->nwindows : 1;

		if (!w && (a->nworkloads || !a->unavailable))
			break;
		for (size_t k = 0; k < nwin; k++) {
			sb_reset(&line);
			if (!w) {
				sb_adds(&line, "not done: ");
				add_name(&line, a->unavailable, html);
			} else if (w->skipped || w->error || !w->nwindows) {
				add_name(&line, w->workload, html);
				sb_adds(&line, ": ");
				add_name(&line, w->skipped ? w->skipped : w->error ? w->error :
					 "no measured phase", html);
			} else {
				brief_window(w, &w->windows[k], &line, html);
			}
			if (html)
				sb_addf(sb, "<li>%s</li>\n", line.buf);
			else
				report_text_wrap(sb, "  ", 4, line.buf);
		}
	}
	if (html)
		sb_adds(sb, "</ul>\n");
	sb_release(&line);
}

/* The text report's rows: 52 columns of numbers, the function in the rest of 80. */
#define TEXT_FN_WIDTH	28

/* What a one-kernel table (mglrulab profile) says of phase @p. */
static void profile_summary(const struct view_attr_profile *p, struct strbuf *sb)
{
	char t[32], k[32], n[32];

	num1(t, sizeof(t), p->per_unit);
	num1(k, sizeof(k), p->kernel_per_unit);
	num1(n, sizeof(n), p->noise);
	sb_addf(sb, "phase %ld: %s instructions per unit, kernel %s. ", p->window, t, k);
	if (isfinite(p->noise))
		sb_addf(sb, "A kernel function's figure is good to about %s per unit (the noise: "
			"the largest spread between runs).", n);
	else
		sb_adds(sb, "One run: no noise measured.");
}

static void profile_text(const struct view_attr_workload *w, struct strbuf *sb,
			 struct strbuf *line)
{
	for (size_t k = 0; k < w->nprofiles; k++) {
		const struct view_attr_profile *p = &w->profiles[k];

		sb_reset(line);
		profile_summary(p, line);
		report_text_wrap(sb, "    ", 6, line->buf);
		sb_addf(sb, "    %10s %6s %7s  %s\n", "instr/unit", "share", "spread", "function");
		for (size_t r = 0; r < p->nrows; r++) {
			const struct view_attr_cost *row = &p->rows[r];
			char u[32], s[32], sp[32];

			num1(u, sizeof(u), row->per_unit);
			share_of(s, sizeof(s), row->share);
			num1(sp, sizeof(sp), row->spread);
			sb_addf(sb, "    %10s %6s %7s  ", u, s, sp);
			sb_add_text_fit(sb, row->function, TEXT_FN_WIDTH + 18);
			sb_addc(sb, '\n');
		}
		if (p->more > 0)
			sb_addf(sb, "    (%.0f more: `mglrulab attribute` on the session's "
				"attribution/ runs)\n", p->more);
	}
}

/* The header's word on confirming runs, or "" (a report from before them). */
static const char *confirm_note(const struct view_attribution *a, char *buf, size_t size)
{
	if (!isfinite(a->confirm_runs) || a->confirm_runs <= a->runs_per_kernel)
		return "";
	snprintf(buf, size, ", %g to confirm where the first look names a function",
		 a->confirm_runs);
	return buf;
}

/* "5 per kernel to confirm what 2 named; " when @w's table was confirmed, else "". */
static void confirmed(const struct view_attribution *a, const struct view_attr_workload *w,
		      struct strbuf *sb)
{
	if (isfinite(w->runs) && w->runs > a->runs_per_kernel)
		sb_addf(sb, "%g per kernel to confirm what %g named; ", w->runs,
			a->runs_per_kernel);
}

void report_attr_text(const struct report_view *v, struct strbuf *sb)
{
	const struct view_attribution *a = &v->attribution;
	struct strbuf line = STRBUF_INIT;
	char note[96];

	if (!a->present)
		return;
	if (a->nkernels == 1)
		sb_addf(sb, "\nProfile (instructions per unit, %g runs; docs/attribution.md):\n",
			a->runs_per_kernel);
	else
		sb_addf(sb, "\nAttribution (instructions per unit, %g runs per kernel; "
			"docs/attribution.md):\n", a->runs_per_kernel);
	if (a->unavailable) {
		report_text_wrap(sb, "  not done: ", 4, a->unavailable);
		return;
	}
	/* on a line of its own: the header with it outgrows 80 columns */
	if (a->nkernels > 1 && *confirm_note(a, note, sizeof(note))) {
		sb_addf(&line, "(%g runs per kernel where the first look names a function, "
			"to confirm it)", a->confirm_runs);
		report_text_wrap(sb, "  ", 3, line.buf);
	}
	for (size_t i = 0; i < a->nworkloads; i++) {
		const struct view_attr_workload *w = &a->workloads[i];

		sb_reset(&line);
		sb_addf(&line, "%s: ", w->workload);
		if (w->skipped || w->error) {
			sb_adds(&line, w->skipped ? w->skipped : w->error);
			report_text_wrap(sb, "  ", 4, line.buf);
			continue;
		}
		if (a->nkernels == 1) {
			sb_addf(&line, "(attribution runs: %.0f s)", w->seconds[0]);
			report_text_wrap(sb, "  ", 4, line.buf);
			profile_text(w, sb, &line);
			continue;
		}
		primaries_line(w, &line, 0);
		sb_adds(&line, " (attribution runs: ");
		confirmed(a, w, &line);
		sb_addf(&line, "%.0f s baseline, %.0f s patched)", w->seconds[0], w->seconds[1]);
		report_text_wrap(sb, "  ", 4, line.buf);
		for (size_t k = 0; k < w->nwindows; k++) {
			const struct view_attr_window *win = &w->windows[k];

			sb_reset(&line);
			window_summary(win, &line, 0);
			report_text_wrap(sb, "    ", 6, line.buf);
			sb_addf(sb, "    %10s %10s %9s %6s %7s  %s\n", "base/unit", "patched", "delta",
				"of chg", "spread", "function");
			for (size_t r = 0; r < win->nrows; r++) {
				const struct view_attr_row *row = &win->rows[r];
				char b[32], p[32], d[32], s[32], sp[32];

				num1(b, sizeof(b), row->base);
				num1(p, sizeof(p), row->patched);
				signed1(d, sizeof(d), row->delta);
				share_of(s, sizeof(s), row->share);
				num1(sp, sizeof(sp), row->spread);
				sb_addf(sb, "    %10s %10s %9s %6s %7s  ", b, p, d, s, sp);
				sb_add_text_fit(sb, row->function, TEXT_FN_WIDTH);
				sb_addc(sb, '\n');
			}
			if (win->more > 0)
				sb_addf(sb, "    (%.0f more: `mglrulab attribute` on the session's "
					"attribution/ runs)\n", win->more);
		}
	}
	if (a->cannot_see) {
		sb_reset(&line);
		sb_addf(&line, "%s.", a->cannot_see);
		report_text_wrap(sb, "  What this cannot see: ", 4, line.buf);
	}
	sb_release(&line);
}

/* The rows a table leaves out, and where they are. */
static void more_html(double more, struct strbuf *sb)
{
	if (more > 0)
		sb_addf(sb, "<p class=\"muted\">%.0f more functions: <code>mglrulab attribute</code> "
			"on the session's <code>attribution/</code> runs.</p>\n", more);
}

static void profile_html(const struct view_attr_workload *w, struct strbuf *sb)
{
	sb_addf(sb, "<p>Attribution runs: %.0f s.</p>\n", w->seconds[0]);
	for (size_t k = 0; k < w->nprofiles; k++) {
		const struct view_attr_profile *p = &w->profiles[k];

		sb_adds(sb, "<p>");
		profile_summary(p, sb);
		sb_adds(sb, "</p>\n<table><thead><tr><th>function</th><th>instructions/unit</th>"
			"<th>share</th><th>spread</th></tr></thead><tbody>\n");
		for (size_t r = 0; r < p->nrows; r++) {
			const struct view_attr_cost *row = &p->rows[r];
			char u[32], s[32], sp[32];

			num1(u, sizeof(u), row->per_unit);
			share_of(s, sizeof(s), row->share);
			num1(sp, sizeof(sp), row->spread);
			sb_adds(sb, "<tr><td><code>");
			sb_add_xml(sb, row->function);
			sb_addf(sb, "</code></td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
				"<td class=\"num\">%s</td></tr>\n", u, s, sp);
		}
		sb_adds(sb, "</tbody></table>\n");
		more_html(p->more, sb);
	}
}

/* Phase @win of two kernels: what it says, then its rows; a moved row in bold. */
static void window_html(const struct view_attr_window *win, struct strbuf *sb)
{
	sb_adds(sb, "<p>");
	window_summary(win, sb, 1);
	sb_adds(sb, "</p>\n<table><thead><tr><th>function</th><th>base/unit</th>"
		"<th>patched/unit</th><th>delta</th><th>of change</th><th>spread</th>"
		"</tr></thead><tbody>\n");
	for (size_t r = 0; r < win->nrows; r++) {
		const struct view_attr_row *row = &win->rows[r];
		char b[32], p[32], d[32], s[32], sp[32];
		int moved = row->named;

		num1(b, sizeof(b), row->base);
		num1(p, sizeof(p), row->patched);
		signed1(d, sizeof(d), row->delta);
		share_of(s, sizeof(s), row->share);
		num1(sp, sizeof(sp), row->spread);
		sb_addf(sb, "<tr%s><td><code>", moved ? " class=\"moved\"" : "");
		sb_add_xml(sb, row->function);
		sb_addf(sb, "</code></td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s%s%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%s</td></tr>\n", b, p, moved ? "<strong>" : "", d,
			moved ? "</strong>" : "", s, sp);
	}
	sb_adds(sb, "</tbody></table>\n");
	more_html(win->more, sb);
}

void report_attr_html(const struct report_view *v, struct strbuf *sb)
{
	const struct view_attribution *a = &v->attribution;
	char note[96];

	if (!a->present)
		return;
	if (a->nkernels == 1)
		sb_addf(sb, "<section id=\"attribution\"><h2>Profile: where the instructions "
			"went</h2>\n<p>Instructions per unit of each workload (a yield, a "
			"generation), per kernel function, %g attribution runs "
			"(docs/attribution.md).</p>\n", a->runs_per_kernel);
	else
		sb_addf(sb, "<section id=\"attribution\"><h2>Attribution: where the instructions "
			"went</h2>\n<p>Instructions per unit of each workload (a yield, a "
			"generation), per kernel function, %g attribution runs per kernel%s after the "
			"verdicts (docs/attribution.md). A row moved only where its delta passes the "
			"threshold (in bold).</p>\n", a->runs_per_kernel, confirm_note(a, note, sizeof(note)));
	if (a->unavailable) {
		sb_adds(sb, "<p class=\"note\">Not done: ");
		sb_add_xml(sb, a->unavailable);
		sb_adds(sb, "</p></section>\n");
		return;
	}
	for (size_t i = 0; i < a->nworkloads; i++) {
		const struct view_attr_workload *w = &a->workloads[i];

		sb_adds(sb, "<h3>");
		sb_add_xml(sb, w->workload);
		sb_adds(sb, "</h3>\n");
		if (w->skipped || w->error) {
			sb_adds(sb, "<p>");
			sb_add_xml(sb, w->skipped ? w->skipped : w->error);
			sb_adds(sb, "</p>\n");
			continue;
		}
		if (a->nkernels == 1) {
			profile_html(w, sb);
			continue;
		}
		sb_adds(sb, "<p>");
		primaries_line(w, sb, 1);
		sb_adds(sb, ". Attribution runs: ");
		confirmed(a, w, sb);
		sb_addf(sb, "%.0f s baseline, %.0f s patched.</p>\n", w->seconds[0], w->seconds[1]);
		for (size_t k = 0; k < w->nwindows; k++)
			window_html(&w->windows[k], sb);
	}
	if (a->cannot_see) {
		sb_adds(sb, "<p class=\"note\">What this cannot see: ");
		sb_add_xml(sb, a->cannot_see);
		sb_adds(sb, ".</p>\n");
	}
	sb_adds(sb, "</section>\n");
}
