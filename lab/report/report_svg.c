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

/*
 * The forest plots' geometry: every row and the heading share it, so one
 * CSS width keeps them aligned. FOREST_PAD leaves room for the edge labels.
 */
#define FOREST_W 240.0
#define FOREST_PAD 16.0
#define FOREST_MID (FOREST_W / 2)
#define FOREST_HALF (FOREST_W / 2 - FOREST_PAD)

static double forest_x(const struct svg_forest_axis *ax, double r)
{
	double l = fmax(-ax->span, fmin(ax->span, log(r)));

	return FOREST_MID + l / ax->span * FOREST_HALF;
}

void svg_forest_axis_init(struct svg_forest_axis *ax, double threshold)
{
	ax->span = 0;
	ax->nticks = 0;
	if (isfinite(threshold) && threshold > 0 && threshold < 1)
		ax->span = fmax(log1p(threshold), -log1p(-threshold));
}

/*
 * A row without an interval draws no bar and no dot ("no interval"), so its
 * ratio (+300% from a counter of 1 and 4) does not stretch the axis.
 */
void svg_forest_axis_add(struct svg_forest_axis *ax, double ratio, double lo, double hi)
{
	const double v[] = { ratio, lo, hi };

	if (!(isfinite(lo) && isfinite(hi) && lo > 0 && hi > 0))
		return;
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (isfinite(v[i]) && v[i] > 0)
			ax->span = fmax(ax->span, fabs(log(v[i])));
}

/* "0", "+5%", "-0.5%", "+900%": a tick's change from its ratio. */
static void forest_tick_label(char *buf, size_t size, double r)
{
	double pct = 100 * (r - 1);

	if (fabs(pct) < 1e-9)
		snprintf(buf, size, "0");
	else if (fabs(pct - round(pct)) < 1e-6)
		snprintf(buf, size, "%+.0f%%", pct);
	else
		snprintf(buf, size, "%+.1f%%", pct);
}

/*
 * Whether ticks at ratios @r0 and @r1 are far enough apart that their
 * labels (about 5.5 units a character, centred) do not run into each
 * other: on a log axis percent ticks crowd on the positive side.
 */
static int forest_apart(const struct svg_forest_axis *ax, double r0, double r1)
{
	char a[32], b[32];

	forest_tick_label(a, sizeof(a), r0);
	forest_tick_label(b, sizeof(b), r1);
	return fabs(log(r1) - log(r0)) / ax->span * FOREST_HALF >=
		5.5 * (double)(strlen(a) + strlen(b)) / 2 + 8;
}

/*
 * The ticks @gen(k) for k = 1, 2, ... going out from no change in
 * direction @dir, into @out (at most @max): those inside the axis and not
 * too close to the previous one. @strict: a tick too close fails (-1).
 */
static long forest_side(const struct svg_forest_axis *ax, double (*gen)(double, int),
			double arg, int dir, int strict, double *out, size_t max)
{
	double prev = 1;
	size_t n = 0;

	for (int k = 1; k <= 200 && n < max; k++) {
		double r = gen(arg, dir * k);

		if (!(r > 0) || fabs(log(r)) > ax->span + 1e-9)
			break;
		if (!forest_apart(ax, prev, r)) {
			if (strict)
				return -1;
			continue;
		}
		out[n++] = r;
		prev = r;
	}
	return (long)n;
}

static double tick_pct(double step, int k)
{
	return 1 + k * step / 100;
}

static double tick_pow(double f, int k)
{
	return pow(f, k);
}

/*
 * The ticks of @gen with @arg, sorted: no change and what fits on either
 * side. Returns 0 when the first tick on either side would crowd no change,
 * or (@strict) any tick its neighbour, or there would be fewer than @min.
 */
