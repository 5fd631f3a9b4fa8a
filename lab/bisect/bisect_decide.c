// SPDX-License-Identifier: GPL-2.0
/*
 * What a prefix's two sessions decide: its class against the baseline and
 * the series' end, the midpoint rule when they do not tell, the oracle
 * bisect_search() asks and the metrics the whole series moved.
 */
#include "bisect_priv.h"
#include "bisect_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Which side of the change prefix @k is on, from the two sessions: the
 * baseline against it and it against the series' end. Per tracked metric,
 * "differs" is an improvement or regression verdict; a metric that
 * differs from the end only is at the baseline, from the baseline only at
 * the end, from both between (the change is spread), from neither
 * undecided. Metrics that disagree make the prefix "between" too: the
 * patches moved them at different places.
 */
static enum bisect_class classify(const struct sdoc_array *tracked,
				  const struct sdoc_array *from_base,
				  const struct sdoc_array *to_end)
{
	struct step_results t, fb, te;
	int *db, *de;
	enum bisect_class c;

	step_results_of(tracked, &t);
	step_results_of(from_base, &fb);
	step_results_of(to_end, &te);
	db = xcalloc(t.n + 1, sizeof(int));
	de = xcalloc(t.n + 1, sizeof(int));
	for (size_t i = 0; i < t.n; i++) {
		db[i] = bisect_decisive(step_results_find(&fb, t.v[i].workload, t.v[i].metric));
		de[i] = bisect_decisive(step_results_find(&te, t.v[i].workload, t.v[i].metric));
	}
	c = bisect_classify(db, de, (int)t.n);
	free(db);
	free(de);
	step_results_release(&t);
	step_results_release(&fb);
	step_results_release(&te);
	return c;
}

/* Record prefix @k's class in bisect.json: LAB_OK, or LAB_ELAB (said) when it cannot be written. */
static int record_probe(struct bisect *bs, long k, enum bisect_class c)
{
	const struct bisect_doc_probe *v = bs->doc.probes.v;

	for (size_t i = 0; i < bs->doc.probes.n; i++)
		if (v[i].prefix == k)
			return LAB_OK;
	bisect_doc_add_probe(&bs->doc, &(struct bisect_doc_probe){ k, bisect_class_name(c) });
	return bisect_save(bs);
}

/*
 * Where each tracked metric's midpoint lies: the geometric middle of the
 * series' whole change (the confirming step's), which a probe's first
 * session places its prefix against. A metric whose change is not a
 * finite ratio other than 1 gets none.
 */
static void midpoints(const struct sdoc_array *tracked, struct seq_placements *out)
{
	struct step_results t;

	memset(out, 0, sizeof(*out));
	step_results_of(tracked, &t);
	out->v = xcalloc(t.n + 1, sizeof(*out->v));
	for (size_t i = 0; i < t.n; i++) {
		double e = 1 + t.v[i].delta_pct / 100;

		if (!(e > 0) || !isfinite(e) || e == 1)
			continue;
		out->v[out->n].workload = xstrdup(t.v[i].workload);
		out->v[out->n].metric = xstrdup(t.v[i].metric);
		out->v[out->n++].midpoint = sqrt(e);
	}
	step_results_release(&t);
}

/*
 * The midpoint rule: prefix k from its first session alone (the baseline
 * against it), each tracked metric's interval wholly on one side of its
 * midpoint. All on the baseline's side: at the baseline; all beyond: at
 * the end; some each way: between. A metric not placed (its interval
 * holds the midpoint, or it has none): BISECT_UNDECIDED, and the probe
 * goes on as before the rule, with a second session.
 */
static enum bisect_class place(const struct seq_placements *mid,
			       const struct sdoc_array *from_base)
{
	struct step_results fb;
	int base = 0, end = 0, unplaced = !mid->n;

	step_results_of(from_base, &fb);
	for (size_t i = 0; i < mid->n; i++) {
		const struct step_result *r = step_results_find(&fb, mid->v[i].workload,
								mid->v[i].metric);
		int side = r ? stats_side_of_midpoint(1 + r->lo_pct / 100, 1 + r->hi_pct / 100,
						      mid->v[i].midpoint) : 0;

		base += side < 0;
		end += side > 0;
		unplaced += !side;
	}
	step_results_release(&fb);
	if (unplaced)
		return BISECT_UNDECIDED;
	return base && end ? BISECT_BETWEEN : base ? BISECT_AT_BASE : BISECT_AT_END;
}

