/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the watch keeps of a series' session and bisection, in the queue
 * (the series' verdict and note) and in its progress lines: one line
 * each, read through the records' decoders (the report's results,
 * report_result_records(); bisect.json's head, result and patches,
 * bisect_state.c), never by key.
 */
#ifndef LAB_WATCH_VERDICT_H
#define LAB_WATCH_VERDICT_H

/*
 * "yield_shared ops_per_sec: regression -5.1% [-6.0%, -4.2%]; ..." of the
 * report at @report_json: its primaries (every metric of a workload that
 * declares none), as `run --json` lists them. *@regressed: whether a
 * primary regressed. "no report" when it cannot be read, "no primary
 * metric" when it has none. New string.
 */
char *watch_verdict_of(const char *report_json, int *regressed);

/*
 * "culprit: patch 2 of 3, [PATCH 2/3] ..." of the bisection whose
 * bisect.json is @bisect_json (a series of @n patches), or "bisection:
 * OUTCOME" when it names no culprit. New string.
 */
char *watch_bisect_note(const char *bisect_json, long n);

#endif
