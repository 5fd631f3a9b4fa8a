/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the analysis (report_analyze_view()) share, and
 * nothing outside lab/report/ includes: the model of a session, its
 * series and what the analysis hands the view. report_model.c drives it
 * (the settings, the records' places, the order of the stages, the
 * report's shell); the stages are report_model_series.c (the runs into
 * one series per metric or counter and kernel), report_model_fill.c (each
 * series summarized, compared and its record filled),
 * report_model_strata.c (the hosts as strata of a metric),
 * report_model_verdict.c (the verdicts, family by family after
 * Benjamini-Hochberg), report_model_geomean.c (the geometric means),
 * report_model_warn.c (a series' warnings and the report's) and
 * report_model_summary.c (the summary and what it counts of the runs).
 */
#ifndef LAB_REPORT_MODEL_PRIV_H
#define LAB_REPORT_MODEL_PRIV_H

#include "report.h"
#include "report_result.h"
#include "report_view.h"
#include "run_record.h"
#include "stats.h"
#include "strbuf.h"

#include <jansson.h>
#include <math.h>

/* The compared kernels: their index in model.kname[] and in a series' values. */
enum { BASE, PATCHED };

/* Kinds of a series' warnings that the report's warnings count. */
enum {
	WARNED_FEW = 1, WARNED_DRIFT = 2, WARNED_OUTLIERS = 4, WARNED_MISSING = 8,
	WARNED_HET = 16,
};

struct series {
	char *workload, *name;	/* name: metric, or "group.counter" for display */
	char *group;		/* counters: the group ("vmstat"), NULL for metrics */
	const char *cname;	/* counters: the name within the group */
	const char *unit;
	int better_higher, declared, is_counter;
	int primary;		/* declared primary before the first run */
	double threshold;	/* < 0: the report's default */
	const char *band_source;	/* where the band came from (NULL: [stats]) */
	size_t look;		/* sequential primaries: the look this analysis is (0: none yet) */
	size_t n[2], alloc[2];
	double *v[2];
	long *seq[2], *block[2];
	size_t *host[2];	/* index into model.hosts of each value */
	size_t failed[2], missing[2];
	/* Its place in model.results or model.counters: filled by model_analyze_series(), decide(). */
	struct result_record *rec;
	const char *verdict;	/* rec's verdict id (static); NULL: none */
	struct stats_comparison cmp;	/* kept for stats_decide() after BH */
	double p, q, sortkey;
	int compared;		/* result has a "comparison" (both kernels had values) */
	unsigned warned;	/* WARNED_* kinds among the result's warnings */
	/* Hosts that disagree (model_host_strata()): Cochran's Q, p, and each host's change. */
	char *het_hosts;	/* NULL: not heterogeneous */
	double het_q, het_p;
	double ratio;		/* its ratio as written: NaN when not finite */
};

/* A non-warm-up run of a compared kernel, as the later stages need it. */
struct compared_run {
	const char *workload;
	long seq, block;
	int k, ok;
};

/* What the analysis hands the view (report_analyze_view()). */
struct analysed {
	struct result_record *results, *counters;
	size_t nresults, ncounters;
	struct view_geomean *geomean;	/* model_geomean_all() */
	size_t ngeomean;
	struct result_strings *strings;
};

struct model {
	struct session_input in;	/* what the session says, decoded once */
	/*
	 * What the later stages need of the runs, noted before their records
	 * are released (a large report holds millions: model_note_runs()): the
	 * non-warm-up runs of the compared kernels, the counts, and the
	 * summary's runs per kernel and timings, already JSON.
	 */
	struct compared_run *cruns;
	size_t ncruns;
	size_t runs_total, runs_failed, runs_busy, runs_warmup;
	json_t *runs_per_kernel, *timings;
	struct hoststate_notes notes;	/* the host states' warnings (report_hoststate()) */
	const char *kname[2];	/* kname[PATCHED] is NULL in a single-kernel session */
	struct stats_settings st;
	unsigned counter_resamples;
	size_t min_runs;
	const char *band_source;	/* where the report's default band came from */
	int sequential;		/* 1: `run --until decided`, primaries use seq */
	int seq_invalid;	/* design.sequential present but not a valid plan */
	struct stats_seq_plan seq;
	struct series *s;
	size_t ns, alloc;
	/*
	 * Hash indexes (jansson objects): a crafted report may hold tens of
	 * thousands of metrics, workloads or runs, and scans per run or per
	 * series made the analysis quadratic.
	 */
	json_t *series_ix;	/* series_key() -> index into s[] */
	json_t *workloads;	/* name -> index of the first in.workloads[] of that name */
	/*
	 * The hosts the compared runs came from (runs[].host, "local" when a
	 * record has none), in order of first appearance; more than one makes
	 * the host a stratum of every metric (model_host_strata()).
	 */
	json_t *host_ix;	/* name -> index into hosts */
	const char **hosts;
	size_t nhosts, hosts_alloc;
	struct strbuf key;	/* scratch for series_key() */
	/*
	 * The records, the metrics' in report order (place_records()), the
	 * counters' in series order until sorted (sort_counters()), and the
	 * strings they hold that the analysis made: the view's, in the end.
	 */
	struct analysed a;
};

/* A number as the report holds it: what JSON cannot (NaN, infinities) is null, read NaN. */
static inline double jv(double v)
{
	return isfinite(v) ? v : NAN;
}

/* A primary of a `run --until decided` session: judged at the level of its look. */
static inline int is_seq_primary(const struct model *m, const struct series *s)
{
	return m->sequential && s->primary && !s->is_counter;
}

/*
 * Verdict families: the primary metrics declared before the first run,
 * the other (secondary) metrics, and the counters, each corrected for
 * multiplicity on its own, so that adding counters or secondary metrics to
 * a session never dilutes the answer to its question.
 */
enum family { FAMILY_PRIMARY, FAMILY_SECONDARY, FAMILY_COUNTER };

/* report_model_series.c: the runs into series */
int model_kernel_index(const struct model *m, const char *name);
void model_declare_series(struct model *m);
void model_collect_runs(struct model *m, const struct run_records *runs, const json_t *derived);
void model_count_failures(struct model *m, const struct run_records *runs);

/*
 * report_model_strata.c: a metric with values from several hosts, the
 * hosts as its strata; what its verdict rests on into *@dec
 */
void model_host_strata(struct model *m, struct series *s, const struct stats_settings *st,
		       const char *key, struct stats_comparison *dec);

/* report_model_warn.c: a series' warnings (before its verdict), the report's (after all) */
void model_series_warnings(struct model *m, struct series *s, const struct stats_settings *st,
			   const struct stats_summary *sum, const int *have);
json_t *model_report_warnings(struct model *m);

/* report_model_geomean.c: each workload's geometric mean, *@n of them */
struct view_geomean *model_geomean_all(struct model *m, size_t *n);

/* report_model_verdict.c: family @f's q values (Benjamini-Hochberg), then each series' verdict */
void model_bh_family(struct model *m, enum family f);

/*
 * report_model_fill.c: series @s summarized, compared and its record
 * filled, all but the verdict (model_bh_family())
 */
void model_analyze_series(struct model *m, struct series *s);

/*
 * report_model_summary.c: what the stages after the series need of @runs,
 * noted before their records are released; then the report's "summary"
 */
void model_note_runs(struct model *m, const struct run_records *runs);
json_t *model_summary(struct model *m);

#endif
