/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session report: a versioned JSON document ("mglrulab-report/2", see
 * reports/SCHEMA.md) holding the context and EVERY raw run of a session, plus
 * the results computed from them. Outputs (HTML, text, benchfmt) are always
 * regenerated from that JSON alone, so anyone holding report.json can
 * reproduce, audit or re-render the report.
 *
 * The session runner builds a "session" object (everything except
 * "results", "counter_results", "geomean" and "summary") and hands it to
 * report_analyze(); `mglrulab report` loads a file with report_load() and
 * re-runs report_analyze() on it, ignoring any stored results.
 */
#ifndef LAB_REPORT_H
#define LAB_REPORT_H

#include "util.h"

#include <jansson.h>

#include "strbuf.h"

/*
 * 2: verdict families (primary metrics declared before the first run,
 * secondary metrics, counters) each with its own multiplicity correction,
 * and sequential sessions. Files of schema 1 still load and are analysed
 * by the same rules (they declare no primaries: one metric family).
 */
#define REPORT_SCHEMA "mglrulab-report/2"
#define REPORT_SCHEMA_V1 "mglrulab-report/1"

/*
 * A session that does not record a statistics setting: stats_defaults.h,
 * which also holds the bootstrap replicates allowed (STATS_MIN_RESAMPLES,
 * STATS_MAX_RESAMPLES) for lab.conf's [stats] resamples and a report's
 * statistics.resamples and counter_resamples alike: one limit, checked
 * where the file is read, so the analysis never has to ignore it.
 */

/*
 * Check that @root is a session or report of schema 1: required fields are
 * present with the right JSON types, unknown fields are ignored. On failure
 * returns -1 and appends one line naming the JSON path to @err, e.g.
 * "runs[3].metrics.ops_per_sec: expected a number or null, got a string".
 */
LAB_MUST_CHECK
int report_validate(const json_t *root, struct strbuf *err);

/*
 * What report_validate() checks of a session and its runs, for a
 * session's typed document @doc (session_doc_decode() checked its
 * members' types, which are not checked again) and its runs decoded
 * already (@runs, run_records_decode() without kernel names): the
 * schema's name, at least one kernel and each name once, each metric's
 * better, design.baseline and design.patched naming two kernels, the
 * resamples in their limits, and the runs agreeing with the session
 * (each names one of its kernels, at most REPORT_MAX_HOSTS hosts, each
 * seq once). Refused as report_validate() refuses the same thing, in the
 * same words ("runs[11].kernel: no kernel named ..."): 0, or -1 with why
 * in @err. Not checked, because neither the analysis nor a look reads
 * them and the session's end validates its report whole: the guest's
 * nodes, kept as JSON by the document.
 */
struct session_doc;
struct run_records;
LAB_MUST_CHECK
int report_validate_doc(const struct session_doc *doc, const struct run_records *runs,
			struct strbuf *err);

/*
 * Read and validate @path. On success *@out holds a new reference and 0 is
 * returned; on failure -1 with the reason in @err ("FILE: ..." for I/O and
 * syntax errors with line and column, the JSON path for schema errors).
 */
LAB_MUST_CHECK
int report_load(const char *path, json_t **out, struct strbuf *err);
/*
 * A report bigger than this is not something a session writes (RECORD_MAX_*
 * and COUNTERS_MAX_* bound a run). Loading takes about 20 times a file's
 * size in memory (jansson's tree), so this also bounds the loader's RSS.
 */
#define REPORT_MAX_BYTES	(512u << 20)
/*
 * Distinct runs[].host names a report may hold: each is a stratum of every
 * metric, with its own bootstrap (docs/reports.md, "Several hosts").
 */
#define REPORT_MAX_HOSTS	256
/* Same, from a buffer (the fuzz target and tests use this). */
LAB_MUST_CHECK
int report_load_buffer(const char *buf, size_t len, json_t **out, struct strbuf *err);

/*
 * Compute the results of a validated @session and return a new report: a
 * shallow copy of @session (the members it keeps are shared: change
 * neither while both live) with "statistics" completed with the settings
 * actually used, and "results", "counter_results", "geomean", "warnings" and
 * "summary" (re)computed. Benjamini-Hochberg q-values are taken across all
 * metrics of the report (counters form their own family). Deterministic:
 * the same input gives the same output, byte for byte once dumped.
 * Returns NULL with the reason in @err when @session does not validate.
 */
LAB_MUST_CHECK
json_t *report_analyze(const json_t *session, struct strbuf *err);

/*
 * Two sessions as one: the runs of kernel @ka of session @a (NULL: its
 * design.patched, else its baseline) become the baseline "A:<ka>", those of
 * @kb of @b the patched "B:<kb>", renumbered A's first (original number in
 * "source_seq"), blocks dropped. Host, guest and statistics settings are
 * B's; host.accel is "mixed" when the two differ. Feed the result to
 * report_analyze(). NULL with the reason in @err when a kernel is unknown.
 * @a and @b must have passed report_validate(). The runs, kernels, host
 * and A's workloads are copies; B's "guest", "statistics", design.seed and
 * design.runs_per_kernel, and the workloads only B has, are shared with
 * @b: change neither while both live.
 */