static int forest_ticks(struct svg_forest_axis *ax, double (*gen)(double, int), double arg,
			int strict, size_t min)
{
	const size_t side = (SVG_FOREST_TICKS_MAX - 1) / 2;
	double neg[(SVG_FOREST_TICKS_MAX - 1) / 2], pos[(SVG_FOREST_TICKS_MAX - 1) / 2];
	long nn, np;

	if (!forest_apart(ax, 1, gen(arg, 1)) || (gen(arg, -1) > 0 && !forest_apart(ax, 1, gen(arg, -1))))
		return 0;
	nn = forest_side(ax, gen, arg, -1, strict, neg, side);
	np = forest_side(ax, gen, arg, 1, strict, pos, side);
	if (nn < 0 || np < 0 || (size_t)(nn + np + 1) < min)
		return 0;
	ax->nticks = 0;
	while (nn)
		ax->ticks[ax->nticks++] = neg[--nn];
	ax->ticks[ax->nticks++] = 1;
	for (long i = 0; i < np; i++)
		ax->ticks[ax->nticks++] = pos[i];
	return 1;
}

/*
 * Pad the axis, cap it at x0.1 .. x10, and choose its ticks: round
 * percentages, or powers of 2 or 10 beyond +-100%, as many as fit.
 */
void svg_forest_axis_done(struct svg_forest_axis *ax)
{
	static const double steps[] = { 0.5, 1, 2, 5, 10, 20, 25, 50 };
	int done = 0;

	ax->span = fmin(fmax(ax->span * 1.1, log(1.02)), log(10));
	/* Evenly spaced percentages if four or more fit, else as many as fit. */
	for (int strict = 1; strict >= 0 && !done && ax->span <= log(2) + 1e-9; strict--)
		for (size_t i = 0; i < ARRAY_SIZE(steps) && !done; i++)
			done = forest_ticks(ax, tick_pct, steps[i], strict, strict ? 4 : 1);
	if (!done)
		done = forest_ticks(ax, tick_pow, 2, 0, 1);
	if (!done)
		forest_ticks(ax, tick_pow, 10, 0, 1);
}

void svg_forest_head(struct strbuf *sb, const struct svg_forest_axis *ax)
{
	const double h = 34;
	char t[32];

	sb_addf(sb, "<svg class=\"faxis\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>change of the median, patched against baseline, in percent on a log "
		"scale of the ratio; shared by every row</title>", FOREST_W, h, FOREST_W, h);
	sb_addf(sb, "<text class=\"cap\" x=\"%.0f\" y=\"10\" text-anchor=\"middle\">"
		"change, %% (log scale)</text>", FOREST_MID);
	for (size_t i = 0; i < ax->nticks; i++) {
		double x = forest_x(ax, ax->ticks[i]);

		forest_tick_label(t, sizeof(t), ax->ticks[i]);
		sb_addf(sb, "<text class=\"ax\" x=\"" F "\" y=\"24\" text-anchor=\"middle\">%s"
			"</text><line class=\"%s\" x1=\"" F "\" y1=\"28\" x2=\"" F "\" y2=\"%.0f\"/>",
			x, t, fabs(ax->ticks[i] - 1) < 1e-12 ? "zero" : "tick", x, x, h);
	}
	sb_adds(sb, "</svg>");
}

/* The grid, the zero line and the noise band of a row @h high. */
static void forest_ground(struct strbuf *sb, const struct svg_forest_axis *ax, double h,
			  double threshold)
{
	if (isfinite(threshold) && threshold > 0 && threshold < 1) {
		double x0 = forest_x(ax, 1 - threshold), x1 = forest_x(ax, 1 + threshold);

		sb_addf(sb, "<rect class=\"band\" x=\"" F "\" y=\"1\" width=\"" F
			"\" height=\"18\"/>", x0, x1 - x0);
	}
	for (size_t i = 0; i < ax->nticks; i++) {
		double x = forest_x(ax, ax->ticks[i]);

		if (fabs(ax->ticks[i] - 1) > 1e-12)
			sb_addf(sb, "<line class=\"grid\" x1=\"" F "\" y1=\"0\" x2=\"" F
				"\" y2=\"%.0f\"/>", x, x, h);
	}
	sb_addf(sb, "<line class=\"zero\" x1=\"" F "\" y1=\"0\" x2=\"" F "\" y2=\"%.0f\"/>",
		FOREST_MID, FOREST_MID, h);
}

