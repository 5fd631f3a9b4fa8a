/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bisect.json, typed: its one definition. A table per object
 * (bisect_doc_fields[] and the rows it points to, bisect_doc.c) drives
 * its encoder, its decoder and the decoder's type checks through
 * session_doc.h's sdoc_fields_*(), as session_doc_fields[] does for
 * session.json. It is also the bisection's state: the bisection keeps a
 * struct bisect_doc, changes it through the writers below and encodes it
 * after each change. The rows are in the order bisect.c has always
 * written the members (start(), then confirm(), then bisect_finish()),
 * so the file encoded from a decoded struct is the file, byte for byte
 * (tests/unit/test_bisect_doc.c holds the fixture and docs/bisect.md's
 * table to the rows).
 *
 * What the table does not say, bisect_doc_load() checks: ranges, a
 * step's folder inside the bisection's, the count of patches. The prefixes
 * are an object keyed by K, an SK_JSON row whose entries
 * bisect_doc_decode() checks against bisect_prefix_fields[].
 *
 * Whose strings and JSON: decoded, the strings and SK_JSON members point
 * into the JSON they came from (bisect_doc_load() keeps it in @owned);
 * written, the bisection's state (bisect_priv.h), into copies the writers
 * below keep in the document itself (@strings, @json). Either way they
 * live until bisect_doc_release(), which also frees the arrays the
 * decoder and the writers allocated (sdoc_fields_release()).
 *
 * Three members stay JSON (SK_JSON), each read by the encoder and one
 * reader through one accessor, so a typed member would add a table and
 * no check: settings.workloads (resume() alone), prefixes (an object
 * keyed by K, whose member order is the build order; read through
 * bisect_doc_prefix_at()) and result.attribution (a step report's
 * member, read by report_attr_decode() in bisect_html.c). The writers
 * never change a JSON value the document points to: a prefix set makes
 * a new prefixes object.
 */
#ifndef LAB_BISECT_DOC_H
#define LAB_BISECT_DOC_H

#include <jansson.h>

#include "session_doc.h"
#include "strbuf.h"
#include "util.h"

/* One element of a step's results, of tracked, own_effect and remaining. */
struct bisect_doc_result {
	const char *workload, *metric;
	int primary;			/* -1: absent */
	const char *verdict;		/* stats_verdict_id() */
	double delta_pct, ci_lo_pct, ci_hi_pct;	/* NaN: null (always written) */
};

/* One element of steps[]: a step session. */
struct bisect_doc_step {
	long long step;			/* from 1 */
	const char *purpose, *a, *b, *dir;
	const char *state;		/* running, done or failed */
	const char *session;		/* NULL: none yet */
	struct sdoc_array results;	/* of struct bisect_doc_result; absent: not measured */
};

/* One element of patches[], and result.patch (present: it is there). */
struct bisect_doc_patch {
	int present;
	long long position;
	const char *subject, *message_id;	/* NULL: null (the mail has none) */
	const char *file;
};

/* prefixes["K"]: one prefix's build (checked, not kept: the row is SK_JSON). */
struct bisect_doc_prefix {
	const char *kernel;
	int builds, cache_hit;		/* -1: absent */
	const char *key;
	double seconds;
};

/* One element of probes[]. */
struct bisect_doc_probe {
	long long prefix;
	const char *cls;		/* "class": bisect_class_name() */
};

/* One element of result.waterfall (--per-patch). */
struct bisect_doc_wf_step {
	long long from, to;
	const char *a, *b;
	struct sdoc_array results;	/* of struct bisect_doc_result */
};

struct bisect_doc_settings {
	long long max_runs;
	double budget_s;
	int per_patch;
	const json_t *workloads;	/* an array of workload names */
	const char *attribute;		/* off, changed, all; NULL: absent (off) */
};

/* result: how the bisection ended. */
struct bisect_doc_end {
	int present;
	const char *outcome;
	long long first, last, probes, culprit;
	struct bisect_doc_patch patch;
	long long split;
	struct sdoc_array own_effect;	/* of struct bisect_doc_result */
	const json_t *attribution;	/* the own step's report's member */
	struct sdoc_array remaining;	/* of struct bisect_doc_result; null: not measured */
	struct sdoc_array waterfall;	/* of struct bisect_doc_wf_step */
};

struct bisect_doc {
	const char *schema;		/* BISECT_SCHEMA */
	const char *config;
	const char *baseline, *series_kernel;
	long long n;
	struct bisect_doc_settings settings;
	struct sdoc_array steps;	/* of struct bisect_doc_step */
	const json_t *prefixes;		/* {"K": struct bisect_doc_prefix} */
	struct sdoc_array probes;	/* of struct bisect_doc_probe */
	int complete;
	struct sdoc_array patches;	/* of struct bisect_doc_patch */
	struct sdoc_array tracked;	/* of struct bisect_doc_result */
	struct bisect_doc_end result;
	/*
	 * Not members of the file: what the strings and JSON members point
	 * into, freed by bisect_doc_release(). @owned: the tree
	 * bisect_doc_load() read (NULL when decoded from a tree the caller
	 * keeps); @strings and @json: the copies of what the writers were
	 * given (bisect_doc_keep(), bisect_doc_keep_json(); @json an array,
	 * NULL until the first).
	 */
	json_t *owned;
	struct strvec strings;
	json_t *json;
};

