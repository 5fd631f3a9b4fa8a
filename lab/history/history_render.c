// SPDX-License-Identifier: GPL-2.0
/*
 * The outputs of mglrulab history: JSON (HISTORY_SCHEMA, every night's raw
 * runs), text for mail, and one self-contained HTML page in the manner of
 * the session report (report_html_begin(): CSP, no scripts, light/dark,
 * print) with an inline SVG trend per series (svg_trend()). Every string
 * from a report goes through sb_add_xml() or sb_add_text_safe().
 */
#include "history.h"
#include "history_context.h"
#include "escape.h"
#include "fsutil.h"
#include "html_kit.h"
#include "report.h"
#include "xjson.h"
#include "report_svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Is change point @c within the last o.last sessions? */
static int recent(const struct history *h, const struct history_series *s,
		  const struct history_cp *c)
{
	size_t sess = s->nights[c->at].session;

	return h->ns && sess + h->o.last >= h->ns;
}

static size_t count_cps(const struct history *h, int only_recent)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ncp; j++)
			n += !only_recent || recent(h, &h->series[i], &h->series[i].cps[j]);
	return n;
}

/* Drifts whose span reaches into the last o.last sessions (or all). */
static size_t count_drifts(const struct history *h, int only_recent)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ndrift; j++)
			n += !only_recent || (h->ns && h->series[i].nights[
				h->series[i].drifts[j].to].session + h->o.last >= h->ns);
	return n;
}

static const char *session_before(const struct history *h, const struct history_series *s,
				  const struct history_cp *c)
{
	for (size_t j = c->at; j-- > 0;)
		if (s->nights[j].n)
			return h->s[s->nights[j].session].id;
	return "";
}

/* ---------------------------------------------------------------- */

static json_t *night_json(const struct history *h, const struct history_night *n)
{
	json_t *v = json_array();

	for (size_t i = 0; i < n->n; i++)
		json_array_append_new(v, jnum(n->v[i]));
	return xjson_pack("{s:o,s:o,s:I,s:I,s:I,s:o,s:o,s:o,s:o}",
			  "session", json_string_lossy(h->s[n->session].id),
			  "created", json_string_lossy(h->s[n->session].created),
			  "n", (json_int_t)n->n, "failed", (json_int_t)n->failed,
			  "missing", (json_int_t)n->missing, "median", jnum(n->median),
			  "lo", jnum(n->lo), "hi", jnum(n->hi), "values", v);
}

static json_t *cp_json(const struct history *h, const struct history_series *s,
		       const struct history_cp *c)
{
	json_t *d = json_array();

	for (size_t i = 0; i < c->diff.n; i++)
		json_array_append_new(d, json_string_lossy(c->diff.v[i]));
	return xjson_pack("{s:I,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:b,s:b,s:o}",
			  "night", (json_int_t)c->at,
			  "before", json_string_lossy(session_before(h, s, c)),
			  "after", json_string_lossy(h->s[s->nights[c->at].session].id),
			  "kind", c->kind, "delta_pct", jnum(c->delta_pct),
			  "lo_pct", jnum(c->lo_pct), "hi_pct", jnum(c->hi_pct),
			  "p", jnum(c->p), "gross", c->gross > 0 ? jnum(c->gross) : json_null(),
			  "median_before", jnum(c->before),
			  "median_after", jnum(c->after), "tentative", c->tentative,
			  "new", c->is_new, "kept", c->kept, "difference", d);
}

static json_t *drift_json(const struct history *h, const struct history_series *s,
			  const struct history_drift *d)
{
	return xjson_pack("{s:s,s:I,s:I,s:o,s:o,s:s,s:o,s:o,s:o,s:I,s:b}",
			  "kind", "drift", "from", (json_int_t)d->from, "to", (json_int_t)d->to,
			  "from_session", json_string_lossy(h->s[s->nights[d->from].session].id),
			  "to_session", json_string_lossy(h->s[s->nights[d->to].session].id),
			  "direction", d->kind, "slope_pct_per_night", jnum(d->slope_pct),
			  "total_pct", jnum(d->total_pct), "p", jnum(d->p),
			  "change_points", (json_int_t)d->ncp, "new", d->is_new);
}

