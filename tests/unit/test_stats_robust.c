// SPDX-License-Identifier: GPL-2.0
/*
 * Robustness: thousands of seeded small, tied, zero, negative and
 * degenerate inputs through every entry point (under ASan/UBSan in
 * `make unit`), checking the invariants the report relies on: p and q in
 * [0, 1], intervals ordered and containing their estimate, verdicts valid.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "rng.h"
#include "stats.h"

static double pick(struct rng *r, int kind)
{
	switch (kind) {
	case 0:		/* heavy ties */
		return (double)rng_below(r, 3);
	case 1:		/* counters with zeros */
		return (double)(rng_below(r, 4) ? rng_below(r, 1000) : 0);
	case 2:		/* signed */
		return (double)rng_below(r, 200) - 100.0;
	default:	/* continuous, huge */
		return 1e12 * (1 + rng_double(r));
	}
}

static void check_prob(double p)
{
	if (!isnan(p))
		assert_true(p >= 0 && p <= 1);
}

static void test_random_inputs(void **state)
{
	struct stats_settings s;
	struct rng r;

	(void)state;
	stats_settings_default(&s);
	s.resamples = 200;
	rng_seed(&r, 2026);
	for (int it = 0; it < 3000; it++) {
		size_t na = 1 + rng_below(&r, 9), nb = 1 + rng_below(&r, 9);
		int kind = (int)rng_below(&r, 4);
		double a[9], b[9], pv[4], q[4];
		unsigned char flags[9];
		struct stats_summary sum;
		struct stats_comparison c;
		struct stats_decision d;
		struct stats_paired pr;
		struct stats_geomean g;
		enum stats_verdict v;

		for (size_t i = 0; i < 9; i++) {
			a[i] = pick(&r, kind);
			b[i] = pick(&r, kind);
		}
		assert_int_equal(stats_summarize(a, NULL, na, 0.95, &sum,
						 flags), 0);
		assert_true(sum.min <= sum.median && sum.median <= sum.max);
		assert_true(sum.q1 <= sum.q3);
		assert_true(sum.median_ci.lo <= sum.median &&
			    sum.median <= sum.median_ci.hi);
		assert_true(sum.outliers <= na);
		check_prob(sum.drift_p);

		assert_int_equal(stats_compare(a, na, b, nb, &s, (uint64_t)it,
					       &c), 0);
		check_prob(c.mw_p);
		assert_false(isnan(c.mw_p));
		assert_true(c.hl_lo <= c.hl_shift && c.hl_shift <= c.hl_hi);
		if (c.ratio_valid) {
			assert_true(c.ratio_lo <= c.ratio_hi);
			assert_false(isnan(c.ratio_lo));
		} else {
			assert_true(isnan(c.ratio));
		}
		v = stats_decide(&c, &s, it & 1, -1, -1, 0, 0, &d);
		assert_true(v >= VERDICT_IMPROVEMENT && v <= VERDICT_INVALID);
		assert_true(strlen(d.reason) > 0);
		if (na < 2 || nb < 2)
			assert_int_equal(v, VERDICT_INVALID);
		else if (c.all_equal)	/* e.g. all zero: nothing moved */
			assert_int_equal(v, VERDICT_NO_CHANGE);
		else if (!c.ratio_valid)
			assert_int_equal(v, VERDICT_INVALID);

		stats_paired(a, b, na < nb ? na : nb, &s, &pr);
		check_prob(pr.p);

		pv[0] = c.mw_p;
		pv[1] = NAN;
		pv[2] = rng_double(&r);
		pv[3] = c.mw_p;
		stats_bh_adjust(pv, 4, q);
		for (int i = 0; i < 4; i++)
			check_prob(q[i]);
		if (!(q[0] >= pv[0] && q[2] >= pv[2]))
			fail_msg("p %.17g %.17g q %.17g %.17g", pv[0], pv[2], q[0], q[2]);

		/* Two metrics from the same runs, with a missing value. */
		double mb[18], mp[18];

		memcpy(mb, a, 9 * sizeof(double));
		memcpy(mb + 9, b, 9 * sizeof(double));
		memcpy(mp, b, 9 * sizeof(double));
		memcpy(mp + 9, a, 9 * sizeof(double));
		mb[0] = NAN;
		assert_int_equal(stats_geomean(mb, 9, mp, 9, 2, NULL, &s,
					       (uint64_t)it, &g), 0);
		assert_int_equal(g.k + g.skipped, 2);
		if (g.k)
			assert_true(g.lo <= g.ratio * (1 + 1e-12) &&
				    g.ratio <= g.hi * (1 + 1e-12));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
