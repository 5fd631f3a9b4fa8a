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
#include "bisect_search.h"
#include "config.h"
#include "seq_state.h"
#include "strbuf.h"

#include <jansson.h>

struct bisect_doc;
struct bisect_doc_end;

struct bisect {
	struct bisect_opts *o;
	struct lab_config cfg;
	char *dir;
	json_t *state;			/* bisect.json */
	const char *base, *series;	/* kernel names (in state) */
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
json_t *bisect_report_results(const char *session_dir, struct strbuf *err);
int bisect_decisive(const struct step_result *r);
int bisect_any_primary(const struct step_results *rs);
const char *bisect_invalid_metric(const json_t *results);
struct bisect_head bisect_head_of(const struct bisect *bs);
json_t *bisect_find_step(struct bisect *bs, const char *a, const char *b, struct bisect_step *out);
json_t *bisect_add_step(struct bisect *bs, const char *purpose, const char *a, const char *b,
			struct bisect_step *st);
json_t *bisect_step_report(const struct bisect *bs, const struct bisect_step *st,
			   struct strbuf *err);
LAB_MUST_CHECK int bisect_run_step(struct bisect *bs, const char *purpose, const char *a,
				   const char *b, const struct seq_placements *place, int attribute,
				   json_t **results);
LAB_MUST_CHECK int bisect_build_prefix(struct bisect *bs, long k, enum prefix_build *out);

/* bisect_confirmed.c: --confirmed, a session that is the confirm step */
struct bisect_confirmed {
	char *real;		/* the session's folder, resolved */
	json_t *results;	/* its results (bisect_report_results()) */
};
/*
 * Whether bs->o->confirmed is a usable session of @base against @series:
 * in the reports folder, its report's design naming them, no primary
 * invalid. Its folder and results in @out (released on an error).
 */
LAB_MUST_CHECK int bisect_confirmed_check(struct bisect *bs, const char *base, const char *series,
					  struct bisect_confirmed *out);
/* bs->base against bs->series: @c becomes the confirm step (its results move to the step). */
LAB_MUST_CHECK int bisect_adopt_confirmed(struct bisect *bs, struct bisect_confirmed *c);
void bisect_confirmed_release(struct bisect_confirmed *c);

/* bisect_decide.c: the search's oracle and what it tracks */
enum bisect_class bisect_oracle(long k, void *data);
json_t *bisect_tracked_metrics(const json_t *results);

/* bisect_text.c: the summary */
void bisect_fmt_effect(struct strbuf *sb, const struct step_result *r);
void bisect_fmt_tracked(struct strbuf *sb, const json_t *tracked, const json_t *results);
const json_t *bisect_patch_at(const struct bisect *bs, long k);
void bisect_fmt_patch(struct strbuf *sb, const struct bisect *bs, long k);
json_t *bisect_results_of(struct bisect *bs, const char *a, const char *b);
/*
 * The state as the readers take it (bisect_html(), bisect_summary_json()):
 * bs->state decoded by its table into @d (bisect_doc_release()); LAB_OK,
 * or LAB_ELAB said (this bisection wrote something its table refuses).
 */
LAB_MUST_CHECK int bisect_state_doc(const struct bisect *bs, struct bisect_doc *d);
/* result = @end (bisect_doc.h), then bisect.txt, bisect.html and the summary on stdout. */
LAB_MUST_CHECK int bisect_finish(struct bisect *bs, const struct bisect_doc_end *end,
				 struct strbuf *text);

#endif
