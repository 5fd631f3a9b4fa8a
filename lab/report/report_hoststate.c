// SPDX-License-Identifier: GPL-2.0
/*
 * Host-state adjusted metrics (docs/reports.md, "Host states").
 *
 * Under TCG the host these labs run on alternates between a fast and a
 * slow state for seconds at a time, on each host CPU independently, and a
 * timing metric follows it: yield_pingpong's rate moves by about x1.7
 * between the states, so runs of one kernel vary by CV 15-25 %. The
 * workload measures a reference loop (pure user space: the same work
 * whatever the kernel) on each CPU before each window, and reports every
 * (window, CPU) cell's rate with the reference rate before it.
 *
 * Over all runs of the session, both kernels together, the reference
 * rates split into two states (stats_two_states(): Otsu on the logs, with
 * a separation test). Where they are two real states, the slow state's
 * cost is estimated inside each kernel (mean log rate of its fast cells
 * minus that of its slow cells, so a kernel's own effect cancels) and
 * pooled over the kernels; each slow cell is scaled by it, and a run's
 * value is the median of its cells. The split and the scale come from the
 * reference, never from the metric per kernel, so the transformation is
 * the same for both kernels and the A/B comparison stays fair. On a host
 * with one state the cells are used as they are. Measured on the
 * bench/tcg-modes data (8 guests): CV across runs 4.5 % against 22-25 %
 * for the plain median, with no run lost; keeping the fast cells only
 * gave 3.4 % but left 3 of 8 runs of 5 windows with no value.
 */
#include "report.h"
#include "report_priv.h"
#include "stats.h"
#include "strbuf.h"
#include "util.h"
#include "workload_def.h"
#include "xjson.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* CPU counts per workload and metric; more than any sweep the lab runs. */
#define HOSTSTATE_MAX_INSTANCES 256

/* @pat with its "%d" replaced by @k. */
static char *instance(const char *pat, long k)
{
	const char *d = strstr(pat, "%d");
	struct strbuf sb = STRBUF_INIT;

	if (!d)
		return xstrdup(pat);
	sb_add(&sb, pat, (size_t)(d - pat));
	sb_addf(&sb, "%ld", k);
	sb_adds(&sb, d + 2);
	return sb_detach(&sb);
}

/* The number @name puts where @pat has "%d"; -1 when it does not match. */
static long instance_number(const char *pat, const char *name)
{
	const char *d = strstr(pat, "%d");
	size_t pre = d ? (size_t)(d - pat) : 0, post, len = strlen(name);
	long k = 0;

	if (!d || len < pre || strncmp(name, pat, pre))
		return -1;
	post = strlen(d + 2);
	if (len < pre + post + 1 || strcmp(name + len - post, d + 2))
		return -1;
	for (size_t i = pre; i < len - post; i++) {
		if (name[i] < '0' || name[i] > '9' || k > (INT_MAX - 9) / 10)
			return -1;
		k = k * 10 + (name[i] - '0');
	}
	return k;
}

/* A series of positive finite numbers, or 0 with *n = 0. */
static size_t series_values(const json_t *run, const char *name, double **out)
{
	const json_t *a = json_object_get(json_object_get(run, "series"), name), *v;
	size_t i, n = json_array_size(a);

	*out = NULL;
	if (!n)
		return 0;
	*out = xcalloc(n, sizeof(**out));
	json_array_foreach(a, i, v)
		(*out)[i] = json_is_number(v) ? json_number_value(v) : NAN;
	return n;
}

static int usable(double v)
{
	return isfinite(v) && v > 0;
}

/* One derived metric instance (one K) over the session. */
struct derivation {
	const char *workload;
	char *metric, *cells, *ref;
	struct stats_states st;
	double factor;		/* slow cells are multiplied by it; 1: none */
	const char *how;	/* what was done, for the report */
	size_t slow[2], fast[2], unknown[2], runs_without[2];
};

static int kernel_of(const json_t *run, const char *const kname[2])
{
	const char *k = jget_str(run, "kernel", "");

	for (int i = 0; i < 2; i++)
		if (kname[i] && !strcmp(k, kname[i]))
			return i;
	return -1;
}

static int counted(const json_t *run, const char *workload)
{
	return !json_is_true(json_object_get(run, "warmup")) &&
	       !strcmp(jget_str(run, "status", ""), "ok") &&
	       !strcmp(jget_str(run, "workload", ""), workload);
}

/* Split the session's reference rates and estimate the slow state's cost. */
static void estimate(struct derivation *d, const json_t *runs, const char *const kname[2])
{
	double *refs = NULL, *c, *r, sum[2][2] = { { 0 } };
	size_t nref = 0, alloc = 0, i, cnt[2][2] = { { 0 } };
	const json_t *run;

	json_array_foreach(runs, i, run) {
		size_t nr;

		if (!counted(run, d->workload) || kernel_of(run, kname) < 0)
			continue;
		nr = series_values(run, d->ref, &r);
		for (size_t j = 0; j < nr; j++) {
			if (!usable(r[j]))
				continue;
			if (nref == alloc)
				refs = xrealloc(refs, (alloc = alloc ? 2 * alloc : 64) * sizeof(*refs));
			refs[nref++] = r[j];
		}
		free(r);
	}
	stats_two_states(refs, nref, &d->st);
	free(refs);
	d->factor = 1;
	if (!nref) {
		d->how = "no reference rates: the cells as measured";
		return;
	}
	if (!d->st.separated) {
		d->how = "one host state: the cells as measured";
		return;
	}
	json_array_foreach(runs, i, run) {
		int k = kernel_of(run, kname);
		size_t nc, nr;

		if (!counted(run, d->workload) || k < 0)
			continue;
		nc = series_values(run, d->cells, &c);
		nr = series_values(run, d->ref, &r);
		for (size_t j = 0; j < nc && nc == nr; j++) {
			int fast;

			if (!usable(c[j]) || !usable(r[j]))
				continue;
			fast = r[j] > d->st.threshold;
			sum[k][fast] += log(c[j]);
			cnt[k][fast]++;
		}
		free(c);
		free(r);
	}
	/* Each kernel's own fast-slow difference, weighted like a two-sample mean. */
	double num = 0, den = 0;

	for (int k = 0; k < 2; k++) {
		double w;

		if (!cnt[k][0] || !cnt[k][1])
			continue;
		w = (double)(cnt[k][0] * cnt[k][1]) / (double)(cnt[k][0] + cnt[k][1]);
		num += w * (sum[k][1] / (double)cnt[k][1] - sum[k][0] / (double)cnt[k][0]);
		den += w;
	}
	if (den > 0) {
		d->factor = exp(num / den);
		d->how = "two host states: slow cells scaled by the slow state's cost";
	} else {
		d->how = "two host states, but no kernel ran in both: the cells as measured";
	}
}

