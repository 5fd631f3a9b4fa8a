// SPDX-License-Identifier: GPL-2.0
/*
 * The series of nights the report files made (history.c) into their
 * change points (history_build(), history.h): sessions in time order,
 * each series' nights sized and searched with stats_changepoints(),
 * resumed from the incremental state where it still holds, and the drifts
 * a step search misses.
 */
#include "history.h"
#include "history_digest.h"
#include "history_priv.h"
#include "report_view.h"
#include "xjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


static int cmp_session(const void *a, const void *b)
{
	const struct history_session *x = a, *y = b;
	int c = strcmp(x->created, y->created);

	if (!c)
		c = strcmp(x->id, y->id);
	return c ? c : strcmp(x->path, y->path);
}

static int cmp_night(const void *a, const void *b)
{
	const struct history_night *x = a, *y = b;

	return (x->session > y->session) - (x->session < y->session);
}

/* Sessions in time order, and every night's session index with them. */
static void sort_sessions(struct history *h)
{
	size_t *rank = xmalloc((h->ns + 1) * sizeof(*rank));

	for (size_t i = 0; i < h->ns; i++)
		h->s[i].loaded = i;
	if (h->ns)
		qsort(h->s, h->ns, sizeof(*h->s), cmp_session);
	for (size_t i = 0; i < h->ns; i++)
		rank[h->s[i].loaded] = i;
	for (size_t i = 0; i < h->nseries; i++) {
		struct history_series *s = &h->series[i];

		for (size_t j = 0; j < s->nn; j++)
			s->nights[j].session = rank[s->nights[j].session];
		qsort(s->nights, s->nn, sizeof(*s->nights), cmp_night);
	}
	free(rank);
	h->latest = h->ns ? h->ns - 1 : (size_t)-1;
}

/* The kernel entry of @name in session @s. */
static const struct sdoc_kernel *kernel_in(const struct history_session *s, const char *name)
{
	return history_kernel_named(&s->ctx, name);
}

/* A patch's subject; "" for none. */
static const char *subject_of(const struct sdoc_kernel *k, size_t i)
{
	const char *s = sdoc_patch_at(k, i)->subject;

	return s ? s : "";
}

static int has_subject(const struct sdoc_kernel *k, const char *subject)
{
	for (size_t i = 0; k && i < k->series.n; i++)
		if (!strcmp(history_subject_core(subject_of(k, i)), history_subject_core(subject)))
			return 1;
	return 0;
}

/* @a and @b: a member of either night, NULL for none (as ""). */
static void diff_field(struct strvec *d, const char *what, const char *a, const char *b)
{
	const char *x = a ? a : "", *y = b ? b : "";

	if (strcmp(x, y))
		strvec_pushf(d, "%s: %s -> %s", what, *x ? x : "(none)", *y ? y : "(none)");
}

/* Plain text (renderers escape it): what differs between two nights. */
static void night_diff(const struct history *h, const struct history_series *s, size_t before,
		       size_t after, struct strvec *d)
{
	const struct history_session *a = &h->s[before], *b = &h->s[after];
	static const struct sdoc_kernel none;
	const struct sdoc_kernel *ka = kernel_in(a, s->kernel), *kb = kernel_in(b, s->kernel);
	const struct sdoc_host *ha = &a->ctx.host, *hb = &b->ctx.host;

	ka = ka ? ka : &none;
	kb = kb ? kb : &none;
	for (size_t i = 0; i < kb->series.n; i++)
		if (!has_subject(ka, subject_of(kb, i)))
			strvec_pushf(d, "+ %s", subject_of(kb, i));
	for (size_t i = 0; i < ka->series.n; i++)
		if (!has_subject(kb, subject_of(ka, i)))
			strvec_pushf(d, "- %s", subject_of(ka, i));
	diff_field(d, "source", ka->source, kb->source);
	diff_field(d, "ref", ka->ref, kb->ref);
	diff_field(d, "version", ka->version, kb->version);
	diff_field(d, "config", ka->config_hash, kb->config_hash);
	if (!d->n)
		diff_field(d, "build", ka->cache_key, kb->cache_key);
	diff_field(d, "host kernel", ha->kernel, hb->kernel);
	diff_field(d, "QEMU", ha->qemu_version, hb->qemu_version);
	diff_field(d, "libvirt", ha->libvirt_version, hb->libvirt_version);
}