/* The interval [lo, hi] at height @y, with an arrow where the axis cuts it. */
static void forest_interval(struct strbuf *sb, const struct svg_forest_axis *ax, double ratio,
			    double lo, double hi, double y)
{
	double xl = forest_x(ax, lo), xh = forest_x(ax, hi);
	double edge = FOREST_MID + FOREST_HALF, left = FOREST_MID - FOREST_HALF;

	sb_addf(sb, "<line x1=\"" F "\" y1=\"" F "\" x2=\"" F "\" y2=\"" F "\"/>",
		xl, y, xh, y);
	if (log(lo) >= -ax->span)
		sb_addf(sb, "<line x1=\"" F "\" y1=\"" F "\" x2=\"" F "\" y2=\"" F "\"/>",
			xl, y - 5, xl, y + 5);
	else
		sb_addf(sb, "<path class=\"clip\" d=\"M" F " " F "l6 -4v8z\"/>", left - 4, y);
	if (log(hi) <= ax->span)
		sb_addf(sb, "<line x1=\"" F "\" y1=\"" F "\" x2=\"" F "\" y2=\"" F "\"/>",
			xh, y - 5, xh, y + 5);
	else
		sb_addf(sb, "<path class=\"clip\" d=\"M" F " " F "l-6 -4v8z\"/>", edge + 4, y);
	if (isfinite(ratio) && ratio > 0 && fabs(log(ratio)) <= ax->span)
		sb_addf(sb, "<circle cx=\"" F "\" cy=\"" F "\" r=\"3.5\"/>", forest_x(ax, ratio), y);
}

void svg_forest(struct strbuf *sb, const struct svg_forest_axis *ax, double ratio, double lo,
		double hi, double threshold, enum svg_better better, const char *verdict)
{
	svg_forest_claimed(sb, ax, ratio, lo, hi, threshold, better, verdict, NAN);
}

/* The claimed ratio @claim as a labelled, dashed mark across a row @h high. */
static void forest_claim(struct strbuf *sb, const struct svg_forest_axis *ax, double claim,
			 double h)
{
	double x;
	char a[32];

	if (!isfinite(claim) || claim <= 0 || fabs(log(claim)) > ax->span)
		return;
	x = forest_x(ax, claim);
	fmt_pct(a, sizeof(a), 100 * (claim - 1));
	sb_addf(sb, "<g class=\"claim\"><title>claimed %s</title><line x1=\"" F "\" y1=\"0\" "
		"x2=\"" F "\" y2=\"%.0f\"/><path d=\"M" F " 0h8l-4 5z\"/></g>",
		a, x, x, h, x - 4);
}

void svg_forest_claimed(struct strbuf *sb, const struct svg_forest_axis *ax, double ratio,
			double lo, double hi, double threshold, enum svg_better better,
			const char *verdict, double claim)
{
	const double h = better == SVG_BETTER_NONE ? 20 : 30, y = 10;
	char a[32], c[48];

	sb_addf(sb, "<svg class=\"forest\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">", FOREST_W, h,
		FOREST_W, h);
	fmt_ratio_ci(c, sizeof(c), lo, hi);
	fmt_pct(a, sizeof(a), 100 * (ratio - 1));
	sb_addf(sb, "<title>change %s, interval %s, noise band +-%g%%</title>", a, c,
		100 * threshold);
	forest_ground(sb, ax, h, threshold);
	if (isfinite(lo) && isfinite(hi) && lo > 0 && hi > 0) {
		sb_addf(sb, "<g class=\"ci v-%s\">", verdict);
		forest_interval(sb, ax, ratio, lo, hi, y);
		sb_adds(sb, "</g>");
	} else {
		sb_addf(sb, "<text class=\"na\" x=\"%.0f\" y=\"14\" text-anchor=\"middle\">"
			"no interval</text>", FOREST_MID);
	}
	if (better == SVG_BETTER_HIGHER)
		sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"28\" text-anchor=\"end\">"
			"better &#8594;</text>", FOREST_MID + FOREST_HALF);
	else if (better == SVG_BETTER_LOWER)
		sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"28\">&#8592; better</text>",
			FOREST_MID - FOREST_HALF);
	forest_claim(sb, ax, claim, h);
	sb_adds(sb, "</svg>");
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

