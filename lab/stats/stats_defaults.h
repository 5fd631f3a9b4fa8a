/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics defaults, in one place: lab.conf's [stats] and [run] seed
 * (config.c), stats_settings_default() (what the unit tests and benches
 * start from) and a report whose session did not record a setting
 * (report_model.c) all take them from here, so a session analysed now and
 * re-analysed from its JSON later use the same numbers.
 */
#ifndef LAB_STATS_DEFAULTS_H
#define LAB_STATS_DEFAULTS_H

#define STATS_DEFAULT_ALPHA		0.05	/* significance level */
#define STATS_DEFAULT_CONFIDENCE	0.95	/* interval level */
#define STATS_DEFAULT_THRESHOLD		0.01	/* noise band, fraction (+-1 %) */
#define STATS_DEFAULT_POWER		0.80	/* for the minimum detectable effect */
#define STATS_DEFAULT_RESAMPLES		10000	/* bootstrap replicates */
#define STATS_DEFAULT_MAX_FAILED	0.25	/* failed-run fraction that makes a metric invalid */
/*
 * Master seed: lab.conf's [run] seed, which seeds both the run order and
 * (through stats_seed_for()) every bootstrap. 1 is what sessions have
 * always recorded; a session without one is re-analysed with the same.
 */
#define STATS_DEFAULT_SEED		1
#define STATS_DEFAULT_MIN_RUNS		5	/* runs per kernel before a verdict */
/*
 * The bootstrap replicates a lab.conf or a report may ask for: fewer than
 * the minimum gives intervals that move from one analysis to the next, more
 * than the maximum only costs time.
 */
#define STATS_MIN_RESAMPLES		100
#define STATS_MAX_RESAMPLES		1000000

#endif
