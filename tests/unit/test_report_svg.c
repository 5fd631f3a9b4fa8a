// SPDX-License-Identifier: GPL-2.0
/* The SVG charts (lab/report/report_svg.c): coordinates as printf writes them, the forest axis. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report_svg.h"
#include "rng.h"

static void same_as_printf(double v)
{
	struct strbuf sb = STRBUF_INIT;
	char want[512];

	snprintf(want, sizeof(want), "%.2f", v);
	svg_add_coord(&sb, v);
	if (strcmp(sb_str(&sb), want))
		fail_msg("%.17g: \"%s\", printf \"%s\"", v, sb_str(&sb), want);
	sb_release(&sb);
}

/* Halves of hundredths that are exact (printf rounds them to even), near-halves, signs, the rest. */
static void test_coord_as_printf(void **state)
{
	static const double fixed[] = {
		0, -0.0, 0.125, 0.375, 0.625, 0.875, -0.125, 2.675, 1.005, 1.015, 0.005, -0.005,
		-0.001, -0.0049999, 0.0049999, 12.345, 99.995, 999999.995, 1e6, -1e6, 123456789.125,
		1e300, -1e-300, INFINITY, -INFINITY, NAN, 860, 189.99999999, 0.01, 0.1, 0.29,
	};
	struct rng r;
	(void)state;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		same_as_printf(fixed[i]);
	rng_seed(&r, 7);
	for (int i = 0; i < 200000; i++) {
		double scale = pow(10, (double)(i % 9) - 2);

		same_as_printf((rng_double(&r) - 0.3) * scale);
		/* Exact and nearly exact half hundredths. */
		same_as_printf(((double)rng_below(&r, 1000000) + 0.5) / 100);
		same_as_printf(nextafter(((double)rng_below(&r, 100000) + 0.5) / 100, 0));
	}
}

/*
 * The shared forest axis: a row without an interval (drawn as "no
 * interval") does not stretch it, the noise band is on it, its ticks are
 * sorted with no change among them, and labels do not crowd.
 */
static void test_forest_axis(void **state)
{
	struct svg_forest_axis ax;
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	svg_forest_axis_init(&ax, 0.03);
	svg_forest_axis_add(&ax, 4, NAN, NAN);		/* a counter of 1 and 4 */
	svg_forest_axis_add(&ax, 1.05, 1.01, 1.10);
	svg_forest_axis_done(&ax);
	assert_true(ax.span >= log(1.10) && ax.span < log(1.25));
	assert_true(ax.nticks >= 4);
	for (size_t i = 1; i < ax.nticks; i++)
		assert_true(ax.ticks[i] > ax.ticks[i - 1]);
	for (size_t i = 0; i < ax.nticks && ax.ticks[i] != 1; i++)
		assert_true(i + 1 < ax.nticks);
	svg_forest_head(&sb, &ax);
	assert_non_null(strstr(sb.buf, "change, %"));
	assert_non_null(strstr(sb.buf, ">+5%</text>"));
	sb_release(&sb);

	/* Beyond x10 the axis stops and the bar gets an arrow. */
	svg_forest_axis_init(&ax, 0.03);
	svg_forest_axis_add(&ax, 50, 20, 90);
	svg_forest_axis_done(&ax);
	assert_true(fabs(ax.span - log(10)) < 1e-9);
	svg_forest(&sb, &ax, 50, 20, 90, 0.03, SVG_BETTER_NONE, "increase");
	assert_non_null(strstr(sb.buf, "class=\"clip\""));
	assert_null(strstr(sb.buf, "better"));
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coord_as_printf),
		cmocka_unit_test(test_forest_axis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