/* The run's derived value into @out (nothing when it has no usable cell). */
static void derive_run(struct derivation *d, const json_t *run, int k, json_t *out)
{
	double *c, *r, *v;
	size_t nc = series_values(run, d->cells, &c), nr = series_values(run, d->ref, &r), n = 0;

	v = xcalloc(nc ? nc : 1, sizeof(*v));
	for (size_t j = 0; j < nc; j++) {
		if (!usable(c[j]))
			continue;
		if (!nr) {	/* no reference loop in this run (ref_ms = 0) */
			v[n++] = c[j];
			continue;
		}
		if (nr != nc || !usable(r[j])) {
			d->unknown[k]++;
			continue;
		}
		if (d->st.separated && r[j] <= d->st.threshold) {
			d->slow[k]++;
			v[n++] = c[j] * d->factor;
		} else {
			d->fast[k]++;
			v[n++] = c[j];
		}
	}
	if (n)
		json_object_set_new_nocheck(out, d->metric, json_real(stats_median(v, n)));
	else if (nc)
		d->runs_without[k]++;
	free(c);
	free(r);
	free(v);
}

static json_t *counts_json(const size_t v[2], const char *const kname[2])
{
	json_t *o = json_object();

	for (int k = 0; k < 2; k++)
		if (kname[k])
			json_object_set_new(o, kname[k], json_integer((json_int_t)v[k]));
	return o;
}

static json_t *info_json(const struct derivation *d, const char *const kname[2])
{
	return xjson_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:b, s:o,"
			  " s:o, s:o, s:o, s:o}",
			  "workload", d->workload, "metric", d->metric, "cells", d->cells,
			  "reference", d->ref, "method", d->how,
			  "threshold", jnum(d->st.threshold), "eta", jnum(d->st.eta),
			  "state_ratio", jnum(d->st.ratio), "slow_reference", jnum(d->st.low_gmean),
			  "fast_reference", jnum(d->st.high_gmean), "separated", d->st.separated,
			  "slow_cost", jnum(d->factor), "slow_cells", counts_json(d->slow, kname),
			  "fast_cells", counts_json(d->fast, kname),
			  "unknown_cells", counts_json(d->unknown, kname),
			  "runs_without_value", counts_json(d->runs_without, kname));
}

/* Every (workload, K) instance of @h that the session's runs have cells for. */
static void derive_one(const json_t *session, const char *workload,
		       const struct hoststate_metric *h, const char *const kname[2],
		       json_t *per_run, json_t *info)
{
	const json_t *runs = json_object_get(session, "runs"), *run;
	json_t *done = json_object();
	size_t i;

	json_array_foreach(runs, i, run) {
		const char *sname;
		const json_t *sv;

		if (!counted(run, workload))
			continue;
		json_object_foreach(json_object_get(run, "series"), sname, sv) {
			long kk = instance_number(h->cells, sname);
			struct derivation d = { .workload = workload };
			size_t j;
			const json_t *r2;

			if (kk < 0 || json_object_get(done, sname))
				continue;
			/* A crafted report must not make the analysis quadratic. */
			if (json_object_size(done) >= HOSTSTATE_MAX_INSTANCES)
				break;
			json_object_set_new(done, sname, json_true());
			d.metric = instance(h->metric, kk);
			d.cells = instance(h->cells, kk);
			d.ref = instance(h->ref, kk);
			estimate(&d, runs, kname);
			json_array_foreach(runs, j, r2) {
				int k = kernel_of(r2, kname);

				if (counted(r2, workload) && k >= 0)
					derive_run(&d, r2, k, json_array_get(per_run, j));
			}
			json_array_append_new(info, info_json(&d, kname));
			free(d.metric);
			free(d.cells);
			free(d.ref);
		}
	}
	json_decref(done);
}

json_t *report_hoststate(const json_t *session, const char *const kname[2], json_t **info)
{
	json_t *per_run = json_array(), *w;
	size_t i, nruns = json_array_size(json_object_get(session, "runs"));

	*info = json_array();
	for (i = 0; i < nruns; i++)
		json_array_append_new(per_run, json_object());
	json_array_foreach(json_object_get(session, "workloads"), i, w) {
		const struct workload_def *def = workload_find(jget_str(w, "type", ""));

		if (!def || !def->hoststate)
			continue;
		for (const struct hoststate_metric *h = def->hoststate; h->metric; h++)
			derive_one(session, jget_str(w, "name", ""), h, kname, per_run, *info);
	}
	return per_run;
}
