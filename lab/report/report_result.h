/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A result of report.results (or report.counter_results) as the stages
 * after the analysis read it: the renderers, the stopping rule of a
 * sequential session, the bisection, JUnit and the exit status. Decoded
 * once, here, from the JSON report_analyze() returns (or a report.json read
 * back), so no stage picks "comparison" where the verdict rests on
 * "pooled", or reads a verdict string by hand. reports/SCHEMA.md
 * ("Computed members") says what each member means.
 *
 * Not thread-safe on one record; distinct records may be used from any
 * thread. The strings and the const json_t pointers point into the JSON
 * the record was decoded from: they live as long as it does. The arrays
 * are the record's own: result_record_release() frees them.
 *
 * The analysis (report_analyze_view()) fills records directly, with no
 * JSON: their json is NULL, the strings it makes (names, reasons,
 * warnings) live in a struct result_strings the view owns, and the rest
 * are static or point into the session analysed. result_record_encode()
 * writes such a record as the JSON element result_record_decode() reads.
 */
#ifndef LAB_REPORT_RESULT_H
#define LAB_REPORT_RESULT_H

#include <jansson.h>

#include "session_doc.h"
#include "stats.h"
#include "strbuf.h"
#include "util.h"

/* A change of patched against baseline. NaN where the report has null. */
struct result_change {
	double ratio;		/* patched / baseline */
	double delta_pct;	/* 100 * (ratio - 1) */
	double lo, hi;		/* the ratio's interval */
};

/* "baseline" or "patched": one kernel's statistics. NaN / 0 when absent. */
struct result_side {
	/*
	 * The kernel has its statistics (median, outliers, drift, ...): it
	 * has values. Without them outliers reads 0, which is not "none
	 * counted".
	 */
	int summarized;
	long n, failed, missing, outliers;
	double median, min, q1, q3, max, mean, stddev, cv, mad;
	struct {
		double lo, hi, achieved;
		long lo_order, hi_order;
		int ok;
		const char *reason;	/* NULL: none */
	} median_ci;
	struct {
		int valid;
		double rho, p;
	} drift;
	size_t nvalues;		/* values[i] is run runs[i]'s */
	double *values;
	long *runs;
	size_t noutlier_runs;
	long *outlier_runs;
};

/* "comparison": every run of the two kernels, hosts ignored. */
struct result_comparison {
	int present;		/* 0: null (a kernel has no values) */
	double ratio, delta_pct, q, mde_pct;
	int all_equal;
	struct {
		double lo, hi, level;
		const char *method;
		long resamples;
	} ci;
	struct {
		double u, p;
		const char *method;
	} mann_whitney;
	struct {
		double shift, lo, hi, ratio, ratio_lo, ratio_hi, level;
	} hodges_lehmann;
	struct {
		int present;	/* 0: null (no blocks) */
		int valid;
		long pairs, used;
		double median_ratio, hl_ratio, w_plus, p;
		const char *method;
	} paired;
};

/* One element of "hosts" (a session on several hosts). */
struct result_host {
	const char *host;
	long n[2];		/* values of baseline, patched */
	double median[2];
	double ratio, delta_pct, lo, hi;
	int pooled;		/* the host carried weight */
};

/* "pooled" and "heterogeneity" (a session on several hosts). */
struct result_pooled {
	int present;
	const char *method, *basis, *p_method;
	long hosts;
	double ratio, delta_pct, lo, hi, level, z, p;
	struct {
		int present;
		double q, p, i2, alpha;
		long df;
		int overlap, heterogeneous;
	} heterogeneity;
};

/* "sequential" (a primary of a `run --until decided` session). */
struct result_sequential {
	int present;
	long look, looks, runs_at_look;
	double alpha_look, p, p_adjusted;
	double lo, hi;		/* the looks' intervals intersected; NaN: none */
};

struct result_warning {
	const char *kind, *message;
};