/*
 * Round ticks inside @ax: steps of 1, 2 or 5 times a power of ten, about
 * @want of them (at most @max, into @out).
 */
static size_t nice_ticks(const struct axis *ax, double want, int integers, double *out,
			 size_t max)
{
	double raw = (ax->hi - ax->lo) / want, mag, step, t;
	size_t n = 0;

	if (!(raw > 0) || !isfinite(raw))
		return 0;
	mag = pow(10, floor(log10(raw)));
	step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag :
		10 * mag;
	if (integers)
		step = fmax(step, 1);
	for (t = ceil(ax->lo / step) * step; t <= ax->hi + step * 1e-9 && n < max; t += step)
		out[n++] = fabs(t) < step * 1e-9 ? 0 : t;
	return n;
}

/* The value's unit, as the axis names it. */
static void unit_text(struct strbuf *sb, double x, double y, const char *anchor,
		      const char *unit)
{
	sb_addf(sb, "<text class=\"unit\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"%s\">", x, y, anchor);
	sb_add_xml(sb, unit && *unit ? unit : "value");
	sb_adds(sb, "</text>");
}

#define TICKS_MAX 12

/* The strip's value axis: grid lines from @top to @base, tick labels, the unit. */
static void strip_axis(struct strbuf *sb, const struct axis *ax, double left, double right,
		       double top, double base, const char *unit)
{
	double t[TICKS_MAX];
	size_t n = nice_ticks(ax, 5, 0, t, TICKS_MAX);
	char v[48];

#define X(v) (left + ((v) - ax->lo) / (ax->hi - ax->lo) * (right - left))
	for (size_t i = 0; i < n; i++) {
		fmt_num(v, sizeof(v), t[i]);
		sb_addf(sb, "<line class=\"gridl\" x1=\"" F "\" y1=\"%.0f\" x2=\"" F "\" y2=\"%.0f\"/>"
			"<text class=\"ax\" x=\"" F "\" y=\"%.0f\" text-anchor=\"middle\">%s</text>",
			X(t[i]), top, X(t[i]), base, X(t[i]), base + 10, v);
	}
	sb_addf(sb, "<line class=\"axl\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>",
		left, base, right, base);
	unit_text(sb, (left + right) / 2, base + 21, "middle", unit);
#undef X
}

void svg_strip(struct strbuf *sb, const struct result_record *res, const char *base_name,
	       const char *patched_name)
{
	const double w = 420, h = 96, left = 80, right = 14, base = 72;
	const char *name[2] = { base_name, patched_name };
	struct axis ax = { INFINITY, -INFINITY };

	for (int k = 0; k < 2; k++)
		axis_extend(&ax, res->side[k].values, res->side[k].nvalues);
	axis_pad(&ax);
#define X(v) (left + ((v) - ax.lo) / (ax.hi - ax.lo) * (w - left - right))
	sb_addf(sb, "<svg class=\"strip\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>values per kernel with median and its interval</title>", w, h, w, h);
	strip_axis(sb, &ax, left, w - right, 4, base, res->unit);
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
	sb_adds(sb, "</svg>");
#undef X
}

/* The run-order plot's frame: its size and its two axes. */
struct order_geom {
	double w, h, left, right, top, bottom;
	struct axis ax, ay;
};

static double order_x(const struct order_geom *g, double v)
{
	return g->left + (v - g->ax.lo) / (g->ax.hi - g->ax.lo) * (g->w - g->left - g->right);
}

