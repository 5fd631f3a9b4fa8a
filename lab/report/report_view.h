/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole analysed report as the renderers read it: the session, the
 * host, the kernels, the guest, the workloads, the design, the statistics
 * settings, the summary, the geomeans, the warnings, the host states, the
 * runs (run_record.h) and the results and counter results
 * (report_result.h). Decoded once, here, from what report_analyze()
 * returns, so a renderer picks no key by hand and meets no type it did not
 * expect. reports/SCHEMA.md says what each member means.
 *
 * Not thread-safe on one view; views are plain values. The strings and the
 * const json_t pointers point into the JSON the view was decoded from: they
 * live as long as it does. The arrays are the view's own:
 * report_view_release() frees them (never the struct).
 *
 * A view the analysis made (report_analyze_view()) owns more: its json, a
 * shell tree of every member but "results", "counter_results" and
 * "geomean" (it shares the session's members, runs and all), and the
 * strings its records and geomeans hold that the analysis made (names,
 * reasons, warnings). Their other strings are static or point into the
 * session analysed: the session must outlive the view.
 * report_view_release() frees what the view owns.
 *
 * Absent or null optional members decode as "none": NULL strings, NaN
 * numbers, 0 counts, a has_ / present flag of 0 where a renderer tells
 * "none" from 0.
 */
#ifndef LAB_REPORT_VIEW_H
#define LAB_REPORT_VIEW_H

#include <jansson.h>
#include <stddef.h>

#include "report_result.h"
#include "run_record.h"
#include "strbuf.h"
#include "util.h"

struct view_node {
	long id;
	const char *cpus;	/* a cpulist: "0-1" */
	double memory_mib;
};
/* Its members' table (view_fields.c). */
extern const struct sdoc_field view_node_fields[];

/*
 * guest: session.json's struct, read through its rows (sdoc_guest_fields[]),
 * and its nodes typed. session.json keeps nodes as JSON (its writer's,
 * the guest file's topology); the renderers read their members, so the view
 * reads them once more through a row of its own (view_node_fields[]): the
 * one member the two do not share.
 */
struct view_guest {
	int present;		/* the report has one (an object) */
	/*
	 * doc.vcpus and doc.icount_shift are 0 when absent, as the renderers
	 * show them (the table's none, SDOC_NONE, is not a number to print).
	 */
	struct sdoc_guest doc;
	int has_icount_shift;	/* the guest ran under -icount shift=N */
	size_t nnodes;
	struct view_node *nodes;
	/* nodes[] as its row decodes it: report_view.c moves it into nodes (empty after) */
	struct sdoc_array nodes_rows;
};

/* Counts per verdict id (summary.verdicts, summary.primary_verdicts). */
struct view_counts {
	long improvement, regression, within_noise, no_change, inconclusive, invalid;
};
/* Its members' table (view_fields.c). */
extern const struct sdoc_field view_counts_fields[];

/* summary.timings.<phase>: over every run that recorded it. */
struct view_timing {
	long runs;
	double median, total;	/* NaN: none */
};

enum view_phase { VIEW_BOOT, VIEW_WORKLOAD, VIEW_HOST_OVERHEAD, VIEW_PHASES };

struct view_summary {
	long metrics, counters, primaries;
	long runs, runs_ok, runs_failed, runs_warmup;
	struct view_counts verdicts, primary_verdicts;
	struct view_timing timings[VIEW_PHASES];
	const json_t *runs_per_kernel;	/* {name: {ok, failed, warmup}}; NULL: none */
};
/* Its members' table (view_fields.c), the counts' and timings' with it. */
extern const struct sdoc_field view_summary_fields[];

struct view_geomean {
	const char *workload, *method;
	long metrics, skipped;
	double ratio, lo, hi, level;
	const json_t *of;	/* the metric names, an array; NULL: none, or made by the analysis */
	size_t nof;
	const char **of_names;	/* of's strings, the view's array */
};
/* Its members' table (view_fields.c); of_names is made from of. */
extern const struct sdoc_field view_geomean_fields[];

/* sequential.workloads.NAME: where a workload of a sequential session stopped. */
struct view_seq_workload {
	const char *name;	/* the key: first, as an SK_MAP element begins */
	int stopped;
	const char *why;	/* decided, max-runs, budget, below-first-look, placed; NULL: running */
	long look;
	double runs_per_kernel;
};
/* Its members' table (view_fields.c), an SK_MAP's. */
extern const struct sdoc_field view_seq_workload_fields[];

struct view_sequential {
	int present;
	size_t nworkloads;
	struct view_seq_workload *workloads;	/* in the report's order */
	const json_t *looks;	/* an array; NULL: none */
	/* workloads as its row decodes it: report_view.c moves it into workloads (empty after) */
	struct sdoc_array workloads_rows;
};
/* Its members' table (view_fields.c); present is the row's has_present. */
extern const struct sdoc_field view_sequential_fields[];

/* own_states.KERNEL of a host state: that kernel's split of the metric's cells. */
struct view_own_state {
	const char *kernel;	/* the key: first, as an SK_MAP element begins */
	double threshold, ratio, eta, slow_cells, cells;	/* NaN: none */
	int separated;
};
/* Its members' table (view_fields.c), an SK_MAP's. */
extern const struct sdoc_field view_own_state_fields[];

/*
 * The members of a host_states[] entry the renderers' sentence reads
 * (reports/SCHEMA.md "host_states[]" has them all); the rest in .json.
 */
struct view_host_state {
	const char *workload, *metric, *method;
	double slope, correlation, reference_rate;	/* NaN: none */
	int by_states, separated;
	/*
	 * modes.decidable: 0 when the runs sit at two emulator states the
	 * kernels do not share; -1 not said (reports before issue 49).
	 */
	int modes_decidable;
	size_t nown_states;
	struct view_own_state *own_states;	/* in the report's order */
	const json_t *json;
	/* own_states as its row decodes it: report_view.c moves it into own_states (empty after) */
	struct sdoc_array own_states_rows;
};
/* Its members' table (view_fields.c); json is the element itself, set as code. */
extern const struct sdoc_field view_host_state_fields[];

/* attribution (run --attribute): report_attr.c decodes and shows it. */
struct view_attr_row {
	const char *function;
	double base, patched, delta, share, spread;	/* per unit; NaN: none */
	int named;	/* past the threshold and its own spread (attr.h) */
};

struct view_attr_window {
	long window;
	double base_per_unit, patched_per_unit, base_kernel, patched_kernel;
	double noise, threshold, beyond_noise, more;	/* NaN: none */
	const char *noise_function;	/* whose spread the noise is; NULL: not said */
	double bursts;	/* bursty functions left out of the noise; NaN: not said */
	/* the primary this phase predicts (NULL: none) and both changes, in % */
	const char *accounts_metric;
	double measured_pct, predicted_pct, predicted_kernel_pct;
	size_t nrows;
	struct view_attr_row *rows;
};

/* mglrulab profile: one kernel's cost per function, largest first. */
struct view_attr_cost {
	const char *function;
	double per_unit, share, spread;	/* share of the whole; NaN: none */
};

struct view_attr_profile {
	long window;
	double per_unit, kernel_per_unit, noise, more;	/* NaN: none */
	size_t nrows;
	struct view_attr_cost *rows;
};

struct view_attr_primary {
	const char *metric, *verdict;
	double delta_pct;
};

struct view_attr_workload {
	const char *workload;
	const char *skipped, *error;	/* NULL: a table */
	double seconds[2];		/* the attribution runs' wall time, per kernel */
	double runs;			/* runs per kernel behind its tables; NaN: the first look's */
	size_t nprimaries;
	struct view_attr_primary *primaries;
	size_t nwindows;
	struct view_attr_window *windows;	/* two kernels */
	size_t nprofiles;
	struct view_attr_profile *profiles;	/* one kernel */
};

struct view_attribution {
	int present;
	const char *method, *which, *unavailable, *cannot_see;
	double runs_per_kernel;		/* at the first look */
	double confirm_runs;		/* when the first look names a function; NaN: never */
	size_t nkernels;		/* 1: profiles (mglrulab profile), 2: comparisons */
	size_t nworkloads;
	struct view_attr_workload *workloads;
};

/*
 * The effect the series claims (lab.conf [claim], session.json "claim"):
 * what the answer is read against (report_validity.c). Strings are the
 * report's, raw.
 */
struct view_claim {
	int present;
	const char *workload;		/* NULL: every workload */
	const char *metric;		/* a name or %d pattern; NULL: the primaries */
	const char *direction;		/* "higher" or "lower"; NULL: not said */
	double size_pct;		/* 2.3 for 2.3 %; NaN: not said */
	const char *mechanism;		/* mechanism.h's names; NULL: not said */
	const char *source;		/* NULL: none */
};
/* Its members' table (view_fields.c); present is the row's has_present. */
extern const struct sdoc_field view_claim_fields[];

/* A report-level warning's members (warnings[], struct result_warning), view_fields.c. */
extern const struct sdoc_field view_warning_fields[];

struct report_view {
	const char *schema;
	const char *note;		/* [run] note of the lab file; NULL: none */
	struct view_claim claim;
	/*
	 * session.json's, read through its rows (sdoc_session_fields[],
	 * sdoc_generator_fields[]); session.complete 0 only for "complete": false
	 */
	struct sdoc_session session;
	struct sdoc_generator generator;
	/* session.json's, read through its rows (sdoc_host_fields[]); cpus SDOC_NONE: not recorded */
	struct sdoc_host host;
	size_t nkernels;
	struct sdoc_kernel *kernels;	/* read through sdoc_kernel_fields[], session.json's */
	struct view_guest guest;
	size_t nworkloads;
	struct sdoc_workload *workloads;	/* session.json's rows (sdoc_workload_fields[]) */
	/*
	 * session.json's design (sdoc_design_fields[], its sequential's
	 * sdoc_sequential_fields[]) and the analysis' statistics
	 * (sdoc_statistics_fields[]): their integers 0 when absent, not
	 * SDOC_NONE, as the view has always shown them
	 */
	struct sdoc_design design;
	struct sdoc_statistics statistics;
	struct view_summary summary;
	size_t ngeomean;
	struct view_geomean *geomean;
	size_t nwarnings;
	struct result_warning *warnings;
	size_t nhost_states;
	const json_t **host_states;	/* the elements as in the report */
	struct view_host_state *host_state_recs;	/* host_states[i], typed */
	struct view_sequential sequential;
	struct view_attribution attribution;
	/*
	 * The runs, decoded once: by report_view_decode(), or handed over by
	 * the analysis that decoded them (report_analyze_view()).
	 */
	struct run_records runs;
	size_t nresults;
	struct result_record *results;
	size_t ncounters;
	struct result_record *counters;	/* counter_results */
	int several_hosts;		/* some result was analysed host by host */
	const json_t *json;		/* the report decoded */
	/* report_analyze_view(): json, owned (NULL: borrowed), and the records' strings. */
	json_t *own_json;
	struct result_strings *strings;
	/*
	 * workloads[] and geomean[] by name, then place: a renderer looks
	 * them up per workload, and a scan per lookup was quadratic in them
	 * (seconds for 10,000 workloads).
	 */
	struct view_index *workload_ix, *geomean_ix;
	/*
	 * host, guest and kernels as stored: history copies them verbatim
	 * into its digests and hashes host and guest into its context ids,
	 * whose bytes (an integer or a real) must stay those of the file.
	 * NULL: absent (a null stays the JSON null).
	 */
	const json_t *host_json, *guest_json, *kernels_json;
};

/* report_attr.c: "attribution" into @out (0, or -1 with the member that is wrong in @err). */
LAB_MUST_CHECK
int report_attr_decode(const json_t *report, struct view_attribution *out, struct strbuf *err);
void report_attr_release(struct view_attribution *a);
/*
 * @report's "attribution" member as it is (a JSON null stays one), NULL
 * when absent: what a bisection keeps of a step's report as JSON.
 */
json_t *report_attr_json(const json_t *report);
/*
 * One table of two kernels (attr_compare_json(), an element of
 * attribution.workloads[].windows) into @out, as report_attr_decode()
 * reads it: for the session that makes the table and reads it back
 * (session_attribute.c). 0, or -1 with the member that is wrong, its path
 * from @where, in @err. @out's strings point into @table.
 */
LAB_MUST_CHECK
int report_attr_window_decode(const json_t *table, const char *where,
			      struct view_attr_window *out, struct strbuf *err);
void report_attr_window_release(struct view_attr_window *w);
/* Its sections of the text and HTML reports (nothing when the report has none). */
void report_attr_text(const struct report_view *v, struct strbuf *sb);
void report_attr_html(const struct report_view *v, struct strbuf *sb);
/*
 * A few lines of @a for a bisection's culprit: per workload and phase the
 * kernel functions past the threshold with their delta and share, or that
 * none moved, or why there is no table; a <ul> when @html, else wrapped
 * text lines indented by two.
 */
void report_attr_brief(const struct view_attribution *a, struct strbuf *sb, int html);

/* An element of an index: the name, and where the element is. */
struct view_index {
	const char *name;	/* "" for none */
	size_t i;
};

/*
 * Decode @report (what report_analyze() returns) into @out. 0, or -1 with
 * the first member that is wrong and what was expected in @err
 * ("host.cpus: expected an integer, got a string";
 * "results[2].comparison.ci.lo: ..."). Either way report_view_release()
 * @out afterwards.
 */
LAB_MUST_CHECK
int report_view_decode(const json_t *report, struct report_view *out, struct strbuf *err);

/*
 * As report_view_decode(), but only the members that describe the session
 * rather than its analysis: schema, session, generator, host, kernels,
 * guest, workloads and design (the rest decode as none). For a report as
 * stored, whose results may be stale or absent and are not read: the
 * history (lab/history/history.c) of report.json files. Release @out
 * afterwards, whatever it returns.
 */
LAB_MUST_CHECK
int report_view_decode_context(const json_t *report, struct report_view *out,
			       struct strbuf *err);

/* Frees what @v holds; @v may then be decoded into again. */
void report_view_release(struct report_view *v);

/*
 * The analysis of @session (report_analyze()) as a view, with no JSON tree
 * per result: out->json is the report without "results",
 * "counter_results" and "geomean" (owned by the view), its context and
 * summary decoded from it, and out->results, out->counters and
 * out->geomean the analysis's own records (their json and of NULL). 0, or
 * -1 with why in @err. Either way report_view_release() @out afterwards;
 * @session must outlive it.
 */
LAB_MUST_CHECK
int report_analyze_view(const json_t *session, struct report_view *out, struct strbuf *err);

/*
 * The analysis' records alone, for a reader that needs no report (the
 * stopping rule's looks): the results and counter results
 * report_analyze_view() would hold, the same records member for member
 * (its analysis, shared: tests/unit/test_view_runs.c), made without the
 * report's shell, its warnings, summary and geometric means, or a view.
 * @in is what the analysis reads of the session (session_input_from_doc()
 * of a running session's document, or session_input_decode()); @runs its
 * runs, decoded. Both checked against each other already
 * (report_validate_doc(), report.h): nothing is checked here, so it
 * cannot fail. The records' strings are @strings' or point into @in's and
 * @runs' strings, which must outlive @out; release with
 * report_results_release().
 */
struct report_results {
	struct result_record *results, *counters;
	size_t nresults, ncounters;
	struct result_strings *strings;
};
struct session_input;
void report_analyze_results(const struct session_input *in, const struct run_records *runs,
			    struct report_results *out);
void report_results_release(struct report_results *r);

/*
 * The report as one JSON tree, what report_analyze() returns: the json of
 * @v (from report_analyze_view(); shared, shallowly copied) with its
 * records encoded as "results", "counter_results" and "geomean" before
 * "host_states" (report_encode.c).
 */
json_t *report_view_tree(const struct report_view *v);

/*
 * report_dump() of report_view_tree(@v), written member by member into
 * @out: one result at a time is encoded, dumped and freed, and
 * sb_flush_point() is called after each, so that a large report is never
 * whole in memory as a tree or as text.
 */
void report_view_dump(const struct report_view *v, struct strbuf *out);

/* The workload declared as @name (the first of that name); NULL: none. */
const struct sdoc_workload *report_view_workload(const struct report_view *v, const char *name);

/*
 * The geomean[] entries of workload @name, in report order: *@n elements
 * of the index whose .i is a place in v->geomean.
 */
const struct view_index *report_view_geomeans(const struct report_view *v, const char *name,
					      size_t *n);

/*
 * What report_analyze() reads of its input session (or of a stored report
 * it analyses again), beyond the runs (report_validate_runs() decodes
 * those): decoded once by session_input_decode(), after report_validate()
 * passed, or made from a running session's document by
 * session_input_from_doc(), after report_validate_doc(). Unlike the view it is lenient where the analysis always was:
 * what report_validate() does not check and is not of the expected type
 * reads as "none" (NaN numbers, the defaults below for strings), and the
 * settings' numbers, integers or not, are doubles: the analysis then
 * falls back to its defaults for a setting out of range, as it did.
 */
struct input_metric_decl {
	const char *name;	/* "" when not a string */
	const char *unit;	/* "" when none */
	int better_lower;	/* better: "lower" */
	double threshold;	/* NaN: none */
};

struct input_workload {
	const json_t *json;		/* the element, as it is */
	const char *name, *type;	/* "" when not a string */
	double threshold;		/* NaN: none */
	size_t nprimary;
	const char **primary;		/* the string elements of primary[] */
	size_t nmetrics;
	struct input_metric_decl *metrics;
};

/* statistics.*: NaN when absent or not a number. */
struct input_statistics {
	double alpha, confidence, resamples, counter_resamples, threshold;
	double max_failed_fraction, power, min_runs, seed;
	int has_int_seed;		/* seed is an integer: int_seed, exactly */
	long long int_seed;
	const char *threshold_source;	/* NULL: none */
};

/* design.sequential, as numbers (NaN: absent) for stats_seq_plan_check(). */
struct input_seq_plan {
	int present;			/* an object */
	double alpha, min_runs, max_runs, step, rho, budget_s;
};

struct session_input {
	const char *baseline;		/* "" when none */
	const char *patched;		/* NULL: a one-kernel session */
	struct input_statistics statistics;
	struct input_seq_plan sequential;
	const char *accel;		/* host.accel; NULL: none */
	const char *accel_reason;	/* NULL: none */
	const char *id, *created;	/* session.id, session.created; NULL: none */
	/* Members a comparison of sessions copies as they are; NULL: absent. */
	const json_t *host_json, *guest_json, *statistics_json;
	const json_t *runs_json;	/* for run_records_decode() */
	const json_t *runs_per_kernel, *seed;	/* design.* */
	int incomplete;			/* session.complete is false */
	int has_icount_shift;		/* guest.icount_shift is an integer */
	size_t nplan;			/* elements of plan[] */
	size_t nworkloads;
	struct input_workload *workloads;
};

/*
 * Decode the members of @session the analysis reads into @out; the
 * strings point into @session. Release with session_input_release().
 */
void session_input_decode(const json_t *session, struct session_input *out);

/*
 * The same input of a session's typed document (session_doc.h: decoded
 * once, its types checked), for the stopping rule's looks, which analyse
 * the session as it runs without its tree. Every member the analysis
 * reads equals session_input_decode()'s of the tree @doc was decoded from
 * (tests/unit/test_session_input.c holds the two to that). Left NULL,
 * because the document has no tree of them and only a comparison of
 * sessions (report_compare_session()) reads them: host_json, guest_json,
 * statistics_json, runs_json, runs_per_kernel, seed and each workload's
 * json. The strings point into @doc's (into the tree it was decoded
 * from). Release with session_input_release().
 */
struct session_doc;
void session_input_from_doc(const struct session_doc *doc, struct session_input *out);
void session_input_release(struct session_input *in);

/* design.sequential of @session, as session_input_decode() reads it. */
void input_seq_plan_decode(const json_t *session, struct input_seq_plan *out);

/* design.sequential of a session's document, as session_input_from_doc() reads it. */
struct sdoc_sequential;
void input_seq_plan_from_doc(const struct sdoc_sequential *sq, struct input_seq_plan *out);

/*
 * The sequential plan of design.sequential as the analysis reads it
 * (@in, input_seq_plan_decode() or input_seq_plan_from_doc()): 1 with
 * *@plan filled (and *@budget_s, 0 = none, when not NULL); 0 for a fixed-N
 * session; -1 when the plan is there but invalid. The analysis and a
 * running session's stopping rule (session_seq.c) both read it here.
 */
struct stats_seq_plan;
LAB_MUST_CHECK
int report_seq_plan(const struct input_seq_plan *in, struct stats_seq_plan *plan, double *budget_s);

/* One workloads[] element, as session_input_decode() reads it. */
void input_workload_decode(const json_t *w, struct input_workload *out);
void input_workload_release(struct input_workload *w);

#endif