/* The top level, in the order bisect.json has always been written, ending in { NULL }. */
extern const struct sdoc_field bisect_doc_fields[];
/* A prefix's entry in prefixes; an element of steps[]. */
extern const struct sdoc_field bisect_prefix_fields[];
extern const struct sdoc_field bisect_doc_step_fields[];

/* Every member absent, nothing kept. */
void bisect_doc_init(struct bisect_doc *d);

/* bisect.json of @d: the members that are not absent, in the table's order. */
json_t *bisect_doc_encode(const struct bisect_doc *d);

/*
 * @j into @d, every member's type checked by the tables (the prefixes'
 * entries too); 0, or -1 with the first member that is not what the table
 * says, by its JSON path, in @err ("steps[1].dir: expected a string, got
 * an integer"), and @d left absent.
 */
LAB_MUST_CHECK
int bisect_doc_decode(const json_t *j, struct bisect_doc *d, struct strbuf *err);

/*
 * Free the arrays bisect_doc_decode() and the writers allocated, the copies
 * the writers kept and the tree bisect_doc_load() read; @d is left absent.
 */
void bisect_doc_release(struct bisect_doc *d);

/*
 * prefixes["@k"] decoded by bisect_prefix_fields[] into @out (its strings
 * @d's): 0, or -1 when there is none (not built yet) and @out absent.
 */
int bisect_doc_prefix_at(const struct bisect_doc *d, long k, struct bisect_doc_prefix *out);
/* patches[@k - 1]: patch @k of the series, or NULL out of range. */
const struct bisect_doc_patch *bisect_doc_patch_at(const struct bisect_doc *d, long k);
/* An SK_INT member as a long: 0 when absent (SDOC_NONE), as the readers always took it. */
static inline long bisect_doc_long(long long v)
{
	return v == SDOC_NONE ? 0 : (long)v;
}

/*
 * The state's writers: the bisection's bisect.json (bisect_priv.h) as a
 * struct, begun by bisect_doc_begin() and added to as the bisection goes,
 * its arrays grown here. Each writer copies what it is given into @d:
 * the strings (bisect_doc_keep()), the arrays (their elements' strings
 * too) and the JSON, so the caller's may go as soon as it returns. The
 * member order is the table's, so the file encoded after each change is
 * the file the bisection has always written.
 */
/*
 * A copy of @s that @d keeps (NULL: NULL), as bisect.json holds it:
 * invalid UTF-8 replaced, as json_string_lossy() writes it, so that the
 * state read back on --resume has the bytes this bisection's had.
 */
const char *bisect_doc_keep(struct bisect_doc *d, const char *s);
/* @j (its reference taken; NULL: NULL) kept by @d; @j. */
const json_t *bisect_doc_keep_json(struct bisect_doc *d, json_t *j);
/*
 * @d (initialised, empty) as a bisection begins: @first's inputs,
 * settings, complete and patches; steps[], probes[] and prefixes present
 * and empty. @first's steps, prefixes, probes, tracked and result are not
 * read: a bisection begins with none.
 */
void bisect_doc_begin(struct bisect_doc *d, const struct bisect_doc *first);
/* @st (results and session absent: running) at the end of steps[]; its index. */
size_t bisect_doc_add_step(struct bisect_doc *d, const struct bisect_doc_step *st);
/*
 * steps[@i] measured: its @session, @results and done; NULL @results:
 * failed (results it had are kept, as bisect.json always kept them). A
 * step's results array before this call is freed.
 */
void bisect_doc_step_measured(struct bisect_doc *d, size_t i, const char *session,
			      const struct sdoc_array *results);
/* prefixes["@k"] = @p (encoded into a new prefixes object). */
void bisect_doc_set_prefix(struct bisect_doc *d, long k, const struct bisect_doc_prefix *p);
/* @p at the end of probes[]. */
void bisect_doc_add_probe(struct bisect_doc *d, const struct bisect_doc_probe *p);
/* tracked = @tracked: the confirm step's decisive results. */
void bisect_doc_set_tracked(struct bisect_doc *d, const struct sdoc_array *tracked);
/* result = @end, and complete. */
void bisect_doc_set_result(struct bisect_doc *d, const struct bisect_doc_end *end);

/*
 * result, as the bisection fills it before bisect_doc_set_result(): present,
 * every member absent. Its arrays are its own (bisect_doc_results_copy(),
 * bisect_doc_results()); bisect_doc_end_release() frees them, not the
 * strings or the attribution, which are the caller's.
 */
void bisect_doc_end_init(struct bisect_doc_end *end);
void bisect_doc_end_release(struct bisect_doc_end *end);
/*
 * A step's results (bisect_step_results(), JSON) as an array of struct
 * bisect_doc_result into @out, its strings @arr's; NULL @arr: absent.
 * 0, or -1 (@out absent) when an element is not a result.
 */
LAB_MUST_CHECK int bisect_doc_results(const json_t *arr, struct sdoc_array *out);
/* A results array of @src's elements (their strings still @src's), its own array. */
struct sdoc_array bisect_doc_results_copy(const struct sdoc_array *src);
/* Free a results array of bisect_doc_results() or bisect_doc_results_copy(); absent. */
void bisect_doc_results_release(struct sdoc_array *a);

#endif
