// SPDX-License-Identifier: GPL-2.0
#include "report_svg.h"
#include "escape.h"
#include "report_priv.h"

#include <stdio.h>
#include <string.h>

/* Coordinates with two decimals: enough for a screen, stable as text. */
#define F "%.2f"

void svg_add_coord(struct strbuf *sb, double v)
{
	if (fabs(v) < 1e6) {
		double a = fabs(v) * 100, f = floor(a), frac = a - f;

		if (fabs(frac - 0.5) > 1e-6) {
			long long i = (long long)f + (frac > 0.5);

			sb_addf(sb, "%s%lld.%02lld", signbit(v) ? "-" : "", i / 100, i % 100);
			return;
		}
	}
	sb_addf(sb, F, v);
}

static double span_of(double ratio, double lo, double hi, double threshold)
{
	double s = log1p(threshold) * 2;

	if (isfinite(lo) && lo > 0)
		s = fmax(s, fabs(log(lo)));
	if (isfinite(hi) && hi > 0)
		s = fmax(s, fabs(log(hi)));
	if (isfinite(ratio) && ratio > 0)
		s = fmax(s, fabs(log(ratio)));
	return fmax(s * 1.15, log(1.02));
}

void svg_forest(struct strbuf *sb, double ratio, double lo, double hi, double threshold,
		int better_higher, const char *verdict)
{
	const double w = 200, h = 34, mid = w / 2, half = w / 2 - 10, y = 13;
	double span = span_of(ratio, lo, hi, threshold);
	char a[32], b[32], c[48];

#define X(r) (mid + log(r) / span * half)
	sb_addf(sb, "<svg class=\"forest\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">", w, h, w, h);
	fmt_ratio_ci(c, sizeof(c), lo, hi);
	fmt_pct(a, sizeof(a), 100 * (ratio - 1));
	sb_addf(sb, "<title>change %s, interval %s, noise band +-%g%%</title>", a, c,
		100 * threshold);
	sb_addf(sb, "<rect class=\"band\" x=\"" F "\" y=\"2\" width=\"" F "\" height=\"22\"/>",
		X(1 - threshold), X(1 + threshold) - X(1 - threshold));
	sb_addf(sb, "<line class=\"one\" x1=\"" F "\" y1=\"1\" x2=\"" F "\" y2=\"25\"/>", mid, mid);
	if (isfinite(lo) && isfinite(hi) && lo > 0 && hi > 0) {
		sb_addf(sb, "<g class=\"ci v-%s\">", verdict);
		sb_addf(sb, "<line x1=\"" F "\" y1=\"%.0f\" x2=\"" F "\" y2=\"%.0f\"/>",
			X(lo), y, X(hi), y);
		sb_addf(sb, "<line x1=\"" F "\" y1=\"%.0f\" x2=\"" F "\" y2=\"%.0f\"/>",
			X(lo), y - 5, X(lo), y + 5);
		sb_addf(sb, "<line x1=\"" F "\" y1=\"%.0f\" x2=\"" F "\" y2=\"%.0f\"/>",
			X(hi), y - 5, X(hi), y + 5);
		if (isfinite(ratio) && ratio > 0)
			sb_addf(sb, "<circle cx=\"" F "\" cy=\"%.0f\" r=\"3.5\"/>", X(ratio), y);
		sb_adds(sb, "</g>");
	} else {
		sb_addf(sb, "<text class=\"na\" x=\"" F "\" y=\"17\" text-anchor=\"middle\">"
			"no interval</text>", mid);
	}
	fmt_pct(a, sizeof(a), 100 * (exp(-span) - 1));
	fmt_pct(b, sizeof(b), 100 * (exp(span) - 1));
	sb_addf(sb, "<text class=\"ax\" x=\"2\" y=\"32\">%s</text>", a);
	sb_addf(sb, "<text class=\"ax\" x=\"" F "\" y=\"32\" text-anchor=\"end\">%s</text>",
		w - 2, b);
	sb_addf(sb, "<text class=\"ax\" x=\"" F "\" y=\"32\" text-anchor=\"middle\">%s</text>",
		mid, better_higher ? "better &#8594;" : "&#8592; better");
	sb_adds(sb, "</svg>");
#undef X
}

struct axis {
	double lo, hi;
};

/* Widen @ax to the values that are there (NaN: a run without one). */
static void axis_extend(struct axis *ax, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			continue;
		ax->lo = fmin(ax->lo, v[i]);
		ax->hi = fmax(ax->hi, v[i]);
	}
}