struct result_record {
	const char *workload;
	const char *metric;		/* a counter's "group.name" */
	int is_counter;			/* of counter_results: group, name, change */
	const char *group, *name;	/* counters only */
	const char *change_id;		/* counters: "increase", "decrease", ... */
	const char *unit;		/* NULL: none declared */
	const char *better;		/* metrics: "higher" / "lower"; NULL */
	const char *verdict_id;		/* stats_verdict_id(verdict); NULL: none (one kernel) */
	enum stats_verdict verdict;	/* VERDICT_INVALID when absent or unknown */
	const char *marker;		/* ASCII marker as stored; NULL */
	const char *reason;		/* why the verdict, NULL when none */
	const char *family;		/* primary, secondary, counter; NULL */
	const char *band_source;	/* where threshold came from; NULL */
	long family_size;
	double threshold, p_used;
	int used_q;
	int primary;			/* declared before the first run */
	int final;			/* a sequential look may stop on it */
	long runs_needed;		/* runs per kernel that might decide, 0: no estimate */
	int pooled;			/* the verdict rests on the hosts pooled */
	/*
	 * The change the verdict rests on: the hosts pooled in a session on
	 * several hosts (pooled == 1), else the comparison of all runs. Every
	 * stage that prints a verdict prints this change with it.
	 */
	struct result_change change;
	struct result_side side[2];	/* baseline, patched */
	struct result_comparison comparison;
	struct result_pooled pool;
	size_t nhosts;
	struct result_host *hosts;
	size_t nwarnings;
	struct result_warning *warnings;
	struct result_sequential sequential;
	const json_t *json;		/* the element decoded; NULL: made by the analysis */
};

/*
 * The record's one definition: a row per member of the JSON element, in
 * the order report_analyze() has always written them, its key, kind and
 * place in struct result_record (session_doc.h's struct sdoc_field, and its
 * codec). Both "results" and "counter_results" (a counter's rows are the
 * ones whose when() says so). The encoder (result_record_encode()) and the
 * decoder (result_record_decode()) are driven by it; the members whose
 * shape is an array of structs have codecs of their own, SK_CODEC rows:
 * "hosts", "warnings", and a side's "runs", "values" and "outlier_runs".
 * tests/unit/test_result_table.c holds reports/schema/'s result item and
 * reports/SCHEMA.md's results table to the rows and re-encodes real
 * reports' results byte for byte.
 *
 * A new member is a struct line above and a row in report_result.c (then
 * the schema and SCHEMA.md, which the test holds to the row).
 */
extern const struct sdoc_field result_record_fields[];

/*
 * Decode one element of a report's "results" or "counter_results" into
 * @out (its arrays are new: result_record_release() them, also after a
 * failure). Returns 0, or -1 with what is wrong (the member and what was
 * expected) in @err: a missing or non-string workload or metric (counter);
 * a member of the wrong type. Optional members that are absent or null
 * decode as "none" (NaN, 0, NULL): a one-kernel session's results have no
 * verdict (verdict_id NULL).
 */
LAB_MUST_CHECK
int result_record_decode(const json_t *res, struct result_record *out, struct strbuf *err);
void result_record_release(struct result_record *rec);

/*
 * Every element of @report's @member ("results" or "counter_results") that
 * decodes, in order: a new array of *@n records (NULL when there is none),
 * to free with result_records_free(). Elements that do not decode are
 * counted in *@bad (may be NULL) and left out: a hand-edited report.json
 * read back must not crash a stage, and what the stage then says is "not
 * measured", never a verdict.
 */
struct result_record *report_result_records(const json_t *report, size_t *n, size_t *bad);
struct result_record *report_records_of(const json_t *report, const char *member, size_t *n,
					size_t *bad);
void result_records_free(struct result_record *recs, size_t n);

/*
 * @rec as "none" everywhere, exactly as result_record_decode() reads an
 * element whose optional members are all absent (NaN, 0, NULL): what the
 * analysis starts from before it fills what it knows.
 */
void result_record_clear(struct result_record *rec);

/* rec->pooled and rec->change from rec->pool and rec->comparison, as the decoder sets them. */
void result_record_set_basis(struct result_record *rec);

/*
 * @rec as the JSON element of "results" or "counter_results" that
 * report_analyze() writes: the same members in the same order, null where
 * it has null, integers where it has integers, so that
 * result_record_decode() of it gives @rec back (report_encode.c).
 */
json_t *result_record_encode(const struct result_record *rec);

/*
 * Strings the analysis makes for its records: each added string is a
 * copy (bytes that are not UTF-8 replaced, as json_string_lossy() does),
 * valid until result_strings_release().
 */
struct result_strings {
	char **v;
	size_t n, alloc;
};

const char *result_strings_add(struct result_strings *st, const char *s);
void result_strings_release(struct result_strings *st);

/* 1 when @rec carries a warning of @kind. */
int result_record_has_warning(const struct result_record *rec, const char *kind);

#endif