LAB_MUST_CHECK
json_t *report_compare_session(const json_t *a, const json_t *b, const char *ka,
			       const char *kb, struct strbuf *err);

/*
 * The element of @obj's array @member whose "name" is @name, or NULL:
 * kernels[] and workloads[] of a session are looked up this way
 * (view_decode.c, with the decoders: the one reading by key).
 */
json_t *report_find_named(const json_t *obj, const char *member, const char *name);

/*
 * How @session declares @metric of @workload, by the rules the analysis
 * uses (the metric's declaration, else the built-in workload definition):
 * 1 higher is better, 0 lower is better, -1 not declared anywhere. *@unit
 * (may be NULL) points into @session or a static table; *@primary is 1 for
 * a primary metric.
 */
int report_metric_info(const json_t *session, const char *workload, const char *metric,
		       const char **unit, int *primary);

/*
 * The head every mglrulab HTML page shares: doctype, the Content Security
 * Policy (no scripts, nothing loaded from anywhere), the light/dark and
 * print styles, then @extra_css, the escaped @title and <body>.
 */
void report_html_begin(struct strbuf *sb, const char *title, const char *extra_css);

/*
 * Renderers: append the whole document to @out, from a view (report_view.h)
 * decoded (report_view_decode()) or made by report_analyze_view():
 * `mglrulab report`, `compare` and the session's end analyse once and
 * render every output from the one view.
 */
struct report_view;
void report_render_html_view(const struct report_view *v, struct strbuf *out);
void report_render_text_view(const struct report_view *v, struct strbuf *out);
/* What the Go benchmark format may add (docs/reports.md, "Go benchmark format"). */
struct report_benchfmt_opts {
	int counters;		/* each run's counters after its metrics */
};
/* @opts NULL: the defaults, all 0. */
void report_render_benchfmt_view(const struct report_view *v,
				 const struct report_benchfmt_opts *opts, struct strbuf *out);

/*
 * Dump @report the way every mglrulab JSON file is written (2-space indent,
 * keys in insertion order, trailing newline).
 */
void report_dump(const json_t *report, struct strbuf *out);

/* ---- For the stages that print or re-derive results (history, session). ---- */

/*
 * Numbers for humans: @sig significant digits without an exponent for the
 * magnitudes benchmarks produce, "-" for NaN. Locale-independent (reports
 * must be byte-identical everywhere).
 */
void fmt_num(char *buf, size_t size, double v);
/* "+2.3%" / "-0.7%" / "+0.0%"; "-" for NaN. */
void fmt_pct(char *buf, size_t size, double pct);
/* An interval of a ratio as percent changes: "[-0.4%, +2.1%]". */
void fmt_ratio_ci(char *buf, size_t size, double lo, double hi);
/* p-values: "0.003", "<0.001", "-" for NaN. */
void fmt_p(char *buf, size_t size, double p);

/* Verdict ids (stats_verdict_id) to their display symbol ("+", "-", "~" ...). */
const char *verdict_symbol(const char *id);

/*
 * What the report's warnings say of a derived metric (its host_states[]
 * entry), with the numbers as that entry has them: NaN for null.
 */
struct hoststate_note {
	const char *workload;	/* the session's */
	char *metric;		/* allocated */
	double slope, reference_p, slow_share_p, bias_bound_pct, bias_limit_pct;
	double shift_ratio, shift_lo, shift_hi;	/* reference_shift */
	int refused, by_states;
	char *modes_line;	/* emulator states found: the warning's text; NULL: none */
	const char *undecidable;	/* states the runs cannot be compared in (static); NULL */
	size_t runs_between[2];	/* runs with every cell between the emulator states' cores:
				   no value in a state, left out, not failed */
};

struct hoststate_notes {
	struct hoststate_note *v;
	size_t n, alloc;
};

void hoststate_notes_release(struct hoststate_notes *notes);

/*
 * Host-state adjusted metrics (report_hoststate.c) of every run of
 * @session, decoded in @runs (run_records_decode() of its "runs"), for the
 * kernels @kname (kname[1] NULL: one kernel): an array parallel to the
 * runs, element i an object of run i's derived metric values (often
 * empty); *info gets one description per derived metric.
 */
struct run_records;
json_t *report_hoststate(const json_t *session, const struct run_records *runs,
			 const char *const kname[2], json_t **info);

/*
 * report_hoststate() of a session already decoded (session_input_decode());
 * @notes (may be NULL) gets what *info says, typed, for the warnings.
 */
struct session_input;
json_t *report_hoststate_of(const struct session_input *session, const struct run_records *runs,
			    const char *const kname[2], json_t **info,
			    struct hoststate_notes *notes);

#endif