static void axis_extend_runs(struct axis *ax, const long *runs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ax->lo = fmin(ax->lo, (double)runs[i]);
		ax->hi = fmax(ax->hi, (double)runs[i]);
	}
}

static void axis_pad(struct axis *ax)
{
	double d = ax->hi - ax->lo;

	if (!isfinite(d)) {
		ax->lo = 0, ax->hi = 1;
		return;
	}
	if (d == 0)
		d = fabs(ax->hi) ? fabs(ax->hi) * 0.01 : 1;
	ax->lo -= d * 0.05;
	ax->hi += d * 0.05;
}

/* The value axis' two labels, at its bottom (@y_bottom) and top (@top). */
static void y_axis_labels(struct strbuf *sb, const struct axis *ay, double left, double top,
			  double y_bottom)
{
	char a[32], b[32];

	fmt_num(a, sizeof(a), ay->lo);
	fmt_num(b, sizeof(b), ay->hi);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"" F "\" text-anchor=\"end\">%s</text>",
		left - 4, y_bottom, a);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"" F "\" text-anchor=\"end\">%s</text>",
		left - 4, top + 8, b);
}

static int is_outlier(const struct result_side *s, long run)
{
	for (size_t i = 0; i < s->noutlier_runs; i++)
		if (s->outlier_runs[i] == run)
			return 1;
	return 0;
}

static void point(struct strbuf *sb, double x, double y, int k, int outlier,
		  long run, double value)
{
	char v[48];

	fmt_num(v, sizeof(v), value);
	sb_addf(sb, "<circle class=\"pt k%d%s\" cx=\"" F "\" cy=\"" F "\" r=\"%s\">"
		"<title>run #%lld: %s%s</title></circle>", k, outlier ? " outlier" : "", x, y,
		outlier ? "4.5" : "3", (long long)run, v, outlier ? " (outlier, kept)" : "");
}

void svg_strip(struct strbuf *sb, const struct result_record *res, const char *base_name,
	       const char *patched_name)
{
	const double w = 420, h = 84, left = 80, right = 10;
	const char *name[2] = { base_name, patched_name };
	struct axis ax = { INFINITY, -INFINITY };
	char a[48], b[48];

	for (int k = 0; k < 2; k++)
		axis_extend(&ax, res->side[k].values, res->side[k].nvalues);
	axis_pad(&ax);
#define X(v) (left + ((v) - ax.lo) / (ax.hi - ax.lo) * (w - left - right))
	sb_addf(sb, "<svg class=\"strip\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>values per kernel with median and its interval</title>", w, h, w, h);
	for (int k = 0; k < 2; k++) {
		const struct result_side *s = &res->side[k];
		double y = 22 + 30 * k, med = s->median;
		double clo = s->median_ci.lo, chi = s->median_ci.hi;

		sb_addf(sb, "<text class=\"lbl k%d\" x=\"%.0f\" y=\"" F "\" text-anchor=\"end\">",
			k, left - 8, y + 4);
		{
			struct strbuf t = STRBUF_INIT;
			sb_add_text_fit(&t, name[k], 11);
			sb_add_xml(sb, t.buf);
			sb_release(&t);
		}
		sb_adds(sb, "</text>");
		if (isfinite(clo) && isfinite(chi))
			sb_addf(sb, "<rect class=\"cibox k%d\" x=\"" F "\" y=\"" F "\" width=\"" F
				"\" height=\"18\"><title>median interval</title></rect>", k, X(clo),
				y - 9, fmax(X(chi) - X(clo), 1));
		for (size_t i = 0; i < s->nvalues; i++) {
			/* Deterministic jitter so equal values stay visible. */
			double jy = y + (double)((int)(i * 7 % 5) - 2) * 2.5;

			if (isnan(s->values[i]))
				continue;
			point(sb, X(s->values[i]), jy, k, is_outlier(s, s->runs[i]), s->runs[i],
			      s->values[i]);
		}
		if (isfinite(med))
			sb_addf(sb, "<line class=\"med\" x1=\"" F "\" y1=\"" F "\" x2=\"" F
				"\" y2=\"" F "\"/>", X(med), y - 11, X(med), y + 11);
	}
	fmt_num(a, sizeof(a), ax.lo);
	fmt_num(b, sizeof(b), ax.hi);
	sb_addf(sb, "<line class=\"axl\" x1=\"%.0f\" y1=\"72\" x2=\"%.0f\" y2=\"72\"/>",
		left, w - right);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"82\">%s</text>", left, a);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"82\" text-anchor=\"end\">%s</text>",
		w - right, b);
	sb_adds(sb, "</svg>");