/* The reports skipped, [{file, reason}]: new. */
static json_t *skipped_json(const struct history *h)
{
	json_t *out = json_array();

	for (size_t i = 0; i < h->nskipped; i++)
		json_array_append_new(out, xjson_pack("{s:o,s:o}",
			"file", json_string_lossy(h->skipped[i].file),
			"reason", json_string_lossy(h->skipped[i].reason)));
	return out;
}

void history_render_json(const struct history *h, struct strbuf *out)
{
	json_t *sess = json_array(), *series = json_array(), *root;

	for (size_t i = 0; i < h->ns; i++)
		json_array_append_new(sess, xjson_pack("{s:o,s:o,s:o,s:o,s:I,s:I}",
			"id", json_string_lossy(h->s[i].id),
			"created", json_string_lossy(h->s[i].created),
			"report", json_string_lossy(h->s[i].path),
			"html", h->s[i].html ? json_string_lossy(h->s[i].html) : json_null(),
			"runs", (json_int_t)h->s[i].runs, "failed", (json_int_t)h->s[i].failed));
	for (size_t i = 0; i < h->nseries; i++) {
		const struct history_series *s = &h->series[i];
		json_t *nights = json_array(), *cps = json_array(), *drifts = json_array();

		for (size_t j = 0; j < s->nn; j++)
			json_array_append_new(nights, night_json(h, &s->nights[j]));
		for (size_t j = 0; j < s->ncp; j++)
			json_array_append_new(cps, cp_json(h, s, &s->cps[j]));
		for (size_t j = 0; j < s->ndrift; j++)
			json_array_append_new(drifts, drift_json(h, s, &s->drifts[j]));
		json_array_append_new(series, xjson_pack(
			"{s:o,s:o,s:o,s:o,s:o,s:s,s:o,s:b,s:s,s:O,s:b,s:o,s:o,s:o}",
			"key", json_string_lossy(s->key), "line", json_string_lossy(s->line),
			"kernel", json_string_lossy(s->kernel),
			"workload", json_string_lossy(s->workload),
			"metric", json_string_lossy(s->metric),
			"better", s->better < 0 ? "undeclared" : s->better ? "higher" : "lower",
			"unit", json_string_lossy(s->unit), "primary", s->primary,
			"context_id", s->ctx_id, "context", s->context, "resumed", s->resumed,
			"nights", nights, "change_points", cps, "drifts", drifts));
	}
	root = xjson_pack("{s:s,s:{s:s,s:s},s:{s:f,s:I,s:f,s:I,s:I,s:b,s:o},s:o,s:o,s:o,s:{s:I,s:I,s:I,s:I,s:I}}",
			  "schema", HISTORY_SCHEMA,
			  "generator", "name", "mglrulab", "version", MGLRULAB_VERSION,
			  "settings", "alpha", h->o.cp.alpha,
			  "permutations", (json_int_t)h->o.cp.permutations,
			  "gross", h->o.cp.gross,
			  "min_nights", (json_int_t)h->o.cp.min_nights,
			  "seed", (json_int_t)h->o.cp.seed, "by_name", h->o.by_name,
			  "since", h->o.since ? json_string_lossy(h->o.since) : json_null(),
			  "sessions", sess, "skipped", skipped_json(h), "series", series,
			  "summary", "sessions", (json_int_t)h->ns, "series", (json_int_t)h->nseries,
			  "change_points", (json_int_t)count_cps(h, 0),
			  "drifts", (json_int_t)count_drifts(h, 0),
			  "new_regressions", (json_int_t)history_new_regressions(h));
	report_dump(root, out);
	json_decref(root);
}

/* ---------------------------------------------------------------- */