static double order_y(const struct order_geom *g, double v)
{
	return g->h - g->bottom - (v - g->ay.lo) / (g->ay.hi - g->ay.lo) *
		(g->h - g->top - g->bottom);
}

/* Grid lines and labels on both axes, the unit over the value axis. */
static void order_axes(struct strbuf *sb, const struct order_geom *g, const char *unit)
{
	double t[TICKS_MAX], base = g->h - g->bottom;
	size_t n = nice_ticks(&g->ay, 4, 0, t, TICKS_MAX);
	char v[48];

	for (size_t i = 0; i < n; i++) {
		fmt_num(v, sizeof(v), t[i]);
		sb_addf(sb, "<line class=\"gridl\" x1=\"%.0f\" y1=\"" F "\" x2=\"%.0f\" y2=\"" F
			"\"/><text class=\"ax\" x=\"%.0f\" y=\"" F "\" text-anchor=\"end\">%s</text>",
			g->left, order_y(g, t[i]), g->w - g->right, order_y(g, t[i]), g->left - 4,
			order_y(g, t[i]) + 3, v);
	}
	n = nice_ticks(&g->ax, 6, 1, t, TICKS_MAX);
	for (size_t i = 0; i < n; i++)
		sb_addf(sb, "<line class=\"gridl\" x1=\"" F "\" y1=\"%.0f\" x2=\"" F "\" y2=\"%.0f\"/>"
			"<text class=\"ax\" x=\"" F "\" y=\"%.0f\" text-anchor=\"middle\">%.0f</text>",
			order_x(g, t[i]), g->top, order_x(g, t[i]), base, order_x(g, t[i]), base + 11,
			t[i]);
	unit_text(sb, g->left, g->top - 4, "start", unit);
	sb_addf(sb, "<text class=\"ax\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">run number "
		"(order they ran) &#8594;</text>", (g->left + g->w - g->right) / 2, g->h - 3);
}

void svg_run_order(struct strbuf *sb, const struct result_record *res)
{
	struct order_geom g = { .w = 420, .h = 156, .left = 60, .right = 10, .top = 16,
				.bottom = 30, .ax = { INFINITY, -INFINITY },
				.ay = { INFINITY, -INFINITY } };

	for (int k = 0; k < 2; k++) {
		axis_extend(&g.ay, res->side[k].values, res->side[k].nvalues);
		axis_extend_runs(&g.ax, res->side[k].runs, res->side[k].nvalues);
	}
	axis_pad(&g.ay);
	if (!isfinite(g.ax.lo))
		g.ax.lo = 0, g.ax.hi = 1;
	/* Half a run of room at either end, so the first and last points are not on the frame. */
	g.ax.lo -= 0.5, g.ax.hi += 0.5;
	sb_addf(sb, "<svg class=\"order\" role=\"img\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" xmlns=\"http://www.w3.org/2000/svg\">"
		"<title>value against run order</title>", g.w, g.h, g.w, g.h);
	order_axes(sb, &g, res->unit);
	sb_addf(sb, "<rect class=\"frame\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/>",
		g.left, g.top, g.w - g.left - g.right, g.h - g.top - g.bottom);
	for (int k = 0; k < 2; k++) {
		const struct result_side *s = &res->side[k];
		double med = s->median;

		if (isfinite(med))
			sb_addf(sb, "<line class=\"medl k%d\" x1=\"%.0f\" y1=\"" F "\" x2=\"%.0f\" "
				"y2=\"" F "\"/>", k, g.left, order_y(&g, med), g.w - g.right,
				order_y(&g, med));
		for (size_t i = 0; i < s->nvalues; i++)
			if (!isnan(s->values[i]))
				point(sb, order_x(&g, (double)s->runs[i]), order_y(&g, s->values[i]), k,
				      is_outlier(s, s->runs[i]), s->runs[i], s->values[i]);
	}
	sb_adds(sb, "</svg>");
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
