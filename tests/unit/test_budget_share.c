// SPDX-License-Identifier: GPL-2.0
/*
 * Fair shares of a sequential session's budget (budget_share_wait(),
 * session_seq.h): a workload past its share waits while a workload still
 * running has share left, and never otherwise. Then the case that made
 * the rule: the demo on a slow machine, where kernel-build runs of minutes
 * spent the whole budget before any other workload reached its first look.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "session_seq.h"

static void test_no_budget_never_waits(void **state)
{
	struct budget_use u[2] = { { 5000, 1 }, { 0, 1 } };
	(void)state;

	assert_int_equal(budget_share_wait(u, 2, 0, 0), 0);
}

static void test_within_share_never_waits(void **state)
{
	struct budget_use u[3] = { { 99, 1 }, { 0, 1 }, { 0, 1 } };
	(void)state;

	assert_int_equal(budget_share_wait(u, 3, 0, 300), 0);
}

/* Past its share, with another running workload's share unspent and no slack: waits. */
static void test_past_share_waits_for_others(void **state)
{
	struct budget_use u[3] = { { 250, 1 }, { 20, 1 }, { 10, 1 } };
	(void)state;

	/* share 100; reserved 80 + 90; 280 + 170 >= 300 */
	assert_int_equal(budget_share_wait(u, 3, 0, 300), 1);
	/* the others are within their shares: they go on */
	assert_int_equal(budget_share_wait(u, 3, 1, 300), 0);
	assert_int_equal(budget_share_wait(u, 3, 2, 300), 0);
}

/* The others stopped (decided): their shares are free, it goes on. */
static void test_stopped_others_leave_their_share(void **state)
{
	struct budget_use u[3] = { { 250, 1 }, { 20, 0 }, { 10, 0 } };
	(void)state;

	assert_int_equal(budget_share_wait(u, 3, 0, 300), 0);
}

/* Everyone past their share: nothing is reserved, nobody waits (the budget itself ends it). */
static void test_all_past_share(void **state)
{
	struct budget_use u[2] = { { 210, 1 }, { 205, 1 } };
	(void)state;

	assert_int_equal(budget_share_wait(u, 2, 0, 500), 0);
	assert_int_equal(budget_share_wait(u, 2, 1, 500), 0);
}

/*
 * What a stopped workload left of its share is slack: a workload past its
 * own share may use it at once, as long as the running ones keep theirs.
 */
static void test_slack_is_used(void **state)
{
	struct budget_use u[3] = { { 220, 1 }, { 50, 0 }, { 10, 1 } };
	(void)state;

	/* share 200 of 600: 280 spent + 190 reserved = 470 < 600 */
	assert_int_equal(budget_share_wait(u, 3, 0, 600), 0);
	/* until it reaches the running one's reserve */
	u[0].spent_s = 400;
	assert_int_equal(budget_share_wait(u, 3, 0, 600), 1);
}

/*
 * The demo, simulated in plan order: five quick workloads (8 s a run,
 * decided at their first look, 6 blocks of 2 runs) and a kernel build
 * (240 s a run, capped at 3 blocks), blocks interleaved as the plan
 * makes them, a 25-minute budget. Without shares the kernel build takes
 * the budget first; with them every quick workload reaches its look.
 */
#define NW 6
static int simulate(int shares, int blocks_done[NW])
{
	const double cost[NW] = { 8, 8, 8, 8, 8, 240 };
	const int cap[NW] = { 6, 6, 6, 6, 6, 3 }, look = 6;
	const double budget = 1500;
	int stopped[NW] = { 0 };
	struct budget_use u[NW];

	memset(blocks_done, 0, NW * sizeof(int));
	for (;;) {
		double total = 0;
		int pick = -1, waiting = -1;

		for (int w = 0; w < NW; w++) {
			u[w].spent_s = blocks_done[w] * 2 * cost[w];
			u[w].running = !stopped[w] && blocks_done[w] < cap[w];
			total += u[w].spent_s;
		}
		if (total >= budget)
			break;
		/* plan order: block b of every workload, then block b + 1 */
		for (int b = 0; b < 6 && pick < 0; b++)
			for (int w = 0; w < NW && pick < 0; w++) {
				if (!u[w].running || blocks_done[w] != b)
					continue;
				if (shares && budget_share_wait(u, NW, (size_t)w, budget)) {
					waiting = waiting < 0 ? w : waiting;
					continue;
				}
				pick = w;
			}
		if (pick < 0)
			pick = waiting;
		if (pick < 0)
			break;
		blocks_done[pick]++;
		if (blocks_done[pick] >= look || blocks_done[pick] >= cap[pick])
			stopped[pick] = 1;
	}
	int reached = 0;
	for (int w = 0; w < NW - 1; w++)
		reached += blocks_done[w] >= look;
	return reached;
}

static void test_slow_kernel_build_cannot_starve_the_others(void **state)
{
	int done[NW];
	(void)state;

	assert_true(simulate(0, done) < 5);
	assert_int_equal(simulate(1, done), 5);
	/* and the kernel build still gets what the others left */
	assert_true(done[NW - 1] >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_budget_never_waits),
		cmocka_unit_test(test_within_share_never_waits),
		cmocka_unit_test(test_past_share_waits_for_others),
		cmocka_unit_test(test_stopped_others_leave_their_share),
		cmocka_unit_test(test_all_past_share),
		cmocka_unit_test(test_slack_is_used),
		cmocka_unit_test(test_slow_kernel_build_cannot_starve_the_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