static void text_cp(const struct history *h, const struct history_series *s,
		    const struct history_cp *c, struct strbuf *out)
{
	char d[32], ci[48];
	const char *kind = !strcmp(c->kind, "regression") ? "REGRESSION" :
			   !strcmp(c->kind, "improvement") ? "improvement" : "change";

	fmt_pct(d, sizeof(d), c->delta_pct);
	fmt_ratio_ci(ci, sizeof(ci), 1 + c->lo_pct / 100, 1 + c->hi_pct / 100);
	sb_addf(out, "%-11s ", kind);
	sb_add_text_fit(out, s->line, 22);
	sb_adds(out, " / ");
	sb_add_text_fit(out, s->workload, 14);
	sb_adds(out, " / ");
	sb_add_text_fit(out, s->metric, 26);
	sb_addf(out, "\n            %s %s, p %.3g", d, ci, c->p);
	if (c->gross > 0)
		sb_addf(out, ", gross step (runs apart by %.0fx their spread)", c->gross);
	sb_addf(out, "%s%s\n            from ", c->tentative ? ", tentative" : "",
		c->is_new ? ", NEW tonight" : "");
	sb_add_text_fit(out, session_before(h, s, c), 30);
	sb_adds(out, " to ");
	sb_add_text_fit(out, h->s[s->nights[c->at].session].id, 30);
	sb_adds(out, "\n");
	for (size_t i = 0; i < c->diff.n && i < 8; i++) {
		sb_adds(out, "              ");
		sb_add_text_fit(out, c->diff.v[i], 64);
		sb_adds(out, "\n");
	}
	if (c->diff.n > 8)
		sb_addf(out, "              ... %zu more differences\n", c->diff.n - 8);
}

static void text_drift(const struct history *h, const struct history_series *s,
		       const struct history_drift *d, struct strbuf *out)
{
	char sl[32], tot[32];

	snprintf(sl, sizeof(sl), "%+.2f%%", d->slope_pct);
	fmt_pct(tot, sizeof(tot), d->total_pct);
	sb_addf(out, "%-11s ", !strcmp(d->kind, "regression") ? "DRIFT (REGRESSION)" :
		!strcmp(d->kind, "improvement") ? "drift (improvement)" : "drift");
	sb_add_text_fit(out, s->line, 22);
	sb_adds(out, " / ");
	sb_add_text_fit(out, s->workload, 14);
	sb_adds(out, " / ");
	sb_add_text_fit(out, s->metric, 26);
	sb_addf(out, "\n            %s per night, %s over %zu nights, p %.3g, not a step "
		"(%zu change point%s)%s\n            from ", sl, tot, d->to - d->from + 1, d->p,
		d->ncp, d->ncp == 1 ? "" : "s", d->is_new ? ", NEW tonight" : "");
	sb_add_text_fit(out, h->s[s->nights[d->from].session].id, 30);
	sb_adds(out, " to ");
	sb_add_text_fit(out, h->s[s->nights[d->to].session].id, 30);
	sb_adds(out, "\n");
}

void history_render_text(const struct history *h, struct strbuf *out)
{
	size_t recent_n = count_cps(h, 1), failed = 0;
	size_t i;

	sb_addf(out, "mglrulab history: %zu session%s, %zu series, %zu change point%s\n", h->ns,
		h->ns == 1 ? "" : "s", h->nseries, count_cps(h, 0), count_cps(h, 0) == 1 ? "" : "s");
	if (h->ns) {
		sb_adds(out, "from ");
		sb_add_text_fit(out, h->s[0].id, 32);
		sb_adds(out, " to ");
		sb_add_text_fit(out, h->s[h->ns - 1].id, 32);
		sb_adds(out, "\n");
	}
	for (i = 0; i < h->ns; i++)
		failed += h->s[i].failed;
	if (failed)
		sb_addf(out, "failed runs: %zu (each night's count is in the JSON and HTML)\n", failed);
	for (i = 0; i < h->nskipped; i++) {
		sb_adds(out, "skipped: ");
		sb_add_text_fit(out, h->skipped[i].file, 70);
		sb_adds(out, "\n         ");
		sb_add_text_fit(out, h->skipped[i].reason, 70);
		sb_adds(out, "\n");
	}
	sb_addf(out, "\nChange points in the last %zu sessions: %zu\n", h->o.last, recent_n);
	for (i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ncp; j++)
			if (recent(h, &h->series[i], &h->series[i].cps[j]))
				text_cp(h, &h->series[i], &h->series[i].cps[j], out);
	if (count_cps(h, 0) > recent_n) {
		sb_adds(out, "\nEarlier change points:\n");
		for (i = 0; i < h->nseries; i++)
			for (size_t j = 0; j < h->series[i].ncp; j++)
				if (!recent(h, &h->series[i], &h->series[i].cps[j]))
					text_cp(h, &h->series[i], &h->series[i].cps[j], out);
	}
	if (count_drifts(h, 0)) {
		sb_addf(out, "\nDrifts (a slow trend over nights, not a step): %zu\n",
			count_drifts(h, 0));
		for (i = 0; i < h->nseries; i++)
			for (size_t j = 0; j < h->series[i].ndrift; j++)
				text_drift(h, &h->series[i], &h->series[i].drifts[j], out);
	}
	sb_addf(out, "\nnew regressions tonight: %zu\n", history_new_regressions(h));
}