static void gather(const struct history_series *s, const size_t *map, size_t from, size_t to,
		   double **out, size_t *n)
{
	size_t total = 0;

	for (size_t i = from; i < to; i++)
		total += s->nights[map[i]].n;
	*out = xmalloc((total + 1) * sizeof(**out));
	*n = 0;
	for (size_t i = from; i < to; i++) {
		memcpy(*out + *n, s->nights[map[i]].v, s->nights[map[i]].n * sizeof(double));
		*n += s->nights[map[i]].n;
	}
}

/*
 * Size and interval of each change point: the runs of the segment before
 * against those of the segment after, up to SIZE_NIGHTS nights on either
 * side of it. The step is what happened between two nights: nights far
 * from it add drift, not information, and the Hodges-Lehmann estimator's
 * n1 n2 differences grow with the square of a year of nights.
 */
#define SIZE_NIGHTS 10
static void size_cps(struct history *h, struct history_series *s, const size_t *map,
		     size_t k, const size_t *at, size_t ncp)
{
	struct stats_settings st;

	stats_settings_default(&st);
	/* The medians and the Hodges-Lehmann interval only: no bootstrap. */
	st.resamples = 0;
	for (size_t i = 0; i < ncp; i++) {
		struct history_cp *cp = &s->cps[i];
		size_t from = i ? at[i - 1] : 0, to = i + 1 < ncp ? at[i + 1] : k, na, nb;
		struct stats_comparison c;
		double *a, *b;

		if (at[i] - from > SIZE_NIGHTS)
			from = at[i] - SIZE_NIGHTS;
		if (to - at[i] > SIZE_NIGHTS)
			to = at[i] + SIZE_NIGHTS;
		gather(s, map, from, at[i], &a, &na);
		gather(s, map, at[i], to, &b, &nb);
		stats_compare(a, na, b, nb, &st, stats_seed_for(h->o.cp.seed, s->key), &c);
		cp->before = c.median_base;
		cp->after = c.median_patched;
		if (isfinite(c.hl_ratio)) {
			cp->delta_pct = 100 * (c.hl_ratio - 1);
			cp->lo_pct = 100 * (c.hl_ratio_lo - 1);
			cp->hi_pct = 100 * (c.hl_ratio_hi - 1);
		} else if (c.median_base != 0 && isfinite(c.hl_shift)) {
			double m = fabs(c.median_base);

			cp->delta_pct = 100 * c.hl_shift / m;
			cp->lo_pct = 100 * c.hl_lo / m;
			cp->hi_pct = 100 * c.hl_hi / m;
		} else {
			cp->delta_pct = cp->lo_pct = cp->hi_pct = NAN;
		}
		free(a);
		free(b);
		if (s->better < 0 || !isfinite(cp->delta_pct))
			cp->kind = "change";
		else
			cp->kind = (cp->delta_pct > 0) == (s->better == 1) ? "improvement" : "regression";
		cp->at = map[at[i]];
		cp->is_new = s->nights[cp->at].session == h->latest;
		night_diff(h, s, s->nights[map[at[i] - 1]].session, s->nights[cp->at].session,
			   &cp->diff);
	}
}

/*
 * Change points kept from the state file: their compact indices, or 0
 * kept. The state is sealed (history_state.c): what reaches here was
 * written by this user's history. It is still only used for what the
 * reports confirm: the same sessions, with the same runs (its "values"
 * digest), as the change points were found in. A session removed or
 * inserted in the past is no error (the series is searched again);
 * anything else that does not hold is said (history_state_reject()).
 */