#undef X
}

void svg_run_order(struct strbuf *sb, const struct result_record *res)
{
	const double w = 420, h = 140, left = 60, right = 10, top = 8, bottom = 22;
	struct axis ay = { INFINITY, -INFINITY }, ax = { INFINITY, -INFINITY };

	for (int k = 0; k < 2; k++) {
		axis_extend(&ay, res->side[k].values, res->side[k].nvalues);
		axis_extend_runs(&ax, res->side[k].runs, res->side[k].nvalues);
	}
	axis_pad(&ay);
	if (!isfinite(ax.lo))
		ax.lo = 0, ax.hi = 1;
	if (ax.hi == ax.lo)
		ax.hi = ax.lo + 1;
#define X(v) (left + ((v) - ax.lo) / (ax.hi - ax.lo) * (w - left - right))
#define Y(v) (h - bottom - ((v) - ay.lo) / (ay.hi - ay.lo) * (h - top - bottom))
	sb_addf(sb, "<svg class=\"order\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>value against run order</title>", w, h, w, h);
	sb_addf(sb, "<rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>",
		left, top, w - left - right, h - top - bottom);
	for (int k = 0; k < 2; k++) {
		const struct result_side *s = &res->side[k];
		double med = s->median;

		if (isfinite(med))
			sb_addf(sb, "<line class=\"medl k%d\" x1=\"%.0f\" y1=\"" F "\" x2=\"%.0f\" "
				"y2=\"" F "\"/>", k, left, Y(med), w - right, Y(med));
		for (size_t i = 0; i < s->nvalues; i++)
			if (!isnan(s->values[i]))
				point(sb, X((double)s->runs[i]), Y(s->values[i]), k,
				      is_outlier(s, s->runs[i]), s->runs[i], s->values[i]);
	}
	y_axis_labels(sb, &ay, left, top, h - bottom);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"%.0f\">run #%.0f</text>", left, h - 6,
		ax.lo);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">run #%.0f</text>",
		w - right, h - 6, ax.hi);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">run order "
		"&#8594;</text>", (left + w - right) / 2, h - 6);
	sb_adds(sb, "</svg>");
#undef X
#undef Y
}

static const char *trend_cls(const char *cls)
{
	return cls && (!strcmp(cls, "regression") || !strcmp(cls, "improvement")) ? cls :
		"change";
}

/* The trend's frame: its size, margins, night count and value axis. */
struct trend_geom {
	double w, h, left, right, top, bottom;
	size_t k;
	struct axis ay;
};

/* Night i sits in the middle of its slot, so one night is a point too. */
static double trend_x(const struct trend_geom *g, size_t i)
{
	return g->left + ((double)i + 0.5) / (double)(g->k ? g->k : 1) * (g->w - g->left - g->right);
}

/* The left edge of night i's slot. */
static double trend_xb(const struct trend_geom *g, size_t i)
{
	return g->left + (double)i / (double)(g->k ? g->k : 1) * (g->w - g->left - g->right);
}

static double trend_y(const struct trend_geom *g, double v)
{
	return g->h - g->bottom - (v - g->ay.lo) / (g->ay.hi - g->ay.lo) * (g->h - g->top - g->bottom);
}

/* Night @i's column, a link to its report over the whole height: a night is easy to hit. */
static void trend_hit(struct strbuf *sb, const struct trend_geom *g, size_t i,
		      const struct svg_trend_night *n)
{
	sb_adds(sb, "<a href=\"");
	sb_add_xml(sb, n->href);
	sb_addf(sb, "\"><rect class=\"hit\" x=\"" F "\" y=\"%.0f\" width=\"" F "\" "
		"height=\"%.0f\"><title>", trend_xb(g, i), g->top, trend_xb(g, i + 1) - trend_xb(g, i),
		g->h - g->top - g->bottom);
	sb_add_xml(sb, n->label ? n->label : "");
	sb_adds(sb, ": open its report</title></rect></a>");
}