/* ---------------------------------------------------------------- */

static const char history_css[] =
	"svg .raw{fill:var(--muted);fill-opacity:.35}svg .nci{stroke:var(--k0);stroke-width:2}"
	"svg .nmed{fill:var(--k0)}svg .level{stroke:var(--fg);stroke-width:1.5;stroke-opacity:.6}"
	"svg .cp line{stroke:currentColor;stroke-width:2;stroke-dasharray:5 3}"
	"svg text.failed{fill:var(--bad);font-size:11px}"
	"svg .v-change{color:var(--k1)}.v-change{color:var(--k1)}"
	"svg .hit{fill:transparent}svg a:hover .hit{fill:var(--band)}svg text.unit{font-size:11px}"
	"svg.trend{max-width:100%;height:auto}\n"
	"@media print{svg.trend{width:100%;height:auto}}\n";

/* @to relative to the folder of @from_file, when both resolve; else @to as is. */
static char *rel_link(const char *from_file, const char *to)
{
	char *dir = path_dirname(from_file), *a = realpath(dir, NULL), *b = realpath(to, NULL);
	struct strbuf sb = STRBUF_INIT;
	size_t common = 0, i;

	free(dir);
	if (!a || !b) {
		free(a);
		free(b);
		return xstrdup(to);
	}
	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			common = i;
	if (!a[i] && b[i] == '/')
		common = i;
	for (const char *p = a + common; *p; p++)
		if (*p == '/')
			sb_adds(&sb, "../");
	sb_adds(&sb, b + common + 1);
	free(a);
	free(b);
	return sb_detach(&sb);
}

static char *night_href(const char *html_path, const struct history_session *ss);

static void link_session(const struct history *h, const char *html_path, size_t sess,
			 struct strbuf *sb)
{
	const struct history_session *s = &h->s[sess];

	if (s->html && html_path) {
		char *l = night_href(html_path, s);
		sb_adds(sb, "<a href=\"");
		html_esc(sb, l);
		sb_adds(sb, "\">");
		html_esc(sb, s->id);
		sb_adds(sb, "</a>");
		free(l);
	} else {
		sb_adds(sb, "<code>");
		html_esc(sb, s->id);
		sb_adds(sb, "</code>");
	}
}

static size_t session_index_of(const struct history *h, const char *id)
{
	for (size_t i = 0; i < h->ns; i++)
		if (!strcmp(h->s[i].id, id))
			return i;
	return (size_t)-1;
}

/* "line / workload / metric", escaped: how a table row names its series. */
static void esc_series_name(const struct history_series *s, struct strbuf *sb)
{
	html_esc(sb, s->line);
	sb_adds(sb, " / ");
	html_esc(sb, s->workload);
	sb_adds(sb, " / ");
	html_esc(sb, s->metric);
}