static enum bisect_class stopped(struct bisect *bs, int r)
{
	bs->status = r;
	return BISECT_STOPPED;
}

/* Both sessions of a probe, classified by their verdicts (before the midpoint rule). */
static int two_sided(struct bisect *bs, const char *name, const struct sdoc_array *from_base,
		     enum bisect_class *c)
{
	struct sdoc_array to_end;
	int r = bisect_run_step(bs, "probe-end", name, bs->series, NULL, RUN_ATTRIBUTE_OFF, &to_end);

	if (!r)
		*c = classify(&bs->doc.tracked, from_base, &to_end);
	return r;
}

/*
 * The class bisect.json recorded for prefix @k: 1 and *@c, or 0. A
 * resumed or complete bisection follows what it recorded, whatever rule
 * placed the prefix then (one started before the midpoint rule too).
 */
static int recorded_class(struct bisect *bs, long k, enum bisect_class *c)
{
	const struct bisect_doc_probe *v = bs->doc.probes.v;

	for (size_t i = 0; i < bs->doc.probes.n; i++) {
		if (v[i].prefix != k)
			continue;
		for (int x = BISECT_AT_BASE; x <= BISECT_UNBUILDABLE; x++)
			if (!strcmp(v[i].cls, bisect_class_name((enum bisect_class)x))) {
				*c = (enum bisect_class)x;
				return 1;
			}
	}
	return 0;
}

enum bisect_class bisect_oracle(long k, void *data)
{
	struct bisect *bs = data;
	struct seq_placements mid;
	struct sdoc_array from_base;
	enum bisect_class c = BISECT_UNDECIDED;
	const char *how = "placed against the midpoint";
	enum prefix_build built;
	int r = bisect_build_prefix(bs, k, &built);

	if (!r && built == PREFIX_UNBUILDABLE) {
		r = record_probe(bs, k, BISECT_UNBUILDABLE);
		return r ? stopped(bs, r) : BISECT_UNBUILDABLE;
	}
	if (!r && recorded_class(bs, k, &c))
		return c;
	char *name = bisect_prefix_name(bs, k);
	midpoints(&bs->doc.tracked, &mid);
	if (!r)
		r = bisect_run_step(bs, "probe-base", bs->base, name, &mid, RUN_ATTRIBUTE_OFF, &from_base);
	/* A probe whose second session was started (before the rule, or by it) ends with it. */
	if (!r && !bisect_find_step(bs, name, bs->series))
		c = place(&mid, &from_base);
	if (!r && c == BISECT_UNDECIDED) {
		how = "both sides";
		r = two_sided(bs, name, &from_base, &c);
	}
	seq_placements_release(&mid);
	free(name);
	if (r)
		return stopped(bs, r);
	bisect_say("prefix %ld of %ld: %s (%s)", k, bs->n, bisect_class_name(c), how);
	r = record_probe(bs, k, c);
	return r ? stopped(bs, r) : c;
}

/* The metrics the whole series moved: primaries, or all of a workload without any. */
struct sdoc_array bisect_tracked_metrics(const struct sdoc_array *results)
{
	const struct bisect_doc_result *v = results->v;
	struct sdoc_array out = { .v = xcalloc(results->n + 1, sizeof(*v)), .present = 1 };
	struct bisect_doc_result *o = out.v;
	struct step_results rs;
	int primaries;

	/* step_results_of() keeps every element, in order: rs.v[i] is v[i] */
	step_results_of(results, &rs);
	primaries = bisect_any_primary(&rs);
	for (size_t i = 0; i < rs.n; i++) {
		if (primaries && !rs.v[i].primary)
			continue;
		/* the element as the step holds it: tracked is stored as read */
		if (bisect_decisive(&rs.v[i]))
			o[out.n++] = v[i];
	}
	step_results_release(&rs);
	return out;
}
