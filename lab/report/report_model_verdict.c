// SPDX-License-Identifier: GPL-2.0
/*
 * The verdicts (report_model_priv.h): once every series is compared, each
 * family's p values are Benjamini-Hochberg adjusted, and stats_decide()
 * gives each series its verdict (a counter's change), with what a
 * sequential plan, an emulator state the kernels' runs do not share and a
 * missing comparison say of it.
 */
#include "report.h"
#include "report_model_priv.h"
#include "stats.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A metric whose cells sit in emulator states that the kernels' runs do
 * not share (report_modes.c): across states the mix of states sets the
 * value, so no verdict and no runs estimate, only why (issue 49).
 */
static void undecidable_on_guest(const struct model *m, const struct series *s,
				 struct stats_decision *d)
{
	if (s->is_counter || d->verdict == VERDICT_INVALID)
		return;
	for (size_t i = 0; i < m->notes.n; i++) {
		const struct hoststate_note *h = &m->notes.v[i];

		if (!h->undecidable || strcmp(h->workload, s->workload) || strcmp(h->metric, s->name))
			continue;
		d->verdict = VERDICT_INCONCLUSIVE;
		d->final = 0;
		d->runs_needed = 0;
		snprintf(d->reason, sizeof(d->reason), "not decidable on this guest: %s",
			 h->undecidable);
		return;
	}
}

static void decide(struct model *m, struct series *s, size_t family)
{
	struct stats_decision d;
	struct result_record *r = s->rec;
	int c = s->compared;
	size_t failed = s->failed[0] + s->failed[1] + s->missing[0] + s->missing[1];
	size_t attempted = failed + s->n[0] + s->n[1];
	const char *id;

	if (c)
		r->comparison.q = jv(s->q);
	if (!m->kname[PATCHED]) {
		/* One kernel: nothing to compare, so no verdict at all (not "invalid"). */
		r->reason = "single-kernel session: statistics without comparison";
		return;
	}
	/* A sequential primary always uses its q: the look-adjusted p, BH-corrected. */
	stats_decide(&s->cmp, &m->st, s->better_higher, s->threshold,
		     family > 1 || is_seq_primary(m, s) ? s->q : NAN, failed, attempted, &d);
	if (is_seq_primary(m, s) && !s->look && d.verdict != VERDICT_INVALID) {
		d.verdict = VERDICT_INCONCLUSIVE;
		d.final = 0;
		/*
		 * The data's own estimate, never the plan's first look passed
		 * off as one (issue 49): none when they would decide now.
		 */
		if (d.runs_needed && d.runs_needed < m->seq.min_runs)
			d.runs_needed = stats_round_runs((double)m->seq.min_runs, 0);
		snprintf(d.reason, sizeof(d.reason), "%zu runs per kernel: the first look of the "
			 "sequential plan is after %zu", s->n[0] < s->n[1] ? s->n[0] : s->n[1],
			 m->seq.min_runs);
	}
	undecidable_on_guest(m, s, &d);
	if (!c && d.verdict != VERDICT_INVALID) {
		/* No comparison at all (a kernel has no values): never a pass. */
		d.verdict = VERDICT_INVALID;
		snprintf(d.reason, sizeof(d.reason), "no values for %s",
			 s->n[0] ? "the patched kernel" : "the baseline kernel");
	}
	id = stats_verdict_id(d.verdict);
	if (s->is_counter) {
		/* Counters have no "better": say which way they moved. */
		if (d.verdict == VERDICT_IMPROVEMENT || d.verdict == VERDICT_REGRESSION) {
			id = s->ratio >= 1 ? "increase" : "decrease";
		}
		r->change_id = id;
	} else {
		s->verdict = id;
		r->marker = stats_verdict_marker(d.verdict);
	}
	/* As result_record_decode() reads the id back: an unknown one is "invalid". */
	r->verdict = stats_verdict_from_id(id);
	r->verdict_id = stats_verdict_id(r->verdict);
	r->reason = result_strings_add(m->a.strings, d.reason);
	r->p_used = jv(d.p_used);
	r->used_q = !!d.used_q;
	r->runs_needed = (long)d.runs_needed;
	/* More runs would not refine it: what `run --until decided` waits for. */
	r->final = !!d.final;
}

static const char *const family_names[] = {
	[FAMILY_PRIMARY] = "primary", [FAMILY_SECONDARY] = "secondary",
	[FAMILY_COUNTER] = "counter",
};

static enum family family_of(const struct series *s)
{
	return s->is_counter ? FAMILY_COUNTER : s->primary ? FAMILY_PRIMARY : FAMILY_SECONDARY;
}

void model_bh_family(struct model *m, enum family f)
{
	size_t n = 0, j = 0;
	double *p;

	for (size_t i = 0; i < m->ns; i++)
		n += family_of(&m->s[i]) == f;
	p = xcalloc(n + 1, sizeof(double));
	for (size_t i = 0; i < m->ns; i++)
		if (family_of(&m->s[i]) == f)
			p[j++] = m->s[i].p;
	stats_bh_adjust(p, n, p);
	j = 0;
	for (size_t i = 0; i < m->ns; i++)
		if (family_of(&m->s[i]) == f)
			m->s[i].q = p[j++];
	for (size_t i = 0; i < m->ns; i++)
		if (family_of(&m->s[i]) == f) {
			m->s[i].rec->family = family_names[f];
			m->s[i].rec->family_size = (long)n;
			decide(m, &m->s[i], n);
		}
	free(p);
}