static void cp_row(const struct history *h, const char *html_path, size_t si,
		   const struct history_cp *c, struct strbuf *sb)
{
	const struct history_series *s = &h->series[si];
	char d[32], ci[48], p[32];
	size_t before = session_index_of(h, session_before(h, s, c));

	fmt_pct(d, sizeof(d), c->delta_pct);
	fmt_ratio_ci(ci, sizeof(ci), 1 + c->lo_pct / 100, 1 + c->hi_pct / 100);
	fmt_p(p, sizeof(p), c->p);
	sb_adds(sb, "<tr class=\"cp\"><td>");
	html_badge(sb, c->kind, c->kind);
	sb_addf(sb, "%s%s</td><td><a href=\"#s%zu\">", c->tentative ? " <i>tentative</i>" : "",
		c->is_new ? " <b>new</b>" : "", si);
	esc_series_name(s, sb);
	sb_addf(sb, "</a></td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		"<td class=\"num\">%s%s</td><td>", d, ci, p, c->gross > 0 ? " (gross step)" : "");
	if (before != (size_t)-1)
		link_session(h, html_path, before, sb);
	sb_adds(sb, " &#8594; ");
	link_session(h, html_path, s->nights[c->at].session, sb);
	sb_adds(sb, "</td><td>");
	for (size_t i = 0; i < c->diff.n; i++) {
		if (i)
			sb_adds(sb, "<br>");
		html_esc(sb, c->diff.v[i]);
	}
	sb_adds(sb, "</td></tr>");
}

static void drift_row(const struct history *h, const char *html_path, size_t si,
		      const struct history_drift *d, struct strbuf *sb)
{
	const struct history_series *s = &h->series[si];
	char sl[32], tot[32], p[32];

	snprintf(sl, sizeof(sl), "%+.2f%%", d->slope_pct);
	fmt_pct(tot, sizeof(tot), d->total_pct);
	fmt_p(p, sizeof(p), d->p);
	sb_adds(sb, "<tr class=\"drift\"><td>");
	html_badge(sb, d->kind, "drift");
	sb_addf(sb, " %s%s</td><td><a href=\"#s%zu\">", d->kind, d->is_new ? " <b>new</b>" : "", si);
	esc_series_name(s, sb);
	sb_addf(sb, "</a></td><td class=\"num\">%s</td><td class=\"num\">%s over %zu nights</td>"
		"<td class=\"num\">%s</td><td>", sl, tot, d->to - d->from + 1, p);
	link_session(h, html_path, s->nights[d->from].session, sb);
	sb_adds(sb, " &#8594; ");
	link_session(h, html_path, s->nights[d->to].session, sb);
	sb_addf(sb, "</td><td>%zu change point%s that a line fits better than steps</td></tr>",
		d->ncp, d->ncp == 1 ? "" : "s");
}

static const struct html_col drift_cols[] = {
	{ "Drift", 0 }, { "Series", 0 }, { "Per night", 1 }, { "Total", 1 }, { "p", 1 },
	{ "Sessions", 0 }, { "In place of", 0 }, { NULL, 0 },
};

static const struct html_col cp_cols[] = {
	{ "Change", 0 }, { "Series", 0 }, { "Size", 1 }, { "Interval", 1 }, { "p", 1 },
	{ "Sessions", 0 }, { "What changed between them", 0 }, { NULL, 0 },
};

/*
 * Night @ss's report.html relative to the page, as an href no folder name
 * can turn into a scheme ("x:..."): "./" before a relative one.
 */
static char *night_href(const char *html_path, const struct history_session *ss)
{
	struct strbuf sb = STRBUF_INIT;
	char *l;

	if (!ss->html || !html_path)
		return NULL;
	l = rel_link(html_path, ss->html);
	/* "./" first: a folder named "https:x" must not read as a scheme. */
	if (*l != '/' && *l != '.')
		sb_adds(&sb, "./");
	sb_add_url_path(&sb, l, 1);
	free(l);
	return sb_detach(&sb);
}

/* What svg_trend() draws for one series; trend_release() frees it. */
struct trend {
	struct svg_trend_night *tn;
	struct svg_trend_mark *mk;
	struct svg_trend_level *lv;
	char **titles, **hrefs;		/* per change point */
	char **nhrefs, (*ticks)[16];	/* per night */
	size_t nn, ncp, failed;
};