static size_t resume_series(struct history *h, const struct history_series *s,
			    const size_t *map, size_t k, const struct state_series *st,
			    size_t *at, double *p, double *gross)
{
	char hex[SHA256_HEX_LEN + 1];
	size_t i, n = 0, nids = st->sessions.n;

	if (nids > k)
		return 0;
	for (i = 0; i < nids; i++)
		if (strcmp(st->sessions.v[i], h->s[s->nights[map[i]].session].id))
			return 0;
	for (i = 0; i < st->nconfirmed; i++) {
		long long a = st->confirmed[i].at;
		double pv = st->confirmed[i].p;

		if (nids < 2)
			return history_state_reject(h, s, "confirmed[%zu]: expected none over %zu "
						    "night%s", i, nids, nids == 1 ? "" : "s"), 0;
		if (a <= 0 || (uint64_t)a >= nids || (n && (size_t)a <= at[n - 1]))
			return history_state_reject(h, s, "confirmed[%zu].at: expected a night from 1 to "
						    "%zu, after the one before", i, nids - 1), 0;
		if (!(pv > 0 && pv <= 1))
			return history_state_reject(h, s, "confirmed[%zu].p: expected a p value above 0, "
						    "at most 1", i), 0;
		if (!(st->confirmed[i].gross == 0 || st->confirmed[i].gross >= h->o.cp.gross))
			return history_state_reject(h, s, "confirmed[%zu].gross: expected none, or a "
						    "ratio of at least %g", i, h->o.cp.gross), 0;
		at[n] = (size_t)a;
		gross[n] = st->confirmed[i].gross;
		p[n++] = pv;
	}
	history_state_values(s, nids, hex);
	if (strcmp(hex, st->values))
		return history_state_reject(h, s, "values: the runs of its first %zu nights are not "
					    "those its change points were found in (a report "
					    "changed)", nids), 0;
	return n ? n : (size_t)-1;	/* -1: resumable, nothing confirmed */
}

static size_t resume(struct history *h, const struct history_series *s, const size_t *map,
		     size_t k, const json_t *state, size_t *at, double *p, double *gross)
{
	struct strbuf why = STRBUF_INIT;
	struct state_series st;
	size_t n;
	int r = history_state_series(state, s->key, &st, &why);

	if (r < 0)
		history_state_reject(h, s, "%s", sb_str(&why));
	sb_release(&why);
	if (r <= 0)
		return 0;
	n = resume_series(h, s, map, k, &st, at, p, gross);
	state_series_release(&st);
	return n;
}

/*
 * Change points of one direction that a line over their span fits are a
 * drift (stats_cp_drifts()): they leave s->cps (the steps) for s->drifts.
 * s->seg keeps every change point, for the state file.
 */
static void find_drifts(struct history_series *s,
			const struct stats_cp_night *nights, const size_t *map, size_t k,
			const size_t *at)
{
	struct stats_cp_drift_settings ds;
	struct stats_cp_drift *d = NULL;
	size_t nd, w = 0;
	char *gone = xcalloc(s->ncp + 1, 1);

	s->seg = xcalloc(s->ncp + 1, sizeof(*s->seg));
	for (size_t i = 0; i < s->ncp; i++)
		s->seg[i] = (struct history_seg){ s->cps[i].at, s->cps[i].p, s->cps[i].gross,
						  s->cps[i].tentative };
	s->nseg = s->ncp;
	stats_cp_drift_settings_default(&ds);
	nd = stats_cp_drifts(nights, k, at, s->ncp, &ds, &d);
	s->drifts = xcalloc(nd + 1, sizeof(*s->drifts));
	for (size_t i = 0; i < nd; i++) {
		struct history_drift *o = &s->drifts[i];

		o->from = map[d[i].from];
		o->to = map[d[i].to];
		o->slope_pct = 100 * expm1(d[i].slope);
		o->total_pct = 100 * expm1(d[i].slope * (double)(d[i].to - d[i].from));
		o->p = d[i].p;
		o->ncp = d[i].ncp;
		if (s->better < 0 || d[i].slope == 0)
			o->kind = "change";
		else
			o->kind = (d[i].slope > 0) == (s->better == 1) ? "improvement" : "regression";
		for (size_t j = d[i].first_cp; j < d[i].first_cp + d[i].ncp; j++) {
			o->is_new |= s->cps[j].is_new;
			gone[j] = 1;
		}
	}
	s->ndrift = nd;
	for (size_t i = 0; i < s->ncp; i++) {
		if (gone[i]) {
			strvec_clear(&s->cps[i].diff);
			continue;
		}
		s->cps[w++] = s->cps[i];
	}
	s->ncp = w;
	free(gone);
	free(d);
}

