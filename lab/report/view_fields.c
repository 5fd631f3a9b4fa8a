// SPDX-License-Identifier: GPL-2.0
/*
 * The report view's members, one table each (report_view.h): the rows
 * report_view_decode() reads a member through (sdoc_fields_decode(), so
 * that a member of the wrong type is refused by its path, as a result's
 * is). Each row says a member's JSON key, its kind and its place in the
 * struct beside which the table is declared; what a table cannot say
 * stays as code in report_view.c, with why.
 */
#include "report_view.h"

#include <stddef.h>

#define STA(f) .offset = offsetof(struct view_statistics, f)

/* statistics: the analysis' settings as it used them (report_model.c). */
const struct sdoc_field view_statistics_fields[] = {
	{ "alpha", SK_NUMBER, STA(alpha) },
	{ "confidence", SK_NUMBER, STA(confidence) },
	{ "threshold", SK_NUMBER, STA(threshold) },
	{ "power", SK_NUMBER, STA(power) },
	{ "max_failed_fraction", SK_NUMBER, STA(max_failed_fraction) },
	{ "threshold_source", SK_STRING, STA(threshold_source) },
	{ "resamples", SK_LONG, STA(resamples) },
	{ "counter_resamples", SK_LONG, STA(counter_resamples) },
	{ "min_runs", SK_LONG, STA(min_runs) },
	{ "seed", SK_INT, STA(seed) },
	{ NULL },
};