/* Night @j of @s: its runs, its date on the axis, its report's link. */
static void trend_nights(const struct history *h, const char *html_path,
			 const struct history_series *s, struct trend *t)
{
	for (size_t j = 0; j < s->nn; j++) {
		const struct history_night *n = &s->nights[j];
		const struct history_session *ss = &h->s[n->session];

		/* The date of "2026-11-03T01:00:00Z"; the session's id when there is none. */
		snprintf(t->ticks[j], sizeof(t->ticks[j]), "%.10s", ss->created && *ss->created ?
			 ss->created : ss->id);
		t->nhrefs[j] = night_href(html_path, ss);
		t->tn[j] = (struct svg_trend_night){ n->median, n->lo, n->hi, n->v, n->n, n->failed,
						     ss->id, t->ticks[j], t->nhrefs[j] };
		t->failed += n->failed;
	}
}

static void trend_build(const struct history *h, const char *html_path,
			const struct history_series *s, struct trend *t)
{
	*t = (struct trend){ .nn = s->nn, .ncp = s->ncp };
	t->tn = xcalloc(s->nn + 1, sizeof(*t->tn));
	t->nhrefs = xcalloc(s->nn + 1, sizeof(*t->nhrefs));
	t->ticks = xcalloc(s->nn + 1, sizeof(*t->ticks));
	t->mk = xcalloc(s->ncp + 1, sizeof(*t->mk));
	t->lv = xcalloc(s->ncp + 2, sizeof(*t->lv));
	t->titles = xcalloc(s->ncp + 1, sizeof(*t->titles));
	t->hrefs = xcalloc(s->ncp + 1, sizeof(*t->hrefs));
	trend_nights(h, html_path, s, t);
	for (size_t j = 0; j <= s->ncp; j++) {
		size_t from = j ? s->cps[j - 1].at : 0, to = j < s->ncp ? s->cps[j].at : s->nn;

		t->lv[j] = (struct svg_trend_level){ from, to,
			j < s->ncp ? s->cps[j].before : s->ncp ? s->cps[s->ncp - 1].after : NAN };
	}
	for (size_t j = 0; j < s->ncp; j++) {
		const struct history_cp *c = &s->cps[j];
		const struct history_session *ss = &h->s[s->nights[c->at].session];
		char d[32];

		fmt_pct(d, sizeof(d), c->delta_pct);
		t->titles[j] = xasprintf("%s %s from %s to %s", c->kind, d, session_before(h, s, c),
					 ss->id);
		t->hrefs[j] = night_href(html_path, ss);
		t->mk[j] = (struct svg_trend_mark){ c->at, c->kind, t->titles[j], t->hrefs[j] };
	}
}

static void trend_release(struct trend *t)
{
	for (size_t j = 0; j < t->ncp; j++) {
		free(t->titles[j]);
		free(t->hrefs[j]);
	}
	for (size_t j = 0; j < t->nn; j++)
		free(t->nhrefs[j]);
	free(t->titles);
	free(t->hrefs);
	free(t->nhrefs);
	free(t->ticks);
	free(t->tn);
	free(t->mk);
	free(t->lv);
}

/* The series' heading and the line under it: its counts and its context. */
static void series_heading(const struct history_series *s, size_t si, size_t failed,
			   struct strbuf *sb)
{
	const char *key;
	json_t *v;
	struct history_context ctx;