static void detect(struct history *h, struct history_series *s, const json_t *state)
{
	size_t *map = xmalloc((s->nn + 1) * sizeof(*map)), k = 0, nkept, from = 0, n, ncp;
	struct stats_cp_night *nights = xmalloc((s->nn + 1) * sizeof(*nights));
	size_t *at = xmalloc((s->nn + 1) * sizeof(*at));
	double *p = xmalloc((s->nn + 1) * sizeof(*p));
	double *gross = xmalloc((s->nn + 1) * sizeof(*gross));
	struct stats_cp_settings cs = h->o.cp;
	struct stats_cp *found = NULL;

	/* Nights without a value (every run failed) stay in the chart, not in the test. */
	for (size_t i = 0; i < s->nn; i++) {
		if (!s->nights[i].n)
			continue;
		nights[k] = (struct stats_cp_night){ s->nights[i].v, s->nights[i].n };
		map[k++] = i;
	}
	nkept = state ? resume(h, s, map, k, state, at, p, gross) : 0;
	if (nkept == (size_t)-1) {
		nkept = 0;
		s->resumed = 1;
	} else if (nkept) {
		s->resumed = 1;
		from = at[nkept - 1];
	}
	cs.seed = stats_seed_for(h->o.cp.seed, s->key);
	n = stats_changepoints(nights, k, from, &cs, &found);
	h->searched += k - from;
	h->resumed += s->resumed;
	ncp = nkept + n;
	s->cps = xcalloc(ncp + 1, sizeof(*s->cps));
	for (size_t i = 0; i < nkept; i++) {
		s->cps[i].p = p[i];
		s->cps[i].gross = gross[i];
		s->cps[i].kept = 1;
	}
	for (size_t i = 0; i < n; i++) {
		at[nkept + i] = found[i].at;
		s->cps[nkept + i].p = found[i].p;
		s->cps[nkept + i].gross = found[i].gross;
		s->cps[nkept + i].tentative = found[i].tentative;
	}
	s->ncp = ncp;
	size_cps(h, s, map, k, at, ncp);
	find_drifts(s, nights, map, k, at);
	free(found);
	free(map);
	free(nights);
	free(at);
	free(p);
	free(gross);
}

void history_build(struct history *h, const json_t *state)
{
	sort_sessions(h);
	for (size_t i = 0; i < h->nseries; i++)
		detect(h, &h->series[i], state);
	if (h->state_invalid)
		warning("%s: the state of %zu series not used (the first, %s); %s searched from "
			"%s first night", h->state_path ? h->state_path : "the history state",
			h->state_invalid, h->state_invalid_first,
			h->state_invalid == 1 ? "it was" : "they were",
			h->state_invalid == 1 ? "its" : "their");
}

size_t history_new_regressions(const struct history *h)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ncp; j++)
			n += h->series[i].cps[j].is_new &&
			     !strcmp(h->series[i].cps[j].kind, "regression");
	for (size_t i = 0; i < h->nseries; i++)
		for (size_t j = 0; j < h->series[i].ndrift; j++)
			n += h->series[i].drifts[j].is_new &&
			     !strcmp(h->series[i].drifts[j].kind, "regression");
	return n;
}