/* Night @i: its raw runs, its median's interval and point, and its failed runs. */
static void trend_night(struct strbuf *sb, const struct trend_geom *g, size_t i,
			const struct svg_trend_night *n)
{
	char a[48], b[48], c[48];

	if (n->href)
		trend_hit(sb, g, i, n);
	for (size_t j = 0; j < n->n; j++) {
		sb_adds(sb, "<circle class=\"raw\" cx=\"");
		svg_add_coord(sb, trend_x(g, i) + ((double)(j % 5) - 2) * 0.8);
		sb_adds(sb, "\" cy=\"");
		svg_add_coord(sb, trend_y(g, n->v[j]));
		sb_adds(sb, "\" r=\"1.6\"/>");
	}
	if (isfinite(n->lo) && isfinite(n->hi))
		sb_addf(sb, "<line class=\"nci\" x1=\"" F "\" y1=\"" F "\" x2=\"" F
			"\" y2=\"" F "\"/>", trend_x(g, i), trend_y(g, n->lo), trend_x(g, i),
			trend_y(g, n->hi));
	if (isfinite(n->median)) {
		fmt_num(a, sizeof(a), n->median);
		fmt_num(b, sizeof(b), n->lo);
		fmt_num(c, sizeof(c), n->hi);
		if (n->href) {
			sb_adds(sb, "<a href=\"");
			sb_add_xml(sb, n->href);
			sb_adds(sb, "\">");
		}
		sb_addf(sb, "<circle class=\"nmed\" cx=\"" F "\" cy=\"" F "\" r=\"2.6\">"
			"<title>", trend_x(g, i), trend_y(g, n->median));
		sb_add_xml(sb, n->label ? n->label : "");
		sb_addf(sb, ": median %s [%s, %s], %zu runs", a, b, c, n->n);
		if (n->failed)
			sb_addf(sb, ", %zu failed", n->failed);
		sb_addf(sb, "</title></circle>%s", n->href ? "</a>" : "");
	}
	if (n->failed) {
		sb_addf(sb, "<text class=\"failed\" x=\"" F "\" y=\"%.0f\" "
			"text-anchor=\"middle\">&#215;<title>", trend_x(g, i), g->h - g->bottom - 2);
		sb_add_xml(sb, n->label ? n->label : "");
		sb_addf(sb, ": %zu failed run%s</title></text>", n->failed,
			n->failed == 1 ? "" : "s");
	}
}

/* A change point: a dashed line at its night, linked when it has a page. */
static void trend_mark(struct strbuf *sb, const struct trend_geom *g,
		       const struct svg_trend_mark *m)
{
	if (m->href) {
		sb_adds(sb, "<a href=\"");
		sb_add_xml(sb, m->href);
		sb_adds(sb, "\">");
	}
	sb_addf(sb, "<g class=\"cp v-%s\"><line x1=\"" F "\" y1=\"%.0f\" x2=\"" F
		"\" y2=\"%.0f\"/><title>", trend_cls(m->cls), trend_xb(g, m->at), g->top,
		trend_xb(g, m->at), g->h - g->bottom);
	sb_add_xml(sb, m->title ? m->title : "");
	sb_adds(sb, "</title></g>");
	if (m->href)
		sb_adds(sb, "</a>");
}

/* Round steps for the value axis: 1, 2 or 5 times a power of ten, about 4 of them. */
static double trend_step(const struct axis *ay)
{
	double raw = (ay->hi - ay->lo) / 4, p;

	if (!(raw > 0) || !isfinite(raw))
		return 0;
	p = pow(10, floor(log10(raw)));
	return raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
}