	sb_addf(sb, "<section class=\"series\" id=\"s%zu\"><h3>", si);
	html_esc(sb, s->line);
	sb_adds(sb, " &middot; ");
	html_esc(sb, s->workload);
	sb_adds(sb, " &middot; ");
	html_esc(sb, s->metric);
	sb_adds(sb, " <span class=\"muted\">(");
	html_esc(sb, s->unit);
	sb_addf(sb, "%s%s)</span></h3><p class=\"sub\">%zu nights, %zu change point%s",
		s->better < 0 ? ", no better direction declared" : s->better ? ", higher is better" :
		", lower is better", s->primary ? ", primary" : "", s->nn, s->ncp,
		s->ncp == 1 ? "" : "s");
	if (s->ndrift)
		sb_addf(sb, ", %zu drift%s", s->ndrift, s->ndrift == 1 ? "" : "s");
	if (failed)
		sb_addf(sb, ", <span class=\"v-regression\">%zu failed run%s</span>", failed,
			failed == 1 ? "" : "s");
	sb_addf(sb, " &middot; context <code>%s</code>: ", s->ctx_id);
	history_context_decode(s->context, &ctx);
	html_esc(sb, ctx.hostname ? ctx.hostname : "?");
	sb_adds(sb, ", ");
	html_esc(sb, ctx.accel ? ctx.accel : "?");
	sb_adds(sb, ", guest ");
	html_esc(sb, ctx.guest ? ctx.guest : "?");
	sb_adds(sb, ", ");
	html_esc(sb, ctx.type ? ctx.type : "?");
	json_object_foreach((json_t *)ctx.params, key, v) {
		sb_adds(sb, " ");
		html_esc(sb, key);
		sb_adds(sb, "=");
		if (json_is_string(v)) {
			html_esc(sb, json_string_value(v));
		} else {
			char *t = json_dumps(v, JSON_ENCODE_ANY);
			html_esc(sb, t ? t : "?");
			free(t);
		}
	}
	sb_adds(sb, "</p>");
}

static void series_section(const struct history *h, const char *html_path, size_t si,
			   struct strbuf *sb)
{
	const struct history_series *s = &h->series[si];
	struct trend t;

	trend_build(h, html_path, s, &t);
	series_heading(s, si, t.failed, sb);
	svg_trend(sb, s->unit, t.tn, s->nn, t.mk, s->ncp, t.lv, s->ncp + 1);
	if (s->ncp) {
		html_table_open(sb, NULL, cp_cols);
		for (size_t j = 0; j < s->ncp; j++)
			cp_row(h, html_path, si, &s->cps[j], sb);
		html_table_close(sb);
	}
	if (s->ndrift) {
		html_table_open(sb, NULL, drift_cols);
		for (size_t j = 0; j < s->ndrift; j++)
			drift_row(h, html_path, si, &s->drifts[j], sb);
		html_table_close(sb);
	}
	sb_adds(sb, "</section>\n");
	trend_release(&t);
}

/* The change points and drifts of the last o.last sessions: what a reader looks for first. */
static void html_summary(const struct history *h, const char *html_path, struct strbuf *sb)
{
	size_t i;

	sb_addf(sb, "<section id=\"summary\"><h2>Change points in the last %zu sessions</h2>",
		h->o.last);
	if (!count_cps(h, 1)) {
		sb_adds(sb, "<p>None.</p>");
	} else {
		html_table_open(sb, NULL, cp_cols);
		for (i = 0; i < h->nseries; i++)
			for (size_t j = 0; j < h->series[i].ncp; j++)
				if (recent(h, &h->series[i], &h->series[i].cps[j]))
					cp_row(h, html_path, i, &h->series[i].cps[j], sb);
		html_table_close(sb);
	}
	if (count_drifts(h, 1)) {
		sb_addf(sb, "<h2>Drifts reaching into the last %zu sessions</h2>", h->o.last);
		html_table_open(sb, NULL, drift_cols);
		for (i = 0; i < h->nseries; i++)
			for (size_t j = 0; j < h->series[i].ndrift; j++)
				if (h->series[i].nights[h->series[i].drifts[j].to].session +
				    h->o.last >= h->ns)
					drift_row(h, html_path, i, &h->series[i].drifts[j], sb);
		html_table_close(sb);
	}
	sb_adds(sb, "</section>\n");
}

