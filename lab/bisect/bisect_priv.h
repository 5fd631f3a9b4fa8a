/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of `mglrulab bisect` share, and nothing outside
 * lab/bisect/ includes: bisect.c (the command, its setup and bisect.json
 * kept on disk, the search and the per-patch walk), bisect_steps.c (the
 * steps as sessions, the prefixes built), bisect_confirmed.c (a session
 * given as the confirm step), bisect_decide.c (what a prefix's
 * two sessions decide) and bisect_text.c (the summary: bisect.txt,
 * bisect.html and what ends a bisection).
 */
#ifndef LAB_BISECT_PRIV_H
#define LAB_BISECT_PRIV_H

#include "bisect.h"
#include "bisect_doc.h"
#include "bisect_search.h"
#include "config.h"
#include "seq_state.h"
#include "strbuf.h"

#include <jansson.h>

struct bisect {
	struct bisect_opts *o;
	struct lab_config cfg;
	char *dir;
	/*
	 * The state, bisect.json as a struct: begun by begin_state() or read
	 * by bisect_doc_load() on --resume (doc.schema NULL: neither yet),
	 * changed only through bisect_doc.h's writers, and encoded by
	 * bisect_save() after each change. Its strings live as long as it.
	 */
	struct bisect_doc doc;
	const char *base, *series;	/* kernel names (doc's) */
	long n;				/* patches in the series */
	int base_is_prefix0;		/* series@0 is the baseline's cache entry */
	/*
	 * bisect.json says the bisection ended: the walk only reads back what
	 * it recorded to print the summary, and builds nothing (the prefixes
	 * may have left the kernel cache since).
	 */
	int complete;
	int status;			/* why a step stopped the bisection */
	int lock_fd;
	int saved_stdout;		/* stdout is the summary's: builds talk on stderr */
	/*
	 * The cache entries of the prefixes built, held (kcache.h) until the
	 * bisection ends: `kernel gc` would otherwise remove them (no kernel
	 * of lab.conf resolves to NAME@K) between two steps that boot them.
	 */
	int *holds;
	size_t nr_holds;
};

/* What building a prefix came to, when its status is LAB_OK (bisect_build_prefix()). */
enum prefix_build {
	PREFIX_BUILT,		/* in the cache, held until the bisection ends */
	PREFIX_UNBUILDABLE,	/* its inputs make no kernel: recorded, skipped */
};

/* bisect.c */
LAB_MUST_CHECK int bisect_save(struct bisect *bs);
void bisect_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *bisect_prefix_name(const struct bisect *bs, long k);

/* bisect_steps.c: a step's results, its session, the prefixes */
/*
 * The step results of <session_dir>/report.json (bisect_step_results())
 * typed into @out (bisect_doc_results_release()), its strings pointing
 * into the JSON returned, the caller's to json_decref(); NULL with why in
 * @err.
 */
json_t *bisect_report_results(const char *session_dir, struct sdoc_array *out,
			      struct strbuf *err);
int bisect_decisive(const struct step_result *r);
int bisect_any_primary(const struct step_results *rs);
const char *bisect_invalid_metric(const struct sdoc_array *results);
/* The index in bs->doc's steps[] of the step of @a against @b, or -1. */
long bisect_step_index(const struct bisect *bs, const char *a, const char *b);
/* That step, or NULL; the pointer is good until a step is added. */
const struct bisect_doc_step *bisect_find_step(const struct bisect *bs, const char *a,
					       const char *b);
/* A new step of @a against @b, running, at the end of steps[]; its index. */
size_t bisect_add_step(struct bisect *bs, const char *purpose, const char *a, const char *b);
json_t *bisect_step_report(const struct bisect *bs, const struct bisect_doc_step *st,
			   struct strbuf *err);
/*
 * Run (or resume, or read back) the step of @a against @b; its results in
 * *@results, borrowed from bs->doc (good until that step is measured
 * again, which a bisection does only before it reads them).
 */
LAB_MUST_CHECK int bisect_run_step(struct bisect *bs, const char *purpose, const char *a,
				   const char *b, const struct seq_placements *place, int attribute,
				   struct sdoc_array *results);
LAB_MUST_CHECK int bisect_build_prefix(struct bisect *bs, long k, enum prefix_build *out);

/* bisect_confirmed.c: --confirmed, a session that is the confirm step */
struct bisect_confirmed {
	char *real;		/* the session's folder, resolved */
	struct sdoc_array results;	/* its results (bisect_report_results()) */
	json_t *json;		/* what their strings point into */
};
/*
 * Whether bs->o->confirmed is a usable session of @base against @series:
 * in the reports folder, its report's design naming them, no primary
 * invalid. Its folder and results in @out (released on an error).
 */
LAB_MUST_CHECK int bisect_confirmed_check(struct bisect *bs, const char *base, const char *series,
					  struct bisect_confirmed *out);
/* bs->base against bs->series: @c becomes the confirm step (its results copied to the step). */
LAB_MUST_CHECK int bisect_adopt_confirmed(struct bisect *bs, struct bisect_confirmed *c);
void bisect_confirmed_release(struct bisect_confirmed *c);

/* bisect_decide.c: the search's oracle and what it tracks */
enum bisect_class bisect_oracle(long k, void *data);
/* The decisive results of @results a bisection tracks, a new array of its elements. */
struct sdoc_array bisect_tracked_metrics(const struct sdoc_array *results);

/* bisect_text.c: the summary */
void bisect_fmt_effect(struct strbuf *sb, const struct step_result *r);
void bisect_fmt_tracked(struct strbuf *sb, const struct sdoc_array *tracked,
			const struct sdoc_array *results);
void bisect_fmt_patch(struct strbuf *sb, const struct bisect *bs, long k);
/* The results of the step of @a against @b, measured; NULL: no such step, or not measured. */
const struct sdoc_array *bisect_results_of(const struct bisect *bs, const char *a, const char *b);
/* result = @end (bisect_doc.h), then bisect.txt, bisect.html and the summary on stdout. */
LAB_MUST_CHECK int bisect_finish(struct bisect *bs, const struct bisect_doc_end *end,
				 struct strbuf *text);

#endif