/* The value axis: a grid line and a label per round step, and the unit along it. */
static void trend_y_axis(struct strbuf *sb, const struct trend_geom *g, const char *unit)
{
	double step = trend_step(&g->ay);
	char v[32];

	/* By index, not t += step: a step below the values' precision would never end. */
	for (int i = 0; step && i < 12; i++) {
		double t = (ceil(g->ay.lo / step) + i) * step;

		if (t > g->ay.hi)
			break;
		fmt_num(v, sizeof(v), fabs(t) < step / 1e6 ? 0 : t);
		sb_addf(sb, "<line class=\"axl\" x1=\"%.0f\" y1=\"" F "\" x2=\"%.0f\" y2=\"" F
			"\"/><text class=\"ax\" x=\"%.0f\" y=\"" F "\" text-anchor=\"end\">%s</text>",
			g->left, trend_y(g, t), g->w - g->right, trend_y(g, t), g->left - 4,
			trend_y(g, t) + 3, v);
	}
	if (!unit || !*unit)
		return;
	sb_addf(sb, "<text class=\"ax unit\" transform=\"rotate(-90)\" x=\"" F "\" y=\"10\" "
		"text-anchor=\"middle\">", -(g->top + g->h - g->bottom) / 2);
	sb_add_xml(sb, unit);
	sb_adds(sb, "</text>");
}

/*
 * The night axis: up to TREND_TICKS nights spread evenly, the first and
 * the last always, each with a tick; a label the same as the one before
 * it (two nights of one date) is left out.
 */
static void trend_x_axis(struct strbuf *sb, const struct trend_geom *g,
			 const struct svg_trend_night *nt)
{
	size_t m = g->k < TREND_TICKS ? g->k : TREND_TICKS;
	const char *prev = NULL;

	for (size_t j = 0; j < m; j++) {
		size_t i = m > 1 ? (j * (g->k - 1) + (m - 1) / 2) / (m - 1) : 0;
		const char *t = nt[i].tick ? nt[i].tick : nt[i].label ? nt[i].label : "";
		/* The first and the last label stay inside the frame. */
		int first = m > 1 && j == 0, last = m > 1 && j == m - 1;

		sb_addf(sb, "<line class=\"axl\" x1=\"" F "\" y1=\"%.0f\" x2=\"" F "\" "
			"y2=\"%.0f\"/>", trend_x(g, i), g->h - g->bottom, trend_x(g, i),
			g->h - g->bottom + 4);
		if (prev && !strcmp(prev, t))
			continue;
		sb_addf(sb, "<text class=\"ax\" x=\"" F "\" y=\"%.0f\" text-anchor=\"%s\">",
			first ? g->left : last ? g->w - g->right : trend_x(g, i), g->h - g->bottom + 14,
			first ? "start" : last ? "end" : "middle");
		sb_add_xml(sb, t);
		sb_adds(sb, "</text>");
		prev = t;
	}
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">nights "
		"&#8594;</text>", (g->left + g->w - g->right) / 2, g->h - 4);
}

void svg_trend(struct strbuf *sb, const char *unit, const struct svg_trend_night *nt,
	       size_t k, const struct svg_trend_mark *marks, size_t nmarks,
	       const struct svg_trend_level *levels, size_t nlevels)
{
	struct trend_geom g = { .w = 860, .h = 200, .left = 72, .right = 12, .top = 10,
				.bottom = 36, .k = k, .ay = { INFINITY, -INFINITY } };

	for (size_t i = 0; i < k; i++) {
		for (size_t j = 0; j < nt[i].n; j++) {
			g.ay.lo = fmin(g.ay.lo, nt[i].v[j]);
			g.ay.hi = fmax(g.ay.hi, nt[i].v[j]);
		}
	}
	axis_pad(&g.ay);
	sb_addf(sb, "<svg class=\"trend\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>each night: raw runs, median and its interval; change points dashed"
		"</title>", g.w, g.h, g.w, g.h);
	sb_addf(sb, "<rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
		"height=\"%.0f\"/>", g.left, g.top, g.w - g.left - g.right, g.h - g.top - g.bottom);
	trend_y_axis(sb, &g, unit);
	for (size_t i = 0; i < nlevels; i++) {
		if (!isfinite(levels[i].value) || levels[i].from >= levels[i].to || levels[i].to > k)
			continue;
		sb_addf(sb, "<line class=\"level\" x1=\"" F "\" y1=\"" F "\" x2=\"" F "\" y2=\""
			F "\"/>", trend_xb(&g, levels[i].from), trend_y(&g, levels[i].value),
			trend_xb(&g, levels[i].to), trend_y(&g, levels[i].value));
	}
	for (size_t i = 0; i < k; i++)
		trend_night(sb, &g, i, &nt[i]);
	for (size_t i = 0; i < nmarks; i++)
		if (marks[i].at < k)
			trend_mark(sb, &g, &marks[i]);
	trend_x_axis(sb, &g, nt);
	sb_adds(sb, "</svg>");
}