static void html_header(const struct history *h, struct strbuf *sb)
{

	sb_addf(sb, "<header><h1>Nightly history</h1><p class=\"sub\">mglrulab history &middot; "
		"%zu sessions &middot; %zu series &middot; %zu change points", h->ns, h->nseries,
		count_cps(h, 0));
	if (h->ns) {
		sb_adds(sb, " &middot; ");
		html_esc(sb, h->s[0].created);
		sb_adds(sb, " to ");
		html_esc(sb, h->s[h->ns - 1].created);
	}
	sb_adds(sb, "</p></header>\n");
	if (h->nskipped) {
		sb_adds(sb, "<div class=\"warnings\"><strong>Skipped</strong><ul>");
		for (size_t i = 0; i < h->nskipped; i++) {
			sb_adds(sb, "<li><code>");
			html_esc(sb, h->skipped[i].file);
			sb_adds(sb, "</code>: ");
			html_esc(sb, h->skipped[i].reason);
			sb_adds(sb, "</li>");
		}
		sb_adds(sb, "</ul></div>\n");
	}
}

/* The series of metrics that are not primary, each folded unless something changed. */
static void html_other(const struct history *h, const char *html_path, struct strbuf *sb)
{
	sb_adds(sb, "<section id=\"other\"><h2>Other metrics</h2>\n");
	for (size_t i = 0; i < h->nseries; i++) {
		if (h->series[i].primary)
			continue;
		sb_adds(sb, "<details");
		if (h->series[i].ncp || h->series[i].ndrift)
			sb_adds(sb, " open");
		sb_adds(sb, "><summary>");
		html_esc(sb, h->series[i].line);
		sb_adds(sb, " &middot; ");
		html_esc(sb, h->series[i].workload);
		sb_adds(sb, " &middot; ");
		html_esc(sb, h->series[i].metric);
		sb_addf(sb, " (%zu change point%s)</summary>", h->series[i].ncp,
			h->series[i].ncp == 1 ? "" : "s");
		series_section(h, html_path, i, sb);
		sb_adds(sb, "</details>\n");
	}
	sb_adds(sb, "</section>\n");
}

static void html_methodology(const struct history *h, struct strbuf *sb)
{
	sb_addf(sb, "<section id=\"methodology\"><h2>Methodology</h2><p>One series "
		"per kernel line, workload and metric, and per context (host, guest topology, "
		"workload parameters: never mixed). Every raw run of every night is used: change "
		"points are found by binary segmentation over the boundaries between nights, with "
		"the Mann-Whitney statistic of the runs on either side corrected for the spread "
		"between nights, tested against %u seeded permutations at alpha %g; at least %zu "
		"nights on each side, except that tonight alone may start a change (tentative until "
		"the next night). Ranks cannot say how far runs moved: a gross step, every run on "
		"one side apart from every run on the other by %g times the larger side's spread "
		"(from 4 nights), is a change too. The size is the Hodges-Lehmann shift of the runs after against "
		"the runs before, with its %.0f%% interval. Change points of one direction "
		"that a line over at least %zu nights fits better than steps (BIC, by %g) are "
		"one drift, with its Theil-Sen slope per night, not steps. Each night: raw runs (faint), median "
		"and its exact order-statistic interval; &#215; marks failed runs. A night's column "
		"links to its report.</p></section>\n", h->o.cp.permutations,
		h->o.cp.alpha, h->o.cp.min_nights, h->o.cp.gross, 95.0, (size_t)STATS_CP_DRIFT_MIN_NIGHTS,
		STATS_CP_DRIFT_BIC);
}

void history_render_html(const struct history *h, const char *html_path, struct strbuf *sb)
{
	size_t i, primary = 0;

	report_html_begin(sb, "mglrulab history", history_css);
	html_header(h, sb);
	html_summary(h, html_path, sb);
	sb_adds(sb, "<section id=\"primary\"><h2>Primary metrics</h2>\n");
	for (i = 0; i < h->nseries; i++) {
		if (h->series[i].primary)
			series_section(h, html_path, i, sb);
		primary += h->series[i].primary;
	}
	if (!primary)
		sb_adds(sb, "<p>None: the workloads declare no primary metric.</p>\n");
	sb_adds(sb, "</section>\n");
	/* No heading over nothing. */
	if (primary < h->nseries)
		html_other(h, html_path, sb);
	html_methodology(h, sb);
	sb_adds(sb, "<footer>Generated by mglrulab " MGLRULAB_VERSION " (" HISTORY_SCHEMA ") from the "
		"sessions' report.json files.</footer>\n</body></html>\n");
}
